#!/usr/bin/env python3
"""make bench: the live gdb session (vigil run --interactive, docs/GUIDE.md
"Debugging with the monitor live"), measured inside gdb, in one run:

 1. violation to prompt: `continue` from one stop of queue3 to the next
    violation (a few calls apart), until gdb's prompt is back with vigil's
    message; beside it, the same `continue` to a plain gdb breakpoint on an
    unprobed function (fill) and to a user breakpoint on a probed one
    (queue_push: it stands one instruction past the probe), each as a
    ratio to gdb's own breakpoint; and, for each violation, the time from
    the violating call itself (the probe's CLOCK_MONOTONIC time, in the
    violation report) to `continue` returning with vigil's message;
 2. `vigil checkpoint` from gdb (gdb detaches, vigil detaches its probes,
    CRIU dumps program and monitor state, probes and gdb come back) and
    `vigil restore` from gdb (gdb detaches, vigil kills the process, CRIU
    restores it, the monitor state is loaded, probes and gdb come back) for
    a 10 MB and a 100 MB process, beside a bare `criu dump --leave-running`
    and a bare `criu restore` of the same process without gdb or vigil.

Medians of every sample. QUICK=1: fewer loops, 10 MB only."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GDB_STOPS = r'''
import gdb, time
times = {"violation": [], "bp_probed": [], "bp_unprobed": [], "event_to_prompt": []}
reason = [None]
# the violating event's time (CLOCK_MONOTONIC, from the probe) as vigil's
# message for the stop is printed: vigil.py's _print_stop, in this namespace
event_ns = [None]
_vigil_print_stop = _print_stop
def _timed_print_stop(d):
    event_ns[0] = (d.get("violation") or {}).get("time_ns")
    _vigil_print_stop(d)
globals()["_print_stop"] = _timed_print_stop
def on_stop(ev):
    kind = None
    for b in getattr(ev, "breakpoints", []):
        if getattr(b, "user", None) is not None:
            kind = "bp_probed"
        elif b.type == gdb.BP_CATCHPOINT or b.number == 1:
            kind = "violation"
        elif b.location == "fill":
            kind = "bp_unprobed"
    if kind is None and isinstance(ev, gdb.SignalEvent):
        kind = "violation"
    reason[0] = kind
gdb.events.stop.connect(on_stop)
gdb.execute("break fill", to_string=True)
gdb.execute("break queue_push", to_string=True)
last = None
while True:
    reason[0] = event_ns[0] = None
    t0 = time.perf_counter()
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    dt = time.perf_counter() - t0
    prompt = time.monotonic()
    if not gdb.selected_inferior().pid:
        break
    # the first stop runs the loader and main's start: not a sample
    if last is not None and reason[0]:
        times[reason[0]].append(dt)
        if reason[0] == "violation" and event_ns[0]:
            times["event_to_prompt"].append(prompt - event_ns[0] / 1e9)
    last = reason[0]
with open(OUT, "w") as f:
    for k, v in times.items():
        f.write("%s %s\n" % (k, " ".join("%.6f" % x for x in v)))
'''

GDB_CKPT = r'''
import gdb, time
gdb.execute("break fflush", to_string=True)
gdb.execute("continue", to_string=True)     # memory touched
gdb.execute("delete 2", to_string=True)
ts, rs = [], []
for i in range(N):
    t0 = time.perf_counter()
    gdb.execute("vigil checkpoint", to_string=True)
    ts.append(time.perf_counter() - t0)
    gdb.execute("next", to_string=True)      # it runs on in between
for i in range(N):
    t0 = time.perf_counter()
    gdb.execute("vigil restore", to_string=True)    # the newest
    rs.append(time.perf_counter() - t0)
    gdb.execute("next", to_string=True)
with open(OUT, "w") as f:
    f.write(" ".join("%.6f" % x for x in ts) + "\n")
    f.write(" ".join("%.6f" % x for x in rs) + "\n")
'''


def live(vigil, spec, argv, out_dir):
    err = open(os.path.join(out_dir, "vigil.err"), "w+")
    p = subprocess.Popen([vigil, "run", "--interactive", spec, "--"] + argv,
                         stdout=subprocess.DEVNULL, stderr=err,
                         stdin=subprocess.DEVNULL)
    for _ in range(600):
        err.seek(0)
        lines = err.read().splitlines()
        join = [l.strip() for l in lines if l.strip().startswith("gdb -q -p")]
        if join:
            return p, join[0]
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    raise RuntimeError("vigil printed no live session: " + open(err.name).read())


def run_gdb(join, script, out_dir, **consts):
    py = os.path.join(out_dir, "bench.py")
    with open(py, "w") as f:
        for k, v in consts.items():
            f.write("%s = %r\n" % (k, v))
        f.write(script)
    subprocess.run(join.split() + ["-batch", "-x", py], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)


def ratio(a, b):
    return "%.1fx" % (statistics.median(a) / statistics.median(b)) if a and b else "-"


def med_ms(v):
    return "%.2f" % (statistics.median(v) * 1e3) if v else "-"


def stops(build, loops, d):
    vigil = os.path.join(build, "vigil")
    p, join = live(vigil, "specs/queue_bounds.vigil",
                   [os.path.join(build, "targets", "queue3"), "--loops", str(loops)], d)
    out = os.path.join(d, "stops")
    run_gdb(join, GDB_STOPS, d, OUT=out)
    p.wait(timeout=120)
    res = {}
    for line in open(out):
        k, *v = line.split()
        res[k] = [float(x) for x in v]
    return res


def criu_dump(criu, pid, d):
    img = tempfile.mkdtemp(dir=d)
    t0 = time.perf_counter()
    subprocess.run([criu, "dump", "-t", str(pid), "-D", img, "--leave-running",
                    "--shell-job", "--allow-uprobes"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    shutil.rmtree(img, ignore_errors=True)
    return dt


def gone(pid):
    for _ in range(1000):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.005)
    raise RuntimeError("pid %d did not go away" % pid)


def criu_restores(criu, pid, n, d):
    """Dump once, then n times: kill the process, time `criu restore`."""
    img = tempfile.mkdtemp(dir=d)
    subprocess.run([criu, "dump", "-t", str(pid), "-D", img, "--leave-running",
                    "--shell-job", "--allow-uprobes"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts = []
    try:
        for _ in range(n):
            os.kill(pid, 9)
            gone(pid)
            t0 = time.perf_counter()
            subprocess.run([criu, "restore", "-D", img, "--restore-detached",
                            "--shell-job", "--allow-uprobes"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ts.append(time.perf_counter() - t0)
    finally:
        shutil.rmtree(img, ignore_errors=True)
    return ts


def checkpoints(build, mb, n, d):
    vigil = os.path.join(build, "vigil")
    memhog = os.path.join(build, "bench", "memhog")
    ckdir = tempfile.mkdtemp(dir="/dev/shm")
    p, join = live(vigil, "bench/live.vigil", [memhog, str(mb)], d)
    out = os.path.join(d, "ckpt-%d" % mb)
    try:
        run_gdb(join, GDB_CKPT, d, OUT=out, N=n)
        lines = open(out).read().splitlines()
        ours = [float(x) for x in lines[0].split()]
        ours_rs = [float(x) for x in lines[1].split()] if len(lines) > 1 else []
    finally:
        pid = int(join.split()[3])
        # the same process, no gdb, no vigil: a bare CRIU dump, restore
        time.sleep(0.5)
        base = base_rs = []
        try:
            p.terminate()
            p.wait(timeout=30)
            base = [criu_dump(crpath(), pid, ckdir) for _ in range(n)]
            base_rs = criu_restores(crpath(), pid, n, ckdir)
        finally:
            subprocess.run(["kill", "-9", str(pid)], stderr=subprocess.DEVNULL)
            shutil.rmtree(ckdir, ignore_errors=True)
    return ours, base, ours_rs, base_rs


def crpath():
    return os.environ.get("VIGIL_CRIU") or shutil.which("criu") or "/usr/local/sbin/criu"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("live_bench: needs root (uprobes, CRIU)")
    d = tempfile.mkdtemp()
    try:
        s = stops(a.build, 5 if a.quick else 30, d)
        print("\n## live gdb session (bench/live_bench.py)")
        print("| continue to the next stop (queue3) | median ms | samples "
              "| vs gdb's own breakpoint (fill) |")
        print("|---|---|---|---|")
        for k, label in (("violation", "a violation, with vigil's message (kernel tier)"),
                         ("bp_unprobed", "a gdb breakpoint on an unprobed function (fill)"),
                         ("bp_probed", "a gdb breakpoint on a probed function (queue_push)")):
            print("| %s | %s | %d | %s |" % (label, med_ms(s[k]), len(s[k]),
                                            ratio(s[k], s["bp_unprobed"])))
        print("\n| violation to gdb's prompt | median ms | p90 ms | samples |")
        print("|---|---|---|---|")
        e = sorted(s["event_to_prompt"])
        print("| from the violating call (the probe's time) to `continue` returning "
              "with vigil's message | %s | %s | %d |" % (
                  med_ms(e), "%.2f" % (e[int(len(e) * 0.9)] * 1e3) if e else "-", len(e)))
        print("\n| process | vigil checkpoint from gdb, median ms | bare criu dump | ratio "
              "| vigil restore from gdb, median ms | bare criu restore | ratio |")
        print("|---|---|---|---|---|---|---|")
        for mb in ((10,) if a.quick else (10, 100)):
            ours, base, ours_rs, base_rs = checkpoints(a.build, mb, 5, d)
            print("| %d MB | %s | %s | %s | %s | %s | %s |" % (
                mb, med_ms(ours), med_ms(base), ratio(ours, base),
                med_ms(ours_rs), med_ms(base_rs), ratio(ours_rs, base_rs)))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()

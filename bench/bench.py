#!/usr/bin/env python3
"""bench/bench.py - vigil's benchmarks (run through bench/run.sh, `make bench`).

1. Per-event cost: build/bench/loop calls a no-op function N times; each row
   runs the same loop under one observer and reports the loop's own wall
   time / N (median of K repetitions, interleaved so drift hits every row):
     native         no probe
     floor          a near-empty BPF uprobe (bench/floor.bpf.c, own loader)
     floor+rb-wake  floor + one 104-byte ring-buffer record per hit, submitted
                    with flags 0 (reader woken when it had caught up: vigil's way)
     floor+rb-poll  the same with BPF_RB_NO_WAKEUP, reader polling every 10 ms
     bpftrace       uprobe:LOOP:FUNC /pid == cpid/ { @n = count(); }
     bpftrace-slice uprobe:LOOP:FUNC /pid == cpid/ { @n[arg0] = count(); }:
                    a counter per value of x, the state bench/loop.vigil's
                    `slice on x` keeps (its guard and stop bpftrace has not)
     vigil-user / vigil-kernel   build/vigil run --tier=... bench/loop.vigil
     vigil-fast     build/vigil run --fast 'vg_bench_op*' bench/loop.vigil:
                    the in-process tier, the same kernel-tier automaton
                    stepped by the agent inside the loop, no uprobe
     gdb            a breakpoint whose Python stop() reads $rdi and continues
   for both probed functions: vg_bench_op (starts with push %rbp, emulated by
   the kernel) and vg_bench_op_ss (starts with test, single-stepped). One run
   per row and repetition times both functions, one loop phase each.
2. Event-gap curve: the same loop with a calibrated amount of work between
   calls, 1 us .. 10 ms (one phase per gap in one run); slowdown = monitored
   time / native time per call at the same gap, for the rows above but
   bpftrace.
3. Watchpoint hits (bench/watch_bench.py): a loop writing a global N times,
   native, under a bare hardware breakpoint, the breakpoint with an empty
   BPF program, and vigil's user tier watching it; ns per hit and ratios to
   the bare breakpoint. Then what arming per transition and held hits cost
   (build/bench/armloop, with and without watching, with and without a hold).
4. Real programs (bench/real_bench.py): xz -T2, the sqlite3 shell and a
   malloc-heavy program, native, under vigil with properties of specs/lib/
   and (the malloc program) under valgrind memcheck: wall time, the
   program's own run time, slowdowns, vigil's events and events/s.
5. heap_overflow.vigil on a string-heavy sqlite3 script (bench/
   overflow_bench.py): native, its floor (the same events, nothing
   checked), vigil, valgrind memcheck, and sqlite3 built from Debian's
   source plain and with ASan (scripts/build_sqlite3.sh).
6. The object map's lookups against live blocks (bench/objmap_bench.c).

Every probed run is checked: the observer must report exactly as many hits
as the loop made calls (the phases plus an untimed warm-up), the
target must exit 0 and leave nothing behind, and no uprobe may remain on the
loop binary at the end. A failed measurement prints FAILED (never a number)
and makes the driver exit 1.

Outputs: build/bench/*.csv, build/bench/summary.md, build/bench/event_gap.png
(and docs/perf/event_gap.png on a full run); a summary on stdout.
"""
import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import overflow_bench
import real_bench
# the sections (real_bench, watch_bench...) print through B.fmt, B.table...
from bench_fmt import fmt, fmt_ns, md_table, med, table, write_csv  # noqa: F401
import watch_bench
from gap_plot import PlotError, crossing, plot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNC = {"op": "vg_bench_op", "ss": "vg_bench_op_ss"}
FUNC_DESC = {
    "op": "vg_bench_op (push %rbp: emulated)",
    "ss": "vg_bench_op_ss (test: single-stepped)",
}
SPEC = "bench/loop.vigil"  # one property per function
# the floor's ring-buffer record: 96 bytes (bench/floor.bpf.c) + the 8-byte
# header; vigil's own sizes come from build/bench/recsize
FLOOR_REC_BYTES = 104
PER_EVENT_TOOLS = ["native", "floor", "floor+rb-wake", "floor+rb-poll", "bpftrace",
                   "bpftrace-slice",
                   "vigil-user", "vigil-kernel", "vigil-fast", "gdb"]
GAP_TOOLS = ["native", "floor", "floor+rb-wake", "floor+rb-poll", "vigil-user",
             "vigil-kernel", "gdb"]


def log(msg):
    print("bench: " + msg, flush=True)


class Failure(Exception):
    """A measurement that did not give a trustworthy number."""


# --------------------------------------------------------------------------
# running one observed loop


def group_left(pgid):
    """Everything a command started must be gone with it: at once, but for
    vigil's vigil-release (user/probe/late_release.c), which holds the
    probes for the kernel's grace periods and exits within about a second
    of vigil (two or three on a busy machine, after many uprobes). True
    (and the group killed) if something outlived ten seconds."""
    for _ in range(200):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.05)
    os.killpg(pgid, signal.SIGKILL)
    return True


def descendants(pid):
    """Pids of pid's descendants (children first found through /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for t in tasks:
            try:
                kids = open("/proc/%d/task/%s/children" % (p, t)).read().split()
            except OSError:
                continue
            for k in kids:
                out.append(int(k))
                todo.append(int(k))
    return out


def kill_pid(pid):
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


class Bench:
    def __init__(self, args):
        self.build = os.path.join(ROOT, args.build)
        self.out = os.path.join(self.build, "bench")
        self.loop = os.path.join(self.out, "loop")
        self.floor = os.path.join(self.out, "floor")
        self.vigil = os.path.join(self.build, "vigil")
        self.gdbpy = os.path.join(ROOT, "bench", "gdb_count.py")
        self.tmp = tempfile.mkdtemp(prefix="vigil-bench.")
        self.logdir = os.path.join(self.out, "logs")  # output of failed runs
        shutil.rmtree(self.logdir, ignore_errors=True)
        os.makedirs(self.logdir, exist_ok=True)
        self.nrun = 0
        self.spawned = set()  # pids of the observers and loops we started
        self.rec_event = None  # ring-buffer bytes of one user-tier record
        self.rec_kstep = None

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _kill_target(self, pidfile):
        """Kill the loop process if it outlived its observer. True if it did."""
        try:
            pid = int(open(pidfile).read())
        except (OSError, ValueError):
            return False
        self.spawned.add(pid)
        try:
            exe = os.readlink("/proc/%d/exe" % pid)
        except OSError:
            return False  # gone
        if os.path.realpath(exe) != os.path.realpath(self.loop):
            return False  # pid reused by someone else's process
        kill_pid(pid)
        return True

    def run(self, tool, phases, timeout):
        """Run the loop under one observer. phases: [(fn, n, work_units)].
        Returns a dict: phase_ns (per phase), wall_s, hits {fn: n} (None for
        native), and for vigil events, lost and rb_bytes."""
        self.nrun += 1
        label = "%s#%d" % (tool, self.nrun)
        pidfile = os.path.join(self.tmp, "pid.%d" % self.nrun)
        jsonfile = os.path.join(self.tmp, "vigil.%d.json" % self.nrun)
        used = []
        for fn, _, _ in phases:
            if fn not in used:
                used.append(fn)
        loop = [self.loop]
        for fn, n, work in phases:
            loop += ["--phase", "%s:%d:%d" % (fn, n, work)]
        loop += ["--pidfile", pidfile, "--max-seconds", str(int(timeout) + 5)]
        env = None
        if tool == "native":
            cmd = loop
        elif tool == "floor":
            cmd = [self.floor, ",".join(FUNC[f] for f in used), "--"] + loop
        elif tool in ("floor+rb-wake", "floor+rb-poll"):
            mode = "wakeup" if tool == "floor+rb-wake" else "nowakeup"
            cmd = [self.floor, "--ringbuf", mode, ",".join(FUNC[f] for f in used), "--"] + loop
        elif tool == "bpftrace":
            # bpftrace's uprobes see every process running the binary:
            # count only the loop it started (cpid)
            prog = " ".join("uprobe:%s:%s /pid == cpid/ { @%s = count(); }"
                            % (self.loop, FUNC[f], f) for f in used)
            cmd = ["bpftrace", "-e", prog, "-c", " ".join(loop)]
        elif tool == "bpftrace-slice":
            prog = " ".join("uprobe:%s:%s /pid == cpid/ { @%s[arg0] = count(); }"
                            % (self.loop, FUNC[f], f) for f in used)
            cmd = ["bpftrace", "-e", prog, "-c", " ".join(loop)]
        elif tool in ("vigil-user", "vigil-kernel"):
            cmd = [self.vigil, "run", "--tier=" + tool.split("-")[1],
                   "--json", jsonfile, os.path.join(ROOT, SPEC), "--"] + loop
        elif tool == "vigil-fast":
            cmd = [self.vigil, "run", "--fast", "vg_bench_op*",
                   "--json", jsonfile, os.path.join(ROOT, SPEC), "--"] + loop
        elif tool == "gdb":
            cmd = ["gdb", "-batch", "-nx", "-x", self.gdbpy, "--args"] + loop
            env = dict(os.environ, VG_BENCH_FN=",".join(FUNC[f] for f in used))
        else:
            raise ValueError(tool)

        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env, cwd=ROOT,
                             start_new_session=True, text=True)
        self.spawned.add(p.pid)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # the observer's descendants may be in sessions of their own
            # (vigil runs its target in one): kill them by pid first
            for pid in descendants(p.pid):
                kill_pid(pid)
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            self._kill_target(pidfile)
            path = self._save_log(label, cmd, out, err, "timeout")
            raise Failure("%s: no result within %ds (output in %s)" % (tool, timeout, path))
        wall = time.monotonic() - t0
        leftover = group_left(p.pid)
        if self._kill_target(pidfile):
            leftover = True
        text = out + "\n" + err
        if leftover:
            path = self._save_log(label, cmd, out, err, "leftover")
            raise Failure("%s: left a process behind, killed it (output in %s)" % (tool, path))
        if p.returncode != 0:
            path = self._save_log(label, cmd, out, err, "exit %d" % p.returncode)
            raise Failure("%s: exit status %d (output in %s)" % (tool, p.returncode, path))

        phase_ns, phase_cpu = [], []
        for i, (fn, n, work) in enumerate(phases):
            m = re.search(r"^loop: phase=%d fn=%s n=%d work=%d ns=(\d+) parent_cpu_ns=(\d+)$"
                          % (i, fn, n, work), text, re.M)
            if not m:
                path = self._save_log(label, cmd, out, err, "no phase line")
                raise Failure("%s: the loop did not report phase %d (output in %s)"
                              % (tool, i, path))
            phase_ns.append(int(m.group(1)))
            phase_cpu.append(int(m.group(2)))
        m = re.search(r"^loop: warmup op=(\d+) ss=(\d+)$", text, re.M)
        if not m:
            path = self._save_log(label, cmd, out, err, "no warmup line")
            raise Failure("%s: the loop did not report its warm-up (output in %s)" % (tool, path))
        # what an observer must have seen: the phases plus the untimed warm-up
        calls = {"op": int(m.group(1)), "ss": int(m.group(2))}
        for fn, n, _ in phases:
            calls[fn] += n
        r = {"phase_ns": phase_ns, "phase_cpu": phase_cpu, "wall_s": wall, "hits": {}, "events": None,
             "lost": None, "rb_bytes": None, "calls": sum(calls.values())}

        if tool.startswith("floor+rb"):
            r["events"] = self._int(r"^floor: records=(\d+)$", text)
            if r["events"] != r["calls"]:
                path = self._save_log(label, cmd, out, err, "records")
                raise Failure("%s: read %s records for %d calls (output in %s)"
                              % (tool, r["events"], r["calls"], path))
            r["rb_bytes"] = r["events"] * FLOOR_REC_BYTES
        for fn in used:
            if tool.startswith("floor"):
                r["hits"][fn] = self._int(r"^floor: %s hits=(\d+)$" % FUNC[fn], text)
            elif tool == "bpftrace":
                # bpftrace prints nothing for a map that was never written
                h = self._int(r"^@%s: (\d+)$" % fn, text)
                r["hits"][fn] = 0 if h is None else h
            elif tool == "bpftrace-slice":
                # one line per key: @op[3]: 125000
                r["hits"][fn] = sum(int(v) for v in
                                    re.findall(r"^@%s\[\d+\]: (\d+)$" % fn, text, re.M))
            elif tool == "gdb":
                r["hits"][fn] = self._int(r"^gdb: %s hits=(\d+) " % FUNC[fn], text)
        if tool.startswith("vigil"):
            self._vigil_stats(r, jsonfile, tool)
        if tool != "native":
            for fn in used:
                if r["hits"].get(fn) != calls[fn]:
                    path = self._save_log(label, cmd, out, err, "hits")
                    raise Failure("%s: %s reported %s hits for %d calls (output in %s)"
                                  % (tool, FUNC[fn], r["hits"].get(fn), calls[fn], path))
        return r

    @staticmethod
    def _int(rx, text):
        m = re.search(rx, text, re.M)
        return int(m.group(1)) if m else None

    def _vigil_stats(self, r, jsonfile, tool):
        stats = None
        try:
            with open(jsonfile) as f:
                for line in f:
                    line = line.strip()
                    if line:
                        obj = json.loads(line)
                        if obj.get("type") == "stats":
                            stats = obj
        except (OSError, ValueError):
            stats = None
        if stats is None:
            raise Failure("%s: no {\"type\":\"stats\"} line in --json output" % tool)
        if stats.get("violations"):
            raise Failure("%s: reported a violation of a property that holds" % tool)
        # "records": what reached user space; older builds called it "events"
        # (newer ones use "events" for what the probes saw)
        r["events"] = stats.get("records", stats.get("events"))
        r["lost"] = stats.get("lost")
        if r["lost"]:
            # the monitor did less than the full work: its time would flatter it
            raise Failure("%s: lost %s events (ring buffer full)" % (tool, r["lost"]))
        for pr in stats.get("probes", []):
            for fn, name in FUNC.items():
                if pr.get("name") == name:
                    r["hits"][fn] = pr.get("hits")
        # Ring-buffer bytes: the records the user side received x their size
        # in the ring buffer. The user
        # tier sends one VG_REC_EVENT per hit; the kernel tier only
        # VG_REC_KSTEP records for transitions worth reporting.
        if r["events"] is not None and self.rec_event:
            size = self.rec_event if tool == "vigil-user" else self.rec_kstep
            r["rb_bytes"] = r["events"] * size

    def _save_log(self, label, cmd, out, err, why):
        path = os.path.join(self.logdir, "fail-%s.log" % label.replace("#", "-"))
        with open(path, "w") as f:
            f.write("# %s\n# %s\n--- stdout\n%s\n--- stderr\n%s\n"
                    % (why, " ".join(cmd), out, err))
        return os.path.relpath(path, ROOT)


# --------------------------------------------------------------------------
# statistics and tables


# --------------------------------------------------------------------------
# the machine


def machine_info():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(cmd):
        try:
            o = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
            return (o.stdout or o.stderr).splitlines()[0].strip()
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"

    return [
        ("nproc", str(os.cpu_count())),
        ("kernel", platform.release()),
        ("cpu", cpu),
        ("load average at start", " ".join(open("/proc/loadavg").read().split()[:3])),
        ("gcc", version(["cc", "--version"])),
        ("bpftrace", version(["bpftrace", "--version"])),
        ("gdb", version(["gdb", "--version"])),
    ]


def probes_on_loop(loop):
    """(pid, line) of every uprobe attached to the loop binary right now
    (bpftool perf list names the process holding it). Others on this machine
    may probe the same binary: a probe filtered to their own process does
    not touch our runs, a system-wide one (bpftrace without -p) would slow
    them, so the driver names them at the start."""
    try:
        o = subprocess.run(["bpftool", "perf", "list"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Failure("bpftool perf list: %s" % e)
    out = []
    for l in o.stdout.splitlines():
        m = re.match(r"\s*pid (\d+) ", l)
        if loop in l and m:
            out.append((int(m.group(1)), l.strip()))
    return out


# --------------------------------------------------------------------------
# 1. per-event cost


# rough cost per call of each observer, only to set generous time limits
EST_NS = {"native": 0, "floor": 15e3, "floor+rb-wake": 50e3, "floor+rb-poll": 15e3,
          "bpftrace": 15e3, "bpftrace-slice": 15e3, "vigil-user": 50e3,
          "vigil-kernel": 25e3, "vigil-fast": 5e3, "gdb": 2e6}


def timeout_for(tool, phases, unit):
    est = sum(n * (w * unit + 10 + EST_NS[tool]) for _, n, w in phases) / 1e9
    return int(60 + 5 * est)


def per_event(b, cfg, tools, failures):
    """One run per tool and repetition, with one phase per function (order
    alternating between repetitions). Returns {tool: [run dicts]}."""
    raw = []
    res = {t: [] for t in tools}
    for rep in range(cfg["reps"]):
        order = ["op", "ss"] if rep % 2 == 0 else ["ss", "op"]
        for tool in tools:
            if res[tool] is None:
                continue  # failed before: no more runs
            phases = [(fn, cfg["n"][tool][fn], 0) for fn in order]
            try:
                r = b.run(tool, phases, timeout_for(tool, phases, 1.0))
            except Failure as e:
                failures.append("per-event %s: %s" % (tool, e))
                log("FAILED per-event %s: %s" % (tool, e))
                res[tool] = None
                continue
            r["per_call"], r["cpu_per_call"], r["n"] = {}, {}, {}
            for (fn, n, _), ns, cpu in zip(phases, r["phase_ns"], r["phase_cpu"]):
                r["per_call"][fn] = ns / n
                r["cpu_per_call"][fn] = cpu / n
                r["n"][fn] = n
                raw.append([rep + 1, tool, fn, n, ns, "%.3f" % (ns / n), cpu,
                            "%.3f" % (cpu / n), "%.3f" % r["wall_s"],
                            r["hits"].get(fn), r["events"], r["lost"], r["rb_bytes"]])
            r["fixed_s"] = r["wall_s"] - sum(r["phase_ns"]) / 1e9
            res[tool].append(r)
        log("per-event: repetition %d/%d done" % (rep + 1, cfg["reps"]))
    write_csv(os.path.join(b.out, "per_event_raw.csv"),
              ["rep", "row", "function", "n", "loop_ns", "ns_per_event", "observer_cpu_ns",
               "observer_cpu_ns_per_event", "run_wall_s",
               "hits", "vigil_records", "vigil_lost", "run_rb_bytes"], raw)
    return res


def per_event_summary(b, res, skipped):
    """The per-event tables (one per function) and the fixed-cost table."""
    header = ["row", "N", "ns/event", "spread", "added", "x native", "x floor",
              "observer CPU/event", "ringbuf B/event"]
    out = {}
    csv_rows = []
    for fn in FUNC:
        stats = {}
        for tool, runs in res.items():
            if runs:
                per = [r["per_call"][fn] for r in runs]
                rb = [r["rb_bytes"] / r["calls"] for r in runs if r["rb_bytes"] is not None]
                cpu = [r["cpu_per_call"][fn] for r in runs]
                stats[tool] = {"n": runs[0]["n"][fn], "med": med(per), "min": min(per),
                               "max": max(per), "reps": len(per), "cpu": med(cpu),
                               "rb": med(rb) if rb else None}
        nat = stats.get("native", {}).get("med")
        flo = stats.get("floor", {}).get("med")
        rows = []
        for tool in PER_EVENT_TOOLS:
            if tool in skipped:
                rows.append([tool, "-", "skipped: " + skipped[tool]])
                continue
            st = stats.get(tool)
            if st is None:
                rows.append([tool, "-", "FAILED"])
                continue
            spread = (st["max"] - st["min"]) / st["med"] * 100 if st["med"] else 0
            added = st["med"] - nat if nat is not None and tool != "native" else None
            rows.append([tool, st["n"], fmt_ns(st["med"]), "%.0f%%" % spread,
                         fmt_ns(added) if added is not None else "-",
                         fmt(st["med"] / nat) if nat else "-",
                         fmt(st["med"] / flo) if flo else "-",
                         fmt_ns(st["cpu"]) if tool != "native" else "-",
                         fmt(st["rb"]) if st["rb"] is not None else "-"])
            csv_rows.append([fn, tool, st["n"], st["reps"], "%.3f" % st["med"],
                             "%.3f" % st["min"], "%.3f" % st["max"],
                             "%.3f" % added if added is not None else "",
                             "%.4f" % (st["med"] / nat) if nat else "",
                             "%.4f" % (st["med"] / flo) if flo else "",
                             "%.1f" % st["cpu"],
                             "%.1f" % st["rb"] if st["rb"] is not None else ""])
        out[fn] = (header, rows)
    write_csv(os.path.join(b.out, "per_event.csv"),
              ["function", "row", "n", "reps", "ns_per_event_median", "ns_min", "ns_max",
               "added_ns", "ratio_native", "ratio_floor", "observer_cpu_ns_per_event",
               "rb_bytes_per_event"], csv_rows)

    # what a run costs besides the loop: start, load, attach, warm-up, exit
    fixed_rows = []
    for tool in PER_EVENT_TOOLS:
        runs = res.get(tool)
        if runs:
            f = [r["fixed_s"] for r in runs]
            fixed_rows.append([tool, "%.2f" % med(f), "%.2f" % min(f), "%.2f" % max(f)])
    return out, (["row", "median s", "min s", "max s"], fixed_rows)


# --------------------------------------------------------------------------
# 2. event-gap curve


def calibrate(b):
    vals = []
    for _ in range(3):
        o = subprocess.run([b.loop, "--calibrate"], capture_output=True, text=True,
                           timeout=60)
        m = re.search(r"ns_per_unit=([0-9.]+)", o.stdout)
        if o.returncode != 0 or not m:
            raise Failure("loop --calibrate failed: %s" % (o.stdout + o.stderr))
        vals.append(float(m.group(1)))
    return min(vals)  # the least disturbed; see loop.c


def gap_n(tool, gap_ns, cfg):
    """Calls per run at this gap: about cfg's target time of native work."""
    if tool == "gdb":
        n = cfg["gap_time_gdb_s"] * 1e9 / (gap_ns + 300e3)  # ~300 us per gdb hit
        return int(max(cfg["gap_nmin_gdb"], min(cfg["gap_nmax_gdb"], round(n))))
    n = cfg["gap_time_s"] * 1e9 / gap_ns
    return int(max(cfg["gap_nmin"], min(cfg["gap_nmax"], round(n))))


def event_gap(b, cfg, tools, failures):
    """One run per tool and repetition, one phase per gap (ascending, then
    descending on the next repetition)."""
    unit = calibrate(b)
    log("work calibration: %.4f ns per unit" % unit)
    gaps = cfg["gaps"]
    work = {g: max(0, int(round(g / unit))) for g in gaps}
    samples = {(g, t): [] for g in gaps for t in tools}
    failed = set()
    raw = []
    for rep in range(cfg["reps_gap"]):
        order = gaps if rep % 2 == 0 else list(reversed(gaps))
        for tool in tools:
            if tool in failed:
                continue
            phases = [("op", gap_n(tool, g, cfg), work[g]) for g in order]
            try:
                r = b.run(tool, phases, timeout_for(tool, phases, unit))
            except Failure as e:
                failures.append("event-gap %s: %s" % (tool, e))
                log("FAILED event-gap %s: %s" % (tool, e))
                failed.add(tool)
                continue
            for g, (_, n, w), ns, cpu in zip(order, phases, r["phase_ns"], r["phase_cpu"]):
                samples[(g, tool)].append(ns / n)
                raw.append([g, w, tool, rep + 1, n, ns, "%.3f" % (ns / n), cpu])
        log("event-gap: repetition %d/%d done" % (rep + 1, cfg["reps_gap"]))
    write_csv(os.path.join(b.out, "event_gap_raw.csv"),
              ["gap_nominal_ns", "work_units", "tool", "rep", "n", "loop_ns",
               "ns_per_call", "observer_cpu_ns"], raw)

    curve = {t: [] for t in tools if t != "native" and t not in failed}
    if "native" in failed:
        return unit, {}, failed
    rows = []
    for g in gaps:
        nat = med(samples[(g, "native")])
        for t in curve:
            mon = med(samples[(g, t)])
            curve[t].append((g, nat, mon, mon / nat))
            rows.append([g, work[g], "%.1f" % nat, t, "%.1f" % mon, "%.4f" % (mon / nat)])
    write_csv(os.path.join(b.out, "event_gap.csv"),
              ["gap_nominal_ns", "work_units", "native_ns_per_call", "tool",
               "monitored_ns_per_call", "slowdown"], rows)
    return unit, curve, failed


# --------------------------------------------------------------------------


def config(quick):
    """Sizes: probed rows call each function enough for ~0.3 s (full) of the
    floor's cost; gdb fewer, it is ~400x slower. QUICK has 3 per-event
    repetitions (5 until the real-programs section joined it: `make bench
    QUICK=1` must stay under 2 minutes on a busy 2-vCPU machine)."""
    if quick:
        probe_n, native_n, gdb_n = {"op": 100000, "ss": 10000}, 2000000, 300
        cfg = {
            "reps": 3, "reps_gap": 3,
            "gaps": [1e3, 1e4, 1e5, 1e6, 1e7],
            "gap_time_s": 0.05, "gap_nmin": 5, "gap_nmax": 50000,
            "gap_time_gdb_s": 0.15, "gap_nmin_gdb": 5, "gap_nmax_gdb": 400,
        }
    else:
        probe_n, native_n, gdb_n = {"op": 400000, "ss": 40000}, 20000000, 2000
        cfg = {
            "reps": 7, "reps_gap": 7,
            "gaps": [1e3 * 10 ** (i / 3) for i in range(13)],  # 1 us .. 10 ms
            "gap_time_s": 0.25, "gap_nmin": 20, "gap_nmax": 200000,
            "gap_time_gdb_s": 0.6, "gap_nmin_gdb": 20, "gap_nmax_gdb": 2000,
        }
    cfg["n"] = {t: dict(probe_n) for t in PER_EVENT_TOOLS}
    cfg["n"]["native"] = {"op": native_n, "ss": native_n}
    cfg["n"]["gdb"] = {"op": gdb_n, "ss": gdb_n}
    return cfg


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and gaps")
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--only", choices=["per-event", "event-gap", "watch", "real",
                                       "objmap", "overflow"],
                    help="run one part")
    args = ap.parse_args()
    t_start = time.monotonic()

    if os.geteuid() != 0:
        print("bench: needs root (uprobes, BPF, ptrace); run it as root", file=sys.stderr)
        return 3
    b = Bench(args)
    for p in (b.loop, b.floor, os.path.join(b.out, "recsize"),
              os.path.join(b.out, "wloop"), os.path.join(b.out, "wfloor"),
              os.path.join(b.out, "armloop"), os.path.join(b.out, "allocs_bench"),
              os.path.join(b.out, "runtime.so")):
        if not os.access(p, os.X_OK):
            print("bench: %s missing: run `make bench`, which builds it" % p,
                  file=sys.stderr)
            b.cleanup()
            return 3
    o = subprocess.run([os.path.join(b.out, "recsize")], capture_output=True, text=True)
    m = re.match(r"event=(\d+) kstep=(\d+)", o.stdout)
    if m:
        b.rec_event, b.rec_kstep = int(m.group(1)), int(m.group(2))

    cfg = config(args.quick)
    skipped = {}
    for tool, exe in (("bpftrace", "bpftrace"), ("bpftrace-slice", "bpftrace"),
                      ("gdb", "gdb")):
        if not shutil.which(exe):
            skipped[tool] = exe + " not installed"
    vigil_id = None
    if not os.access(b.vigil, os.X_OK):
        skipped["vigil-user"] = skipped["vigil-kernel"] = skipped["vigil-fast"] = "vigil not built"
        log("vigil not built (%s missing): the vigil rows are skipped"
            % os.path.relpath(b.vigil, ROOT))
    else:
        # Measure a private copy: someone rebuilding build/vigil during the
        # run must not mix two versions in one table.
        copy = os.path.join(b.tmp, "vigil")
        shutil.copy2(b.vigil, copy)
        with open(copy, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:12]
        vigil_id = "%s, built %s, sha256 %s" % (
            os.path.relpath(b.vigil, ROOT),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(copy))), digest)
        b.vigil = copy
    mode = "QUICK" if args.quick else "full"
    info = machine_info()
    if vigil_id:
        info.append(("vigil", vigil_id))
    log("%s run, %s" % (mode, time.strftime("%Y-%m-%d %H:%M:%S")))
    for k, v in info:
        log("  %s: %s" % (k, v))
    for pid, l in probes_on_loop(b.loop):
        log("note: a process not ours probes the loop binary (left alone): " + l)

    failures = []
    summary_md = ["# vigil benchmark summary (%s run, %s)"
                  % (mode, time.strftime("%Y-%m-%d %H:%M")), ""]
    summary_md += ["- %s: %s" % kv for kv in info]
    summary_md.append("")
    try:
        if args.only in (None, "per-event"):
            tools = [t for t in PER_EVENT_TOOLS if t not in skipped]
            t0 = time.monotonic()
            res = per_event(b, cfg, tools, failures)
            log("per-event: took %.0f s" % (time.monotonic() - t0))
            tabs, fixed = per_event_summary(b, res, skipped)
            print()
            for fn in FUNC:
                header, rows = tabs[fn]
                print("Per-event cost, %s, median of %d runs:" % (FUNC_DESC[fn], cfg["reps"]))
                print(table(header, rows))
                print()
                summary_md += ["## Per-event cost: %s" % FUNC_DESC[fn], "",
                               md_table(header, rows), ""]
            print("Fixed cost of one run besides the loop (start, load, attach, "
                  "warm-up, exit):")
            print(table(*fixed))
            print()
            summary_md += ["## Fixed cost of one run (start, load, attach, warm-up, exit)",
                           "", md_table(*fixed), ""]
        if args.only in (None, "event-gap"):
            tools = [t for t in GAP_TOOLS if t not in skipped]
            t0 = time.monotonic()
            unit, curve, gap_failed = event_gap(b, cfg, tools, failures)
            log("event-gap: took %.0f s" % (time.monotonic() - t0))
            gap_rows = []
            for t, pts in curve.items():
                gap_rows.append([t] + [fmt(p[3]) for p in pts])
            header = ["tool"] + [fmt_ns(p[1]) for p in next(iter(curve.values()), [])]
            cross = [[t, crossing(pts, 2.0), crossing(pts, 1.05)] for t, pts in curve.items()]
            for t in GAP_TOOLS[1:]:
                if t in skipped:
                    cross.append([t, "skipped: " + skipped[t], ""])
                elif t not in curve:
                    cross.append([t, "FAILED", ""])
                    gap_rows.append([t] + ["FAILED"] * (len(header) - 1))
            print("Event-gap slowdown (monitored / native), by native time per call, "
                  "median of %d runs:" % cfg["reps_gap"])
            print(table(header, gap_rows))
            print()
            print("Where each curve falls below 2x and below 1.05x (5%):")
            print(table(["tool", "2x below gap", "5% below gap"], cross))
            print()
            summary_md += ["## Event-gap slowdown (monitored / native time per call)", "",
                           "Columns: native time per call (the gap).", "",
                           md_table(header, gap_rows), "",
                           md_table(["tool", "below 2x from", "below 1.05x from"], cross), ""]
            if curve:
                pngs = [os.path.join(b.out, "event_gap.png")]
                if not args.quick:
                    pngs.append(os.path.join(ROOT, "docs", "perf", "event_gap.png"))
                try:
                    plot(b, curve, pngs)
                    log("plot: " + ", ".join(os.path.relpath(p, ROOT) for p in pngs))
                except PlotError as e:
                    failures.append(str(e))
        if args.only in (None, "watch"):
            t0 = time.monotonic()
            text, md = watch_bench.section(b, args.quick, skipped, failures)
            log("watch: took %.0f s" % (time.monotonic() - t0))
            print()
            print(text)
            summary_md += md
        if args.only in (None, "real"):
            text, md = real_bench.section(b, args.quick, skipped, failures)
            print()
            print(text)
            summary_md += md
        if args.only in (None, "overflow"):
            text, md = overflow_bench.section(b, args.quick, skipped, failures)
            print()
            print(text)
            summary_md += md
        if args.only in (None, "objmap"):
            # the memory predicates' object map in the probe: a lookup's
            # cost against the number of live blocks (bench/objmap_bench.c)
            r = subprocess.run([os.path.join(b.out, "objmap_bench")],
                               capture_output=True, text=True, timeout=300)
            if r.returncode:
                failures.append("objmap_bench: exit %d: %s" %
                                (r.returncode, r.stderr.strip()[-200:]))
            else:
                print()
                print(r.stdout)
                summary_md += ["## The object map's lookups (include/vigil_objmap.h)",
                               "", "```", r.stdout.strip(), "```", ""]
    except Failure as e:  # one that stops the benchmark (calibration, bpftool)
        failures.append(str(e))
        log("FAILED: %s" % e)
    finally:
        left = [l for pid, l in probes_on_loop(b.loop) if pid in b.spawned]
        b.cleanup()
    if left:
        failures.append("uprobes of ours still attached after the run: %s" % left)

    elapsed = time.monotonic() - t_start
    summary_md.append("Total benchmark time: %.0f s." % elapsed)
    with open(os.path.join(b.out, "summary.md"), "w") as f:
        f.write("\n".join(summary_md) + "\n")
    log("results in %s/ (*.csv, summary.md)" % os.path.relpath(b.out, ROOT))
    log("%s run took %.0f s" % (mode, elapsed))
    if failures:
        log("%d measurement(s) FAILED:" % len(failures))
        for f in failures:
            log("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

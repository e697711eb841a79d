#!/usr/bin/env python3
"""bench/fixed_cost.py - what a run costs whatever the program does.

  fixed     time from `vigil run` to the program's first instruction (start)
            and from its last to vigil's exit (exit), with 1, 10, 50 and 200
            entry probes on one library (build/bench/libmanyfn.so, bench/
            manyfn.c), beside Debian's bpftrace with the same uprobes
            (`bpftrace -c`) and the program alone; medians of --reps
  real      wall time of pigz -p 2 on a 30 MB file and `git log -p` on this
            repository, native and under specs/lib/zlib.vigil +
            specs/lib/mutex.vigil; and each run split into start, run and
            exit by build/bench/runtime.so (make bench-progs); with --floor
            also under empty programs at the sites vigil places
            (build/bench/site_floor): what the traps alone cost
  ckpt      a checkpoint round trip (`vigil checkpoint`: detach, CRIU dump,
            attach again) of a 10 MB process with 50 probes, as the process
            sees it: its longest pause

Each vigil is a column: --vigil NAME=PATH, repeatable (the default is this
build's). Rows are interleaved, so that the machine's load falls on every
column alike. Prints markdown tables; exit status 1 if a run failed.

    python3 bench/fixed_cost.py [--build build] [--vigil before=/path/vigil]
                                [--reps 5] [--only fixed|real|ckpt]
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
COUNTS = (1, 10, 50, 200)


class Failure(Exception):
    pass


def spec_for(n, path):
    with open(path, "w") as f:
        f.write('property calls "entry probes on libmanyfn"\n'
                "state s accepting {\n")
        for i in range(n):
            f.write("  before mf_%d() -> s\n" % i)
        f.write("}\n")


def bpftrace_for(n, lib):
    probes = ",\n".join("uprobe:%s:mf_%d" % (lib, i) for i in range(n))
    return probes + "\n{ @calls = count(); }\n"


def run_timed(cmd, env=None):
    """(start cost, exit cost, output) in seconds: from the spawn to the
    program's "start" and from its "end" to the command's exit"""
    t0 = time.monotonic_ns()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, env=env)
    t3 = time.monotonic_ns()
    out = r.stdout.decode(errors="replace")
    m = re.search(r"manyfn: start (\d+) end (\d+)", out)
    if r.returncode or not m:
        raise Failure("%s: exit %d: %s" % (" ".join(cmd[:3]), r.returncode, out[-500:]))
    return (int(m.group(1)) - t0) / 1e9, (t3 - int(m.group(2))) / 1e9, out


def vigil_env(tmp, name):
    """Each vigil measured its own DWARF cache (VIGIL_CACHE_DIR): a cache
    file names the vigil that wrote it, so builds that took turns in one
    cache would each find the other's and read the debug files again"""
    return dict(os.environ, VIGIL_CACHE_DIR=os.path.join(tmp, "cache-" + name))


def warm_cache(vigil, env, binary, specs):
    """the plan's cache filled, as on a machine where vigil has run before"""
    subprocess.run([vigil, "lint", "--binary", binary] + specs, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)


def table(first, cols, rows):
    """a markdown table: the head of its first column, those of the others
    (cols), then rows of (label, cells)"""
    print("| %s | %s |" % (first, " | ".join(cols)))
    print("|---" * (len(cols) + 1) + "|")
    for label, cells in rows:
        print("| %s | %s |" % (label, " | ".join(cells)))


def fixed(args, vigils, tmp):
    prog = os.path.join(args.build, "bench", "manyfn")
    lib = os.path.realpath(os.path.join(args.build, "bench", "libmanyfn.so"))
    bpftrace = shutil.which("bpftrace")
    cols = ["native"] + list(vigils) + (["bpftrace"] if bpftrace else [])
    res = {}
    for n in COUNTS:
        spec = os.path.join(tmp, "calls%d.vigil" % n)
        spec_for(n, spec)
        bt = bpftrace_for(n, lib)
        for c in vigils:
            warm_cache(vigils[c], vigil_env(tmp, c), prog, [spec])
        for rep in range(args.reps):
            order = cols if rep % 2 == 0 else cols[::-1]
            for c in order:
                if c == "native":
                    cmd = [prog]
                elif c == "bpftrace":
                    cmd = [bpftrace, "-e", bt, "-c", prog]
                else:
                    cmd = [vigils[c], "run", spec, "--", prog]
                s, e, out = run_timed(cmd, vigil_env(tmp, c) if c in vigils
                                      else None)
                if c not in ("native", "bpftrace") and \
                        not re.search(r"before:mf_0=1\b", out):
                    raise Failure("%s with %d probes: mf_0 not seen once: %s"
                                  % (c, n, out[-300:]))
                if c == "bpftrace" and "@calls: %d" % n not in out:
                    raise Failure("bpftrace with %d probes: %s" % (n, out[-300:]))
                res.setdefault((n, c), []).append((s, e))
    print("\n### Fixed cost: start (spawn to main) / exit (end of main to exit), "
          "ms, median of %d\n" % args.reps)
    table("probes", cols,
          (("%d" % n, ["%.0f / %.0f" % (1000 * statistics.median(x[0] for x in v),
                                        1000 * statistics.median(x[1] for x in v))
                       for v in (res[(n, c)] for c in cols)])
           for n in COUNTS))


def make_input(path, mb):
    """a compressible, deterministic file: the repository's sources again
    and again, each copy with a counter"""
    srcs = []
    for d in ("user", "bpf", "include", "docs"):
        for root, _, files in os.walk(os.path.join(REPO, d)):
            for f in sorted(files):
                with open(os.path.join(root, f), "rb") as fh:
                    srcs.append(fh.read())
    blob = b"".join(srcs)
    with open(path, "wb") as f:
        k = 0
        while f.tell() < mb << 20:
            f.write(b"copy %d\n" % k)
            f.write(blob)
            k += 1


def wall(cmd, cwd, shim, exe, tmp, env=None):
    """(wall, start, run, exit) in seconds: the whole command, and from the
    spawn to the program's load, its load to its exit, its exit to the
    command's, from build/bench/runtime.so's lines (CLOCK_MONOTONIC, as
    time.monotonic_ns)"""
    rt = os.path.join(tmp, "real.rt")
    if os.path.exists(rt):
        os.unlink(rt)
    env = dict(env or os.environ, LD_PRELOAD=shim, VG_BENCH_RUNTIME=rt,
               VG_BENCH_RUNTIME_EXE=exe)
    t0 = time.monotonic_ns()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    t3 = time.monotonic_ns()
    if r.returncode:
        raise Failure("%s: exit %d: %s" % (" ".join(cmd[:4]), r.returncode,
                                           r.stderr.decode(errors="replace")[-400:]))
    ns = dict(re.findall(r"^(start|end) pid=\d+ ns=(\d+)$", open(rt).read(), re.M))
    if len(ns) != 2:
        raise Failure("%s: the run-time shim wrote no start and end lines"
                      % " ".join(cmd[:4]))
    t1, t2 = int(ns["start"]), int(ns["end"])
    return (t3 - t0) / 1e9, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9


LINT_ENTRY = re.compile(r"^probe (before|after) (\S+): (/\S+)\+(0x[0-9a-f]+)(.*)$")
LINT_RET = re.compile(r"^probe after (\S+): return probe (with the entry probe|at the entry)")


def floor_sites(vigil, prog, specs):
    """site_floor's arguments for prog under specs: the sites `vigil lint
    --binary --no-fast` places uprobes on (entry probes of `before`
    events: -e; the argument stash at an `after` event's entry: -s; its
    return probe: -r); not the in-process tier's, which may take a
    function no uprobe may go on (memset on an AVX-512 machine)"""
    r = subprocess.run([vigil, "lint", "--no-fast", "--binary", shutil.which(prog)] + specs,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = r.stdout.decode(errors="replace")
    if r.returncode:
        raise Failure("vigil lint --binary %s: %s" % (prog, text[-400:]))
    out, placed, start = [], {}, {}
    for line in text.splitlines():
        m = LINT_ENTRY.match(line)
        if m:
            kind, name, path, off, rest = m.groups()
            off = int(off, 16)
            moved = re.search(r"moved \+(\d+)", rest)
            site = off + (int(moved.group(1)) if moved else 0)
            placed[name], start[name] = (path, site), (path, off)
            out += ["-e" if kind == "before" else "-s", "%s+%#x" % (path, site)]
            continue
        m = LINT_RET.match(line)
        if m:
            path, site = (placed if m.group(2).startswith("with") else start)[m.group(1)]
            out += ["-r", "%s+%#x" % (path, site)]
    if not out:
        raise Failure("vigil lint --binary %s placed no probe: %s" % (prog, text[-400:]))
    return out


def real(args, vigils, tmp):
    data = os.path.join(tmp, "input.txt")
    make_input(data, 30)
    shim = os.path.abspath(os.path.join(args.build, "bench", "runtime.so"))
    if not os.path.exists(shim):
        raise Failure("no %s (make bench-progs builds it)" % shim)
    specs = [os.path.join(REPO, "specs/lib/zlib.vigil"),
             os.path.join(REPO, "specs/lib/mutex.vigil")]
    progs = {
        "pigz -p 2 (30 MB)": (["pigz", "-p", "2", "-c", data], None),
        "git log -p": (["git", "--no-pager", "log", "-p"], REPO),
    }
    # the first vigil again with the exit that waits for the kernel to
    # release its probes (VIGIL_DETACH_SYNC, user/probe/late_release.h):
    # the exit figure's before and after, same run
    first = list(vigils)[0]
    sync = first + " (detach waited)"
    cols = ["native"] + (["floor"] if args.floor else []) + list(vigils) + [sync]
    res = {}
    for name, (cmd, cwd) in progs.items():
        if not shutil.which(cmd[0]):
            raise Failure("%s is not installed (scripts/setup.sh installs it)" % cmd[0])
        if args.floor:
            sites = floor_sites(list(vigils.values())[0], cmd[0], specs)
        for c in vigils:
            warm_cache(vigils[c], vigil_env(tmp, c), shutil.which(cmd[0]), specs)
        for rep in range(args.reps):
            order = cols if rep % 2 == 0 else cols[::-1]
            for c in order:
                v = first if c == sync else c
                full = cmd if c == "native" else \
                    [os.path.join(args.build, "bench", "site_floor")] + sites + \
                    ["--"] + cmd if c == "floor" else \
                    [os.path.abspath(vigils[v]), "run"] + specs + ["--"] + cmd
                env = vigil_env(tmp, v) if v in vigils else None
                if c == sync:
                    env = dict(env, VIGIL_DETACH_SYNC="1")
                res.setdefault((name, c), []).append(
                    wall(full, cwd, shim, os.path.basename(cmd[0]), tmp, env))
    print("\n### Real programs: wall time, s, median of %d (ratio to native)\n" % args.reps)
    rows = []
    for name in progs:
        nat = statistics.median(x[0] for x in res[(name, "native")])
        cells = ["%.2f" % nat]
        for c in cols[1:]:
            m = statistics.median(x[0] for x in res[(name, c)])
            cells.append("%.2f (%.2fx)" % (m, m / nat))
        rows.append((name, cells))
    table("program", cols, rows)
    print("\nWhere the time goes, ms, medians: start (spawn to the program's load) / "
          "run (load to exit) / exit (the program's exit to the command's)\n")
    table("program", cols,
          ((name, [" / ".join("%.0f" % (1000 * statistics.median(x[i] for x in v))
                              for i in (1, 2, 3))
                   for v in (res[(name, c)] for c in cols)])
           for name in progs))


def one_ckpt(vigil, prog, spec, ckdir, nckpt):
    """the target's longest pauses (s) with nckpt checkpoints asked for"""
    p = subprocess.Popen([vigil, "run", "--checkpoint-dir", ckdir, spec, "--",
                          prog, "--hold", "10", "50"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    out = b""
    pid = None
    os.set_blocking(p.stdout.fileno(), False)
    deadline = time.monotonic() + 60
    while pid is None and time.monotonic() < deadline:
        chunk = p.stdout.read() or b""
        out += chunk
        m = re.search(rb"manyfn: pid (\d+) ready", out)
        if m:
            pid = int(m.group(1))
        time.sleep(0.02)
    if pid is None:
        p.kill()
        raise Failure("checkpoint: the target did not start: %s" % out[-300:])
    time.sleep(0.5)
    done = re.compile(rb"vigil: checkpoint \S+ \(on demand")
    for k in range(nckpt):
        subprocess.run([vigil, "checkpoint", "-p", str(pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # the next one once this one is done (and the target runs again)
        deadline = time.monotonic() + 120
        while len(done.findall(out)) <= k and time.monotonic() < deadline:
            out += p.stdout.read() or b""
            time.sleep(0.02)
        time.sleep(0.5)
    os.kill(pid, signal.SIGTERM)
    os.set_blocking(p.stdout.fileno(), True)
    out += p.stdout.read()
    p.wait(timeout=60)
    text = out.decode(errors="replace")
    taken = len(re.findall(r"vigil: checkpoint \S+ \(on demand", text))
    m = re.search(r"manyfn: longest pauses ns((?: \d+)+)", text)
    if taken != nckpt or not m:
        raise Failure("checkpoint: %d of %d taken: %s" % (taken, nckpt, text[-500:]))
    return [int(x) / 1e9 for x in m.group(1).split()][:nckpt]


def ckpt(args, vigils, tmp):
    prog = os.path.join(args.build, "bench", "manyfn")
    spec = os.path.join(tmp, "calls50.vigil")
    spec_for(50, spec)
    res = {}
    for rep in range(max(1, args.reps // 2)):
        for c in (list(vigils) if rep % 2 == 0 else list(vigils)[::-1]):
            ckdir = tempfile.mkdtemp(dir=tmp)
            res.setdefault(c, []).extend(one_ckpt(vigils[c], prog, spec, ckdir, 3))
            shutil.rmtree(ckdir, ignore_errors=True)
    print("\n### Checkpoint round trip (detach, dump, attach again) of a 10 MB "
          "process with 50 probes: its pause, ms\n")
    table("vigil", ["median", "min", "max", "checkpoints"],
          ((c, ["%.0f" % (1000 * statistics.median(v)), "%.0f" % (1000 * min(v)),
                "%.0f" % (1000 * max(v)), "%d" % len(v)])
           for c, v in res.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--vigil", action="append", default=[],
                    help="NAME=PATH, a vigil to measure (default: this build's)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", choices=("fixed", "real", "ckpt"))
    ap.add_argument("--floor", action="store_true",
                    help="real: a column with empty programs at the sites "
                    "vigil places (build/bench/site_floor): the traps alone")
    args = ap.parse_args()
    vigils = {}
    for v in args.vigil or ["vigil=%s" % os.path.join(args.build, "vigil")]:
        name, _, path = v.partition("=")
        if not os.access(path, os.X_OK):
            sys.exit("fixed_cost: no vigil at %s" % path)
        vigils[name] = os.path.abspath(path)
    if os.geteuid() != 0:
        sys.exit("fixed_cost: needs root (BPF)")
    tmp = tempfile.mkdtemp(prefix="vigil-fixed.")
    rc = 0
    try:
        for part, fn in (("fixed", fixed), ("real", real), ("ckpt", ckpt)):
            if args.only and args.only != part:
                continue
            try:
                fn(args, vigils, tmp)
            except Failure as e:
                print("fixed_cost: %s: FAILED: %s" % (part, e))
                rc = 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()

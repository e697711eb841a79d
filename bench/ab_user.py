#!/usr/bin/env python3
"""bench/ab_user.py - interleaved A/B of vigil builds against the floor on
the bench loop, for comparing two builds on this noisy shared VM, where only
medians of interleaved runs mean anything (docs/PERFORMANCE.md).

    python3 bench/ab_user.py [--reps R] [--n N] [--tier user|kernel]
                             [--fn op|ss] [--stats] [--stacks] NAME=VIGIL ...

Each repetition runs the floor (build/bench/floor) and every VIGIL given,
in an order reversed on every other repetition, on
`build/bench/loop --phase FN:N:0`, and takes ns/call from the loop's own
phase timing, as bench/bench.py does. Prints, per row, the median ns/call,
its ratio to the floor's median, the median of the per-repetition ratios
to that repetition's floor, and the observer's CPU per call.

--stats also reads the BPF run time per program run (needs
`sysctl kernel.bpf_stats_enabled=1`, which itself adds ~20-40 ns a run):
the loop gets an idle second phase during which the run_time_ns / run_cnt
of the observer's busiest BPF program is read from /proc/PID/fdinfo.
Needs root and `make bench-progs`.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNC = {"op": "vg_bench_op", "ss": "vg_bench_op_ss"}


def command(args, vigil, jsonfile):
    loop = [os.path.join(ROOT, "build/bench/loop"), "--phase", "%s:%d:0" % (args.fn, args.n)]
    if args.stats:
        loop += ["--phase", "%s:1:600000000" % args.fn]  # ~0.7 s idle
    if vigil is None:
        return [os.path.join(ROOT, "build/bench/floor"), FUNC[args.fn], "--"] + loop
    return [vigil, "run", "--tier=" + args.tier, "--json", jsonfile] + \
        (["--stacks"] if args.stacks else []) + \
        [os.path.join(ROOT, "bench/loop.vigil"), "--"] + loop


def poll_stats(pid, stop, out):
    """The observer's busiest BPF program: (run_time_ns, run_cnt)."""
    d = "/proc/%d/fdinfo" % pid
    while not stop.is_set():
        try:
            names = os.listdir(d)
        except OSError:
            names = []
        for f in names:
            try:
                t = open(os.path.join(d, f)).read()
            except OSError:
                continue
            ns = re.search(r"run_time_ns:\s+(\d+)", t)
            cnt = re.search(r"run_cnt:\s+(\d+)", t)
            if ns and cnt and int(cnt.group(1)) >= out.get("best", (0, 1))[1]:
                out["best"] = (int(ns.group(1)), int(cnt.group(1)))
        time.sleep(0.2)


def run(args, vigil, jsonfile):
    p = subprocess.Popen(command(args, vigil, jsonfile), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    stop, out = threading.Event(), {}
    t = threading.Thread(target=poll_stats, args=(p.pid, stop, out))
    if args.stats:
        t.start()
    so, se = p.communicate()
    if args.stats:
        stop.set()
        t.join()
    m = re.search(r"^loop: phase=0 fn=\w+ n=\d+ work=0 ns=(\d+) parent_cpu_ns=(\d+)$",
                  so + se, re.M)
    if p.returncode or not m:
        raise RuntimeError("exit %d: %s" % (p.returncode, se[-400:]))
    if vigil and '"lost":0,' not in open(jsonfile).read():
        raise RuntimeError("vigil lost events")
    bpf = out["best"][0] / out["best"][1] if out.get("best") else None
    return int(m.group(1)) / args.n, int(m.group(2)) / args.n, bpf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--n", type=int, default=400000)
    ap.add_argument("--tier", default="user", choices=["user", "kernel"])
    ap.add_argument("--fn", default="op", choices=list(FUNC))
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--stacks", action="store_true",
                    help="vigil run --stacks: every event captures its user stack")
    ap.add_argument("builds", nargs="+", metavar="NAME=VIGIL")
    args = ap.parse_args()
    rows = [("floor", None)] + [tuple(b.split("=", 1)) for b in args.builds]
    jsonfile = "/tmp/vigil-ab-%d.json" % os.getpid()
    res = {name: [] for name, _ in rows}
    for rep in range(args.reps):
        for name, vigil in (rows if rep % 2 == 0 else rows[::-1]):
            try:
                res[name].append(run(args, vigil, jsonfile))
            except RuntimeError as e:
                print("%s: run %d failed: %s" % (name, rep + 1, e), file=sys.stderr)
                return 1
    if os.path.exists(jsonfile):
        os.unlink(jsonfile)
    floor = statistics.median(r[0] for r in res["floor"])
    print("%d repetitions, %s x %d, %s tier" % (args.reps, FUNC[args.fn], args.n, args.tier))
    for name, _ in rows:
        ns = [r[0] for r in res[name]]
        pair = [a[0] / b[0] for a, b in zip(res[name], res["floor"])]
        line = "%-10s %8.1f ns/call  x floor %.3f  per-rep x floor %.3f  observer CPU %.0f ns/call" % (
            name, statistics.median(ns), statistics.median(ns) / floor,
            statistics.median(pair), statistics.median(r[1] for r in res[name]))
        bpf = [r[2] for r in res[name] if r[2] is not None]
        if bpf:
            line += "  BPF %.1f ns/run" % statistics.median(bpf)
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

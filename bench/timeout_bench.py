#!/usr/bin/env python3
"""bench/timeout_bench.py - what `make bench` reports of timed properties.

 1. Accuracy: build/bench/tloop late N 25 makes N calls of handle(r), each
    25 ms long, under bench/timeout.vigil with -D limit=20ms: each call
    times out once, while the target sleeps (no other event). From the
    JSON verdicts, fired_ns - deadline_ns of each: median, 99th percentile
    and worst of N (1000). The limit is above the user tier's idle poll
    period (10 ms), the most the entry's record can wait in the ring: with
    a shorter one the timeout would fire when that record is read.
 2. Cost per event: build/bench/tloop fast N (handle(i & 7), returning at
    once: two events a call) under the timed property (a timeout armed at
    every entry, cancelled at every return) and under the same automaton
    without the timeout (bench/untimed.vigil), in both tiers (the kernel
    tier's timeouts: bpf/ktimer.bpf.h). ns per event = the loop's time /
    (2 N), median of R runs, minus nothing (the probes' own cost is in all
    rows).

Both measurements run in both tiers.

Run it under `flock /tmp/vigil-timing.lock` on a shared machine.
Prints a markdown table; writes build/bench/timeouts.md.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def accuracy(vigil, tloop, n, tier):
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "v.jsonl")
        r = run([vigil, "run", f"--tier={tier}", "-q", "--on-violation=continue", "--json", j, "-D", "limit=20ms",
                 "bench/timeout.vigil", "--", tloop, "late", str(n), "25"])
        late = []
        for line in open(j):
            o = json.loads(line)
            if o.get("type") == "verdict" and o.get("verdict") == "violation":
                t = o["event"]["timeout"]
                late.append(t["fired_ns"] - t["deadline_ns"])
    if len(late) != n:
        sys.exit(f"timeout_bench: {tier}: {len(late)} timeouts of {n} (vigil exit {r.returncode}): {r.stderr[-400:]}")
    late.sort()
    return statistics.median(late), late[-1], late[int(0.99 * (n - 1))]


def per_event(vigil, tloop, spec, tier, n, reps):
    ns = []
    for _ in range(reps):
        r = run([vigil, "run", f"--tier={tier}", "-q", spec, "--", tloop, "fast", str(n)])
        if r.returncode != 0:
            sys.exit(f"timeout_bench: {spec} {tier}: exit {r.returncode}: {r.stderr[-400:]}")
        line = [l for l in r.stdout.splitlines() if l.startswith("tloop:")][0]
        ns.append(int(line.split("ns=")[1]) / (2 * n))
    return statistics.median(ns)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    vigil, tloop = f"{a.build}/vigil", f"{a.build}/bench/tloop"
    n_acc = 200 if a.quick else 1000
    n_ev, reps = (100000, 3) if a.quick else (500000, 5)

    acc = [(tier,) + accuracy(vigil, tloop, n_acc, tier) for tier in ("kernel", "user")]
    rows = []
    for tier in ("kernel", "user"):
        rows.append((tier, "bench/untimed.vigil (no timeout)", per_event(vigil, tloop, "bench/untimed.vigil", tier, n_ev, reps)))
        rows.append((tier, "bench/timeout.vigil (within 1s)", per_event(vigil, tloop, "bench/timeout.vigil", tier, n_ev, reps)))
    out = []
    out.append(f"### Timeouts: accuracy (fired minus deadline, {n_acc} timeouts of 20 ms, target asleep)\n")
    out.append("| tier | median | 99th percentile | worst |")
    out.append("|---|---|---|---|")
    for tier, med, worst, p99 in acc:
        out.append(f"| {tier} | {med / 1000:.1f} us | {p99 / 1000:.1f} us | {worst / 1000:.1f} us |")
    out.append(f"\n### Timeouts: cost per event (tloop fast {n_ev}: handle(i & 7), 2 events a call, median of {reps})\n")
    out.append("| tier | property | ns/event |")
    out.append("|---|---|---|")
    for tier, spec, v in rows:
        out.append(f"| {tier} | {spec} | {v:.0f} |")
    out.append(f"\nkernel tier, timed / untimed: {rows[1][2] / rows[0][2]:.2f}x; "
               f"user tier: {rows[3][2] / rows[2][2]:.2f}x")
    text = "\n".join(out)
    print(text)
    os.makedirs(f"{a.build}/bench", exist_ok=True)
    with open(f"{a.build}/bench/timeouts.md", "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()

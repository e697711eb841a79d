#!/usr/bin/env python3
"""make soak: vigil under a sustained load, for a long time (issue #10).

build/bench/soak (bench/soak.c) calls soak_op(key) from 8 threads at
500k calls/s in total for 10 minutes, over 100k keys; vigil monitors it
with bench/soak.vigil (one slice per key: 100k live slices) at its default
ring-buffer size, in the user tier (every event crosses the ring buffer)
unless --tier kernel. Every 5 s it samples vigil's RSS and the target's
calls so far. The run passes when:
  - vigil's RSS, once every slice exists (after the warm-up: the first
    10% of the run, at least 30 s), stays within 10% of its value then;
  - no event is lost (the stats' lost, and per probe);
  - vigil's count of soak_op equals the calls the target says it made;
  - no violation, vigil and the target exit 0, nothing is left behind.
It prints a table and writes build/bench/soak.csv (the samples) and
build/bench/soak.md (the summary); docs/PERFORMANCE.md quotes them.

  python3 bench/soak.py [--build build] [--seconds 600] [--rate 500000]
                        [--threads 8] [--keys 100000] [--tier user|kernel]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SAMPLE_S = 5


def rss_kb(pid):
    """VmRSS of pid in kB, or None once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_s(pid):
    """User + system CPU seconds pid has used, or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def fail(msg):
    print("soak: FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--rate", type=int, default=500000)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--keys", type=int, default=100000)
    ap.add_argument("--tier", choices=["user", "kernel"], default="user")
    a = ap.parse_args()

    vigil = os.path.join(a.build, "vigil")
    target = os.path.join(a.build, "bench", "soak")
    for f in (vigil, target):
        if not os.access(f, os.X_OK):
            fail("%s is not built (make soak builds it)" % f)
    tmp = tempfile.mkdtemp(prefix="vigil-soak.")
    jsonfile = os.path.join(tmp, "soak.json")
    cmd = [vigil, "run", "--tier=" + a.tier, "--json", jsonfile,
           "--max-slices", str(max(2 * a.keys, 65536)), "bench/soak.vigil", "--",
           target, "--threads", str(a.threads), "--rate", str(a.rate),
           "--seconds", str(a.seconds), "--keys", str(a.keys),
           "--max-seconds", str(a.seconds + 120)]
    print("soak: " + " ".join(cmd), flush=True)
    out = open(os.path.join(tmp, "vigil.out"), "w+")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    samples = []		# (seconds, rss kB)
    cpu = (0, None)		# (seconds, vigil's CPU seconds by then)
    warm = max(30, a.seconds // 10)
    while p.poll() is None:
        time.sleep(SAMPLE_S)
        r, c = rss_kb(p.pid), cpu_s(p.pid)
        if r is not None and p.poll() is None:
            samples.append((time.monotonic() - t0, r))
            cpu = (time.monotonic() - t0, c)
            if len(samples) % 12 == 0:
                print("soak: %4.0f s  vigil RSS %d kB" % samples[-1], flush=True)
        if time.monotonic() - t0 > a.seconds + 180:
            p.kill()
            fail("vigil did not end %d s after the target should have" % 180)
    rc = p.wait()
    wall = time.monotonic() - t0
    out.seek(0)
    text = out.read()
    m = re.search(r"^soak: calls=(\d+) seconds=([\d.]+) rate=(\d+)", text, re.M)
    stats = None
    for line in open(jsonfile) if os.path.exists(jsonfile) else []:
        obj = json.loads(line) if line.strip() else {}
        if obj.get("type") == "stats":
            stats = obj

    problems = []
    if rc != 0:
        problems.append("vigil exited %d" % rc)
    if not m:
        problems.append("the target did not report its calls")
    if not stats:
        problems.append("no stats line in vigil's --json output")
    calls = int(m.group(1)) if m else None
    seen = None
    if stats:
        probe = [x for x in stats["probes"] if x["name"] == "soak_op"]
        seen = probe[0]["hits"] if probe else None
        lost = stats["lost"] + sum(x["lost"] for x in stats["probes"])
        if lost:
            problems.append("%d events lost" % lost)
        if stats["violations"]:
            problems.append("%d violations on a property that holds" % stats["violations"])
        if stats["slices_live"] < a.keys:
            problems.append("%d live slices, expected %d" % (stats["slices_live"], a.keys))
    if calls is not None and seen != calls:
        problems.append("vigil counted %s soak_op calls, the target made %d" % (seen, calls))
    after = [r for t, r in samples if t >= warm]
    if len(after) < 2:
        problems.append("too few RSS samples after the warm-up (%d)" % len(after))
    base = after[0] if after else 0
    peak = max(after) if after else 0
    growth = (peak - base) / base if base else 0.0
    if growth > 0.10:
        problems.append("vigil's RSS grew %.1f%% after the warm-up (%d -> %d kB)"
                        % (100 * growth, base, peak))
    left = subprocess.run(["pgrep", "-f", "^" + target], capture_output=True,
                          text=True).stdout.split()
    if left:
        problems.append("processes left behind: " + " ".join(left))

    os.makedirs(os.path.join(a.build, "bench"), exist_ok=True)
    with open(os.path.join(a.build, "bench", "soak.csv"), "w") as f:
        f.write("seconds,vigil_rss_kb\n")
        for t, r in samples:
            f.write("%.1f,%d\n" % (t, r))
    rows = [
        ("tier", a.tier),
        ("target", "%d threads, %d keys, asked %d calls/s for %d s"
         % (a.threads, a.keys, a.rate, a.seconds)),
        ("calls made (target)", str(calls)),
        ("calls seen (vigil)", str(seen)),
        ("achieved rate", "%s calls/s" % (m.group(3) if m else "?")),
        ("lost", str(stats["lost"]) if stats else "?"),
        ("live slices at the end", str(stats["slices_live"]) if stats else "?"),
        ("vigil RSS after warm-up (%d s)" % warm, "%d kB" % base),
        ("vigil RSS peak after warm-up", "%d kB (%+.1f%%)" % (peak, 100 * growth)),
        ("vigil RSS first / last sample", "%s / %s kB" % (
            samples[0][1] if samples else "?", samples[-1][1] if samples else "?")),
        ("vigil CPU", "%.0f%% of one CPU (%.0f s in %.0f s)" % (
            100 * cpu[1] / cpu[0], cpu[1], cpu[0]) if cpu[1] else "?"),
        ("wall time", "%.0f s" % wall),
        ("verdict", "PASS" if not problems else "FAIL: " + "; ".join(problems)),
    ]
    md = ["| | |", "|---|---|"] + ["| %s | %s |" % r for r in rows]
    with open(os.path.join(a.build, "bench", "soak.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    w = max(len(r[0]) for r in rows)
    for k, v in rows:
        print("%-*s  %s" % (w, k, v))
    if problems:
        print(text[-3000:], file=sys.stderr)
        fail("; ".join(problems))


if __name__ == "__main__":
    main()

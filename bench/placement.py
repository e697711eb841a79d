#!/usr/bin/env python3
"""bench/placement.py - what probe placement saves on libc's free().

free() starts with `test %rdi,%rdi`, which the kernel's uprobe code cannot
emulate: a probe there is single-stepped (~11 us on these machines). vigil
puts the entry probe on the next instruction it can emulate when the ones
before cannot change what the probe reads (user/probe/placement.c). This
runs build/bench/frees (free(NULL) N times) under vigil's kernel tier with
a one-parameter property on free, placed (the default) and at the entry
(VIGIL_NO_PLACEMENT=1), interleaved, median of R runs each, beside the
native loop. Writes build/bench/placement.csv and prints a table.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

SPEC = """property frees "free is called"
slice on ptr p
int n = 0
state s accepting {
  before free(p) { n = n + 1; } -> s
}
"""


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    m = re.search(r"frees: n=(\d+) ns=(\d+)", r.stdout + r.stderr)
    if r.returncode != 0 or not m:
        sys.exit("placement bench: %s failed (%d): %s" % (cmd[0], r.returncode, r.stderr[-500:]))
    return int(m.group(2)) / int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    vigil = os.path.join(a.build, "vigil")
    frees = os.path.join(a.build, "bench", "frees")
    reps, n = (3, 20000) if a.quick else (7, 100000)
    with tempfile.NamedTemporaryFile("w", suffix=".vigil", delete=False) as f:
        f.write(SPEC)
        spec = f.name
    lint = subprocess.run([vigil, "lint", spec, "--binary", frees],
                          capture_output=True, text=True)
    where = [l for l in lint.stdout.splitlines() if l.startswith("probe before free")]
    rows = {"native": [], "vigil, entry probe": [], "vigil, placed probe": []}
    entry_env = dict(os.environ, VIGIL_NO_PLACEMENT="1")
    for _ in range(reps):
        rows["native"].append(run([frees, str(n)]))
        rows["vigil, entry probe"].append(
            run([vigil, "run", "--tier=kernel", spec, "--", frees, str(n)], entry_env))
        rows["vigil, placed probe"].append(
            run([vigil, "run", "--tier=kernel", spec, "--", frees, str(n)]))
    os.unlink(spec)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print("Probe placement on libc free(), free(NULL) x %d, median of %d:" % (n, reps))
    if where:
        print(where[0])
    print("%-22s %12s %10s" % ("row", "ns/call", "x native"))
    with open(os.path.join(a.build, "bench", "placement.csv"), "w") as out:
        out.write("row,ns_per_call,runs\n")
        for k, v in med.items():
            print("%-22s %12.1f %10.0f" % (k, v, v / med["native"]))
            out.write("%s,%.1f,%s\n" % (k, v, " ".join("%.1f" % x for x in rows[k])))
    gain = med["vigil, entry probe"] / med["vigil, placed probe"]
    print("placement gain: %.1fx less per call (%.0f ns saved)" %
          (gain, med["vigil, entry probe"] - med["vigil, placed probe"]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The per-event cost of --view (part of `make bench`).

Runs build/bench/loop (vg_bench_op, an entry the kernel emulates) under
bench/loop.vigil in each tier three ways, interleaved A B C A B C:
  no view           vigil run
  view, no page     vigil run --view, nobody connected
  view, a page      vigil run --view, a client reading /events the whole
                    run (the stream a browser reads; frames every 150 ms)
and prints the loop's nanoseconds per event (median of the repetitions)
and each row's ratio to the no-view row of the same tier. With --view,
vigil keeps serving the final picture after the loop exits: the script
sends it SIGINT once it says so.

usage: view_bench.py --build DIR [--quick]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_run(vigil, loop, tier, view, page, n):
    cmd = [vigil, "run", "--tier=" + tier, "-q"]
    if view:
        cmd.append("--view")
    cmd += [os.path.join(ROOT, "bench/loop.vigil"), "--", loop, "--phase", "op:%d:0" % n]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         cwd=ROOT, start_new_session=True)
    out, reader, frames = [], None, [0]

    def read_stream(url):
        base, token = url.split("/?t=")
        try:
            with urllib.request.urlopen("%s/events?t=%s" % (base, token), timeout=120) as r:
                for line in r:
                    if line.startswith(b"data: "):
                        frames[0] += 1
        except OSError:
            pass  # vigil ended

    for line in p.stdout:
        out.append(line)
        m = re.match(r"^vigil: live view at (\S+)$", line)
        if m and page:
            reader = threading.Thread(target=read_stream, args=(m.group(1),))
            reader.start()
        if "keeps the final picture" in line:
            p.send_signal(signal.SIGINT)
    p.wait()
    if reader:
        reader.join(10)
    text = "".join(out)
    m = re.search(r"^loop: phase=0 fn=op n=%d work=0 ns=(\d+)" % n, text, re.M)
    if not m:
        raise SystemExit("view_bench: no loop figure from %s:\n%s" % (" ".join(cmd), text[-2000:]))
    if page and frames[0] < 2:
        raise SystemExit("view_bench: the page got %d frames" % frames[0])
    return int(m.group(1)) / n, frames[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    vigil = os.path.join(ROOT, a.build, "vigil")
    loop = os.path.join(ROOT, a.build, "bench", "loop")
    reps, n = (3, 300000) if a.quick else (7, 2000000)
    rows = [("no view", False, False), ("view, no page", True, False), ("view, a page", True, True)]
    print("view: per-event cost of --view, %d x %d events of vg_bench_op, interleaved" % (reps, n))
    print("| tier | row | ns/event (median) | min | max | x no view | frames/run |")
    print("|---|---|---|---|---|---|---|")
    for tier in ("kernel", "user"):
        res = {r[0]: [] for r in rows}
        frames = {r[0]: [] for r in rows}
        for _ in range(reps):
            for name, view, page in rows:
                ns, f = one_run(vigil, loop, tier, view, page, n)
                res[name].append(ns)
                frames[name].append(f)
        base = statistics.median(res["no view"])
        for name, _, _ in rows:
            xs = res[name]
            print("| %s | %s | %.0f | %.0f | %.0f | %.3f | %s |" % (
                tier, name, statistics.median(xs), min(xs), max(xs),
                statistics.median(xs) / base,
                "%.0f" % statistics.median(frames[name]) if name == "view, a page" else "-"))


if __name__ == "__main__":
    main()

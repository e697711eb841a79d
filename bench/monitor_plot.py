#!/usr/bin/env python3
"""bench/monitor_plot.py - the monitor alone against the number of live
slices (issue #8, point 5), from the sweep rows of build/bench/monitor.csv
that build/bench_monitor wrote just before (`make bench` runs both).

The sweep is the queue property (one parameter, a guard and an update) with
N live slices, N = 1, 10, ... 10M, events picking a live slice uniformly at
random; per N, event (one per call) and batch (256 per call) events/s,
the store's bytes per live slice and the process's peak RSS.

Writes build/bench/monitor_slices.csv, prints the table (and appends it to
build/bench/summary.md), and plots build/bench/monitor_slices.png, and on a
full run docs/perf/monitor_slices.png: events/s on the left axis, bytes
per slice on the right, live slices on a log axis. Exit status 1 when the
sweep rows are missing or gnuplot fails.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sweep_rows(path):
    """{live slices: {"event": row, "batch": row}} of the sweep scenarios."""
    pts = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["scenario"].startswith("sweep-"):
                pts.setdefault(int(r["live_slices"]), {})[r["api"]] = r
    return {n: v for n, v in pts.items() if "event" in v and "batch" in v}


def slices_label(n):
    if n == 1 << 20:
        return "1,048,576"
    return "{:,}".format(n)


def table(pts):
    header = ["live slices", "event Mev/s", "batch Mev/s", "batch ns/event",
              "bytes per slice", "peak RSS"]
    rows = []
    for n in sorted(pts):
        e, b = pts[n]["event"], pts[n]["batch"]
        rss = float(b["peak_rss_mb"])
        rows.append([slices_label(n), "%.2f" % float(e["median_mev_s"]),
                     "%.2f" % float(b["median_mev_s"]), "%.1f" % float(b["ns_per_event"]),
                     "%.1f" % float(b["bytes_per_slice"]),
                     ("%.0f MB" % rss) if rss >= 100 else ("%.1f MB" % rss)])
    return header, rows


def text_table(header, rows):
    w = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w[i]) if i == 0 else str(c).rjust(w[i])
                     for i, c in enumerate(header)),
           "  ".join("-" * x for x in w)]
    for r in rows:
        out.append("  ".join(str(c).ljust(w[i]) if i == 0 else str(c).rjust(w[i])
                             for i, c in enumerate(r)))
    return "\n".join(out)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def plot(pts, dat, pngs):
    with open(dat, "w") as f:
        f.write("# live_slices event_mev_s batch_mev_s bytes_per_slice\n")
        for n in sorted(pts):
            e, b = pts[n]["event"], pts[n]["batch"]
            f.write("%d %s %s %s\n" % (n, e["median_mev_s"], b["median_mev_s"],
                                       b["bytes_per_slice"]))
    term = "pngcairo size 960,600 font ',11'"
    probe = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"],
                           capture_output=True, text=True)
    if probe.returncode != 0 or probe.stderr.strip():
        term = "png size 960,600"
    # headroom above the curves for the key, top right
    ymax = 1.4 * max(float(pts[n][api]["median_mev_s"]) for n in pts for api in pts[n])
    y2max = 1.4 * max(float(pts[n]["batch"]["bytes_per_slice"]) for n in pts)
    for png in pngs:
        os.makedirs(os.path.dirname(png), exist_ok=True)
        script = "\n".join([
            "set terminal " + term,
            "set output '%s'" % png,
            "set title 'The monitor alone: one-parameter property, uniform events "
            "(build/bench\\_monitor, one core)'",
            "set xlabel 'live slices'",
            "set ylabel 'million events per second'",
            "set y2label 'bytes per live slice'",
            "set logscale x", "set format x '10^{%T}'",
            "set xrange [0.5:2e7]", "set yrange [0:%g]" % ymax,
            "set y2range [0:%g]" % y2max,
            "set ytics nomirror", "set y2tics",
            "set grid xtics ytics",
            "set key top right",
            "plot '%s' using 1:3 with linespoints lw 2.5 pt 7 lc rgb '#4e79a7' "
            "title 'batch (256 a call, prefetched): events/s', \\" % dat,
            "  '%s' using 1:2 with linespoints lw 2.5 pt 5 lc rgb '#f28e2b' "
            "title 'one event a call: events/s', \\" % dat,
            "  '%s' using 1:4 axes x1y2 with linespoints lw 1.5 dt 2 pt 6 "
            "lc rgb '#808080' title 'bytes per slice (right axis)'" % dat,
            ""])
        o = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True,
                           timeout=60)
        if o.returncode != 0 or not os.path.exists(png):
            sys.exit("monitor_plot: gnuplot failed: %s" % o.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true", help="no docs/perf/ plot")
    a = ap.parse_args()
    out = os.path.join(a.build, "bench")
    src = os.path.join(out, "monitor.csv")
    try:
        pts = sweep_rows(src)
    except (OSError, KeyError, ValueError) as e:
        sys.exit("monitor_plot: cannot read the sweep from %s: %s" % (src, e))
    if not pts:
        sys.exit("monitor_plot: no sweep rows in %s (did build/bench_monitor run?)" % src)
    header, rows = table(pts)
    with open(os.path.join(out, "monitor_slices.csv"), "w") as f:
        f.write("live_slices,event_mev_s,batch_mev_s,batch_ns_per_event,"
                "bytes_per_slice,peak_rss_mb\n")
        for n in sorted(pts):
            e, b = pts[n]["event"], pts[n]["batch"]
            f.write("%d,%s,%s,%s,%s,%s\n" % (n, e["median_mev_s"], b["median_mev_s"],
                                            b["ns_per_event"], b["bytes_per_slice"],
                                            b["peak_rss_mb"]))
    title = ("The monitor alone against live slices (one parameter, uniform; "
             "build/bench_monitor on one core, median of 5 runs)")
    print(title + ":")
    print(text_table(header, rows))
    summary = os.path.join(out, "summary.md")
    if os.path.exists(summary):
        with open(summary, "a") as f:
            f.write("\n## The monitor alone against live slices\n\n%s.\n\n%s\n"
                    % (title, md_table(header, rows)))
    if not shutil.which("gnuplot"):
        sys.exit("monitor_plot: gnuplot not found (scripts/setup.sh installs gnuplot-nox)")
    pngs = [os.path.join(out, "monitor_slices.png")]
    if not a.quick:
        pngs.append(os.path.join(ROOT, "docs", "perf", "monitor_slices.png"))
    plot(pts, os.path.join(out, "monitor_slices.dat"), pngs)
    print("monitor_plot: " + ", ".join(os.path.relpath(p, ROOT) if p.startswith(ROOT)
                                       else p for p in pngs))


if __name__ == "__main__":
    main()

"""bench/gap_plot.py - the event-gap curve's summary and plot, for
bench/bench.py: where a curve crosses a slowdown line, and the PNG
(gnuplot) of every tool's curve.

curve: {tool: [(gap_ns, native_ns_per_call, monitored_ns_per_call,
slowdown), ...]} in ascending gap order, as bench.event_gap returns it.
"""
import math
import os
import shutil
import subprocess

# bench.py runs as __main__: this imports a second, inert copy of it for its
# formatting helpers only.
import bench as B


class PlotError(Exception):
    """gnuplot missing or failing: bench.py counts it as a failed measurement."""


def crossing(points, thr):
    """Smallest native time per call beyond which every measured slowdown is
    below thr, interpolated in log-log between the two points around it."""
    if not points:
        return None
    above = [i for i, p in enumerate(points) if p[3] >= thr]
    if not above:
        return "< " + B.fmt_ns(points[0][1]) + " (below at every gap)"
    j = above[-1]
    if j == len(points) - 1:
        return "> " + B.fmt_ns(points[-1][1]) + " (not reached)"
    (x0, s0), (x1, s1) = (points[j][1], points[j][3]), (points[j + 1][1], points[j + 1][3])
    lx0, lx1, ls0, ls1 = math.log(x0), math.log(x1), math.log(s0), math.log(s1)
    lx = lx0 + (math.log(thr) - ls0) * (lx1 - lx0) / (ls1 - ls0) if ls1 != ls0 else lx0
    return B.fmt_ns(math.exp(lx))


def plot(b, curve, png_paths):
    if not shutil.which("gnuplot"):
        raise PlotError("gnuplot not found")
    names = {"floor": "empty BPF uprobe (floor)",
             "floor+rb-wake": "floor + 104 B ring-buffer record, reader woken",
             "floor+rb-poll": "floor + 104 B ring-buffer record, reader polls 10 ms",
             "vigil-user": "vigil user tier",
             "vigil-kernel": "vigil kernel tier", "gdb": "gdb Python breakpoint"}
    # reference rows thin, the measured tools thick
    styles = {"floor": "lw 1.5 dt 1 pt 6 lc rgb '#808080'",
              "floor+rb-wake": "lw 1.5 dt 2 pt 4 lc rgb '#b07aa1'",
              "floor+rb-poll": "lw 1.5 dt 4 pt 12 lc rgb '#59a14f'",
              "vigil-user": "lw 2.5 pt 7 lc rgb '#f28e2b'",
              "vigil-kernel": "lw 2.5 pt 5 lc rgb '#4e79a7'",
              "gdb": "lw 2.5 pt 9 lc rgb '#e15759'"}
    plots = []
    for t, pts in curve.items():
        dat = os.path.join(b.out, "event_gap_%s.dat" % t)
        with open(dat, "w") as f:
            f.write("# native_us_per_call slowdown\n")
            for g, nat, mon, s in pts:
                f.write("%.6f %.6f\n" % (nat / 1e3, s))
        plots.append("'%s' using 1:2 with linespoints %s title '%s'"
                     % (dat, styles[t], names[t]))
    plots.append("1.05 with lines dt 2 lc rgb 'gray40' title '1.05x (5%)'")
    plots.append("2 with lines dt 3 lc rgb 'gray20' title '2x'")
    term = "pngcairo size 960,600 font ',11'"
    probe = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"],
                           capture_output=True, text=True)
    if probe.returncode != 0 or probe.stderr.strip():
        term = "png size 960,600"
    xs = [p[1] / 1e3 for pts in curve.values() for p in pts]
    xrange = "set xrange [%g:%g]" % (min(xs) / 1.5, max(xs) * 1.5)
    for png in png_paths:
        os.makedirs(os.path.dirname(png), exist_ok=True)
        script = "\n".join([
            "set terminal " + term,
            "set output '%s'" % png,
            "set title 'Slowdown of a loop calling one monitored function (vg\\_bench\\_op)'",
            "set xlabel 'time between monitored calls, native (microseconds)'",
            "set ylabel 'slowdown: monitored / native time'",
            "set logscale xy", xrange, "set yrange [0.8:*]",
            "set grid xtics ytics mxtics",
            "set key top right",
            "set format x '%g'", "set format y '%g'",
            "plot " + ", \\\n  ".join(plots),
            ""])
        o = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True,
                           timeout=60)
        if o.returncode != 0 or not os.path.exists(png):
            raise PlotError("gnuplot failed: %s" % o.stderr)

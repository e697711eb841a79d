#!/usr/bin/env python3
"""vigil watch over many processes of one binary (part of `make bench`).

Starts N instances of build/targets/instance (a handle opened, used and
closed every --period microseconds: three probed calls), then a monitor
over all of them, and measures over --seconds, once the monitor has every
process: the monitor's CPU (user + system time over wall time, from
/proc/PID/stat), its memory (VmRSS and VmHWM), and the instances' work
(handles per second, all together) against the same instances with no
monitor, in the same run. Rows:
  native        no monitor
  vigil watch   vigil watch tests/specs/close_once.vigil --exe instance
  bpftrace      the peer: bpftrace counting the same three uprobes for
                every process (uprobe:FILE:func { @[pid] = count(); })
each with N processes and with 1 (the memory per process is the
difference over N - 1).

usage: procs_bench.py --build DIR [--procs 50] [--seconds 5] [--period 1000] [--quick]
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HZ = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def mem_kb(pid):
    rss = hwm = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def start_instances(exe, n, period, stop, go):
    return [subprocess.Popen([exe, "--period", str(period), "--until", stop,
                              "--count-from", go],
                             stdout=subprocess.PIPE, text=True) for _ in range(n)]


def handles(procs):
    """handles per second in the window, all instances together"""
    total = 0.0
    for p in procs:
        out, _ = p.communicate(timeout=120)
        m = re.search(r"(\d+) handles in ([\d.]+) s", out)
        total += int(m.group(1)) / float(m.group(2)) if m and float(m.group(2)) > 0 else 0
    return total


def wait_line(path, pattern, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            with open(path) as f:
                if re.search(pattern, f.read()):
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def one(kind, build, n, period, seconds):
    """One row: returns (handles/s, monitor cpu %, rss KB, hwm KB, note)."""
    exe = os.path.join(ROOT, build, "targets/instance")
    tmp = tempfile.mkdtemp(prefix="vigil-procs.")
    stop = os.path.join(tmp, "stop")
    go = os.path.join(tmp, "go")
    log = os.path.join(tmp, "log")
    mon = None
    procs = start_instances(exe, n, period, stop, go)
    time.sleep(0.3)
    try:
        if kind == "vigil":
            mon = subprocess.Popen([os.path.join(ROOT, build, "vigil"), "watch",
                                    "--on-violation", "continue",
                                    os.path.join(ROOT, "tests/specs/close_once.vigil"),
                                    "--exe", exe], stdout=subprocess.DEVNULL,
                                   stderr=open(log, "w"), start_new_session=True)
            if not wait_line(log, r"%d processes running it" % n):
                raise RuntimeError("vigil watch did not attach: " + open(log).read()[-2000:])
        elif kind == "bpftrace":
            prog = "".join("uprobe:%s:%s { @[pid] = count(); } " % (exe, f)
                           for f in ("inst_open", "inst_use", "inst_close"))
            mon = subprocess.Popen(["bpftrace", "-e", prog], stdout=open(log, "w"),
                                   stderr=subprocess.STDOUT, start_new_session=True)
            if not wait_line(log, r"Attaching \d+ probe"):
                raise RuntimeError("bpftrace did not attach: " + open(log).read()[-2000:])
            time.sleep(0.5)
        # the window
        open(go, "w").close()
        t0, c0 = time.time(), cpu_ticks(mon.pid) if mon else 0
        start_done = sum(1 for _ in procs)
        time.sleep(seconds)
        t1, c1 = time.time(), cpu_ticks(mon.pid) if mon else 0
        rss, hwm = mem_kb(mon.pid) if mon else (0, 0)
        open(stop, "w").close()
        done = handles(procs)
        cpu = 100.0 * (c1 - c0) / HZ / (t1 - t0) if mon else 0.0
        note = ""
        if mon:
            mon.send_signal(signal.SIGINT)
            mon.wait(timeout=120)
            text = open(log).read()
            m = re.search(r"events=(\d+) records=\d+ lost=(\d+)", text)
            if m:
                note = "events=%s lost=%s" % m.groups()
        return done, cpu, rss, hwm, note, start_done
    finally:
        open(stop, "w").close()
        for p in procs:
            if p.poll() is None:
                p.kill()
        if mon and mon.poll() is None:
            mon.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--procs", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--period", type=int, default=1000)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.seconds = 2
    print("vigil watch over many processes of one binary: %d instances, a handle each "
          "every %d us (3 probed calls), %.0f s window" % (a.procs, a.period, a.seconds))
    print("%-12s %5s %12s %8s %10s %10s  %s" % ("monitor", "procs", "handles/s", "ratio",
                                                 "cpu %", "RSS MB", "HWM MB / note"))
    have_bt = shutil.which("bpftrace") is not None
    rows = {}
    for n in (1, a.procs):
        for kind in ("native", "vigil") + (("bpftrace",) if have_bt else ()):
            done, cpu, rss, hwm, note, _ = one(kind, a.build, n, a.period, a.seconds)
            rows[(kind, n)] = (done, rss)
            base = rows.get(("native", n), (done, 0))[0] or 1
            print("%-12s %5d %12.0f %8.3f %10.1f %10.1f  %.1f %s" % (
                kind, n, done, done / base, cpu, rss / 1024.0, hwm / 1024.0, note))
    for kind in ("vigil",) + (("bpftrace",) if have_bt else ()):
        r1, rn = rows[(kind, 1)][1], rows[(kind, a.procs)][1]
        print("%s: %.0f KB of RSS per monitored process ((RSS at %d - RSS at 1) / %d)" % (
            kind, (rn - r1) / max(1, a.procs - 1), a.procs, a.procs - 1))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench/checkpoint.py - checkpoint and restore time against process size.

For a single-threaded target with 1, 10, 100 and 500 MB of touched memory
(build/bench/memhog; QUICK=1: 1 and 10 MB), median of 3:
  CRIU full         criu dump --leave-running into /dev/shm (vigil's dump)
  CRIU incremental  criu dump --track-mem --prev-images-dir after a small
                    change; needs soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY),
                    reported as n/a where the kernel lacks it
  CRIU restore      criu restore -d --leave-stopped of the full image
  fork snapshot     fork() injected by vigil's code (build/bench/forksnap);
                    its restore is a kill and a SIGCONT
beside the i-RV paper's CRIU figures (0.02 s for 1 MB, 0.30 s for 1 GB,
images in RAM). Writes build/bench/checkpoint.csv and prints a table.
"""
import argparse
import ctypes
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PAPER = {1: "20 (1 MB)", 1024: "300 (1 GB)"}


def criu():
    for c in (os.environ.get("VIGIL_CRIU"), "/usr/local/sbin/criu", shutil.which("criu")):
        if c and os.access(c, os.X_OK):
            return c
    sys.exit("checkpoint bench: no criu (run scripts/setup.sh)")


def start(memhog, mb, out):
    # output to a file opened for append: CRIU dumps and restores that
    # (a pipe to us would be an external resource it refuses)
    with open(out, "ab") as f:
        p = subprocess.Popen([memhog, str(mb)], stdout=f, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    for _ in range(3000):
        with open(out, "rb") as f:
            if b"ready" in f.read():
                return p
        time.sleep(0.01)
    raise RuntimeError("memhog %d MB did not start" % mb)


def timed(cmd):
    t = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.monotonic() - t
    if r.returncode:
        raise RuntimeError("%s: exit %d: %s" % (cmd[0:2], r.returncode,
                                                r.stderr.decode()[-300:]))
    return dt


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def wait_gone(pid):
    for _ in range(500):
        reap_orphans()
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)


def become_subreaper():
    """Orphans (a killed snapshot, whose parent was killed too) come to us
    to be reaped: a zombie keeps its session id, the old pid CRIU must
    restore under, and this machine's init does not reap."""
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_orphans():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def soft_dirty(c):
    r = subprocess.run([c, "check", "--feature", "mem_dirty_track"],
                       capture_output=True)
    return r.returncode == 0


def one_size(c, build, mb, reps, shm, incremental):
    memhog = os.path.join(build, "bench", "memhog")
    forksnap = os.path.join(build, "bench", "forksnap")
    full, incr, rest, fork = [], [], [], []
    for _ in range(reps):
        d = tempfile.mkdtemp(dir=shm, prefix="vigil-bench-ck-")
        p = start(memhog, mb, os.path.join(d, "out"))
        img = os.path.join(d, "full")
        os.mkdir(img)
        try:
            dump = [c, "dump", "-t", str(p.pid), "-D", img, "--leave-running"]
            full.append(timed(dump + (["--track-mem"] if incremental else [])))
            if incremental:
                time.sleep(0.05)  # a few pages change
                inc = os.path.join(d, "inc")
                os.mkdir(inc)
                incr.append(timed([c, "dump", "-t", str(p.pid), "-D", inc,
                                   "--leave-running", "--track-mem",
                                   "--prev-images-dir", "../full"]))
            out = subprocess.run([forksnap, str(p.pid)], capture_output=True, text=True)
            if out.returncode:
                raise RuntimeError("forksnap: " + out.stderr.strip())
            child, secs = out.stdout.split()
            fork.append(float(secs))
            kill(int(child))
            kill(p.pid)
            p.wait()
            wait_gone(p.pid)
            time.sleep(0.05)
            reap_orphans()
            rest.append(timed([c, "restore", "-D", img, "-d", "--leave-stopped",
                               "--pidfile", os.path.join(d, "pid")]))
            kill(p.pid)
            wait_gone(p.pid)
            reap_orphans()
        finally:
            kill(p.pid)
            shutil.rmtree(d, ignore_errors=True)
    med = lambda v: statistics.median(v) if v else None
    return med(full), med(incr), med(rest), med(fork)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    c = criu()
    become_subreaper()
    sizes = [1, 10] if a.quick else [1, 10, 100, 500]
    reps = 1 if a.quick else 3
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    incremental = soft_dirty(c)
    rows = []
    for mb in sizes:
        full, incr, rest, fork = one_size(c, a.build, mb, reps, shm, incremental)
        rows.append((mb, full, incr, rest, fork))
    fmt = lambda v: "%.1f" % (v * 1000) if v is not None else "n/a"
    why = "" if incremental else " (n/a: this kernel has no CONFIG_MEM_SOFT_DIRTY)"
    print("\n## Checkpoints: milliseconds against process size, median of %d, images in %s" % (reps, shm))
    print("| MB | CRIU full dump | CRIU incremental%s | CRIU restore | fork snapshot | i-RV paper, CRIU dump |" % why)
    print("|---:|---:|---:|---:|---:|---|")
    for mb, full, incr, rest, fork in rows:
        print("| %d | %s | %s | %s | %s | %s |" % (mb, fmt(full), fmt(incr), fmt(rest),
                                              fmt(fork), PAPER.get(mb, "")))
    print("| 1024 | | | | | %s |" % PAPER[1024])
    os.makedirs(os.path.join(a.build, "bench"), exist_ok=True)
    with open(os.path.join(a.build, "bench", "checkpoint.csv"), "w") as f:
        f.write("mb,criu_full_ms,criu_incremental_ms,criu_restore_ms,fork_snapshot_ms\n")
        for mb, full, incr, rest, fork in rows:
            f.write("%d,%s,%s,%s,%s\n" % (mb, fmt(full), fmt(incr), fmt(rest), fmt(fork)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("checkpoint bench: FAILED: %s" % e, file=sys.stderr)
        sys.exit(1)

#!/usr/bin/env python3
"""One `vigil run` of tests/e2e/fast_kill.sh, SIGKILLed, as a subreaper:
the target (vigil's child) is ours once vigil is gone, and its end is
told by its exit status, not guessed from its output.

    fast_kill_run.py OUT DELAY|@N VIGIL ARGS...

DELAY: seconds before the SIGKILL of vigil; @N: vigil kills itself at its
Nth hazard point (VG_DBG_DIE_AT). Prints one line per process that ended
under us: "end NAME PID exit N" or "end NAME PID signal N", and "stopped PID" for a
process that stayed in a group stop (T) for 2 s (then killed); vigil's own
line is "vigil exit N" or "vigil signal N". Everything ends within 30 s.
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

out, when, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
env = dict(os.environ)
if when.startswith("@"):
    env["VG_DBG_DIE_AT"] = when[1:]
with open(out, "w") as f:
    v = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=env)
if not when.startswith("@"):
    time.sleep(float(when))
    os.kill(v.pid, signal.SIGKILL)	# not v.kill(): it would reap vigil


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as s:
            return s.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def kids():
    me = os.getpid()
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as s:
                    ppid = int(s.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == me:
                found.append(int(d))
    return found


stopped_since = {}
deadline = time.time() + 30
while time.time() < deadline:
    try:
        si = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        break
    if si:
        try:	# a zombie keeps its name
            with open("/proc/%d/comm" % si.si_pid) as c:
                comm = c.read().strip()
        except OSError:
            comm = "?"
        os.waitpid(si.si_pid, 0)
        who = "vigil" if si.si_pid == v.pid else "end %s %d" % (comm, si.si_pid)
        how = "exit" if si.si_code == os.CLD_EXITED else "signal"
        print(who, how, si.si_status, flush=True)
        continue
    now = time.time()
    for k in kids():
        if k == v.pid:
            continue
        if state(k) == "T":
            stopped_since.setdefault(k, now)
            if now - stopped_since[k] > 2:
                print("stopped", k, flush=True)
                os.kill(k, signal.SIGKILL)
                stopped_since.pop(k)
        else:
            stopped_since.pop(k, None)
    time.sleep(0.02)
else:
    print("timeout", flush=True)
    for k in kids():
        os.kill(k, signal.SIGKILL)

"""bench/watch_bench.py - the "watchpoint hits" section of bench/bench.py.

build/bench/wloop writes a global (`counter`) N times with a little fixed
work between writes and times the loop itself; each row runs it under one
observer:
  native         no breakpoint
  bare bp        the hardware breakpoint vigil opens for `write counter`
                 (perf_event_open, HW_BREAKPOINT_W, sample_period 1, inherit),
                 no BPF program (bench/wfloor.c)
  bp+empty BPF   the same breakpoint with an empty perf_event program
                 (bench/wfloor.bpf.c): the floor of a BPF-watching tool
  vigil-user     build/vigil run --tier=user on a one-transition
                 `write counter` property
ns per hit = median(time per write with the row) - median(native time per
write); the ratios are to the bare breakpoint's ns per hit. Rows are
interleaved, their order reversed every other repetition.

Every watched run is checked: the breakpoint's own count, the empty
program's counter and vigil's per-event hits must each equal the writes
the loop made (N plus its untimed warm-up), vigil must lose nothing and
report no violation, the target must exit 0 and leave nothing behind.
"""
import json
import os
import re
import signal
import subprocess
import time

# bench.py runs as __main__: this imports a second, inert copy of it for its
# helpers. Only B.Failure is raised and caught here, never __main__.Failure.
import bench as B

ROWS = ["native", "bare bp", "bp+empty BPF", "vigil-user"]
GLOBAL = "counter"
SPEC = """property p "counter is written"
state s accepting {
  write %s -> s
}
""" % GLOBAL
# the hit cost is dominated by the #DB trap (~10 us in this KVM guest):
# generous per-hit estimate for the time limits only
EST_HIT_NS = 100e3


def config(quick):
    """Watched rows make ~0.1 s (quick) / ~0.4 s (full) of hits per run,
    native many more writes (~25 ns each). A hit's cost moves by tens of
    percent from run to run on this shared VM: many short runs give a
    steadier median than a few long ones."""
    if quick:
        return {"reps": 7, "n": 8000, "n_native": 1000000, "work": 20}
    return {"reps": 21, "n": 30000, "n_native": 4000000, "work": 20}


class Runner:
    def __init__(self, b):
        self.b = b
        self.wloop = os.path.join(b.out, "wloop")
        self.wfloor = os.path.join(b.out, "wfloor")
        self.spec = os.path.join(b.tmp, "watch.vigil")
        with open(self.spec, "w") as f:
            f.write(SPEC)

    def _kill_target(self, pidfile):
        """Kill the loop if it outlived its observer. True if it did."""
        try:
            pid = int(open(pidfile).read())
        except (OSError, ValueError):
            return False
        self.b.spawned.add(pid)
        try:
            exe = os.readlink("/proc/%d/exe" % pid)
        except OSError:
            return False
        if os.path.realpath(exe) != os.path.realpath(self.wloop):
            return False  # pid reused by someone else's process
        B.kill_pid(pid)
        return True

    def run(self, row, n, work):
        b = self.b
        b.nrun += 1
        label = "watch-%s#%d" % (row.replace(" ", "_").replace("+", "_"), b.nrun)
        pidfile = os.path.join(b.tmp, "wpid.%d" % b.nrun)
        jsonfile = os.path.join(b.tmp, "wvigil.%d.json" % b.nrun)
        timeout = int(60 + 5 * n * (EST_HIT_NS if row != "native" else 100) / 1e9)
        loop = [self.wloop, "--n", str(n), "--work", str(work), "--pidfile", pidfile,
                "--max-seconds", str(timeout + 5)]
        if row == "native":
            cmd = loop
        elif row == "bare bp":
            cmd = [self.wfloor, GLOBAL, "--"] + loop
        elif row == "bp+empty BPF":
            cmd = [self.wfloor, "--bpf", GLOBAL, "--"] + loop
        elif row == "vigil-user":
            cmd = [b.vigil, "run", "--tier=user", "--json", jsonfile, self.spec, "--"] + loop
        else:
            raise ValueError(row)

        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, cwd=B.ROOT,
                             start_new_session=True, text=True)
        b.spawned.add(p.pid)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # vigil runs its target in a session of its own: kill by pid first
            for pid in B.descendants(p.pid):
                B.kill_pid(pid)
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            self._kill_target(pidfile)
            path = b._save_log(label, cmd, out, err, "timeout")
            raise B.Failure("%s: no result within %ds (output in %s)" % (row, timeout, path))
        wall = time.monotonic() - t0
        try:
            os.killpg(p.pid, 0)
            os.killpg(p.pid, signal.SIGKILL)
            leftover = True
        except ProcessLookupError:
            leftover = False
        if self._kill_target(pidfile):
            leftover = True

        def fail(why, msg):
            path = b._save_log(label, cmd, out, err, why)
            raise B.Failure("%s: %s (output in %s)" % (row, msg, path))

        if leftover:
            fail("leftover", "left a process behind, killed it")
        if p.returncode != 0:
            fail("exit %d" % p.returncode, "exit status %d" % p.returncode)
        text = out + "\n" + err
        m = re.search(r"^wloop: n=%d work=%d ns=(\d+)$" % (n, work), text, re.M)
        w = B.Bench._int(r"^wloop: warmup=(\d+)$", text)
        if not m or w is None:
            fail("no loop lines", "the loop did not report its time and warm-up")
        r = {"ns": int(m.group(1)), "wall_s": wall, "writes": n + w,
             "count": None, "hits": None, "events": None}
        if row in ("bare bp", "bp+empty BPF"):
            r["count"] = B.Bench._int(r"^wfloor: count=(\d+)$", text)
            if r["count"] != r["writes"]:
                fail("count", "the breakpoint counted %s hits for %d writes"
                     % (r["count"], r["writes"]))
        if row == "bp+empty BPF":
            r["hits"] = B.Bench._int(r"^wfloor: hits=(\d+)$", text)
            if r["hits"] != r["writes"]:
                fail("hits", "the BPF program ran %s times for %d writes"
                     % (r["hits"], r["writes"]))
        if row == "vigil-user":
            stats = None
            try:
                for line in open(jsonfile):
                    if line.strip():
                        obj = json.loads(line)
                        if obj.get("type") == "stats":
                            stats = obj
            except (OSError, ValueError):
                pass
            if stats is None:
                fail("stats", "no {\"type\":\"stats\"} line in --json output")
            if stats.get("violations") or stats.get("lost"):
                fail("stats", "%s violations, %s lost events on a property that holds"
                     % (stats.get("violations"), stats.get("lost")))
            for pr in stats.get("probes", []):
                if pr.get("kind") == "write" and pr.get("name") == GLOBAL:
                    r["hits"] = pr.get("hits")
            r["events"] = stats.get("events")
            if r["hits"] != r["writes"]:
                fail("hits", "vigil saw %s writes of %s for %d made"
                     % (r["hits"], GLOBAL, r["writes"]))
        return r


def section(b, quick, skipped, failures):
    """Runs the measurements; returns (console text, summary.md lines)."""
    cfg = config(quick)
    rows = [r for r in ROWS if r not in skipped]
    runner = Runner(b)
    res = {r: [] for r in rows}
    raw = []
    for rep in range(cfg["reps"]):
        for row in (rows if rep % 2 == 0 else list(reversed(rows))):
            if res[row] is None:
                continue  # failed before: no more runs
            n = cfg["n_native"] if row == "native" else cfg["n"]
            try:
                r = runner.run(row, n, cfg["work"])
            except B.Failure as e:
                failures.append("watch: %s" % e)
                B.log("FAILED watch: %s" % e)
                res[row] = None
                continue
            r["per_write"] = r["ns"] / n
            res[row].append(r)
            raw.append([rep + 1, row, n, cfg["work"], r["ns"], "%.3f" % r["per_write"],
                        "%.3f" % r["wall_s"], r["writes"], r["count"], r["hits"],
                        r["events"]])
        B.log("watch: repetition %d/%d done" % (rep + 1, cfg["reps"]))
    B.write_csv(os.path.join(b.out, "watch_raw.csv"),
                ["rep", "row", "n", "work_units", "loop_ns", "ns_per_write", "run_wall_s",
                 "writes_with_warmup", "bp_count", "hits", "vigil_events"], raw)

    st = {}
    for row in rows:
        if res[row]:
            per = [r["per_write"] for r in res[row]]
            st[row] = {"n": cfg["n_native"] if row == "native" else cfg["n"],
                       "med": B.med(per), "min": min(per), "max": max(per), "reps": len(per)}
    nat = st.get("native", {}).get("med")
    hit = {row: s["med"] - nat for row, s in st.items() if row != "native" and nat is not None}
    bare = hit.get("bare bp")
    header = ["row", "N", "ns/write", "spread", "ns/hit", "x bare bp", "over bare bp"]
    table_rows, csv_rows = [], []
    for row in ROWS:
        if row in skipped:
            table_rows.append([row, "-", "skipped: " + skipped[row]])
            continue
        s = st.get(row)
        if s is None:
            table_rows.append([row, "-", "FAILED"])
            continue
        h = hit.get(row)
        ratio = h / bare if h is not None and bare else None
        over = h - bare if h is not None and bare is not None and row != "bare bp" else None
        spread = (s["max"] - s["min"]) / s["med"] * 100 if s["med"] else 0
        table_rows.append([row, s["n"], B.fmt_ns(s["med"]), "%.0f%%" % spread,
                           B.fmt_ns(h), B.fmt(ratio), B.fmt_ns(over)])
        csv_rows.append([row, s["n"], s["reps"], "%.3f" % s["med"], "%.3f" % s["min"],
                         "%.3f" % s["max"], "" if h is None else "%.3f" % h,
                         "" if ratio is None else "%.4f" % ratio,
                         "" if over is None else "%.3f" % over])
    B.write_csv(os.path.join(b.out, "watch.csv"),
                ["row", "n", "reps", "ns_per_write_median", "ns_min", "ns_max",
                 "ns_per_hit", "ratio_bare_bp", "added_over_bare_bp_ns"], csv_rows)

    title = ("Watchpoint hits: a loop writing a global (%d work units between writes), "
             "median of %d runs; ns/hit = ns/write - native ns/write" % (cfg["work"], cfg["reps"]))
    text = title + ":\n" + B.table(header, table_rows) + "\n"
    md = ["## Watchpoint hits", "",
          "A loop writing a global (%d work units between writes), median of %d runs; "
          "ns/hit = ns/write - native ns/write; ratios to the bare breakpoint's ns/hit."
          % (cfg["work"], cfg["reps"]), "", B.md_table(header, table_rows), ""]
    return text, md

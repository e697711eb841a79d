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

Then what stopping the target for the watchpoints costs: arming and
disarming per transition, and hits that hold the writing thread
(arm_section, build/bench/armloop; described where it starts below).
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

    def _kill_target(self, pidfile, prog):
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
        if os.path.realpath(exe) != os.path.realpath(prog):
            return False  # pid reused by someone else's process
        B.kill_pid(pid)
        return True

    def execute(self, row, label, cmd, timeout, pidfile, prog):
        """Runs cmd; (stdout, stderr, wall seconds, fail(why, msg)). Raises
        B.Failure on a timeout or a process left behind (a loop still
        running after its observer exited, stopped or not)."""
        b = self.b
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
            self._kill_target(pidfile, prog)
            path = b._save_log(label, cmd, out, err, "timeout")
            raise B.Failure("%s: no result within %ds (output in %s)" % (row, timeout, path))
        wall = time.monotonic() - t0
        try:
            os.killpg(p.pid, 0)
            os.killpg(p.pid, signal.SIGKILL)
            leftover = True
        except ProcessLookupError:
            leftover = False
        if self._kill_target(pidfile, prog):
            leftover = True

        def fail(why, msg):
            path = b._save_log(label, cmd, out, err, why)
            raise B.Failure("%s: %s (output in %s)" % (row, msg, path))

        if leftover:
            fail("leftover", "left a process behind, killed it")
        if p.returncode != 0:
            fail("exit %d" % p.returncode, "exit status %d" % p.returncode)
        return out, err, wall, fail

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

        out, err, wall, fail = self.execute(row, label, cmd, timeout, pidfile, self.wloop)
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
            stats = vigil_stats(jsonfile)
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


def vigil_stats(jsonfile):
    """The {"type":"stats"} object of vigil's --json output, or None."""
    stats = None
    try:
        for line in open(jsonfile):
            if line.strip():
                obj = json.loads(line)
                if obj.get("type") == "stats":
                    stats = obj
    except (OSError, ValueError):
        pass
    return stats


def section(b, quick, skipped, failures):
    """Both tables of the section: (console text, summary.md lines)."""
    text, md = hits_section(b, quick, skipped, failures)
    t0 = time.monotonic()
    text2, md2 = arm_section(b, quick, skipped, failures)
    B.log("watch: arming and held hits took %.0f s" % (time.monotonic() - t0))
    return text + "\n" + text2, md + md2


def hits_section(b, quick, skipped, failures):
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


# --------------------------------------------------------------------------
# What the stop costs (issue #5): arming per transition, and held hits.
#
# build/bench/armloop (bench/armloop.c) opens and closes an object in a loop
# ("cycle"), or opens it once and writes its count N times ("hits"). Rows:
#   cycle, native / uprobes only / watching, with 0 and 8 idle threads:
#     uprobes only  ARM_NOWATCH: the same two function events, no watch
#                   (the floor: two uprobe records per cycle)
#     watching      ARM_WATCH: entering `open` arms o->count in every thread
#                   with the target held (VG_EVF_HOLD: SIGSTOP in the
#                   obj_open probe, SIGCONT once armed); obj_close disarms;
#                   the cycle's one write is a plain hit (its self-loop
#                   `write o->count -> open` moves no watch: not held)
#     arm+disarm = median us/cycle watching - median us/cycle uprobes only
#   hits, native / no hold / held: HOLD_SPEC, whose `bad` is a violation
#     state; with the default --on-violation=stop every hit may stop the
#     target, so each holds the writing thread until vigil has handled it
#     (VG_WPF_STOP); --on-violation=continue takes the hold away.
#     us/hit = median us/write - native us/write
# Every vigil run is checked against what the loop did: the obj_open,
# obj_close and o->count hits, the watchpoints armed (one per open), no
# violation, nothing lost, the target exited 0 and nothing left behind
# (stopped or not).

ARM_NOWATCH = """property counted "open and close, nothing watched"
slice on ptr o
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  before obj_close(o) -> closed
}
"""
ARM_WATCH = """property counted "an open object's count"
slice on ptr o
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  write o->count -> open
  before obj_close(o) -> closed
}
"""
HOLD_SPEC = """property nonneg "an open object's count is never negative"
slice on ptr o
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  write o->count when value < 0 -> bad
  before obj_close(o) -> closed
}
state bad violation {
}
"""
ARM_THREADS = [0, 8]
ARM_KINDS = ["native", "uprobes only", "watching"]
HOLD_KINDS = ["native", "no hold", "held"]
# rows: (mode, kind, idle threads)
ARM_ROWS = ([("cycle", k, t) for t in ARM_THREADS for k in ARM_KINDS] +
            [("hits", k, 0) for k in HOLD_KINDS])
# per cycle with 8 threads ~1.2 ms, per held hit ~0.3 ms: generous, for
# the time limits only
EST_ARM_NS = 20e6


def arm_config(quick):
    """A vigil run is ~0.35 s of start-up plus 0.05-0.5 s of loop: the
    start-ups are most of the time, so QUICK keeps 5 repetitions and
    shortens the loops."""
    if quick:
        return {"reps": 5, "work": 20, "skip": [],
                "n": {"cycle": {"native": 100000, "uprobes only": 80, "watching": 80},
                      "hits": {"native": 100000, "no hold": 3000, "held": 300}}}
    return {"reps": 11, "work": 20, "skip": [],
            "n": {"cycle": {"native": 100000, "uprobes only": 300, "watching": 300},
                  "hits": {"native": 100000, "no hold": 10000, "held": 1500}}}


def arm_label(row):
    mode, kind, nt = row
    if mode == "hits":
        return {"native": "native", "no hold": "no hold (--on-violation=continue)",
                "held": "held (--on-violation=stop)"}[kind]
    return kind


class ArmRunner(Runner):
    def __init__(self, b):
        Runner.__init__(self, b)
        self.prog = os.path.join(b.out, "armloop")
        self.specs = {}
        for name, text in (("nowatch", ARM_NOWATCH), ("watch", ARM_WATCH),
                           ("hold", HOLD_SPEC)):
            self.specs[name] = os.path.join(b.tmp, "arm-%s.vigil" % name)
            with open(self.specs[name], "w") as f:
                f.write(text)

    def run_arm(self, row, n, work):
        b = self.b
        mode, kind, nt = row
        b.nrun += 1
        name = "%s %s %dt" % (mode, kind, nt)
        label = "arm-%s#%d" % (name.replace(" ", "_"), b.nrun)
        pidfile = os.path.join(b.tmp, "apid.%d" % b.nrun)
        jsonfile = os.path.join(b.tmp, "avigil.%d.json" % b.nrun)
        timeout = int(60 + 5 * n * (EST_ARM_NS if kind != "native" else 100) / 1e9)
        loop = [self.prog, mode, "--n", str(n), "--work", str(work), "--threads", str(nt),
                "--pidfile", pidfile, "--max-seconds", str(timeout + 5)]
        vigil = [b.vigil, "run", "--tier=user", "--json", jsonfile]
        cmd = {"native": loop,
               "uprobes only": vigil + [self.specs["nowatch"], "--"] + loop,
               "watching": vigil + [self.specs["watch"], "--"] + loop,
               "no hold": vigil + ["--on-violation=continue", self.specs["hold"], "--"] + loop,
               "held": vigil + [self.specs["hold"], "--"] + loop}[kind]
        out, err, wall, fail = self.execute(name, label, cmd, timeout, pidfile, self.prog)
        text = out + "\n" + err
        m = re.search(r"^armloop: mode=%s n=%d ns=(\d+)$" % (mode, n), text, re.M)
        w = B.Bench._int(r"^armloop: warmup=(\d+) threads=%d$" % nt, text)
        if not m or w is None:
            fail("no loop lines", "the loop did not report its time and warm-up")
        r = {"ns": int(m.group(1)), "wall_s": wall, "warmup": w, "armed": None,
             "opens": None, "writes": None}
        if kind == "native":
            return r
        stats = vigil_stats(jsonfile)
        if stats is None:
            fail("stats", "no {\"type\":\"stats\"} line in --json output")
        if stats.get("violations") or stats.get("lost"):
            fail("stats", "%s violations, %s lost events on a property that holds"
                 % (stats.get("violations"), stats.get("lost")))
        hits = {(pr.get("kind"), pr.get("name")): pr.get("hits")
                for pr in stats.get("probes", [])}
        cycles = n + w if mode == "cycle" else 1
        writes = n + w if kind != "uprobes only" else None
        want = {("before", "obj_open"): cycles, ("before", "obj_close"): cycles}
        if writes is not None:
            want[("write", "o->count")] = writes
        for k, v in want.items():
            if hits.get(k) != v:
                fail("hits", "vigil saw %s %s:%s events for %d made"
                     % (hits.get(k), k[0], k[1], v))
        r["opens"], r["writes"] = hits.get(("before", "obj_open")), writes
        if writes is not None:
            # each open arms once, and the first write after it is a hit
            r["armed"] = B.Bench._int(r"^vigil: watchpoints: (\d+) armed, (?:\d+) hits", err)
            h = B.Bench._int(r"^vigil: watchpoints: \d+ armed, (\d+) hits", err)
            if r["armed"] != cycles or h != writes:
                fail("armed", "vigil armed %s watchpoints for %d opens and handled %s "
                     "hits for %d writes" % (r["armed"], cycles, h, writes))
        return r


def arm_section(b, quick, skipped, failures):
    cfg = arm_config(quick)
    rows = [r for r in ARM_ROWS if r[1] not in cfg["skip"] and
            (r[1] == "native" or "vigil-user" not in skipped)]
    runner = ArmRunner(b)
    res = {r: [] for r in rows}
    raw = []
    for rep in range(cfg["reps"]):
        for row in (rows if rep % 2 == 0 else list(reversed(rows))):
            if res[row] is None:
                continue
            n = cfg["n"][row[0]][row[1]]
            try:
                r = runner.run_arm(row, n, cfg["work"])
            except B.Failure as e:
                failures.append("watch arming: %s" % e)
                B.log("FAILED watch arming: %s" % e)
                res[row] = None
                continue
            r["per"] = r["ns"] / n
            res[row].append(r)
            raw.append([rep + 1, row[0], row[1], row[2], n, r["ns"], "%.1f" % r["per"],
                        "%.3f" % r["wall_s"], r["warmup"], r["opens"], r["writes"],
                        r["armed"]])
        B.log("watch arming: repetition %d/%d done" % (rep + 1, cfg["reps"]))
    B.write_csv(os.path.join(b.out, "watch_arm_raw.csv"),
                ["rep", "mode", "row", "idle_threads", "n", "loop_ns", "ns_per_iteration",
                 "run_wall_s", "warmup", "opens_seen", "writes_seen", "armed"], raw)

    st = {}
    for row in rows:
        if res[row]:
            per = [r["per"] for r in res[row]]
            md_ = B.med(per)
            st[row] = {"n": cfg["n"][row[0]][row[1]], "med": md_, "reps": len(per),
                       "min": min(per), "max": max(per),
                       "spread": (max(per) - min(per)) / md_ * 100 if md_ else 0}

    def cell(row):
        if row[1] != "native" and "vigil-user" in skipped:
            return ["skipped: " + skipped["vigil-user"]]
        if row[1] in cfg["skip"]:
            return ["-", "not in QUICK runs"]
        s = st.get(row)
        if s is None:
            return ["FAILED"]
        return [s["n"], B.fmt_ns(s["med"]), "%.0f%%" % s["spread"]]

    csv_rows = []
    for row, s in st.items():
        csv_rows.append([row[0], row[1], row[2], s["n"], s["reps"], "%.1f" % s["med"],
                         "%.1f" % s["min"], "%.1f" % s["max"]])
    B.write_csv(os.path.join(b.out, "watch_arm.csv"),
                ["mode", "row", "idle_threads", "n", "reps", "ns_per_iteration_median",
                 "ns_min", "ns_max"], csv_rows)

    ah = ["row", "threads", "N", "per cycle", "spread", "arm+disarm", "x uprobes only"]
    arows = []
    for nt in ARM_THREADS:
        for kind in ARM_KINDS:
            row = ("cycle", kind, nt)
            extra = ["", ""]
            w, f = st.get(("cycle", kind, nt)), st.get(("cycle", "uprobes only", nt))
            if kind == "watching" and w and f:
                extra = [B.fmt_ns(w["med"] - f["med"]), B.fmt(w["med"] / f["med"])]
            arows.append([arm_label(row), "1" if not nt else "1+%d idle" % nt]
                         + cell(row) + extra)
    hh = ["row", "N", "per write", "spread", "per hit", "x no hold", "hold adds"]
    hrows = []
    nat = st.get(("hits", "native", 0), {}).get("med")
    nohold = st.get(("hits", "no hold", 0))
    for kind in HOLD_KINDS:
        row = ("hits", kind, 0)
        s = st.get(row)
        extra = ["", "", ""]
        if kind != "native" and s and nat is not None:
            h = s["med"] - nat
            extra[0] = B.fmt_ns(h)
            if kind == "held" and nohold:
                h0 = nohold["med"] - nat
                extra[1:] = [B.fmt(h / h0) if h0 > 0 else "-", B.fmt_ns(h - h0)]
        hrows.append([arm_label(row)] + cell(row) + extra)
    t1 = ("Arming a watchpoint per transition: obj_open(o); o->count = i; obj_close(o), "
          "median of %d runs; arm+disarm = watching - uprobes only" % cfg["reps"])
    t2 = ("Held hits: writes of a watched o->count (%d work units between writes), "
          "median of %d runs; per hit = per write - native" % (cfg["work"], cfg["reps"]))
    text = (t1 + ":\n" + B.table(ah, arows) + "\n\n" + t2 + ":\n" + B.table(hh, hrows) + "\n")
    md = ["## Watchpoint arming per transition", "", t1 + ".", "", B.md_table(ah, arows), "",
          "## Held watchpoint hits", "", t2 + ".", "", B.md_table(hh, hrows), ""]
    return text, md

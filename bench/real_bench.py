"""bench/real_bench.py - the "real programs" section of bench/bench.py
(issue #8, point 4).

Four programs, each run native and under vigil with properties from
specs/lib/; the malloc program also under valgrind memcheck:
  xz       xz -0 -T2 compressing a generated file (bench/real_inputs.py),
           specs/lib/mutex.vigil (mutexes of liblzma's threads, in libc)
  sqlite3  the Debian sqlite3 shell running a generated SQL script on an
           in-memory database, specs/lib/sqlite_stmt.vigil
  allocs   build/bench/allocs_bench (bench/allocs_bench.c), malloc, calloc,
           realloc and free at random over a working set, under five of
           the memory library's specs (MEMORY below), and with
           --fast also under the sixth, use_after_free (a watchpoint per
           freed block where debug registers fire; its watchpoint hits
           are measured by bench/watch_bench.py); vigil with --tier=auto
           and with --tier=user, and valgrind --tool=memcheck
           --leak-check=full: the notes give vigil's wall against
           memcheck's (issue #34: the six specs faster than memcheck)
  git      git log -p on a clone of this repository (its objects packed:
           every object is inflated), specs/lib/zlib.vigil
vigil's --fast rows run with its default slice table (--max-slices
65,536) on allocs: the in-process step asks a guard that reads the event
alone before it looks a slice up (kpre, docs/INTERNALS.md), so the six
specs refuse no slice there (checked on every run, below). A larger table
costs with its size: with 262,144 (what this script asked before) the run
took 1.12 x the default's wall and 140 MiB against 101 (9 pairs, a PVM
guest). The rows without the in-process tier keep ALLOCS_NO_FAST_SLICES:
the BPF step has no kpre, and at the default 106,997 slices are refused.

Two times per run: *wall*, the whole command as a user waits for it
(vigil's or valgrind's start-up and exit included), and *run*, the program
from its load to its exit, written by build/bench/runtime.so (LD_PRELOAD,
bench/runtime.c). Slowdowns are the medians' ratios to native's, from the
same repetitions; rows are interleaved, their order reversed every other
repetition. events = what vigil's probes saw (`events` of its JSON stats);
events/s = events / run time under vigil.

Checked on every run: exit status 0; for vigil no violation, no slice
refused, lost records reported (a column); the program's output: xz's is
byte-identical to the first native run's, which is decompressed and
compared with the input once; the sqlite3 shell's equals the first native
run's, whose last line is the aggregate real_inputs computed and whose
line count is what the script selects; allocs prints the same counts on
every run, vigil's per-probe hits equal them, valgrind reports no error,
nothing in use at exit and as many allocations and frees. No process may
be left behind (a target vigil stopped included).
"""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import time

# bench.py runs as __main__: this imports a second, inert copy of it for its
# helpers. Only B.Failure is raised and caught here, never __main__.Failure.
import bench as B
import real_inputs
import watch_bench

MEMORY = ["specs/lib/%s.vigil" % s
          for s in ("double_free", "leak", "bad_free", "realloc", "fishy_size")]
SPECS = {"xz": ["specs/lib/mutex.vigil"],
         "sqlite3": ["specs/lib/sqlite_stmt.vigil"],
         "allocs": MEMORY,
         "git": ["specs/lib/zlib.vigil"]}
ROWS = {"xz": ["native", "vigil"],
        "sqlite3": ["native", "vigil --no-fast", "vigil --fast"],
        "allocs": ["native", "vigil --no-fast", "vigil --fast",
                   "vigil --fast +use_after_free", "vigil --tier=user",
                   "valgrind memcheck"],
        "git": ["native", "vigil --no-fast", "vigil --fast"]}
# the in-process tier (--fast): the hot library functions (the default);
# SQLite's and zlib's are the specs' own `fast` lines
FAST = {"sqlite3": "hot", "allocs": "hot", "xz": "hot", "git": "hot"}
ALLOCS_NO_FAST_SLICES = 262144  # the table --no-fast and --tier=user need
SIXTH = " +use_after_free"  # a row's suffix: the sixth memory spec too
VALGRIND_EXIT = 9  # --error-exitcode: memcheck found an error


def config(quick):
    """Sizes: full runs take ~2 s (xz), ~0.6 s (sqlite3) and ~0.03 s
    (allocs) native here, and 2-3 s more under vigil, most of it vigil's
    start and exit; QUICK inputs are a tenth to a quarter, with two
    repetitions. Five in full runs: single runs on this shared 2-vCPU
    machine vary by tens of percent."""
    if quick:
        return {"reps": 2, "xz_bytes": 5000000, "sql": (8000, 3000, 5),
                "allocs_ops": 100000}
    return {"reps": 5, "xz_bytes": 50000000, "sql": (150000, 50000, 20),
            "allocs_ops": 400000}


def tiers(err):
    """{property: 'kernel'|'user'} from vigil's start-up lines."""
    return {m.group(1): m.group(2)
            for m in re.finditer(r"^vigil: (\S+): (kernel|user) tier", err, re.M)}


def git_repo(tmp):
    """A clone of this repository with its objects in one pack: git log -p
    then inflates every commit, tree and blob it shows."""
    repo = os.path.join(tmp, "real-git")
    shutil.rmtree(repo, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--no-local", B.ROOT, repo], check=True)
    subprocess.run(["git", "-C", repo, "gc", "-q"], check=True)
    return repo


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Runner:
    def __init__(self, b, cfg):
        self.b, self.cfg = b, cfg
        self.shim = os.path.join(b.out, "runtime.so")
        self.allocs = os.path.join(b.out, "allocs_bench")
        self.ref = {}  # program -> what its first native run gave
        self.xz_in = os.path.join(b.tmp, "real-xz.in")
        self.sql = os.path.join(b.tmp, "real.sql")
        real_inputs.xz_input(self.xz_in, cfg["xz_bytes"])
        self.sql_n, self.sql_last, self.sql_lines = real_inputs.sql_workload(
            self.sql, *cfg["sql"])
        self.repo = git_repo(b.tmp)

    def argv(self, prog):
        """(program argv, stdin path or None, argv[0]'s basename)."""
        if prog == "xz":
            return ["xz", "-0", "-T2", "-c", self.xz_in], None, "xz"
        if prog == "sqlite3":
            return ["sqlite3", ":memory:"], self.sql, "sqlite3"
        if prog == "git":
            return ["git", "-C", self.repo, "--no-pager", "log", "-p"], None, "git"
        return [self.allocs, "--n", str(self.cfg["allocs_ops"])], None, "allocs_bench"

    def command(self, prog, row, jsonfile, vglog):
        target, stdin, exe = self.argv(prog)
        if row == "native":
            return target, stdin, exe
        if row.startswith("vigil"):
            cmd = [self.b.vigil, "run", "--json", jsonfile]
            specs = SPECS[prog] + (["specs/lib/use_after_free.vigil"]
                                   if row.endswith(SIXTH) else [])
            row = row[:-len(SIXTH)] if row.endswith(SIXTH) else row
            if row.endswith("--tier=user"):
                cmd.append("--tier=user")
            if row.endswith("--fast"):
                cmd += ["--fast", FAST[prog]]
            elif "--fast" not in cmd:	# the uprobes alone, as before the tier
                cmd.append("--no-fast")
                if prog == "allocs":	# (the BPF step has no kpre)
                    cmd += ["--max-slices", str(ALLOCS_NO_FAST_SLICES)]
            cmd += [os.path.join(B.ROOT, s) for s in specs]
            return cmd + ["--"] + target, stdin, exe
        return (["valgrind", "--tool=memcheck", "--leak-check=full",
                 "--error-exitcode=%d" % VALGRIND_EXIT, "--log-file=" + vglog]
                + target, stdin, exe)

    def run(self, prog, row, timeout):
        b = self.b
        b.nrun += 1
        n = b.nrun
        label = "real-%s-%s#%d" % (prog, row.split()[0], n)
        jsonfile = os.path.join(b.tmp, "real.%d.json" % n)
        vglog = os.path.join(b.tmp, "real.%d.vg" % n)
        rtfile = os.path.join(b.tmp, "real.%d.rt" % n)
        outfile = os.path.join(b.tmp, "real.%d.out" % n)
        errfile = os.path.join(b.tmp, "real.%d.err" % n)
        cmd, stdin, exe = self.command(prog, row, jsonfile, vglog)
        env = self.env(row, rtfile, exe)
        # Files, not pipes: a target vigil left stopped would hold a pipe
        # open, and reading it to its end would wait for ever.
        with open(outfile, "wb") as out, open(errfile, "wb") as errf, \
                open(stdin or os.devnull, "rb") as inp:
            t0 = time.monotonic()
            p = subprocess.Popen(cmd, stdin=inp, stdout=out, stderr=errf,
                                 env=env, cwd=B.ROOT, start_new_session=True)
            b.spawned.add(p.pid)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                for pid in B.descendants(p.pid):
                    B.kill_pid(pid)
                os.killpg(p.pid, signal.SIGKILL)
                self._leftover(rtfile)
                p.wait()
                path = b._save_log(label, cmd, "", open(errfile, errors="replace").read(),
                                   "timeout")
                raise B.Failure("%s %s: no result within %ds (output in %s)"
                                % (prog, row, timeout, path))
            wall = time.monotonic() - t0
        err = open(errfile, errors="replace").read()

        def fail(why, msg):
            with open(outfile, "rb") as f:  # the program's output: its start
                head = f.read(4000).decode(errors="replace")
            path = b._save_log(label, cmd, head, err, why)
            raise B.Failure("%s %s: %s (output in %s)" % (prog, row, msg, path))

        if B.group_left(p.pid):
            fail("leftover", "left a process behind, killed it")
        if self._leftover(rtfile):
            fail("leftover", "left the program behind (stopped?), killed it")
        if p.returncode != 0:
            self.bad_exit(prog, row, p.returncode, jsonfile, fail)
        ns = {}
        try:
            for m in re.finditer(r"^(start|end) pid=\d+ ns=(\d+)$", open(rtfile).read(), re.M):
                ns[m.group(1)] = int(m.group(2))
        except OSError:
            pass
        if len(ns) != 2:
            fail("runtime", "the run-time shim wrote no start and end lines")
        r = {"wall_s": wall, "run_s": (ns["end"] - ns["start"]) / 1e9, "events": None,
             "lost": None, "tier": None}
        self.check_output(prog, row, outfile, r, fail)
        self.check_row(prog, row, jsonfile, vglog, err, r, fail)
        os.unlink(outfile)
        return r

    # what bench/overflow_bench.py's Runner changes: the environment, what
    # a failed exit says, the checks by row
    def env(self, row, rtfile, exe):
        return dict(os.environ, LD_PRELOAD=self.shim, VG_BENCH_RUNTIME=rtfile,
                    VG_BENCH_RUNTIME_EXE=exe)

    def bad_exit(self, prog, row, rc, jsonfile, fail):
        fail("exit %d" % rc, "exit status %d" % rc)

    def check_row(self, prog, row, jsonfile, vglog, err, r, fail):
        if row.startswith("vigil"):
            self.check_vigil(prog, jsonfile, err, r, fail)
        elif row.startswith("valgrind"):
            self.check_valgrind(vglog, r["calls"], fail)

    def _leftover(self, rtfile):
        """Kill the program if it outlived the command (vigil leaves a
        target stopped at a violation). True if it did."""
        try:
            m = re.search(r"^start pid=(\d+) ", open(rtfile).read(), re.M)
        except OSError:
            return False
        if not m:
            return False
        pid = int(m.group(1))
        self.b.spawned.add(pid)
        try:
            state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state == "Z":
            return False
        B.kill_pid(pid)
        return True

    def check_output(self, prog, row, outfile, r, fail):
        """The program's output against its first native run's."""
        if prog == "allocs":
            got = open(outfile).read().strip()
            m = re.match(r"allocs_bench: ops=\d+ malloc=(\d+) calloc=(\d+) realloc=(\d+) "
                         r"free=(\d+) check=\d+$", got)
            if not m:
                fail("output", "allocs_bench printed %r" % got[:200])
            r["calls"] = dict(zip(("malloc", "calloc", "realloc", "free"),
                                  map(int, m.groups())))
        else:
            got = sha256(outfile)
        if prog not in self.ref:
            if row != "native":
                fail("output", "no native run to compare the output with")
            self.first_native(prog, outfile, fail)
            self.ref[prog] = got
        elif got != self.ref[prog]:
            fail("output", "output differs from the first native run's")

    def first_native(self, prog, outfile, fail):
        """What the first native run printed, checked against the input."""
        if prog == "xz":
            h = hashlib.sha256()
            with subprocess.Popen(["xz", "-dc", outfile], stdout=subprocess.PIPE) as p:
                for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
                    h.update(chunk)
            if p.returncode != 0 or h.hexdigest() != sha256(self.xz_in):
                fail("output", "xz's output does not decompress to its input")
        elif prog == "sqlite3":
            lines = open(outfile).read().splitlines()
            if len(lines) != self.sql_lines or not lines or lines[-1] != self.sql_last:
                fail("output", "sqlite3 printed %d lines ending %r, expected %d ending %r"
                     % (len(lines), lines[-1] if lines else "", self.sql_lines,
                        self.sql_last))
        elif prog == "git":
            want = subprocess.run(["git", "-C", self.repo, "rev-list", "--count", "HEAD"],
                                  capture_output=True, text=True, check=True).stdout.strip()
            got = sum(1 for line in open(outfile, errors="replace")
                      if line.startswith("commit "))
            if str(got) != want:
                fail("output", "git log -p showed %d commits of %s" % (got, want))

    def check_vigil(self, prog, jsonfile, err, r, fail):
        stats = watch_bench.vigil_stats(jsonfile)
        if stats is None:
            fail("stats", "no {\"type\":\"stats\"} line in --json output")
        if stats.get("violations"):
            fail("violation", "%s violations on a correct program" % stats["violations"])
        if stats.get("slices_refused") or stats.get("kernel_slices_refused"):
            fail("refused", "slices refused (%s, kernel %s): raise --max-slices"
                 % (stats.get("slices_refused"), stats.get("kernel_slices_refused")))
        r["events"], r["lost"] = stats.get("events"), stats.get("lost")
        r["tier"] = tiers(err)
        if prog == "allocs":
            hits = {(pr.get("kind"), pr.get("name")): pr.get("hits")
                    for pr in stats.get("probes", [])}
            c = r["calls"]
            want = {("after", "malloc"): c["malloc"], ("after", "calloc"): c["calloc"],
                    ("after", "realloc"): c["realloc"], ("before", "realloc"): c["realloc"],
                    ("before", "free"): c["free"]}
            for k, v in want.items():
                if hits.get(k) != v:
                    fail("hits", "vigil saw %s %s:%s for %d calls" % (hits.get(k), k[0], k[1], v))

    def check_valgrind(self, vglog, calls, fail):
        """memcheck saw no error, nothing in use at exit, and every call:
        it counts a realloc as one allocation and one free."""
        # exit status VALGRIND_EXIT would have failed the run already
        text = open(vglog).read()
        m = re.search(r"in use at exit: ([\d,]+) bytes", text)
        if not m or m.group(1) != "0":
            fail("valgrind", "valgrind: memory in use at exit: %s"
                 % (m.group(1) if m else "no heap summary"))
        if not re.search(r"ERROR SUMMARY: 0 errors", text):
            fail("valgrind", "valgrind reported errors")
        m = re.search(r"total heap usage: ([\d,]+) allocs, ([\d,]+) frees", text)
        want = (calls["malloc"] + calls["calloc"] + calls["realloc"],
                calls["free"] + calls["realloc"])
        got = tuple(int(x.replace(",", "")) for x in m.groups()) if m else None
        if got != want:
            fail("valgrind", "valgrind counted %s allocations and frees, the program "
                 "made %s" % (got, want))


def timeout_for(prog, row, cfg):
    native = {"xz": 8e-7 * cfg["xz_bytes"], "sqlite3": 1e-5 * sum(cfg["sql"][:2]),
              "allocs": 2e-7 * cfg["allocs_ops"], "git": 1.0}[prog]
    return int(120 + 50 * native)


def fmt_s(s):
    return "-" if s is None else B.fmt(s) + " s"


def tier_text(t):
    """'kernel', 'user', or 'kernel + user' when the properties differ."""
    if not t:
        return "-"
    kinds = sorted(set(t.values()))
    return " + ".join(kinds)


def section(b, quick, skipped, failures):
    """Runs the measurements; returns (console text, summary.md lines)."""
    cfg = config(quick)
    t0 = time.monotonic()
    missing = [p for p in ("xz", "sqlite3", "valgrind", "git") if not shutil.which(p)]
    if missing:
        failures.append("real programs: not installed: %s (scripts/setup.sh installs them)"
                        % ", ".join(missing))
        return "Real programs: FAILED, not installed: %s\n" % ", ".join(missing), []
    runner = Runner(b, cfg)
    rows = [(prog, row) for prog in ROWS for row in ROWS[prog]
            if not (row.startswith("vigil") and "vigil-user" in skipped)]
    res = {k: [] for k in rows}
    raw = []
    for rep in range(cfg["reps"]):
        for prog, row in (rows if rep % 2 == 0 else list(reversed(rows))):
            k = (prog, row)
            if res[k] is None:
                continue  # failed before: no more runs
            try:
                r = runner.run(prog, row, timeout_for(prog, row, cfg))
            except B.Failure as e:
                failures.append("real programs: %s" % e)
                B.log("FAILED real programs: %s" % e)
                res[k] = None
                continue
            res[k].append(r)
            raw.append([rep + 1, prog, row, "%.3f" % r["wall_s"], "%.4f" % r["run_s"],
                        r["events"], r["lost"],
                        ";".join("%s=%s" % kv for kv in sorted((r["tier"] or {}).items()))])
        B.log("real programs: repetition %d/%d done" % (rep + 1, cfg["reps"]))
    B.write_csv(os.path.join(b.out, "real_raw.csv"),
                ["rep", "program", "row", "wall_s", "run_s", "vigil_events", "vigil_lost",
                 "tiers"], raw)
    commits = int(subprocess.run(["git", "-C", runner.repo, "rev-list", "--count", "HEAD"],
                                 capture_output=True, text=True, check=True).stdout)
    return summarize(b, cfg, runner.sql_n, commits, rows, res, skipped,
                     time.monotonic() - t0)


def summarize(b, cfg, statements, commits, rows, res, skipped, secs):
    st = {}
    for k in rows:
        if res[k]:
            runs = res[k]
            wall = [r["wall_s"] for r in runs]
            run = [r["run_s"] for r in runs]
            ev = [r["events"] for r in runs if r["events"] is not None]
            st[k] = {"wall": B.med(wall), "run": B.med(run), "reps": len(runs),
                     "spread": (max(wall) - min(wall)) / B.med(wall) * 100,
                     "events": B.med(ev) if ev else None,
                     "evs": B.med([r["events"] / r["run_s"] for r in runs
                                   if r["events"] is not None]) if ev else None,
                     "lost": max(r["lost"] or 0 for r in runs) if ev else None,
                     "tier": runs[-1]["tier"]}
    header = ["program", "row", "tier", "wall", "spread", "x native", "run", "x native",
              "events", "events/s", "lost"]
    trows, csv_rows, tier_notes = [], [], []
    for prog in ROWS:
        nat = st.get((prog, "native"))
        for row in ROWS[prog]:
            k = (prog, row)
            if row.startswith("vigil") and "vigil-user" in skipped:
                trows.append([prog, row, "skipped: " + skipped["vigil-user"]])
                continue
            s = st.get(k)
            if s is None:
                trows.append([prog, row, "FAILED"])
                continue
            xw = s["wall"] / nat["wall"] if nat else None
            xr = s["run"] / nat["run"] if nat else None
            trows.append([prog, row, tier_text(s["tier"]), fmt_s(s["wall"]),
                          "%.0f%%" % s["spread"], B.fmt(xw), fmt_s(s["run"]), B.fmt(xr),
                          "-" if s["events"] is None else "%d" % s["events"],
                          "-" if s["evs"] is None else B.fmt(s["evs"]),
                          "-" if s["lost"] is None else s["lost"]])
            csv_rows.append([prog, row, s["reps"], "%.3f" % s["wall"], "%.4f" % s["run"],
                             "" if xw is None else "%.3f" % xw,
                             "" if xr is None else "%.3f" % xr,
                             s["events"], "" if s["evs"] is None else "%.0f" % s["evs"],
                             s["lost"], ";".join("%s=%s" % kv
                                                 for kv in sorted((s["tier"] or {}).items()))])
            if s["tier"] and row in ("vigil", "vigil --no-fast"):
                tier_notes.append("%s: %s" % (prog, ", ".join(
                    "%s %s" % kv for kv in sorted(s["tier"].items()))))
    B.write_csv(os.path.join(b.out, "real.csv"),
                ["program", "row", "reps", "wall_s_median", "run_s_median", "wall_x_native",
                 "run_x_native", "vigil_events", "events_per_s", "vigil_lost_max", "tiers"],
                csv_rows)
    sizes = ("xz -0 -T2 on %.0f MB; sqlite3 :memory: on %d statements (%d inserts, %d "
             "updates, %d selects); allocs_bench --n %d under %d memory specs (%d in "
             "the +use_after_free row); "
             "git log -p on %d commits"
             % (cfg["xz_bytes"] / 1e6, statements, cfg["sql"][0], cfg["sql"][1],
                cfg["sql"][2], cfg["allocs_ops"], len(MEMORY), len(MEMORY) + 1, commits))
    title = ("Real programs (%s), median of %d runs; wall = the whole command, run = "
             "the program from load to exit; events/s = vigil's events / run"
             % (sizes, cfg["reps"]))
    notes = "Tiers chosen by --tier=auto: %s." % ("; ".join(tier_notes) or "-")
    vg = st.get(("allocs", "valgrind memcheck"))
    for row in ("vigil --fast", "vigil --fast" + SIXTH):
        s = st.get(("allocs", row))
        if vg and s:
            notes += ("\nallocs, %s: %s memcheck's wall (%s against %s)"
                      % (row, B.fmt(s["wall"] / vg["wall"]) + " x",
                         fmt_s(s["wall"]), fmt_s(vg["wall"])))
    text = title + ":\n" + B.table(header, trows) + "\n" + notes + "\n"
    B.log("real programs took %.0f s" % secs)
    md = ["## Real programs", "", title + ".", "", B.md_table(header, trows), "", notes, ""]
    return text, md


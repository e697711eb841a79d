#!/usr/bin/env python3
"""vigil's memory library against valgrind's memcheck, on memcheck's own
regression test programs (make memcheck-suite; also run by make bench).

The programs come from Debian 12's valgrind source package (3.19, the
version of the valgrind binary package installed by scripts/setup.sh),
fetched through apt's source mechanism into a cache outside the
repository (nothing of valgrind's is committed): its deb-src entry has its
own sources file and lists directory, as scripts/setup.sh does for CRIU's,
so the system's apt never sees it. Every memcheck/tests/NAME.vgtest whose
program is a C file there that calls the allocator (malloc, free...) and
tells memcheck of no allocator of its own (client requests), with no
prereq, once per program and arguments, is built with -g -O0 and run
twice with the arguments of the .vgtest:
  - under memcheck (--leak-check=full --show-leak-kinds=all, XML out), the
    oracle;
  - under vigil with every memory spec of specs/lib/ at once, with
    --on-violation=continue (so one run reports every error, and each
    place that touches a freed block), --watch-policy=evict (the most
    recently freed blocks watched), --follow-fork (valgrind runs a
    forked child under memcheck too, and reports its errors) and
    --json.
The specs are used as they are.

Errors are counted by kind, one per memcheck error context (an <error> of
its XML: a loop that frees the same block 10 times is one), per program:
  double_free      memcheck: Invalid free of an address inside a freed
                   block; vigil: double_free, realloc_stale
  invalid_free     memcheck: Invalid free of any other address;
                   vigil: bad_free
  access_after_free memcheck: Invalid read or write, or a system call
                   parameter, inside a freed block; vigil:
                   use_after_free (read/write watchpoints, calls into
                   libc's string and memory functions and read/write
                   system calls, and a SIGSEGV/SIGBUS whose address is in
                   a freed block glibc unmapped: its report does not say
                   which), once per block and call stack, as memcheck
                   reports once per kind and call stack
  fishy_size       memcheck: FishyValue of an allocation function;
                   vigil: fishy_size
  overflow_write   memcheck: Invalid write (or a system call's buffer it
                   fills: read, pread64, recvfrom) past or before a heap
                   block, made in one of the C library calls
                   heap_overflow.vigil checks (memcheck's replacement of
                   it is the error's first frame); vigil: heap_overflow's
                   overflow
  overflow_read    the same for an Invalid read (write's, sendto's
                   buffer); vigil: heap_overflow's overread
  definitely_lost  memcheck: Leak_DefinitelyLost and IndirectlyLost loss
                   records; vigil: leak slices still `allocated` at the
                   end, and the definitely and indirectly lost records of
                   the leak checks the program asks for in the middle of
                   the run (VALGRIND_DO_LEAK_CHECK and the like, which
                   memcheck reports as errors as well, with --leak-check);
                   a record of n blocks of b bytes is found when vigil
                   has n such blocks (matched by size, each block once)
found = min(vigil, memcheck) per program and kind; missed = memcheck -
found; false = vigil - memcheck when above (a violation memcheck does not
report; vigil honours the client requests by which a program tells
memcheck not to report, VALGRIND_DISABLE_ERROR_REPORTING and the like,
so an access they silence is false too). A definitely lost record "48 (16 direct, 32
indirect) bytes in 1 blocks" is one block of 16 bytes (the others are
its indirectly lost records). For leaks, vigil's blocks that match no lost record of memcheck
(nor a possibly lost one: an error for both) are false leak blocks: still
reachable ones (the size of a block memcheck calls reachable) and the
rest (blocks of the C library's own, which memcheck frees at exit
through __libc_freeres). With --leak-check (the suite uses it when this
vigil has it) the leak property's verdict counts lost blocks only.

Memcheck's other kinds (uninitialised values, overflows by the program's
own loads and stores, overlapping copies...) have no vigil property: they
are counted apart.
vigil runs the program natively: glibc may abort at an error memcheck
survives (its tcache sees most double frees), and the errors after it are
then missed. Usage:
  python3 bench/memcheck_suite.py [--repo DIR] [--build build] [--jobs N]
                                  [--only a,b] [--json FILE]
(--repo: another checkout's specs and vigil, for a before/after.)
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

CACHE = os.environ.get("VIGIL_VALGRIND_CACHE", "/var/cache/vigil/valgrind")
SOURCES = "/etc/vigil/bookworm-src.sources"
LISTS = "/var/lib/vigil/apt-lists-bookworm-src"
APT = ["-o", "Dir::Etc::SourceList=" + SOURCES,
       "-o", "Dir::Etc::SourceParts=/dev/null",
       "-o", "Dir::State::Lists=" + LISTS,
       "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache="]
SPECS = ["double_free", "bad_free", "leak", "use_after_free", "realloc",
         "fishy_size", "heap_overflow"]
KINDS = ["double_free", "invalid_free", "access_after_free", "fishy_size",
         "definitely_lost", "overflow_write", "overflow_read"]
# the C library's calls heap_overflow.vigil checks: memcheck reports an
# overrun through one in the function itself (its replacement, frame 0:
# "memcpy@@GLIBC_2.14", "strcpy"), or as a system call's parameter
OVERFLOW_CALLS = {"memcpy", "memmove", "mempcpy", "strcpy", "stpcpy",
                  "strncpy", "strcat", "strncat", "snprintf", "vsnprintf",
                  "fgets", "fread", "read", "pread", "pread64", "recv",
                  "recvfrom", "memcmp", "bcmp", "write", "send", "sendto",
                  "memset"}
VIGIL_KIND = {
    ("double_free", "double_free"): "double_free",
    ("realloc_stale", "stale_free"): "double_free",
    ("realloc_stale", "stale_realloc"): "double_free",
    ("bad_free", "bad_free"): "invalid_free",
    ("bad_free", "bad_realloc"): "invalid_free",
    ("use_after_free", "use_after_free"): "access_after_free",
    ("fishy_size", "fishy"): "fishy_size",
    ("heap_overflow", "overflow"): "overflow_write",
    ("heap_overflow", "overread"): "overflow_read",
}
MC_TIMEOUT, VIGIL_TIMEOUT = 120, 180


def say(msg):
    print("memcheck-suite: " + msg, flush=True)


def fetch_sources():
    """memcheck/tests and the headers its programs include (include/,
    memcheck/memcheck.h, tests/*.h, VEX/pub/) of the valgrind source
    package, in CACHE/src; the tarball checked against the SHA256 of the
    signed Sources index."""
    src = os.path.join(CACHE, "src")
    if os.path.exists(os.path.join(src, "config.h")):
        return src
    os.makedirs(os.path.join(LISTS, "partial"), exist_ok=True)
    os.makedirs(os.path.dirname(SOURCES), exist_ok=True)
    with open(SOURCES, "w") as f:
        f.write("# Written by vigil's bench/memcheck_suite.py. Deliberately NOT in\n"
                "# sources.list.d: only used with -o Dir::Etc::SourceList=<this file>\n"
                "# to fetch valgrind's source for its memcheck test programs.\n"
                "Types: deb-src\nURIs: http://deb.debian.org/debian\n"
                "Suites: bookworm\nComponents: main\n"
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
    say("fetch Debian 12's source index (separate apt state in %s)" % LISTS)
    subprocess.run(["apt-get"] + APT + ["update"], check=True,
                   stdout=subprocess.DEVNULL)
    show = subprocess.run(["apt-cache"] + APT + ["showsrc", "valgrind"],
                          check=True, capture_output=True, text=True).stdout
    m = re.search(r"^Checksums-Sha256:\n((?: .*\n)+)", show, re.M)
    orig = [l.split() for l in m.group(1).splitlines()
            if ".orig.tar." in l] if m else []
    if not orig:
        sys.exit("memcheck-suite: no valgrind source package in bookworm")
    sha, _, name = orig[0]
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, name)

    def ok():
        if not os.path.exists(path):
            return False
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest() == sha
    if not ok():
        say("download %s into %s" % (name, CACHE))
        subprocess.run(["apt-get"] + APT + ["source", "--download-only",
                                            "valgrind"],
                       cwd=CACHE, stdout=subprocess.DEVNULL)
        if not ok():
            sys.exit("memcheck-suite: %s missing or its SHA256 differs" % name)
    os.makedirs(src, exist_ok=True)
    # configure's config.h, of which the programs use these (Linux,
    # amd64, glibc): written here rather than running configure
    with open(os.path.join(src, "config.h"), "w") as f:
        f.write("#define VGO_linux 1\n#define VGA_amd64 1\n"
                "#define VGP_amd64_linux 1\n#define HAVE_MALLINFO 1\n")
    subprocess.run(["tar", "-xf", path, "-C", src, "--strip-components=1",
                    "--wildcards", "*/memcheck/tests/*", "*/include/*",
                    "*/memcheck/memcheck.h", "*/tests/*.h",
                    "*/VEX/pub/*"], check=True)
    return src


ALLOC_CALL = re.compile(r"\b(malloc|calloc|realloc|free|memalign|"
                        r"posix_memalign|valloc)\s*\(")
# allocators of the program's own, told to memcheck by client requests:
# vigil's specs follow libc's
CUSTOM_ALLOC = re.compile(r"MALLOCLIKE|FREELIKE|MEMPOOL|RESIZEINPLACE")


def vgtests(src):
    """(name, prog, args) of the C programs with a .vgtest and no prereq
    that call the allocator, once per program and arguments"""
    tdir = os.path.join(src, "memcheck", "tests")
    out, seen = [], set()
    for f in sorted(os.listdir(tdir)):
        if not f.endswith(".vgtest"):
            continue
        keys = {}
        for line in open(os.path.join(tdir, f), errors="replace"):
            k, _, v = line.partition(":")
            keys.setdefault(k.strip(), v.strip())
        prog = keys.get("prog", "")
        if ("prereq" in keys or "stdin" in keys or "/" in prog or
                not os.path.exists(os.path.join(tdir, prog + ".c"))):
            continue
        text = open(os.path.join(tdir, prog + ".c"), errors="replace").read()
        if not ALLOC_CALL.search(text) or CUSTOM_ALLOC.search(text):
            continue
        key = (prog, keys.get("args", ""))
        if key in seen:
            continue
        seen.add(key)
        out.append((f[:-7], prog, keys.get("args", "").split()))
    return out


def build(src, prog, outdir):
    tdir = os.path.join(src, "memcheck", "tests")
    exe = os.path.join(outdir, prog)
    if os.path.exists(exe):
        return exe
    r = subprocess.run(["gcc", "-g", "-O0", "-w", "-fno-builtin",
                        "-I" + os.path.join(src, "include"),
                        "-I" + os.path.join(src, "memcheck"), "-I" + tdir,
                        "-I" + src, "-I" + os.path.join(src, "VEX", "pub"),
                        "-DVGO_linux", "-DVGA_amd64", "-DVGP_amd64_linux",
                        "-o", exe, os.path.join(tdir, prog + ".c"),
                        "-lpthread", "-lm"], capture_output=True)
    return exe if r.returncode == 0 else None


def overflow_by_call(e, kind, aux):
    """overflow_write or overflow_read for an access past (or before) a
    heap block made by a call heap_overflow.vigil checks; None for any
    other (a direct access by the program's code: no vigil property)"""
    if kind not in ("InvalidWrite", "InvalidRead", "SyscallParam") or \
            not re.search(r"bytes (after|before) a block of size [\d,]+ alloc'd",
                          aux):
        return None
    if kind == "SyscallParam":
        # "Syscall param write(buf) points to unaddressable byte(s)"
        m = re.search(r"Syscall param (\w+)\(", e.findtext("what") or "")
        call = m.group(1) if m else ""
        if call not in OVERFLOW_CALLS:
            return None
        return "overflow_write" if call in ("read", "pread64", "recvfrom") \
            else "overflow_read"
    frame = e.find("stack/frame")
    fn = (frame.findtext("fn") if frame is not None else "") or ""
    fn = re.sub(r"@.*", "", fn)
    fn = re.sub(r"^(__GI_|__|_vgr\d+ZU_[^_]*_)", "", fn)
    if fn not in OVERFLOW_CALLS:
        return None
    return "overflow_write" if kind == "InvalidWrite" else "overflow_read"


def memcheck(exe, args, tmp):
    """errors by kind (Counter), leak block sizes by class, and the other
    kinds' count"""
    # one file per process (%p): a forked child's memcheck writes its own
    # (into one shared file, the two documents interleave)
    xmlf = os.path.join(tmp, "mc-%p.xml")
    try:
        subprocess.run(["valgrind", "--tool=memcheck", "--leak-check=full",
                        "--show-leak-kinds=all", "--xml=yes",
                        "--xml-file=" + xmlf, exe] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=MC_TIMEOUT, cwd=tmp)
    except subprocess.TimeoutExpired:
        pass
    kinds, leaks, other = Counter(), defaultdict(list), Counter()
    reads = [0, 0]
    blocks = set()		# freed blocks accessed: vigil reports one each
    files = [f for f in sorted(os.listdir(tmp))
             if f.startswith("mc-") and f.endswith(".xml")]
    if not files:
        return None
    errors = []
    for f in files:
        try:
            errors += ET.parse(os.path.join(tmp, f)).getroot().iter("error")
        except ET.ParseError:
            return None
    for e in errors:
        kind = e.findtext("kind")
        aux = " ".join(a.text or "" for a in e.iter("auxwhat"))
        # "Address 0x.. is 8 bytes inside a block of size 10 free'd", not
        # "is not stack'd, malloc'd or (recently) free'd"
        freed = re.search(r"a block of size [\d,]+ free'd", aux) is not None
        if kind.startswith("Leak_"):
            x = e.find("xwhat")
            n = int(x.findtext("leakedblocks"))
            b = int(x.findtext("leakedbytes"))
            # "48 (16 direct, 32 indirect) bytes in 1 blocks": leakedbytes
            # counts the blocks it points to too; its own are the direct
            d = re.search(r"\(([\d,]+) direct, [\d,]+ indirect\)",
                          x.findtext("text") or "")
            if d:
                b = int(d.group(1).replace(",", ""))
            leaks[kind[5:]].append((n, b // n if n else 0))
        elif kind == "InvalidFree":
            kinds["double_free" if freed else "invalid_free"] += 1
        elif kind in ("InvalidWrite", "InvalidRead", "SyscallParam") and freed:
            # a system call's buffer in a freed block (read(2) into it)
            # is an access after free too, as use_after_free reports it
            kinds["access_after_free"] += 1
            reads[kind != "InvalidWrite"] += 1
            m = re.search(r"Address (0x[0-9A-Fa-f]+) is ([\d,]+) bytes inside",
                          aux)
            if m:
                blocks.add(int(m.group(1), 16) -
                           int(m.group(2).replace(",", "")))
        elif kind == "FishyValue":
            kinds["fishy_size"] += 1
        elif overflow_by_call(e, kind, aux):
            kinds[overflow_by_call(e, kind, aux)] += 1
        else:
            other[kind] += 1
    kinds["definitely_lost"] = (len(leaks["DefinitelyLost"]) +
                                len(leaks["IndirectlyLost"]))  # records
    kinds["_writes_after_free"], kinds["_reads_after_free"] = reads
    kinds["_uaf_blocks"] = len(blocks)
    return kinds, leaks, other


def vigil(repo, build_dir, exe, args, tmp):
    """violations by kind, leak slices' sizes, inconclusive count, and
    whether the program ran to its end"""
    jf = os.path.join(tmp, "v.jsonl")
    specs = [os.path.join(repo, "specs/lib/%s.vigil" % s) for s in SPECS]
    specs = [s for s in specs if os.path.exists(s)]
    cmd = [os.path.join(os.path.abspath(build_dir), "vigil"), "run", "-q",
           "--on-violation=continue", "--watch-policy=evict",
           "--follow-fork", "--json", jf] + leak_check_opt(build_dir) + specs + ["--", exe] + args
    # stderr to a file, not a pipe: a target left stopped would hold the
    # pipe open, and reading it to its end would never finish
    errf = os.path.join(tmp, "err")
    try:
        with open(errf, "w") as ef:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=ef,
                           timeout=VIGIL_TIMEOUT, cwd=tmp)
        err = open(errf, errors="replace").read()
    except subprocess.TimeoutExpired:
        err = "timeout"
    # a stop the run could not override (an old vigil, --repo): the
    # target is left stopped; end it
    for pid in re.findall(r"target pid (\d+) is left stopped", err):
        try:
            os.kill(int(pid), 9)
        except OSError:
            pass
    kinds, sizes, unsure = Counter(), [], 0
    if not os.path.exists(jf):
        return None
    for line in open(jf):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("type") == "leaks" and o.get("request"):
            # a check the program asked for (VALGRIND_DO_LEAK_CHECK and
            # the like): memcheck reports its records as errors too, so
            # its lost records count as the leak verdicts at the end do,
            # a block per block of the record, of its own (direct) size
            for r in o["records"]:
                n = r["blocks"]
                if r["kind"] in ("definite", "indirect") and n:
                    sizes += [r["bytes"] // n] * n
        elif o.get("type") == "leaks":	# --leak-check: blocks by class
            for r in o["records"]:	# sizes as memcheck's XML has them
                n, b = r["blocks"], r["bytes"] + r["indirect_bytes"]
                kinds[("_class", r["kind"], b // n if n else 0)] += n
        if o.get("type") != "verdict":
            continue
        if o["verdict"] == "violation":
            k = VIGIL_KIND.get((o["property"], o["state"]))
            kinds[k or "other"] += 1
        elif o["verdict"] == "inconclusive":
            unsure += 1
        elif o["property"] == "leak" and o["verdict"] == "nonaccepting":
            sizes.append(int(o.get("vars", {}).get("size", -1)))
    m = re.search(r"target (exited with status -?\d+|killed by signal \d+ \([^)]*\)|pid \d+ is left stopped)", err)
    return kinds, sizes, unsure, m.group(1) if m else err.strip()[-80:]


def leak_check_opt(build_dir, seen={}):
    """--leak-check, when this vigil has it (not a --repo from before)"""
    if build_dir not in seen:
        h = subprocess.run([os.path.join(os.path.abspath(build_dir), "vigil"),
                            "run", "--help"], capture_output=True, text=True)
        seen[build_dir] = ["--leak-check"] if "--leak-check" in h.stdout else []
    return seen[build_dir]


MC_CLASS = {"DefinitelyLost": "definite", "IndirectlyLost": "indirect",
            "PossiblyLost": "possible", "StillReachable": "reachable"}


def match_classes(vk, mleaks, tot):
    """--leak-check's classes against memcheck's, in blocks: memcheck's
    blocks of each class, those vigil gives the same class (matched by
    size, each block once), and vigil's blocks of the class"""
    have = Counter({(k[1], k[2]): n for k, n in vk.items()
                    if isinstance(k, tuple) and k[0] == "_class"})
    for mk, cls in MC_CLASS.items():
        for n, size in mleaks[mk]:
            tot[cls]["memcheck"] += n
            same = min(n, have[(cls, size)])
            have[(cls, size)] -= same
            tot[cls]["same"] += same
    for k, n in vk.items():
        if isinstance(k, tuple) and k[0] == "_class":
            tot[k[1]]["vigil"] += n


def match_leaks(vsizes, mleaks):
    """memcheck's lost loss records (definitely, indirectly) found by
    vigil: a record of n blocks of b bytes is found when vigil reports n
    leaked blocks of that size (blocks matched once). vigil's blocks left
    over: those of the size of a block memcheck calls possibly lost are
    errors for both (memcheck's --errors-for-leak-kinds default is
    definite,possible), not false; the others are false leak blocks:
    those of the size of a block memcheck calls still reachable, and the
    rest (not in memcheck's heap at exit: the C library's own)."""
    have = Counter(s for s in vsizes if s >= 0)
    unsized = sum(1 for s in vsizes if s < 0)	# a leak spec without `size`
    found = 0
    left = []
    for n, size in sorted(mleaks["DefinitelyLost"] + mleaks["IndirectlyLost"]):
        if have[size] >= n:
            have[size] -= n
            found += 1
        else:
            left.append(n)
    for n in sorted(left):	# blocks of unknown size match by count only
        if unsized >= n:
            unsized -= n
            found += 1
    reach, libc = 0, unsized
    kept, possible = Counter(), Counter()
    for n, size in mleaks["PossiblyLost"]:
        possible[size] += n
    for n, size in mleaks["Reachable"]:
        kept[size] += n
    for size, n in have.items():
        n -= min(n, possible[size])
        r = min(n, kept[size])
        reach += r
        libc += n - r
    return found, reach, libc


def one(repo, build_dir, src, outdir, test):
    name, prog, args = test
    exe = build(src, prog, outdir)
    if not exe:
        return name, None
    with tempfile.TemporaryDirectory(prefix="vigil-mcs-") as tmp:
        mc = memcheck(exe, args, tmp)
    with tempfile.TemporaryDirectory(prefix="vigil-mcs-") as tmp:
        vg = vigil(repo, build_dir, exe, args, tmp)
    return name, (mc, vg)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="the checkout whose specs/lib is run")
    ap.add_argument("--build", default="build",
                    help="its build directory (relative: to --repo)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", help="comma-separated .vgtest names")
    ap.add_argument("--json", help="per-program results, as JSON")
    a = ap.parse_args()
    src = fetch_sources()
    tests = vgtests(src)
    if a.only:
        want = set(a.only.split(","))
        tests = [t for t in tests if t[0] in want]
    outdir = os.path.join(CACHE, "bin")
    os.makedirs(outdir, exist_ok=True)
    say("%d programs of memcheck/tests (valgrind %s)" %
        (len(tests), subprocess.run(["valgrind", "--version"],
                                    capture_output=True,
                                    text=True).stdout.strip()))
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda t: one(a.repo, os.path.join(
            a.repo, a.build), src, outdir, t), tests))

    tot = {k: Counter() for k in KINDS}
    classes = {k: Counter() for k in MC_CLASS.values()}
    other_mc = Counter()
    per = []
    nobuild, noresult, ran = [], [], 0
    false_reach = false_libc = unsure = 0
    mc_rw = [0, 0]
    uaf_blocks = [0, 0]	# memcheck's freed blocks accessed, vigil's found
    for name, res in results:
        if res is None:
            nobuild.append(name)
            continue
        mc, vg = res
        if mc is None or vg is None:
            noresult.append(name)
            continue
        ran += 1
        (mk, mleaks, mother), (vk, vsizes, vunsure, end) = mc, vg
        rc = {k: Counter() for k in classes}
        match_classes(vk, mleaks, rc)
        for k in classes:
            classes[k].update(rc[k])
        other_mc += mother
        mc_rw[0] += mk["_writes_after_free"]
        mc_rw[1] += mk["_reads_after_free"]
        uaf_blocks[0] += mk["_uaf_blocks"]
        uaf_blocks[1] += min(mk["_uaf_blocks"], vk["access_after_free"])
        unsure += vunsure
        row = {"test": name, "end": end, "inconclusive": vunsure,
               "leak_classes": rc}
        for k in KINDS:
            m = mk[k]
            if k == "definitely_lost":
                v, reach, libc = match_leaks(vsizes, mleaks)
                false_reach += reach
                false_libc += libc
                row["false_leak_reachable"] = reach
                row["false_leak_other"] = libc
            else:
                v = vk[k]
            f = min(v, m)
            tot[k]["memcheck"] += m
            tot[k]["found"] += f
            tot[k]["missed"] += m - f
            excess = max(0, v - m) if k != "definitely_lost" else 0
            tot[k]["false"] += excess
            row[k] = {"memcheck": m, "vigil": v}
        per.append(row)
        if any(row[k]["memcheck"] or row[k]["vigil"] for k in KINDS):
            say("%-22s %s  | %s" % (name, " ".join(
                "%s=%d/%d" % (k, row[k]["vigil"], row[k]["memcheck"])
                for k in KINDS if row[k]["memcheck"] or row[k]["vigil"]),
                end))

    print()
    print("memcheck's test programs: %d run, %d did not build, %d without a result (%s)"
          % (ran, len(nobuild), len(noresult), ",".join(noresult) or "-"))
    print("%-18s %9s %6s %7s %7s" % ("kind", "memcheck", "found", "missed",
                                     "false"))
    sm = sf = 0
    for k in KINDS:
        t = tot[k]
        sm += t["memcheck"]
        sf += t["found"]
        print("%-18s %9d %6d %7d %7s" % (k, t["memcheck"], t["found"],
                                         t["missed"],
                                         "-" if k == "definitely_lost"
                                         else t["false"]))
    print("%-18s %9d %6d %7d %7d" % ("all", sm, sf, sm - sf,
                                     sum(tot[k]["false"] for k in KINDS)))
    print("found: %.0f%%; false leak blocks: %d still reachable, %d not in "
          "memcheck's heap at exit (the C library's own); %d slices "
          "inconclusive" % (100.0 * sf / sm if sm else 0, false_reach,
                            false_libc, unsure))
    print("memcheck's accesses after free: %d writes, %d reads (system "
          "call buffers included), to %d freed blocks; vigil (one "
          "violation per block and call stack) found %d of the blocks"
          % (mc_rw[0], mc_rw[1], uaf_blocks[0], uaf_blocks[1]))
    if any(c["vigil"] for c in classes.values()):
        print("leak classes (--leak-check), in blocks: %-10s %9s %5s %6s"
              % ("class", "memcheck", "same", "vigil"))
        for k, c in classes.items():
            print("%40s %-10s %9d %5d %6d" % ("", k, c["memcheck"],
                                              c["same"], c["vigil"]))
    print("memcheck's other kinds (no vigil property): " +
          (", ".join("%s=%d" % kv for kv in sorted(other_mc.items())) or "-"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"tests": per, "totals": tot, "leak_classes": classes},
                      f, indent=1)


if __name__ == "__main__":
    main()

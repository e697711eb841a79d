# use_after_free where the program dies of the access natively: glibc
# unmaps a 1 MiB block at free, and tests/targets/uafbig.c then reads
# byte 5000 of it (--write: stores to byte 7000), far past the 32 bytes
# debug registers watch. The SIGSEGV's address lies in the freed block
# (bpf/vigil/lifecycle.bpf.c reads it from the signal's siginfo as it is
# delivered), so vigil reports the access after free, read or write, at
# the faulting instruction with its function, line and caller, and the
# program dies of the signal as it would without vigil. A SIGSEGV at an
# address that is no freed block's (--clean) is no violation.
. "$(dirname "$0")/lib.sh"

UAF=specs/lib/use_after_free.vigil
run_vigil run --on-violation=continue --json "$TMP/v.jsonl" $UAF -- "$TARGETS/uafbig"
expect_rc 1
expect_out "^uafbig: freeing$"
expect_out "target killed by signal 11"
[ "$(grep -c 'state  freed -> use_after_free (violation)' "$TMP/out")" -eq 1 ] || fail "not one access after free"
expect_out "fault  SIGSEGV, a read, at pc 0x[0-9a-f]+: read_late\+0x[0-9a-f]+ \(.*uafbig.c:18\) < main\+0x[0-9a-f]+ \(.*uafbig.c:44\)"
python3 - "$TMP/out" "$TMP/v.jsonl" <<'PY' || fail "the violation is not at byte 5000 of the freed block, or JSON lacks the fault"
import json, re, sys
text = open(sys.argv[1], errors="replace").read()
p, a = re.search(r"slice  p=(0x[0-9a-f]+).*?\n.*?event  access .*? at (0x[0-9a-f]+) in tid",
                 text, re.S).groups()
assert int(a, 16) - int(p, 16) == 5000, (p, a)
v = [json.loads(l) for l in open(sys.argv[2])]
v = [o for o in v if o.get("type") == "verdict" and o["verdict"] == "violation"]
assert len(v) == 1 and "read_late" in v[0]["fault"], v
PY

run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafbig" --write
expect_rc 1
expect_out "fault  SIGSEGV, a write, at pc 0x[0-9a-f]+: write_late\+0x[0-9a-f]+ \(.*uafbig.c:24\) < main"
[ "$(grep -c 'state  freed -> use_after_free (violation)' "$TMP/out")" -eq 1 ] || fail "not one write after free"

# the spec's own stop: the program cannot be held at a fatal signal; it
# is reported, and vigil says the stop could not be made (the process is
# exiting, or gone already when vigil reads the record)
run_vigil run $UAF -- "$TARGETS/uafbig"
expect_rc 1
expect_out "fault  SIGSEGV, a read"
expect_out "could not be stopped: it is exiting|stopping pid [0-9]+: No such process"
expect_no_out "is stopped at this event"
expect_out "target killed by signal 11"

run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafbig" --clean
expect_out "^uafbig: live 7$"
expect_out "target killed by signal 11"
expect_no_out "VIOLATION"
echo ok

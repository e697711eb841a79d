# valgrind's client requests that tell a memory checker not to report,
# honoured by use_after_free (user/watchset/errquiet.c, watchset_quiet.c),
# on tests/targets/creq_quiet.c, which uses valgrind.h's and memcheck.h's
# own macros: VALGRIND_DISABLE/ENABLE_ERROR_REPORTING per thread and
# nested (a new thread reports), VALGRIND_DISABLE/ENABLE_ADDR_ERROR_
# REPORTING_IN_RANGE for debug-register hits and for a memcpy past them
# (reported at its first byte out of the range), VALGRIND_MAKE_MEM_DEFINED
# on a freed block until it is freed again. The accesses the target marks
# `quiet` (memcheck reports none of them) must not be reported; the six
# `loud` ones must, in order. Without the requests honoured: 11 errors.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/creq_quiet"
if ! has_debug_regs; then
	# of the six loud accesses only c's memcpy, a call, is seen (at its
	# first byte out of the ignored range); the five plain loads and
	# stores are not
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$T"
	expect_rc 1
	expect_blind
	expect_out "^creq_quiet: .* reused=1 on valgrind: 0$"
	expect_out "ERROR SUMMARY: 1 error: use_after_free.use_after_free=1;"
	c=$(sed -nE 's/.* c=(0x[0-9a-f]+) .*/\1/p' "$TMP/out")
	at=$(sed -nE 's/^  event  access .* at (0x[0-9a-f]+) in tid .*/\1/p' "$TMP/out")
	[ $((at - c)) -eq 56 ] || fail "not c's memcpy at byte 56: c=$c at=$at"
	skip debug_regs "$WHY"
fi
if ! has_sound_debug_regs; then
	# hits reported again would be counted as more accesses: vigil says
	# so, and every slice a hit moved ends as maybe not real
	run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$T"
	expect_rc 1
	expect_stale
	expect_out "the violation may not be real"
	skip sound_debug_regs "$WHY"
fi
run_vigil run --on-violation=continue specs/lib/use_after_free.vigil -- "$T"
expect_rc 1
# RUNNING_ON_VALGRIND stays 0; glibc hands d out again as e
expect_out "^creq_quiet: a=0x[0-9a-f]+ b=0x[0-9a-f]+ c=0x[0-9a-f]+ d=0x[0-9a-f]+ reused=1 on valgrind: 0$"
expect_out "ERROR SUMMARY: 6 errors: use_after_free.use_after_free=6"
expect_out "vigil: 6 accesses to freed blocks not reported: the program asked"
python3 - "$TMP/out" <<'PY' || fail "the wrong accesses reported"
import re, sys
out = open(sys.argv[1]).read()
p = {k: int(v, 16) for k, v in re.findall(r"\b([abcd])=(0x[0-9a-f]+)", out)}
# each violation: its block, the byte (or a register's piece) it names,
# whether the main thread made it
got = []
for slice_p, at, tid in re.findall(
        r"^  slice  p=(0x[0-9a-f]+)\n.*\n  event  access .* at (0x[0-9a-f]+) in tid (\d+)$",
        out, re.M):
    name = [k for k in "abcd" if p[k] == int(slice_p, 16)][0]
    got.append((name, int(at, 16) - int(slice_p, 16), int(tid)))
main = got[0][2] if got else 0	# the first is main's
got = [(n, off, tid == main) for n, off, tid in got]
# a: the first touch, the child's, the one after the last ENABLE;
# b: byte 20 (its piece from 16), once 16..24 is no more ignored;
# c: the memcpy from 54, at 56, past the range; d (b's address again):
# byte 6 (its piece from 0) after the free of e
want = [("a", 0, True), ("a", 0, False), ("a", 0, True), ("b", 16, True),
        ("c", 56, True), ("b", 0, True)]
assert got == want, got
PY
echo ok

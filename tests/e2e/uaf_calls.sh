# use_after_free beyond the debug registers: calls into libc's memory and
# string functions and system calls whose buffers fall inside a freed
# block are accesses, anywhere in the block (user/watchset/callacc.c):
# tests/targets/uafcalls.c frees three 200-byte blocks and reads byte
# 100 of one with memcpy, 40 of another with write(2), 150 of the third
# with strlen. A clean run is quiet, and its freed blocks, covered in part
# only (direct accesses past byte 32 are not seen), end inconclusive,
# never accepting.
. "$(dirname "$0")/lib.sh"

UAF=specs/lib/use_after_free.vigil
if ! has_sound_debug_regs; then
	# free's own writes into the blocks, reported again later, would be
	# taken for accesses after free: vigil says so, and each violation
	# says it may not be real
	run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafcalls"
	expect_rc 1
	expect_out "^uafcalls: live 49$"
	expect_stale
	expect_out "the violation may not be real"
	skip sound_debug_regs "$WHY"
fi
run_vigil run --on-violation=continue --json "$TMP/v.jsonl" $UAF -- "$TARGETS/uafcalls"
expect_rc 1
expect_out "^uafcalls: live 49$"		# the program ran as it would
n=$(grep -c 'state  freed -> use_after_free (violation)' "$TMP/out")
[ "$n" -eq 3 ] || fail "$n accesses after free through calls, not 3"
python3 - "$TMP/out" <<'PY' || fail "not one violation per block, at the bytes the calls touched"
import re, sys
text = open(sys.argv[1], errors="replace").read()
# each report: "slice  p=0xBLOCK ... event  access ... at 0xADDR in tid"
offs = sorted(int(a, 16) - int(p, 16) for p, a in re.findall(
    r"slice  p=(0x[0-9a-f]+).*?\n.*?event  access .*? at (0x[0-9a-f]+) in tid",
    text, re.S))
assert offs == [40, 100, 150], offs
PY

run_vigil run --on-violation=continue $UAF -- "$TARGETS/uafcalls" --clean
expect_rc 0
expect_out "^uafcalls: live 4$"
expect_no_out "VIOLATION"
# six freed 200-byte blocks at the end: watched by calls whole, by
# registers in part, so never accepting
[ "$(grep -cE 'use_after_free: slice p=0x[0-9a-f]+.* ends inconclusive in state freed' "$TMP/out")" -eq 6 ] || fail "the freed blocks do not end inconclusive"
expect_no_out "ends accepting"
echo ok

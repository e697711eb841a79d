# The final report names each verdict's pointer by the live block that
# holds it, from the object map of the tier that followed the heap: the
# in-process agent's, or the kernel tier's (--no-fast). The program is
# gone by then: the first names are looked up, and past 2,048 of them
# the names come from a copy of the map's live blocks
# (user/probe/block_names.c), not from a lookup each: allocs --many has
# 3,000 verdicts, 1,000 of them blocks still live.
# leak_classes leaks seven blocks of seven sizes, 16 to 64 bytes; bad_free
# has the allocations filed (its freeable(p) asks the map).
. "$(dirname "$0")/lib.sh"

for OPTS in "" --no-fast; do
	run_vigil run $OPTS --json "$TMP/v.json" specs/lib/leak.vigil \
		specs/lib/bad_free.vigil -- "$TARGETS/leak_classes"
	expect_rc 1
	n=$(grep -cE '^vigil: leak: slice p=0x[0-9a-f]+ ends nonaccepting in state allocated$' "$TMP/out")
	[ "$n" = 0 ] || fail "${OPTS:-in-process}: $n leaked blocks not named"
	for size in 16 24 32 40 48 56 64; do
		expect_out "^vigil: leak: slice p=0x[0-9a-f]+ \(block of $size bytes from malloc, \+0\) ends nonaccepting in state allocated$"
		grep -q "\"names\":{\"p\":\"block of $size bytes from malloc, +0\"},\"state\":\"allocated\",\"verdict\":\"nonaccepting\",\"at\":\"exit\"" "$TMP/v.json" ||
			fail "${OPTS:-in-process}: the JSON verdict of the $size-byte block is not named"
	done
	run_vigil run $OPTS --json "$TMP/m.json" specs/lib/leak.vigil \
		specs/lib/bad_free.vigil -- \
		"$TARGETS/allocs" --many
	expect_rc 1
	[ "$(grep -c '"type":"verdict","property":"leak"' "$TMP/m.json")" = 3000 ] ||
		fail "${OPTS:-in-process}: not 3000 leak verdicts"
	# every one of the 1,000 blocks left live is named, in the JSON (some
	# of them past the 2,048th name: from the copy) and in the text (its
	# first 20)
	[ "$(grep -cE '"names":\{"p":"block of [0-9]+ bytes from malloc, \+0"\},"state":"allocated","verdict":"nonaccepting","at":"exit"' "$TMP/m.json")" = 1000 ] ||
		fail "${OPTS:-in-process}: not every block left live is named in the JSON"
	[ "$(grep -cE '^vigil: leak: slice p=0x[0-9a-f]+ \(block of [0-9]+ bytes from malloc, \+0\) ends nonaccepting in state allocated$' "$TMP/out")" = 20 ] ||
		fail "${OPTS:-in-process}: the text's 20 blocks left live are not all named"
	# a freed block is no live block: named by nothing (allocs frees
	# its 1,000 blocks)
	run_vigil run $OPTS --json "$TMP/f.json" specs/lib/bad_free.vigil \
		specs/lib/double_free.vigil -- "$TARGETS/allocs"
	expect_rc 0
	[ "$(grep '"property":"double_free"' "$TMP/f.json" | grep -c '"state":"freed"')" = 1000 ] ||
		fail "${OPTS:-in-process}: not 1000 double_free verdicts of freed blocks"
	grep '"property":"double_free"' "$TMP/f.json" | grep -q '"names"' &&
		fail "${OPTS:-in-process}: a freed block named at exit"
done
echo PASS

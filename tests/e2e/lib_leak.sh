# specs/lib/leak.vigil: a clean target ends with every block freed; a leaky
# one has exactly its 6 unfreed blocks reported nonaccepting at exit, each
# with the allocation's evidence (--stacks: realloc called from main, the
# block first made in make_record; posix_memalign, bound through its
# out-pointer).
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/leak.vigil -- "$TARGETS/leaky"
expect_rc 0
expect_out "leaky: done"
expect_no_out "nonaccepting|VIOLATION|inconclusive"

run_vigil run --stacks specs/lib/leak.vigil -- "$TARGETS/leaky" --leak
expect_rc 0
expect_out "leaky: done"
n=$(grep -cE "leak: slice p=0x[0-9a-f]+ ends nonaccepting in state allocated" "$TMP/out")
[ "$n" = 6 ] || fail "$n blocks reported leaked, expected 6"
expect_out "after posix_memalign\(0x[0-9a-f]+, 64, 100\) returned 0 with p=0x[0-9a-f]+  free -> allocated"
expect_out "after realloc\(0x[0-9a-f]+, 20[13579]\) returned 0x[0-9a-f]+  free -> allocated"
expect_out "^ +at main\+0x[0-9a-f]+ \(.*tests/targets/leaky.c:[0-9]+\)"
# each leaked block's own report shows its allocation stack: the malloc
# step, then make_record (leaky.c:14), then main
n=$(awk '/ends nonaccepting/ { blk = 1; found = 0; l1 = l2 = ""; next }
	/^vigil:/ { blk = 0 }
	blk && !found && l2 ~ /after malloc\([0-9]+\) returned/ &&
	    l1 ~ /^ +at make_record\+0x[0-9a-f]+ \(.*tests\/targets\/leaky.c:14\)$/ &&
	    $0 ~ /^ +main\+0x[0-9a-f]+ \(.*tests\/targets\/leaky.c:[0-9]+\)$/ { found = 1; n++ }
	{ l2 = l1; l1 = $0 }
	END { print n + 0 }' "$TMP/out")
[ "$n" = 5 ] || fail "$n of the 5 leaked blocks show their allocation stack (make_record, main)"

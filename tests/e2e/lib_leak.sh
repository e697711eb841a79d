# specs/lib/leak.vigil: a clean target ends with every block freed (and
# libc's own blocks, stdout's buffer and TLS, are left out); a leaky
# one has exactly its 6 unfreed blocks reported nonaccepting at exit, each
# with the allocation's evidence (--stacks: realloc called from main, the
# block first made in make_record; posix_memalign, bound through its
# out-pointer).
. "$(dirname "$0")/lib.sh"

run_vigil run specs/lib/leak.vigil -- "$TARGETS/leaky"
expect_rc 0
expect_out "leaky: done"
expect_no_out "nonaccepting|VIOLATION|inconclusive"

# the blocks libc allocates for itself (stdout's buffer, a thread's TLS)
# are not the program's leaks
run_vigil run specs/lib/leak.vigil -- "$TARGETS/leaky" --libc
expect_rc 0
expect_out "leaky: with libc's own blocks"
expect_out "before:_IO_file_doallocate=1 .*before:_dl_allocate_tls=1 "
expect_no_out "nonaccepting|VIOLATION|inconclusive"

run_vigil run --stacks specs/lib/leak.vigil -- "$TARGETS/leaky" --leak
expect_rc 1
expect_out "leaky: done"
n=$(grep -cE "leak: slice p=0x[0-9a-f]+ ends nonaccepting in state allocated" "$TMP/out")
[ "$n" = 6 ] || fail "$n blocks reported leaked, expected 6"
expect_out "after posix_memalign\(0x[0-9a-f]+, 64, 100\) returned 0 with p=0x[0-9a-f]+  free -> allocated"
expect_out "after realloc\(0x[0-9a-f]+, 20[13579]\) returned 0x[0-9a-f]+  free -> allocated"
expect_out "^ +at main\+0x[0-9a-f]+ \(.*tests/targets/leaky.c:[0-9]+\)"
# each leaked block's own report shows its allocation stack: the malloc
# step, then make_record (at the line after its malloc: where the call
# returns), then main
line=$(grep -n "memset(r, 'x'" tests/targets/leaky.c | cut -d: -f1)
n=$(awk -v line="$line" '/ends nonaccepting/ { blk = 1; found = 0; l1 = l2 = ""; next }
	/^vigil:/ { blk = 0 }
	blk && !found && l2 ~ /after malloc\([0-9]+\) returned/ &&
	    l1 ~ "^ +at make_record\\+0x[0-9a-f]+ \\(.*tests/targets/leaky.c:" line "\\)$" &&
	    $0 ~ /^ +main\+0x[0-9a-f]+ \(.*tests\/targets\/leaky.c:[0-9]+\)$/ { found = 1; n++ }
	{ l2 = l1; l1 = $0 }
	END { print n + 0 }' "$TMP/out")
[ "$n" = 5 ] || fail "$n of the 5 leaked blocks show their allocation stack (make_record, main)"

# specs/lib/zlib.vigil on tests/targets/zstreams.c (linked with -lz):
# quiet on the clean run, with exact per-probe counts (deflateInit_ calls
# deflateInit2_ and inflateInit_ inflateInit2_: the nested calls are
# counted, and set nothing up twice); each bug found: a deflate stream
# left set up at exit (nonaccepting), and, stopped at the call in the
# kernel tier, a second init without End (also inflateInit_'s, patched in
# by the spec's `fast` line, and with --no-fast, whose probe sits on its
# tail jmp), a second inflateEnd, deflate after deflateEnd,
# inflateEnd on a deflate stream.
. "$(dirname "$0")/lib.sh"

unset VIGIL_FAST	# the default (the spec's `fast` line): checked below

streams() {	# sets DZ and IZ, the z_streams' addresses the target printed
	DZ=$(sed -nE 's/^zstreams: deflate stream at (0x[0-9a-f]+), .*/\1/p' "$TMP/out")
	IZ=$(sed -nE 's/^zstreams: .*, inflate stream at (0x[0-9a-f]+)$/\1/p' "$TMP/out")
	[ -n "$DZ" ] && [ -n "$IZ" ] || fail "the target did not print its streams"
}

run_vigil run specs/lib/zlib.vigil -- "$TARGETS/zstreams"
expect_rc 0
expect_out "zstream: kernel tier"
expect_out "zstreams: done, 10 rounds"
expect_no_out "VIOLATION|nonaccepting|inconclusive"
for c in after:deflateInit_=5 before:deflateInit_=5 after:deflateInit2_=10 before:deflateInit2_=10 \
	 after:inflateInit_=5 before:inflateInit_=5 after:inflateInit2_=10 before:inflateInit2_=10 \
	 before:deflate=10 before:inflate=10 before:deflateEnd=10 before:inflateEnd=10; do
	expect_out "^vigil: stats: .* $c( |$)"
done
expect_out "zstream: live slices by state: unseen=0 deflating=0 inflating=0 ended=2 "

run_vigil run specs/lib/zlib.vigil -- "$TARGETS/zstreams" --leak
expect_rc 1
expect_out "zstreams: done"
streams
expect_out "^vigil: zstream: slice s=$DZ ends nonaccepting in state deflating$"
expect_out "zstream: live slices by state: unseen=0 deflating=1 inflating=0 ended=1 "
expect_no_out "VIOLATION"

check_stop() {	# $1 flag, $2 transition, $3 function, $4 the stream: DZ or IZ
	# ($5: vigil's options: the spec's `fast` line patches them by default)
	run_vigil run ${5:-} specs/lib/zlib.vigil -- "$TARGETS/zstreams" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_no_out "zstreams: done"
	streams
	s=${!4}
	expect_out "^  slice  s=$s$"
	expect_out "^  state  $2 \(violation\)$"
	expect_out "^  event  before $3\($s\) in tid $pid$"
	[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	gdb_handoff "-ex bt"
	# the function itself, not its callee (a probe on inflateInit_'s
	# tail jmp stops at the jmp's target; the gdb file puts it back)
	expect_frame 0 "[ _]$3 \\(" "$1: not stopped in $3"
	kill -KILL "$pid"
}
check_stop --reinit "deflating -> init_without_end" deflateInit_ DZ
check_stop --double-end "ended -> double_end" inflateEnd IZ
check_stop --use-after-end "ended -> use_after_end" deflate DZ
check_stop --wrong-end "deflating -> mismatch" inflateEnd DZ
check_stop --reinit-inflate "inflating -> init_without_end" inflateInit_ IZ
expect_out "stopped at the call of inflateInit_, before its first instruction \(the in-process tier"
check_stop --reinit-inflate "inflating -> init_without_end" inflateInit_ IZ --no-fast
expect_out "stopped at inflateInit_'s jmp \(a tail call\)"
echo ok

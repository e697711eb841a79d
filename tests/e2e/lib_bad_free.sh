# specs/lib/bad_free.vigil on tests/targets/badfree.c: quiet on the clean
# run (blocks from malloc, calloc, strdup, aligned_alloc, realloc growing
# and realloc(NULL, n), posix_memalign (bound through its out-pointer),
# valloc and pvalloc, each freed once; free(NULL); an address calloc
# hands out again), with exact per-probe counts, and so is
# specs/lib/double_free.vigil; each bad pointer found at the call, in the
# kernel tier (in-process, on the agent's object map), before glibc
# aborts on it: an interior pointer, a local array and a global given to
# free, a pointer into a freed block, an interior pointer given to
# realloc, each report naming the object the pointer is in (freeable(p)
# is false for the stack: vigil run saw every allocation); the same in
# the kernel tier in the BPF probes (--no-fast, their own object map),
# stopped at the uprobe, and in the user tier (--no-fast --tier=user),
# held at the uprobe until vigil has answered. A block freed twice is
# double_free's, not bad_free's (freed(p)).
. "$(dirname "$0")/lib.sh"

# (with double_free.vigil: the address calloc hands out again, freed
# again, is no double free)
run_vigil run specs/lib/bad_free.vigil specs/lib/double_free.vigil -- "$TARGETS/badfree"
expect_rc 0
expect_out "bad_free: kernel tier"
expect_out "badfree: done, 77 frees, calloc reused a freed block: yes"
expect_no_out "VIOLATION|nonaccepting|inconclusive"
# 16 malloc, 16 strdup, realloc(NULL, 40) (glibc's realloc passes it on to
# malloc) and 8 more; 16 calloc and 1 more; 16 aligned_alloc (glibc's
# memalign); 8 growing reallocs and realloc(NULL, 40); one each of
# posix_memalign, valloc and pvalloc, which call no probed function
for c in after:malloc=41 after:calloc=17 after:realloc=9 after:memalign=16 \
	 after:posix_memalign=1 after:valloc=1 after:pvalloc=1 \
	 before:free=77 before:realloc=9; do
	expect_out "^vigil: stats: .* $c( |$)"
done

check_stop() {	# $1 flag, $2 violation state, $3 function at frame 0, $4 at frame 1; $OPTS: vigil's options
	run_vigil run $OPTS specs/lib/bad_free.vigil -- "$TARGETS/badfree" "$1"
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "$TIER"
	expect_out "VIOLATION of bad_free"
	expect_out "state  ok -> $2 \(violation\)"
	expect_no_out "badfree: done|inconclusive"
	[ "$(proc_state "$pid")" = T ] || fail "$1: target not stopped"
	gdb_handoff "-ex bt"
	expect_frame 0 "$3" "$1: not stopped in $3"
	[ -z "$4" ] || expect_frame 1 "$4" "$1: $4 is not the caller"
	kill -KILL "$pid"
}
for OPTS in "" --no-fast "--no-fast --tier=user"; do
	case "$OPTS" in
	"") TIER="bad_free: kernel tier \(in-process" ;;
	--no-fast) TIER="bad_free: kernel tier \(in the BPF probes" ;;
	*) TIER="bad_free: user tier because" ;;
	esac
	# blocks[5]: calloc(4, 13), freed 16 bytes in
	check_stop --interior bad_free free release
	expect_out "slice  p=0x[0-9a-f]+ \(block of 52 bytes from calloc, \+16\)"
	expect_out "vars   at=0x[0-9a-f]+ \(block of 52 bytes from calloc, \+16\)"
	# the slice is the address of a local: a stack address, near the top,
	# in no object
	check_stop --stack bad_free free release
	expect_out "event  before free\(0x7ff[0-9a-f]+\) in tid [0-9]+"
	check_stop --global bad_free free release
	expect_out "slice  p=0x[0-9a-f]+ \(global table\[64\]\)"
	# 16 bytes into a block freed already: no double free (that is a
	# freed block's start), a bad one
	check_stop --freed-interior bad_free free release
	# (realloc has a return probe too: its return address on the stack is
	# the kernel's uretprobe trampoline's until vigil, leaving, puts the
	# real one back, so gdb sees main as its caller); blocks[6]: strdup's
	# 17 bytes (its malloc's), realloc'ed 8 bytes in
	check_stop --realloc bad_realloc realloc main
	expect_out "event  before realloc\(0x[0-9a-f]+8 \(block of 17 bytes from malloc, \+8\)(, [0-9]+)?\) in tid [0-9]+"
done

# a block freed twice: double_free.vigil's violation, not bad_free's (the
# second free of a freed block's start, freed(p))
for OPTS in "" --no-fast "--no-fast --tier=user"; do
	run_vigil run $OPTS specs/lib/bad_free.vigil specs/lib/double_free.vigil -- "$TARGETS/badfree" --double-aligned
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "VIOLATION of double_free"
	expect_no_out "VIOLATION of bad_free|inconclusive"
	kill -KILL "$pid"
done

# double_free.vigil knows posix_memalign's block from its out-pointer
run_vigil run specs/lib/double_free.vigil -- "$TARGETS/badfree" --double-aligned
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "VIOLATION of double_free"
expect_out "state  freed -> double_free \(violation\)"
expect_out "after posix_memalign\(0x[0-9a-f]+\) returned 0 with p=0x[0-9a-f]+  init -> live"
expect_no_out "badfree: done"
[ "$(proc_state "$pid")" = T ] || fail "--double-aligned: target not stopped"
kill -KILL "$pid"
echo ok

# The command line itself: --version, --help of vigil and of every command
# (each with examples, `vigil help CMD` the same), a long form for every
# option, and the exit statuses of the man page: 0 no error, 1 an error
# (a violation, or a slice ending non-accepting), 2 bad usage or a bad
# spec, 3 a runtime failure.
. "$(dirname "$0")/lib.sh"

run_vigil --version
expect_rc 0
expect_out "^vigil 0\.1\.0$"
expect_out "^built with libbpf [0-9]+\.[0-9]+; running with libbpf [0-9]+\.[0-9]+"
run_vigil -V
expect_rc 0
expect_out "^vigil 0\.1\.0$"

run_vigil --help
expect_rc 0
for cmd in run attach check graph lint checkpoint restore; do
	expect_out "^  $cmd "
done
expect_out "^examples:$"
expect_out "^exit status: 0 no error, 1 an error was found \(a violation, or a slice$"

for cmd in run attach check graph lint restore checkpoint; do
	run_vigil "$cmd" --help
	expect_rc 0
	expect_out "^usage: vigil $cmd "
	expect_out "^examples:$"
	expect_out "^  vigil $cmd "
	expect_out "^  -h, --help "
	# every option has a long form: a short one is always "-x, --long"
	grep -E '^  -[A-Za-z]' "$TMP/out" | grep -vE '^  -[A-Za-z], --[a-z-]+ ' &&
		fail "vigil $cmd --help: a short option without its long form"
	cp "$TMP/out" "$TMP/help"
	run_vigil help "$cmd"
	expect_rc 0
	cmp -s "$TMP/out" "$TMP/help" || fail "vigil help $cmd differs from vigil $cmd --help"
	run_vigil "$cmd" -h
	cmp -s "$TMP/out" "$TMP/help" || fail "vigil $cmd -h differs from vigil $cmd --help"
done

# the examples of the offline commands run as they are, from the top of
# the tree
run_vigil lint specs/queue_bounds.vigil
expect_rc 0
run_vigil lint --binary "$TARGETS/queue" specs/queue_bounds.vigil
expect_rc 0
run_vigil lint -D alloc=my_alloc -D release=my_free specs/lib/double_free.vigil
expect_rc 0
run_vigil graph --trace tests/traces/unsafe_iter.csv specs/unsafe_iter.vigil
expect_rc 0
run_vigil check specs/unsafe_iter.vigil tests/traces/unsafe_iter.csv
expect_rc 1	# the trace has a violation

# the same option spelled the same way everywhere, and --opt=value too
run_vigil graph --output "$TMP/g.dot" specs/queue_bounds.vigil
expect_rc 0
grep -q digraph "$TMP/g.dot" || fail "graph --output wrote no DOT"
run_vigil graph -o "$TMP/g2.dot" specs/queue_bounds.vigil
cmp -s "$TMP/g.dot" "$TMP/g2.dot" || fail "graph -o and --output differ"
run_vigil check --json="$TMP/v.jsonl" specs/unsafe_iter.vigil tests/traces/unsafe_iter.csv
expect_rc 1
grep -q '"type":"verdict"' "$TMP/v.jsonl" || fail "check --json=FILE wrote no verdict"
run_vigil lint specs/queue_bounds.vigil --binary="$TARGETS/queue"
expect_rc 0
expect_out "queue_push"

# exit statuses: 2 for bad usage, with the synopsis and where the options
# are
run_vigil
expect_rc 2
expect_out "^vigil: no command given$"
run_vigil frobnicate
expect_rc 2
expect_out "^vigil: unknown command 'frobnicate'$"
expect_out "^\(vigil --help lists the commands\)$"
run_vigil help frobnicate
expect_rc 2
run_vigil run specs/ticks.vigil
expect_rc 2
expect_out "^vigil: no PROGRAM given after --$"
run_vigil run -- /bin/true
expect_rc 2
expect_out "^vigil: no SPEC given$"
run_vigil attach specs/ticks.vigil
expect_rc 2
expect_out "^vigil: no -p PID given$"
run_vigil attach specs/ticks.vigil -p 1 -- /bin/true
expect_rc 2
run_vigil run --tier=fast specs/ticks.vigil -- /bin/true
expect_rc 2
expect_out "^vigil: --tier: 'fast' is not auto, kernel or user$"
run_vigil graph --output
expect_rc 2
expect_out "^vigil graph: option '--output' requires an argument$"
expect_out "^\(vigil graph --help lists the options\)$"
run_vigil checkpoint --pid=12x
expect_rc 2
expect_out "^vigil: -p: '12x' is not a process id$"
run_vigil checkpoint
expect_rc 2
run_vigil lint "$TMP/none.vigil"
expect_rc 2
expect_out "none.vigil: error: cannot open: No such file or directory"
run_vigil check specs/unsafe_iter.vigil
expect_rc 2
run_vigil restore
expect_rc 2
expect_out "^vigil: no checkpoint DIR given$"
run_vigil restore -D a=b "$TMP"
expect_rc 2
expect_out "^vigil: -D is for the specs of --monitor$"
# 0 and 1: a clean run and a violation (3 is in bad_input.sh)
run_vigil run specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 0
run_vigil run specs/queue_bounds.vigil -- "$TARGETS/queue" --bug
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
echo ok

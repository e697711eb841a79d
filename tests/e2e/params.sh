# A library property against another allocator: specs/lib/double_free.vigil
# names its functions with `param alloc = malloc` and `param release =
# free`, and -D alloc=my_alloc -D release=my_free points it at
# tests/targets/myalloc.c's own allocator, whose double my_free libc never
# sees. -D goes with every command that loads specs; a bad one is a usage
# error that names it.
. "$(dirname "$0")/lib.sh"

DF=specs/lib/double_free.vigil

# the double my_free: stopped at the second call, in both tiers
for tier in kernel user; do
	run_vigil run --tier=$tier $DF -D alloc=my_alloc -D release=my_free -- "$TARGETS/myalloc" --bug
	pid=$(stopped_pid)
	[ -n "$pid" ] && LEFT_PIDS+=("$pid")
	expect_rc 1
	expect_out "VIOLATION of double_free"
	expect_out "state  freed -> double_free"
	expect_out "event  before my_free\(0x[0-9a-f]+\) in tid"
	expect_out "after my_alloc\([0-9]+\) returned 0x[0-9a-f]+  freed -> live"
	# the kernel tier stops it at the call itself: nothing ran after
	if [ $tier = kernel ]; then
		expect_out "^vigil: stats: .* after:my_alloc=200 "
		expect_out "^vigil: stats: .* before:my_free=152( |$)"
	fi
	[ "$(proc_state "$pid")" = T ] || fail "target not left stopped ($tier tier)"
	kill -KILL "$pid"
done

# the clean run is quiet; long forms, options after the spec
run_vigil run $DF --define=alloc=my_alloc --define release=my_free -- "$TARGETS/myalloc"
expect_rc 0
expect_no_out "VIOLATION"
expect_out "^vigil: stats: .* after:my_alloc=200 "
expect_out "^vigil: stats: .* before:my_free=200( |$)"
expect_out "myalloc: done"

# without -D the property watches libc, which sees no double free here
run_vigil run $DF -- "$TARGETS/myalloc" --bug
expect_rc 0
expect_no_out "VIOLATION"
expect_out "^vigil: stats: .* after:malloc=[0-9]+ "
expect_out "^vigil: stats: .* before:free=0( |$)"

# usage errors name the -D
run_vigil run $DF -D alocc=my_alloc -- "$TARGETS/myalloc"
expect_rc 2
expect_out "^vigil: -D alocc: no spec file declares 'param alocc' \(they declare: alloc, release\)$"
run_vigil run $DF -D alloc -- "$TARGETS/myalloc"
expect_rc 2
expect_out "^vigil: -D 'alloc': expected NAME=VALUE$"
expect_out "^usage: vigil run "
run_vigil run $DF -D alloc=my-alloc -- "$TARGETS/myalloc"
expect_rc 2
expect_out "double_free.vigil:[0-9]+:7: error: -D alloc=my-alloc: expected a name, as the default malloc is"
expect_out "^param alloc = malloc$"
pgrep -f "$TARGETS/myalloc" >/dev/null && fail "a refused run started its target"

# lint, graph and check take -D too
run_vigil lint -D alloc=my_alloc -D release=my_free --binary "$TARGETS/myalloc" $DF
expect_rc 0
expect_out "my_alloc"
expect_out "my_free"
run_vigil lint -D nope=1 $DF
expect_rc 2
expect_out "-D nope: no spec file declares"
"$VIGIL" graph -D alloc=my_alloc --define=release=my_free $DF >"$TMP/dot" || fail "graph -D failed"
grep -q 'my_alloc' "$TMP/dot" || fail "graph: no my_alloc in the DOT"

# check: a declared event named by a parameter, over a CSV trace
cat >"$TMP/pairs.vigil" <<'EOF'
param acquire = lock
param release = unlock
property pairs "a resource is not taken twice"
slice on r
event $acquire(r)
event $release(r)
state free accepting { $acquire(r) -> held }
state held accepting { $release(r) -> free  $acquire(r) -> twice }
state twice violation
EOF
printf 'take,1\ngive,1\ntake,2\ntake,2\n' >"$TMP/t.csv"
run_vigil check -D acquire=take -D release=give "$TMP/pairs.vigil" "$TMP/t.csv"
expect_rc 1
expect_out "VIOLATION of pairs"
expect_out "take\(2\), event 4 of the trace"
echo ok

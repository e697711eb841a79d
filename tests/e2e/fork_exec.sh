# A target that forks and execs (tests/targets/forker.c): vigil reports the
# fork (without --follow-fork the child is not followed: its calls are not
# counted; with it, the child has slices of its own) and the exec,
# in the text and the JSON; after an exec of another program the probes on
# the old one no longer fire, after an exec of the same program they still
# do; the exit status is that of the program the process ended as. Both
# tiers.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/work.vigil" <<'SPEC'
property calls "work is called"
int n = 0
state s accepting {
  before work(k) { n = n + 1; } -> s
}
SPEC

for tier in kernel user; do
	run_vigil run --tier=$tier --json "$TMP/v.jsonl" "$TMP/work.vigil" -- "$TARGETS/forker" /bin/true
	expect_rc 0
	expect_out "forker: parent calls=10 child calls=5 child status=4"
	expect_out "vigil: target pid [0-9]+ forked pid [0-9]+: not followed, its calls are not monitored"
	expect_out "vigil: target pid [0-9]+ exec'd /bin/true: the probes on the program it ran no longer fire"
	expect_out "before:work=10( |$)"
	expect_out "the target forked 1 process and exec.d 1 program"
	expect_out "target exited with status 0"
	grep -q '"type":"process","what":"fork","pid":[0-9]*,"child":[0-9]*' "$TMP/v.jsonl" || fail "no fork in the JSON"
	grep -q '"type":"process","what":"exec","pid":[0-9]*,"path":"/bin/true"' "$TMP/v.jsonl" || fail "no exec in the JSON"
	grep -q '"forks":1,"execs":1' "$TMP/v.jsonl" || fail "the JSON stats lack the counts"

	run_vigil run --tier=$tier "$TMP/work.vigil" -- "$TARGETS/forker" --self
	expect_rc 0
	expect_out "forker: again calls=3"
	expect_out "exec'd /proc/self/exe again: the probes still apply"
	expect_out "before:work=13( |$)"
done

# --follow-fork: the child is monitored too, with its own slices; its
# violation is reported with its tid, and a stop stops the child
cat >"$TMP/ff.vigil" <<'SPEC'
property child_calls "calls of 100 and more come from the child"
state s nonaccepting {
  before work(k) when k >= 100 -> seen
}
state seen accepting

property small "work's argument stays below 104"
state s accepting {
  before work(k) when k >= 104 -> bad
}
state bad violation
SPEC
run_vigil run --follow-fork --on-violation=continue "$TMP/ff.vigil" -- "$TARGETS/forker" /bin/true
expect_rc 1
expect_out "child_calls: user tier because --follow-fork"
child=$(sed -nE 's/^vigil: pid [0-9]+ forked pid ([0-9]+): followed$/\1/p' "$TMP/out")
[ -n "$child" ] || fail "no followed fork reported"
expect_out "event  before work\(104\) in tid $child"
expect_out "^vigil: child_calls: live slices by state: s=1 seen=0"
expect_out "^vigil: pid $child: child_calls: live slices by state: s=0 seen=1"
expect_out "^vigil: pid $child: small: live slices by state: s=0 bad=1"
expect_out "before:work=15( |$)"

run_vigil run --follow-fork "$TMP/ff.vigil" -- "$TARGETS/forker" /bin/true
parent=$(sed -nE 's/^vigil: pid ([0-9]+) forked pid [0-9]+: followed$/\1/p' "$TMP/out")
pid=$(stopped_pid)
[ -n "$parent" ] && LEFT_PIDS+=("$parent")
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
child=$(sed -nE 's/^vigil: pid [0-9]+ forked pid ([0-9]+): followed$/\1/p' "$TMP/out")
[ "$pid" = "$child" ] || fail "the child ($child) is not the one left stopped ($pid)"
[ "$(proc_state "$pid")" = T ] || fail "the child is not stopped"

run_vigil run --follow-fork --tier=kernel "$TMP/work.vigil" -- "$TARGETS/forker" /bin/true
expect_rc 2
expect_out "--follow-fork runs every property in the user tier .*: not with --tier=kernel"
echo ok

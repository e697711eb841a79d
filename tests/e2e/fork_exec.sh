# A target that forks and execs (tests/targets/forker.c): vigil reports the
# fork (the child is not followed: its calls are not counted) and the exec,
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
	expect_out "the target forked 1 process \(not followed\) and exec'd 1 program"
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
echo ok

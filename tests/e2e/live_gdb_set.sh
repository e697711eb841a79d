# vigil set in a live gdb session (issue 17 point 3, Verde's set_env_value
# and set_current_state), both tiers: at the monitor breakpoint on ready
# (queue 0 just made, n=0), `vigil set ... n=2` makes its first push the
# overflow (v=0, not v=2); there, `vigil set ... state=ready` puts the
# slice back (saying that its variables are at their initial values: a
# slice keeps none in a violation state), and `max=2` sets them again, so
# its two other pushes fill it and its third pop is an underflow, which
# queue3 never does by itself. A bad state or variable is refused. And
# every vigil command has its help text; set and slices complete property
# and state names.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/set.py" <<'PY'
import gdb
def vset(state, *assigns):
    s = gdb.execute("vigil slices queue_bounds " + state, to_string=True).split()[0]
    for a in assigns:
        gdb.execute("vigil set queue_bounds %s %s" % (s, a))
    gdb.write("SET %s\n" % s)
PY
cmds="break breaks checkpoint checkpoints delete detach graph keep-stopped leaks load restore set show slices status unload"
ex=""
for c in $cmds; do ex="$ex -ex 'help vigil $c'"; done
eval "timeout 60 gdb -q -nx -batch -x scripts/gdb/vigil.py $ex" >"$TMP/help" 2>&1
grep -q 'not documented' "$TMP/help" && { cat "$TMP/help"; fail "a vigil command has no help text"; }
[ "$(grep -c '^Usage: vigil' "$TMP/help")" -ge 9 ] || { cat "$TMP/help"; fail "the vigil commands' help lacks their usage lines"; }

set_in_gdb() {
	start_live run --interactive --tier="$1" specs/queue_bounds.vigil -- "$TARGETS/queue3"
	live_gdb "-x $TMP/set.py -ex 'complete vigil set queue_b' -ex 'complete vigil slices queue_bounds ov' \
 -ex 'vigil break queue_bounds ready' -ex continue -ex 'vigil delete 1' \
 -ex 'python vset(\"ready\", \"n=2\")' -ex 'vigil slices queue_bounds' -ex continue \
 -ex 'python vset(\"overflow\", \"state=ready\", \"max=2\")' -ex 'vigil slices queue_bounds ready' \
 -ex 'python vset(\"ready\", \"state=nowhere\")' -ex 'python vset(\"ready\", \"nosuchvar=1\")' \
 -ex continue -ex continue -ex continue -ex continue"
	grep -qx 'vigil set queue_bounds' "$TMP/gdb" || fail "$1 tier: no completion of the property name for set"
	grep -qx 'vigil slices queue_bounds overflow' "$TMP/gdb" || fail "$1 tier: no completion of the state name for slices"
	grep -qE '^q=0x[0-9a-f]+ +ready +\{"n":"2","max":"2"\}' "$TMP/gdb" || fail "$1 tier: vigil set n=2 is not what slices shows"
	grep -qE '^Catchpoint .* in queue_push \(q=.*, v=v@entry=0\)' "$TMP/gdb" ||
		fail "$1 tier: with n=2 the first push is not the overflow"
	grep -q '^set; its variables are at their initial values (a slice keeps none in a violation state): n=0 max=0$' "$TMP/gdb" ||
		fail "$1 tier: vigil set state= out of a violation state does not say the variables are back at their initial values"
	grep -qE '^q=0x[0-9a-f]+ +ready +\{"n":"0","max":"2"\}' "$TMP/gdb" || fail "$1 tier: vigil set state=ready max=2 is not what slices shows"
	grep -q '^gdb.error: vigil: queue_bounds has no state nowhere' "$TMP/gdb" || fail "$1 tier: a state that does not exist is not refused"
	grep -q '^gdb.error: vigil: queue_bounds has no variable nosuchvar' "$TMP/gdb" || fail "$1 tier: a variable that does not exist is not refused"
	grep -q '^vigil: queue_bounds entered state underflow at before queue_pop' "$TMP/gdb" ||
		fail "$1 tier: the slice put back in ready did not go on from there (no underflow at its third pop)"
	grep -q 'exited normally' "$TMP/gdb" || fail "$1 tier: the program did not run to its end under gdb"
	wait_vigil
	expect_rc 1
	grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "$1 tier: the program's counts"
}
set_in_gdb kernel
set_in_gdb user
echo PASS

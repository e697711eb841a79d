# vigil unload of a property given when the session started (not added
# with vigil load), in a live gdb session, in both tiers: queue_bounds
# stops the program at the first overflow; unloaded there, its verdicts
# and its own ERROR SUMMARY line are said, its breakpoint is deleted,
# status/slices/graph no longer know it, the two overflows left stop
# nothing, and the property that stays (pops, on queue_pop, which shares
# a uprobe link with queue_push) counts every one of its events: its
# probe count equals the program's own. In the user tier the same file
# is then loaded again (from its initial state) and unloaded as a unit.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/pops.vigil" <<'V'
property pops "queues are popped"
slice on ptr q
state seen accepting { before queue_pop(q) -> seen }
V

unload_in_gdb() {
	local again=""
	[ "$1" = user ] && again="-ex 'vigil load specs/queue_bounds.vigil' -ex 'vigil unload queue_bounds'"
	start_live run --interactive --tier="$1" specs/queue_bounds.vigil "$TMP/pops.vigil" -- "$TARGETS/queue3"
	live_gdb "-ex continue -ex 'vigil break queue_bounds ready' -ex 'vigil unload queue_bounds' -ex 'vigil status' \
 -ex 'vigil breaks' -ex 'vigil slices queue_bounds' -ex 'vigil graph' -ex 'vigil unload queue_bounds' $again -ex continue"
	[ "$(grep -c 'vigil: queue_bounds entered state overflow at before queue_push' "$TMP/gdb")" = 1 ] ||
		fail "$1 tier: not exactly one stop (the one before the unload)"
	grep -qE "^unloaded queue_bounds \($1 tier, given at the start\): its slices freed" "$TMP/gdb" || fail "$1 tier: vigil unload"
	after=$(sed -n '/^unloaded queue_bounds (/,$p' "$TMP/gdb")
	echo "$after" | grep -qE '^pops \('"$1"' tier\)' || fail "$1 tier: status lost the property that stays"
	echo "$after" | grep -qE '^queue_bounds \(' && fail "$1 tier: status still lists the unloaded property"
	echo "$after" | grep -q '^no monitor breakpoints' || fail "$1 tier: its breakpoint was not deleted"
	echo "$after" | grep -q '^vigil: no property queue_bounds' || fail "$1 tier: slices still knows the unloaded property"
	echo "$after" | grep -q 'label="pops"' || fail "$1 tier: vigil graph after the unload"
	echo "$after" | grep -q 'label="queue_bounds"' && fail "$1 tier: vigil graph still draws the unloaded property"
	[ "$(echo "$after" | grep -c '^vigil: no property queue_bounds')" -ge 2 ] || fail "$1 tier: a second unload is not refused"
	if [ "$1" = user ]; then
		grep -qE '^loaded queue_bounds \(user tier\): its slices start in its initial state' "$TMP/gdb" ||
			fail "the same file cannot be loaded again after the unload"
		grep -q '^unloaded queue_bounds, its probes detached' "$TMP/gdb" || fail "the reloaded file's unload"
	fi
	grep -q 'received signal SIGSTOP' "$TMP/gdb" && fail "$1 tier: a bare SIGSTOP reached the user"
	grep -q 'exited normally' "$TMP/gdb" || fail "$1 tier: the program did not run to its end after the unload"
	wait_vigil
	expect_rc 1	# the violation before the unload
	grep -q 'queue_new=3 queue_push=9 queue_pop=9' "$TMP/vigil.out" || fail "$1 tier: the program's counts"
	[ "$(grep -c '^vigil: VIOLATION of queue_bounds' "$TMP/vigil.err")" = 1 ] || fail "$1 tier: a violation after the unload"
	grep -q '^vigil: unloaded queue_bounds: ERROR SUMMARY: 1 error: queue_bounds.overflow=1$' "$TMP/vigil.err" ||
		fail "$1 tier: no summary line of its own at the unload"
	grep -q '^vigil: ERROR SUMMARY: 0 errors$' "$TMP/vigil.err" || fail "$1 tier: the run's summary still counts the unloaded property"
	grep -q 'queue_bounds: live slices by state' "$TMP/vigil.err" || fail "$1 tier: its verdicts at the unload"
	[ "$(grep -c 'queue_bounds: live slices by state' "$TMP/vigil.err")" = "$([ "$1" = user ] && echo 2 || echo 1)" ] ||
		fail "$1 tier: the unloaded property's verdicts again at the end"
	# the property that stays: exact, no gap or double count (queue_pop's
	# probe, in one link with queue_push's, which stays there idle and
	# counts exactly too); queue_new's uretprobes were queue_bounds's
	# alone: detached after the first queue (the first overflow's)
	grep -qE '(^| )after:queue_new=1 before:queue_push=9 before:queue_pop=9$' "$TMP/vigil.err" ||
		fail "$1 tier: probe counts after the unload: not queue_new=1 (detached) and the program's own 9 pushes and pops"
	:
}

unload_in_gdb kernel
unload_in_gdb user
echo PASS

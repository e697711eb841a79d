# specs/lib/lock_order.vigil on tests/targets/lockorder.c: quiet on the
# clean run (A then B by 3 contending threads, C then A, A then B again);
# with --abba, phase 3 takes B then A, after phase 1's A then B: the
# inversion is found at lock(A) in phase 3's thread, in a run that does
# not deadlock (the phases are serialised by joins: with
# --on-violation=continue the program runs to its end).
. "$(dirname "$0")/lib.sh"

# the four probes of lock and unlock see every call, and the same ones
same_counts() {
	n=$(sed -nE 's/.* before:pthread_mutex_lock=([0-9]+) .*/\1/p' "$TMP/out")
	[ -n "$n" ] && [ "$n" -ge 4504 ] || fail "before:pthread_mutex_lock=$n, expected at least 4504"
	for c in after:pthread_mutex_lock before:pthread_mutex_unlock after:pthread_mutex_unlock; do
		expect_out "^vigil: stats: .* $c=$n( |$)"
	done
}

run_vigil run specs/lib/lock_order.vigil -- "$TARGETS/lockorder"
expect_rc 0
expect_out "lock_order: user tier"
expect_out "lockorder: done, under_b=1501 under_c=1501"
expect_no_out "VIOLATION|nonaccepting|inconclusive"
same_counts

run_vigil run --on-violation=continue specs/lib/lock_order.vigil -- "$TARGETS/lockorder" --abba
expect_rc 1
expect_out "lockorder: done, under_b=1501 under_c=1501"	# no deadlock
A=$(sed -nE 's/^lockorder: A=(0x[0-9a-f]+) B=.*/\1/p' "$TMP/out")
B=$(sed -nE 's/^lockorder: A=.* B=(0x[0-9a-f]+)$/\1/p' "$TMP/out")
tid=$(sed -nE 's/^lockorder: phase 3 in tid ([0-9]+)$/\1/p' "$TMP/out")
[ -n "$A" ] && [ -n "$B" ] && [ -n "$tid" ] || fail "the target did not print A, B and its tid"
[ "$(grep -c "VIOLATION of lock_order" "$TMP/out")" = 1 ] || fail "expected one violation"
# the target's last line goes to the same file as vigil's report and may
# land inside one of its lines (vigil writes a line in pieces): take it out
sed -zi 's/lockorder: done, under_b=[0-9]* under_c=[0-9]*\n//' "$TMP/out"
# the mutexes are globals A and B of the target: named (issue 24)
expect_out "^  slice  a=$A \\(&A\\) b=$B \\(&B\\)$"
expect_out "^  state  watching -> inversion \(violation\)$"
expect_out "^  event  before pthread_mutex_lock\($A \\(&A\\)\) in tid $tid$"
expect_out "^  vars   ha=0 hb=$tid a_then_b=true$"
# the pair's slice was joined from (a) and (b): each event once in its
# evidence, not once per slice it stepped (time, tid and values repeat).
# The copies of one event are next to each other (the monitor steps every
# slice of an event before the next): two lines alike further apart are
# two calls in one microsecond (a loop of lock, lock, unlock, unlock)
ev=$(sed -n '/^  evidence:/,/^vigil: lock_order: live/p' "$TMP/out" | grep -E '^    \+[0-9.]+s tid ')
[ -n "$ev" ] || fail "no evidence lines"
dups=$(printf '%s\n' "$ev" | sed -E 's/  [a-z_]+ -> [a-z_]+$//' | uniq -d)
[ -z "$dups" ] || fail "evidence lists an event twice: $dups"
same_counts

# with the default reaction the target is stopped (a little after the
# call: user tier)
run_vigil run specs/lib/lock_order.vigil -- "$TARGETS/lockorder" --abba
pid=$(stopped_pid)
[ -n "$pid" ] && LEFT_PIDS+=("$pid")
expect_rc 1
expect_out "^  event  before pthread_mutex_lock\(0x[0-9a-f]+ \\(&[AB]\\)\) in tid [0-9]+$"
[ -n "$pid" ] && kill -KILL "$pid"
echo ok

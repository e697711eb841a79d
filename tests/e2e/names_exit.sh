# Names of pointers do not depend on timing (issue 32 point 3): a report
# names a global (&A) from what vigil took while the program was there,
# not from a look at its mappings when the report is made, by which time
# a program that exits right after its last event is gone. The target
# (tests/targets/abba_exit.c) inverts the order of two static mutexes and
# _exits at once; every one of many runs names both, in the user tier
# (lock_order reads its events after the fact) and in the kernel tier,
# and the dynamic loader's own mutex, which pthread_create locks.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/abba_exit"
RUNS=${RUNS:-12}
bare=0
for i in $(seq "$RUNS"); do
	run_vigil run -q --on-violation=continue specs/lib/lock_order.vigil -- "$T" >/dev/null
	expect_rc 1
	expect_out "lock_order: user tier"
	grep -qE '^  slice  a=0x[0-9a-f]+ \(&[AB]\) b=0x[0-9a-f]+ \(&[AB]\)$' "$TMP/out" ||
		{ bare=$((bare + 1)); grep '^  slice' "$TMP/out"; }
done
[ "$bare" = 0 ] || fail "user tier: $bare of $RUNS runs left the mutexes unnamed"

cat >"$TMP/relock.vigil" <<'V'
property relock "each mutex is locked once"
slice on ptr m
state free accepting {
  before pthread_mutex_lock(m) -> held
}
state held accepting {
  before pthread_mutex_lock(m) -> twice
}
state twice violation
V
for i in $(seq $((RUNS / 2))); do
	run_vigil run -q --on-violation=continue "$TMP/relock.vigil" -- "$T" >/dev/null
	expect_rc 1
	expect_out "relock: kernel tier"
	expect_out '^  slice  m=0x[0-9a-f]+ \(&A\)$'
	expect_out '^  slice  m=0x[0-9a-f]+ \(&B\)$'
	# glibc's threads take a lock of the dynamic loader's twice too
	# (in _rtld_global): the loader's mapping comes with the exec
	expect_no_out '^  slice  m=0x[0-9a-f]+$'
done
echo PASS

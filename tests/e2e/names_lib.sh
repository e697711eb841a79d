# Names of a shared library's globals do not depend on timing (issue 32
# point 3): the mutexes of tests/targets/abba_lib are statics of the
# library it links (libabbalib.so), so their names come from that
# library's symbols at the bias the loader mapped it at, which vigil takes
# at the loader's rendezvous (_dl_debug_state) while the library is
# mapped, not when it reports: by then the program, which _exits right
# after the inversion, is gone. Every one of many runs names both, in the
# user tier (lock_order reads its events after the fact) and in the
# kernel tier, and names libc's stdout (&_IO_2_1_stdout_), which the
# program flushes just before its _exit.
. "$(dirname "$0")/lib.sh"

T="$TARGETS/abba_lib"
RUNS=${RUNS:-20}
bare=0
for i in $(seq "$RUNS"); do
	run_vigil run -q --on-violation=continue specs/lib/lock_order.vigil -- "$T" >/dev/null
	expect_rc 1
	expect_out "lock_order: user tier"
	grep -qE '^  slice  a=0x[0-9a-f]+ \(&[AB]\) b=0x[0-9a-f]+ \(&[AB]\)$' "$TMP/out" ||
		{ bare=$((bare + 1)); grep '^  slice' "$TMP/out"; }
done
[ "$bare" = 0 ] || fail "user tier: $bare of $RUNS runs left the library's mutexes unnamed"

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
bare=0
for i in $(seq $((RUNS / 2))); do
	run_vigil run -q --on-violation=continue "$TMP/relock.vigil" -- "$T" >/dev/null
	expect_rc 1
	expect_out "relock: kernel tier"
	grep -qE '^  slice  m=0x[0-9a-f]+ \(&A\)$' "$TMP/out" &&
		grep -qE '^  slice  m=0x[0-9a-f]+ \(&B\)$' "$TMP/out" ||
		{ bare=$((bare + 1)); grep '^  slice' "$TMP/out"; }
done
[ "$bare" = 0 ] || fail "kernel tier: $bare of $((RUNS / 2)) runs left the library's mutexes unnamed"

cat >"$TMP/flush.vigil" <<'V'
property flushed "a stream is never flushed"
slice on ptr f
state fresh accepting {
  before fflush(f) -> flushed
}
state flushed violation
V
bare=0
for i in $(seq $((RUNS / 2))); do
	run_vigil run -q --tier=user --on-violation=continue "$TMP/flush.vigil" -- "$T" >/dev/null
	expect_rc 1
	expect_out "flushed: user tier"
	grep -qE '^  slice  f=0x[0-9a-f]+ \(&_IO_2_1_stdout_\)$' "$TMP/out" ||
		{ bare=$((bare + 1)); grep '^  slice' "$TMP/out"; }
done
[ "$bare" = 0 ] || fail "user tier: $bare of $((RUNS / 2)) runs left libc's stdout unnamed"
echo PASS

# Watchpoints armed by the automaton (tests/targets/objects.c): a slice
# that enters a state consuming `write o->count` gets a breakpoint on its
# own o->count, in every thread, before the thread that took the
# transition runs on; leaving the state disarms it. Checked: the first
# write after the arming transition is seen, with `old`; writes from
# threads that existed before the arming and threads started after are
# all seen; a fifth slice that needs a debug register gets the budget
# message and its policy's verdict; `watch` reactions arm by hand;
# `change EXPR` over two fields is an event only when EXPR changes.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/first.vigil" <<'SPEC'
property counted "an open object's count goes 1, 2, 3..., from the first write"
slice on ptr o
int next = 1
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  write o->count when value == next && old == next - 1 { next = next + 1; } -> open
  write o->count -> bad
  before obj_close(o) -> closed
}
state bad violation
on enter closed: log "next {next}"
SPEC
if ! has_debug_regs; then
	# the 100 writes go unseen: the slice that needed the register went
	# back to closed having maybe missed one, and says so
	run_vigil run "$TMP/first.vigil" -- "$TARGETS/objects" first 100
	expect_rc 0
	expect_blind
	expect_out "objects: count=100"
	expect_out "^vigil: counted: 1 slice went back to the initial state inconclusive"
	expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive"
	skip debug_regs "$WHY"
fi
if ! has_sound_debug_regs; then
	# a hit reported again would count a write twice: vigil says so, and
	# the slice the writes moved ends inconclusive
	run_vigil run "$TMP/first.vigil" -- "$TARGETS/objects" first 100
	expect_rc 0
	expect_out "objects: count=100"
	expect_stale
	expect_out "ERROR SUMMARY: 0 errors; 1 slice inconclusive \(this machine's debug registers report old hits again\)"
	skip sound_debug_regs "$WHY"
fi
run_vigil run "$TMP/first.vigil" -- "$TARGETS/objects" first 100
expect_rc 0
expect_out "objects: count=100"
expect_out "next 101"
expect_out "write:o->count=100( |$)"
expect_out "watchpoints: 1 armed, 100 hits"
expect_no_out "VIOLATION|lost=[1-9]"

cat >"$TMP/threads.vigil" <<'SPEC'
property all "every add to an open object's count is seen, from any thread"
slice on ptr o
int seen = 0
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  write o->count when value == old + 1 { seen = seen + 1; } -> open
  write o->count -> bad
  before obj_close(o) -> closed
}
state bad violation
on enter closed: log "seen {seen}"
SPEC
# 4 threads exist before the arming, 4 are started after it
run_vigil run "$TMP/threads.vigil" -- "$TARGETS/objects" threads 1000 8
expect_rc 0
expect_out "objects: count=8000"
expect_out "seen 8000"
expect_out "write:o->count=8000( |$)"
expect_no_out "VIOLATION|lost=[1-9]"

# change over two locations of the slice's object: both are armed, and
# o->count / 10 + o->id changes once every ten writes
cat >"$TMP/change.vigil" <<'SPEC'
property tens "o->count / 10 changes ten times, upwards"
slice on ptr o
int n = 0
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  change o->count / 10 + o->id when value == old + 1 { n = n + 1; } -> open
  change o->count / 10 + o->id -> bad
  before obj_close(o) -> closed
}
state bad violation
on enter closed: log "changes {n}"
SPEC
run_vigil run "$TMP/change.vigil" -- "$TARGETS/objects" first 100
expect_rc 0
expect_out "changes 10$"
expect_out "watchpoints: 2 armed, 100 hits"
expect_no_out "VIOLATION|lost=[1-9]"

cat >"$TMP/many.vigil" <<'SPEC'
property each "every open object's count is written"
slice on ptr o
int writes = 0
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  write o->count { writes = writes + 1; } -> open
  before obj_close(o) when writes > 0 -> closed
  before obj_close(o) -> unwritten
}
state unwritten violation
SPEC
# vigil lint predicts it
run_vigil lint "$TMP/many.vigil"
expect_rc 0
expect_out "many.vigil:7:7: note: a slice of each in state open takes 1 of the 4 debug registers: 4 slices at a time can be watched there"
# five open objects, one debug register each: the fifth is refused...
run_vigil run --on-violation=continue "$TMP/many.vigil" -- "$TARGETS/objects" many 5
expect_rc 1
expect_out "needs 1 debug register for o->count and 0 of 4 are free; --watch-policy=refuse leaves it unwatched: its verdict is inconclusive"
expect_out "watchpoints: 4 armed, 4 hits, 1 slices refused, 0 watched in part, 0 evicted"
# (its close saw no write: reported, with the warning)
expect_out "VIOLATION of each"
expect_out "note   this slice may have missed events"
# ... or takes the register of the oldest, which becomes inconclusive
run_vigil run --on-violation=continue --watch-policy=evict "$TMP/many.vigil" -- "$TARGETS/objects" many 5
expect_out "--watch-policy=evict takes them from each\(o=0x[0-9a-f]+\) \(o->count\), the oldest, whose verdict becomes inconclusive"
expect_out "watchpoints: 5 armed, 4 hits, 0 slices refused, 0 watched in part, 1 evicted"
expect_out "note   this slice may have missed events"

cat >"$TMP/manual.vigil" <<'SPEC'
property manual "watch and unwatch by hand"
slice on ptr o
int writes = 0
state closed accepting {
  before obj_open(o) -> open
}
state open accepting {
  before obj_close(o) -> closed
}
state counting accepting {
  write o->count { writes = writes + 1; } -> counting
}
on enter open: watch o->count
on enter closed: unwatch o->count
SPEC
run_vigil run "$TMP/manual.vigil" -- "$TARGETS/objects" first 50
expect_rc 0
expect_out "write:o->count=50( |$)"
expect_out "watchpoints: 1 armed, 50 hits"
echo ok

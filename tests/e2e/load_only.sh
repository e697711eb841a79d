# A run loads only the BPF programs its spec attaches, and VIGIL_DEBUG=1
# prints the verifier's time per program loaded (user/probe/load_stats.c).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/before.vigil" <<'SPEC'
property calls "noise only inside a session"
slice on int s
state init accepting {
  before open_session(s) -> open
}
state open accepting {
  before noise(k) -> open
  before close_session(s) -> init
}
SPEC

# loaded: a line with its verifier time; not loaded: in the last line
loaded() { grep -qE "vigil: debug: verifier: $1 +[0-9]+ us, +[0-9]+ insns processed" "$TMP/out"; }
not_loaded() { grep -qE "vigil: debug: verifier: [0-9]+ programs loaded in [0-9]+ ms \(verifier [0-9]+ ms\); not loaded:.* $1( |$)" "$TMP/out"; }

# entry probes only: no return program, no stash, no kernel-tier build
VIGIL_DEBUG=1 run_vigil run --tier=user "$TMP/before.vigil" -- "$TARGETS/phases" 100
expect_rc 0
for p in vg_exit vg_fork vg_exec vg_entry; do loaded $p || fail "$p: no verifier line"; done
for p in vg_return vg_return_k vg_entry_k vg_kstep vg_stash vg_entry_s vg_return_s vg_signal vg_sys_enter vg_watch; do
	not_loaded $p || fail "$p loaded for a spec that attaches none"
done

# the kernel tier, with `after` events: the kernel-tier builds, the step
# they tail-call (the interpreter, verified once for both) and the stash
VIGIL_DEBUG=1 run_vigil run --tier=kernel specs/queue_bounds.vigil -- "$TARGETS/queue"
expect_rc 0
for p in vg_entry_k vg_return_k vg_kstep vg_stash; do loaded $p || fail "$p: no verifier line"; done
# vg_kstep is loaded from its own object, beside the rest (split_load.c):
# loaded once, and not in the list of those left out
[ "$(grep -cE 'vigil: debug: verifier: vg_kstep +[0-9]+ us' "$TMP/out")" = 1 ] ||
	fail "vg_kstep: not exactly one verifier line"
not_loaded vg_kstep && fail "vg_kstep loaded and listed as not loaded"
for p in vg_entry vg_return vg_entry_s vg_return_s; do
	not_loaded $p || fail "$p loaded for a kernel-tier spec without strings"
done

# The lifecycle programs' event numbers are read-only data: a handle() the
# spec's events do not reach is dead code to the verifier, and the one
# that is reached is a global function, checked once per program
# (bpf/vigil/lifecycle.bpf.c). vg_exit verified 51,097 instructions
# whatever the spec when they were plain data, and 50,788 with both exit
# and thread_exit when handle() was inlined twice.
insns() { sed -nE "s/^vigil: debug: verifier: $1 +[0-9]+ us, +([0-9]+) insns processed.*/\1/p" "$TMP/out"; }
VIGIL_DEBUG=1 run_vigil run --tier=user "$TMP/before.vigil" -- "$TARGETS/phases" 100
expect_rc 0
for p in vg_exit vg_fork; do
	n=$(insns $p)
	[ -n "$n" ] && [ "$n" -lt 3000 ] ||
		fail "$p: ${n:-no} instructions verified for a spec without lifecycle events (handle() is dead code)"
done
VIGIL_DEBUG=1 run_vigil run specs/lifecycle.vigil -- "$TARGETS/phases" 10
expect_rc 0
expect_out "clean_end: exited with status 0 after 0 thread starts and 1 thread exits"
for p in vg_exit vg_fork vg_signal; do
	n=$(insns $p)
	[ -n "$n" ] && [ "$n" -lt 20000 ] ||
		fail "$p: ${n:-no} instructions verified (handle() once, as a global function)"
done

# The object loads while the plan is built (user/probe/probe_early.c),
# configured as the spec's events predict, and the run takes it...
VIGIL_DEBUG=1 run_vigil run "$TMP/before.vigil" -- "$TARGETS/phases" 100
expect_rc 0
expect_out "vigil: debug: the BPF object was loaded while the plan was built"
expect_no_out "loaded again"
for p in vg_entry vg_exit; do loaded $p || fail "$p: no verifier line (early load)"; done
expect_out "before:open_session=[1-9]"
# A timed property the tier pass keeps in the user tier (thread_exit)
# beside a kernel-tier one: predicted too (no kernel timer is loaded)
cat >"$TMP/timed.vigil" <<'SPEC'
property calls "sessions open and close"
slice on int s
state init accepting {
  before open_session(s) -> open
}
state open accepting {
  before close_session(s) -> init
}

property quick "the program ends within 60s of its start"
state running accepting within 60s else -> late {
  thread_exit -> running
}
state late violation
SPEC
VIGIL_DEBUG=1 run_vigil run "$TMP/timed.vigil" -- "$TARGETS/phases" 100
expect_rc 0
expect_out "vigil: debug: the BPF object was loaded while the plan was built"
not_loaded vg_ktimer_arm || fail "vg_ktimer_arm loaded for a timed property in the user tier"
loaded vg_kstep || fail "vg_kstep: no verifier line"
expect_out "before:open_session=[1-9]"
# ... unless the plan configures it otherwise: --leak-check keeps its own
# property (kernel-tier eligible, the only one here) in the user tier,
# which the spec alone does not say. The run loads its own object.
cat >"$TMP/leak.vigil" <<'SPEC'
property leak "every allocated block is freed by exit"
slice on ptr p
uint size = 0
state free accepting {
  after malloc(bytes) returns p when p != 0 { size = bytes; } -> allocated
  thread_exit -> free
}
state allocated nonaccepting {
  before free(p) -> free
}
SPEC
VIGIL_DEBUG=1 run_vigil run --leak-check "$TMP/leak.vigil" -- "$TARGETS/leaky"
expect_rc 0
expect_out "vigil: debug: the plan configures the BPF object otherwise than the spec predicted \(vg_kstep\): it is loaded again"
expect_no_out "was loaded while the plan was built"
not_loaded vg_kstep || fail "vg_kstep loaded for a run without kernel-tier properties"
loaded vg_stash || fail "vg_stash: no verifier line (loaded again)"
expect_out "after:malloc=[1-9]"
expect_out "LEAK SUMMARY"

# The memory library with use_after_free: its per-slice watch's hits take
# their stack, but they are no calls, so malloc and free still go
# in-process and no uprobe steps a kernel-tier property: the early load
# is configured as the run's (it predicted every event on uprobes and the
# kernel-tier builds, then loaded again on the start's path)
VIGIL_DEBUG=1 run_vigil run specs/lib/double_free.vigil specs/lib/leak.vigil \
	specs/lib/use_after_free.vigil -- "$TARGETS/allocs"
expect_rc 0
expect_out "vigil: debug: the BPF object was loaded while the plan was built"
expect_no_out "loaded again"
not_loaded vg_kstep || fail "vg_kstep loaded when every kernel-tier step is in-process"
expect_out "in-process tier: [0-9]+ functions patched"
# ... and vg_creq (valgrind's client requests) only for a program that
# makes some: allocs has none, creq_leaks has several (user/sym/creq_scan.c
# finds them); predicted so, the early load is taken both times
not_loaded vg_creq || fail "vg_creq loaded for a program without client requests"
VIGIL_DEBUG=1 run_vigil run specs/lib/use_after_free.vigil -- "$TARGETS/creq_leaks"
expect_out "vigil: debug: the BPF object was loaded while the plan was built"
expect_no_out "loaded again"
loaded vg_creq || fail "vg_creq: no verifier line for a program with client requests"

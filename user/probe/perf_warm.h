/* The kernel's perf scheduling hooks switched on ahead of the first
 * watchpoint (user/probe/perf_warm.c). Probe-internal. */
#ifndef VIGIL_PROBE_PERF_WARM_H
#define VIGIL_PROBE_PERF_WARM_H

/* On a thread of its own, opens a disabled software event on vigil's
 * process and keeps it until vigil exits. The first perf event bound to a
 * task while no other exists on the machine switches on the scheduler's
 * perf hooks and waits for an RCU grace period (account_event in
 * kernel/events/core.c): ~10-14 ms on the machines we measured. Without
 * this, the first watchpoint paid it inside the program's first hold.
 * Once a process; nothing depends on it: a failure changes only when the
 * wait happens. */
void vg_perf_warm(void);

#endif

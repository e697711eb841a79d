/* Kernel-tier state timeouts, the user side (bpf/ktimer.bpf.h): sizing
 * and writing the timer's tables, arming it, reading its figures.
 * Private to user/probe/. */
#ifndef VIGIL_KTIMER_USER_H
#define VIGIL_KTIMER_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "probe.h"
#include "vigil_event.h"
#include "vigil_ktimer.h"

struct vg_probe;

/* Can this kernel run the kernel tier's timeouts? Its timer stops a
 * thread by pid (kfuncs bpf_task_from_pid, bpf_send_signal_task: Linux
 * 6.13). VIGIL_NO_KTIMER=1 says no, to test the fallback. */
bool vg_ktimer_kernel_ok(void);

/* Before the load: load the timer's program and size its maps only when
 * a kernel-tier property has a timeout. */
void vg_ktimer_setup(struct vg_probe *p, const struct vg_probe_opts *o);

/* After the kernel-tier tables are written: the timeouts' table, the tick,
 * and the timer armed (its first sweep right away). */
int vg_ktimer_start(struct vg_probe *p, const struct vg_probe_opts *o,
		    struct vg_err *e);

/* A slice user space writes into kslots[idx] (a restored monitor state)
 * while the target is stopped: if it waits in a timed state, the timer
 * must sweep it (its deadline, from the run it was saved in, may have
 * passed: it then fires at once). Sets v->tflags. */
void vg_ktimer_adopt(struct vg_probe *p, uint32_t idx, struct vg_kslot *v);

/* The timer's figures so far (enum vg_ktimer_stat), summed over CPUs
 * (VG_KT_LATE_MAX: the largest); false when no timer runs. */
bool vg_ktimer_stats(const struct vg_probe *p, uint64_t out[VG_KT__COUNT]);

/* Stops the timer re-arming; with VIGIL_DEBUG, prints its figures. */
void vg_ktimer_stop(struct vg_probe *p);

#endif

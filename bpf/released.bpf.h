/* A watchpoint hit on a block the program has been given again.
 *
 * free(p) arms p's breakpoints; the malloc that hands p out again names
 * p (release_flag: VG_RF_RELEASE), but user space disarms only when it
 * reads that record, and the program writes its new block at once: the
 * breakpoint fires on the program's own memory. The hit is still sent
 * (user space steps it after the release and finds the slice left the
 * watched state), but it stops nothing: a stop there cost the program a
 * hold at every reuse of a watched block. Where the release did not take
 * the slice out (a guard kept it), the violation is found all the same,
 * its stop only later. Released: armed_addrs says so (a release a probe
 * saw), or the agent's ring of released addresses holds it (one it saw,
 * include/vigil_fast.h), or user space has taken it out of armed_addrs
 * already; user space arming the address again clears both marks, and
 * puts the address in armed_addrs before it arms the breakpoints.
 * Included by vigil.bpf.h only. */
#ifndef VIGIL_RELEASED_BPF_H
#define VIGIL_RELEASED_BPF_H

#include "vigil_fast.h"

/* the agent's released[] in the target (user/fast/fast_install.c,
 * through vg_probe_fast_released; 0: none) */
__u64 fast_released VG_SHARED = 0;

static __always_inline bool watch_released(__u64 base)
{
	__u64 at = fast_released, r[VG_FAST_RELEASED];
	__u8 *v;

	if (!base)
		return false;
	/* none: user space has begun disarming it (it takes the address
	 * out before the other breakpoints of the watch): released too */
	v = bpf_map_lookup_elem(&armed_addrs, &base);
	if (!v || *v == VG_ARMED_RELEASED)
		return true;
	/* a read that fails (the region not there): not released */
	if (!at || bpf_probe_read_user(r, sizeof(r), (void *)at))
		return false;
	for (int i = 0; i < VG_FAST_RELEASED; i++)
		if (r[i] == base)
			return true;
	return false;
}

#endif

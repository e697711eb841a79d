/* Reading a clock in nanoseconds. CLOCK_MONOTONIC is the clock of the
 * probes (bpf_ktime_get_ns), so times compare with theirs. */
#ifndef VIGIL_CLOCK_H
#define VIGIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t vg_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif

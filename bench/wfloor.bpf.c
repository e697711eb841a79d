/* bench/wfloor.bpf.c - the floor of a BPF-watching tool: a perf_event
 * program attached to the hardware breakpoint that only increments a
 * global, so that the loader can check it ran once per write (the target
 * is single-threaded, so the non-atomic count is exact). Returning 0 also
 * tells perf not to write the sample anywhere, as vigil's vg_watch does. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 hits = 0;

SEC("perf_event")
int wfloor_bp(void *ctx)
{
	hits++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

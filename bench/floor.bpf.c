/* bench/floor.bpf.c - the floor of the per-event cost: uprobe programs that
 * do (almost) nothing. Their only work is one non-atomic increment of a
 * global, so that the loader can check that the probe really fired as many
 * times as the target called the function (the target is single-threaded,
 * so the count is exact). Two copies, so one run can probe two functions
 * and still count them apart. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 hits0 = 0, hits1 = 0;

SEC("uprobe")
int floor_probe0(void *ctx)
{
	hits0++;
	return 0;
}

SEC("uprobe")
int floor_probe1(void *ctx)
{
	hits1++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

/* bench/floor.bpf.c - the floor of the per-event cost: uprobe programs that
 * do (almost) nothing. Their only work is one non-atomic increment of a
 * global, so that the loader can check that the probe really fired as many
 * times as the target called the function (the target is single-threaded,
 * so the count is exact). Two copies, so one run can probe two functions
 * and still count them apart.
 *
 * The floor_rb* copies also send one 96-byte record (the size vigil's
 * user-tier event records had when this was written; theirs now depend
 * on the event, bench/recsize.c) to a ring buffer,
 * submitted with rb_flags: 0 (the kernel wakes the reader when it had
 * caught up, as vigil does) or BPF_RB_NO_WAKEUP (the reader polls). They
 * separate the cost of the ring buffer from the cost of vigil's monitor. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 hits0 = 0, hits1 = 0;
const volatile __u64 rb_flags = 0;

struct rec {
	__u64 w[12];		/* 96 bytes */
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} rb SEC(".maps");

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

static __always_inline void send(__u64 n)
{
	struct rec *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (!r)
		return;		/* the loader sees records < hits and fails */
	for (int i = 0; i < 12; i++)
		r->w[i] = n;
	bpf_ringbuf_submit(r, rb_flags);
}

SEC("uprobe")
int floor_rb0(void *ctx)
{
	send(++hits0);
	return 0;
}

SEC("uprobe")
int floor_rb1(void *ctx)
{
	send(++hits1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

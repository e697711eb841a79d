/* SPDX-License-Identifier: GPL-2.0 */
/* The user stacks of VG_EVF_STACK events, for the evidence and the leak
 * check's loss records and classes.
 *
 * The kernel's stack map keeps one stack per bucket, the bucket a hash of
 * the return addresses, and takes no new stack once its buckets are
 * spent: a stack whose bucket another holds (-EEXIST; the addresses move
 * with ASLR, so which stacks meet changes from run to run) or that comes
 * once the map is full (-ENOMEM) would have none, and a block that only
 * the C library's code allocated could no longer be told from the
 * program's. Such a stack goes to user space instead, once: its frames in
 * a VG_REC_STACK record, ahead of the record that names it (the same
 * ring, reserved first), under an id of its own that a table keyed by a
 * hash of its return addresses gives every later event with the same
 * stack. */
#ifndef VIGIL_STACKS_BPF_H
#define VIGIL_STACKS_BPF_H

#define VG_EEXIST 17
#define VG_ENOMEM 12

/* Frames are kept as (build id, file offset), so they can be symbolized
 * after the process is gone: a leak is reported at exit. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_STACK_BUILD_ID);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, VG_STACK_DEPTH * sizeof(struct bpf_stack_build_id));
} stacks SEC(".maps") VG_SHARED;

/* the ids of the stacks sent to user space, by the hash of their return
 * addresses; entries only as used */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VG_STACK_MAX_SPILLED);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u32);
} stack_spilled SEC(".maps") VG_SHARED;

__u32 stack_spill_n VG_SHARED = 0;

struct stack_ips {
	__u64 ip[VG_STACK_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_ips);
} stack_scratch SEC(".maps") VG_SHARED;

/* The stack the map had no room for, sent to user space the first time
 * it is seen: its id, or < 0 when neither was possible. */
static __noinline __s64 stack_spill(void *ctx, __u32 tid)
{
	__u64 h = 0xcbf29ce484222325ull;	/* FNV-1a */
	struct vg_rec_stack *r;
	struct stack_ips *sc;
	__u32 zero = 0, id, *known;
	long len;

	sc = bpf_map_lookup_elem(&stack_scratch, &zero);
	if (!sc)
		return -VG_ENOMEM;
	len = bpf_get_stack(ctx, sc->ip, sizeof(sc->ip), BPF_F_USER_STACK);
	if (len <= 0)
		return -VG_ENOMEM;
	/* every slot, without a branch: bpf_get_stack zeroed those past the
	 * stack, and a loop that stops early costs the verifier a state per
	 * slot in every program that takes stacks */
#pragma unroll
	for (int i = 0; i < VG_STACK_DEPTH; i++)
		h = (h ^ sc->ip[i]) * 0x100000001b3ull;
	known = bpf_map_lookup_elem(&stack_spilled, &h);
	if (known)
		return *known;
	id = __sync_fetch_and_add(&stack_spill_n, 1);
	if (id >= VG_STACK_MAX_SPILLED)
		goto lost;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(&counters, VG_CNT_RB_LOST);
		goto lost;
	}
	len = bpf_get_stack(ctx, r->frames, sizeof(r->frames),
			    BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
	id += VG_STACK_SPILLED;
	fill_hdr(&r->h, VG_REC_STACK, 0, 0, tid);
	r->id = id;
	r->nbytes = len > 0 ? (__u32)len : 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	bpf_map_update_elem(&stack_spilled, &h, &id, BPF_NOEXIST);
	count(&counters, VG_CNT_STACK_SPILLED);
	return id;
lost:
	count(&counters, VG_CNT_STACK_LOST);
	return -VG_ENOMEM;
}

/* The user stack of the event being handled, as VG_SLOT_STACK carries it
 * (include/vigil_event.h) */
static __always_inline __s64 stack_id(void *ctx, __u32 tid)
{
	long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);

	if (id == -VG_EEXIST || id == -VG_ENOMEM)
		return stack_spill(ctx, tid);
	return id;
}

#endif

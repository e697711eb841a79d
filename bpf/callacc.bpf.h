/* Calls checked against watched blocks (user/watchset/callacc.c): memcpy,
 * strlen, read(2)... are sent to user space only when a buffer they are
 * given touches a page holding a watched block (a freed one), so that a
 * program that keeps off freed memory pays the probe and one array
 * lookup per buffer page, not a record and a wake-up per call.
 *
 * watched_pages counts, per hash of a page number (vg_page_slot), the
 * watched blocks on pages of that hash: a count of 0 proves no watched
 * block is there; another count may be a neighbour's hash (the call is
 * sent, and user space finds nothing: user/watchset/watchset_ranges.c).
 * User space changes the counts in place (the map is mapped in vigil), a
 * freed block costs no system call; a block too large to count sets
 * pages_all, and every call is sent. */
#ifndef VIGIL_CALLACC_BPF_H
#define VIGIL_CALLACC_BPF_H

#define VG_RNG_PAGES 16		/* a buffer past this many pages: sent */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_PAGE_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);	/* vg_page_slot(address >> 12) */
	/* watched blocks there (8 bytes: an element of an array map
	 * takes 8 in the memory user space maps, whatever its size) */
	__type(value, __u64);
} watched_pages SEC(".maps") VG_SHARED;

__u32 pages_all VG_SHARED = 0;

/* The addresses of the armed breakpoints (the watchset's registers), for
 * release_flag in bpf/vigil.bpf.h */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u8);
} armed_addrs SEC(".maps") VG_SHARED;

static __always_inline bool touches_watched(struct vg_ev_conf *conf,
					    __u64 *slot)
{
	if (pages_all)
		return true;
	for (int k = 0; k < 2; k++) {
		__u8 pi, li;
		__u64 a, n, first, last;

		if (k >= conf->nrng)
			break;
		pi = conf->rng_ptr[k];
		li = conf->rng_len[k];
		a = slot[pi < VG_NSLOTS ? pi : 0];
		n = li == VG_RNG_BYTE ? 1 : slot[li < VG_NSLOTS ? li : 0];
		if (!a || !n)
			continue;
		first = a >> 12;
		last = (a + n - 1) >> 12;
		if (last < first || last - first >= VG_RNG_PAGES)
			return true;
		for (int i = 0; i < VG_RNG_PAGES; i++) {
			__u32 slot = vg_page_slot(first + i);
			__u64 *cnt;

			if (first + i > last)
				break;
			cnt = bpf_map_lookup_elem(&watched_pages, &slot);
			if (cnt && *cnt)
				return true;
		}
	}
	return false;
}

#endif

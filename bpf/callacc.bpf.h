/* Calls checked against watched blocks (user/watchset/callacc.c): memcpy,
 * strlen, read(2)... are sent to user space only when a buffer they are
 * given touches a page holding a watched block (a freed one), so that a
 * program that keeps off freed memory pays the probe and one hash lookup
 * per buffer page, not a record and a wake-up per call. User space keeps
 * watched_pages (user/watchset/watchset_ranges.c); when it cannot (the map
 * full), it sets pages_all and every call is sent. */
#ifndef VIGIL_CALLACC_BPF_H
#define VIGIL_CALLACC_BPF_H

#define VG_RNG_PAGES 16		/* a buffer past this many pages: sent */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);	/* page number: address >> 12 */
	__type(value, __u8);
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
			__u64 pg = first + i;

			if (pg > last)
				break;
			if (bpf_map_lookup_elem(&watched_pages, &pg))
				return true;
		}
	}
	return false;
}

#endif

/* The object map: which object a pointer falls in, for the memory
 * predicates (valid(p, n), valid_read, block_length, block_base, offset,
 * freeable, freed) evaluated inside a probe, by the kernel tier (BPF) and
 * by the in-process agent (inproc/), on ONE table both share: a BPF array
 * map with BPF_F_MMAPABLE, as the slice table kslots, which vigil maps into
 * the target for the agent. This header is the layout and the code, the
 * same C compiled by clang -target bpf and by cc (the agent, tests):
 * include/vigil_objmap_code.h has the code, this file what it runs on.
 *
 * What it holds: live heap blocks (VG_OM_HEAP), globals and statics
 * (VG_OM_GLOBAL, read-only ones VG_OM_RODATA), freed heap blocks
 * (VG_OM_FREED: a free turns its block's entry into one, in place), the
 * heap's own ranges (VG_OM_ARENA: an allocator's arena, which holds the
 * blocks), and the blocks of the program's own allocator (VG_OM_POOL: a
 * pool's, often inside a heap block, its slab: the one object that may
 * lie inside another, and the one a lookup answers with there). Blocks
 * of any length from 0 to 2^56 - 1 bytes.
 *
 * Shape: size classes over one hash table. A block of length n is of
 * level k = max(4, ceil(log2 n)): n <= 2^k, so [base, base + n) lies in
 * at most two level-k granules (addresses >> k), and an object holding p
 * with base >> k == p >> k or (p >> k) - 1. Its entry is filed under the
 * key (k, base >> k). A lookup of p asks, for each level some entry ever
 * had (hdr.levels, a bitmask: a program's sizes span ~10-20 levels), the
 * two keys (k, p >> k) and (k, (p >> k) - 1), and tests each entry it
 * meets for p in [base, base + len): interior pointers of any block, in a
 * number of steps that does not depend on how many blocks there are.
 * Level 4 (16 bytes) is the smallest: malloc's blocks are 16-aligned,
 * and up to 16 one-byte globals share a level-4 key, which the buckets
 * hold; levels 0-3 of their own would cost 8 more buckets each lookup.
 *
 * The table: buckets of VG_OM_WAYS entries (one 128-byte element of the
 * array each; element 0 is the header). A key hashes to its home bucket;
 * its entry goes there or, when that is full, into one of the next
 * VG_OM_WINDOW - 1 buckets, and the home's `over` counts the entries it
 * sent away, so that a lookup reads past the home bucket only when that
 * counter says there is something to find (almost never at the load the
 * sizing gives: half the entries free).
 *
 * Bounds: a lookup visits at most VG_OM_NLEVELS * 2 * VG_OM_WINDOW = 636
 * buckets (plus VG_OM_RETRIES re-reads under contention), 5 entries each:
 * the worst case, every level in use and every home overflowing. With L
 * levels in use and no overflow it is 2L buckets, fewer where p >> k is
 * 0 (bench/objmap_bench: 9 on average for blocks of 16 B to 4 KB). The
 * window is 6 buckets: with 4, a million blocks at the sizing's load had
 * 10 refused; with 6, none. An insert reads its key's window three
 * times at most (a pass a class of slot, best first); a free or remove,
 * which knows the base and not the length, one key per level in use: at
 * most VG_OM_NLEVELS * VG_OM_WINDOW buckets. In BPF each bucket visit is
 * one bpf_loop step, so the verifier checks one visit, not hundreds.
 *
 * Never lie: an insert that finds no room in its window (or cannot get a
 * slot in time, VG_OM_TRIES) is counted (VG_OMC_LOST, VG_OMC_BUSY) and
 * widens the header's lost range [live_lo, live_hi), the hull of every
 * object the map failed to hold; a lookup that finds no object for a p in
 * that range answers VG_OM_UNKNOWN, as does one that could not read an
 * entry consistently. Freed entries are the table's slack: an insert with
 * no empty slot takes a freed one (VG_OMC_EVICTED) after widening the
 * freed range [freed_lo, freed_hi), and a lookup that answers "not in a
 * freed block" for a p there says so (VG_OM_MAYBE_FREED): validity is
 * still decided, freed(p) is not. A new object at the base of an older
 * entry replaces it (a freed block given out again; VG_OMC_STALE counts a
 * live one, a free that was never seen). The lost ranges only grow.
 *
 * Concurrency: writers on several CPUs (BPF) and threads (the agent).
 * Each entry has a sequence word, its lock as the slice table's lock word
 * (bpf/kstep.bpf.h): a writer takes it by compare-and-swap from even to
 * odd, with a bounded number of tries, writes, and releases it even again;
 * a reader takes no lock: it reads the word, the entry, the word again,
 * and uses the entry only when both are the same even number (a seqlock),
 * re-reading a bucket at most VG_OM_RETRIES times a lookup. Entries never
 * move, so a reader can miss only an entry being written at that moment.
 * The home's `over` is raised before a displaced entry is published and
 * lowered after it is gone; levels bits are set before the entry is
 * published and never cleared. x86-64's ordering (TSO) is what the BPF
 * side relies on, as kunlock does; the user side says it with atomics.
 *
 * Complete: a map that saw every allocation of its process (vigil
 * started it) says so in its header (hdr.complete), and only then is a
 * pointer with no entry at all (a stack) known to be no heap block:
 * freeable(p), vg_om_freeable, is false there rather than unknown.
 *
 * Sizing: vg_om_nbuckets(n) gives a table for n objects at half load;
 * the map's max_entries is that plus one (the header), set before load;
 * user space calls vg_om_init on the mapped array before any program
 * runs (a map whose header is not initialised answers VG_OM_UNKNOWN).
 */
#ifndef VIGIL_OBJMAP_H
#define VIGIL_OBJMAP_H

#ifndef __bpf__
#include <linux/types.h>	/* (vmlinux.h or linux/types.h in BPF) */
#endif

#define VG_OM_MAGIC 0x766f6d31u		/* "vom1" */
#define VG_OM_WAYS 5			/* entries in a bucket */
#define VG_OM_WINDOW 6			/* buckets a key's entries may use */
#define VG_OM_MIN_LEVEL 4		/* 16 bytes */
#define VG_OM_MAX_LEVEL 56
#define VG_OM_NLEVELS (VG_OM_MAX_LEVEL - VG_OM_MIN_LEVEL + 1)
#define VG_OM_LEN_BITS 56		/* entry.lk: length | kind << 56 */
#define VG_OM_LEN_MASK ((1ull << VG_OM_LEN_BITS) - 1)
/* bucket re-reads a lookup may make, all told, when it meets entries
 * being written; then it answers unknown */
#define VG_OM_RETRIES 64
/* tries an insert or a remove may make for a slot another writer took
 * between its scan and its claim, or holds; then VG_OM_EBUSY */
#define VG_OM_TRIES 64
/* the most bucket visits of one call: what its loop is bounded by */
#define VG_OM_FIND_STEPS (VG_OM_NLEVELS * 2 * VG_OM_WINDOW + VG_OM_RETRIES)
#define VG_OM_PUT_STEPS (3 * VG_OM_WINDOW + VG_OM_TRIES)
#define VG_OM_DEL_STEPS (VG_OM_NLEVELS * VG_OM_WINDOW + VG_OM_TRIES)

enum vg_om_kind {
	VG_OM_EMPTY = 0,
	VG_OM_HEAP,		/* a live heap block */
	VG_OM_GLOBAL,		/* a global or static, writable */
	VG_OM_RODATA,		/* a global or static, read-only */
	VG_OM_FREED,		/* a heap block that was freed */
	VG_OM_ARENA,		/* the heap's own range: holds the blocks */
	VG_OM_POOL,		/* a live block of the program's own
				 * allocator (a pool's), maybe inside a
				 * heap block or a global (its slab) */
	VG_OM_NKINDS
};

/* live objects: they never overlap one another, but for a pool block
 * inside the object it was carved from, which a lookup answers with
 * (the innermost) */
static inline int vg_om_is_object(__u32 kind)
{
	return kind == VG_OM_HEAP || kind == VG_OM_GLOBAL ||
	       kind == VG_OM_RODATA || kind == VG_OM_POOL;
}

/* 24 bytes: the kind rides in the length's top byte so that a bucket of
 * five fits 128 bytes with its counter */
struct vg_om_entry {
	__u32 seq;		/* even: stable; odd: being written */
	__u32 site;		/* the inserter's: an allocation site */
	__u64 base;
	__u64 lk;		/* len | kind << VG_OM_LEN_BITS; 0: empty */
};

struct vg_om_bucket {
	__u32 over;		/* entries of this home in the next buckets */
	__u32 pad;
	struct vg_om_entry e[VG_OM_WAYS];
};

enum vg_om_counter {
	VG_OMC_LOST,		/* an insert found no room: lost range */
	VG_OMC_BUSY,		/* an insert or remove gave up on contention */
	VG_OMC_EVICTED,		/* a freed entry dropped to make room */
	VG_OMC_TORN,		/* a lookup could not read a bucket */
	VG_OMC_STALE,		/* a live entry replaced at its base */
	VG_OMC_N
};

/* element 0 of the array */
struct vg_om_hdr {
	__u32 magic;		/* VG_OM_MAGIC once vg_om_init ran */
	__u32 mask;		/* buckets - 1 (a power of two) */
	__u64 levels;		/* bit k: some entry of level k was filed */
	/* hulls of what the map failed to hold: [lo, hi), empty as lo > hi */
	__u64 live_lo, live_hi;		/* objects: absence proves nothing */
	__u64 freed_lo, freed_hi;	/* freed blocks: freed(p) unknown */
	__u64 cnt[VG_OMC_N];
	/* bit k: a pool block of level k was filed. Until one is, a
	 * lookup ends at the first object it meets, as no object can be
	 * inside another */
	__u64 pools;
	/* the hull of heap blocks freed whose pool blocks were not all
	 * taken out with them (too many granules to look through): a pool
	 * block there is not believed, the object around it answers */
	__u64 pool_doubt_lo, pool_doubt_hi;
	/* 1: the map saw every allocation of the process, but for what its
	 * lost range holds (vigil started it and files its blocks from its
	 * start): memory with no entry is no block (freeable(p) false
	 * there, include/vigil_objmap_pred.h); 0 (vigil attached, or an
	 * allocation it does not follow): unknown. Set by vigil once, before
	 * the agent uses the map (vg_om_set_complete) */
	__u64 complete;
	/* the in-process agent's map only: the bytes of its level hints
	 * after the buckets, VG_OM_HINTS_PER_BUCKET a bucket
	 * (inproc/omhint.h); 0: none (the BPF map) */
	__u64 hints;
};
#define VG_OM_HINTS_PER_BUCKET 8

union vg_om_elem {
	struct vg_om_bucket b;
	struct vg_om_hdr h;
};

_Static_assert(sizeof(struct vg_om_bucket) == 128, "a bucket is 128 bytes");
_Static_assert(sizeof(struct vg_om_hdr) <= sizeof(struct vg_om_bucket),
	       "the header fits an element");

/* The array as user space and the agent see it (mmapped): the header,
 * then the buckets. BPF code passes 0 and names the map VG_OM_MAP. */
struct vg_objmap {
	union vg_om_elem hdr;
	union vg_om_elem b[];
};

/* What a lookup found */
enum { VG_OM_UNKNOWN = -1, VG_OM_NONE = 0, VG_OM_FOUND = 1 };
#define VG_OM_MAYBE_FREED 1	/* obj.flags: p may be in a freed block the
				 * map could not keep */
struct vg_om_obj {
	__u64 base, len;
	__u32 kind;		/* enum vg_om_kind; 0 for none */
	__u32 site;
	__u32 flags;
	__u32 visits;		/* buckets read: the probe count */
};

/* Other results */
#define VG_OM_ENOROOM (-1)	/* insert: no room (the lost range grew) */
#define VG_OM_EBUSY (-2)	/* no slot in time (the lost range grew) */
#define VG_OM_EINIT (-3)	/* the map is not initialised */

/* Buckets for n objects: a power of two, half the entries left free */
static inline __u64 vg_om_nbuckets(__u64 nobjects)
{
	__u64 want = (2 * nobjects + VG_OM_WAYS - 1) / VG_OM_WAYS, n = 2;

	while (n < want)
		n <<= 1;
	return n;
}

#include "vigil_objmap_code.h"

#endif

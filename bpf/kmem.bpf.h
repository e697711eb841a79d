/* The kernel tier's object map (include/vigil_objmap.h): the memory
 * predicates (valid(p, n), block_length, freed, strlen_at: VG_OP_MEM) of
 * a property stepped here, answered from one BPF_F_MMAPABLE array, as
 * the in-process agent answers them from its own (inproc/kstep.c,
 * inproc/objmap.c: the same semantics, line for line where it can be).
 *
 * vigil sizes it before load (--max-objects; three elements, and its
 * code dead, kmem_on 0, when no kernel-tier property asks), initialises
 * it and files the program's globals and the heap's start at the
 * program's exec, stopped there (user/session/session_objmap.c, over
 * user/objmap/om_fill.c), and a library's globals at the loader's
 * rendezvous; the probes file each heap block at its allocation event
 * and mark it freed at free's entry, after the event's properties have
 * been stepped (vg_kstep), so a guard at free sees the block still live,
 * as the agent's does.
 *
 * Included by bpf/vigil/kstep.bpf.c alone: its global functions (vg_kmem
 * a predicate, vg_kmem_event an allocation event, and the map's
 * operations under them) are checked once each, on their own, whatever
 * state the interpreter is in when it calls them. */
#ifndef VIGIL_KMEM_BPF_H
#define VIGIL_KMEM_BPF_H

#include "vigil_fast.h"		/* struct vg_fast_omev: each event's part */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);		/* buckets + 1, set by user space */
	__uint(map_flags, BPF_F_MMAPABLE);	/* vigil initialises it */
	__type(key, __u32);
	__type(value, union vg_om_elem);
} objmap SEC(".maps") VG_SHARED;

/* A lookup's cursor (struct vg_om_find, 112 bytes): per CPU, not on the
 * stack of vg_klookup, the sixth call of the interpreter's chain, which
 * Linux 6.1 counts whole against 512 bytes ("combined stack size of 6
 * calls is 544. Too large"), as kstep_args' struct vm */
#define VG_OM_FIND_BYTES 128
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, VG_OM_FIND_BYTES);
} om_find SEC(".maps") VG_SHARED;
#define VG_OM_FIND_SCRATCH() ({						\
	__u32 __vg_om_z = 0;						\
	(struct vg_om_find *)bpf_map_lookup_elem(&om_find, &__vg_om_z); \
})

#define VG_OM_MAP objmap
#include "vigil_mempred.h"
#include "vigil_objmap.h"

_Static_assert(sizeof(struct vg_om_find) <= VG_OM_FIND_BYTES,
	       "a lookup's cursor fits om_find");

/* Each event's part in the map (user/objmap/om_fill.c's roles, as the
 * agent's sh->omev): role 0 for an event that files nothing */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct vg_fast_omev);
} om_ev SEC(".maps") VG_SHARED;

/* The brk heap, filed as an arena as far as the blocks seen reach
 * (inproc/objmap.c's heap_reach): lo its start (0: not filed, the
 * map answers unknown between blocks), hi how far it is filed; the
 * break is read from the thread's mm at offsets user space found in the
 * kernel's BTF (no CO-RE here: the kstep object loads without it) */
struct vg_om_heap {
	__u64 lo, hi;
	__u32 off_mm, off_brk;	/* task_struct.mm, mm_struct.brk; 0: none */
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vg_om_heap);
} om_heap SEC(".maps") VG_SHARED;

/* Per kernel-tier property, the steps a memory predicate left unknown,
 * and of those the ones that left the slice out of its initial state
 * (the agent's sh->kunknown, kunknown_kept): vigil adds them to the
 * monitor at the end, which marks the property inconclusive */
struct vg_kunknown {
	__u64 n, kept;
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_KMAX_PROPS);
	__type(key, __u32);
	__type(value, struct vg_kunknown);
} kmem_unknown SEC(".maps") VG_SHARED;

/* strlen_at's most bytes, as the user tier's and the agent's */
#define KMEM_STRLEN_MAX 65536
/* strdup's string, read to its end at most this far (the agent's) */
#define KMEM_STRDUP_MAX (1u << 20)
/* A block of the brk heap past what is filed starts at most this far
 * past it (the agent's HEAP_GROWTH_MAX) */
#define KMEM_HEAP_GROWTH_MAX (1ull << 30)

/* A string's length, read one aligned 8-byte word a bpf_loop step: a
 * read never crosses a page, so one that fails is a page that cannot be
 * read, which ends it as the agent's page-at-a-time read does. Two
 * branches a step: a 64-byte read a step, its words' bytes before p
 * masked under branches on where p falls, made the verifier give up
 * ("The sequence of 8193 jumps is too complex") */
struct kstrlen {
	__u64 p, max, n;
	int nul;		/* the string's NUL was found */
	int fault;		/* a read failed (at n) */
};

static int kstrlen_step(__u32 i, struct kstrlen *s)
{
	__u64 at = s->p + s->n, base = at & ~7ull, skip = at - base, w, z;

	if (s->n >= s->max)
		return 1;
	if (bpf_probe_read_user(&w, sizeof(w), (void *)base)) {
		s->fault = 1;
		return 1;
	}
	/* the bytes before p (the first word's) are not the string's: no
	 * NUL there (two shifts: skip may be 0, and 64 is no shift) */
	w |= ~((~0ull << (4 * skip)) << (4 * skip));
	/* the first zero byte (little-endian), exact for the lowest */
	z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
	if (z) {
		s->n += (vg_om_ctz(z) >> 3) - skip;
		s->nul = 1;
		return 1;
	}
	s->n += 8 - skip;
	return 0;
}

/* The string at p: its length capped at max, or -1 for unknown (p itself
 * unreadable), as inproc/kstep.c's strlen_at; *nul: its end was seen.
 * Global functions, these and the map's operations below: each checked
 * once on its own, not under each path of its callers (a predicate's
 * switch with the lookup and the string inlined made the verifier give
 * up: "The sequence of 8193 jumps is too complex") */
__noinline __s64 vg_kstrlen(__u64 p, __u64 max, int *nul)
{
	struct kstrlen s = { .p = p, .max = max };

	if (!nul)
		return -1;
	bpf_loop(max / 8 + 2, kstrlen_step, &s, 0);
	*nul = s.nul && s.n < max;
	if (s.n >= max)
		return (__s64)max;
	if (s.nul)
		return (__s64)s.n;
	if (s.fault)
		return s.n ? (__s64)s.n : -1;
	return (__s64)s.n;
}

/* the object map's lookup (o: never NULL) */
__noinline int vg_klookup(__u64 p, struct vg_om_obj *o)
{
	if (!o)
		return VG_OM_UNKNOWN;
	return vg_om_lookup(0, p, o);
}

/* VG_OP_MEM: predicate pred of pointer p and length n; unknown sets
 * *unknown and answers 0 (the guard is then passed over: kapply_step).
 * inproc/kstep.c's mem_pred, with the map in BPF. A global function:
 * the verifier checks it once (unknown: never NULL; the check is the
 * verifier's, as vg_kbinop's err). */
__noinline __s64 vg_kmem(__u32 pred, __u64 p, __u64 n, int *unknown)
{
	struct vg_om_obj o;
	__s64 len;
	int nul;

	if (!unknown)
		return 0;
	/* an empty range is valid wherever it is, as the user tier says */
	if ((pred == VG_MEM_VALID || pred == VG_MEM_VALID_READ) && !n)
		return 1;
	if (pred == VG_MEM_STRLEN_AT) {	/* the memory, not the map */
		if (n > KMEM_STRLEN_MAX)
			n = KMEM_STRLEN_MAX;
		if (!n)
			return 0;
		if ((len = vg_kstrlen(p, n, &nul)) < 0)
			goto unknown;
		return len;
	}
	/* statements about heap blocks, which a complete map can make of
	 * memory it has no entry for (vigil_objmap_pred.h) */
	if (pred == VG_MEM_FREEABLE || pred == VG_MEM_FREED) {
		int r = vg_klookup(p, &o), c = vg_om_complete(0);
		enum vg_om_at at = vg_om_at_of(r, &o);

		r = pred == VG_MEM_FREED
			    ? vg_om_freed_at(at, !!(o.flags & VG_OM_MAYBE_FREED), c)
			    : vg_om_freeable_at(at, o.base, p, c);
		if (r < 0)
			goto unknown;
		return r;
	}
	if (vg_om_answer(pred, p, n, vg_klookup(p, &o), &o, &len))
		return len;
unknown:
	*unknown = 1;
	return 0;
}

/* the map's insert and its free and remove (vg_om_del), once each: the
 * verifier's cost of one is about 200,000 instructions */
__noinline int vg_kinsert(__u64 base, __u64 len, __u32 kind, __u32 site)
{
	return vg_om_insert(0, base, len, kind, site);
}

__noinline int vg_kdel(__u64 base, __u32 want, __u32 to)
{
	return vg_om_del(0, base, want, to);
}

/* The thread's break, or 0 when it cannot be read */
static __always_inline __u64 kmem_brk(struct vg_om_heap *h)
{
	__u64 mm = 0, brk = 0;
	void *task = (void *)bpf_get_current_task();

	if (!h->off_mm || !h->off_brk ||
	    bpf_probe_read_kernel(&mm, sizeof(mm), task + h->off_mm) || !mm ||
	    bpf_probe_read_kernel(&brk, sizeof(brk),
				  (void *)(mm + h->off_brk)))
		return 0;
	return brk;
}

/* inproc/objmap.c's heap_reach: the arena [lo, the break) filed again
 * when a block past what is filed is in the brk heap */
__noinline int vg_kheap_reach(__u64 base, __u64 end)
{
	__u32 zero = 0;
	struct vg_om_heap *h = bpf_map_lookup_elem(&om_heap, &zero);
	__u64 lo, hi, brk;

	if (!h)
		return 0;
	lo = VG_OM_LOAD(h->lo);
	hi = VG_OM_LOAD(h->hi);
	if (!lo || base < lo || end <= hi ||
	    (base > hi && base - hi > KMEM_HEAP_GROWTH_MAX))
		return 0;
	brk = kmem_brk(h);
	if (brk <= hi || end > brk || base >= brk)
		return 0;	/* not in the brk heap (an mmap'd block) */
	if (__sync_val_compare_and_swap(&h->hi, hi, brk) != hi)
		return 0;	/* another thread files it */
	vg_kinsert(lo, brk - lo, VG_OM_ARENA, 0);
	if (hi > lo && vg_om_level(hi - lo) != vg_om_level(brk - lo))
		vg_kdel(lo, VG_OM_ARENA, 0);	/* vg_om_remove */
	return 0;
}

__noinline int vg_kfile(__u64 base, __u64 len, __u32 event)
{
	if (!base)
		return 0;	/* the call failed */
	vg_kinsert(base, len, VG_OM_HEAP, event);
	return vg_kheap_reach(base, base + (len ? len : 1));
}

/* vg_om_free */
static __always_inline int kmem_free(__u64 base)
{
	return vg_kdel(base, VG_OM_HEAP, VG_OM_FREED);
}

static __always_inline __u64 kmem_at(__u64 *slot, __u8 i)
{
	return i < VG_NSLOTS ? slot[i] : 0;
}

/* The allocation event vg_kstep just stepped (its slots in kstep_args):
 * its block filed, or freed (inproc/objmap.c's vg_om_event; a realloc's
 * old block is freed at its return here, where its entry is only the
 * stash: before the new one is filed, so that a block moved in place is
 * the new one). A global function, as vg_kmem. */
__noinline int vg_kmem_event(__u32 event, __u32 at_entry)
{
	__u32 zero = 0;
	struct kstep_args *a = bpf_map_lookup_elem(&kstep_args, &zero);
	struct vg_fast_omev *o = bpf_map_lookup_elem(&om_ev, &event);
	__u64 *slot, p, len;
	int nul;

	if (!a || !o)
		return 0;
	slot = a->m.slot;
	switch (o->role) {
	case VG_OMEV_FREE:
		if (at_entry && (p = kmem_at(slot, o->ptr)))
			kmem_free(p);
		return 0;
	case VG_OMEV_REALLOC:
		if (at_entry)
			return 0;
		p = kmem_at(slot, o->ptr);
		/* failed (NULL for a size that is not 0): the old block is
		 * still the program's */
		if (!slot[VG_SLOT_RET] && kmem_at(slot, o->size1))
			return 0;
		if (p)
			kmem_free(p);
		__attribute__((fallthrough));	/* the new block */
	case VG_OMEV_ALLOC:
		if (at_entry)
			return 0;
		len = kmem_at(slot, o->size1);
		if (o->size2 != VG_OMEV_NOSLOT)
			len *= kmem_at(slot, o->size2);
		vg_kfile(slot[VG_SLOT_RET], len, event);
		return 0;
	case VG_OMEV_OUT:
		if (!at_entry && !slot[VG_SLOT_RET])
			vg_kfile(kmem_at(slot, o->ptr),
				  kmem_at(slot, o->size1), event);
		return 0;
	case VG_OMEV_STRDUP:
		if (at_entry || !(p = slot[VG_SLOT_RET]))
			return 0;
		len = (__u64)vg_kstrlen(p, KMEM_STRDUP_MAX, &nul);
		if (!nul) {	/* its end unseen: never a wrong length */
			vg_om_mark_lost(0, p, KMEM_STRDUP_MAX);
			return 0;
		}
		vg_kfile(p, len + 1, event);
		return 0;
	}
	return 0;
}

/* A memory predicate of this step was unknown (inproc/kstep.c's
 * count_unknown): counted, unless a known guard took a violation; kept
 * when the slice is left out of its initial state */
static __always_inline void kmem_count_unknown(struct vg_kprop *p,
					       __u32 prop, int to, int from,
					       __s64 *vars)
{
	int state = to >= 0 ? to : from, kept = state != 0;
	__u32 k = prop & (VG_KMAX_PROPS - 1);
	struct vg_kunknown *u = bpf_map_lookup_elem(&kmem_unknown, &k);

	if (!u || (to >= 0 && ((p->violation_mask >> (to & 31)) & 1)))
		return;
	if (!kept && !vars_initial(p, vars))
		kept = 1;
	__sync_fetch_and_add(&u->n, 1);
	if (kept)
		__sync_fetch_and_add(&u->kept, 1);
}

#endif

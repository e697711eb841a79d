/* Private to user/monitor/: the interpreter context and the slice store.
 *
 * The store keeps, per property and per mask of bound parameters, the
 * slices of that mask in fixed-size records allocated from chunked pools
 * (stable addresses, free lists: no malloc per event), found through
 * open-addressing hash tables that hold 32-bit record references.
 *
 * A mask whose slices need no index (every mask of a one-parameter
 * property, the single-parameter masks of a two-parameter one) and whose
 * records are small keeps them *inline*: the table slots are the records,
 * and a reference is a slot number. Finding a slice then costs one cache
 * miss instead of two (entry, then record), which is most of the time of
 * an event on a store larger than the caches. Inline slots never move
 * while references to them are held (see slices.c). */
#ifndef VIGIL_MONITOR_INTERNAL_H
#define VIGIL_MONITOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monitor.h"

/* ---- slice store (slices.c) ------------------------------------------ */

#define VG_REF_NONE UINT32_MAX
#define VG_REF_TOMB 0x80000000u		/* ref names a tombstone record */

/* Record flags. */
#define VG_SF_INCONC 0x01		/* may have missed an event */

/* Header of every record, live or tombstone. Live records continue with
 * links[2 * nidx] (prev, next per submask index), then params[popcount],
 * then vars[nvars]; tombstones with params only. */
struct vg_rec {
	uint16_t state;
	uint8_t flags;
	uint8_t kind;			/* inline slots: VG_SLOT_* */
	uint32_t aux;			/* pool: free-list link while free;
					 * inline: the 32 hash bits */
};

/* What an inline slot holds. HOLE is a removed slot that a probe must walk
 * past (removal does not shift later slots: they may be referenced). */
#define VG_SLOT_EMPTY 0
#define VG_SLOT_LIVE 1
#define VG_SLOT_TOMB 2
#define VG_SLOT_HOLE 3

/* Inline records above this size would make the empty slots of a table
 * cost more memory than the second cache miss costs time. */
#define VG_INLINE_MAX 64

struct vg_pool {
	uint32_t rec_size;		/* bytes, multiple of 8 */
	uint32_t nchunks, cap_chunks;
	char **chunks;
	uint32_t next_fresh;		/* records handed out of the last chunk */
	uint32_t free_head;		/* VG_REF_NONE when empty */
	uint64_t bytes;
};

/* Open-addressing table of (ref, hash) pairs, linear probing, backward-
 * shift deletion so churn leaves no deleted markers behind. */
struct vg_htab_ent {
	uint32_t ref;
	uint32_t hash;
};

struct vg_htab {
	struct vg_htab_ent *ent;
	uint32_t cap;			/* power of two, or 0 */
	uint32_t count;
};

/* All slices of one property that bind exactly `mask`. */
struct vg_mstore {
	uint32_t mask;
	int npar;			/* popcount(mask) */
	uint8_t par[VG_MAX_PARAMS];	/* bound parameter indices, ascending */
	int nidx;			/* submask indexes kept for this mask */
	uint32_t idx_mask[(1 << VG_MAX_PARAMS)];
	struct vg_htab idx[(1 << VG_MAX_PARAMS)];
	int8_t idx_k[(1 << VG_MAX_PARAMS)];	/* submask -> index, or -1 */
	struct vg_htab tab;		/* exact binding -> ref */
	struct vg_pool live, tomb;
	uint32_t nvars;
	uint32_t off_params, off_vars;	/* byte offsets in a live record */
	uint64_t nlive, ntomb;
	/* records stored without VG_SF_INCONC since the last time
	 * vg_monitor_mark_inconclusive flagged them all: while 0, every
	 * record has the flag (no one clears it), and marking again is a
	 * no-op rather than a walk of the table for each refused slice */
	uint64_t unmarked;
	/* inline masks: tab/live/tomb unused, slots here */
	bool inl;
	uint32_t esize;			/* bytes per slot */
	uint32_t icap;			/* power of two, or 0 */
	uint32_t iholes;
	char *itab;
};

struct vg_store {
	int nparams;
	uint32_t nmasks;		/* 1 << nparams */
	struct vg_mstore ms[1 << VG_MAX_PARAMS];
};

/* needed[m] = bit s set when mask m keeps an index on submask s. */
int vg_store_init(struct vg_store *st, int nparams, uint32_t nvars,
		  const uint32_t *needed);
void vg_store_fini(struct vg_store *st);
uint64_t vg_store_bytes(const struct vg_store *st);

/* Inline: it is on the path of every event, and with the mask known
 * (one parameter, say) the compiler unrolls it to a few multiplications. */
static inline uint64_t vg_store_hash(uint32_t mask, const uint64_t *full)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * (mask + 1);

	for (int i = 0; i < VG_MAX_PARAMS; i++) {
		if (!(mask & (1u << i)))
			continue;
		h ^= full[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

/* Record access. Records come in chunks of VG_CHUNK_RECS. */
#define VG_CHUNK_SHIFT 12
#define VG_CHUNK_RECS (1u << VG_CHUNK_SHIFT)

static inline struct vg_rec *vg_pool_rec(const struct vg_pool *p, uint32_t id)
{
	return (struct vg_rec *)(p->chunks[id >> VG_CHUNK_SHIFT] +
				 (size_t)(id & (VG_CHUNK_RECS - 1)) *
					 p->rec_size);
}

static inline struct vg_rec *vg_store_rec(const struct vg_mstore *ms,
					  uint32_t ref)
{
	if (ms->inl)
		return (struct vg_rec *)(ms->itab + (size_t)(ref & ~VG_REF_TOMB) *
							    ms->esize);
	if (ref & VG_REF_TOMB)
		return vg_pool_rec(&ms->tomb, ref & ~VG_REF_TOMB);
	return vg_pool_rec(&ms->live, ref);
}

/* The 32 hash bits a table keeps: slot = h32 & (cap - 1). */
static inline uint32_t vg_h32(uint64_t h)
{
	return (uint32_t)(h >> 32);
}
static inline uint64_t *vg_rec_params(const struct vg_mstore *ms,
				      struct vg_rec *r, uint32_t ref)
{
	return (uint64_t *)((char *)r + ((ref & VG_REF_TOMB)
					 ? sizeof(struct vg_rec)
					 : ms->off_params));
}
static inline int64_t *vg_rec_vars(const struct vg_mstore *ms,
				   struct vg_rec *r)
{
	return (int64_t *)((char *)r + ms->off_vars);
}
/* Exact lookup in an inline mask (vg_store_find's case, inline because
 * the one-parameter path is this and little else). */
static inline uint32_t vg_itab_find(const struct vg_mstore *ms,
				    const uint64_t *full, uint32_t hv)
{
	uint32_t m = ms->icap - 1;

	if (!(ms->nlive + ms->ntomb))
		return VG_REF_NONE;
	for (uint32_t j = hv & m;; j = (j + 1) & m) {
		const struct vg_rec *r =
			(const struct vg_rec *)(ms->itab + (size_t)j * ms->esize);
		const uint64_t *p = (const uint64_t *)(r + 1);
		int i;

		if (r->kind == VG_SLOT_EMPTY)
			return VG_REF_NONE;
		if (r->kind == VG_SLOT_HOLE || r->aux != hv)
			continue;
		for (i = 0; i < ms->npar && p[i] == full[ms->par[i]]; i++)
			;
		if (i == ms->npar)
			return r->kind == VG_SLOT_TOMB ? j | VG_REF_TOMB : j;
	}
}

/* params (compact, ms->npar values) -> full [VG_MAX_PARAMS], 0 unbound */
void vg_rec_expand(const struct vg_mstore *ms, const uint64_t *compact,
		   uint64_t *full);

/* Exact lookup of the binding given as full[VG_MAX_PARAMS] (only the
 * entries in ms->mask are read); VG_REF_NONE if absent. */
uint32_t vg_store_find(const struct vg_mstore *ms, const uint64_t *full,
		       uint64_t h);

/* Insert a new live slice / tombstone; returns its ref or VG_REF_NONE on
 * out of memory. The binding must not be present. */
uint32_t vg_store_add_live(struct vg_mstore *ms, const uint64_t *full,
			   uint64_t h, int state, uint8_t flags,
			   const int64_t *vars);
uint32_t vg_store_add_tomb(struct vg_mstore *ms, const uint64_t *full,
			   uint64_t h, int state, uint8_t flags);
/* Remove a slice (live or tombstone) and return its record to the pool. */
void vg_store_remove(struct vg_mstore *ms, uint32_t ref);
/* Turn a live slice into a tombstone in `state`; returns the tombstone's
 * ref, or VG_REF_NONE on out of memory (the slice is then gone). */
uint32_t vg_store_to_tomb(struct vg_mstore *ms, uint32_t ref, int state);

/* Live slices of ms whose parameters in submask `sub` equal full[]:
 * the head of the index list (iterate with vg_store_next). `sub` must be
 * one of ms->idx_mask. */
uint32_t vg_store_idx_head(const struct vg_mstore *ms, uint32_t sub,
			   const uint64_t *full);
uint32_t vg_store_next(const struct vg_mstore *ms, uint32_t ref, uint32_t sub);

/* Visit every entry (live and tombstones) of ms. The body may add to
 * other masks and change records, not add to or remove from ms. */
static inline uint32_t vg_store_cap(const struct vg_mstore *ms)
{
	return ms->inl ? ms->icap : ms->tab.cap;
}
static inline uint32_t vg_store_at(const struct vg_mstore *ms, uint32_t i)
{
	if (ms->inl) {
		uint8_t k = ((struct vg_rec *)(ms->itab + (size_t)i * ms->esize))->kind;

		return k == VG_SLOT_LIVE ? i
		     : k == VG_SLOT_TOMB ? i | VG_REF_TOMB : VG_REF_NONE;
	}
	return ms->tab.ent[i].ref;
}
#define VG_STORE_FOREACH(ms_, i_, ref_)                                    \
	for (uint32_t i_ = 0, ref_; i_ < vg_store_cap(ms_); i_++)          \
		if ((ref_ = vg_store_at(ms_, i_)) != VG_REF_NONE)

/* ---- interpreter (vm.c) ---------------------------------------------- */

/* Longest program vg_vm_check looks at; longer ones run checked. */
#define VG_VM_CHECK_MAX 256

/* Can code[0..len) never fail a run-time check, given slot, params, vars
 * [nvars] and globals [nglobals] all present? Then vg_vm_fast runs it with
 * the same result and effects as vg_vm_exec. */
bool vg_vm_check(const struct vg_insn *code, uint32_t len, uint32_t nvars,
		 uint32_t nglobals);
int64_t vg_vm_fast(const struct vg_vm_ctx *ctx);

/* ---- monitor state (monitor.c, access.c) ---------------------------- */

/* One transition, ready to run: its programs and whether each passed
 * vg_vm_check. Kept in the order of tr_list so that choosing among the
 * transitions of a (state, event) reads consecutive memory. */
struct tr_rt {
	const struct vg_insn *guard, *update;
	uint32_t glen, ulen;
	uint16_t to;
	bool gfast, ufast;
	int index;			/* into p->trans */
};

struct bind_rt {
	uint32_t mask;
	uint8_t slot[VG_MAX_PARAMS];
	bool creates;		/* may start a next life (vg_binding) */
};

struct prop_rt {
	const struct vg_property *p;
	int k;
	uint32_t nvars, nglobals, nmasks;
	bool evaluate;
	bool disabled;			/* vg_monitor_disable: no slices, no
					 * steps, not visited */
	bool inconclusive;		/* refused a slice, or marked */
	bool blind;			/* vg_monitor_mark_blind */
	/* slices marked inconclusive that went back to their initial
	 * state and were freed: their verdict stays inconclusive */
	uint64_t inconc_gone;
	uint64_t mem_unknown;		/* events a memory predicate left
					 * unknown */
	int64_t *globals, *init_vars, *tmp_vars, *saved_globals;
	int nb;
	struct bind_rt *b;
	int16_t *ev2b;			/* spec event -> b index, or -1 */
	uint32_t *tr_off;		/* [nstates * nb + 1] into tr_list */
	int *tr_list;
	struct tr_rt *trc;		/* parallel to tr_list */
	uint8_t *viol;			/* [nstates] */
	/* proper submasks of each mask, most parameters first */
	uint8_t order[1 << VG_MAX_PARAMS][1 << VG_MAX_PARAMS];
	uint8_t norder[1 << VG_MAX_PARAMS];
	uint64_t stored;		/* live slices + tombstones */
	struct vg_store st;
};

struct vg_fin {
	uint32_t mask, ref;
};

/* A pending state timeout (timers.c): the slice, the timed state, its
 * deadline, and what the report says of the event that entered it. */
struct vg_timer {
	uint64_t deadline, order;
	uint64_t params[VG_MAX_PARAMS];
	uint64_t entered, seq, stack, caller;
	uint32_t pid, tid;
	uint32_t mask;
	uint16_t prop, state;
};

struct vg_timers {
	struct vg_timer *h;		/* min-heap on (deadline, order) */
	size_t n, cap;
	uint64_t order;			/* arming counter: ties */
	uint64_t compactions;		/* stale entries dropped in bulk */
};

struct vg_monitor {
	const struct vg_spec *spec;
	struct vg_monitor_hooks hooks;
	uint64_t max_slices;
	int nprops;
	struct prop_rt *pr;
	struct vg_monitor_stats s;	/* live/tombstones/bytes computed */
	struct vg_fin *fin;		/* slices to finalise after an event */
	size_t nfin, capfin;
	struct vg_timers tm;		/* state timeouts (timers.c) */
	const struct vg_mem_oracle *mem;	/* VG_OP_MEM's answers */
	bool timed;			/* some evaluated property has them */
	bool firing;			/* in a timeout's transition */
};

/* ---- timeouts (timers.c) and what they use of monitor.c -------------- */

/* A slice of pr moves to state `to` (before the hook): its deadline when
 * `to` is timed (armed), 0 otherwise. */
void vg_timer_enter(struct vg_monitor *m, struct prop_rt *pr, uint32_t mask,
		    const uint64_t *params, int to, int64_t *vars,
		    const struct vg_mon_event *ev);
/* A slice made as a copy (a join, a mirrored or restored slice) in a timed
 * state keeps the deadline of its vars: armed for it too. */
void vg_timer_copy(struct vg_monitor *m, struct prop_rt *pr, uint32_t mask,
		   const uint64_t *params, int state, const int64_t *vars);
void vg_timers_free(struct vg_monitor *m);
/* t: the transition taken (index into prop->trans), -1 for a timeout */
void vg_mon_call_hook(struct vg_monitor *m, int prop, uint32_t mask,
		      const uint64_t *params, int to, int t,
		      const int64_t *vars, bool inconc, int from,
		      const struct vg_mon_event *ev);
int vg_mon_fin_push(struct vg_monitor *m, uint32_t mask, uint32_t ref,
		    struct vg_err *e);
int vg_mon_finalise(struct vg_monitor *m, struct prop_rt *pr,
		    struct vg_err *e);

/* A loop, not memcmp: nvars is a handful and the call would dominate. */
static inline bool vg_vars_initial(const struct prop_rt *pr, const int64_t *vars)
{
	for (uint32_t i = 0; i < pr->nvars; i++)
		if (vars[i] != pr->init_vars[i])
			return false;
	return true;
}

static inline bool vg_full_up(const struct vg_monitor *m, const struct prop_rt *pr)
{
	return m->max_slices && pr->stored >= m->max_slices;
}

static inline void vg_refuse(struct vg_monitor *m, struct prop_rt *pr)
{
	m->s.slices_refused++;
	pr->inconclusive = true;
}

#endif

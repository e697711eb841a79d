/* Private to user/monitor/: the interpreter context and the slice store.
 *
 * The store keeps, per property and per mask of bound parameters, the
 * slices of that mask in fixed-size records allocated from chunked pools
 * (stable addresses, free lists: no malloc per event), found through
 * open-addressing hash tables that hold 32-bit record references. */
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
#define VG_SF_FRESH 0x02		/* copied during the current event */

/* Header of every record, live or tombstone. Live records continue with
 * links[2 * nidx] (prev, next per submask index), then params[popcount],
 * then vars[nvars]; tombstones with params only. */
struct vg_rec {
	uint16_t state;
	uint8_t flags;
	uint8_t pad;
	uint32_t aux;			/* free-list link while free */
};

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

uint64_t vg_store_hash(uint32_t mask, const uint64_t *full);

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

/* Live slices of ms whose parameters in submask `sub` equal full[]:
 * the head of the index list (iterate with vg_store_next). `sub` must be
 * one of ms->idx_mask. */
uint32_t vg_store_idx_head(const struct vg_mstore *ms, uint32_t sub,
			   const uint64_t *full);
uint32_t vg_store_next(const struct vg_mstore *ms, uint32_t ref, uint32_t sub);

/* Visit every entry (live and tombstones) of ms; cb may not modify ms. */
#define VG_STORE_FOREACH(ms_, i_, ref_)                                    \
	for (uint32_t i_ = 0, ref_; i_ < (ms_)->tab.cap; i_++)             \
		if ((ref_ = (ms_)->tab.ent[i_].ref) != VG_REF_NONE)

/* ---- monitor state (monitor.c, access.c) ---------------------------- */

struct bind_rt {
	uint32_t mask;
	uint8_t slot[VG_MAX_PARAMS];
};

struct prop_rt {
	const struct vg_property *p;
	int k;
	uint32_t nvars, nglobals, nmasks;
	bool evaluate;
	bool inconclusive;		/* refused a slice, or marked */
	int64_t *globals, *init_vars, *tmp_vars, *saved_globals;
	int nb;
	struct bind_rt *b;
	int16_t *ev2b;			/* spec event -> b index, or -1 */
	uint32_t *tr_off;		/* [nstates * nb + 1] into tr_list */
	int *tr_list;
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

struct vg_monitor {
	const struct vg_spec *spec;
	struct vg_monitor_hooks hooks;
	uint64_t max_slices;
	int nprops;
	struct prop_rt *pr;
	struct vg_monitor_stats s;	/* live/tombstones/bytes computed */
	struct vg_fin *fin;		/* slices to finalise after an event */
	size_t nfin, capfin;
};

static inline bool vg_vars_initial(const struct prop_rt *pr, const int64_t *vars)
{
	return !pr->nvars ||
	       !memcmp(vars, pr->init_vars, pr->nvars * sizeof(int64_t));
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

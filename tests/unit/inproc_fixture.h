/* What the tests of the in-process step (inproc/kstep.c) share
 * (test_inproc_kstep.c, test_inproc_kstep_diff.c): a region as
 * include/vigil_fast.h describes it, holding the tables vigil's own
 * pipeline makes of a spec (its plan, vg_plan_build without a binary,
 * laid out by vg_ktier_fill), the records the step emits, and events fed
 * by hand (the slots a probe would fill). After cmocka.h. */
#ifndef VIGIL_TESTS_INPROC_FIXTURE_H
#define VIGIL_TESTS_INPROC_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstep.h"
#include "plan/plan.h"
#include "spec_load.h"

/* ---- the region ------------------------------------------------------ */

#define ALIGN64(x) (((x) + 63) & ~(size_t)63)
#define NKTRANS (VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS)

/* a region with the plan's tables and an empty slice table of nslots
 * (a power of two) taking at most max slices, and extra zeroed bytes
 * after them, at *extra_off (for an object map) */
static inline struct vg_fast_shared *region_new_extra(const struct vg_plan *p,
					       uint32_t nslots, uint32_t max,
					       size_t extra,
					       size_t *extra_off)
{
	size_t off = ALIGN64(sizeof(struct vg_fast_shared));
	size_t kprops = off, ktrans, kcode, kslots;
	struct vg_fast_shared *sh;
	char *r;

	off = ALIGN64(off + VG_KMAX_PROPS * sizeof(struct vg_kprop));
	ktrans = off;
	off = ALIGN64(off + NKTRANS * sizeof(struct vg_ktrans));
	kcode = off;
	off = ALIGN64(off + VG_KMAX_CODE * sizeof(struct vg_insn));
	kslots = off;
	off += nslots * sizeof(struct vg_kslot);
	off += 64;	/* the count of slices (the BPF global, in a run) */
	if (extra_off)
		*extra_off = off = ALIGN64(off);
	off += extra;
	assert_non_null(r = aligned_alloc(64, ALIGN64(off)));
	memset(r, 0, ALIGN64(off));
	sh = (struct vg_fast_shared *)r;
	sh->magic = VG_FAST_MAGIC;
	sh->version = VG_FAST_VERSION;
	sh->nkprops = p->kt.nkprops;
	sh->kprops_off = kprops;
	sh->ktrans_off = ktrans;
	sh->kcode_off = kcode;
	sh->kslots_addr = (__u64)(uintptr_t)(r + kslots);
	sh->kslot_count_addr = (__u64)(uintptr_t)(r + kslots +
						  nslots * sizeof(struct vg_kslot));
	sh->kslot_mask = nslots - 1;
	sh->kslot_max = max;
	vg_ktier_fill(&p->kt, (struct vg_kprop *)(r + kprops),
		      (struct vg_ktrans *)(r + ktrans),
		      (struct vg_insn *)(r + kcode));
	return sh;
}

static inline struct vg_fast_shared *region_new(const struct vg_plan *p,
					 uint32_t nslots, uint32_t max)
{
	return region_new_extra(p, nslots, max, 0, NULL);
}

static inline struct vg_kprop *kprops_of(struct vg_fast_shared *sh)
{
	return (struct vg_kprop *)((char *)sh + sh->kprops_off);
}

static inline struct vg_ktrans *ktrans_of(struct vg_fast_shared *sh)
{
	return (struct vg_ktrans *)((char *)sh + sh->ktrans_off);
}

static inline struct vg_insn *kcode_of(struct vg_fast_shared *sh)
{
	return (struct vg_insn *)((char *)sh + sh->kcode_off);
}

static inline struct vg_kslot *kslots_of(struct vg_fast_shared *sh)
{
	return (struct vg_kslot *)(uintptr_t)sh->kslots_addr;
}

/* the slices the table holds (kslot_count) */
static inline __u32 kcount_of(struct vg_fast_shared *sh)
{
	return *(__u32 *)(uintptr_t)sh->kslot_count_addr;
}

/* the slice (kprop k, key) in the table, NULL when absent */
static inline struct vg_kslot *kslice(struct vg_fast_shared *sh, uint32_t k,
			       uint64_t k0, uint64_t k1)
{
	struct vg_kslot *t = kslots_of(sh);

	for (uint32_t i = 0; i <= sh->kslot_mask; i++)
		if (t[i].use == VG_KSLOT_READY && t[i].prop == k &&
		    t[i].key[0] == k0 && t[i].key[1] == k1)
			return &t[i];
	return NULL;
}

/* ---- records --------------------------------------------------------- */

static struct vg_rec_kstep recs[256];
static int nrecs;
static bool drop;		/* the ring is full */

static inline int emit(void *ctx, const void *rec, __u32 len, __u32 event)
{
	assert_int_equal(len, sizeof(struct vg_rec_kstep));
	assert_int_equal(((const struct vg_rec_kstep *)rec)->h.event, event);
	if (drop)
		return -1;
	if (nrecs < 256)
		memcpy(&recs[nrecs], rec, len);
	nrecs++;
	return 0;
}

/* ---- the spec, its plan, the events ---------------------------------- */

struct fix {
	struct vg_spec *spec;
	struct vg_plan *plan;
	struct vg_fast_shared *sh;
	struct vg_inproc_env env;
};

static inline void fix_init(struct fix *f, struct vg_spec *s, uint32_t nslots,
		     uint32_t max)
{
	struct vg_plan_opts o = { .binary = NULL, .tier = VG_TIER_KERNEL,
				  .on_violation = VG_OV_STOP,
				  .no_ktimer = true };
	struct vg_err e = { 0 };

	memset(f, 0, sizeof(*f));
	f->spec = s;
	f->plan = vg_plan_build(s, &o, &e);
	if (!f->plan)
		fail_msg("plan: %s", e.msg);
	f->sh = region_new(f->plan, nslots, max);
	f->env = (struct vg_inproc_env){ .sh = f->sh, .tgid = 4242,
					 .tid = 4243, .now_ns = 1000,
					 .emit = emit };
	nrecs = 0;
	drop = false;
}

static inline void fix_free(struct fix *f)
{
	free(f->sh);
	vg_plan_free(f->plan);
	vg_spec_free(f->spec);
}

static inline int event_of(const struct vg_spec *s, const char *name,
		    enum vg_event_kind kind)
{
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].kind == kind && !strcmp(s->events[i].name, name))
			return i;
	fail_msg("no event %s", name);
	return -1;
}

/* event ev with the given slots; returns vg_inproc_kstep's */
static inline int step(struct fix *f, int ev, const uint64_t *slots)
{
	__u64 slot[VG_NSLOTS];

	memcpy(slot, slots, sizeof(slot));
	f->env.now_ns += 10;
	return vg_inproc_kstep(&f->env, &f->plan->events[ev].conf,
			       (uint32_t)ev, slot,
			       f->spec->events[ev].kind == VG_EV_BEFORE);
}

static inline int state_named(const struct vg_property *p, const char *name)
{
	for (int i = 0; i < p->nstates; i++)
		if (!strcmp(p->states[i].name, name))
			return i;
	fail_msg("no state %s", name);
	return -1;
}

#endif

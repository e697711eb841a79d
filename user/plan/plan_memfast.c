/* Memory predicates in the kernel tier (plan.h, vg_plan_mem_candidates
 * and vg_plan_mem_check).
 *
 * A property that asks valid(p, n) and the like needs an object map
 * where it is stepped. The in-process agent has one (include/
 * vigil_objmap.h, inproc/objmap.c): it files the blocks at the allocation
 * events and answers the predicates in its own step of the kernel tier
 * (inproc/kstep.c). That only works when the agent sees every event of
 * the property and the allocations with them: so the property gets the
 * kernel tier in-process when the in-process tier takes every function
 * its events use, and is planned again in the user tier, with the
 * reason, when it turns out not to (a function that cannot be patched,
 * --stacks). Where the run has no in-process tier at all (--no-fast),
 * the BPF probes keep an object map of their own (bpf/kmem.bpf.h) and
 * the property is stepped there, in the kernel tier; not for a process
 * attached to (its heap so far unseen), vigil watch or followed forks:
 * the user tier, whose object map is in vigil. */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#include "objmap/allocs.h"
#include "vigil_objmap.h"

/* the most the agent's object map may take of the region vigil shares
 * with the target (a memfd: memory the target's machine must have) */
#define OBJMAP_MAX_BYTES (1ull << 30)

/* can the run have the in-process tier and its object map at all? */
static bool possible(const struct vg_plan_opts *o)
{
	return o->binary && o->fast_objmap && !o->fast_off && !o->no_fast_why &&
	       o->tier != VG_TIER_USER && !o->follow_forks;
}

static void add_why(char *why, const char *more)
{
	char was[256];

	snprintf(was, sizeof(was), "%s", why);
	snprintf(why, 256, "%.120s; %.130s", was, more);
}

/* The kernel tier in the BPF probes, with their own object map
 * (bpf/kmem.bpf.h), where the in-process tier cannot be had at all: a
 * property of it would have some calls stepped by the agent and some by
 * the probes, on two maps. NULL when it can be had, else why not. */
static const char *bpf_no(const struct vg_plan_opts *o)
{
	if (!o->binary || !o->ktier_objmap || o->tier == VG_TIER_USER)
		return "";
	if (possible(o))
		return "";	/* the agent's (cheaper), or the user tier */
	if (o->attached)
		return "attached to a running process, whose heap so far the kernel tier's object map never saw";
	if (o->watch || o->follow_forks)
		return "";	/* (plan.c says why) */
	return NULL;
}

/* does property prop follow a program's own allocator ($alloc,
 * $release: pool blocks inside malloc's)? */
static bool follows_pool(const struct vg_spec *s, int prop)
{
	const struct vg_property *pr = &s->props[prop];
	struct vg_allocs *a = vg_allocs_new(s);
	bool any = false;

	for (int b = 0; a && !any && b < pr->nbindings; b++) {
		struct vg_alloc_shape sh;

		vg_alloc_shape_of(a, pr->bindings[b].event, &sh);
		any = sh.what != VG_ALLOC_NONE && sh.pool;
	}
	vg_allocs_free(a);
	return any;
}

void vg_plan_mem_candidates(struct vg_plan *p, const struct vg_plan_opts *o,
			    char (*why)[256], char (*no)[192])
{
	const struct vg_spec *s = p->spec;
	uint64_t objects = o->max_objects ? o->max_objects : VG_PLAN_OBJECTS;

	for (int i = 0; i < s->nprops; i++) {
		const struct vg_property *pr = &s->props[i];
		const char *bpf = bpf_no(o);
		char miss[192] = "";

		if (p->kernel[i] || !vg_ktier_mem_only(s, i, o->no_ktimer))
			continue;
		if (vg_om_size(vg_om_nbuckets(objects)) > OBJMAP_MAX_BYTES) {
			add_why(why[i], "the object map for --max-objects would pass 1 GB");
			continue;
		}
		/* (bpf/kstep.bpf.h: the timer's code has no VG_OP_MEM) */
		if (!bpf && pr->timed)
			bpf = "it has a timeout, whose step in the BPF timer answers no memory predicate";
		/* (bpf/kmem.bpf.h files malloc's blocks only) */
		if (!bpf && follows_pool(s, i))
			bpf = "it follows a program's own allocator ($alloc), whose blocks the BPF probes' object map does not take";
		if (!bpf) {
			p->kernel[i] = true;
			p->props[i].bpf_mem = true;
			snprintf(why[i], sizeof(why[i]),
				 "in the BPF probes: %s, and the kernel tier's object map answers its memory predicates",
				 o->fast_off ? "--no-fast"
					     : "no in-process tier in this run");
			continue;
		}
		if (bpf[0])
			add_why(why[i], bpf);
		if (!possible(o))
			continue;
		if (no[i][0]) {
			add_why(why[i], no[i]);
			continue;
		}
		for (int b = 0; !miss[0] && b < pr->nbindings; b++) {
			const struct vg_event *ev =
				&s->events[pr->bindings[b].event];

			if (!vg_plan_fast_predicted(s, pr->bindings[b].event, o))
				snprintf(miss, sizeof(miss),
					 "not all its functions are patched: %.40s (not asked for: --fast, or a `fast` line in the spec)",
					 ev->name);
		}
		if (miss[0]) {
			add_why(why[i], miss);
			continue;
		}
		p->kernel[i] = true;
		p->props[i].inproc_mem = true;
		snprintf(why[i], sizeof(why[i]),
			 "in-process: every function it uses is patched, and the agent's object map answers its memory predicates");
	}
}

/* the first site of event ev the in-process tier did not take (NULL:
 * none); *nsites: how many it has */
static const struct vg_plan_site *unpatched(const struct vg_plan *p, int ev,
					    int *nsites)
{
	*nsites = 0;
	for (int k = 0; k < p->nsites; k++) {
		if (p->sites[k].event != ev)
			continue;
		++*nsites;
		if (!p->sites[k].fast)
			return &p->sites[k];
	}
	return NULL;
}

/* The site that says why: one whose own function the tier cannot take
 * rather than one that only goes with it ("goes with before memcpy, ..."),
 * when the property has one */
static bool worse(const struct vg_plan_site *a, const struct vg_plan_site *b)
{
	return !b || (strncmp(a->fast_why, "goes with ", 10) &&
		      !strncmp(b->fast_why, "goes with ", 10));
}

bool vg_plan_mem_check(const struct vg_plan *p, char (*no)[192])
{
	const struct vg_spec *s = p->spec;
	bool again = false;

	for (int i = 0; i < s->nprops; i++) {
		const struct vg_property *pr = &s->props[i];
		const struct vg_plan_site *why = NULL;
		int ev = -1;

		if (!p->props[i].inproc_mem || no[i][0])
			continue;
		for (int b = 0; b < pr->nbindings; b++) {
			const struct vg_plan_site *u;
			int n;

			u = unpatched(p, pr->bindings[b].event, &n);
			if (!n) {	/* no site at all: that is why */
				ev = pr->bindings[b].event;
				why = NULL;
				break;
			}
			if (u && worse(u, why)) {
				why = u;
				ev = u->event;
			}
		}
		if (ev < 0)
			continue;
		if (!why)
			snprintf(no[i], 192,
				 "not all its functions are patched: %.40s (no function site)",
				 s->events[ev].name);
		else
			snprintf(no[i], 192,
				 "not all its functions are patched: %.40s (%.100s)",
				 s->events[ev].name,
				 why->fast_why[0] ? why->fast_why
						  : "not asked for");
		again = true;
	}
	return again;
}

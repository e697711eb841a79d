/* The BPF object configured and loaded while the plan is built
 * (vg_probe_early_start, probe.h), from what the spec alone says the plan
 * will ask: which probe programs its events run (an `after` event's
 * arguments need the entry half too, C strings the sleepable builds),
 * which properties can be in the kernel tier and which of those are
 * timed. A plan that asks otherwise (a function with no site, a property
 * --leak-check keeps in the user tier) gets an object configured
 * differently, and vg_probe_open loads its own (early_load.h compares the
 * two). */
#include "probe_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "early_load.h"
#include "perf_warm.h"
#include "plan/plan.h"
#include "ktimer.h"
#include "rewind.h"
#include "split_load.h"
#include "spec/spec.h"
#include "vigil.skel.h"

/* plan.c's pass_stacks, from the spec alone: a function event that takes
 * the user stack keeps its uprobe (plan_fast.c). Those are the events of
 * a property with a backtrace reaction or a deadline; the others that
 * take one (a per-slice watch's hit, a fault in a freed block) are no
 * calls, and never in-process. */
static bool predicted_stack(const struct vg_spec *spec, int ev)
{
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];

		if ((pr->timed || vg_property_backtraces(pr)) &&
		    vg_property_binding(pr, ev))
			return true;
	}
	return false;
}

/* will the in-process tier likely take event i? (fast: what the run asks
 * of it; NULL: nothing, every event takes its stack) */
static bool predicted_fast(const struct vg_spec *spec, int i,
			   const struct vg_plan_opts *fast)
{
	return fast && !predicted_stack(spec, i) &&
	       vg_plan_fast_predicted(spec, i, fast);
}

/* the programs the plan's sites will run, as plan.c assigns them; none
 * for an event the in-process tier will likely take; vg_creq when the
 * program makes client requests (creq: vg_plan_creq_any) */
static unsigned predicted_progs(const struct vg_spec *spec,
				const struct vg_plan_opts *fast, bool creq)
{
	unsigned used = 0;

	for (int i = 0; i < spec->nevents; i++) {
		const struct vg_event *ev = &spec->events[i];

		if (ev->client_request) {
			if (creq)
				used |= 1u << VG_PROG_CREQ;
			continue;
		}
		if (predicted_fast(spec, i, fast))
			continue;
		if (ev->kind == VG_EV_BEFORE) {
			used |= 1u << (ev->nstrs ? VG_PROG_ENTRY_S
						 : VG_PROG_ENTRY);
		} else if (ev->kind == VG_EV_AFTER) {
			if (ev->nfields)
				used |= 1u << VG_PROG_STASH;
			used |= 1u << (ev->nstrs ? VG_PROG_RETURN_S
						 : VG_PROG_RETURN);
		}
	}
	return used;
}

/* plan.c's kernel_progs: will a uprobe step a kernel-tier property? One
 * of a property that can be in the kernel tier whose events do not all
 * go in-process (a timed one's never do: plan_fast.c) */
static bool predicted_kernel_progs(const struct vg_spec *spec,
				   const struct vg_plan_opts *fast)
{
	bool no_ktimer = !vg_ktimer_kernel_ok();
	char why[256];

	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];

		if (vg_ktier_ineligible(spec, i, no_ktimer, why, sizeof(why)))
			continue;
		if (!fast || pr->timed)
			return true;
		for (int b = 0; b < pr->nbindings; b++)
			if (!predicted_fast(spec, pr->bindings[b].event, fast))
				return true;
	}
	return false;
}

/* vg_ktimer_setup's test: a timed property in the kernel tier */
static bool any_timed_kernel(const struct vg_spec *spec)
{
	char why[256];

	for (int i = 0; i < spec->nprops; i++)
		if (spec->props[i].timed &&
		    !vg_ktier_ineligible(spec, i, !vg_ktimer_kernel_ok(),
					why, sizeof(why)))
			return true;
	return false;
}

/* What the early load loads: the skeleton and, on a thread of its own,
 * the side object (vg_kstep's, or the copy that loads vg_watch:
 * split_load.h); freed by destroy_objs */
struct vg_early_objs {
	struct vigil_bpf *skel;
	struct bpf_object *side;
	struct vg_load_stats *sstats;
};

static int load_objs(void *arg)
{
	struct vg_early_objs *o = arg;

	return vg_split_load(o->skel->obj, vg_probe_load_skel, o->skel,
			     &o->side, &o->sstats);
}

static void destroy_objs(void *arg)
{
	struct vg_early_objs *o = arg;

	vg_load_stats_free(o->sstats);
	bpf_object__close(o->side);
	vigil_bpf__destroy(o->skel);
	free(o);
}

struct vg_probe_early *vg_probe_early_start(const struct vg_spec *spec,
					    size_t ringbuf_bytes,
					    uint32_t max_kslices, bool ktier,
					    bool stacks, bool creq,
					    const struct vg_plan_opts *fast)
{
	struct vg_probe_early *early = calloc(1, sizeof(*early));
	size_t rb = ringbuf_bytes ? ringbuf_bytes : VG_DEFAULT_RINGBUF;
	size_t kmax = max_kslices ? max_kslices : VG_DEFAULT_KSLICES;
	size_t kcap = vg_pow2_at_least(2 * kmax);
	struct vg_early_objs *objs;
	struct vigil_bpf *model;
	bool timers;

	if (!early)
		return NULL;
	/* the first watchpoint's grace period, waited out beside the load */
	if (vg_spec_watches(spec))
		vg_perf_warm();
	libbpf_set_print(vg_probe_libbpf_quiet);
	if (!(objs = calloc(1, sizeof(*objs))))
		return early;
	if (!(model = objs->skel = vigil_bpf__open())) {
		free(objs);
		return early;	/* vg_probe_open will say why */
	}
	/* as vg_probe_open configures it before its load */
	bpf_map__set_max_entries(model->maps.events, vg_pow2_at_least(rb));
	/* --stacks (or --leak-check's records): every event takes the user
	 * stack, and keeps its uprobe */
	if (stacks)
		fast = NULL;
	vg_probe_config_programs(model, spec,
				 ktier && predicted_kernel_progs(spec, fast),
				 predicted_progs(spec, fast, creq),
				 stacks || vg_probe_stacks_predicted(spec));
	bpf_program__set_autoload(model->progs.vg_watch_mmap, false);
	bpf_map__set_max_entries(model->maps.kslots, kcap);
	model->bss->kslot_mask = kcap - 1;
	model->bss->kslot_max = kmax;
	model->rodata->kstop_rewind = vg_rewind_supported();
	timers = ktier && any_timed_kernel(spec);
	bpf_program__set_autoload(model->progs.vg_ktimer_arm, timers);
	if (timers) {
		bpf_map__set_max_entries(model->maps.kslot_tm, kcap);
		bpf_map__set_max_entries(model->maps.ktlist, kcap);
	}
	early->whole = vg_early_load_start(model->obj, load_objs, objs);
	if (early->whole)
		early->objs = objs;
	else
		destroy_objs(objs);
	return early;
}

int vg_probe_early_take(struct vg_probe_early *early, struct vigil_bpf **skel,
			struct bpf_object **side)
{
	struct vg_load_stats *ls = NULL;
	unsigned long long ns = 0;
	struct vg_early_objs *objs;
	struct vigil_bpf *model;
	const char *differs = NULL;
	int err;

	if (!early || !early->whole)
		return -1;
	objs = early->objs;
	model = objs->skel;
	if (!vg_early_load_fits(early->whole, (*skel)->obj, &differs)) {
		if (getenv("VIGIL_DEBUG"))
			fprintf(stderr, "vigil: debug: the plan configures the BPF object otherwise than the spec predicted (%s): it is loaded again\n",
				differs ? differs : "?");
		vg_early_load_drop(early->whole, destroy_objs);
		early->whole = NULL;
		early->objs = NULL;
		return -1;
	}
	err = vg_early_load_take(early->whole, (*skel)->obj, &ls, &ns);
	early->whole = NULL;
	early->objs = NULL;
	if (err) {	/* loaded again, to say why */
		vg_load_stats_free(ls);
		destroy_objs(objs);
		return -1;
	}
	if (getenv("VIGIL_DEBUG"))
		fprintf(stderr, "vigil: debug: the BPF object was loaded while the plan was built\n");
	vg_load_stats_print(ls, model->obj, objs->sstats, objs->side, ns,
			    stderr);
	vigil_bpf__destroy(*skel);
	*skel = model;
	*side = objs->side;
	free(objs);
	return 0;
}

void vg_probe_early_free(struct vg_probe_early *early)
{
	if (!early)
		return;
	vg_early_load_drop(early->whole, destroy_objs);
	free(early);
}

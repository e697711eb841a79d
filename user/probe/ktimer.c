/* Kernel-tier state timeouts, the user side: the timer itself is
 * bpf/ktimer.bpf.h (why it sweeps, what it stops and when: see there and
 * docs/LANGUAGE.md, Time). Here: load its program only when needed, size
 * its maps like the slice table, write each timed state's limit, deadline
 * code and target, choose the tick, and arm it once with BPF_PROG_TEST_RUN
 * (a SEC("syscall") program owns the timer: no probe may). */
#include "ktimer.h"
#include "features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "probe_internal.h"
#include "spec/spec.h"
#include "vigil.skel.h"

_Static_assert(VG_KT_ENTERED == VG_TSLOT_ENTERED &&
		       VG_KT_LIMIT == VG_TSLOT_LIMIT &&
		       VG_KT_FIRED_AT == VG_TSLOT_FIRED &&
		       VG_KT_STATE == VG_TSLOT_STATE,
	       "a kernel timeout's fields are the user tier's");

/* The longest sleep between sweeps, and the tick when some limit is not a
 * constant: such a deadline may come at any time after its entry, so it
 * is found up to this late (docs/LANGUAGE.md, Time). */
#define KT_TICK_MAX_NS 250000000ull
#define KT_TICK_VAR_NS 1000000ull
#define KT_TICK_MIN_NS 50000ull

bool vg_ktimer_kernel_ok(void)
{
	return vg_feat_ktimer(NULL);	/* features.h: the kernel's BTF, once */
}

static bool needed(const struct vg_spec *spec, const struct vg_plan *plan)
{
	for (int i = 0; i < spec->nprops; i++)
		if (plan->kernel[i] && spec->props[i].timed)
			return true;
	return false;
}

void vg_ktimer_setup(struct vg_probe *p, const struct vg_probe_opts *o)
{
	bool on = needed(p->spec, o->plan);

	bpf_program__set_autoload(p->skel->progs.vg_ktimer_arm, on);
	if (on) {
		/* one entry per slot: every slice may enter a timed state */
		bpf_map__set_max_entries(p->skel->maps.kslot_tm, p->kslot_cap);
		bpf_map__set_max_entries(p->skel->maps.ktlist, p->kslot_cap);
	}
}

/* Half the smallest constant limit: a deadline is then seen by a sweep at
 * least half a limit before it comes, and the timer armed for it exactly
 * (bpf/ktimer.bpf.h). */
static uint64_t choose_tick(const struct vg_spec *spec,
			    const struct vg_plan *plan)
{
	uint64_t tick = KT_TICK_MAX_NS;

	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];

		if (!plan->kernel[i] || !pr->timed)
			continue;
		for (int s = 0; s < pr->nstates; s++) {
			const struct vg_state *st = &pr->states[s];
			uint64_t t;

			if (!st->timed)
				continue;
			t = st->limit_ns > 0 ? (uint64_t)st->limit_ns / 2
					     : KT_TICK_VAR_NS;
			if (t < tick)
				tick = t;
		}
	}
	return tick < KT_TICK_MIN_NS ? KT_TICK_MIN_NS : tick;
}

static int write_states(struct vg_probe *p, const struct vg_probe_opts *o,
			int k, struct vg_err *e)
{
	const struct vg_property *pr = &p->spec->props[p->kprop_map[k]];
	uint32_t base = o->plan->kt.code_base[k];
	int fd = bpf_map__fd(p->skel->maps.ktimed);

	for (int s = 0; s < pr->nstates && s < VG_KMAX_STATES; s++) {
		const struct vg_state *st = &pr->states[s];
		uint32_t key = (uint32_t)(k * VG_KMAX_STATES + s);
		struct vg_ktimed kt = { 0 };

		if (!st->timed)
			continue;
		kt.timed = 1;
		kt.limit_ns = st->limit_ns > 0 ? st->limit_ns : 0;
		kt.deadline_off = (uint16_t)(base + st->deadline.off);
		kt.deadline_len = (uint16_t)st->deadline.len;
		kt.upd_off = (uint16_t)(base + st->timeout_update.off);
		kt.upd_len = (uint16_t)st->timeout_update.len;
		kt.to = (uint16_t)st->timeout_to;
		kt.event = (uint32_t)pr->timeout_event;
		if (bpf_map_update_elem(fd, &key, &kt, 0))
			return vg_errf(e, "kernel tier: writing the timeouts' table: %s",
				       strerror(errno));
	}
	return 0;
}

int vg_ktimer_start(struct vg_probe *p, const struct vg_probe_opts *o,
		    struct vg_err *e)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int err;

	if (!needed(p->spec, o->plan))
		return 0;
	for (int k = 0; k < p->nkprops; k++)
		if (p->spec->props[p->kprop_map[k]].timed &&
		    write_states(p, o, k, e))
			return -1;
	p->skel->bss->ktimer_tick_ns = choose_tick(p->spec, o->plan);
	err = bpf_prog_test_run_opts(
		bpf_program__fd(p->skel->progs.vg_ktimer_arm), &run);
	if (err || run.retval)
		return vg_errf(e, "kernel tier: arming the timeouts' timer failed (%s, step %u)",
			       err ? strerror(-err) : "refused", run.retval);
	return 0;
}

void vg_ktimer_adopt(struct vg_probe *p, uint32_t idx, struct vg_kslot *v)
{
	const struct vg_property *pr;
	uint32_t n;

	if (!p->skel->bss->ktimer_tick_ns || (v->tflags & VG_KSLOT_TLISTED) ||
	    (int)v->prop >= p->nkprops)
		return;
	pr = &p->spec->props[p->kprop_map[v->prop]];
	if (!pr->timed || v->state >= pr->nstates ||
	    !pr->states[v->state].timed || !v->vars[pr->deadline_var])
		return;
	/* the entry first, then the count the sweep reads */
	n = p->skel->bss->ktlist_n;
	if (n >= p->kslot_cap ||
	    bpf_map_update_elem(bpf_map__fd(p->skel->maps.ktlist), &n, &idx, 0))
		return;
	__atomic_store_n(&p->skel->bss->ktlist_n, n + 1, __ATOMIC_RELEASE);
	v->tflags |= VG_KSLOT_TLISTED;
}

bool vg_ktimer_stats(const struct vg_probe *p, uint64_t out[VG_KT__COUNT])
{
	int fd = bpf_map__fd(p->skel->maps.ktimer_stats);
	uint64_t *v;

	memset(out, 0, VG_KT__COUNT * sizeof(*out));
	if (!p->skel->bss->ktimer_tick_ns || fd < 0)
		return false;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return false;
	for (uint32_t k = 0; k < VG_KT__COUNT; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int c = 0; c < p->ncpus; c++)
			if (k == VG_KT_LATE_MAX)
				out[k] = v[c] > out[k] ? v[c] : out[k];
			else
				out[k] += v[c];
	}
	free(v);
	return true;
}

void vg_ktimer_stop(struct vg_probe *p)
{
	uint64_t s[VG_KT__COUNT];

	if (!p->skel || !p->skel->bss || !vg_ktimer_stats(p, s))
		return;
	p->skel->bss->ktimer_tick_ns = 0;
	if (getenv("VIGIL_DEBUG"))
		fprintf(stderr, "vigil: kernel timer: %llu sweeps, %llu timeouts fired %.1f us late on average (worst %.1f us), %llu stops left to vigil, %llu slices busy at a sweep, %llu deadlines past their process's exit\n",
			(unsigned long long)s[VG_KT_SWEEPS],
			(unsigned long long)s[VG_KT_FIRED],
			s[VG_KT_FIRED] ? s[VG_KT_LATE_SUM] / 1e3 / s[VG_KT_FIRED] : 0.0,
			s[VG_KT_LATE_MAX] / 1e3,
			(unsigned long long)s[VG_KT_SIGNAL_FAILED],
			(unsigned long long)s[VG_KT_BUSY],
			(unsigned long long)s[VG_KT_AFTER_EXIT]);
}

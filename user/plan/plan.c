/* Building a run's plan (plan.h): the deciders, one pass each, over one
 * object, before anything is loaded. */
#include "plan.h"

#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "act/scenario.h"
#include "sym/cxxnames.h"
#include "sym/dwarf_cache.h"
#include "sym/libs.h"

int vg_plan_tiers(const struct vg_spec *spec, enum vg_tier tier,
		  bool no_ktimer, bool *kernel, char (*why)[256],
		  struct vg_err *e)
{
	for (int i = 0; i < spec->nprops; i++) {
		const char *no = vg_ktier_ineligible(spec, i, no_ktimer, why[i],
						     sizeof(why[i]));

		if (tier == VG_TIER_KERNEL && no)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%d:%d: property %s cannot run in the kernel tier: %s",
					    spec->props[i].loc.file,
					    spec->props[i].loc.line,
					    spec->props[i].loc.col,
					    spec->props[i].name, no);
		kernel[i] = tier != VG_TIER_USER && !no;
		if (tier == VG_TIER_USER)
			snprintf(why[i], sizeof(why[i]), "--tier=user");
	}
	return 0;
}

/* Which events capture their user stack: every function event with
 * --stacks, else those of properties with a `backtrace` reaction. */
static void pass_stacks(struct vg_plan *p, bool all)
{
	const struct vg_spec *spec = p->spec;

	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];
		bool bt = all || vg_property_backtraces(pr);

		for (int b = 0; bt && b < pr->nbindings; b++) {
			enum vg_event_kind k = spec->events[pr->bindings[b].event].kind;

			/* the lifecycle tracepoints have no user stack */
			p->stack_events[pr->bindings[b].event] =
				k == VG_EV_BEFORE || k == VG_EV_AFTER;
		}
		/* a timeout's report shows the stack of the event that
		 * entered the state: those events always take theirs */
		for (int t = 0; pr->timed && t < pr->ntrans; t++) {
			enum vg_event_kind k = spec->events[pr->trans[t].event].kind;

			if (pr->states[pr->trans[t].to].timed &&
			    (k == VG_EV_BEFORE || k == VG_EV_AFTER))
				p->stack_events[pr->trans[t].event] = true;
		}
		if (pr->timed)
			p->stack_events[pr->timeout_event] = true;
	}
	/* a fault in a freed block (watchset/callacc.c) shows where it was:
	 * the program dies of it, gdb never sees it */
	for (int i = 0; i < spec->nevents; i++)
		if (spec->events[i].access_for &&
		    spec->events[i].kind == VG_EV_SIGNAL)
			p->stack_events[i] = true;
	/* a per-slice watch's hit into a violation the run goes on past
	 * (watchset/watchset_repeat.c): its stack tells a new code location
	 * from one already reported for the block */
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];

		for (int t = 0; !p->kernel[i] && t < pr->ntrans; t++) {
			const struct vg_event *ev = &spec->events[pr->trans[t].event];
			int to = pr->trans[t].to;

			if (vg_event_watches(ev) && ev->wloc.per_slice &&
			    ev->kind != VG_EV_CHANGE &&
			    pr->states[to].kind == VG_STATE_VIOLATION &&
			    !(p->stop_masks[i] >> to & 1))
				p->stack_events[pr->trans[t].event] = true;
		}
	}
}

/* The flags the probes go by (include/vigil_event.h) */
/* A transition into a stop whose guard asks the object map (valid(p, n):
 * "is this call about to overflow?") must stop the call before it runs,
 * not after the fact: its probe holds the thread until user space has
 * answered (hold.c lets it go unless the violation stopped it), at the
 * cost of a stop per call. */
static uint32_t mem_hold(const struct vg_property *pr,
			 const struct vg_transition *t)
{
	return vg_code_mem_pred(pr->code, t->guard) >= 0 ? VG_EVF_HOLD : 0;
}

/* A transition that reads a string of the process (strlen_at) must read
 * it while the call waits, stop or no stop: after the fact the program
 * may have written another string there (the memcheck suite's
 * str_tester, under --on-violation=continue, had an overread reported
 * from a buffer refilled since). */
static uint32_t read_hold(const struct vg_property *pr,
			  const struct vg_transition *t)
{
	return vg_code_reads_memory(pr->code, t->guard) ||
	       vg_code_reads_memory(pr->code, t->update) ? VG_EVF_HOLD : 0;
}

static void pass_flags(struct vg_plan *p, bool record)
{
	const struct vg_spec *s = p->spec;

	/* an event goes to the user tier if any user-tier property uses it,
	 * or if the run is being recorded */
	for (int prop = 0; prop < s->nprops; prop++) {
		const struct vg_property *pr = &s->props[prop];

		if (p->kernel[prop] && !record)
			continue;
		for (int b = 0; b < pr->nbindings; b++)
			p->events[pr->bindings[b].event].flags |= VG_EVF_USER;
		/* a user-tier stop is late by the time to wake us: keep it
		 * short for the events that can cause one */
		for (int t = 0; t < pr->ntrans; t++) {
			if (p->stop_masks[prop] >> pr->trans[t].to & 1)
				p->events[pr->trans[t].event].flags |=
					VG_EVF_WAKE | mem_hold(pr, &pr->trans[t]);
			p->events[pr->trans[t].event].flags |=
				read_hold(pr, &pr->trans[t]);
		}
	}
	for (int i = 0; i < s->nevents; i++) {
		struct vg_plan_event *ev = &p->events[i];

		if (p->stack_events[i])
			ev->flags |= VG_EVF_STACK;
		if (p->hold_events && p->hold_events[i])
			ev->flags |= VG_EVF_HOLD;
		if (p->release_events && p->release_events[i])
			ev->flags |= VG_EVF_UNWATCH;
		if (s->events[i].marks_inside)
			ev->flags |= s->events[i].kind == VG_EV_BEFORE
				     ? VG_EVF_ENTER : VG_EVF_LEAVE;
		/* a call checked against watched blocks (watchset/callacc.c):
		 * to user space, batched (no wake-up per memcpy) */
		if (s->events[i].access_for)
			ev->flags |= VG_EVF_USER;
		/* the loader's rendezvous: to user space, holding the
		 * process while the session reads its mappings */
		if (s->events[i].maps_sync)
			ev->flags |= VG_EVF_USER | VG_EVF_HOLD;
		/* valgrind's client requests: which the probe sends on */
		if (s->events[i].client_request)
			ev->flags |= VG_EVF_USER |
				(s->events[i].creq_for & VG_CREQ_FOR_LEAKS
				 ? VG_EVF_CREQ_LEAKS : 0) |
				(s->events[i].creq_for & VG_CREQ_FOR_ERRS
				 ? VG_EVF_CREQ_ERRS : 0);
		if (p->arms)
			ev->arms = p->arms[i];
		if (s->events[i].kind == VG_EV_SIGNAL)
			p->tp_signal = true;
		if (s->events[i].kind == VG_EV_SYSCALL)
			p->tp_syscalls = true;
		if (vg_event_watches(&s->events[i]) &&
		    !s->events[i].wloc.per_slice)
			p->nwatch_globals++;
	}
}

struct vg_plan_site *vg_plan_new_site(struct vg_plan *p, int event,
				      enum vg_plan_prog prog, struct vg_err *e)
{
	struct vg_plan_site *s;

	s = realloc(p->sites, (size_t)(p->nsites + 1) * sizeof(*s));
	if (!s) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	p->sites = s;
	s = &p->sites[p->nsites++];
	memset(s, 0, sizeof(*s));
	s->event = event;
	s->prog = prog;
	return s;
}

/* Does the function at file offset off of path start with a VEX or EVEX
 * (AVX, AVX-512) instruction? glibc's memset and strchr do on an AVX-512
 * machine (vpbroadcastb into %zmm16): a uprobe there, single-stepped out
 * of line, left memset writing zeros on this project's kernel (6.18,
 * bench/strcalls.c: its sum went to 0). In 64-bit mode 0xc4, 0xc5 and
 * 0x62 start no other instruction. */
static bool vector_insn_at(const char *path, uint64_t off)
{
	unsigned char b = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool v;

	if (fd < 0)
		return false;
	v = pread(fd, &b, 1, (off_t)off) == 1 &&
	    (b == 0xc4 || b == 0xc5 || b == 0x62);
	close(fd);
	return v;
}

static int add_site(struct vg_plan *p, int event, enum vg_plan_prog prog,
		    const struct vg_func_where *w, struct vg_err *e)
{
	struct vg_plan_site *s = vg_plan_new_site(p, event, prog, e);

	if (!s)
		return -1;
	s->retprobe = prog == VG_PROG_RETURN || prog == VG_PROG_RETURN_S;
	snprintf(s->path, sizeof(s->path), "%s", w->path);
	snprintf(s->sym, sizeof(s->sym), "%s", w->sym);
	s->func = w->fn.offset;
	s->size = w->fn.size;
	/* placed once what each probe reads is known (plan_place.c) */
	s->offset = w->fn.offset;
	s->dormant = !s->retprobe && event < 64 && (p->dormant >> event & 1);
	s->vector_entry = vector_insn_at(w->path, w->fn.offset);
	return 0;
}

/* Where each function probe goes, and which program runs there */
static int pass_sites(struct vg_plan *p, struct vg_libs *libs, FILE *warn,
		      struct vg_err *e)
{
	const struct vg_spec *s = p->spec;
	int rc = 0;

	for (int i = 0; i < s->nevents && !rc; i++) {
		const struct vg_event *ev = &s->events[i];
		struct vg_func_where *all = NULL;
		size_t nall = 0;

		if (ev->kind != VG_EV_BEFORE && ev->kind != VG_EV_AFTER)
			continue;
		if (ev->client_request) {	/* no function: the requests */
			rc = vg_plan_creq_sites(p, i, libs, e);
			continue;
		}
		/* a C++ name may stand for several functions (overloads,
		 * constructor variants): each gets its sites */
		if (vg_libs_find_funcs(libs, ev->name, &all, &nall, e)) {
			char tmp[sizeof(e->msg)];

			/* a call the session added for watched blocks
			 * (watchset/callacc.c) or the loader's rendezvous
			 * (symval/symval.c) that this program lacks */
			if (ev->access_for || ev->maps_sync) {
				free(all);
				continue;
			}
			/* a function only an `outside` clause names that
			 * this program lacks (glibc's __libc_thread_freeres
			 * is in libc6-dbg's symbols alone) is never running:
			 * the clause leaves nothing out, said */
			if (ev->marks_inside && !vg_spec_binds(s, i)) {
				if (warn && ev->kind == VG_EV_BEFORE)	/* once */
					fprintf(warn, "vigil: %s:%d:%d: warning: outside %s: %s; the clause leaves nothing out\n",
						ev->loc.file, ev->loc.line,
						ev->loc.col, ev->name, e->msg);
				free(all);
				continue;
			}

			/* the spec line that asked for it (exit status 2) */
			snprintf(tmp, sizeof(tmp), "%.256s:%d:%d: %.3800s",
				 ev->loc.file, ev->loc.line, ev->loc.col,
				 e->msg);
			snprintf(e->msg, sizeof(e->msg), "%s", tmp);
			e->exit_code = VG_EXIT_USAGE;
			rc = -1;
			break;
		}
		for (size_t k = 0; k < nall && !rc; k++) {
			const struct vg_func_where *w = &all[k];

			/* never a uprobe where it would harm the program: a
			 * call added for watched blocks is optional and left
			 * out; a function the spec names keeps its site for
			 * the in-process tier, which never single-steps it,
			 * and loses it if that tier does not take it
			 * (plan_unseen.c) */
			if ((ev->access_for || ev->maps_sync) &&
			    vector_insn_at(w->path, w->fn.offset))
				continue;
			if (ev->kind == VG_EV_BEFORE) {
				rc = add_site(p, i, ev->nstrs ? VG_PROG_ENTRY_S
							      : VG_PROG_ENTRY,
					      w, e);
				continue;
			}
			/* the entry half saves the arguments the return
			 * half reports */
			if (ev->nfields)
				rc = add_site(p, i, VG_PROG_STASH, w, e);
			if (!rc)
				rc = add_site(p, i, ev->nstrs ? VG_PROG_RETURN_S
							      : VG_PROG_RETURN,
					      w, e);
		}
		free(all);
	}
	return rc;
}

/* Does a site with a uprobe step a kernel-tier property (its event has
 * one, and the in-process tier did not take it)? */
static bool uprobe_steps_kernel(const struct vg_plan *p)
{
	for (int i = 0; i < p->nsites; i++)
		if (!p->sites[i].fast && p->sites[i].prog != VG_PROG_STASH &&
		    p->events[p->sites[i].event].conf.nkprops)
			return true;
	return false;
}

/* With a binary: the sites, then what each probe reads and the watches,
 * with the libraries and the DWARF read once for all of them */
static int binary_passes(struct vg_plan *p, const struct vg_plan_opts *o,
			 struct vg_err *e)
{
	struct vg_libs libs;
	struct vg_dwarf_cache *dc = NULL;
	int rc;

	if (vg_libs_load_with(o->binary, o->libs, o->nlibs, &libs, e))
		return -1;
	rc = pass_sites(p, &libs, o->warn, e);
	if (!rc)
		rc = vg_plan_pass_reads(p, o, &dc, e);
	if (!rc)
		vg_plan_pass_place(p);
	if (!rc)
		rc = vg_plan_pass_watches(p, o, &libs, &dc, e);
	vg_dwarf_cache_free(dc);
	vg_libs_free(&libs);
	return rc;
}

/* --leak-check: the holds and stacks leaks/leaks_plan.c asks for */
static int pass_leak_check(struct vg_plan *p, const struct vg_plan_leaks *l)
{
	if (!p->hold_events &&
	    !(p->hold_events = calloc((size_t)p->nevents + 1, sizeof(bool))))
		return -1;
	for (int ev = 0; ev < p->nevents; ev++) {
		p->hold_events[ev] |= l->holds[ev];
		p->stack_events[ev] |= l->stacks[ev];
	}
	return 0;
}

/* No debug register fires: the properties that use a watch event (a
 * global's or a slice's memory) cannot see it. A hold waits for a watch
 * to be in place before its thread runs on; with no register to arm, the
 * only watch left is the check of calls against watched blocks
 * (watchset/callacc.c), and it needs none: the watchset turns the
 * probes' page filter off (every such call is sent) and vigil checks
 * each call in time order with the frees. So no thread is held: a hold
 * per free cost 82 us on average on a machine whose registers do not
 * fire, and the records the filter spared cost a small part of the
 * calls' own uprobe traps. true when out of memory. */
static bool pass_blind(struct vg_plan *p)
{
	const struct vg_spec *spec = p->spec;

	free(p->hold_events);
	p->hold_events = NULL;
	p->no_debug_regs = true;
	if (!(p->blind = calloc((size_t)p->nprops + 1, sizeof(bool))))
		return true;
	for (int i = 0; i < p->nprops; i++) {
		const struct vg_property *pr = &spec->props[i];

		for (int b = 0; b < pr->nbindings && !p->blind[i]; b++)
			p->blind[i] = vg_event_watches(
				&spec->events[pr->bindings[b].event]);
		p->nblind += p->blind[i];
	}
	return false;
}

/* One round of vg_plan_build; no: plan_memfast.c's findings of earlier
 * rounds */
static struct vg_plan *plan_once(const struct vg_spec *spec,
				 const struct vg_plan_opts *o,
				 char (*no)[192], struct vg_err *e)
{
	struct vg_plan *p = calloc(1, sizeof(*p));
	char (*why)[256] = NULL;
	int np = spec->nprops, ne = spec->nevents;
	bool oom = false;

	if (!p) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	p->spec = spec;
	p->nprops = np;
	p->nevents = ne;
	p->props = calloc(np + 1, sizeof(*p->props));
	p->events = calloc(ne + 1, sizeof(*p->events));
	p->kernel = calloc(np + 1, sizeof(bool));
	p->stop_masks = calloc(np + 1, sizeof(uint32_t));
	p->stack_events = calloc(ne + 1, sizeof(bool));
	why = calloc(np + 1, sizeof(*why));
	if (!p->props || !p->events || !p->kernel || !p->stop_masks ||
	    !p->stack_events || !why) {
		vg_errf(e, "out of memory");
		goto fail;
	}
	/* 1. tiers */
	if (vg_plan_tiers(spec, o->tier, o->no_ktimer, p->kernel, why, e))
		goto fail;
	vg_plan_mem_candidates(p, o, why, no);
	for (int i = 0; i < np; i++) {
		if (o->leak_check && i == o->leak_check->hold_prop) {
			p->kernel[i] = false;
			p->props[i].inproc_mem = false;
			p->props[i].bpf_mem = false;
			snprintf(why[i], sizeof(why[i]),
				 "it holds the program at _exit, abort, __assert_fail, raise and kill for --leak-check");
		}
		if (o->follow_forks) {
			p->kernel[i] = false;
			p->props[i].inproc_mem = false;
			p->props[i].bpf_mem = false;
			snprintf(why[i], sizeof(why[i]), "%s",
				 o->watch ? "vigil watch (the default; --tier=kernel keys kernel-tier slices by process)"
					  : "--follow-fork (kernel-tier slices do not tell processes apart)");
		}
		p->props[i].kernel = p->kernel[i];
		p->any_kernel |= p->kernel[i];
		if (!p->kernel[i] || p->props[i].inproc_mem ||
		    p->props[i].bpf_mem)
			snprintf(p->props[i].why, sizeof(p->props[i].why),
				 "%s", why[i]);
		p->objmap_fast |= p->props[i].inproc_mem;
		p->objmap_bpf |= p->props[i].bpf_mem;
		p->objmap_user |= !p->props[i].inproc_mem &&
				  !p->props[i].bpf_mem &&
				  vg_property_mem_pred(&spec->props[i], NULL) >= 0;
		/* 2. the states whose entry stops the target */
		p->props[i].stop_mask = p->stop_masks[i] =
			vg_stop_mask_for(spec, i, o->on_violation);
	}
	/* 3. stacks; 4. watch holds; 5. --dynamic */
	pass_stacks(p, o->stacks);
	p->hold_events = vg_plan_watch_holds(spec, p->kernel, &oom);
	if (!oom) {
		uint16_t *slots = calloc(spec->nevents + 1, sizeof(*slots));

		oom = !slots;
		if (slots)
			p->release_events = vg_plan_watch_releases(
				spec, p->kernel, slots, &oom);
		for (int i = 0; slots && i < spec->nevents; i++)
			p->events[i].rel_slots = slots[i];
		free(slots);
	}
	if (!oom && o->no_debug_regs) {
		p->no_debug_regs_why = o->no_debug_regs_why;
		oom = pass_blind(p);
	}
	if (oom || (o->leak_check && pass_leak_check(p, o->leak_check))) {
		vg_errf(e, "out of memory");
		goto fail;
	}
	if (o->dynamic) {
		/* made once: the session runs on this analysis */
		p->dyn = vg_plan_dynamic(spec, p->kernel);
		p->arms = p->dyn ? calloc(ne + 1, sizeof(uint64_t)) : NULL;
		if (p->arms) {
			memcpy(p->arms, p->dyn->arms, ne * sizeof(uint64_t));
			p->dormant = p->dyn->dynamic;	/* no slice yet */
		}
		if (!p->arms) {
			vg_errf(e, "out of memory");
			goto fail;
		}
	}
	/* 6. what the probes are told per event; 7. the sites; 8. what
	 * each probe reads; 9. the watches */
	pass_flags(p, o->record);
	if (o->binary && binary_passes(p, o, e))
		goto fail;
	/* 10. the kernel tier's tables, and each event's part in them */
	if (vg_ktier_plan(p, e))
		goto fail;
	/* 11. the calls the in-process tier takes from the uprobes */
	if (o->binary && vg_plan_pass_fast(p, o, e) < 0)
		goto fail;
	/* 12. what no probe can take here */
	if (o->binary && vg_plan_pass_unseen(p, o, e))
		goto fail;
	p->kernel_progs = p->any_kernel && (!o->binary || uprobe_steps_kernel(p));
	p->om_objects = o->max_objects ? o->max_objects : VG_PLAN_OBJECTS;
	free(why);
	return p;
fail:
	free(why);
	vg_plan_free(p);
	return NULL;
}

struct vg_plan *vg_plan_build(const struct vg_spec *spec,
			      const struct vg_plan_opts *o, struct vg_err *e)
{
	char (*no)[192] = calloc((size_t)spec->nprops + 1, sizeof(*no));
	struct vg_plan *p = NULL;

	if (!no) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	/* a property the in-process tier turned out not to take whole goes
	 * to the user tier, and the plan is made again without it: at most
	 * once per property */
	for (int round = 0; round <= spec->nprops; round++) {
		p = plan_once(spec, o, no, e);
		if (!p || !vg_plan_mem_check(p, no))
			break;
		vg_plan_free(p);
		p = NULL;
	}
	free(no);
	return p;
}

void vg_plan_free(struct vg_plan *p)
{
	if (!p)
		return;
	free(p->props);
	free(p->events);
	free(p->sites);
	free(p->kernel);
	free(p->stop_masks);
	free(p->stack_events);
	free(p->hold_events);
	free(p->release_events);
	free(p->blind);
	free(p->arms);
	free(p->gwatch);
	free(p->swatch);
	free(p->kt.code);
	free(p->kt.trans);
	vg_plan_dyn_free(p->dyn);
	free(p);
}

struct vg_plan_dyn *vg_plan_take_dyn(struct vg_plan *p)
{
	struct vg_plan_dyn *d = p->dyn;

	p->dyn = NULL;
	return d;
}

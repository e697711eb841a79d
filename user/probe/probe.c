/* Loading the BPF object, configuring it from the spec, attaching the
 * probes, and reading the ring buffer. */
#include "probe.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "debugregs.h"
#include "features.h"
#include "ktier.h"
#include "ktimer.h"
#include "plan/plan.h"
#include "load_stats.h"
#include "split_load.h"
#include "sym/libs.h"
#include "util/clock.h"
#include "probe_internal.h"
#include "perf_warm.h"
#include "late_release.h"
#include "syscalls.h"
#include "vigil.skel.h"
#include "rewind.h"
#include "jmp_stop.h"


/* Does the running kernel have this function (a kfunc, say)? */
int vg_probe_libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	/* libbpf's own warnings are noise to a vigil user; its errors come
	 * back to us as return codes that we explain. VIGIL_DEBUG shows all. */
	if (getenv("VIGIL_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}


static struct bpf_program *site_prog(struct vg_probe *p,
				     enum vg_plan_prog k)
{
	switch (k) {
	case VG_PROG_ENTRY:
		return p->entry;
	case VG_PROG_ENTRY_S:
		return p->skel->progs.vg_entry_s;
	case VG_PROG_STASH:
		return p->skel->progs.vg_stash;
	case VG_PROG_RETURN:
		return p->ret;
	case VG_PROG_CREQ:
		return p->skel->progs.vg_creq;
	default:
		return p->skel->progs.vg_return_s;
	}
}

/* The plan's uprobes, each with its event as the cookie, grouped by
 * program and file; a --dynamic entry probe no slice needs yet starts
 * detached, in a group of its own event's. Attached once all are known
 * (vg_probe_attach_groups). */
static int add_sites(struct vg_probe *p, const struct vg_plan *plan,
		     struct vg_err *e)
{
	for (int i = 0; i < plan->nsites; i++) {
		const struct vg_plan_site *u = &plan->sites[i];

		if (u->fast) {	/* patched in the target instead (user/fast/) */
			if (vg_jmp_stop_add(p, u))
				return vg_errf(e, "out of memory");
			continue;
		}
		if (vg_probe_add_site(p, site_prog(p, u->prog), u->path,
				      u->offset, u->event, u->retprobe,
				      u->dormant ? u->event : -1, e))
			return -1;
		if (vg_jmp_stop_add(p, u))
			return vg_errf(e, "out of memory");
	}
	return 0;
}

/* The tracepoint program of a lifecycle event; which event index it
 * reports was set before load (lifecycle_setup). */
static struct bpf_program *lifecycle_prog(struct vg_probe *p,
					  enum vg_event_kind k)
{
	switch (k) {
	case VG_EV_SIGNAL:
		return p->skel->progs.vg_signal;
	case VG_EV_THREAD_START:
		return p->skel->progs.vg_fork;
	default:
		return p->skel->progs.vg_exit;	/* exit, thread_exit */
	}
}

static int attach_tracepoint(struct vg_probe *p, struct bpf_program *prog,
			     struct vg_err *e)
{
	struct bpf_link *l;

	for (int i = 0; i < p->nlinks; i++)
		if (bpf_link__fd(p->links[i]) >= 0 &&
		    bpf_program__fd(prog) == p->link_prog_fd[i])
			return 0;	/* exit and thread_exit share one */
	l = bpf_program__attach(prog);
	if (!l)
		return vg_errf(e, "attaching the %s tracepoint: %s (vigil needs a kernel with BTF tracepoints, 5.5 or later)",
			       bpf_program__name(prog), strerror(errno));
	p->link_prog_fd[p->nlinks] = bpf_program__fd(prog);
	p->links[p->nlinks++] = l;
	return 0;
}

static int attach_lifecycle(struct vg_probe *p, enum vg_event_kind k,
			    struct vg_err *e)
{
	return attach_tracepoint(p, lifecycle_prog(p, k), e);
}

/* `syscall name(args)`: one tracepoint for all of them, and the number
 * of each in the sys_ev map */
static int attach_syscall(struct vg_probe *p, const struct vg_event *ev,
			  int idx, struct vg_err *e)
{
	const char *like[6];
	char hint[200] = "";
	int nr = vg_syscall_nr(ev->name), n;
	uint32_t key, val = (uint32_t)idx + 1;

	if (nr < 0 || nr >= VG_MAX_SYSCALL) {
		n = vg_syscall_similar(ev->name, like, 6);
		for (int k = 0; k < n; k++)
			snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint),
				 "%s%s", k ? ", " : " (similar: ", like[k]);
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s:%d:%d: '%s' is not a Linux x86-64 system call%s%s",
				    ev->loc.file, ev->loc.line, ev->loc.col,
				    ev->name, hint, n ? ")" : "");
	}
	if (ev->nfields > 6)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s:%d:%d: syscall %s names %d arguments; system calls have at most 6",
				    ev->loc.file, ev->loc.line, ev->loc.col,
				    ev->name, ev->nfields);
	key = (uint32_t)nr;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.sys_ev), &key, &val,
				0))
		return vg_errf(e, "writing the system call table: %s",
			       strerror(errno));
	return attach_tracepoint(p, p->skel->progs.vg_sys_enter, e);
}

static int attach_all(struct vg_probe *p, const struct vg_probe_opts *o,
		      struct vg_err *e)
{
	const struct vg_spec *s = p->spec;

	/* the tracepoints: one per event at most, and the three lifecycle
	 * ones */
	p->links = calloc(s->nevents + 5, sizeof(*p->links));
	p->link_prog_fd = calloc(s->nevents + 5, sizeof(int));
	/* without per-process following, the old way: any process, filtered
	 * in BPF */
	p->pid = o->follow_forks && !p->per_pid ? -1 : o->pid;
	if (!p->links || !p->link_prog_fd)
		return vg_errf(e, "out of memory");
	/* (vg_exit_in first: it counts what vg_exit counts down) */
	if ((bpf_program__fd(p->skel->progs.vg_exit_in) >= 0 &&
	     attach_tracepoint(p, p->skel->progs.vg_exit_in, e)) ||
	    attach_tracepoint(p, p->skel->progs.vg_exit, e) ||
	    attach_tracepoint(p, p->skel->progs.vg_fork, e) ||
	    attach_tracepoint(p, p->skel->progs.vg_exec, e))
		return -1;
	if (o->watch && o->watch_lib_ino &&
	    attach_tracepoint(p, p->skel->progs.vg_watch_mmap, e))
		return -1;
	for (int i = 0; i < s->nevents; i++) {
		const struct vg_event *ev = &s->events[i];
		int rc = 0;

		switch (ev->kind) {
		case VG_EV_BEFORE:
		case VG_EV_AFTER:	/* the plan's sites, below */
			break;
		case VG_EV_EXIT:
		case VG_EV_SIGNAL:
		case VG_EV_THREAD_START:
		case VG_EV_THREAD_EXIT:
			rc = attach_lifecycle(p, ev->kind, e);
			break;
		case VG_EV_SYSCALL:
			rc = attach_syscall(p, ev, i, e);
			break;
		case VG_EV_WRITE:
		case VG_EV_READ:
		case VG_EV_ACCESS:
		case VG_EV_CHANGE:	/* armed by the session, once the
					 * program is loaded or a slice
					 * needs them */
			break;
		case VG_EV_TIMEOUT:	/* the monitor's own */
			break;
		case VG_EV_NAMED:
			rc = vg_errf_code(e, VG_EXIT_USAGE,
					  "%s:%d:%d: event '%s' is declared for traces: a live run has no source for it (use vigil check)",
					  ev->loc.file, ev->loc.line,
					  ev->loc.col, ev->name);
			break;
		default:
			rc = vg_errf_code(e, VG_EXIT_USAGE,
					  "%s:%d:%d: '%s' events are not supported in live runs yet",
					  ev->loc.file, ev->loc.line,
					  ev->loc.col,
					  vg_event_kind_name(ev->kind));
			break;
		}
		if (rc)
			return -1;
	}
	if (add_sites(p, o->plan, e))
		return -1;
	/* vigil watch: no target of its own, every process gets its links
	 * as it is adopted (a pid of 0 would be no filter at all) */
	if (o->watch)
		return 0;
	return vg_probe_attach_groups(p, e);
}

/* The event table and the kernel tier's tables, the plan's (user/plan/:
 * flags, where the arguments are, the memory reads, the records' slots,
 * the kernel-tier properties each event feeds) */
static int configure(struct vg_probe *p, const struct vg_probe_opts *o,
		     struct vg_err *e)
{
	const struct vg_spec *s = p->spec;
	struct vg_ev_conf *conf;
	int rc = -1;

	conf = calloc(VG_MAX_EVENTS, sizeof(*conf));
	if (!conf)
		return vg_errf(e, "out of memory");
	snprintf(p->binary, sizeof(p->binary), "%s", o->binary);
	for (int i = 0; i < s->nevents && i < VG_MAX_EVENTS; i++) {
		conf[i] = o->plan->events[i].conf;
		p->plan_hold[i] = conf[i].flags & VG_EVF_HOLD;
	}
	if (vg_ktier_write(&o->plan->kt, p->skel->maps.kprops,
			   p->skel->maps.ktrans, p->skel->maps.kcode, e))
		goto out;
	memcpy(p->kprop_map, o->plan->kt.kprop_map, sizeof(p->kprop_map));
	p->nkprops = o->plan->kt.nkprops;
	for (uint32_t i = 0; i < (uint32_t)s->nevents; i++)
		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.ev_conf),
					&i, &conf[i], 0)) {
			vg_errf(e, "writing the event table: %s",
				strerror(errno));
			goto out;
		}
	rc = 0;
out:
	free(conf);
	return rc;
}

int vg_probe_load_skel(void *skel)
{
	return vigil_bpf__load(skel);
}

struct bpf_program *vg_probe_prog(const struct vg_probe *p,
				  struct bpf_program *mine)
{
	struct bpf_program *side;

	if (bpf_program__fd(mine) >= 0 || !p->side_obj)
		return mine;
	side = bpf_object__find_program_by_name(p->side_obj,
						bpf_program__name(mine));
	return side && bpf_program__fd(side) >= 0 ? side : mine;
}

struct vg_probe *vg_probe_open(const struct vg_spec *spec,
			       const struct vg_probe_opts *o, struct vg_err *e)
{
	struct vg_probe *p = calloc(1, sizeof(*p));
	size_t rb = o->ringbuf_bytes ? o->ringbuf_bytes : VG_DEFAULT_RINGBUF;
	bool ktier, stacks = false;
	unsigned used = 0;
	struct vg_load_stats *ls, *kls = NULL;
	uint64_t t0;
	int err, kstep_fd;

	if (!p) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	p->late_fd = -1;
	p->spec = spec;
	pthread_mutex_init(&p->reap_mu, NULL);
	pthread_cond_init(&p->reap_cv, NULL);
	p->ncpus = libbpf_num_possible_cpus();
	libbpf_set_print(vg_probe_libbpf_quiet);

	p->skel = vigil_bpf__open();
	if (!p->skel) {
		vg_errf(e, "opening the BPF object: %s", strerror(errno));
		goto fail;
	}
	bpf_map__set_max_entries(p->skel->maps.events, vg_pow2_at_least(rb));
	/* load only the programs the plan's sites run (see bpf/vigil.bpf.h) */
	ktier = o->plan->kernel_progs;
	for (int i = 0; i < o->plan->nsites; i++)
		if (!o->plan->sites[i].fast)
			used |= 1u << o->plan->sites[i].prog;
	for (int i = 0; i < o->plan->nevents && !stacks; i++)
		stacks = o->plan->stack_events[i];
	vg_probe_config_programs(p->skel, spec, ktier, used,
				 stacks || vg_probe_stacks_predicted(spec));
	bpf_program__set_autoload(p->skel->progs.vg_watch_mmap,
				  o->watch && o->watch_lib_ino);
	p->per_pid = o->follow_forks && vg_feat_send_signal_task(NULL);
	p->keep_wps = o->keep_breakpoints;
	if (o->follow_forks && !p->per_pid && o->warn)
		fprintf(o->warn, "vigil: this kernel cannot hold a forked child until its probes are in place (bpf_send_signal_task, Linux 6.13): --follow-fork attaches the probes to every process that maps the probed files\n");
	p->skel->rodata->fork_stop_ok = p->per_pid;
	p->skel->rodata->stale_dr6 = vg_spec_watches(spec) &&
				     vg_debug_regs() == VG_REGS_STALE;
	p->kslot_max = o->max_kslices ? o->max_kslices : VG_DEFAULT_KSLICES;
	p->kslot_cap = vg_pow2_at_least(2 * (size_t)p->kslot_max);
	bpf_map__set_max_entries(p->skel->maps.kslots, p->kslot_cap);
	vg_probe_objmap_size(p, o->objmap_objects);
	p->skel->bss->kslot_mask = p->kslot_cap - 1;
	p->skel->bss->kslot_max = p->kslot_max;
	vg_rewind_setup(p);	/* exact stops at an entry (rewind.c) */
	vg_ktimer_setup(p, o);	/* timeouts in the kernel tier */
	/* (vigil watch, --follow-fork: no early load started it) */
	if (vg_spec_watches(spec))
		vg_perf_warm();
	/* loaded while the plan was built, if configured as this would be
	 * (probe_early.c); else here, vg_kstep, which costs the verifier
	 * more than the rest, on the other CPU (split_load.h) */
	err = vg_probe_early_take(o->early, &p->skel, &p->side_obj);
	if (err) {
		ls = vg_load_stats_arm(p->skel->obj);
		t0 = vg_now_ns(CLOCK_MONOTONIC);
		err = vg_split_load(p->skel->obj, vg_probe_load_skel, p->skel,
				    &p->side_obj, &kls);
		vg_load_stats_print(ls, p->skel->obj, kls, p->side_obj,
				    vg_now_ns(CLOCK_MONOTONIC) - t0, stderr);
	}
	/* (after: the object may be the early one) */
	p->entry = ktier ? p->skel->progs.vg_entry_k : p->skel->progs.vg_entry;
	p->ret = ktier ? p->skel->progs.vg_return_k : p->skel->progs.vg_return;
	if (err) {
		vg_errf(e, "loading the BPF programs: %s%s", strerror(-err),
			err == -EPERM ? " (vigil needs CAP_BPF and CAP_PERFMON, or root)"
				      : " (run with VIGIL_DEBUG=1 for the verifier log)");
		goto fail;
	}
	/* the kernel-tier slice table, read in place (foreach_kslice) */
	p->kslot_mem_len = (size_t)p->kslot_cap * sizeof(struct vg_kslot);
	p->kslot_mem = mmap(NULL, p->kslot_mem_len, PROT_READ, MAP_SHARED,
			    bpf_map__fd(p->skel->maps.kslots), 0);
	if (p->kslot_mem == MAP_FAILED)
		p->kslot_mem = NULL;
	if (o->objmap_objects && vg_probe_objmap_map(p, e))
		goto fail;
	/* vg_kstep: its own object's, or the main object's */
	kstep_fd = bpf_program__fd(vg_probe_prog(p, p->skel->progs.vg_kstep));
	if (kstep_fd >= 0) {
		uint32_t zero = 0;

		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.kstep_tail),
					&zero, &kstep_fd, 0)) {
			vg_errf(e, "setting up the kernel tier's step: %s",
				strerror(errno));
			goto fail;
		}
	}
	p->skel->bss->target_tgid = o->pid;
	p->skel->bss->follow_forks = o->follow_forks;
	p->skel->bss->fork_stop = p->per_pid && !o->follower;
	p->skel->bss->watch_ino = o->watch ? o->watch_ino : 0;
	vg_probe_kslices_by_process(p, o->watch);
	p->skel->bss->watch_dev = o->watch ? o->watch_dev : 0;
	p->skel->bss->watch_lib_ino = o->watch ? o->watch_lib_ino : 0;
	p->skel->bss->watch_lib_dev = o->watch ? o->watch_lib_dev : 0;
	if (o->watch && o->watch_name)
		snprintf(p->skel->bss->watch_name,
			 sizeof(p->skel->bss->watch_name), "%s", o->watch_name);
	/* the globals' watchpoints, the kernel tier's object map: armed
	 * and filed at the exec, before the program runs */
	p->stop_exec = o->launching && (vg_probe_has_global_watches(p) ||
					o->objmap_objects);
	p->skel->bss->stop_at_exec = p->stop_exec;
	p->skel->bss->armed_mask = ~o->plan->dormant;
	/* wake user space per 1/16 of the ring, or on the poll timeout */
	p->skel->bss->wake_bytes = vg_pow2_at_least(rb) / 16;
	p->skel->bss->wake_gap_ns = VG_WAKE_GAP_US * 1000ull;
	if (configure(p, o, e))
		goto fail;
	if (vg_ktimer_start(p, o, e))
		goto fail;
	if (vg_rewind_config(p, o)) {
		vg_errf(e, "writing the rewind table: %s", strerror(errno));
		goto fail;
	}
	if (attach_all(p, o, e))
		goto fail;
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), vg_probe_on_record,
				 p, NULL);
	if (!p->rb) {
		vg_errf(e, "opening the ring buffer: %s", strerror(errno));
		goto fail;
	}
	return p;
fail:
	vg_probe_close(p);
	return NULL;
}

bool vg_probe_exit_status(const struct vg_probe *p, int *code, int *sig)
{
	int status = p->skel->bss->target_exit_status;

	if (!p->skel->bss->target_exited)
		return false;
	*code = (status >> 8) & 0xff;
	*sig = status & 0x7f;
	return true;
}

bool vg_probe_exit_time(const struct vg_probe *p, uint64_t *ns)
{
	if (!p->skel->bss->target_exited)
		return false;
	*ns = p->skel->bss->target_exit_ns;
	return true;
}

void vg_probe_close(struct vg_probe *p)
{
	struct vg_ulinks_closing *closing;

	if (!p)
		return;
	vg_probe_release_held(p);
	/* every uprobe in one step (a close per program, file and process,
	 * all waiting together): the kernel's grace periods (~40-90 ms)
	 * need no CPU, so the rest is torn down meanwhile, and every uprobe
	 * is detached by the time this returns */
	closing = vg_probe_detach_begin(p);
	vg_probe_free_kids(p);
	ring_buffer__free(p->rb);
	vg_probe_disarm_watches(p);
	vg_jmp_stop_free(p);
	vg_probe_gone_free(p);
	vg_links_destroy(p->links, p->nlinks);
	free(p->links);
	free(p->link_prog_fd);
	if (p->kslot_mem)
		munmap((void *)p->kslot_mem, p->kslot_mem_len);
	if (p->om_mem)
		munmap(p->om_mem, p->om_len);
	free(p->om_filed);
	vg_probe_blocks_free(p);
	if (p->page_counts)
		munmap(p->page_counts, VG_PAGE_SLOTS * sizeof(uint64_t));
	free(p->pend.buf);
	if (p->skel)
		vg_ktimer_stop(p);
	vigil_bpf__destroy(p->skel);
	bpf_object__close(p->side_obj);
	vg_ulinks_close_end(closing);
	vg_ulinks_close_end(p->closing);
	vg_probe_free_groups(p);
	vg_probe_stacks_free(p);
	vg_late_release_go(p->late_fd);
	pthread_mutex_destroy(&p->reap_mu);
	pthread_cond_destroy(&p->reap_cv);
	free(p);
}

void vg_probe_detach_now(struct vg_probe *p)
{
	if (!p || p->closing)
		return;
	/* nothing can take a probe now: the kernel's grace periods are
	 * left to a holder that outlives vigil (late_release.h) */
	if (!getenv("VIGIL_DETACH_SYNC"))
		p->late_fd = vg_late_release_start();
	p->closing = vg_probe_detach_begin(p);
}

void vg_probe_arm_checkpoint(struct vg_probe *p, uint64_t next_ns)
{
	p->skel->bss->ckpt_next_ns = next_ns;
}

int vg_probe_set_kslice(struct vg_probe *p, int prop, const uint64_t *key,
			int state, const int64_t *vars, struct vg_err *e)
{
	int fd = bpf_map__fd(p->skel->maps.kslots);
	struct vg_kslot v;
	uint32_t h, home;
	int kprop = -1;

	for (int i = 0; i < p->nkprops; i++)
		if (p->kprop_map[i] == prop)
			kprop = i;
	if (kprop < 0)
		return vg_errf(e, "property %d is not in the kernel tier", prop);
	/* the probe's own search (bpf/kstep.bpf.h, kfind), done while the
	 * target is stopped: nothing else writes the table */
	h = vg_kslot_hash((uint32_t)kprop, key[0], key[1]);
	home = vg_kslot_home((uint32_t)kprop, key[0], key[1]);
	for (uint32_t i = 0; i < VG_KPROBES; i++) {
		uint32_t idx = vg_kslot_probe(home, h, i) & (p->kslot_cap - 1);

		if (bpf_map_lookup_elem(fd, &idx, &v))
			break;
		if (v.use == VG_KSLOT_READY &&
		    (v.prop != (uint32_t)kprop || v.key[0] != key[0] ||
		     v.key[1] != key[1]))
			continue;
		uint16_t tflags = v.use == VG_KSLOT_READY ? v.tflags : 0;

		if (v.use != VG_KSLOT_READY) {
			if (p->skel->bss->kslot_count >= p->kslot_max)
				break;
			p->skel->bss->kslot_count++;
		}
		memset(&v, 0, sizeof(v));
		v.tflags = tflags;
		v.use = VG_KSLOT_READY;
		v.prop = (uint32_t)kprop;
		v.key[0] = key[0];
		v.key[1] = key[1];
		v.state = (uint16_t)state;
		memcpy(v.vars, vars, sizeof(v.vars));
		vg_ktimer_adopt(p, idx, &v);	/* a deadline it carries */
		if (bpf_map_update_elem(fd, &idx, &v, BPF_ANY))
			return vg_errf(e, "writing a kernel-tier slice: %s",
				       strerror(errno));
		return 0;
	}
	return vg_errf(e, "the kernel-tier slice table is full (--max-slices %u)",
		       p->kslot_max);
}

int vg_probe_fd(const struct vg_probe *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

void vg_probe_set_polling(struct vg_probe *p, bool polling)
{
	p->skel->bss->consumer_polls = polling;
}

int vg_probe_kslot_share(const struct vg_probe *p, struct vg_probe_kshare *k)
{
	if (!p->kslot_mem || !p->skel->bss)
		return -1;
	k->kslots_fd = bpf_map__fd(p->skel->maps.kslots);
	k->kslots_len = p->kslot_mem_len;
	k->bss_fd = bpf_map__fd(p->skel->maps.bss);
	k->bss_len = bpf_map__value_size(p->skel->maps.bss);
	k->count_off = (uint32_t)((const char *)&p->skel->bss->kslot_count -
				  (const char *)p->skel->bss);
	k->mask = p->kslot_cap - 1;
	k->max = p->kslot_max;
	return 0;
}

static uint64_t percpu_sum(const struct vg_probe *p, struct bpf_map *map,
			   uint32_t key)
{
	uint64_t vals[p->ncpus], sum = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, vals))
		return 0;
	for (int i = 0; i < p->ncpus; i++)
		sum += vals[i];
	return sum;
}

void vg_probe_counts(const struct vg_probe *p, int event, uint64_t *hits,
		     uint64_t *lost)
{
	*hits = percpu_sum(p, p->skel->maps.ev_hits, event);
	*lost = percpu_sum(p, p->skel->maps.ev_lost, event);
	if (p->src.counts) {
		uint64_t h = 0, l = 0;

		p->src.counts(p->src.ctx, event, &h, &l);
		*hits += h;
		*lost += l;
	}
}

uint64_t vg_probe_counter(const struct vg_probe *p, enum vg_counter c)
{
	return percpu_sum(p, p->skel->maps.counters, c) +
	       (p->src.counter ? p->src.counter(p->src.ctx, c) : 0);
}

void vg_probe_kunknown(const struct vg_probe *p, int k, uint64_t *n,
		       uint64_t *kept)
{
	*n = *kept = 0;
	if (p && p->src.kunknown)
		p->src.kunknown(p->src.ctx, k, n, kept);
	/* the BPF step's (bpf/kmem.bpf.h) */
	if (p)
		vg_probe_objmap_unknown(p, k, n, kept);
}

void vg_probe_count_trans(struct vg_probe *p)
{
	p->skel->bss->count_trans = 1;
}

uint64_t vg_probe_trans_hits(const struct vg_probe *p, int i)
{
	return i >= 0 && i < VG_KMAX_TRANS_HITS
		? percpu_sum(p, p->skel->maps.ktrans_hits, (uint32_t)i) : 0;
}

int vg_probe_kprop_of(const struct vg_probe *p, int kprop)
{
	return kprop >= 0 && kprop < p->nkprops ? p->kprop_map[kprop] : -1;
}

int vg_probe_foreach_kslice(const struct vg_probe *p, vg_kslice_cb cb,
			    void *ctx)
{
	enum { CHUNK = 4096 };
	int fd = bpf_map__fd(p->skel->maps.kslots);
	struct vg_kslot *vals = malloc(CHUNK * sizeof(*vals));
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	uint32_t batch, at = 0;
	int rc = 0;

	if (!vals || !keys) {
		rc = -1;
		goto out;
	}
	/* in place: 131072 slots took 32 system calls and ~100 ms */
	for (uint32_t i = 0; p->kslot_mem && i < p->kslot_cap; i++) {
		const struct vg_kslot *s = &p->kslot_mem[i];
		int prop = s->use == VG_KSLOT_READY
			   ? vg_probe_kprop_of(p, (int)s->prop) : -1;
		uint64_t k[VG_KMAX_PARAMS];
		int64_t vars[VG_KMAX_VARS];

		if (prop < 0)
			continue;
		memcpy(k, s->key, sizeof(k));
		memcpy(vars, s->vars, sizeof(vars));
		cb(ctx, prop, k, s->state, vars);
	}
	if (p->kslot_mem)
		goto out;
	/* the whole array, a chunk per system call */
	while (at < p->kslot_cap && !rc) {
		__u32 n = CHUNK;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);

		rc = bpf_map_lookup_batch(fd, at ? &batch : NULL, &batch, keys,
					  vals, &n, &bo);
		if (rc && errno == ENOENT)
			rc = 0, at = p->kslot_cap;	/* the last chunk */
		for (__u32 i = 0; i < n; i++) {
			int prop = vg_probe_kprop_of(p, (int)vals[i].prop);
			uint64_t k[VG_KMAX_PARAMS];
			int64_t vars[VG_KMAX_VARS];

			if (vals[i].use != VG_KSLOT_READY || prop < 0)
				continue;
			memcpy(k, vals[i].key, sizeof(k));
			memcpy(vars, vals[i].vars, sizeof(vars));
			cb(ctx, prop, k, vals[i].state, vars);
		}
		at += n;
	}
out:
	free(vals);
	free(keys);
	return rc;
}

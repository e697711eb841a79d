/* Hardware watchpoints in the target (`write x`, `read x`, `access x`).
 *
 * A breakpoint is one perf event per thread with vg_watch
 * (bpf/vigil/watch.bpf.c) attached, inherited by the threads and processes
 * that thread creates later; the watch_ev map, keyed by address, tells
 * vg_watch which event a hit is (an inherited event keeps the program but
 * not its BPF cookie). Globals are armed once the program is loaded; the
 * session arms the others while some slice needs them
 * (user/watchset/watchset.c), with the target stopped, so that no thread
 * runs between the listing of the threads and the arming.
 *
 * One deleted while records are handled (a freed block handed out again)
 * is parked rather than closed: the next arming in the same drain (the
 * hold of the next free) moves its breakpoints to the new place, one
 * ioctl a thread, where a close and an open were a perf event torn down
 * and made again in every thread, and the threads listed from /proc
 * twice. A parked one is out of watch_ev, so its hits, if any, are
 * ignored (bpf/vigil/watch.bpf.c); what is still parked when the drain
 * ends is disabled, before any held thread goes on (a block handed out
 * again is the program's: it must not trap there), and moved by the
 * next arming, which enables it again; closed instead where a debugger
 * may want the registers (keep_breakpoints, probe.h). Closing it was a
 * BPF link destroyed and a perf event freed in every thread, and the
 * next arming an open, a link and two listings of /proc/PID/task:
 * allocs_bench under use_after_free released and armed 1,700 times. A
 * disabled breakpoint keeps its debug register, which an arming takes
 * back first: vigil never holds more than it had armed at once. */
#include "probe_internal.h"
#include "plan/plan.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"
#include "sym/maps.h"
#include "watch.h"
#include "vigil.skel.h"

bool vg_probe_has_watches(const struct vg_probe *p)
{
	for (int i = 0; i < p->spec->nevents; i++)
		if (vg_event_watches(&p->spec->events[i]))
			return true;
	return false;
}

bool vg_probe_has_global_watches(const struct vg_probe *p)
{
	for (int i = 0; i < p->spec->nevents; i++)
		if (vg_event_watches(&p->spec->events[i]) &&
		    !p->spec->events[i].wloc.per_slice)
			return true;
	return false;
}

int vg_probe_watch_global(struct vg_probe *p, pid_t pid,
			  const struct vg_plan_gwatch *g, struct vg_wp *out,
			  struct vg_err *e)
{
	uint64_t bias = 0;

	if (vg_proc_load_bias(pid, p->binary, &bias, e))
		return -1;
	*out = (struct vg_wp){
		.addr = g->link_addr + bias,
		.len = g->len,
		.kind = g->read,
		.conv = g->conv,
		.event = (uint32_t)g->event,
	};
	return 0;
}

/* one breakpoint on thread tid */
static int arm_thread(struct vg_probe *p, struct probe_wp *w,
		      const struct vg_wp *wp, int tid, struct vg_err *e)
{
	struct probe_wp_thread *v;
	struct bpf_link *l;
	int fd;

	fd = vg_watch_open(tid, wp->addr, wp->len, wp->kind, e);
	if (fd < 0)
		return -1;
	l = bpf_program__attach_perf_event(vg_probe_prog(p,
						p->skel->progs.vg_watch), fd);
	if (!l) {
		close(fd);
		return vg_errf(e, "attaching the watchpoint program: %s",
			       strerror(errno));
	}
	v = realloc(w->th, (w->nth + 1) * sizeof(*v));
	if (!v) {
		bpf_link__destroy(l);
		return vg_errf(e, "out of memory");
	}
	w->th = v;
	w->th[w->nth++] = (struct probe_wp_thread){ .link = l, .fd = fd };
	return 0;
}

static void release(struct probe_wp *w)
{
	for (int i = 0; i < w->nth; i++)
		bpf_link__destroy(w->th[i].link);	/* closes the perf fd */
	free(w->th);
	memset(w, 0, sizeof(*w));
}

/* A parked entry's breakpoints moved to wp, in every thread (a disabled
 * one enabled again: the kernel's move does): false (the entry released)
 * when one does not move, for a fresh arming */
static bool move(struct probe_wp *w, const struct vg_wp *wp)
{
	for (int i = 0; i < w->nth; i++)
		if (vg_watch_move(w->th[i].fd, wp->addr, wp->len, wp->kind)) {
			release(w);
			return false;
		}
	w->parked = w->off = false;
	return true;
}

/* A parked entry at a drain's end: disabled in every thread and kept, or
 * released */
static void park_off(struct vg_probe *p, struct probe_wp *w)
{
	int i = 0;

	while (p->keep_wps && i < w->nth && !vg_watch_disable(w->th[i].fd))
		i++;
	if (p->keep_wps && w->nth && i == w->nth)
		w->off = true;
	else
		release(w);
}

void vg_probe_near_hold(struct vg_probe *p)
{
	vg_watch_near(p->src.hold_cpu ? p->src.hold_cpu(p->src.ctx) : -1);
}

void vg_probe_wp_flush(struct vg_probe *p)
{
	vg_probe_near_hold(p);
	for (int i = 0; i < p->nwps; i++)
		if (p->wps[i].parked && !p->wps[i].off)
			park_off(p, &p->wps[i]);
}

/* Every thread of pid: a breakpoint is inherited only by the threads
 * created after it, so list them again until none is new. */
static int arm_threads(struct vg_probe *p, struct probe_wp *w,
		       const struct vg_wp *wp, pid_t pid, struct vg_err *e)
{
	enum { MAXT = 4096 };
	pid_t *seen = calloc(MAXT, sizeof(*seen));
	pid_t *now = calloc(MAXT, sizeof(*now));
	int nseen = 0, fresh = 1, rc = 0;

	if (!seen || !now)
		rc = vg_errf(e, "out of memory");
	while (!rc && fresh) {
		int n = vg_proc_threads(pid, now, MAXT);

		if (n < 0) {
			rc = vg_errf(e, "listing the threads of %d: %s", pid,
				     strerror(errno));
			break;
		}
		fresh = 0;
		for (int t = 0; !rc && t < n && t < MAXT; t++) {
			int j = 0;

			while (j < nseen && seen[j] != now[t])
				j++;
			if (j < nseen || nseen == MAXT)
				continue;
			seen[nseen++] = now[t];
			fresh = 1;
			rc = arm_thread(p, w, wp, now[t], e);
		}
	}
	free(seen);
	free(now);
	return rc;
}

int vg_probe_wp_add(struct vg_probe *p, pid_t pid, const struct vg_wp *wp,
		    struct vg_err *e)
{
	int fd = bpf_map__fd(p->skel->maps.watch_ev), id = 0;
	struct vg_wp_conf c = { .event = wp->event, .len = wp->len,
				.conv = wp->conv, .flags = wp->flags,
				.outside = p->spec->events[wp->event].outside_mask,
				.base = wp->base };
	struct probe_wp *w;
	bool moved = false;

	/* a parked entry first: its breakpoints are moved, not made */
	while (id < p->nwps && !p->wps[id].parked)
		id++;
	if (id == p->nwps)
		for (id = 0; id < p->nwps && p->wps[id].addr; id++)
			;
	if (id == p->nwps) {
		w = realloc(p->wps, (p->nwps + 1) * sizeof(*w));
		if (!w)
			return vg_errf(e, "out of memory");
		p->wps = w;
		memset(&p->wps[p->nwps++], 0, sizeof(*w));
	}
	w = &p->wps[id];
	/* the map first: a hit finds its event from the first thread on */
	if (bpf_map_update_elem(fd, &wp->addr, &c, BPF_NOEXIST))
		return vg_errf(e, "a watchpoint on 0x%llx: %s",
			       (unsigned long long)wp->addr,
			       errno == EEXIST ? "that address is watched already"
					       : strerror(errno));
	if (w->parked) {	/* (one that does not move is released) */
		vg_probe_near_hold(p);
		moved = move(w, wp);
	}
	w->addr = wp->addr;
	if (!moved && arm_threads(p, w, wp, pid, e)) {
		int err = errno;

		vg_probe_wp_del(p, id);
		errno = err;
		return -1;
	}
	return id;
}

int vg_probe_wp_set(struct vg_probe *p, int id, const struct vg_wp *wp,
		    struct vg_err *e)
{
	struct vg_wp_conf c = { .event = wp->event, .len = wp->len,
				.conv = wp->conv, .flags = wp->flags,
				.outside = p->spec->events[wp->event].outside_mask,
				.base = wp->base };

	if (id < 0 || id >= p->nwps || p->wps[id].addr != wp->addr)
		return vg_errf(e, "no watchpoint %d on 0x%llx", id,
			       (unsigned long long)wp->addr);
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.watch_ev),
				&wp->addr, &c, BPF_EXIST))
		return vg_errf(e, "updating the watchpoint on 0x%llx: %s",
			       (unsigned long long)wp->addr, strerror(errno));
	return 0;
}

void vg_probe_wp_del(struct vg_probe *p, int id)
{
	struct probe_wp *w;

	if (id < 0 || id >= p->nwps || !p->wps[id].addr)
		return;
	w = &p->wps[id];
	/* the breakpoints first, so that every hit they made finds its
	 * event (user space drops those of a watch it has ended); parked
	 * ones, kept for a move, hit unseen once the entry is gone */
	uint64_t addr = w->addr;

	if (p->draining && w->nth) {
		w->addr = 0;
		w->parked = true;
	} else {
		release(w);
	}
	bpf_map_delete_elem(bpf_map__fd(p->skel->maps.watch_ev), &addr);
}

void vg_probe_disarm_watches(struct vg_probe *p)
{
	for (int i = 0; i < p->nwps; i++)
		if (p->wps[i].addr || p->wps[i].parked)
			release(&p->wps[i]);
	free(p->wps);
	p->wps = NULL;
	p->nwps = 0;
}

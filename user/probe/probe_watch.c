/* Arming the spec's watchpoints (`write x`, `read x`, `access x`) in the
 * target: once its program is loaded (for vigil run, at the exec that
 * starts it, where bpf/lifecycle.bpf.h stops it), one perf breakpoint per
 * thread with vg_watch attached, inherited by the threads created later. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"
#include "sym/libs.h"
#include "watch.h"
#include "vigil.skel.h"

static bool is_watch(const struct vg_event *ev)
{
	return ev->kind == VG_EV_WRITE || ev->kind == VG_EV_READ ||
	       ev->kind == VG_EV_ACCESS;
}

bool vg_probe_has_watches(const struct vg_probe *p)
{
	for (int i = 0; i < p->spec->nevents; i++)
		if (is_watch(&p->spec->events[i]))
			return true;
	return false;
}

/* one breakpoint of event i on thread tid */
static int arm_one(struct vg_probe *p, int i, int tid, uint64_t addr,
		   struct vg_err *e)
{
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = (uint64_t)i);
	const struct vg_event *ev = &p->spec->events[i];
	struct bpf_link *l;
	int fd;

	fd = vg_watch_open(tid, addr, p->watch[i].len,
			   ev->kind == VG_EV_WRITE ? 0 : 1, e);
	if (fd < 0)
		return -1;
	l = bpf_program__attach_perf_event_opts(p->skel->progs.vg_watch, fd,
						&po);
	if (!l) {
		close(fd);
		return vg_errf(e, "attaching the watchpoint program: %s",
			       strerror(errno));
	}
	if (p->nwlinks == p->wcap) {
		int cap = p->wcap ? 2 * p->wcap : 16;
		void *v = realloc(p->wlinks, cap * sizeof(*p->wlinks));

		if (!v) {
			bpf_link__destroy(l);
			return vg_errf(e, "out of memory");
		}
		p->wlinks = v;
		p->wcap = cap;
	}
	p->wlinks[p->nwlinks++] = l;
	return 0;
}

/* every thread of pid not yet in seen[0..*nseen): breakpoints are
 * inherited only by threads created after them, so the caller lists the
 * threads again until none is new; returns how many were new, -1 on
 * error */
static int arm_new_threads(struct vg_probe *p, pid_t pid, uint64_t bias,
			   pid_t *seen, int *nseen, pid_t *now, int max,
			   struct vg_err *e)
{
	int n = vg_proc_threads(pid, now, max), fresh = 0;

	if (n < 0)
		return vg_errf(e, "listing the threads of %d: %s", pid,
			       strerror(errno));
	for (int t = 0; t < n && t < max; t++) {
		int j = 0;

		while (j < *nseen && seen[j] != now[t])
			j++;
		if (j < *nseen || *nseen == max)
			continue;
		seen[(*nseen)++] = now[t];
		fresh++;
		for (int i = 0; i < p->spec->nevents; i++)
			if (is_watch(&p->spec->events[i]) &&
			    arm_one(p, i, now[t], p->watch[i].link_addr + bias,
				    e))
				return -1;
	}
	return fresh;
}

int vg_probe_arm_watches(struct vg_probe *p, pid_t pid, struct vg_err *e)
{
	enum { MAXT = 4096 };
	pid_t *seen, *now;
	int nseen = 0, k;
	uint64_t bias = 0;

	if (!vg_probe_has_watches(p))
		return 0;
	if (vg_proc_load_bias(pid, p->binary, &bias, e))
		return -1;
	for (uint32_t i = 0; i < (uint32_t)p->spec->nevents; i++) {
		struct vg_ev_conf conf;
		int fd = bpf_map__fd(p->skel->maps.ev_conf);

		if (!is_watch(&p->spec->events[i]))
			continue;
		if (bpf_map_lookup_elem(fd, &i, &conf))
			return vg_errf(e, "reading the event table: %s",
				       strerror(errno));
		conf.watch_addr = p->watch[i].link_addr + bias;
		if (bpf_map_update_elem(fd, &i, &conf, 0) ||
		    bpf_map_update_elem(bpf_map__fd(p->skel->maps.watch_ev),
					&conf.watch_addr, &i, BPF_NOEXIST))
			return vg_errf(e, "writing the event table: %s%s",
				       strerror(errno),
				       errno == EEXIST ? " (two events watch the same address)" : "");
	}
	seen = calloc(MAXT, sizeof(*seen));
	now = calloc(MAXT, sizeof(*now));
	if (!seen || !now)
		k = vg_errf(e, "out of memory");
	else
		while ((k = arm_new_threads(p, pid, bias, seen, &nseen, now,
					    MAXT, e)) > 0)
			;
	free(seen);
	free(now);
	return k < 0 ? -1 : 0;
}

void vg_probe_disarm_watches(struct vg_probe *p)
{
	for (int i = 0; i < p->nwlinks; i++)
		bpf_link__destroy(p->wlinks[i]);
	free(p->wlinks);
	p->wlinks = NULL;
	p->nwlinks = p->wcap = 0;
}

/* Detaching the uprobes and attaching them again, at the same places: a
 * CRIU dump must not see the int3 a uprobe writes into the text
 * (vg_probe_suspend/resume), and --dynamic attaches an event's probes only
 * while a slice needs them (user/session/dynamic.c). Both apply to the
 * target's links and to those of each followed process. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vigil.skel.h"

struct destroyer {
	struct bpf_link **l;
	int n;
	atomic_int next;
};

static void *destroy_some(void *arg)
{
	struct destroyer *d = arg;
	int i;

	while ((i = atomic_fetch_add(&d->next, 1)) < d->n) {
		bpf_link__destroy(d->l[i]);
		d->l[i] = NULL;
	}
	return NULL;
}

/* Closing a uprobe link waits in the kernel (~110 ms each on these
 * machines, one after another from one thread). From several threads the
 * waits overlap in part (the kernel still finishes them ~80 ms apart): an
 * empty sqlite3 run under specs/lib/sqlite_stmt.vigil, 18 links, went
 * from 3.2-4.9 s to 2.3-2.4 s. With no thread to be had, the caller's
 * thread closes them all. */
void vg_links_destroy(struct bpf_link **l, int n)
{
	enum { MAX_THREADS = 32 };
	struct destroyer d = { .l = l, .n = n };
	pthread_t t[MAX_THREADS];
	int nt = 0;

	if (!l || n <= 0)
		return;
	while (nt < MAX_THREADS && nt < n - 1 &&
	       !pthread_create(&t[nt], NULL, destroy_some, &d))
		nt++;
	destroy_some(&d);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
}

struct bpf_link *vg_probe_attach_site(const struct uprobe_site *u, pid_t pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = u->retprobe,
		    .bpf_cookie = u->cookie |
				  (pid > 0 ? (uint64_t)pid << 32 : 0));

	return bpf_program__attach_uprobe_opts(u->prog, pid, u->path,
					       u->offset, &uo);
}

/* The uprobe links of owner o: the target's (-1), or a followed
 * process's (probe_follow.c). */
static struct bpf_link **links_of(struct vg_probe *p, int o, pid_t *pid)
{
	if (o < 0) {
		*pid = p->pid;
		return p->links;
	}
	*pid = p->kids[o].pid;
	return p->kids[o].links;
}

/* Attach site i for every owner that lacks it. A followed process that
 * has exited meanwhile (ESRCH) is no error: its exit record is on the
 * way. */
static int attach_everywhere(struct vg_probe *p, int i, const char *what,
			     struct vg_err *e)
{
	struct uprobe_site *u = &p->sites[i];

	for (int o = -1; o < p->nkids; o++) {
		pid_t pid;
		struct bpf_link **l = links_of(p, o, &pid);

		if (l[i])
			continue;
		l[i] = vg_probe_attach_site(u, pid);
		if (!l[i] && !(o >= 0 && errno == ESRCH))
			return vg_errf(e, "attaching the %s at %s+0x%llx%s: %s",
				       u->retprobe ? "uretprobe" : "uprobe",
				       u->path, (unsigned long long)u->offset,
				       what, strerror(errno));
	}
	return 0;
}

static void detach_everywhere(struct vg_probe *p, int i)
{
	for (int o = -1; o < p->nkids; o++) {
		pid_t pid;
		struct bpf_link **l = links_of(p, o, &pid);

		bpf_link__destroy(l[i]);
		l[i] = NULL;
	}
}

int vg_probe_suspend(struct vg_probe *p)
{
	struct bpf_link **all;
	int n = 0;

	if (p->suspended)
		return 0;
	/* every owner's links of every site at once (vg_links_destroy) */
	all = malloc((size_t)(p->nkids + 1) * (size_t)p->nlinks * sizeof(*all));
	for (int i = 0; i < p->nlinks; i++) {
		if (!p->sites[i].path)
			continue;
		if (!all) {
			detach_everywhere(p, i);
			continue;
		}
		for (int o = -1; o < p->nkids; o++) {
			pid_t pid;
			struct bpf_link **l = links_of(p, o, &pid);

			all[n++] = l[i];
			l[i] = NULL;
		}
	}
	vg_links_destroy(all, n);
	free(all);
	p->suspended = true;
	return 0;
}

int vg_probe_resume(struct vg_probe *p, struct vg_err *e)
{
	if (!p->suspended)
		return 0;
	for (int i = 0; i < p->nlinks; i++) {
		struct uprobe_site *u = &p->sites[i];

		if (!u->path || u->off)
			continue;
		if (attach_everywhere(p, i, " again", e))
			return -1;
	}
	p->suspended = false;
	return 0;
}

int vg_probe_event_attach(struct vg_probe *p, int event, bool on,
			  struct vg_err *e)
{
	for (int i = 0; i < p->nlinks; i++) {
		struct uprobe_site *u = &p->sites[i];

		if (!u->path || u->cookie != (uint64_t)event || u->off == !on)
			continue;
		u->off = !on;
		if (p->suspended)	/* vg_probe_resume will do it */
			continue;
		if (!on) {
			detach_everywhere(p, i);
			continue;
		}
		if (attach_everywhere(p, i, "", e)) {
			detach_everywhere(p, i);
			u->off = true;
			return -1;
		}
	}
	return 0;
}

void vg_probe_set_armed(struct vg_probe *p, uint64_t mask)
{
	__atomic_store_n(&p->skel->bss->armed_mask, mask, __ATOMIC_SEQ_CST);
}

bool vg_probe_quiesce(struct vg_probe *p, int timeout_ms)
{
	uint64_t vals[p->ncpus];
	bool seen_zero[p->ncpus];
	uint32_t key = 0;
	int left = p->ncpus;

	memset(seen_zero, 0, sizeof(seen_zero));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (int t = 0; t <= timeout_ms * 10 && left; t++) {
		if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.inflight),
					&key, vals))
			return false;
		for (int c = 0; c < p->ncpus; c++)
			if (!seen_zero[c] && !vals[c]) {
				seen_zero[c] = true;
				left--;
			}
		if (left)
			usleep(100);
	}
	return !left;
}

void vg_probe_links(const struct vg_probe *p, int *attached, int *total)
{
	*attached = *total = 0;
	for (int i = 0; i < p->nlinks; i++) {
		(*total)++;
		*attached += p->links[i] != NULL;
	}
}

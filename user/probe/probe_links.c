/* The uprobes, grouped by program and file (each group one multi-uprobe
 * link per process, ulink.h), detached and attached again at the same
 * places: a CRIU dump must not see the int3 a uprobe writes into the text
 * (vg_probe_suspend/resume: one step each), and --dynamic attaches an
 * event's entry probes only while a slice needs them (user/dynamic/
 * dynamic.c: those are groups of their own). Both apply to the target's
 * links and to those of each followed process. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vigil.skel.h"

/* Tracepoint links: a few, closed one by one (they wait for no grace
 * period of the uprobes') */
void vg_links_destroy(struct bpf_link **l, int n)
{
	for (int i = 0; l && i < n; i++) {
		bpf_link__destroy(l[i]);
		l[i] = NULL;
	}
}

static int find_group(struct vg_probe *p, struct bpf_program *prog,
		      const char *path, bool retprobe, int dynamic_event)
{
	for (int g = 0; g < p->ngroups; g++) {
		struct uprobe_group *u = &p->groups[g];

		if (u->prog == prog && u->retprobe == retprobe &&
		    u->event == dynamic_event && !strcmp(u->path, path))
			return g;
	}
	return -1;
}

int vg_probe_add_site(struct vg_probe *p, struct bpf_program *prog,
		      const char *path, uint64_t offset, int event,
		      bool retprobe, int dynamic_event, struct vg_err *e)
{
	int g = find_group(p, prog, path, retprobe, dynamic_event);
	struct uprobe_group *u;

	if (g < 0) {
		if (p->ngroups == p->groups_cap) {
			int cap = p->groups_cap ? 2 * p->groups_cap : 8;
			void *v = realloc(p->groups, cap * sizeof(*p->groups));

			if (!v)
				return vg_errf(e, "out of memory");
			p->groups = v;
			p->groups_cap = cap;
		}
		g = p->ngroups;
		u = &p->groups[g];
		*u = (struct uprobe_group){ .prog = prog, .path = strdup(path),
					    .retprobe = retprobe,
					    .event = dynamic_event,
					    .off = dynamic_event >= 0 };
		if (!u->path)
			return vg_errf(e, "out of memory");
		p->ngroups++;
	}
	u = &p->groups[g];
	if (u->n == u->cap) {
		int cap = u->cap ? 2 * u->cap : 4;
		uint64_t *o = realloc(u->offsets, cap * sizeof(*o));

		if (o)
			u->offsets = o;
		o = o ? realloc(u->events, cap * sizeof(*o)) : NULL;
		if (!o)
			return vg_errf(e, "out of memory");
		u->events = o;
		u->cap = cap;
	}
	u->offsets[u->n] = offset;
	u->events[u->n++] = (uint64_t)event;
	return 0;
}

int vg_probe_attach_group(struct vg_probe *p, int g, pid_t pid,
			  struct vg_ulink *out, struct vg_err *e)
{
	const struct uprobe_group *u = &p->groups[g];
	uint64_t *cookies = malloc((size_t)u->n * sizeof(*cookies));
	const char *kind = u->retprobe ? "uretprobe" : "uprobe";
	const char *path = u->path;
	const uint64_t *offsets = u->offsets;
	int bad, rc, err;

	*out = VG_ULINK_NONE;
	vg_probe_kid_site(p, g, pid, &path, &offsets);	/* a container's copy */
	if (!cookies) {
		errno = ENOMEM;
		return e ? vg_errf(e, "out of memory") : -1;
	}
	for (int i = 0; i < u->n; i++)
		cookies[i] = u->events[i] |
			     (pid > 0 ? (uint64_t)pid << 32 : 0);
	rc = vg_ulink_attach(out, u->prog, path, u->retprobe, offsets,
			     cookies, u->n, pid, &bad);
	err = errno;
	free(cookies);
	if (rc && e) {
		if (bad >= 0)
			vg_errf(e, "attaching a %s to %s in %s: %s", kind,
				p->spec->events[u->events[bad]].name, path,
				strerror(err));
		else
			vg_errf(e, "attaching %d %ss (%s%s) to %s in one link: %s",
				u->n, kind, p->spec->events[u->events[0]].name,
				u->n > 1 ? ", ..." : "", path,
				strerror(err));
	}
	errno = err;
	return rc;
}

int vg_probe_attach_groups(struct vg_probe *p, struct vg_err *e)
{
	p->glinks = malloc((size_t)(p->ngroups ? p->ngroups : 1) *
			   sizeof(*p->glinks));
	if (!p->glinks)
		return vg_errf(e, "out of memory");
	for (int g = 0; g < p->ngroups; g++)
		p->glinks[g] = VG_ULINK_NONE;
	/* filtered by the kernel to the target's memory: other processes
	 * mapping the same file are not touched (followed processes get
	 * links of their own, probe_follow.c) */
	for (int g = 0; g < p->ngroups; g++)
		if (!p->groups[g].off &&
		    vg_probe_attach_group(p, g, p->pid, &p->glinks[g], e))
			return -1;
	return 0;
}

void vg_probe_free_groups(struct vg_probe *p)
{
	if (p->glinks)
		vg_ulinks_destroy(p->glinks, p->ngroups);
	for (int g = 0; g < p->ngroups; g++) {
		free(p->groups[g].path);
		free(p->groups[g].offsets);
		free(p->groups[g].events);
	}
	free(p->glinks);
	free(p->groups);
	p->glinks = NULL;
	p->groups = NULL;
	p->ngroups = p->groups_cap = 0;
}

/* The uprobe links of owner o: the target's (-1), or a followed
 * process's (probe_follow.c). */
static struct vg_ulink *links_of(struct vg_probe *p, int o, pid_t *pid)
{
	if (o < 0) {
		*pid = p->pid;
		return p->glinks;
	}
	*pid = p->kids[o].pid;
	return p->kids[o].glinks;
}

/* Attach group g for every owner that lacks it. A followed process that
 * has exited meanwhile (ESRCH) is no error: its exit record is on the
 * way. */
int vg_probe_attach_everywhere(struct vg_probe *p, int g, const char *what,
			       struct vg_err *e)
{
	for (int o = -1; o < p->nkids; o++) {
		pid_t pid;
		struct vg_ulink *l = links_of(p, o, &pid);

		/* (vigil watch: no links of the session's own, pid 0) */
		if (!l || vg_ulink_attached(&l[g]))
			continue;
		if (vg_probe_attach_group(p, g, pid, &l[g], NULL) &&
		    !(o >= 0 && errno == ESRCH)) {
			int err = errno;

			return vg_errf(e, "attaching the %ss at %s%s: %s",
				       p->groups[g].retprobe ? "uretprobe"
							     : "uprobe",
				       p->groups[g].path, what, strerror(err));
		}
	}
	return 0;
}

/* Detach group `only` (-1: every group) of every owner in one go: each
 * multi link is one close, and all of them wait together
 * (vg_ulinks_close_begin); the links are taken at once, and closed by the
 * time vg_ulinks_close_end returns. */
static struct vg_ulinks_closing *detach_begin(struct vg_probe *p, int only)
{
	int n = 0, cap = (p->nkids + 1) * p->ngroups;
	struct vg_ulink *all = malloc((size_t)(cap ? cap : 1) * sizeof(*all));
	struct vg_ulinks_closing *closing = NULL;

	for (int g = 0; g < p->ngroups; g++) {
		if (only >= 0 && g != only)
			continue;
		for (int o = -1; o < p->nkids; o++) {
			pid_t pid;
			struct vg_ulink *l = links_of(p, o, &pid);

			if (!l)		/* vigil watch: none of its own */
				continue;
			if (!all) {
				vg_ulinks_destroy(&l[g], 1);
				continue;
			}
			all[n++] = l[g];
			l[g] = VG_ULINK_NONE;
		}
	}
	if (all)
		closing = vg_ulinks_close_begin(all, n);
	free(all);
	return closing;
}

void vg_probe_detach_group(struct vg_probe *p, int only)
{
	vg_ulinks_close_end(detach_begin(p, only));
}

struct vg_ulinks_closing *vg_probe_detach_begin(struct vg_probe *p)
{
	return detach_begin(p, -1);
}

int vg_probe_suspend(struct vg_probe *p)
{
	if (p->suspended)
		return 0;
	vg_probe_detach_group(p, -1);
	p->suspended = true;
	return 0;
}

int vg_probe_resume(struct vg_probe *p, struct vg_err *e)
{
	if (!p->suspended)
		return 0;
	for (int g = 0; g < p->ngroups; g++) {
		if (p->groups[g].off || p->groups[g].idle)
			continue;
		if (vg_probe_attach_everywhere(p, g, " again", e))
			return -1;
	}
	p->suspended = false;
	return 0;
}

int vg_probe_event_attach(struct vg_probe *p, int event, bool on,
			  struct vg_err *e)
{
	for (int g = 0; g < p->ngroups; g++) {
		struct uprobe_group *u = &p->groups[g];

		if (u->event != event || u->off == !on)
			continue;
		u->off = !on;
		if (p->suspended)	/* vg_probe_resume will do it */
			continue;
		if (!on) {
			vg_probe_detach_group(p, g);
			continue;
		}
		if (vg_probe_attach_everywhere(p, g, "", e)) {
			vg_probe_detach_group(p, g);
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
	for (int g = 0; g < p->ngroups; g++) {
		if (p->groups[g].idle)
			continue;	/* closed by vigil unload: no longer
					 * the run's (probe_unload.c) */
		*total += p->groups[g].n;
		if (p->glinks && vg_ulink_attached(&p->glinks[g]))
			*attached += p->groups[g].n;
	}
}

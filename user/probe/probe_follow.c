/* --follow-fork: per-process probes.
 *
 * A uprobe attached for any process (pid -1) puts its int3 into every
 * process on the machine that maps the probed file, and each of them then
 * pays a trap per call, filtered out in BPF or not. So the uprobes are
 * attached for the target's pid, and again for each followed process.
 *
 * A forked child's memory is a copy of its parent's, int3s included, but
 * the parent's links are filtered to the parent's memory: at the child's
 * first hit the kernel finds no consumer for it and takes the int3 out.
 * So the child must not run before its own links exist. The fork
 * tracepoint (bpf/vigil/lifecycle.bpf.c) marks it VG_FOLLOW_HELD in `followed`
 * and sends it SIGSTOP before it is first woken: it stops on its way out
 * of the kernel, before any of its code. On the fork record vigil attaches
 * its links, marks it VG_FOLLOW_ON and sends SIGCONT (vg_probe_follow).
 *
 * A held child is never left stopped: vigil's end (vg_probe_close) first
 * clears fork_stop, waits until no fork program is between reading it and
 * marking its child (vg_probe_quiesce), then lets go of every child still
 * marked held -- those whose records it did not get to. (vigil killed by
 * SIGKILL cannot: the guard process does it then, probe_orphans.c.)
 *
 * A followed process's exit (VG_PROC_EXIT) destroys its links, so that a
 * target forking thousands of children does not run out of descriptors.
 *
 * The cost, per followed fork: attaching its uprobes (some milliseconds
 * each: the kernel walks every process mapping the file), during which
 * the child waits. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vigil.skel.h"

/* Destroying a uprobe link waits for RCU grace periods (about 0.1 s on
 * Linux 6.18): in the loop it would delay every fork record behind it, and
 * hold each new child that long. So the links of an ended process go on a
 * thread of their own; threads waiting together share grace periods. */
#define VG_MAX_REAPERS 64

struct reap {
	struct vg_probe *p;
	struct vg_ulink *links;
	int n;
};

static void destroy_all(struct vg_ulink *links, int n)
{
	if (links)
		vg_ulinks_destroy(links, n);
	free(links);
}

static void *reap_main(void *arg)
{
	struct reap *r = arg;
	struct vg_probe *p = r->p;

	destroy_all(r->links, r->n);
	free(r);
	pthread_mutex_lock(&p->reap_mu);
	p->reaping--;
	pthread_cond_broadcast(&p->reap_cv);
	pthread_mutex_unlock(&p->reap_mu);
	return NULL;
}

static void drop_links(struct vg_probe *p, struct vg_kid_links *k)
{
	struct reap *r = malloc(sizeof(*r));
	pthread_attr_t at;
	pthread_t t;
	bool async = false;

	if (r && !pthread_attr_init(&at)) {
		*r = (struct reap){ .p = p, .links = k->glinks,
				    .n = p->ngroups };
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_mutex_lock(&p->reap_mu);
		if (p->reaping < VG_MAX_REAPERS &&
		    !pthread_create(&t, &at, reap_main, r)) {
			p->reaping++;
			async = true;
		}
		pthread_mutex_unlock(&p->reap_mu);
		pthread_attr_destroy(&at);
	}
	if (!async) {
		free(r);
		destroy_all(k->glinks, p->ngroups);
	}
	k->glinks = NULL;
}

/* The state of pid in `followed` becomes ON (or, unfollow, none), and a
 * child held at its fork gets its SIGCONT. Through a pidfd opened first:
 * if pid ended and was reused meanwhile, its entry is gone (the exit
 * tracepoint removes it) and no signal goes to a stranger. */
static void let_go(struct vg_probe *p, pid_t pid, bool unfollow)
{
	int fd = bpf_map__fd(p->skel->maps.followed);
	uint32_t key = (uint32_t)pid, v = 0, on = VG_FOLLOW_ON;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (!bpf_map_lookup_elem(fd, &key, &v)) {
		if (unfollow)
			bpf_map_delete_elem(fd, &key);
		else if (v == VG_FOLLOW_HELD)
			bpf_map_update_elem(fd, &key, &on, BPF_EXIST);
		if (v == VG_FOLLOW_HELD && pidfd >= 0)
			syscall(SYS_pidfd_send_signal, pidfd, SIGCONT, NULL, 0);
	}
	if (pidfd >= 0)
		close(pidfd);
}

int vg_probe_follow(struct vg_probe *p, pid_t pid, struct vg_err *e)
{
	struct vg_kid_links *k = NULL;
	int rc = 0;

	if (!p->per_pid)
		return 0;	/* the target's links take every process */
	for (int i = 0; i < p->nkids && !k; i++)
		if (p->kids[i].pid == pid) {	/* a reused pid */
			k = &p->kids[i];
			drop_links(p, k);
		}
	if (!k && p->nkids == p->kids_cap) {
		int cap = p->kids_cap ? 2 * p->kids_cap : 16;
		void *v = realloc(p->kids, cap * sizeof(*p->kids));

		if (!v) {
			let_go(p, pid, true);
			return vg_errf(e, "out of memory");
		}
		p->kids = v;
		p->kids_cap = cap;
	}
	if (!k) {
		k = &p->kids[p->nkids++];
		k->pid = pid;
		k->files = NULL;
	}
	/* a container's own copies of the files (probe_remap.c) */
	if (vg_probe_kid_files(p, k, e)) {
		vg_probe_unfollow(p, pid);
		let_go(p, pid, true);
		return -1;
	}
	k->glinks = malloc((size_t)(p->ngroups ? p->ngroups : 1) *
			   sizeof(*k->glinks));
	for (int g = 0; k->glinks && g < p->ngroups; g++)
		k->glinks[g] = VG_ULINK_NONE;
	for (int g = 0; k->glinks && g < p->ngroups && !rc; g++) {
		const struct uprobe_group *u = &p->groups[g];

		/* (idle: only unloaded properties' sites, probe_unload.c) */
		if (u->off || u->idle || p->suspended)
			continue;
		if (vg_probe_attach_group(p, g, pid, &k->glinks[g], NULL))
			rc = errno == ESRCH ? 1	/* gone already */
			     : vg_errf(e, "attaching the %ss at %s for pid %d: %s",
				       u->retprobe ? "uretprobe" : "uprobe",
				       u->path, pid, strerror(errno));
	}
	if (!k->glinks)
		rc = vg_errf(e, "out of memory");
	if (rc) {
		/* half its probes would make a false history: none, and
		 * not followed */
		vg_probe_unfollow(p, pid);
		let_go(p, pid, true);
		return rc < 0 ? -1 : 0;
	}
	let_go(p, pid, false);
	return 0;
}

void vg_probe_unfollow(struct vg_probe *p, pid_t pid)
{
	for (int i = 0; i < p->nkids; i++)
		if (p->kids[i].pid == pid) {
			drop_links(p, &p->kids[i]);
			vg_probe_kid_files_free(p, &p->kids[i]);
			p->kids[i] = p->kids[--p->nkids];
			return;
		}
}

void vg_probe_release_held(struct vg_probe *p)
{
	int fd;
	uint32_t key, next, v;
	bool first = true;

	if (!p->per_pid || !p->skel || !p->skel->bss)
		return;
	fd = bpf_map__fd(p->skel->maps.followed);
	p->skel->bss->fork_stop = 0;
	/* a fork that read fork_stop set has marked its child by now */
	vg_probe_quiesce(p, 100);
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (!bpf_map_lookup_elem(fd, &key, &v) && v == VG_FOLLOW_HELD)
			let_go(p, (pid_t)key, false);
	}
}

void vg_probe_free_kids(struct vg_probe *p)
{
	for (int i = 0; i < p->nkids; i++) {
		drop_links(p, &p->kids[i]);
		vg_probe_kid_files_free(p, &p->kids[i]);
	}
	vg_probe_remap_free(p);
	free(p->kids);
	p->kids = NULL;
	p->nkids = p->kids_cap = 0;
	pthread_mutex_lock(&p->reap_mu);
	while (p->reaping)
		pthread_cond_wait(&p->reap_cv, &p->reap_mu);
	pthread_mutex_unlock(&p->reap_mu);
}

int vg_probe_adopt(struct vg_probe *p, pid_t pid, struct vg_err *e)
{
	uint32_t key = (uint32_t)pid, on = VG_FOLLOW_ON;

	if (!p->per_pid)
		return vg_errf(e, "this kernel cannot hold a process until its probes are in place (bpf_send_signal_task, Linux 6.13)");
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.followed), &key,
				&on, BPF_ANY))
		return vg_errf(e, "pid %d: the table of followed processes is full (%s)",
			       pid, strerror(errno));
	return vg_probe_follow(p, pid, e);
}

void vg_probe_refuse(struct vg_probe *p, pid_t pid)
{
	vg_probe_unfollow(p, pid);
	let_go(p, pid, true);
}

/* vigil watch: one watched process's uprobe links out and back in, the
 * others' untouched (a checkpoint of that process:
 * user/ckpt/watch_ckpt.c).
 *
 * Why this is enough to take every int3 out of that process's text: each
 * watched process has links of its own (probe_follow.c), filtered to its
 * memory, and the kernel writes a uprobe's int3 only into the memory of a
 * process some consumer's filter wants. When the process's own links go,
 * the kernel walks the processes mapping the file and takes the int3 out
 * of each one no remaining consumer wants: this process, and no other.
 * The links are destroyed here, not on a reaper thread as at an exit:
 * the int3s must be gone when this returns, before CRIU reads the text. */
#include "probe_internal.h"

#include <errno.h>
#include <string.h>

static struct vg_kid_links *kid_of(struct vg_probe *p, pid_t pid)
{
	for (int i = 0; i < p->nkids; i++)
		if (p->kids[i].pid == pid)
			return &p->kids[i];
	return NULL;
}

int vg_probe_pause_proc(struct vg_probe *p, pid_t pid)
{
	struct vg_kid_links *k = kid_of(p, pid);

	if (!k || !k->glinks) {
		/* none of its own (a stop left it to gdb): those an exit or
		 * an unfollow handed to the reapers may still be going */
		pthread_mutex_lock(&p->reap_mu);
		while (p->reaping)
			pthread_cond_wait(&p->reap_cv, &p->reap_mu);
		pthread_mutex_unlock(&p->reap_mu);
		return 1;
	}
	vg_ulinks_destroy(k->glinks, p->ngroups);	/* each left empty */
	return 0;
}

int vg_probe_unpause_proc(struct vg_probe *p, pid_t pid, struct vg_err *e)
{
	struct vg_kid_links *k = kid_of(p, pid);

	if (!k || !k->glinks)
		return vg_errf(e, "pid %d has no probes of its own", pid);
	for (int g = 0; g < p->ngroups; g++) {
		const struct uprobe_group *u = &p->groups[g];

		if (u->off || u->idle || p->suspended ||
		    vg_ulink_attached(&k->glinks[g]))
			continue;
		if (vg_probe_attach_group(p, g, pid, &k->glinks[g], NULL)) {
			int err = errno;

			/* half its probes would make a false history */
			vg_ulinks_destroy(k->glinks, p->ngroups);
			return vg_errf(e, "attaching the %ss at %s for pid %d again: %s",
				       u->retprobe ? "uretprobe" : "uprobe",
				       u->path, pid, strerror(err));
		}
	}
	return 0;
}

/* Detaching the uprobes and attaching them again, at the same places: a
 * CRIU dump must not see the int3 a uprobe writes into the text
 * (vg_probe_suspend/resume), and --dynamic attaches an event's probes only
 * while a slice needs them (user/session/dynamic.c). */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vigil.skel.h"

int vg_probe_suspend(struct vg_probe *p)
{
	if (p->suspended)
		return 0;
	for (int i = 0; i < p->nlinks; i++)
		if (p->sites[i].path) {
			bpf_link__destroy(p->links[i]);
			p->links[i] = NULL;
		}
	p->suspended = true;
	return 0;
}

int vg_probe_resume(struct vg_probe *p, struct vg_err *e)
{
	if (!p->suspended)
		return 0;
	for (int i = 0; i < p->nlinks; i++) {
		struct uprobe_site *u = &p->sites[i];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = u->retprobe,
			    .bpf_cookie = u->cookie);

		if (!u->path || p->links[i] || u->off)
			continue;
		p->links[i] = bpf_program__attach_uprobe_opts(
			u->prog, p->pid, u->path, u->offset, &uo);
		if (!p->links[i])
			return vg_errf(e, "attaching the %s at %s+0x%llx again: %s",
				       u->retprobe ? "uretprobe" : "uprobe",
				       u->path, (unsigned long long)u->offset,
				       strerror(errno));
	}
	p->suspended = false;
	return 0;
}

int vg_probe_event_attach(struct vg_probe *p, int event, bool on,
			  struct vg_err *e)
{
	for (int i = 0; i < p->nlinks; i++) {
		struct uprobe_site *u = &p->sites[i];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = u->retprobe,
			    .bpf_cookie = u->cookie);

		if (!u->path || u->cookie != (uint64_t)event || u->off == !on)
			continue;
		u->off = !on;
		if (p->suspended)	/* vg_probe_resume will do it */
			continue;
		if (!on) {
			bpf_link__destroy(p->links[i]);
			p->links[i] = NULL;
			continue;
		}
		p->links[i] = bpf_program__attach_uprobe_opts(
			u->prog, p->pid, u->path, u->offset, &uo);
		if (!p->links[i]) {
			u->off = true;
			return vg_errf(e, "attaching the uprobe at %s+0x%llx: %s",
				       u->path, (unsigned long long)u->offset,
				       strerror(errno));
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

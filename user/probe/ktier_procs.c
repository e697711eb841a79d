/* vigil watch in the kernel tier: the slice table keyed by process too
 * (bpf/kstep.bpf.h, kslot_by_tgid; vg_kslot.tgid). One table serves every
 * watched process; --max-slices bounds it as a whole.
 *
 * A process's slots are not emptied when it ends -- an empty slot ends a
 * probe path, and other processes' slices may lie beyond it -- but their
 * tgid is set to 0, which no process has: they match nothing any more,
 * a pid reused by a new process finds none of them, and they stay counted
 * against --max-slices (a full table is reported, and makes the verdicts
 * inconclusive, never silently wrong). */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vigil.skel.h"

void vg_probe_kslices_by_process(struct vg_probe *p, bool on)
{
	p->skel->bss->kslot_by_tgid = on;
}

/* each READY slot of the table, with its index */
static int each_slot(const struct vg_probe *p,
		     void (*fn)(void *ctx, uint32_t idx, struct vg_kslot *s),
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
	while (at < p->kslot_cap && !rc) {
		__u32 n = CHUNK;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);

		rc = bpf_map_lookup_batch(fd, at ? &batch : NULL, &batch, keys,
					  vals, &n, &bo);
		if (rc && errno == ENOENT)
			rc = 0, at = p->kslot_cap;	/* the last chunk */
		for (__u32 i = 0; i < n; i++)
			if (vals[i].use == VG_KSLOT_READY)
				fn(ctx, keys[i], &vals[i]);
		at += n;
	}
out:
	free(vals);
	free(keys);
	return rc;
}

struct each_proc {
	const struct vg_probe *p;
	vg_kslice_proc_cb cb;
	void *ctx;
};

static void one_proc(void *ctx, uint32_t idx, struct vg_kslot *s)
{
	struct each_proc *e = ctx;
	int prop = vg_probe_kprop_of(e->p, (int)s->prop);
	uint64_t k[VG_KMAX_PARAMS];
	int64_t vars[VG_KMAX_VARS];

	if (prop < 0 || !s->tgid)
		return;
	memcpy(k, s->key, sizeof(k));
	memcpy(vars, s->vars, sizeof(vars));
	e->cb(e->ctx, (pid_t)s->tgid, prop, k, s->state, vars);
}

int vg_probe_foreach_kslice_proc(const struct vg_probe *p,
				 vg_kslice_proc_cb cb, void *ctx)
{
	struct each_proc e = { p, cb, ctx };

	return each_slot(p, one_proc, &e);
}

struct forget {
	const struct vg_probe *p;
	uint32_t tgid;
};

static void forget_one(void *ctx, uint32_t idx, struct vg_kslot *s)
{
	struct forget *f = ctx;

	if (s->tgid != f->tgid)
		return;
	/* no thread of the ended process steps it any more; others only
	 * compare its key, which now matches nobody's */
	s->tgid = 0;
	s->state = 0;
	s->lock = 0;
	bpf_map_update_elem(bpf_map__fd(f->p->skel->maps.kslots), &idx, s,
			    BPF_EXIST);
}

void vg_probe_forget_kslices(struct vg_probe *p, pid_t tgid)
{
	struct forget f = { p, (uint32_t)tgid };

	if (p->nkprops && tgid > 0)
		each_slot(p, forget_one, &f);
}

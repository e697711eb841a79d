/* The object map of the in-process agent (fast_run.h): the memory
 * predicates of the kernel-tier properties it steps (plan_memfast.c) are
 * answered from it (inproc/kstep.c), the heap's blocks filed by the agent
 * at the allocation events (inproc/objmap.c).
 *
 * It lies in the region, after the ring (so that vigil reads it in
 * place: the names of blocks in reports), sized from --max-objects
 * (vg_om_nbuckets). vigil sets it up before the agent runs: initialised,
 * each event's part (the allocator table of user/objmap/allocs.c, which
 * the user tier's map follows too), the heap's start, the globals of
 * every object mapped then. What it cannot vouch for it leaves unknown,
 * never "no object": a process attached to (its earlier blocks unseen)
 * has its heap marked lost and no arena; so has a run where an
 * allocation event of the spec is not patched (its blocks would not be
 * filed); vigil run's child, held at its entry, has the heap its
 * libraries allocated before it marked lost. Only vigil run's child
 * with every allocation event patched has a complete map (hdr.complete:
 * freeable(p) is false for memory with no entry, a stack). */
#include "fast_run.h"

#include <string.h>

#include "objmap/om_fill.h"
#include "plan/plan.h"
#include "proc/proc.h"
#include "vigil_objmap.h"

/* --max-objects counts heap blocks, as the user tier's map does; the
 * globals filed at install come on top (a C++ program has thousands) */
size_t vg_fast_objmap_bytes(const struct vg_plan *plan, pid_t pid)
{
	if (!plan || !plan->objmap_fast)
		return 0;
	uint64_t nb = vg_om_nbuckets(plan->om_objects +
				     vg_om_fill_globals(NULL, pid));

	/* the buckets, then the agent's level hints (inproc/omhint.h) */
	return (size_t)(vg_om_size(nb) + nb * VG_OM_HINTS_PER_BUCKET);
}

/* is event ev patched (an entry or return event of some hook)? */
static bool patched(void *ctx, int ev)
{
	const struct vg_fast_run *f = ctx;

	for (int i = 0; i < f->nhooks; i++) {
		const struct vg_fast_hook *h = &f->hooks[i].h;

		for (int j = 0; j < h->nentry; j++)
			if (h->entry_ev[j] == ev)
				return true;
		for (int j = 0; j < h->nret; j++)
			if (h->ret_ev[j] == ev)
				return true;
	}
	return false;
}

int vg_fast_objmap_fill(struct vg_fast_run *f, const struct vg_plan *plan,
			const size_t *at, size_t end, bool launching,
			struct vg_err *e)
{
	size_t off = *at, bytes = end - off;
	struct vg_objmap *m = (void *)((char *)f->sh + off);
	uint64_t nb = (bytes - sizeof(union vg_om_elem)) /
		      (sizeof(union vg_om_elem) + VG_OM_HINTS_PER_BUCKET);
	bool whole;

	if (vg_om_init(m, nb))
		return vg_errf(e, "the object map: %llu buckets", (unsigned long long)nb);
	m->hdr.h.hints = nb * VG_OM_HINTS_PER_BUCKET;
	memset(f->om_filed, 0, sizeof(f->om_filed));
	/* an allocation event on a uprobe is not the agent's to see */
	whole = vg_om_fill_roles(plan->spec, plan->nevents, f->sh->omev,
				 f->om_filed, patched, f);
	vg_om_fill_globals(m, f->pid);
	/* vigil run's child at its entry: what its heap holds already was
	 * allocated before the agent (the libraries' constructors:
	 * libstdc++'s emergency pool), unseen, as an attached process's
	 * whole heap */
	vg_om_fill_heap_lost(m, f->pid);
	if (launching && whole)	/* the brk heap, filed as blocks reach it */
		f->sh->heap_lo = f->sh->heap_hi = vg_proc_stat_u64(f->pid, 47);
	/* every later allocation filed: memory with no entry is no block */
	vg_om_set_complete(m, launching && whole);
	/* last: the agent uses it from here on */
	f->sh->objmap_size = bytes;
	f->sh->objmap_off = off;
	return 0;
}

void vg_fast_objmap_copy(struct vg_fast_shared *sh, uint64_t off,
			 const struct vg_fast_shared *old)
{
	if (!off || !old->objmap_off)
		return;
	memcpy((char *)sh + off, (const char *)old + old->objmap_off,
	       old->objmap_size);
	memcpy(sh->omev, old->omev, sizeof(sh->omev));
	memcpy(sh->kunknown, old->kunknown, sizeof(sh->kunknown));
	memcpy(sh->kunknown_kept, old->kunknown_kept,
	       sizeof(sh->kunknown_kept));
	sh->heap_lo = old->heap_lo;
	sh->heap_hi = old->heap_hi;
	sh->objmap_size = old->objmap_size;
	sh->objmap_off = off;
}

struct vg_objmap *vg_fast_objmap(struct vg_fast_shared *sh)
{
	return sh && sh->objmap_off
		? (struct vg_objmap *)((char *)sh + sh->objmap_off) : NULL;
}

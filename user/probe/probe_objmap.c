/* The kernel tier's object map (bpf/kmem.bpf.h; probe.h): a BPF array
 * sized before the load from --max-objects, mapped into vigil after it,
 * initialised at the launched program's exec (the target stopped there
 * by the probes: bpf/vigil/lifecycle.bpf.c, stop_at_exec), when the
 * session files the program's globals into it. Until then its header
 * says nothing is set up, and the probes file nothing: the calls vigil's
 * own child makes before its exec are not the program's. */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "features.h"
#include "vigil.skel.h"
#include "vigil_fast.h"
#include "vigil_objmap.h"

/* bpf/kmem.bpf.h's */
struct om_heap {
	uint64_t lo, hi;
	uint32_t off_mm, off_brk;
};
struct om_unknown {
	uint64_t n, kept;
};

static uint64_t nbuckets(uint64_t objects)
{
	return objects ? vg_om_nbuckets(objects) : 2;
}

void vg_probe_objmap_size(struct vg_probe *p, uint64_t objects)
{
	bpf_map__set_max_entries(p->skel->maps.objmap,
				 (uint32_t)nbuckets(objects) + 1);
	p->om_len = (size_t)vg_om_size(nbuckets(objects));
	/* without, its code is dead (kstep.bpf.h) */
	p->skel->rodata->kmem_on = objects != 0;
}

int vg_probe_objmap_map(struct vg_probe *p, struct vg_err *e)
{
	void *m = mmap(NULL, p->om_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(p->skel->maps.objmap), 0);

	if (m == MAP_FAILED)
		return vg_errf(e, "mapping the kernel tier's object map (%zu bytes): %s",
			       p->om_len, strerror(errno));
	p->om_mem = m;
	return 0;
}

int vg_probe_objmap_events(struct vg_probe *p, const struct vg_fast_omev *omev,
			   const uint64_t *filed,
			   int nevents, bool whole, struct vg_err *e)
{
	int fd = bpf_map__fd(p->skel->maps.om_ev);

	for (uint32_t i = 0; i < (uint32_t)nevents && i < VG_MAX_EVENTS; i++)
		if (omev[i].role &&
		    bpf_map_update_elem(fd, &i, &omev[i], 0))
			return vg_errf(e, "the kernel tier's object map: event %u: %s",
				       i, strerror(errno));
	memcpy(p->om_files, filed, sizeof(p->om_files));
	p->om_whole = whole;
	return 0;
}

struct vg_objmap *vg_probe_objmap_start(struct vg_probe *p,
					uint64_t start_brk)
{
	struct om_heap h = { 0 };
	uint32_t zero = 0;

	if (!p->om_mem)
		return NULL;
	/* the header last: zeroed first, so that no probe uses the map
	 * while it is written (the target is stopped; a probe of a thread
	 * of vigil's child that had not exec'd yet filed nothing) */
	memset(p->om_mem, 0, sizeof(union vg_om_elem));
	memset((char *)p->om_mem + sizeof(union vg_om_elem), 0,
	       p->om_len - sizeof(union vg_om_elem));
	/* the brk heap, filed as an arena as the blocks reach it, only
	 * when every block in it is seen, and the break can be read */
	if (p->om_whole && vg_feat_brk_offsets(&h.off_mm, &h.off_brk))
		h.lo = h.hi = start_brk;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.om_heap), &zero, &h,
				0))
		return NULL;
	if (vg_om_init(p->om_mem, p->om_len / sizeof(union vg_om_elem) - 1))
		return NULL;
	/* a program stopped at its exec, whose every allocation the probes
	 * see: memory with no entry is no heap block (freeable(p) false on a
	 * stack); a restored one's earlier blocks were never seen */
	vg_om_set_complete(p->om_mem, p->om_whole && start_brk);
	/* a new program: no object of the old one filed */
	p->om_nfiled = 0;
	p->om_started = true;
	/* and a program it execs stops there too, for its own map: before
	 * its first instruction, as this one (the exec's record may come
	 * after its first calls otherwise, on the old program's map) */
	p->stop_exec = true;
	p->skel->bss->stop_at_exec = 1;
	return p->om_mem;
}

struct vg_objmap *vg_probe_objmap_ready(const struct vg_probe *p)
{
	return p && p->om_started ? p->om_mem : NULL;
}

bool vg_probe_objmap_take(struct vg_probe *p, uint64_t start)
{
	uint64_t *n;

	for (size_t i = 0; i < p->om_nfiled; i++)
		if (p->om_filed[i] == start)
			return false;
	if (!(n = realloc(p->om_filed, (p->om_nfiled + 1) * sizeof(*n))))
		return false;	/* unknown there, never wrong */
	p->om_filed = n;
	n[p->om_nfiled++] = start;
	return true;
}

bool vg_probe_stops_at_exec(const struct vg_probe *p)
{
	return p->stop_exec;
}

void vg_probe_objmap_unknown(const struct vg_probe *p, int k, uint64_t *n,
			     uint64_t *kept)
{
	struct om_unknown u;
	uint32_t key = (uint32_t)k;

	if (!p->skel || !p->om_mem || k < 0 || k >= VG_KMAX_PROPS ||
	    bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.kmem_unknown), &key,
				&u))
		return;
	*n += u.n;
	*kept += u.kept;
}

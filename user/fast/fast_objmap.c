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

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objmap/allocs.h"
#include "plan/plan.h"
#include "proc/proc.h"
#include "sym/maps.h"
#include "vigil_objmap.h"

static size_t globals(struct vg_objmap *m, pid_t pid);

/* --max-objects counts heap blocks, as the user tier's map does; the
 * globals filed at install come on top (a C++ program has thousands) */
size_t vg_fast_objmap_bytes(const struct vg_plan *plan, pid_t pid)
{
	if (!plan || !plan->objmap_fast)
		return 0;
	return (size_t)vg_om_size(vg_om_nbuckets(plan->om_objects +
						 globals(NULL, pid)));
}

static uint8_t slot8(int i)
{
	return i >= 0 && i < VG_NSLOTS ? (uint8_t)i : VG_OMEV_NOSLOT;
}

/* is event ev patched (an entry or return event of some hook)? */
static bool patched(const struct vg_fast_run *f, int ev)
{
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

/* Each event's part (vigil_fast.h, struct vg_fast_omev); false when an
 * allocation is not the agent's to see whole (an allocation event on a
 * uprobe, a size the event does not read): then no arena */
static bool roles(struct vg_fast_run *f, const struct vg_plan *plan)
{
	struct vg_allocs *a = vg_allocs_new(plan->spec);
	bool whole = a != NULL;

	for (int i = 0; a && i < plan->nevents && i < VG_MAX_EVENTS; i++) {
		struct vg_fast_omev *o = &f->sh->omev[i];
		struct vg_alloc_shape s;

		vg_alloc_shape_of(a, i, &s);
		/* an event that only counts an `outside` depth (the
		 * spec's `outside reallocarray`) files nothing */
		if (s.what == VG_ALLOC_NONE || !vg_spec_binds(plan->spec, i))
			continue;
		if (!patched(f, i)) {
			whole = false;
			continue;
		}
		o->ptr = slot8(s.what == VG_ALLOC_FREE || s.out_ptr ? s.ptr
								     : s.old);
		o->size1 = slot8(s.size1);
		o->size2 = slot8(s.size2);
		if (s.what == VG_ALLOC_FREE)
			o->role = s.pool ? VG_OMEV_POOL_FREE : VG_OMEV_FREE;
		else if (s.pool)	/* a size unread: the slab answers */
			o->role = s.size_known ? VG_OMEV_POOL : VG_OMEV_NONE;
		else if (s.by_string)
			o->role = VG_OMEV_STRDUP;
		else if (!s.size_known || (s.out_ptr && s.ptr < 0))
			whole = false;	/* where or how big: unread */
		else if (s.out_ptr)
			o->role = VG_OMEV_OUT;
		else if (s.old >= 0)
			o->role = VG_OMEV_REALLOC;
		else
			o->role = VG_OMEV_ALLOC;
	}
	vg_allocs_free(a);
	return whole;
}

/* The data objects of one mapped file: its symbol table's, else its
 * dynamic one's (a stripped library exports its globals there), filed in
 * m (NULL: only counted); how many */
static size_t file_globals(struct vg_objmap *m, const struct vg_object *ob)
{
	size_t n = 0;

	int fd = open(ob->path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL, *tab = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB ||
		     (sh.sh_type == SHT_DYNSYM && !tab)))
			tab = scn;
	if (tab && gelf_getshdr(tab, &sh) && sh.sh_entsize) {
		Elf_Data *d = elf_getdata(tab, NULL);

		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr in;
			Elf_Scn *s;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE ||
			    !(s = elf_getscn(elf, sym.st_shndx)) ||
			    !gelf_getshdr(s, &in) || !(in.sh_flags & SHF_ALLOC) ||
			    (in.sh_flags & SHF_TLS))
				continue;
			n++;
			if (m)
				vg_om_insert(m, sym.st_value + ob->bias,
					     sym.st_size,
					     in.sh_flags & SHF_WRITE
						     ? VG_OM_GLOBAL
						     : VG_OM_RODATA, 0);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

/* The globals of every object mapped in pid, filed in m (NULL: only
 * counted); how many */
static size_t globals(struct vg_objmap *m, pid_t pid)
{
	struct vg_maps maps;
	struct vg_objects obs;
	struct vg_err e = { 0 };
	size_t n = 0;

	if (elf_version(EV_CURRENT) == EV_NONE || vg_maps_read(pid, &maps, &e))
		return 0;
	if (!vg_maps_objects(&maps, &obs, &e)) {
		for (size_t i = 0; i < obs.n; i++)
			n += file_globals(m, &obs.v[i]);
		vg_objects_free(&obs);
	}
	vg_maps_free(&maps);
	return n;
}

/* The process's heap so far (an attached one's, or the libraries'
 * blocks before the program's entry): blocks the agent never saw */
static void heap_lost(struct vg_objmap *m, pid_t pid)
{
	struct vg_maps maps;
	struct vg_err e = { 0 };

	if (vg_maps_read(pid, &maps, &e)) {
		vg_om_mark_lost(m, 0, ~0ull);	/* all of it: unknown */
		return;
	}
	for (size_t i = 0; i < maps.n; i++)
		if (maps.v[i].path && !strcmp(maps.v[i].path, "[heap]"))
			vg_om_mark_lost(m, maps.v[i].start,
					maps.v[i].end - maps.v[i].start);
	vg_maps_free(&maps);
}

int vg_fast_objmap_fill(struct vg_fast_run *f, const struct vg_plan *plan,
			const size_t *at, size_t end, bool launching,
			struct vg_err *e)
{
	size_t off = *at, bytes = end - off;
	struct vg_objmap *m = (void *)((char *)f->sh + off);
	uint64_t nb = bytes / sizeof(union vg_om_elem) - 1;
	bool whole;

	if (vg_om_init(m, nb))
		return vg_errf(e, "the object map: %llu buckets", (unsigned long long)nb);
	whole = roles(f, plan);
	globals(m, f->pid);
	/* vigil run's child at its entry: what its heap holds already was
	 * allocated before the agent (the libraries' constructors:
	 * libstdc++'s emergency pool), unseen, as an attached process's
	 * whole heap */
	heap_lost(m, f->pid);
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

bool vg_fast_objmap_block(const struct vg_fast_shared *sh, uint64_t v,
			  uint64_t *base, uint64_t *len, int *event)
{
	struct vg_om_obj o;

	if (!sh->objmap_off ||
	    vg_om_lookup((struct vg_objmap *)((char *)sh + sh->objmap_off),
			 v, &o) != VG_OM_FOUND ||
	    (o.kind != VG_OM_HEAP && o.kind != VG_OM_POOL))
		return false;
	*base = o.base;
	*len = o.len;
	*event = (int)o.site;
	return true;
}

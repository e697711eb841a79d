/* Filling an object map from vigil (om_fill.h): shared by the in-process
 * agent's map (user/fast/fast_objmap.c) and the kernel tier's BPF one
 * (user/session/session.c). */
#include "om_fill.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "allocs.h"
#include "sym/maps.h"

static uint8_t slot8(int i)
{
	return i >= 0 && i < VG_NSLOTS ? (uint8_t)i : VG_OMEV_NOSLOT;
}

/* are events i and k the same call: one function, at one end? */
static bool one_call(const struct vg_spec *spec, int i, int k)
{
	const struct vg_event *a = &spec->events[i], *b = &spec->events[k];

	return a->kind == b->kind && a->name && b->name &&
	       !strcmp(a->name, b->name);
}

bool vg_om_fill_roles(const struct vg_spec *spec, int nevents,
		      struct vg_fast_omev *omev, uint64_t *filed,
		      bool (*seen)(void *ctx, int ev), void *ctx)
{
	struct vg_allocs *a = vg_allocs_new(spec);
	bool whole = a != NULL, unread[VG_MAX_EVENTS] = { false };

	for (int i = 0; a && i < nevents && i < VG_MAX_EVENTS; i++) {
		struct vg_fast_omev *o = &omev[i];
		struct vg_alloc_shape s;

		vg_alloc_shape_of(a, i, &s);
		/* an event that only counts an `outside` depth (the
		 * spec's `outside reallocarray`) files nothing */
		if (s.what == VG_ALLOC_NONE || !vg_spec_binds(spec, i))
			continue;
		if (!seen(ctx, i)) {
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
			unread[i] = true;	/* where or how big */
		else if (s.out_ptr)
			o->role = VG_OMEV_OUT;
		else if (s.old >= 0)
			o->role = VG_OMEV_REALLOC;
		else
			o->role = VG_OMEV_ALLOC;
	}
	vg_allocs_free(a);
	/* Each spec binds a call by an event of its own (double_free's
	 * free(p), leak's, bad_free's): the events of one function at one
	 * end are one call, and its block is filed by the first of them
	 * that can, once. Filed by each, a free's second removal looked
	 * for a live block at every level of the map, and found it freed
	 * (a walk of a cache miss a level, a tenth of the agent's time
	 * under the memory specs); and a call one event does not measure
	 * (realloc_stale's `after malloc() returns p`) left the map
	 * incomplete though another event measured it. */
	for (int i = 0; i < nevents && i < VG_MAX_EVENTS; i++) {
		int first = -1;

		if (!omev[i].role && !unread[i])
			continue;
		for (int k = 0; k < nevents && k < VG_MAX_EVENTS; k++)
			if (omev[k].role && one_call(spec, i, k)) {
				first = k;
				break;
			}
		if (first < 0 && unread[i])
			whole = false;	/* where or how big: unread */
		else if (first != i)
			omev[i] = (struct vg_fast_omev){ 0 };
		if (filed && first >= 0 && vg_omev_files(omev[first].role))
			filed[i / 64] |= 1ull << (i % 64);
	}
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

size_t vg_om_fill_globals(struct vg_objmap *m, pid_t pid)
{
	return vg_om_fill_globals_if(m, pid, NULL, NULL);
}

size_t vg_om_fill_globals_if(struct vg_objmap *m, pid_t pid,
			     bool (*take)(void *ctx, uint64_t start),
			     void *ctx)
{
	struct vg_maps maps;
	struct vg_objects obs;
	struct vg_err e = { 0 };
	size_t n = 0;

	if (elf_version(EV_CURRENT) == EV_NONE || vg_maps_read(pid, &maps, &e))
		return 0;
	if (!vg_maps_objects(&maps, &obs, &e)) {
		for (size_t i = 0; i < obs.n; i++)
			if (!take || take(ctx, obs.v[i].start))
				n += file_globals(m, &obs.v[i]);
		vg_objects_free(&obs);
	}
	vg_maps_free(&maps);
	return n;
}

void vg_om_fill_heap_lost(struct vg_objmap *m, pid_t pid)
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


size_t vg_om_fill_count_file(const char *path)
{
	struct vg_object ob = { .path = (char *)path };

	return elf_version(EV_CURRENT) == EV_NONE ? 0 : file_globals(NULL, &ob);
}

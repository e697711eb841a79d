#include "symbolize.h"
#include "proc/procinfo.h"
#include "cxxnames.h"
#include "dwarf.h"
#include "elfcopy.h"

#include <fcntl.h>
#include <elf.h>
#include <gelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct fsym {
	uint64_t addr, size;
	char *name;
	/* data objects: a static (local binding), and the source file its
	 * symbol table or DWARF unit names ("" unknown; into obj->files) */
	bool local;
	const char *file;
};

struct fline {
	uint64_t addr;
	int line;		/* 0: end of a sequence, no line here */
	const char *file;	/* into obj->files */
};

/* One mapped file, read once per symbolizer. */
struct obj {
	char *path;
	int fd;			/* held open while the process was there (its
				 * root may go with it), -1: none */
	char *interp;		/* PT_INTERP: the program's dynamic loader */
	bool loaded;
	int build_id_len;	/* -1: not read yet, 0: none */
	uint8_t build_id[20];
	GElf_Phdr *load;	/* PT_LOAD segments */
	size_t nload;
	struct fsym *syms;
	size_t nsyms;
	struct fsym *dsyms;	/* data objects (globals), by address */
	size_t ndsyms;
	bool has_symtab;	/* else statics are DWARF's to say */
	bool dwarf_vars;	/* DWARF's variables added to dsyms */
	struct fline *lines;
	size_t nlines, caplines;
	char **files;
	size_t nfiles;
};

struct map {
	uint64_t start, end, pgoff;
	struct obj *o;
};

struct vg_symbolizer {
	pid_t pid;
	struct map *maps;
	size_t nmaps;
	uint64_t read_ns;	/* when the maps were last read */
	struct obj **objs;
	size_t nobjs;
};

static struct obj *obj_for(struct vg_symbolizer *s, const char *path)
{
	struct obj **grown, *o;

	for (size_t i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i]->path, path))
			return s->objs[i];
	grown = realloc(s->objs, (s->nobjs + 1) * sizeof(*grown));
	o = calloc(1, sizeof(*o));
	if (!grown || !o) {
		free(o);
		if (grown)
			s->objs = grown;
		return NULL;
	}
	s->objs = grown;
	o->path = strdup(path);
	o->fd = -1;
	o->build_id_len = -1;
	s->objs[s->nobjs++] = o;
	return o;
}

/* A late read's mappings (read_maps_as below) with the old ones none of
 * them overlaps; NULL when out of memory. */
static struct map *merged(const struct vg_symbolizer *s, struct map *maps,
			  size_t *n)
{
	struct map *all = realloc(maps, (*n + s->nmaps) * sizeof(*all));

	if (!all)
		return NULL;
	for (size_t i = 0, k, fresh = *n; i < s->nmaps; i++) {
		for (k = 0; k < fresh; k++)
			if (s->maps[i].start < all[k].end &&
			    all[k].start < s->maps[i].end)
				break;
		if (k == fresh)
			all[(*n)++] = s->maps[i];
	}
	return all;
}

/* (Re)reads the process's executable mappings; keeps the old ones when
 * the process is gone. replace: the read is exact (at the start, or with
 * the process held at the loader's rendezvous), and what it lacks is
 * unmapped; else it may be late, made while the process exits, which
 * Linux may show half torn down (6.18 showed the program and libc, the
 * loader and another library gone): it adds what it shows and drops only
 * the old mappings a new one overlaps, so that a late look never loses
 * what an exact one saw. */
static void read_maps_as(struct vg_symbolizer *s, bool replace)
{
	char path[64], line[4400], file[4096], root[64], rooted[4200];
	struct map *maps = NULL;
	size_t n = 0;
	struct vg_err e;
	FILE *f;

	/* a process in a container names its files from its own root:
	 * open them through it (proc/procinfo.h) */
	if (vg_proc_root_prefix(s->pid, root, sizeof(root), &e))
		root[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", s->pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[8];
		struct map *grown;

		file[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &lo, &hi,
			   perms, &off, file) < 4 || file[0] != '/' ||
		    perms[2] != 'x')
			continue;
		if (!(grown = realloc(maps, (n + 1) * sizeof(*grown))))
			break;
		maps = grown;
		snprintf(rooted, sizeof(rooted), "%s%s", root, file);
		maps[n++] = (struct map){ lo, hi, off, obj_for(s, rooted) };
	}
	fclose(f);
	if (!n) {
		free(maps);
		return;
	}
	if (!replace) {
		struct map *all = merged(s, maps, &n);

		if (!all) {
			free(maps);
			return;
		}
		maps = all;
	}
	free(s->maps);
	s->maps = maps;
	s->nmaps = n;
}

/* A late look, for an address no mapping known has (mapped since: a
 * dlopen, if the process is still there). Reports name every value
 * that may be a pointer, and heap pointers are in no file: one look
 * serves all the misses of LATE_NS. */
#define LATE_NS 20000000ull

static void read_maps(struct vg_symbolizer *s)
{
	struct timespec ts;
	uint64_t now;

	/* the coarse clock: this is asked at every name of the final
	 * report (70,000 of them at the end of a --json run), and its few
	 * milliseconds of resolution are nothing against LATE_NS */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (s->read_ns && now - s->read_ns < LATE_NS)
		return;
	s->read_ns = now;
	read_maps_as(s, false);
}

struct vg_symbolizer *vg_symbolizer_new(pid_t pid)
{
	struct vg_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	read_maps_as(s, true);
	return s;
}

void vg_symbolizer_refresh(struct vg_symbolizer *s)
{
	if (s)
		read_maps(s);
}

void vg_symbolizer_take(struct vg_symbolizer *s)
{
	if (!s)
		return;
	read_maps_as(s, true);
	/* an open per file, not its symbols: those are read when a name
	 * is asked, from the file held */
	for (size_t m = 0; m < s->nmaps; m++) {
		struct obj *o = s->maps[m].o;

		if (o && !o->loaded && o->fd < 0)
			o->fd = open(o->path, O_RDONLY | O_CLOEXEC);
	}
}

/* The name to open o by: its descriptor's when held */
static const char *obj_file(const struct obj *o, char *buf, size_t len)
{
	if (o->fd < 0)
		return o->path;
	snprintf(buf, len, "/proc/self/fd/%d", o->fd);
	return buf;
}

void vg_symbolizer_add_file(struct vg_symbolizer *s, const char *path)
{
	if (s && path)
		obj_for(s, path);
}

static void obj_free(struct obj *o)
{
	for (size_t i = 0; i < o->nsyms; i++)
		free(o->syms[i].name);
	for (size_t i = 0; i < o->ndsyms; i++)
		free(o->dsyms[i].name);
	for (size_t i = 0; i < o->nfiles; i++)
		free(o->files[i]);
	free(o->syms);
	free(o->dsyms);
	free(o->lines);
	free(o->files);
	free(o->load);
	free(o->interp);
	free(o->path);
	if (o->fd >= 0)
		close(o->fd);
	free(o);
}

void vg_symbolizer_free(struct vg_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++)
		obj_free(s->objs[i]);
	free(s->objs);
	free(s->maps);
	free(s);
}

/* By address; among aliases (free, cfree, __libc_free) the shortest name
 * last, which is the one a lookup finds. */
static int sym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)strlen(y->name) - (int)strlen(x->name);
}

static int line_cmp(const void *a, const void *b)
{
	const struct fline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->line - x->line;	/* a real line before an end marker */
}

static const char *intern_file(struct obj *o, const char *name);

static bool add_sym(struct fsym **arr, size_t *n, const struct fsym *f)
{
	struct fsym *grown = realloc(*arr, (*n + 1) * sizeof(*grown));

	if (!grown)
		return false;
	*arr = grown;
	grown[(*n)++] = *f;
	return true;
}

static void read_elf(struct obj *o, Elf *elf)
{
	size_t n;
	Elf_Scn *scn = NULL;

	if (!elf_getphdrnum(elf, &n) && (o->load = calloc(n, sizeof(GElf_Phdr))))
		for (size_t i = 0; i < n; i++)
			if (gelf_getphdr(elf, i, &o->load[o->nload]) &&
			    o->load[o->nload].p_type == PT_LOAD)
				o->nload++;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *group, *file;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			o->has_symtab = true;
		/* .symtab's local symbols come in groups, each after the
		 * STT_FILE symbol of its source: a static's file (kept only
		 * for a group that has one: a program has many sources) */
		group = file = "";
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			struct fsym f;
			bool data;

			if (!gelf_getsym(d, i, &sym) ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_FILE) {
				group = name;
				file = NULL;
				continue;
			}
			data = GELF_ST_TYPE(sym.st_info) == STT_OBJECT &&
			       sym.st_size && sym.st_shndx != SHN_UNDEF;
			if (!sym.st_value ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && !data))
				continue;
			f = (struct fsym){ sym.st_value, sym.st_size,
					   strdup(name), false, "" };
			if (data && GELF_ST_BIND(sym.st_info) == STB_LOCAL) {
				f.local = true;
				if (!file)
					file = intern_file(o, group);
				f.file = file;
			}
			if (!f.name ||
			    !(data ? add_sym(&o->dsyms, &o->ndsyms, &f)
				   : add_sym(&o->syms, &o->nsyms, &f))) {
				free(f.name);
				goto sort;	/* what it has, findable */
			}
		}
	}
sort:
	if (o->nsyms)
		qsort(o->syms, o->nsyms, sizeof(*o->syms), sym_cmp);
	if (o->ndsyms)
		qsort(o->dsyms, o->ndsyms, sizeof(*o->dsyms), sym_cmp);
}

static const char *intern_file(struct obj *o, const char *name)
{
	char **grown;

	for (size_t i = o->nfiles; i-- > 0;)
		if (!strcmp(o->files[i], name))
			return o->files[i];
	grown = realloc(o->files, (o->nfiles + 1) * sizeof(*grown));
	if (!grown)
		return "";
	o->files = grown;
	return o->files[o->nfiles++] = strdup(name);
}

/* The table doubles: a realloc a line made reading a large binary's
 * table quadratic where realloc copies (ASan's always does: the
 * sanitized unit test that symbolizes itself ran for minutes) */
static void add_line(struct obj *o, uint64_t addr, int line, const char *file)
{
	if (o->nlines == o->caplines) {
		size_t cap = o->caplines ? 2 * o->caplines : 1024;
		struct fline *grown = realloc(o->lines, cap * sizeof(*grown));

		if (!grown)
			return;
		o->lines = grown;
		o->caplines = cap;
	}
	o->lines[o->nlines++] = (struct fline){ addr, line, file };
}

/* The DWARF line table, all of it, sorted by address. */
static void read_lines(struct obj *o)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	char held[64];

	if (dwarf_init_path(obj_file(o, held, sizeof(held)), NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			    NULL, NULL, &dbg, NULL, 0, NULL, &err) != DW_DLV_OK)
		return;
	for (;;) {
		Dwarf_Unsigned hlen, abbrev, typeoff, next, version, count;
		Dwarf_Half ver, asize, lsize, xsize, cutype;
		Dwarf_Small table_count;
		Dwarf_Line_Context lctx;
		Dwarf_Line *lines;
		Dwarf_Signed n;
		Dwarf_Sig8 sig;
		Dwarf_Die cu = NULL;

		if (dwarf_next_cu_header_d(dbg, 1, &hlen, &ver, &abbrev, &asize,
					   &lsize, &xsize, &sig, &typeoff,
					   &next, &cutype, &err) != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &err) != DW_DLV_OK)
			continue;
		if (dwarf_srclines_b(cu, &version, &table_count, &lctx, &err) ==
			    DW_DLV_OK &&
		    dwarf_srclines_from_linecontext(lctx, &lines, &n, &err) ==
			    DW_DLV_OK) {
			for (Dwarf_Signed i = 0; i < n; i++) {
				Dwarf_Addr a;
				Dwarf_Bool end = 0;
				char *src = NULL;

				if (dwarf_lineaddr(lines[i], &a, &err) != DW_DLV_OK)
					continue;
				dwarf_lineendsequence(lines[i], &end, &err);
				count = 0;
				dwarf_lineno(lines[i], &count, &err);
				if (end || dwarf_linesrc(lines[i], &src, &err) != DW_DLV_OK) {
					add_line(o, a, 0, "");
					continue;
				}
				add_line(o, a, (int)count, intern_file(o, src));
				dwarf_dealloc(dbg, src, DW_DLA_STRING);
			}
			dwarf_srclines_dealloc_b(lctx);
		}
		dwarf_dealloc_die(cu);
	}
	dwarf_finish(dbg, &err);
	if (o->nlines)
		qsort(o->lines, o->nlines, sizeof(*o->lines), line_cmp);
}

static void load(struct obj *o)
{
	char held[64];
	int fd;
	Elf *elf;

	o->loaded = true;
	if ((fd = open(obj_file(o, held, sizeof(held)),
		       O_RDONLY | O_CLOEXEC)) < 0)
		return;
	elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ, NULL))) {
		size_t n;

		read_elf(o, elf);
		for (size_t i = 0; !elf_getphdrnum(elf, &n) && i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) ||
			    ph.p_type != PT_INTERP || !ph.p_filesz ||
			    ph.p_filesz > 4096 ||
			    !(o->interp = calloc(1, ph.p_filesz + 1)))
				continue;
			if (pread(fd, o->interp, ph.p_filesz, ph.p_offset) !=
			    (ssize_t)ph.p_filesz || o->interp[0] != '/') {
				free(o->interp);
				o->interp = NULL;
			}
			break;
		}
		elf_end(elf);
	}
	close(fd);
	read_lines(o);
}

/* o's executable segments, loaded with this bias, as /proc/PID/maps
 * would show them; nothing when the live maps had o already. */
static void add_segments(struct vg_symbolizer *s, struct obj *o,
			 uint64_t bias)
{
	const uint64_t page = 4096;
	struct map *maps;
	size_t n;

	for (size_t m = 0; m < s->nmaps; m++)
		if (s->maps[m].o == o)
			return;	/* read from the live process already */
	if (!(maps = realloc(s->maps, (s->nmaps + o->nload) * sizeof(*maps))))
		return;
	s->maps = maps;
	n = s->nmaps;
	for (size_t k = 0; k < o->nload; k++) {
		const GElf_Phdr *ph = &o->load[k];

		if (!(ph->p_flags & PF_X))
			continue;
		maps[n++] = (struct map){
			bias + (ph->p_vaddr & ~(page - 1)),
			bias + ph->p_vaddr + ph->p_memsz,
			ph->p_offset & ~(page - 1), o };
	}
	s->nmaps = n;
}

void vg_symbolizer_add_program(struct vg_symbolizer *s, const char *path,
			       uint64_t start_code, uint64_t interp_base)
{
	struct obj *o = s && path && start_code ? obj_for(s, path) : NULL;
	uint64_t lowest = UINT64_MAX;

	if (!o)
		return;
	if (!o->loaded)
		load(o);	/* now: the file may not stay there either */
	for (size_t k = 0; k < o->nload; k++)
		if ((o->load[k].p_flags & PF_X) && o->load[k].p_vaddr < lowest)
			lowest = o->load[k].p_vaddr;
	if (lowest == UINT64_MAX || start_code < lowest)
		return;
	add_segments(s, o, start_code - lowest);
	/* the dynamic loader, mapped at the exec too: AT_BASE is where its
	 * lowest segment went (its first PT_LOAD is at 0, as ld.so's is) */
	if (interp_base && o->interp) {
		struct obj *ld = obj_for(s, o->interp);

		if (!ld)
			return;
		if (!ld->loaded)
			load(ld);
		lowest = UINT64_MAX;
		for (size_t k = 0; k < ld->nload; k++)
			if (ld->load[k].p_vaddr < lowest)
				lowest = ld->load[k].p_vaddr & ~4095ull;
		if (lowest != UINT64_MAX && interp_base >= lowest)
			add_segments(s, ld, interp_base - lowest);
	}
}

/* The last entry at or below addr in a sorted array, or -1. */
#define FLOOR(arr, n, key, field)                                          \
	({                                                                 \
		ssize_t lo_ = 0, hi_ = (ssize_t)(n) - 1, at_ = -1;         \
		while (lo_ <= hi_) {                                       \
			ssize_t mid_ = (lo_ + hi_) / 2;                    \
			if ((arr)[mid_].field <= (key))                    \
				at_ = mid_, lo_ = mid_ + 1;                \
			else                                               \
				hi_ = mid_ - 1;                            \
		}                                                          \
		at_;                                                       \
	})

/* The GNU build id from the file's notes; read once. */
static void read_build_id(struct obj *o)
{
	char held[64];
	int n = vg_elf_build_id(obj_file(o, held, sizeof(held)), o->build_id,
				sizeof(o->build_id));

	o->build_id_len = n > 0 ? n : 0;
}

/* function and line of a file offset (look: already moved into the call
 * instruction for a return address) */
static void symbolize_in(struct obj *o, uint64_t fileoff, bool caller,
			 struct vg_frame *f)
{
	uint64_t vaddr = 0;
	bool found = false;
	ssize_t i;

	if (!o->loaded)
		load(o);
	snprintf(f->obj, sizeof(f->obj), "%s", o->path);
	for (size_t k = 0; k < o->nload; k++)
		if (fileoff >= o->load[k].p_offset &&
		    fileoff < o->load[k].p_offset + o->load[k].p_filesz) {
			vaddr = fileoff - o->load[k].p_offset + o->load[k].p_vaddr;
			found = true;
			break;
		}
	if (!found)
		return;
	i = FLOOR(o->syms, o->nsyms, vaddr, addr);
	if (i >= 0 && (vaddr < o->syms[i].addr + o->syms[i].size ||
		       !o->syms[i].size)) {
		/* as gdb's bt writes a C++ function: demangled */
		vg_demangle_into(o->syms[i].name, f->func, sizeof(f->func));
		f->off = vaddr - o->syms[i].addr + (caller ? 1 : 0);
	}
	i = FLOOR(o->lines, o->nlines, vaddr, addr);
	if (i >= 0 && o->lines[i].line) {
		snprintf(f->file, sizeof(f->file), "%s", o->lines[i].file);
		f->line = o->lines[i].line;
	}
}

static const struct map *map_at(const struct vg_symbolizer *s, uint64_t a)
{
	for (size_t m = 0; s && m < s->nmaps; m++)
		if (a >= s->maps[m].start && a < s->maps[m].end)
			return &s->maps[m];
	return NULL;
}

void vg_symbolize(struct vg_symbolizer *s, uint64_t ip, bool caller,
		  struct vg_frame *f)
{
	uint64_t look = caller ? ip - 1 : ip;
	const struct map *m;

	memset(f, 0, sizeof(*f));
	f->ip = ip;
	if (!s)
		return;
	if (!(m = map_at(s, look))) {
		read_maps(s);	/* mapped since (dlopen), if still alive */
		m = map_at(s, look);
	}
	if (m && m->o)
		symbolize_in(m->o, look - m->start + m->pgoff, caller, f);
}

static struct obj *obj_by_build_id(struct vg_symbolizer *s, const uint8_t *id)
{
	for (size_t i = 0; i < s->nobjs; i++) {
		struct obj *o = s->objs[i];

		if (o->build_id_len < 0)
			read_build_id(o);
		/* the kernel pads a shorter id with zeroes to 20 bytes */
		if (o->build_id_len > 0 &&
		    !memcmp(o->build_id, id, (size_t)o->build_id_len))
			return o;
	}
	return NULL;
}

void vg_symbolize_file(struct vg_symbolizer *s, const uint8_t *build_id,
		       uint64_t fileoff, bool caller, struct vg_frame *f)
{
	uint64_t look = caller ? fileoff - 1 : fileoff;
	struct obj *o;

	memset(f, 0, sizeof(*f));
	f->ip = fileoff;
	if (!s)
		return;
	if (!(o = obj_by_build_id(s, build_id))) {
		size_t known = s->nobjs;

		read_maps(s);
		if (s->nobjs == known || !(o = obj_by_build_id(s, build_id)))
			return;
	}
	symbolize_in(o, look, caller, f);
}

void vg_frame_format(const struct vg_frame *f, char *buf, size_t len)
{
	const char *base = strrchr(f->obj, '/');

	base = base ? base + 1 : f->obj;
	if (f->func[0] && f->line)
		snprintf(buf, len, "%s+0x%llx (%s:%d)", f->func,
			 (unsigned long long)f->off, f->file, f->line);
	else if (f->func[0])
		snprintf(buf, len, "%s+0x%llx (%s)", f->func,
			 (unsigned long long)f->off, base);
	else if (f->obj[0])
		snprintf(buf, len, "0x%llx (%s)", (unsigned long long)f->ip, base);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)f->ip);
}

/* o's variables DWARF knows (globals and file-scope statics with an
 * address), added to its data symbols once: for a program stripped of
 * .symtab whose DWARF (in it, or in a debug file) still says them. Only
 * for an object holding an address asked about and found in no symbol:
 * a big debug file (libc's) is read when a name needs it, not before. */
static void dwarf_var(void *ctx, const char *name, uint64_t addr,
		      uint64_t size, bool external, const char *file)
{
	struct obj *o = ctx;
	struct fsym f = { addr, size, strdup(name), !external, "" };

	if (!external && file)
		f.file = intern_file(o, file);
	if (!f.name || !add_sym(&o->dsyms, &o->ndsyms, &f))
		free(f.name);
}

static void read_dwarf_vars(struct obj *o)
{
	char held[64];
	struct vg_dwarf *dw;
	struct vg_err e;

	o->dwarf_vars = true;
	if (!(dw = vg_dwarf_open(obj_file(o, held, sizeof(held)), &e)))
		return;
	if (vg_dwarf_has_debug(dw))
		vg_dwarf_each_var(dw, dwarf_var, o);
	vg_dwarf_close(dw);
	if (o->ndsyms)
		qsort(o->dsyms, o->ndsyms, sizeof(*o->dsyms), sym_cmp);
}

/* the segment of o that holds link-time address vaddr, in memory */
static bool in_segment(const struct obj *o, uint64_t vaddr)
{
	for (size_t k = 0; k < o->nload; k++)
		if (vaddr >= o->load[k].p_vaddr &&
		    vaddr < o->load[k].p_vaddr + o->load[k].p_memsz)
			return true;
	return false;
}

/* o's data symbol holding vaddr, or -1 */
static ssize_t data_at(struct obj *o, uint64_t vaddr)
{
	ssize_t i = FLOOR(o->dsyms, o->ndsyms, vaddr, addr);

	if (i >= 0 && vaddr < o->dsyms[i].addr + o->dsyms[i].size)
		return i;
	if (o->has_symtab || o->dwarf_vars || !in_segment(o, vaddr))
		return -1;
	read_dwarf_vars(o);
	i = FLOOR(o->dsyms, o->ndsyms, vaddr, addr);
	if (i >= 0 && vaddr < o->dsyms[i].addr + o->dsyms[i].size)
		return i;
	return -1;
}

/* The global at addr: its object's load bias from a file-backed mapping
 * of it (a .bss past the file is an anonymous mapping of its own), then
 * the symbol whose [st_value, st_value + st_size) holds the address. */
bool vg_symbolize_global(struct vg_symbolizer *s, uint64_t addr,
			 struct vg_data_sym *out)
{
	for (int pass = 0; s && pass < 2; pass++) {
		for (size_t m = 0; m < s->nmaps; m++) {
			struct obj *o = s->maps[m].o;
			uint64_t bias = 0, vaddr;
			bool found = false;
			ssize_t i;

			if (!o)
				continue;
			if (!o->loaded)
				load(o);
			for (size_t k = 0; k < o->nload && !found; k++)
				if (s->maps[m].pgoff >= o->load[k].p_offset &&
				    s->maps[m].pgoff < o->load[k].p_offset +
						       o->load[k].p_filesz) {
					bias = s->maps[m].start -
					       (s->maps[m].pgoff -
						o->load[k].p_offset +
						o->load[k].p_vaddr);
					found = true;
				}
			if (!found || addr < bias)
				continue;
			vaddr = addr - bias;
			if ((i = data_at(o, vaddr)) >= 0) {
				const struct fsym *f = &o->dsyms[i];

				snprintf(out->name, sizeof(out->name), "%s",
					 f->name);
				out->off = vaddr - f->addr;
				out->size = f->size;
				out->local = f->local;
				snprintf(out->file, sizeof(out->file), "%s",
					 f->file ? f->file : "");
				return true;
			}
		}
		read_maps(s);	/* mapped since, if still alive */
	}
	return false;
}

/* Shared-library resolution, as glibc's ld.so does it (elf/dl-load.c
 * _dl_map_object), and which of those objects defines a function: the
 * loader's view of a program before it runs, for user/sym/libs.h. A
 * running process's mappings are maps.c's. */
#include "libs.h"
#include "dwarf.h"
#include "sym_internal.h"
#include "dwarf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Debian's multiarch glibc: the expansion of $LIB and the system
 * directories searched last. */
#define DST_LIB "lib/x86_64-linux-gnu"
#define DST_PLATFORM "x86_64"
static const char *const default_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib",
	"/usr/lib",
};

/* --- /etc/ld.so.cache (glibc >= 2.32 writes only the new format) ------- */

#define CACHE_MAGIC_NEW "glibc-ld.so.cache"
#define CACHE_VERSION "1.1"
#define CACHE_MAGIC_OLD "ld.so-1.7.0"
#define FLAG_TYPE_MASK 0x00ff
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_REQUIRED_MASK 0xff00
#define FLAG_X8664_LIB64 0x0300

struct cache_entry {
	int32_t flags;
	uint32_t key, value;	/* string offsets */
	uint32_t osversion;
	uint64_t hwcap;
};

struct cache_head {
	char magic[17];
	char version[3];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct ldcache {
	char *data;
	size_t len;
	const struct cache_head *h;	/* inside data */
	const char *strbase;		/* string offsets are from here */
};

/* A program in a container (another root: its path is under
 * /proc/self/fd/N, proc/procinfo.h) has its libraries found in its own
 * root: its ld.so.cache, its default directories, absolute DT_RPATH and
 * DT_RUNPATH entries and PT_INTERP, all under that prefix. Set for the
 * time of one vg_libs_load_with. */
static __thread char lib_root[64];

static void root_of(const char *binary)
{
	size_t n = strlen("/proc/self/fd/");

	lib_root[0] = 0;
	if (strncmp(binary, "/proc/self/fd/", n))
		return;
	n += strspn(binary + n, "0123456789");
	if (n < sizeof(lib_root) && binary[n] == '/')
		snprintf(lib_root, sizeof(lib_root), "%.*s", (int)n, binary);
}

/* path as the program names it, reachable from vigil (in buf) */
static const char *rooted(const char *path, char *buf, size_t len)
{
	if (!lib_root[0] || path[0] != '/' ||
	    !strncmp(path, lib_root, strlen(lib_root)))
		return path;
	snprintf(buf, len, "%s%s", lib_root, path);
	return buf;
}

static void cache_load(struct ldcache *c)
{
	char rb[PATH_MAX];
	FILE *f = fopen(rooted("/etc/ld.so.cache", rb, sizeof(rb)), "re");
	size_t off = 0;
	long len;

	memset(c, 0, sizeof(*c));
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(c->data = malloc((size_t)len)) ||
	    fread(c->data, 1, (size_t)len, f) != (size_t)len) {
		free(c->data);
		c->data = NULL;
		fclose(f);
		return;
	}
	fclose(f);
	c->len = (size_t)len;
	/* the old format may precede the new one: skip its entries */
	if (c->len >= 16 && !memcmp(c->data, CACHE_MAGIC_OLD, 11)) {
		uint32_t n;

		memcpy(&n, c->data + 12, 4);
		off = (16 + (size_t)n * 12 + 7) & ~(size_t)7;
	}
	if (off + sizeof(struct cache_head) > c->len ||
	    memcmp(c->data + off, CACHE_MAGIC_NEW, 17) ||
	    memcmp(c->data + off + 17, CACHE_VERSION, 3)) {
		free(c->data);
		c->data = NULL;
		return;
	}
	c->h = (const struct cache_head *)(c->data + off);
	c->strbase = c->data + off;
	if (off + sizeof(*c->h) + (size_t)c->h->nlibs *
	    sizeof(struct cache_entry) > c->len) {
		free(c->data);
		c->data = NULL;
		c->h = NULL;
	}
}

static const char *cache_str(const struct ldcache *c, uint32_t off)
{
	const char *s = c->strbase + off;

	if (s < c->data || s >= c->data + c->len ||
	    !memchr(s, 0, c->data + c->len - s))
		return NULL;
	return s;
}

/* The path of NAME for x86-64 in the cache. Entries for glibc-hwcaps
 * subdirectories (hwcap != 0) are skipped: they need CPU checks. */
static const char *cache_find(const struct ldcache *c, const char *name)
{
	const struct cache_entry *en;

	if (!c->h)
		return NULL;
	en = (const struct cache_entry *)(c->h + 1);
	for (uint32_t i = 0; i < c->h->nlibs; i++) {
		const char *k;

		if ((en[i].flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 ||
		    (en[i].flags & FLAG_REQUIRED_MASK) != FLAG_X8664_LIB64 ||
		    en[i].hwcap)
			continue;
		k = cache_str(c, en[i].key);
		if (k && !strcmp(k, name))
			return cache_str(c, en[i].value);
	}
	return NULL;
}

/* --- one object's dynamic section -------------------------------------- */

struct dyninfo {
	char **needed;
	size_t nneeded;
	char *soname, *rpath, *runpath;
	char *origin;		/* directory for $ORIGIN */
	bool nodeflib;
};

static void dyninfo_free(struct dyninfo *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->soname);
	free(d->rpath);
	free(d->runpath);
	free(d->origin);
	memset(d, 0, sizeof(*d));
}

static int dyninfo_read(const char *path, struct dyninfo *d, bool is_main,
			struct vg_err *e)
{
	struct vg_elf_file f;
	Elf_Scn *scn = NULL;
	char real[PATH_MAX], *slash;
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (vg_elf_file_open(path, &f, e))
		return -1;
	/* $ORIGIN: the directory of the object; for the executable ld.so
	 * takes it from /proc/self/exe, which is the resolved path */
	if (is_main && realpath(path, real))
		d->origin = strdup(real);
	else
		d->origin = strdup(path);
	if (!d->origin)
		goto oom;
	if ((slash = strrchr(d->origin, '/')))
		*(slash == d->origin ? slash + 1 : slash) = 0;
	else
		strcpy(d->origin, ".");
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;
			char **slot = NULL;

			if (!gelf_getdyn(data, i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1 &&
			    (dyn.d_un.d_val & DF_1_NODEFLIB))
				d->nodeflib = true;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME &&
			    dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(f.elf, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				void *p = realloc(d->needed,
						  (d->nneeded + 1) *
							  sizeof(*d->needed));
				if (!p)
					goto oom;
				d->needed = p;
				slot = &d->needed[d->nneeded++];
				*slot = NULL;
			} else if (dyn.d_tag == DT_SONAME) {
				slot = &d->soname;
			} else if (dyn.d_tag == DT_RPATH) {
				slot = &d->rpath;
			} else {
				slot = &d->runpath;
			}
			free(*slot);
			if (!(*slot = strdup(s)))
				goto oom;
		}
	}
	ret = 0;
	goto out;
oom:
	vg_errf(e, "out of memory");
	dyninfo_free(d);
out:
	vg_elf_file_close(&f);
	return ret;
}

/* --- search ---------------------------------------------------------------- */

/* Replace $ORIGIN, $LIB and $PLATFORM (also as ${...}). */
static bool expand(const char *in, const char *origin, char *out,
		   size_t len)
{
	static const struct {
		const char *tok;
		size_t n;
	} toks[] = { { "ORIGIN", 6 }, { "LIB", 3 }, { "PLATFORM", 8 } };
	size_t o = 0;

	while (*in) {
		const char *rep = NULL;
		size_t skip = 0;

		if (*in == '$') {
			bool brace = in[1] == '{';

			for (size_t t = 0; t < 3 && !rep; t++) {
				const char *p = in + 1 + brace;

				if (strncmp(p, toks[t].tok, toks[t].n))
					continue;
				if (brace ? p[toks[t].n] != '}' :
					    (p[toks[t].n] == '_' ||
					     (p[toks[t].n] >= 'A' &&
					      p[toks[t].n] <= 'Z') ||
					     (p[toks[t].n] >= 'a' &&
					      p[toks[t].n] <= 'z') ||
					     (p[toks[t].n] >= '0' &&
					      p[toks[t].n] <= '9')))
					continue;
				rep = t == 0 ? origin : t == 1 ? DST_LIB :
								  DST_PLATFORM;
				skip = 1 + toks[t].n + 2 * brace;
			}
		}
		if (rep) {
			size_t n = strlen(rep);

			if (o + n >= len)
				return false;
			memcpy(out + o, rep, n);
			o += n;
			in += skip;
		} else {
			if (o + 1 >= len)
				return false;
			out[o++] = *in++;
		}
	}
	out[o] = 0;
	return true;
}

/* Could ld.so load this file for an x86-64 process? */
static bool usable(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     !memcmp(h, ELFMAG, SELFMAG) && h[EI_CLASS] == ELFCLASS64 &&
	     h[EI_DATA] == ELFDATA2LSB && (h[18] | h[19] << 8) == EM_X86_64;
	close(fd);
	return ok;
}

/* Look for NAME in each directory of LIST (':'-separated; an empty entry
 * is the current directory), tokens expanded with ORIGIN. */
static char *search_list(const char *list, const char *origin,
			 const char *name, const char *seps)
{
	char dir[PATH_MAX], exp[PATH_MAX], path[PATH_MAX];

	while (list) {
		size_t n = strcspn(list, seps);

		if (n < sizeof(dir)) {
			memcpy(dir, list, n);
			dir[n] = 0;
			if (expand(n ? dir : ".", origin, exp, sizeof(exp)) &&
			    snprintf(path, sizeof(path), "%s/%s", exp, name) <
				    (int)sizeof(path) &&
			    usable(rooted(path, dir, sizeof(dir))))
				return strdup(rooted(path, dir, sizeof(dir)));
		}
		list = list[n] ? list + n + 1 : NULL;
	}
	return NULL;
}

struct resolver {
	struct vg_libs *libs;
	struct dyninfo *info;	/* parallel to libs->v */
	struct ldcache cache;
};

static char *resolve(struct resolver *r, size_t obj, const char *name,
		     const char **how)
{
	struct dyninfo *d = &r->info[obj];
	const char *llp = getenv("LD_LIBRARY_PATH"), *c;
	char buf[PATH_MAX];
	char *p;

	if (strchr(name, '/')) {
		char rb[PATH_MAX];

		*how = "path";
		if (expand(name, d->origin, buf, sizeof(buf)) &&
		    usable(rooted(buf, rb, sizeof(rb))))
			return strdup(rooted(buf, rb, sizeof(rb)));
		return NULL;
	}
	/* DT_RPATH of the object and of its loaders up to the executable,
	 * unless the object has DT_RUNPATH (which also turns off theirs) */
	if (!d->runpath) {
		for (size_t l = obj;; l = r->libs->v[l].loader) {
			struct dyninfo *ld = &r->info[l];

			*how = "rpath";
			if (!ld->runpath && ld->rpath &&
			    (p = search_list(ld->rpath, ld->origin, name, ":")))
				return p;
			if (l == 0)
				break;
		}
	}
	*how = "LD_LIBRARY_PATH";
	if (llp && *llp &&
	    (p = search_list(llp, r->info[0].origin, name, ":;")))
		return p;
	*how = "runpath";
	if (d->runpath && (p = search_list(d->runpath, d->origin, name, ":")))
		return p;
	if (d->nodeflib)
		return NULL;
	*how = "ld.so.cache";
	if ((c = cache_find(&r->cache, name)) &&
	    usable(c = rooted(c, buf, sizeof(buf))))
		return strdup(c);
	*how = "default";
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(*default_dirs);
	     i++) {
		snprintf(buf, sizeof(buf), "%s%s/%s", lib_root,
			 default_dirs[i], name);
		if (usable(buf))
			return strdup(buf);
	}
	return NULL;
}

/* already loaded under this name (its DT_NEEDED string or its soname)? */
static bool loaded_as(struct resolver *r, const char *name)
{
	for (size_t i = 0; i < r->libs->n; i++)
		if ((r->libs->v[i].needed &&
		     !strcmp(r->libs->v[i].needed, name)) ||
		    (r->info[i].soname && !strcmp(r->info[i].soname, name)))
			return true;
	return false;
}

static bool loaded_file(struct resolver *r, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < r->libs->n; i++)
		if (r->libs->v[i].path && r->libs->v[i].dev == dev &&
		    r->libs->v[i].ino == ino)
			return true;
	return false;
}

static int add_obj(struct resolver *r, const char *needed, char *path,
		   const char *how, size_t loader, struct vg_err *e)
{
	struct vg_libs *l = r->libs;
	struct vg_lib *lib;
	void *p, *q;
	struct stat st;

	p = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	if (p)
		l->v = p;
	q = realloc(r->info, (l->n + 1) * sizeof(*r->info));
	if (q)
		r->info = q;
	if (!p || !q) {
		free(path);
		return vg_errf(e, "out of memory");
	}
	lib = &l->v[l->n];
	memset(lib, 0, sizeof(*lib));
	memset(&r->info[l->n], 0, sizeof(r->info[l->n]));
	lib->path = path;
	lib->how = how;
	lib->loader = loader;
	if (path && stat(path, &st) == 0) {
		lib->dev = st.st_dev;
		lib->ino = st.st_ino;
	}
	l->n++;
	if (!(lib->needed = strdup(needed)))
		return vg_errf(e, "out of memory");
	return 0;
}

/* PT_INTERP: the dynamic loader itself, always mapped. */
static char *interp_of(const char *binary)
{
	struct vg_elf_file f;
	struct vg_err e;
	char *ret = NULL;
	size_t n;

	if (vg_elf_file_open(binary, &f, &e))
		return NULL;
	if (!elf_getphdrnum(f.elf, &n)) {
		for (size_t i = 0; i < n && !ret; i++) {
			GElf_Phdr ph;
			char buf[PATH_MAX];

			if (!gelf_getphdr(f.elf, i, &ph) ||
			    ph.p_type != PT_INTERP || !ph.p_filesz ||
			    ph.p_filesz >= sizeof(buf))
				continue;
			if (pread(f.fd, buf, ph.p_filesz, ph.p_offset) ==
			    (ssize_t)ph.p_filesz) {
				char rb[PATH_MAX];

				buf[ph.p_filesz] = 0;
				ret = strdup(rooted(buf, rb, sizeof(rb)));
			}
		}
	}
	vg_elf_file_close(&f);
	return ret;
}

/* Why ld.so would refuse PATH as a library for an x86-64 process, or
 * NULL. */
const char *vg_not_a_library(const char *path, char *buf, size_t len)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(buf, len, "%s", strerror(errno));
		return buf;
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (h[EI_CLASS] != ELFCLASS64 || h[EI_DATA] != ELFDATA2LSB ||
	    (h[18] | h[19] << 8) != EM_X86_64)
		return "not an x86-64 ELF file";
	if ((h[16] | h[17] << 8) != ET_DYN)
		return "not a shared library";
	return NULL;
}

/* A library the program may dlopen (--lib): found as dlopen called from
 * the program would find a bare name (the program's DT_RPATH,
 * LD_LIBRARY_PATH, its DT_RUNPATH, the cache, the system directories);
 * a path with a slash is taken as it is, from vigil's directory. Its own
 * DT_NEEDED are not followed: its functions are the ones asked for. */
static int add_dlopened(struct resolver *r, const char *name,
			struct vg_err *e)
{
	const char *how, *why;
	char *path = NULL, real[PATH_MAX], buf[256];
	struct stat st;

	if (!*name)
		return vg_errf_code(e, VG_EXIT_USAGE, "--lib: an empty path");
	if (strchr(name, '/')) {
		if ((why = vg_not_a_library(name, buf, sizeof(buf))))
			return vg_errf_code(e, VG_EXIT_USAGE, "--lib %s: %s",
					    name, why);
		path = strdup(realpath(name, real) ? real : name);
	} else if (!(path = resolve(r, 0, name, &how))) {
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--lib %s: not found where dlopen from %s would look (its RPATH or RUNPATH, LD_LIBRARY_PATH, /etc/ld.so.cache, the system directories): give its path",
				    name, r->libs->v[0].path);
	}
	if (!path)
		return vg_errf(e, "out of memory");
	/* already searched as one of the loader's (libc named with --lib) */
	if (stat(path, &st) == 0 && loaded_file(r, st.st_dev, st.st_ino)) {
		free(path);
		return 0;
	}
	return add_obj(r, name, path, "--lib", 0, e);
}

int vg_libs_load(const char *binary, struct vg_libs *out, struct vg_err *e)
{
	return vg_libs_load_with(binary, NULL, 0, out, e);
}

int vg_libs_load_with(const char *binary, const char *const *dlopened,
		      size_t ndlopened, struct vg_libs *out, struct vg_err *e)
{
	struct resolver r = { .libs = out };
	char *path, *interp;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	root_of(binary);
	cache_load(&r.cache);
	if (!(path = strdup(binary))) {
		vg_errf(e, "out of memory");
		goto out;
	}
	if (add_obj(&r, binary, path, "binary", 0, e))
		goto out;
	/* breadth first, as ld.so loads them */
	for (size_t i = 0; i < out->n; i++) {
		if (!out->v[i].path)
			continue;
		if (dyninfo_read(out->v[i].path, &r.info[i], i == 0, e)) {
			if (i == 0)
				goto out;
			continue;	/* unreadable library: no deps */
		}
		for (size_t k = 0; k < r.info[i].nneeded; k++) {
			const char *name = r.info[i].needed[k], *how = NULL;
			struct stat st;

			if (loaded_as(&r, name))
				continue;
			path = resolve(&r, i, name, &how);
			if (path && stat(path, &st) == 0 &&
			    loaded_file(&r, st.st_dev, st.st_ino)) {
				free(path);
				continue;
			}
			if (add_obj(&r, name, path, path ? how : NULL, i, e))
				goto out;
		}
	}
	/* the loader is mapped even when nothing names it */
	if ((interp = interp_of(binary))) {
		struct stat st;

		if (stat(interp, &st) == 0 &&
		    !loaded_file(&r, st.st_dev, st.st_ino)) {
			if (add_obj(&r, interp, interp, "interp", 0, e))
				goto out;
		} else {
			free(interp);
		}
	}
	out->nloaded = out->n;
	for (size_t i = 0; i < ndlopened; i++)
		if (add_dlopened(&r, dlopened[i], e))
			goto out;
	ret = 0;
out:
	for (size_t i = 0; r.info && i < out->n; i++)
		dyninfo_free(&r.info[i]);
	free(r.info);
	free(r.cache.data);
	if (ret)
		vg_libs_free(out);
	return ret;
}

void vg_libs_free(struct vg_libs *libs)
{
	for (size_t i = 0; i < libs->n; i++) {
		free(libs->v[i].needed);
		free(libs->v[i].path);
	}
	free(libs->v);
	memset(libs, 0, sizeof(*libs));
}

/* --- which object defines a function -------------------------------------- */

static int found_in(const struct vg_libs *libs, size_t i,
		    struct vg_elf_file *f, const GElf_Sym *sym, int tab,
		    const char *name, struct vg_func_where *out,
		    struct vg_err *e)
{
	out->obj = i;
	snprintf(out->path, sizeof(out->path), "%s", libs->v[i].path);
	out->fn.addr = sym->st_value;
	out->fn.size = sym->st_size;
	out->fn.source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB : VG_SRC_DYNSYM;
	out->fn.ifunc = GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
	snprintf(out->sym, sizeof(out->sym), "%s", name);
	/* memcpy, strlen: probe what the resolver picks, which is what is
	 * called (ifunc.c) */
	if (out->fn.ifunc &&
	    vg_ifunc_impl_vaddr(libs->v[i].path, name, &out->fn.addr)) {
		out->fn.ifunc = false;
		out->fn.size = 0;
		/* its own name (__strlen_avx2) when the symbols say, so that
		 * the resolver's DWARF (no parameters) is not taken for its */
		if ((!vg_elf_func_at(f->elf, out->fn.addr, out->sym,
				     sizeof(out->sym)) || !out->sym[0]) &&
		    !vg_ifunc_impl_debug_sym(f->elf, libs->v[i].path,
					     out->fn.addr, out->sym,
					     sizeof(out->sym), &out->fn.size))
			snprintf(out->sym, sizeof(out->sym), "%s.ifunc-impl",
				 name);
	}
	if (vg_elf_vaddr_to_offset(f->elf, out->fn.addr, &out->fn.offset))
		return vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
			       name, libs->v[i].path,
			       (unsigned long long)sym->st_value);
	return 0;
}

/* The symbol search's passes, in the order a call binds: the binary's own
 * symbols, local ones too; what each library the loader maps exports, in
 * load order (the first definition is the one calls bind to); local
 * symbols of its unstripped libraries; then the same two for the --lib
 * libraries, which the program may dlopen later. */
static const struct {
	bool dl;	/* the --lib libraries; else the loader's */
	int tabs;	/* VG_TAB_* */
	bool exported;	/* a library's exports: default version only */
} passes[] = {
	{ false, VG_TAB_SYMTAB | VG_TAB_DYNSYM, false },	/* v[0] only */
	{ false, VG_TAB_DYNSYM, true },
	{ false, VG_TAB_SYMTAB, false },
	{ true, VG_TAB_DYNSYM, true },
	{ true, VG_TAB_SYMTAB, false },
};

/* "not found": name what was searched, what could not be, and the way to
 * name a library the loader does not know about */
static int not_found(const struct vg_libs *libs, const char *name,
		     struct vg_err *e)
{
	static const char hint[] =
		"if the program loads it with dlopen, name the library with --lib PATH";
	size_t missing = 0, ndl = libs->n - libs->nloaded;
	char names[512] = "", dl[64] = "";

	for (size_t i = 1; i < libs->nloaded; i++) {
		if (libs->v[i].path)
			continue;
		missing++;
		if (strlen(names) + strlen(libs->v[i].needed) + 3 <
		    sizeof(names)) {
			if (names[0])
				strcat(names, ", ");
			strcat(names, libs->v[i].needed);
		}
	}
	if (ndl)
		snprintf(dl, sizeof(dl), " and %zu --lib librar%s", ndl,
			 ndl == 1 ? "y" : "ies");
	if (missing)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' not found in %s or its %zu libraries%s; %zu could not be found (%s): set LD_LIBRARY_PATH as the program will run; %s",
				    name, libs->v[0].path,
				    libs->nloaded - 1 - missing, dl, missing,
				    names, hint);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "function '%s' not found in %s or its %zu libraries%s; %s",
			    name, libs->v[0].path, libs->nloaded - 1, dl, hint);
}

/* A function its library's symbols lack but whose separate debug file's
 * .symtab has it (a stripped library's static function: glibc's
 * __libc_thread_freeres, which the memory specs name in `outside`): its
 * address and size there, the library's own. Indexing the library's DWARF
 * instead cost every run of those specs ~0.2 s. 0: found (or an error in
 * e), 1: not there. */
static int find_in_debug_symtab(const struct vg_libs *libs, const char *name,
				struct vg_func_where *out, struct vg_err *e)
{
	for (size_t i = 0; i < libs->n; i++) {
		struct vg_elf_file f, df;
		struct vg_err ignored;
		bool found = false;
		char *dpath;
		GElf_Sym sym;
		int r;

		if (!libs->v[i].path ||
		    vg_elf_file_open(libs->v[i].path, &f, &ignored))
			continue;
		dpath = dw_find_debug_file(f.elf, libs->v[i].path);
		if (dpath && strcmp(dpath, libs->v[i].path) &&
		    !vg_elf_file_open(dpath, &df, &ignored)) {
			found = vg_elf_lookup(df.elf, VG_TAB_SYMTAB, name,
					      VG_SYM_FUNC, false, &sym) != 0;
			vg_elf_file_close(&df);
		}
		free(dpath);
		if (found) {
			r = found_in(libs, i, &f, &sym, VG_TAB_SYMTAB, name,
				     out, e);
			vg_elf_file_close(&f);
			return r;
		}
		vg_elf_file_close(&f);
	}
	return 1;
}

int vg_libs_find_func(const struct vg_libs *libs, const char *name,
		      struct vg_func_where *out, struct vg_err *e)
{
	struct vg_elf_file f;
	struct vg_dwarf *dw;
	enum vg_nofunc why;
	GElf_Sym sym;
	bool have_reason = false;
	int tab, r;

	memset(out, 0, sizeof(*out));
	if (!libs->n)
		return vg_errf(e, "no binary to look for '%s' in", name);
	for (size_t pass = 0; pass < sizeof(passes) / sizeof(*passes);
	     pass++) {
		size_t lo = passes[pass].dl ? libs->nloaded : pass ? 1 : 0;
		size_t hi = passes[pass].dl ? libs->n : pass ? libs->nloaded : 1;

		for (size_t i = lo; i < hi; i++) {
			if (!libs->v[i].path)
				continue;
			if (vg_elf_file_open(libs->v[i].path, &f, e))
				continue;
			tab = vg_elf_lookup(f.elf, passes[pass].tabs, name,
					    VG_SYM_FUNC, passes[pass].exported,
					    &sym);
			if (tab) {
				r = found_in(libs, i, &f, &sym, tab, name, out,
					     e);
				vg_elf_file_close(&f);
				return r;
			}
			vg_elf_file_close(&f);
		}
	}
	if ((r = find_in_debug_symtab(libs, name, out, e)) <= 0)
		return r;
	memset(out, 0, sizeof(*out));
	/* DWARF, the binary's then each library's, the --lib ones last (a
	 * separate debug file, such as libc6-dbg's, has what the stripped
	 * library lost): a function without a symbol, or the reason it has
	 * no address. The first such reason beats "not found". Only reached
	 * when no symbol matched, so the cost of indexing the DWARF is paid
	 * on this path alone. */
	for (size_t i = 0; i < libs->n; i++) {
		struct vg_err de;

		if (!libs->v[i].path ||
		    !(dw = vg_dwarf_open(libs->v[i].path, &de)))
			continue;
		r = vg_dwarf_func_why(dw, name, &out->fn, &why, &de);
		vg_dwarf_close(dw);
		if (!r) {
			out->obj = i;
			snprintf(out->path, sizeof(out->path), "%s",
				 libs->v[i].path);
			return 0;
		}
		if (why != VG_NOFUNC_ABSENT && why != VG_NOFUNC_DECLARED &&
		    !have_reason) {
			*e = de;
			have_reason = true;
		}
	}
	if (have_reason)
		return -1;
	return not_found(libs, name, e);
}

#include "elf.h"
#include "sym_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int vg_elf_file_open(const char *path, struct vg_elf_file *f,
		     struct vg_err *e)
{
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return vg_errf(e, "libelf: %s", elf_errmsg(-1));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return vg_errf_code(e, VG_EXIT_USAGE, "cannot open %s: %s",
				    path, strerror(errno));
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF ||
	    !gelf_getehdr(f->elf, &f->ehdr)) {
		vg_elf_file_close(f);
		return vg_errf_code(e, VG_EXIT_USAGE, "%s is not an ELF file",
				    path);
	}
	return 0;
}

void vg_elf_file_close(struct vg_elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Convert a virtual address to a file offset through the PT_LOAD segment
 * that maps it: uprobes are placed by (inode, file offset), which is the
 * same however the loader relocates a PIE. */
int vg_elf_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

bool vg_elf_has_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name) && sh.sh_type != SHT_NOBITS &&
		    sh.sh_size > 0)
			return true;
	}
	return false;
}

static bool kind_matches(const GElf_Sym *sym, enum vg_symkind kind)
{
	int t = GELF_ST_TYPE(sym->st_info);

	if (kind == VG_SYM_FUNC)
		return t == STT_FUNC || t == STT_GNU_IFUNC;
	return t == STT_OBJECT || t == STT_TLS || t == STT_COMMON;
}

/* "malloc" matches "malloc" and, in .symtab, "malloc@@GLIBC_2.2.5" */
static bool name_matches(const char *sname, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(sname, name, len) &&
	       (!sname[len] || sname[len] == '@');
}

static Elf_Data *versym_data(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* Search one symbol table. In .dynsym, a symbol whose version is hidden
 * (bit 15 of its .gnu.version entry: an old version kept for old
 * binaries) only counts when no default version exists. */
static bool lookup_in(Elf *elf, Elf_Scn *scn, const char *name,
		      enum vg_symkind kind, bool globals_only, GElf_Sym *out)
{
	GElf_Shdr sh;
	Elf_Data *data, *vs = NULL;
	bool have_hidden = false;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    !(data = elf_getdata(scn, NULL)))
		return false;
	if (sh.sh_type == SHT_DYNSYM)
		vs = versym_data(elf);
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		GElf_Versym ver;
		const char *sname;

		if (!gelf_getsym(data, i, &sym) || !kind_matches(&sym, kind))
			continue;
		if (sym.st_shndx == SHN_UNDEF ||
		    (sym.st_value == 0 && GELF_ST_TYPE(sym.st_info) != STT_TLS))
			continue;
		if (globals_only && GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		sname = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!sname || !name_matches(sname, name))
			continue;
		if (vs && gelf_getversym(vs, i, &ver) && (ver & 0x8000)) {
			if (!have_hidden)
				*out = sym;
			have_hidden = true;
			continue;
		}
		*out = sym;
		return true;
	}
	return have_hidden;
}

int vg_elf_lookup(Elf *elf, unsigned tables, const char *name,
		  enum vg_symkind kind, bool globals_only, GElf_Sym *out)
{
	/* .symtab first: it also has static functions; .dynsym is what is
	 * left of a stripped binary. */
	static const struct {
		unsigned tab;
		Elf32_Word type;
	} order[] = { { VG_TAB_SYMTAB, SHT_SYMTAB },
		      { VG_TAB_DYNSYM, SHT_DYNSYM } };

	for (size_t p = 0; p < 2; p++) {
		Elf_Scn *scn = NULL;

		if (!(tables & order[p].tab))
			continue;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == order[p].type &&
			    lookup_in(elf, scn, name, kind, globals_only, out))
				return order[p].tab;
		}
	}
	return 0;
}

bool vg_elf_each_func(Elf *elf,
		      bool (*fn)(const char *, const GElf_Sym *, void *),
		      void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *sname;

			if (!gelf_getsym(data, i, &sym) ||
			    !kind_matches(&sym, VG_SYM_FUNC) ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			sname = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (sname && fn(sname, &sym, arg))
				return true;
		}
	}
	return false;
}

struct probe_arg {
	uint64_t addr;
	const char *name;
	char *buf;
	size_t len;
};

static bool at_addr(const char *sname, const GElf_Sym *sym, void *arg)
{
	struct probe_arg *a = arg;

	if (sym->st_value != a->addr)
		return false;
	snprintf(a->buf, a->len, "%s", sname);
	return true;
}

bool vg_elf_func_at(Elf *elf, uint64_t addr, char *buf, size_t len)
{
	struct probe_arg a = { .addr = addr, .buf = buf, .len = len };

	buf[0] = 0;
	return vg_elf_each_func(elf, at_addr, &a);
}

static bool is_clone(const char *sname, const GElf_Sym *sym, void *arg)
{
	struct probe_arg *a = arg;
	size_t n = strlen(a->name);

	(void)sym;
	/* f.cold is the cold half of f, not a replacement for it */
	if (strncmp(sname, a->name, n) || sname[n] != '.' ||
	    !strcmp(sname + n, ".cold"))
		return false;
	snprintf(a->buf, a->len, "%s", sname);
	return true;
}

bool vg_elf_find_clone(Elf *elf, const char *name, char *buf, size_t len)
{
	struct probe_arg a = { .name = name, .buf = buf, .len = len };

	buf[0] = 0;
	return vg_elf_each_func(elf, is_clone, &a);
}

int vg_elf_find_func(const char *binary, const char *name,
		     struct vg_func *out, struct vg_err *e)
{
	struct vg_elf_file f;
	GElf_Sym sym;
	int tab, ret = -1;

	if (vg_elf_file_open(binary, &f, e))
		return -1;
	memset(out, 0, sizeof(*out));
	tab = vg_elf_lookup(f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			    VG_SYM_FUNC, false, &sym);
	if (!tab) {
		ret = vg_dwarf_func_fallback(binary, &f, name, out, e);
		goto out;
	}
	out->addr = sym.st_value;
	out->size = sym.st_size;
	out->source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB : VG_SRC_DYNSYM;
	out->ifunc = GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC;
	if (vg_elf_vaddr_to_offset(f.elf, out->addr, &out->offset)) {
		vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
			name, binary, (unsigned long long)out->addr);
		goto out;
	}
	ret = 0;
out:
	vg_elf_file_close(&f);
	return ret;
}

int vg_elf_dyn_object(const char *binary, const char *name, uint64_t *addr,
		      uint64_t *size, struct vg_err *e)
{
	struct vg_elf_file f;
	GElf_Sym sym;
	bool found;

	if (vg_elf_file_open(binary, &f, e))
		return -1;
	found = vg_elf_lookup(f.elf, VG_TAB_DYNSYM, name, VG_SYM_OBJECT, true,
			      &sym);
	vg_elf_file_close(&f);
	if (!found)
		return vg_errf(e, "%s exports no object '%s'", binary, name);
	*addr = sym.st_value;
	*size = sym.st_size;
	return 0;
}

int vg_resolve_program(const char *prog, char *out, struct vg_err *e)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(prog, '/')) {
		if (!realpath(prog, out) || access(out, X_OK))
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "cannot run %s: %s", prog,
					    strerror(errno));
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0 && realpath(buf, out))
			return 0;
		path += n + (path[n] == ':');
	}
	return vg_errf_code(e, VG_EXIT_USAGE, "%s: not found in PATH", prog);
}

/* Sites carried from one copy of a file to another (elfcopy.h). */
#include "elfcopy.h"
#include "sym_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int build_id_of(Elf *elf, uint8_t *id, size_t cap)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t at = 0, name_at, desc_at;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((at = gelf_getnote(d, at, &nh, &name_at, &desc_at)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_at, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= cap) {
				memcpy(id, (char *)d->d_buf + desc_at,
				       nh.n_descsz);
				return (int)nh.n_descsz;
			}
	}
	return 0;
}

int vg_elf_build_id(const char *path, uint8_t *id, size_t cap)
{
	struct vg_elf_file f;
	struct vg_err e = { 0 };
	int n;

	if (vg_elf_file_open(path, &f, &e))
		return -1;
	n = build_id_of(f.elf, id, cap);
	vg_elf_file_close(&f);
	return n;
}

struct holding {
	Elf *elf;
	uint64_t off;
	char *name;
	size_t len;
	uint64_t *start, *size;
	int best;	/* 1 inside, 2 inside and global, 3 exact, 4 both */
};

static bool better_holder(const char *sname, const GElf_Sym *sym, void *arg)
{
	struct holding *h = arg;
	uint64_t so;
	int score;

	if (!sym->st_value ||
	    vg_elf_vaddr_to_offset(h->elf, sym->st_value, &so) ||
	    h->off < so || h->off >= so + (sym->st_size ? sym->st_size : 1))
		return false;
	score = (h->off == so ? 3 : 1) +
		(GELF_ST_BIND(sym->st_info) != STB_LOCAL);
	if (score <= h->best || !*sname)
		return false;
	h->best = score;
	snprintf(h->name, h->len, "%.*s", (int)strcspn(sname, "@"), sname);
	*h->start = so;
	*h->size = sym->st_size;
	return false;	/* a better one may follow */
}

/* The function symbol of elf holding file offset off: its name (no
 * version suffix), its start's offset and its size. An exact start wins,
 * then a global symbol (what the other copy's .dynsym has too). */
static bool func_holding(Elf *elf, uint64_t off, char *name, size_t len,
			 uint64_t *start, uint64_t *size)
{
	struct holding h = { .elf = elf, .off = off, .name = name,
			     .len = len, .start = start, .size = size };

	vg_elf_each_func(elf, better_holder, &h);
	return h.best > 0;
}

int vg_elf_carry_offsets(const char *from, const char *to,
			 const uint64_t *offs, uint64_t *out, int n,
			 const char **how, struct vg_err *e)
{
	struct vg_elf_file a, b;
	uint8_t ida[64], idb[64];
	int na, nb, rc = 0;

	if (vg_elf_file_open(from, &a, e))
		return -1;
	if (vg_elf_file_open(to, &b, e)) {
		vg_elf_file_close(&a);
		return -1;
	}
	na = build_id_of(a.elf, ida, sizeof(ida));
	nb = build_id_of(b.elf, idb, sizeof(idb));
	if (na > 0 && na == nb && !memcmp(ida, idb, (size_t)na)) {
		memcpy(out, offs, (size_t)n * sizeof(*out));
		*how = "same build";
		goto done;
	}
	*how = "by symbol";
	for (int i = 0; i < n && !rc; i++) {
		char name[256];
		uint64_t start, size, to_start;
		GElf_Sym sym;

		if (!func_holding(a.elf, offs[i], name, sizeof(name), &start,
				  &size)) {
			rc = vg_errf(e, "offset 0x%llx of %s is in no function: it cannot be found in %s, another build of the file",
				     (unsigned long long)offs[i], from, to);
			break;
		}
		if (!vg_elf_lookup(b.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
				   VG_SYM_FUNC, false, &sym) ||
		    vg_elf_vaddr_to_offset(b.elf, sym.st_value, &to_start)) {
			rc = vg_errf(e, "function '%s' of %s is not in %s, another build of the file",
				     name, from, to);
			break;
		}
		if (offs[i] != start && sym.st_size != size) {
			rc = vg_errf(e, "a site inside function '%s' (+0x%llx) of %s cannot be placed in %s, another build whose '%s' differs",
				     name, (unsigned long long)(offs[i] - start),
				     from, to, name);
			break;
		}
		out[i] = to_start + (offs[i] - start);
	}
done:
	vg_elf_file_close(&a);
	vg_elf_file_close(&b);
	return rc;
}

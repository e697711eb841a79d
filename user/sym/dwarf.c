/* DWARF reading for user/sym/dwarf.h, over libdwarf (Debian 12: 20210528).
 *
 * On open, one pass over the top-level entries of every compilation unit
 * builds a sorted index of functions, variables and named types (name, DIE
 * offset, address, flags). Everything else (types, members, parameters) is
 * read on demand from DIE offsets with dwarf_offdie_b, so opening a big
 * binary costs one walk and little memory.
 *
 * libdwarf conventions followed here: every call gets a Dwarf_Error* (with
 * none, libdwarf aborts the process on an error) and errors are freed at
 * once; every DIE and attribute obtained is freed as soon as it is used;
 * strings from dwarf_diename point into the section data and live until
 * dwarf_finish. */
#include "dwarf.h"
#include "sym_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>
#include <zlib.h>

enum { ENT_FUNC, ENT_VAR, ENT_TYPE };

#define EF_PC 0x01	/* FUNC: DW_AT_low_pc; VAR: DW_OP_addr location */
#define EF_INLINE 0x02	/* abstract instance: DW_AT_inline inlined */
#define EF_DECL 0x04	/* DW_AT_declaration */
#define EF_ORIGIN 0x08	/* name came through abstract_origin/specification */
#define EF_RANGES 0x10	/* FUNC: DW_AT_ranges and no low_pc */
#define EF_TLS 0x20	/* VAR: thread-local */

struct dw_ent {
	char *name;
	uint64_t off;		/* DIE offset in .debug_info */
	uint64_t pc;		/* see EF_PC */
	uint16_t tag;
	uint8_t kind, flags;
};

struct vg_dwarf {
	char *path;		/* the binary */
	char *debug_path;	/* where the DWARF is; NULL: none */
	char *problem;		/* why DWARF that exists could not be read */
	struct vg_elf_file f;
	Dwarf_Debug dbg;
	struct dw_ent *ents;
	size_t nents, cap;
};

#define MAX_DEPTH 32	/* typedef chains, nested structs */

/* --- libdwarf helpers ------------------------------------------------- */

static int chk(struct vg_dwarf *dw, int res, Dwarf_Error *err)
{
	if (res == DW_DLV_ERROR && *err) {
		dwarf_dealloc_error(dw->dbg, *err);
		*err = NULL;
	}
	return res;
}

static bool d_attr(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		   Dwarf_Attribute *a)
{
	Dwarf_Error err = NULL;

	return chk(dw, dwarf_attr(die, at, a, &err), &err) == DW_DLV_OK;
}

static bool d_has(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Error err = NULL;
	Dwarf_Bool b = 0;

	return chk(dw, dwarf_hasattr(die, at, &b, &err), &err) == DW_DLV_OK &&
	       b;
}

static bool d_udata(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		    uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	bool ok = false;

	if (!d_attr(dw, die, at, &a))
		return false;
	if (chk(dw, dwarf_formudata(a, &u, &err), &err) == DW_DLV_OK) {
		*v = u;
		ok = true;
	} else if (chk(dw, dwarf_formsdata(a, &s, &err), &err) == DW_DLV_OK) {
		*v = (uint64_t)s;
		ok = true;
	}
	dwarf_dealloc_attribute(a);
	return ok;
}

/* a signed constant: true if it is negative */
static bool d_negative(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Signed s = 0;
	bool neg = false;

	if (!d_attr(dw, die, at, &a))
		return false;
	/* data1..data8 carry no sign; only sdata and implicit_const do */
	if (chk(dw, dwarf_whatform(a, &form, &err), &err) == DW_DLV_OK &&
	    (form == DW_FORM_sdata || form == DW_FORM_implicit_const) &&
	    chk(dw, dwarf_formsdata(a, &s, &err), &err) == DW_DLV_OK)
		neg = s < 0;
	dwarf_dealloc_attribute(a);
	return neg;
}

static bool d_flag(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Bool b = 0;

	if (!d_attr(dw, die, at, &a))
		return false;
	if (chk(dw, dwarf_formflag(a, &b, &err), &err) != DW_DLV_OK)
		b = 0;
	dwarf_dealloc_attribute(a);
	return b;
}

static bool d_ref(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		  uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Off o;
	bool ok;

	if (!d_attr(dw, die, at, &a))
		return false;
	ok = chk(dw, dwarf_global_formref(a, &o, &err), &err) == DW_DLV_OK;
	dwarf_dealloc_attribute(a);
	if (ok)
		*off = o;
	return ok;
}

static const char *d_name(struct vg_dwarf *dw, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	char *n = NULL;

	if (chk(dw, dwarf_diename(die, &n, &err), &err) != DW_DLV_OK)
		return NULL;
	return n;
}

static int d_tag(struct vg_dwarf *dw, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Half t = 0;

	chk(dw, dwarf_tag(die, &t, &err), &err);
	return t;
}

static uint64_t d_off(struct vg_dwarf *dw, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Off o = 0;

	chk(dw, dwarf_dieoffset(die, &o, &err), &err);
	return o;
}

static bool d_die(struct vg_dwarf *dw, uint64_t off, Dwarf_Die *die)
{
	Dwarf_Error err = NULL;

	return chk(dw, dwarf_offdie_b(dw->dbg, off, 1, die, &err), &err) ==
	       DW_DLV_OK;
}

/* Child iteration: for (ok = d_child(..., &c); ok; ok = d_next(..., &c)).
 * d_next frees the current DIE; a loop left early must free c itself. */
static bool d_child(struct vg_dwarf *dw, Dwarf_Die parent, Dwarf_Die *c)
{
	Dwarf_Error err = NULL;

	return chk(dw, dwarf_child(parent, c, &err), &err) == DW_DLV_OK;
}

static bool d_next(struct vg_dwarf *dw, Dwarf_Die *c)
{
	Dwarf_Error err = NULL;
	Dwarf_Die sib = NULL;
	int r = chk(dw, dwarf_siblingof_b(dw->dbg, *c, 1, &sib, &err), &err);

	dwarf_dealloc_die(*c);
	*c = sib;
	return r == DW_DLV_OK;
}

/* The DIE holding the source-level description of DIE: a concrete
 * instance points at its abstract instance (DW_AT_abstract_origin), an
 * out-of-line definition at its declaration (DW_AT_specification). */
static bool d_origin(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Die *out)
{
	uint64_t o;

	if (!d_ref(dw, die, DW_AT_abstract_origin, &o) &&
	    !d_ref(dw, die, DW_AT_specification, &o))
		return false;
	return d_die(dw, o, out);
}

/* An attribute found on DIE or on its origins. */
static bool d_ref_follow(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
			 uint64_t *off)
{
	Dwarf_Die cur = die, next;
	bool ok = false;

	for (int i = 0; i < 4; i++) {
		if (d_ref(dw, cur, at, off)) {
			ok = true;
			break;
		}
		if (!d_origin(dw, cur, &next))
			break;
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return ok;
}

static bool d_udata_follow(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
			   uint64_t *v)
{
	Dwarf_Die cur = die, next;
	bool ok = false;

	for (int i = 0; i < 4; i++) {
		if (d_udata(dw, cur, at, v)) {
			ok = true;
			break;
		}
		if (!d_origin(dw, cur, &next))
			break;
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return ok;
}

/* The name of DIE, or of its origin; *via says it came from the origin. */
static const char *d_name_follow(struct vg_dwarf *dw, Dwarf_Die die,
				 bool *via)
{
	Dwarf_Die cur = die, next;
	const char *n = d_name(dw, die);

	*via = false;
	for (int i = 0; !n && i < 4; i++) {
		if (!d_origin(dw, cur, &next))
			break;
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
		n = d_name(dw, cur);
		*via = n != NULL;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return n;
}

/* A DWARF expression or block attribute; *blk must be freed with
 * dwarf_dealloc(DW_DLA_BLOCK) when set. */
static bool d_expr(struct vg_dwarf *dw, Dwarf_Attribute a,
		   const uint8_t **p, size_t *n, Dwarf_Block **blk)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned len;
	Dwarf_Ptr ptr;

	*blk = NULL;
	if (chk(dw, dwarf_formexprloc(a, &len, &ptr, &err), &err) ==
	    DW_DLV_OK) {
		*p = ptr;
		*n = len;
		return true;
	}
	if (chk(dw, dwarf_formblock(a, blk, &err), &err) == DW_DLV_OK) {
		*p = (*blk)->bl_data;
		*n = (*blk)->bl_len;
		return true;
	}
	return false;
}

static uint64_t uleb(const uint8_t *p, size_t n, size_t *used)
{
	uint64_t v = 0;
	unsigned shift = 0;
	size_t i = 0;

	while (i < n && shift < 64) {
		v |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i++] & 0x80))
			break;
	}
	*used = i;
	return v;
}

/* A global's address from DW_AT_location: DW_OP_addr A. Thread-local
 * variables end in DW_OP_form_tls_address (or the GNU one). */
static bool var_addr(struct vg_dwarf *dw, Dwarf_Die die, uint64_t *addr,
		     bool *tls)
{
	Dwarf_Attribute a;
	Dwarf_Block *blk;
	const uint8_t *p;
	size_t n;
	bool ok = false;

	*tls = false;
	if (!d_attr(dw, die, DW_AT_location, &a))
		return false;
	if (d_expr(dw, a, &p, &n, &blk)) {
		if (n && (p[n - 1] == DW_OP_form_tls_address ||
			  p[n - 1] == DW_OP_GNU_push_tls_address))
			*tls = true;
		else if (n == 9 && p[0] == DW_OP_addr) {
			memcpy(addr, p + 1, 8);	/* x86-64: little-endian */
			ok = true;
		}
		if (blk)
			dwarf_dealloc(dw->dbg, blk, DW_DLA_BLOCK);
	}
	dwarf_dealloc_attribute(a);
	return ok;
}

/* --- the index ---------------------------------------------------------- */

static int add_ent(struct vg_dwarf *dw, const char *name, uint64_t off,
		   uint64_t pc, int tag, int kind, int flags)
{
	struct dw_ent *en;

	if (dw->nents == dw->cap) {
		size_t cap = dw->cap ? dw->cap * 2 : 256;
		void *p = realloc(dw->ents, cap * sizeof(*dw->ents));

		if (!p)
			return -1;
		dw->ents = p;
		dw->cap = cap;
	}
	en = &dw->ents[dw->nents];
	if (!(en->name = strdup(name)))
		return -1;
	en->off = off;
	en->pc = pc;
	en->tag = tag;
	en->kind = kind;
	en->flags = flags;
	dw->nents++;
	return 0;
}

static int index_die(struct vg_dwarf *dw, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	int tag = d_tag(dw, die), flags = 0;
	const char *name;
	uint64_t v, pc = 0;
	Dwarf_Addr lowpc;
	bool via, tls;

	switch (tag) {
	case DW_TAG_subprogram:
		if (!(name = d_name_follow(dw, die, &via)))
			return 0;
		if (via)
			flags |= EF_ORIGIN;
		if (chk(dw, dwarf_lowpc(die, &lowpc, &err), &err) ==
		    DW_DLV_OK) {
			flags |= EF_PC;
			pc = lowpc;
		}
		else if (d_has(dw, die, DW_AT_ranges))
			flags |= EF_RANGES;
		if (d_udata(dw, die, DW_AT_inline, &v) &&
		    (v == DW_INL_inlined || v == DW_INL_declared_inlined))
			flags |= EF_INLINE;
		if (d_flag(dw, die, DW_AT_declaration))
			flags |= EF_DECL;
		return add_ent(dw, name, d_off(dw, die), pc, tag, ENT_FUNC,
			       flags);
	case DW_TAG_variable:
		if (!(name = d_name_follow(dw, die, &via)))
			return 0;
		if (via)
			flags |= EF_ORIGIN;
		if (var_addr(dw, die, &pc, &tls))
			flags |= EF_PC;
		if (tls)
			flags |= EF_TLS;
		if (d_flag(dw, die, DW_AT_declaration))
			flags |= EF_DECL;
		return add_ent(dw, name, d_off(dw, die), pc, tag, ENT_VAR,
			       flags);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		if (!(name = d_name(dw, die)))
			return 0;
		if (d_flag(dw, die, DW_AT_declaration))
			flags |= EF_DECL;
		return add_ent(dw, name, d_off(dw, die), 0, tag, ENT_TYPE,
			       flags);
	}
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct dw_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int build_index(struct vg_dwarf *dw, struct vg_err *e)
{
	for (;;) {
		Dwarf_Error err = NULL;
		Dwarf_Unsigned hlen, abbrev_off, typeoff, next;
		Dwarf_Half version, asize, lsize, xsize, cutype;
		Dwarf_Sig8 sig;
		Dwarf_Die cu = NULL, c;
		int r;

		r = dwarf_next_cu_header_d(dw->dbg, 1, &hlen, &version,
					   &abbrev_off, &asize, &lsize, &xsize,
					   &sig, &typeoff, &next, &cutype,
					   &err);
		if (r == DW_DLV_NO_ENTRY)
			break;
		if (r == DW_DLV_ERROR) {
			vg_errf(e, "cannot read the DWARF of %s (%s): %s",
				dw->path, dw->debug_path, dwarf_errmsg(err));
			chk(dw, r, &err);
			return -1;
		}
		if (chk(dw, dwarf_siblingof_b(dw->dbg, NULL, 1, &cu, &err),
			&err) != DW_DLV_OK)
			continue;
		for (bool ok = d_child(dw, cu, &c); ok; ok = d_next(dw, &c)) {
			if (index_die(dw, c)) {
				dwarf_dealloc_die(c);
				dwarf_dealloc_die(cu);
				return vg_errf(e, "out of memory reading %s",
					       dw->debug_path);
			}
		}
		dwarf_dealloc_die(cu);
	}
	if (dw->nents)
		qsort(dw->ents, dw->nents, sizeof(*dw->ents), ent_cmp);
	return 0;
}

/* The entries named NAME of a kind: [*lo, *hi). */
static void ent_range(struct vg_dwarf *dw, const char *name, int kind,
		      size_t *lo, size_t *hi)
{
	size_t a = 0, b = dw->nents;

	while (a < b) {
		size_t m = (a + b) / 2;
		int c = strcmp(dw->ents[m].name, name);

		if (c < 0 || (!c && dw->ents[m].kind < kind))
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < dw->nents && !strcmp(dw->ents[a].name, name) &&
	       dw->ents[a].kind == kind)
		a++;
	*hi = a;
}

/* --- separate debug files ----------------------------------------------- */

static bool has_debug_info(const char *path)
{
	struct vg_elf_file f;
	struct vg_err e;
	bool ok;

	if (vg_elf_file_open(path, &f, &e))
		return false;
	ok = vg_elf_has_section(f.elf, ".debug_info");
	vg_elf_file_close(&f);
	return ok;
}

static Elf_Data *section_data(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name) && sh.sh_type != SHT_NOBITS)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static bool crc_matches(const char *path, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	close(fd);
	return n == 0 && (uint32_t)crc == want;
}

/* Where distributions put debug files: VIGIL_DEBUG_DIR, or /usr/lib/debug
 * (gdb's debug-file-directory). */
static const char *debug_root(void)
{
	const char *d = getenv("VIGIL_DEBUG_DIR");

	return d && *d ? d : "/usr/lib/debug";
}

static char *find_debug_file(struct vg_dwarf *dw)
{
	char path[PATH_MAX], real[PATH_MAX], dir[PATH_MAX];
	Elf_Data *d;

	/* 1. by build id: ROOT/.build-id/ab/cdef....debug */
	if ((d = section_data(dw->f.elf, ".note.gnu.build-id"))) {
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *id = (unsigned char *)d->d_buf + doff;
			int len;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			len = snprintf(path, sizeof(path), "%s/.build-id/%02x/",
				       debug_root(), id[0]);
			for (size_t i = 1; i < nh.n_descsz && len < PATH_MAX - 8;
			     i++)
				len += snprintf(path + len, sizeof(path) - len,
						"%02x", id[i]);
			snprintf(path + len, sizeof(path) - len, ".debug");
			if (has_debug_info(path))
				return strdup(path);
		}
	}
	/* 2. by .gnu_debuglink: NAME next to the binary, in .debug/ there,
	 * or under ROOT/<the binary's directory>; the CRC must match */
	if ((d = section_data(dw->f.elf, ".gnu_debuglink")) && d->d_size > 4) {
		const char *name = d->d_buf;
		size_t nl = strnlen(name, d->d_size);
		uint32_t crc;
		char *slash;

		if (nl + 4 > d->d_size || !realpath(dw->path, real))
			return NULL;
		memcpy(&crc, (char *)d->d_buf + ((nl + 4) & ~(size_t)3), 4);
		snprintf(dir, sizeof(dir), "%s", real);
		if ((slash = strrchr(dir, '/')))
			*slash = 0;
		for (int i = 0; i < 3; i++) {
			int n;

			if (i == 0)
				n = snprintf(path, sizeof(path), "%s/%s", dir,
					     name);
			else if (i == 1)
				n = snprintf(path, sizeof(path),
					     "%s/.debug/%s", dir, name);
			else
				n = snprintf(path, sizeof(path), "%s%s/%s",
					     debug_root(), dir, name);
			if (n < 0 || (size_t)n >= sizeof(path))
				continue;
			if (strcmp(path, real) && crc_matches(path, crc) &&
			    has_debug_info(path))
				return strdup(path);
		}
	}
	return NULL;
}

/* --- open / close ------------------------------------------------------- */

/* DWARF that is there but unreadable (libdwarf 20210528 cannot inflate
 * some compressed debug files) must not cost the symbol tables: keep the
 * handle without DWARF and say why when DWARF is asked for. */
static struct vg_dwarf *unreadable(struct vg_dwarf *dw, struct vg_err *why)
{
	Dwarf_Error err = NULL;

	for (size_t i = 0; i < dw->nents; i++)
		free(dw->ents[i].name);
	free(dw->ents);
	dw->ents = NULL;
	dw->nents = dw->cap = 0;
	if (dw->dbg)
		dwarf_finish(dw->dbg, &err);
	dw->dbg = NULL;
	free(dw->debug_path);
	dw->debug_path = NULL;
	dw->problem = strdup(why->msg);
	return dw;
}

struct vg_dwarf *vg_dwarf_open(const char *binary, struct vg_err *e)
{
	struct vg_dwarf *dw = calloc(1, sizeof(*dw));
	Dwarf_Error err = NULL;
	int r;

	if (!dw || !(dw->path = strdup(binary))) {
		free(dw);
		vg_errf(e, "out of memory");
		return NULL;
	}
	dw->f.fd = -1;
	if (vg_elf_file_open(binary, &dw->f, e))
		goto fail;
	if (vg_elf_has_section(dw->f.elf, ".debug_info"))
		dw->debug_path = strdup(binary);
	else
		dw->debug_path = find_debug_file(dw);
	if (!dw->debug_path)
		return dw;
	r = dwarf_init_path(dw->debug_path, NULL, 0, DW_DLC_READ,
			    DW_GROUPNUMBER_ANY, NULL, NULL, &dw->dbg, NULL, 0,
			    NULL, &err);
	if (r == DW_DLV_ERROR) {
		struct vg_err de;

		vg_errf(&de, "cannot read the DWARF of %s (%s): %s", binary,
			dw->debug_path, dwarf_errmsg(err));
		dwarf_dealloc_error(dw->dbg, err);
		dw->dbg = NULL;
		return unreadable(dw, &de);
	}
	if (r == DW_DLV_NO_ENTRY) {
		free(dw->debug_path);
		dw->debug_path = NULL;
		dw->dbg = NULL;
		return dw;
	}
	if (build_index(dw, e))
		return unreadable(dw, e);
	return dw;
fail:
	vg_dwarf_close(dw);
	return NULL;
}

void vg_dwarf_close(struct vg_dwarf *dw)
{
	Dwarf_Error err = NULL;

	if (!dw)
		return;
	for (size_t i = 0; i < dw->nents; i++)
		free(dw->ents[i].name);
	free(dw->ents);
	if (dw->dbg)
		dwarf_finish(dw->dbg, &err);
	vg_elf_file_close(&dw->f);
	free(dw->debug_path);
	free(dw->problem);
	free(dw->path);
	free(dw);
}

bool vg_dwarf_has_debug(const struct vg_dwarf *dw)
{
	return dw->dbg != NULL;
}

const char *vg_dwarf_debug_path(const struct vg_dwarf *dw)
{
	return dw->debug_path;
}

bool vg_dwarf_is_pie(const struct vg_dwarf *dw)
{
	return dw->f.ehdr.e_type == ET_DYN;
}

static int need_debug(struct vg_dwarf *dw, const char *what,
		      struct vg_err *e)
{
	if (dw->dbg)
		return 0;
	if (dw->problem)
		return vg_errf(e, "%s (needed for %s)", dw->problem, what);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "%s has no DWARF debug information, needed for %s: build it with -g, or install its debug symbols (the -dbgsym or -dbg package)",
			    dw->path, what);
}

/* --- types -------------------------------------------------------------- */

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
	       tag == DW_TAG_atomic_type || tag == DW_TAG_immutable_type;
}

/* buf = a sep b, truncated to len */
static void join(char *buf, size_t len, const char *a, const char *sep,
		 const char *b)
{
	const char *parts[3] = { a, sep, b };
	size_t n = 0;

	for (int i = 0; i < 3; i++)
		for (const char *s = parts[i]; *s && n + 1 < len; s++)
			buf[n++] = *s;
	buf[n] = 0;
}

/* The C spelling of a type, typedef names kept. */
static void spell(struct vg_dwarf *dw, uint64_t off, char *buf, size_t len,
		  int depth)
{
	char inner[128] = "";
	Dwarf_Die die;
	const char *name;
	uint64_t t = 0, n;
	int tag;

	buf[0] = 0;
	if (!off) {
		snprintf(buf, len, "void");
		return;
	}
	if (depth > MAX_DEPTH || !d_die(dw, off, &die)) {
		snprintf(buf, len, "?");
		return;
	}
	tag = d_tag(dw, die);
	name = d_name(dw, die);
	if (tag != DW_TAG_typedef && tag != DW_TAG_base_type &&
	    tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_enumeration_type && tag != DW_TAG_class_type &&
	    tag != DW_TAG_unspecified_type) {
		d_ref(dw, die, DW_AT_type, &t);
		spell(dw, t, inner, sizeof(inner), depth + 1);
	}
	switch (tag) {
	case DW_TAG_typedef:
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
		snprintf(buf, len, "%s", name ? name : "?");
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		snprintf(buf, len, "%s %s",
			 tag == DW_TAG_union_type ? "union" :
			 tag == DW_TAG_enumeration_type ? "enum" :
			 tag == DW_TAG_class_type ? "class" : "struct",
			 name ? name : "<anonymous>");
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		join(buf, len, inner, "",
		     inner[strlen(inner) - 1] == '*' ? "*" : " *");
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: {
		const char *q = tag == DW_TAG_const_type ? "const" :
				tag == DW_TAG_volatile_type ? "volatile" :
				tag == DW_TAG_restrict_type ? "restrict" :
							      "_Atomic";
		/* a qualified pointer is written after the star */
		if (inner[strlen(inner) - 1] == '*')
			join(buf, len, inner, " ", q);
		else
			join(buf, len, q, " ", inner);
		break;
	}
	case DW_TAG_array_type: {
		Dwarf_Die c;
		char dim[32] = "[]";

		for (bool ok = d_child(dw, die, &c); ok; ok = d_next(dw, &c)) {
			if (d_tag(dw, c) != DW_TAG_subrange_type)
				continue;
			if (d_udata(dw, c, DW_AT_count, &n))
				snprintf(dim, sizeof(dim), "[%llu]",
					 (unsigned long long)n);
			else if (d_udata(dw, c, DW_AT_upper_bound, &n))
				snprintf(dim, sizeof(dim), "[%llu]",
					 (unsigned long long)n + 1);
			dwarf_dealloc_die(c);
			break;
		}
		join(buf, len, inner, "", dim);
		break;
	}
	case DW_TAG_subroutine_type:
		snprintf(buf, len, "function");
		break;
	default:
		snprintf(buf, len, "%s", name ? name : "?");
	}
	dwarf_dealloc_die(die);
}

static int describe_d(struct vg_dwarf *dw, vg_type_id id, struct vg_type *t,
		      int depth, struct vg_err *e);

/* A struct only declared here ("struct queue;" in a unit that only passes
 * pointers around): its definition from another unit, or 0. */
static uint64_t complete(struct vg_dwarf *dw, const char *name, int tag)
{
	size_t lo, hi;

	if (!name)
		return 0;
	ent_range(dw, name, ENT_TYPE, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (dw->ents[i].tag == tag && !(dw->ents[i].flags & EF_DECL))
			return dw->ents[i].off;
	return 0;
}

/* The byte offset of a member (0 for union members, which have none). */
static uint64_t member_offset(struct vg_dwarf *dw, Dwarf_Die m)
{
	Dwarf_Attribute a;
	Dwarf_Block *blk;
	const uint8_t *p;
	size_t n, used;
	uint64_t v = 0;

	if (d_udata(dw, m, DW_AT_data_member_location, &v))
		return v;
	/* DWARF 2: an expression, DW_OP_plus_uconst N */
	if (!d_attr(dw, m, DW_AT_data_member_location, &a))
		return 0;
	if (d_expr(dw, a, &p, &n, &blk)) {
		if (n > 1 && p[0] == DW_OP_plus_uconst)
			v = uleb(p + 1, n - 1, &used);
		if (blk)
			dwarf_dealloc(dw->dbg, blk, DW_DLA_BLOCK);
	}
	dwarf_dealloc_attribute(a);
	return v;
}

/* A member's position in bits, and its bit size if it is a bit-field. */
static void member_bits(struct vg_dwarf *dw, Dwarf_Die m, uint64_t tsize,
			uint64_t *bitpos, uint64_t *bitsize)
{
	uint64_t v, bo;

	*bitsize = 0;
	if (!d_udata(dw, m, DW_AT_bit_size, bitsize))
		*bitsize = 0;
	if (d_udata(dw, m, DW_AT_data_bit_offset, &v)) {
		*bitpos = v;
		return;
	}
	*bitpos = member_offset(dw, m) * 8;
	/* DWARF 2/3: DW_AT_bit_offset counts from the most significant bit
	 * of the storage unit of DW_AT_byte_size */
	if (*bitsize && d_udata(dw, m, DW_AT_bit_offset, &bo)) {
		uint64_t bs = tsize;

		d_udata(dw, m, DW_AT_byte_size, &bs);
		*bitpos += bs * 8 - bo - *bitsize;
	}
}

static uint32_t struct_align(struct vg_dwarf *dw, Dwarf_Die die, int depth,
			     struct vg_err *e)
{
	uint32_t al = 1;
	uint64_t v, t;
	Dwarf_Die c;

	if (d_udata(dw, die, DW_AT_alignment, &v))
		return (uint32_t)v;
	for (bool ok = d_child(dw, die, &c); ok; ok = d_next(dw, &c)) {
		struct vg_type mt;

		if (d_tag(dw, c) != DW_TAG_member ||
		    !d_ref(dw, c, DW_AT_type, &t))
			continue;
		if (d_udata(dw, c, DW_AT_alignment, &v)) {
			al = v > al ? (uint32_t)v : al;
			continue;
		}
		if (describe_d(dw, t, &mt, depth + 1, e) == 0 && mt.align > al)
			al = mt.align;
	}
	return al;
}

static int describe_d(struct vg_dwarf *dw, vg_type_id id, struct vg_type *t,
		      int depth, struct vg_err *e)
{
	Dwarf_Die die = NULL, c;
	uint64_t cur = id, next, v, count = 0;
	int tag = 0;

	memset(t, 0, sizeof(*t));
	if (depth > MAX_DEPTH)
		return vg_errf(e, "type at 0x%llx in %s is nested too deep",
			       (unsigned long long)id, dw->path);
	spell(dw, id, t->name, sizeof(t->name), 0);
	for (int i = 0; cur && i < MAX_DEPTH; i++) {
		if (!d_die(dw, cur, &die))
			return vg_errf(e, "bad DWARF type reference 0x%llx in %s",
				       (unsigned long long)cur, dw->path);
		tag = d_tag(dw, die);
		if (!is_qualifier(tag))
			break;
		next = 0;
		d_ref(dw, die, DW_AT_type, &next);
		dwarf_dealloc_die(die);
		die = NULL;
		cur = next;
	}
	if (!cur || !die) {
		if (die)
			dwarf_dealloc_die(die);
		t->kind = VG_TK_VOID;
		t->align = 1;
		return 0;
	}
	if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	     tag == DW_TAG_class_type || tag == DW_TAG_enumeration_type) &&
	    d_flag(dw, die, DW_AT_declaration)) {
		uint64_t def = complete(dw, d_name(dw, die), tag);

		if (def && d_die(dw, def, &c)) {
			dwarf_dealloc_die(die);
			die = c;
			cur = def;
		}
	}
	t->id = cur;
	if (d_udata(dw, die, DW_AT_byte_size, &v))
		t->size = v;
	switch (tag) {
	case DW_TAG_base_type:
		v = 0;
		d_udata(dw, die, DW_AT_encoding, &v);
		switch (v) {
		case DW_ATE_boolean:
			t->kind = VG_TK_BOOL;
			break;
		case DW_ATE_signed:
		case DW_ATE_signed_char:
			t->kind = VG_TK_SINT;
			break;
		case DW_ATE_unsigned:
		case DW_ATE_unsigned_char:
		case DW_ATE_UTF:
			t->kind = VG_TK_UINT;
			break;
		case DW_ATE_float:
			t->kind = VG_TK_FLOAT;
			break;
		default:
			t->kind = VG_TK_OTHER;	/* complex, decimal, ... */
		}
		t->align = t->size > 16 ? 16 : t->size ? (uint32_t)t->size : 1;
		if (v == DW_ATE_complex_float)
			t->align = (uint32_t)(t->size / 2);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = VG_TK_PTR;
		if (!t->size)
			t->size = 8;
		t->align = 8;
		d_ref(dw, die, DW_AT_type, &t->target);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		t->kind = tag == DW_TAG_union_type ? VG_TK_UNION :
						     VG_TK_STRUCT;
		t->align = struct_align(dw, die, depth, e);
		break;
	case DW_TAG_enumeration_type:
		t->kind = VG_TK_ENUM;
		t->align = t->size ? (uint32_t)t->size : 4;
		if (d_ref(dw, die, DW_AT_type, &t->target)) {
			struct vg_type u;

			if (!describe_d(dw, t->target, &u, depth + 1, e))
				t->enum_signed = u.kind == VG_TK_SINT;
		} else {
			for (bool ok = d_child(dw, die, &c); ok;
			     ok = d_next(dw, &c))
				if (d_negative(dw, c, DW_AT_const_value))
					t->enum_signed = true;
		}
		break;
	case DW_TAG_array_type: {
		struct vg_type el;
		uint64_t total = 1;
		bool first = true;

		t->kind = VG_TK_ARRAY;
		d_ref(dw, die, DW_AT_type, &t->target);
		for (bool ok = d_child(dw, die, &c); ok; ok = d_next(dw, &c)) {
			if (d_tag(dw, c) != DW_TAG_subrange_type)
				continue;
			if (d_udata(dw, c, DW_AT_count, &v))
				count = v;
			else if (d_udata(dw, c, DW_AT_upper_bound, &v))
				count = v + 1;
			else
				count = 0;
			if (first)
				t->count = count;
			first = false;
			total *= count;
		}
		if (describe_d(dw, t->target, &el, depth + 1, e)) {
			dwarf_dealloc_die(die);
			return -1;
		}
		t->align = el.align;
		if (!t->size)
			t->size = total * el.size;
		if (d_flag(dw, die, DW_AT_GNU_vector)) {
			t->kind = VG_TK_OTHER;
			t->align = (uint32_t)t->size;
		}
		break;
	}
	case DW_TAG_subroutine_type:
		t->kind = VG_TK_FUNC;
		t->align = 1;
		break;
	case DW_TAG_unspecified_type:
		t->kind = VG_TK_VOID;
		t->align = 1;
		break;
	default:
		t->kind = VG_TK_OTHER;
		t->align = 1;
	}
	dwarf_dealloc_die(die);
	return 0;
}

int vg_dwarf_type(struct vg_dwarf *dw, vg_type_id id, struct vg_type *out,
		  struct vg_err *e)
{
	if (need_debug(dw, "types", e))
		return -1;
	return describe_d(dw, id, out, 0, e);
}

int vg_dwarf_type_by_name(struct vg_dwarf *dw, const char *name,
			  struct vg_type *out, struct vg_err *e)
{
	static const struct {
		const char *kw;
		int tag;
	} kws[] = { { "struct ", DW_TAG_structure_type },
		    { "union ", DW_TAG_union_type },
		    { "enum ", DW_TAG_enumeration_type },
		    { "class ", DW_TAG_class_type } };
	const char *n = name;
	int tag = 0;
	size_t lo, hi, pick = SIZE_MAX;

	if (need_debug(dw, name, e))
		return -1;
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (!strncmp(name, kws[i].kw, strlen(kws[i].kw))) {
			tag = kws[i].tag;
			n = name + strlen(kws[i].kw);
		}
	ent_range(dw, n, ENT_TYPE, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];
		bool tagged = en->tag == DW_TAG_structure_type ||
			      en->tag == DW_TAG_union_type ||
			      en->tag == DW_TAG_enumeration_type ||
			      en->tag == DW_TAG_class_type;

		if (tag ? en->tag != tag : tagged)
			continue;
		if (pick == SIZE_MAX || (dw->ents[pick].flags & EF_DECL))
			pick = i;
	}
	if (pick == SIZE_MAX)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "no type '%s' in %s", name, dw->path);
	if (describe_d(dw, dw->ents[pick].off, out, 0, e))
		return -1;
	/* the name asked for, not the name after typedefs */
	snprintf(out->name, sizeof(out->name), "%s", name);
	return 0;
}

/* --- fields --------------------------------------------------------------- */

/* Find member NAME in the struct or union at sid, looking through
 * anonymous members. Returns 1 and fills f (offset relative to the
 * struct) when found, 0 when not, -1 on error. */
static int find_member(struct vg_dwarf *dw, uint64_t sid, const char *name,
		       struct vg_field *f, int depth, struct vg_err *e)
{
	Dwarf_Die die, c;
	int found = 0;

	if (depth > MAX_DEPTH || !d_die(dw, sid, &die))
		return 0;
	for (bool ok = d_child(dw, die, &c); ok; ok = d_next(dw, &c)) {
		const char *mname;
		uint64_t t = 0, bitpos, bitsize;
		struct vg_type mt;

		if (d_tag(dw, c) != DW_TAG_member)
			continue;
		mname = d_name(dw, c);
		d_ref(dw, c, DW_AT_type, &t);
		if (mname && strcmp(mname, name))
			continue;
		if (describe_d(dw, t, &mt, 0, e)) {
			found = -1;
		} else if (mname) {
			member_bits(dw, c, mt.size, &bitpos, &bitsize);
			f->type = mt;
			if (bitsize) {
				f->offset = bitpos / 8;
				f->bit_offset = (uint32_t)(bitpos % 8);
				f->bit_size = (uint32_t)bitsize;
				f->size = (f->bit_offset + bitsize + 7) / 8;
			} else {
				f->offset = bitpos / 8;
				f->size = mt.size;
				f->bit_offset = f->bit_size = 0;
			}
			found = 1;
		} else if (mt.kind == VG_TK_STRUCT || mt.kind == VG_TK_UNION) {
			/* C11 anonymous struct or union: its members are
			 * members of this one */
			found = find_member(dw, mt.id, name, f, depth + 1, e);
			if (found == 1)
				f->offset += member_offset(dw, c);
		}
		if (found) {
			dwarf_dealloc_die(c);
			break;
		}
	}
	dwarf_dealloc_die(die);
	return found;
}

/* the spelling of a type without its typedefs: "struct queue" */
static void plain_name(struct vg_dwarf *dw, const struct vg_type *t,
		       char *buf, size_t len)
{
	spell(dw, t->id, buf, len, 0);
}

int vg_dwarf_field(struct vg_dwarf *dw, vg_type_id base, const char *path,
		   struct vg_field *out, struct vg_err *e)
{
	struct vg_type t;
	const char *p = path;
	char sname[128], comp[128];

	memset(out, 0, sizeof(*out));
	if (need_debug(dw, "struct fields", e))
		return -1;
	if (strstr(path, "->"))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "field path '%s' has '->': each dereference is a separate memory read (%s)",
				    path, dw->path);
	if (describe_d(dw, base, &t, 0, e))
		return -1;
	if (t.kind == VG_TK_PTR && describe_d(dw, t.target, &t, 0, e))
		return -1;
	out->type = t;
	while (*p) {
		size_t n = strcspn(p, ".[");

		plain_name(dw, &t, sname, sizeof(sname));
		if (*p == '[') {
			char *end;
			unsigned long long idx = strtoull(p + 1, &end, 0);
			struct vg_type el;

			if (end == p + 1 || *end != ']')
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "bad index in field path '%s' (%s)",
						    path, dw->path);
			if (t.kind != VG_TK_ARRAY)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "cannot index %s in '%s': not an array%s (%s)",
						    sname, path,
						    t.kind == VG_TK_PTR ? " (indexing a pointer reads memory)" : "",
						    dw->path);
			if (describe_d(dw, t.target, &el, 0, e))
				return -1;
			if (t.count && idx >= t.count)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "index %llu out of bounds of %s in '%s' (%s)",
						    idx, sname, path, dw->path);
			out->offset += idx * el.size;
			out->size = el.size;
			out->bit_offset = out->bit_size = 0;
			out->type = t = el;
			p = end + 1;
			if (*p && *p != '.' && *p != '[')
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "bad field path '%s' (%s)",
						    path, dw->path);
			if (*p == '.' && !*++p)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "bad field path '%s' (%s)",
						    path, dw->path);
			continue;
		}
		if (!n || n >= sizeof(comp))
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "bad field path '%s' (%s)", path,
					    dw->path);
		memcpy(comp, p, n);
		comp[n] = 0;
		if (t.kind != VG_TK_STRUCT && t.kind != VG_TK_UNION)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "no field '%s' in %s: it is not a struct or union (%s)",
					    comp, t.name, dw->path);
		if (!t.size)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s is only declared in %s; its fields are unknown (field '%s')",
					    sname, dw->path, comp);
		{
			struct vg_field f = { 0 };
			int r = find_member(dw, t.id, comp, &f, 0, e);

			if (r < 0)
				return -1;
			if (!r)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "no field '%s' in %s (%s)",
						    comp, sname, dw->path);
			f.offset += out->offset;
			*out = f;
			t = f.type;
		}
		p += n;
		if (*p == '.') {
			p++;
			if (!*p)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "bad field path '%s' (%s)",
						    path, dw->path);
		}
	}
	if (p == path)
		return vg_errf_code(e, VG_EXIT_USAGE, "empty field path (%s)",
				    dw->path);
	return 0;
}

/* --- functions ------------------------------------------------------------ */

static int count_params(struct vg_dwarf *dw, Dwarf_Die die, bool *constant)
{
	Dwarf_Die c;
	int n = 0;

	for (bool ok = d_child(dw, die, &c); ok; ok = d_next(dw, &c)) {
		if (d_tag(dw, c) != DW_TAG_formal_parameter)
			continue;
		n++;
		if (constant && d_has(dw, c, DW_AT_const_value))
			*constant = true;
	}
	return n;
}

/* Without symbols to name it, is this concrete copy of an abstract
 * function a specialised clone? A clone's DWARF lists a parameter it no
 * longer takes with a constant value (constprop), or not at all (isra). */
static bool looks_cloned(struct vg_dwarf *dw, uint64_t off)
{
	Dwarf_Die die, ab;
	bool constant = false;
	int n, nab;

	if (!d_die(dw, off, &die))
		return false;
	n = count_params(dw, die, &constant);
	if (d_origin(dw, die, &ab)) {
		nab = count_params(dw, ab, NULL);
		dwarf_dealloc_die(ab);
		if (nab != n)
			constant = true;
	}
	dwarf_dealloc_die(die);
	return constant;
}

static int func_from_dwarf(struct vg_dwarf *dw, const char *name,
			   struct vg_func *out, enum vg_nofunc *why,
			   struct vg_err *e)
{
	char clone[256], at[256];
	bool has_symtab = dw->f.elf &&
			  vg_elf_has_section(dw->f.elf, ".symtab");
	bool inl = false, decl = false, ranges = false;
	const struct dw_ent *pick = NULL;
	size_t lo, hi;

	vg_elf_find_clone(dw->f.elf, name, clone, sizeof(clone));
	ent_range(dw, name, ENT_FUNC, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];

		inl |= (en->flags & EF_INLINE) != 0;
		decl |= (en->flags & EF_DECL) != 0;
		ranges |= (en->flags & EF_RANGES) != 0;
		if (!(en->flags & EF_PC))
			continue;
		if (!(en->flags & EF_ORIGIN)) {
			pick = en;	/* its own name: the real thing */
			break;
		}
		/* a concrete copy named through its abstract origin is
		 * either the out-of-line copy of an inlined function or a
		 * clone with another ABI; the symbol at its address says
		 * which, when there are symbols */
		if (has_symtab && vg_elf_func_at(dw->f.elf, en->pc, at,
						 sizeof(at))) {
			if (strcmp(at, name) && !clone[0])
				snprintf(clone, sizeof(clone), "%s", at);
			continue;
		}
		if (looks_cloned(dw, en->off)) {
			if (!clone[0])
				snprintf(clone, sizeof(clone),
					 "%s at 0x%llx", name,
					 (unsigned long long)en->pc);
			continue;
		}
		if (!pick)
			pick = en;
	}
	*why = VG_NOFUNC_OTHER;
	if (pick) {
		out->addr = pick->pc;
		out->size = 0;
		out->source = VG_SRC_DWARF;
		out->ifunc = false;
		if (vg_elf_vaddr_to_offset(dw->f.elf, out->addr, &out->offset))
			return vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
				       name, dw->path,
				       (unsigned long long)out->addr);
		return 0;
	}
	*why = clone[0] ? VG_NOFUNC_CLONED :
	       inl	  ? VG_NOFUNC_INLINED :
	       ranges	  ? VG_NOFUNC_OTHER :
	       decl	  ? VG_NOFUNC_DECLARED :
			    VG_NOFUNC_ABSENT;
	if (clone[0])
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' in %s exists only as the compiler-made copy '%s', whose parameters differ from the source; mark it __attribute__((noipa)) to probe it",
				    name, dw->path, clone);
	if (inl)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' in %s is inlined everywhere; it has no address to probe (mark it __attribute__((noinline)) to give it one)",
				    name, dw->path);
	if (ranges)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' in %s has no symbol, and DWARF gives its code as several ranges with no single entry address",
				    name, dw->path);
	if (decl)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' is only declared in %s, not defined: it lives in a shared library",
				    name, dw->path);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "function '%s' not found in %s (looked in .symtab, .dynsym%s)",
			    name, dw->path,
			    dw->dbg	  ? " and DWARF" :
			    dw->problem ? "; its DWARF is unreadable" :
					  "; it has no DWARF");
}

int vg_dwarf_func(struct vg_dwarf *dw, const char *name, struct vg_func *out,
		  struct vg_err *e)
{
	enum vg_nofunc why;

	return vg_dwarf_func_why(dw, name, out, &why, e);
}

int vg_dwarf_func_why(struct vg_dwarf *dw, const char *name,
		      struct vg_func *out, enum vg_nofunc *why,
		      struct vg_err *e)
{
	GElf_Sym sym;
	int tab;

	memset(out, 0, sizeof(*out));
	*why = VG_NOFUNC_OTHER;
	tab = vg_elf_lookup(dw->f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			    VG_SYM_FUNC, false, &sym);
	if (!tab)
		return func_from_dwarf(dw, name, out, why, e);
	out->addr = sym.st_value;
	out->size = sym.st_size;
	out->source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB : VG_SRC_DYNSYM;
	out->ifunc = GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC;
	if (vg_elf_vaddr_to_offset(dw->f.elf, out->addr, &out->offset))
		return vg_errf(e, "function '%s' in %s: address 0x%llx is in no loadable segment",
			       name, dw->path, (unsigned long long)out->addr);
	return 0;
}

int vg_dwarf_func_fallback(const char *binary, struct vg_elf_file *f,
			   const char *name, struct vg_func *out,
			   struct vg_err *e)
{
	struct vg_dwarf *dw;
	enum vg_nofunc why;
	int r;

	(void)f;
	if (!(dw = vg_dwarf_open(binary, e)))
		return -1;
	r = func_from_dwarf(dw, name, out, &why, e);
	vg_dwarf_close(dw);
	return r;
}

/* --- registers ---------------------------------------------------------- */

const char *vg_reg_name(enum vg_reg r)
{
	static const char *const names[] = {
		[VG_REG_NONE] = "none", [VG_REG_RDI] = "rdi",
		[VG_REG_RSI] = "rsi",	[VG_REG_RDX] = "rdx",
		[VG_REG_RCX] = "rcx",	[VG_REG_R8] = "r8",
		[VG_REG_R9] = "r9",	[VG_REG_RAX] = "rax",
		[VG_REG_XMM0] = "xmm0", [VG_REG_XMM1] = "xmm1",
		[VG_REG_XMM2] = "xmm2", [VG_REG_XMM3] = "xmm3",
		[VG_REG_XMM4] = "xmm4", [VG_REG_XMM5] = "xmm5",
		[VG_REG_XMM6] = "xmm6", [VG_REG_XMM7] = "xmm7",
	};

	if ((unsigned)r >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[r];
}

int vg_reg_ptregs_offset(enum vg_reg r)
{
	switch (r) {
	case VG_REG_RDI: return offsetof(struct user_regs_struct, rdi);
	case VG_REG_RSI: return offsetof(struct user_regs_struct, rsi);
	case VG_REG_RDX: return offsetof(struct user_regs_struct, rdx);
	case VG_REG_RCX: return offsetof(struct user_regs_struct, rcx);
	case VG_REG_R8: return offsetof(struct user_regs_struct, r8);
	case VG_REG_R9: return offsetof(struct user_regs_struct, r9);
	case VG_REG_RAX: return offsetof(struct user_regs_struct, rax);
	default: return -1;
	}
}

/* --- x86-64 SysV classification (psABI 3.2.3) ----------------------------- */

enum cls { C_NONE, C_INT, C_SSE, C_SSEUP, C_X87, C_X87UP, C_CX87, C_MEM };

static enum cls merge(enum cls a, enum cls b)
{
	if (a == b)
		return a;
	if (a == C_NONE)
		return b;
	if (b == C_NONE)
		return a;
	if (a == C_MEM || b == C_MEM)
		return C_MEM;
	if (a == C_INT || b == C_INT)
		return C_INT;
	if (a == C_X87 || a == C_X87UP || a == C_CX87 || b == C_X87 ||
	    b == C_X87UP || b == C_CX87)
		return C_MEM;
	return C_SSE;
}

static void put(enum cls c[2], uint64_t off, enum cls k)
{
	if (off / 8 < 2)
		c[off / 8] = merge(c[off / 8], k);
	else
		c[0] = c[1] = C_MEM;
}

/* Is this 16-byte float the x87 long double, or a __float128 (SSE)? Both
 * are DW_ATE_float of size 16; only the name tells. */
static bool is_x87(struct vg_dwarf *dw, vg_type_id id)
{
	Dwarf_Die die;
	const char *n;
	bool x;

	if (!d_die(dw, id, &die))
		return true;
	n = d_name(dw, die);
	x = !n || strstr(n, "long double") != NULL;
	dwarf_dealloc_die(die);
	return x;
}

/* complex long double: a base type (not a 32-byte vector, an array) */
static bool is_cx87(struct vg_dwarf *dw, vg_type_id id)
{
	Dwarf_Die die;
	const char *n;
	bool x;

	if (!d_die(dw, id, &die))
		return false;
	n = d_name(dw, die);
	x = d_tag(dw, die) == DW_TAG_base_type && n &&
	    strstr(n, "long double") != NULL;
	dwarf_dealloc_die(die);
	return x;
}

static int classify(struct vg_dwarf *dw, vg_type_id id, uint64_t off,
		    enum cls c[2], int depth, struct vg_err *e)
{
	struct vg_type t;
	Dwarf_Die die, m;

	if (depth > MAX_DEPTH)
		return vg_errf(e, "type nested too deep in %s", dw->path);
	if (describe_d(dw, id, &t, 0, e))
		return -1;
	if (t.align > 1 && off % t.align) {
		c[0] = c[1] = C_MEM;	/* unaligned (packed): memory */
		return 0;
	}
	switch (t.kind) {
	case VG_TK_SINT:
	case VG_TK_UINT:
	case VG_TK_BOOL:
	case VG_TK_ENUM:
	case VG_TK_PTR:
		put(c, off, C_INT);
		if (t.size == 16)	/* __int128 */
			put(c, off + 8, C_INT);
		return 0;
	case VG_TK_FLOAT:
		if (t.size <= 8) {
			put(c, off, C_SSE);
		} else if (is_x87(dw, t.id)) {
			put(c, off, C_X87);
			put(c, off + 8, C_X87UP);
		} else {
			put(c, off, C_SSE);
			put(c, off + 8, C_SSEUP);
		}
		return 0;
	case VG_TK_OTHER:
		if (t.size == 8) {		/* complex float, 8-byte vector */
			put(c, off, C_SSE);
		} else if (t.size == 16 && t.align == 16) {	/* __m128 */
			put(c, off, C_SSE);
			put(c, off + 8, C_SSEUP);
		} else if (t.size == 16) {	/* complex double */
			put(c, off, C_SSE);
			put(c, off + 8, C_SSE);
		} else {			/* complex long double, ... */
			put(c, off, C_CX87);
		}
		return 0;
	case VG_TK_ARRAY: {
		struct vg_type el;

		if (describe_d(dw, t.target, &el, 0, e))
			return -1;
		for (uint64_t i = 0; el.size && i < t.size / el.size; i++)
			if (classify(dw, t.target, off + i * el.size, c,
				     depth + 1, e))
				return -1;
		return 0;
	}
	case VG_TK_STRUCT:
	case VG_TK_UNION:
		if (!d_die(dw, t.id, &die))
			return vg_errf(e, "bad DWARF type in %s", dw->path);
		for (bool ok = d_child(dw, die, &m); ok; ok = d_next(dw, &m)) {
			uint64_t mt = 0, bitpos, bitsize;
			struct vg_type mty;

			if (d_tag(dw, m) != DW_TAG_member)
				continue;
			d_ref(dw, m, DW_AT_type, &mt);
			if (describe_d(dw, mt, &mty, 0, e)) {
				dwarf_dealloc_die(m);
				dwarf_dealloc_die(die);
				return -1;
			}
			member_bits(dw, m, mty.size, &bitpos, &bitsize);
			if (bitsize) {
				put(c, off + bitpos / 8, C_INT);
				continue;
			}
			if (classify(dw, mt, off + bitpos / 8, c, depth + 1,
				     e)) {
				dwarf_dealloc_die(m);
				dwarf_dealloc_die(die);
				return -1;
			}
		}
		dwarf_dealloc_die(die);
		return 0;
	default:
		return vg_errf(e, "cannot pass a value of type %s (%s)",
			       t.name, dw->path);
	}
}

/* The classes of the eightbytes of a value of type id, before the
 * argument/return fix-ups. n8: how many eightbytes it has. */
static int raw_class(struct vg_dwarf *dw, vg_type_id id, enum cls c[2],
		     struct vg_type *t, int *n8, struct vg_err *e)
{
	c[0] = c[1] = C_NONE;
	if (describe_d(dw, id, t, 0, e))
		return -1;
	*n8 = (int)((t->size + 7) / 8);
	if (t->size == 32 && t->kind == VG_TK_OTHER && is_cx87(dw, t->id)) {
		c[0] = C_CX87;	/* complex long double */
		c[1] = C_NONE;
		return 0;
	}
	if (t->size > 16) {
		c[0] = c[1] = C_MEM;
		return 0;
	}
	return classify(dw, id, 0, c, 0, e);
}

/* The post-merger cleanup of the psABI, for an argument. */
static bool in_memory(const enum cls c[2], int n8)
{
	for (int i = 0; i < n8 && i < 2; i++)
		if (c[i] == C_MEM || c[i] == C_X87 || c[i] == C_X87UP ||
		    c[i] == C_CX87)
			return true;
	return n8 > 2;
}

static const enum vg_reg int_regs[] = { VG_REG_RDI, VG_REG_RSI, VG_REG_RDX,
					VG_REG_RCX, VG_REG_R8, VG_REG_R9 };

static int locate_params(struct vg_dwarf *dw, struct vg_proto *p,
			 struct vg_err *e)
{
	int ni = 0, ns = 0;
	int32_t stack = 0;

	/* the return value first: if it goes to memory, the caller passes
	 * its address as a hidden first argument in %rdi */
	if (p->has_ret) {
		enum cls c[2];
		struct vg_type t;
		int n8, ri = 0, rs = 0;

		if (raw_class(dw, p->ret.id ? p->ret.id : 0, c, &t, &n8, e))
			return -1;
		memset(&p->ret_loc, 0, sizeof(p->ret_loc));
		if (c[0] == C_X87 || c[0] == C_CX87) {
			p->ret_loc.kind = VG_LOC_NONE;	/* %st0: unreadable */
		} else if (in_memory(c, n8)) {
			p->sret = true;
			ni = 1;
			p->ret_loc.kind = VG_LOC_REG;
			p->ret_loc.nregs = 1;
			p->ret_loc.reg[0] = VG_REG_RAX;
		} else {
			static const enum vg_reg iret[] = { VG_REG_RAX,
							    VG_REG_RDX };

			p->ret_loc.kind = n8 ? VG_LOC_REG : VG_LOC_NONE;
			for (int k = 0; k < n8; k++) {
				if (c[k] == C_INT)
					p->ret_loc.reg[p->ret_loc.nregs++] =
						iret[ri++];
				else if (c[k] == C_SSE)
					p->ret_loc.reg[p->ret_loc.nregs++] =
						VG_REG_XMM0 + rs++;
			}
		}
	}
	for (size_t i = 0; i < p->nparams; i++) {
		struct vg_param *pa = &p->params[i];
		struct vg_loc *l = &pa->loc;
		enum cls c[2];
		struct vg_type t;
		int n8, need_i = 0, need_s = 0;

		memset(l, 0, sizeof(*l));
		if (raw_class(dw, pa->type.id, c, &t, &n8, e))
			return -1;
		if (!t.size) {
			l->kind = VG_LOC_NONE;
			continue;
		}
		if (!in_memory(c, n8)) {
			for (int k = 0; k < n8; k++) {
				need_i += c[k] == C_INT;
				need_s += c[k] == C_SSE;
			}
			/* an argument goes to registers whole or not at all:
			 * when they run out, it goes to the stack and later,
			 * smaller arguments may still take registers */
			if (ni + need_i <= 6 && ns + need_s <= 8) {
				l->kind = VG_LOC_REG;
				for (int k = 0; k < n8; k++) {
					if (c[k] == C_INT)
						l->reg[l->nregs++] =
							int_regs[ni++];
					else if (c[k] == C_SSE)
						l->reg[l->nregs++] =
							VG_REG_XMM0 + ns++;
					/* SSEUP: the upper half of the same
					 * xmm register */
				}
				continue;
			}
		}
		/* memory: eightbyte slots, 16-aligned for 16-aligned types */
		if (t.align > 8)
			stack = (stack + 15) & ~15;
		l->kind = VG_LOC_STACK;
		l->stack_off = 8 + stack;
		stack += (int32_t)((t.size + 7) & ~(uint64_t)7);
	}
	return 0;
}

static const struct dw_ent *pick_func(struct vg_dwarf *dw, const char *name)
{
	const struct dw_ent *best = NULL;
	int best_rank = 99;
	size_t lo, hi;

	/* the definition with its own name, then a concrete copy, then the
	 * abstract instance of an inlined one, then a declaration */
	ent_range(dw, name, ENT_FUNC, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];
		int rank = (en->flags & EF_PC) ?
				   ((en->flags & EF_ORIGIN) ? 1 : 0) :
			   (en->flags & EF_DECL) ? 3 : 2;

		if (rank < best_rank) {
			best = en;
			best_rank = rank;
		}
	}
	return best;
}

/* An alias (malloc is __libc_malloc in glibc's DWARF, a symbol made with
 * __attribute__((alias))): the definition at the symbol's address. */
static const struct dw_ent *func_at_symbol(struct vg_dwarf *dw,
					   const char *name)
{
	const struct dw_ent *best = NULL;
	GElf_Sym sym;

	if (!vg_elf_lookup(dw->f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			   VG_SYM_FUNC, false, &sym))
		return NULL;
	for (size_t i = 0; i < dw->nents; i++) {
		const struct dw_ent *en = &dw->ents[i];

		if (en->kind != ENT_FUNC || !(en->flags & EF_PC) ||
		    en->pc != sym.st_value)
			continue;
		if (!(en->flags & EF_ORIGIN))
			return en;
		if (!best)
			best = en;
	}
	return best;
}

/* The DIE whose children are the source parameters: the abstract
 * instance for a concrete copy of an inlined function, the DIE itself
 * otherwise (a definition, or a declaration). */
static Dwarf_Die param_die(struct vg_dwarf *dw, Dwarf_Die die)
{
	uint64_t o;
	Dwarf_Die ab;

	if (d_ref(dw, die, DW_AT_abstract_origin, &o) && d_die(dw, o, &ab))
		return ab;
	return NULL;
}

int vg_dwarf_proto(struct vg_dwarf *dw, const char *name,
		   struct vg_proto *out, struct vg_err *e)
{
	const struct dw_ent *en;
	Dwarf_Die die, pdie, c;
	uint64_t v;
	size_t cap = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (need_debug(dw, "the parameters of functions", e))
		return -1;
	/* the definition at the symbol's address first: it is the code a
	 * probe on NAME runs, even when static functions of several files
	 * share the name or NAME is an alias; then by name */
	if (!(en = func_at_symbol(dw, name)))
		en = pick_func(dw, name);
	if (!en)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "function '%s' not found in the DWARF of %s",
				    name, dw->path);
	if (!d_die(dw, en->off, &die))
		return vg_errf(e, "function '%s' in %s: unreadable DWARF",
			       name, dw->path);
	if (!(out->func = strdup(name)))
		goto oom;
	out->from_decl = (en->flags & EF_DECL) != 0;
	if (d_udata_follow(dw, die, DW_AT_calling_convention, &v) &&
	    v == DW_CC_nocall)
		out->nocall = true;
	if (d_ref_follow(dw, die, DW_AT_type, &v)) {
		out->has_ret = true;
		if (describe_d(dw, v, &out->ret, 0, e))
			goto out;
	}
	pdie = param_die(dw, die);
	for (bool ok = d_child(dw, pdie ? pdie : die, &c); ok;
	     ok = d_next(dw, &c)) {
		int tag = d_tag(dw, c);
		struct vg_param *pa;
		const char *pname;
		bool via;
		uint64_t t = 0;

		if (tag == DW_TAG_unspecified_parameters)
			out->variadic = true;
		if (tag != DW_TAG_formal_parameter)
			continue;
		if (out->nparams == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			void *np = realloc(out->params,
					   ncap * sizeof(*out->params));

			if (!np) {
				dwarf_dealloc_die(c);
				goto oom_pdie;
			}
			out->params = np;
			cap = ncap;
		}
		pa = &out->params[out->nparams++];
		memset(pa, 0, sizeof(*pa));
		pname = d_name_follow(dw, c, &via);
		if (pname && !(pa->name = strdup(pname))) {
			dwarf_dealloc_die(c);
			goto oom_pdie;
		}
		d_ref_follow(dw, c, DW_AT_type, &t);
		if (describe_d(dw, t, &pa->type, 0, e)) {
			dwarf_dealloc_die(c);
			if (pdie)
				dwarf_dealloc_die(pdie);
			goto out;
		}
	}
	if (pdie)
		dwarf_dealloc_die(pdie);
	if (locate_params(dw, out, e))
		goto out;
	ret = 0;
	goto out;
oom_pdie:
	if (pdie)
		dwarf_dealloc_die(pdie);
oom:
	vg_errf(e, "out of memory");
out:
	dwarf_dealloc_die(die);
	if (ret)
		vg_proto_free(out);
	return ret;
}

void vg_proto_free(struct vg_proto *p)
{
	for (size_t i = 0; i < p->nparams; i++)
		free(p->params[i].name);
	free(p->params);
	free(p->func);
	memset(p, 0, sizeof(*p));
}

const char *vg_proto_param_name(const struct vg_proto *p, size_t i)
{
	return i < p->nparams ? p->params[i].name : NULL;
}

bool vg_proto_name_differs(const struct vg_proto *p, const char *binary,
			   size_t i, const char *spec_name, char *buf,
			   size_t len)
{
	const char *own = vg_proto_param_name(p, i);

	if (!own || !spec_name || !strcmp(spec_name, "_") ||
	    !strcmp(own, spec_name))
		return false;
	snprintf(buf, len, "%s: the spec calls parameter %zu '%s'; %s calls it '%s'",
		 p->func, i + 1, spec_name, binary, own);
	return true;
}

int vg_dwarf_param_name(struct vg_dwarf *dw, const char *func, size_t i,
			char *buf, size_t len, struct vg_err *e)
{
	struct vg_proto p;
	int ret = -1;

	if (vg_dwarf_proto(dw, func, &p, e))
		return -1;
	if (i >= p.nparams)
		vg_errf_code(e, VG_EXIT_USAGE,
			     "function '%s' in %s has %zu parameter%s, not %zu",
			     func, dw->path, p.nparams,
			     p.nparams == 1 ? "" : "s", i + 1);
	else if (!p.params[i].name)
		vg_errf_code(e, VG_EXIT_USAGE,
			     "parameter %zu of '%s' has no name in %s", i + 1,
			     func, dw->path);
	else {
		snprintf(buf, len, "%s", p.params[i].name);
		ret = 0;
	}
	vg_proto_free(&p);
	return ret;
}

/* --- globals -------------------------------------------------------------- */

int vg_dwarf_global(struct vg_dwarf *dw, const char *name,
		    struct vg_global *out, struct vg_err *e)
{
	const struct dw_ent *def = NULL, *any = NULL;
	GElf_Sym sym;
	size_t lo, hi;
	int tab;

	memset(out, 0, sizeof(*out));
	out->pie = vg_dwarf_is_pie(dw);
	ent_range(dw, name, ENT_VAR, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct dw_ent *en = &dw->ents[i];

		if (!any || (any->flags & EF_DECL))
			any = en;
		if ((en->flags & (EF_PC | EF_TLS)) && !def)
			def = en;
	}
	tab = vg_elf_lookup(dw->f.elf, VG_TAB_SYMTAB | VG_TAB_DYNSYM, name,
			    VG_SYM_OBJECT, false, &sym);
	if ((tab && GELF_ST_TYPE(sym.st_info) == STT_TLS) ||
	    (!tab && def && (def->flags & EF_TLS)))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' in %s is thread-local: it has no single address (each thread has its own)",
				    name, dw->path);
	if (tab) {
		out->addr = sym.st_value;
		out->size = sym.st_size;
		out->source = tab == VG_TAB_SYMTAB ? VG_SRC_SYMTAB :
						     VG_SRC_DYNSYM;
	} else if (def) {
		out->addr = def->pc;
		out->source = VG_SRC_DWARF;
	} else if (any) {
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' is only declared (extern) in %s: it is defined in a shared library",
				    name, dw->path);
	} else {
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "global '%s' not found in %s (looked in .symtab, .dynsym%s)",
				    name, dw->path,
				    dw->dbg	  ? " and DWARF" :
			    dw->problem ? "; its DWARF is unreadable" :
					  "; it has no DWARF");
	}
	if (def || any) {
		Dwarf_Die die;
		uint64_t t;

		if (d_die(dw, (def ? def : any)->off, &die)) {
			if (d_ref_follow(dw, die, DW_AT_type, &t) &&
			    !describe_d(dw, t, &out->type, 0, e))
				out->has_type = true;
			dwarf_dealloc_die(die);
		}
		if (!out->size && out->has_type)
			out->size = out->type.size;
	}
	return 0;
}

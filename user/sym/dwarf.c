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
#include "dwarf_internal.h"
#include "proto_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* --- libdwarf helpers ------------------------------------------------- */

static int chk(struct vg_dwarf *dw, int res, Dwarf_Error *err)
{
	if (res == DW_DLV_ERROR && *err) {
		dwarf_dealloc_error(dw->dbg, *err);
		*err = NULL;
	}
	return res;
}

bool dw_attr(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
	     Dwarf_Attribute *a)
{
	Dwarf_Error err = NULL;

	return chk(dw, dwarf_attr(die, at, a, &err), &err) == DW_DLV_OK;
}

bool dw_has(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Error err = NULL;
	Dwarf_Bool b = 0;

	return chk(dw, dwarf_hasattr(die, at, &b, &err), &err) == DW_DLV_OK &&
	       b;
}

bool dw_udata(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
	      uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	bool ok = false;

	if (!dw_attr(dw, die, at, &a))
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
bool dw_negative(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Signed s = 0;
	bool neg = false;

	if (!dw_attr(dw, die, at, &a))
		return false;
	/* data1..data8 carry no sign; only sdata and implicit_const do */
	if (chk(dw, dwarf_whatform(a, &form, &err), &err) == DW_DLV_OK &&
	    (form == DW_FORM_sdata || form == DW_FORM_implicit_const) &&
	    chk(dw, dwarf_formsdata(a, &s, &err), &err) == DW_DLV_OK)
		neg = s < 0;
	dwarf_dealloc_attribute(a);
	return neg;
}

bool dw_flag(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Bool b = 0;

	if (!dw_attr(dw, die, at, &a))
		return false;
	if (chk(dw, dwarf_formflag(a, &b, &err), &err) != DW_DLV_OK)
		b = 0;
	dwarf_dealloc_attribute(a);
	return b;
}

bool dw_ref(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
	    uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Error err = NULL;
	Dwarf_Off o;
	bool ok;

	if (!dw_attr(dw, die, at, &a))
		return false;
	ok = chk(dw, dwarf_global_formref(a, &o, &err), &err) == DW_DLV_OK;
	dwarf_dealloc_attribute(a);
	if (ok)
		*off = o;
	return ok;
}

const char *dw_name(struct vg_dwarf *dw, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	char *n = NULL;

	if (chk(dw, dwarf_diename(die, &n, &err), &err) != DW_DLV_OK)
		return NULL;
	return n;
}

int dw_tag(struct vg_dwarf *dw, Dwarf_Die die)
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

bool dw_die(struct vg_dwarf *dw, uint64_t off, Dwarf_Die *die)
{
	Dwarf_Error err = NULL;

	return chk(dw, dwarf_offdie_b(dw->dbg, off, 1, die, &err), &err) ==
	       DW_DLV_OK;
}

/* Child iteration: for (ok = dw_child(..., &c); ok; ok = dw_next(..., &c)).
 * dw_next frees the current DIE; a loop left early must free c itself. */
bool dw_child(struct vg_dwarf *dw, Dwarf_Die parent, Dwarf_Die *c)
{
	Dwarf_Error err = NULL;

	return chk(dw, dwarf_child(parent, c, &err), &err) == DW_DLV_OK;
}

bool dw_next(struct vg_dwarf *dw, Dwarf_Die *c)
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
bool dw_origin(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Die *out)
{
	uint64_t o;

	if (!dw_ref(dw, die, DW_AT_abstract_origin, &o) &&
	    !dw_ref(dw, die, DW_AT_specification, &o))
		return false;
	return dw_die(dw, o, out);
}

/* An attribute found on DIE or on its origins. */
bool dw_ref_follow(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		   uint64_t *off)
{
	Dwarf_Die cur = die, next;
	bool ok = false;

	for (int i = 0; i < 4; i++) {
		if (dw_ref(dw, cur, at, off)) {
			ok = true;
			break;
		}
		if (!dw_origin(dw, cur, &next))
			break;
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return ok;
}

bool dw_udata_follow(struct vg_dwarf *dw, Dwarf_Die die, Dwarf_Half at,
		     uint64_t *v)
{
	Dwarf_Die cur = die, next;
	bool ok = false;

	for (int i = 0; i < 4; i++) {
		if (dw_udata(dw, cur, at, v)) {
			ok = true;
			break;
		}
		if (!dw_origin(dw, cur, &next))
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
const char *dw_name_follow(struct vg_dwarf *dw, Dwarf_Die die,
			   bool *via)
{
	Dwarf_Die cur = die, next;
	const char *n = dw_name(dw, die);

	*via = false;
	for (int i = 0; !n && i < 4; i++) {
		if (!dw_origin(dw, cur, &next))
			break;
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
		n = dw_name(dw, cur);
		*via = n != NULL;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return n;
}

/* A DWARF expression or block attribute; *blk must be freed with
 * dwarf_dealloc(DW_DLA_BLOCK) when set. */
bool dw_expr(struct vg_dwarf *dw, Dwarf_Attribute a,
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

uint64_t dw_uleb(const uint8_t *p, size_t n, size_t *used)
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
	if (!dw_attr(dw, die, DW_AT_location, &a))
		return false;
	if (dw_expr(dw, a, &p, &n, &blk)) {
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
	int tag = dw_tag(dw, die), flags = 0;
	const char *name;
	uint64_t v, pc = 0;
	Dwarf_Addr lowpc;
	bool via, tls;

	switch (tag) {
	case DW_TAG_subprogram:
		if (!(name = dw_name_follow(dw, die, &via)))
			return 0;
		if (via)
			flags |= EF_ORIGIN;
		if (chk(dw, dwarf_lowpc(die, &lowpc, &err), &err) ==
		    DW_DLV_OK) {
			flags |= EF_PC;
			pc = lowpc;
		}
		else if (dw_has(dw, die, DW_AT_ranges))
			flags |= EF_RANGES;
		if (dw_udata(dw, die, DW_AT_inline, &v) &&
		    (v == DW_INL_inlined || v == DW_INL_declared_inlined))
			flags |= EF_INLINE;
		if (dw_flag(dw, die, DW_AT_declaration))
			flags |= EF_DECL;
		return add_ent(dw, name, d_off(dw, die), pc, tag, ENT_FUNC,
			       flags);
	case DW_TAG_variable:
		if (!(name = dw_name_follow(dw, die, &via)))
			return 0;
		if (via)
			flags |= EF_ORIGIN;
		if (var_addr(dw, die, &pc, &tls))
			flags |= EF_PC;
		if (tls)
			flags |= EF_TLS;
		if (dw_flag(dw, die, DW_AT_declaration))
			flags |= EF_DECL;
		return add_ent(dw, name, d_off(dw, die), pc, tag, ENT_VAR,
			       flags);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		if (!(name = dw_name(dw, die)))
			return 0;
		if (dw_flag(dw, die, DW_AT_declaration))
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
		for (bool ok = dw_child(dw, cu, &c); ok; ok = dw_next(dw, &c)) {
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

/* Every unit header, to the end: -1 (e set) when one cannot be read */
static int walk_headers(struct vg_dwarf *dw, struct vg_err *e)
{
	for (;;) {
		Dwarf_Error err = NULL;
		Dwarf_Unsigned hlen, abbrev_off, typeoff, next;
		Dwarf_Half version, asize, lsize, xsize, cutype;
		Dwarf_Sig8 sig;
		int r = dwarf_next_cu_header_d(dw->dbg, 1, &hlen, &version,
					       &abbrev_off, &asize, &lsize,
					       &xsize, &sig, &typeoff, &next,
					       &cutype, &err);

		if (r == DW_DLV_NO_ENTRY)
			return 0;
		if (r == DW_DLV_ERROR) {
			vg_errf(e, "cannot read the DWARF of %s (%s): %s",
				dw->path, dw->debug_path, dwarf_errmsg(err));
			chk(dw, r, &err);
			return -1;
		}
	}
}

void dw_index(struct vg_dwarf *dw)
{
	struct vg_err e;

	dw_load(dw);
	if (dw->indexed || !dw->dbg)
		return;
	dw->indexed = true;
	/* a unit that cannot be read ends the index there: the names
	 * before it are still found (out of memory likewise) */
	if (build_index(dw, &e) && !dw->problem)
		dw->problem = strdup(e.msg);
}

const struct dw_ent *dw_func_at_addr(struct vg_dwarf *dw, uint64_t addr)
{
	Dwarf_Error err = NULL;
	Dwarf_Arange ar;
	Dwarf_Off cu_off;
	Dwarf_Die cu = NULL, c;
	struct dw_ent *saved = dw->ents, *found = NULL;
	size_t nsaved = dw->nents, capsaved = dw->cap;

	dw_load(dw);
	if (!dw->dbg)
		return NULL;
	if (!dw->aranges_read) {
		dw->aranges_read = true;
		if (chk(dw, dwarf_get_aranges(dw->dbg, &dw->aranges,
					      &dw->naranges, &err), &err) !=
		    DW_DLV_OK) {
			dw->aranges = NULL;
			dw->naranges = 0;
		}
	}
	if (!dw->naranges ||
	    chk(dw, dwarf_get_arange(dw->aranges, (Dwarf_Unsigned)dw->naranges,
				     addr, &ar, &err), &err) != DW_DLV_OK ||
	    chk(dw, dwarf_get_cu_die_offset(ar, &cu_off, &err), &err) !=
	    DW_DLV_OK ||
	    chk(dw, dwarf_offdie_b(dw->dbg, cu_off, 1, &cu, &err), &err) !=
	    DW_DLV_OK)
		return NULL;
	/* the unit's top-level entries, indexed as build_index would, into
	 * a list of their own */
	dw->ents = NULL;
	dw->nents = dw->cap = 0;
	for (bool ok = dw_child(dw, cu, &c); ok; ok = dw_next(dw, &c))
		if (dw_tag(dw, c) == DW_TAG_subprogram && index_die(dw, c)) {
			dwarf_dealloc_die(c);
			break;
		}
	dwarf_dealloc_die(cu);
	/* the definition under its own name before a concrete copy named
	 * through its origin (as func_at_symbol picks from the index) */
	for (size_t i = 0; i < dw->nents; i++) {
		struct dw_ent *en = &dw->ents[i];

		if (en->kind != ENT_FUNC || !(en->flags & EF_PC) ||
		    en->pc != addr)
			continue;
		if (!found || (found->flags & EF_ORIGIN && !(en->flags & EF_ORIGIN)))
			found = en;
	}
	free(dw->hit.name);
	dw->hit = found ? *found : (struct dw_ent){ 0 };
	if (found)
		found->name = NULL;	/* now the hit's */
	for (size_t i = 0; i < dw->nents; i++)
		free(dw->ents[i].name);
	free(dw->ents);
	dw->ents = saved;
	dw->nents = nsaved;
	dw->cap = capsaved;
	return found ? &dw->hit : NULL;
}

/* The entries named NAME of a kind: [*lo, *hi). */
void dw_ent_range(struct vg_dwarf *dw, const char *name, int kind,
		  size_t *lo, size_t *hi)
{
	size_t a, b;

	dw_index(dw);
	a = 0;
	b = dw->nents;

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

/* dwarf_init_path on dw->debug_path; the binary's own DWARF is indexed at
 * once, a separate debug file's when a name is first asked for */
static struct vg_dwarf *open_debug(struct vg_dwarf *dw, struct vg_err *e)
{
	const char *binary = dw->path;
	Dwarf_Error err = NULL;
	int r;

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
	/* a separate debug file is opened when first used, and a broken one
	 * is said then: its unit headers are read (this inflates a
	 * compressed .debug_info, which the first DIE read would do anyway),
	 * which also brings libdwarf's walk back to the first unit for
	 * build_index */
	if (strcmp(dw->debug_path, binary)) {
		if (walk_headers(dw, e))
			return unreadable(dw, e);
		return dw;
	}
	dw->indexed = true;
	if (build_index(dw, e))
		return unreadable(dw, e);
	return dw;
}

void dw_load(struct vg_dwarf *dw)
{
	struct vg_err e;

	if (!dw->deferred)
		return;
	dw->deferred = false;
	open_debug(dw, &e);
}

/* A stripped binary: find its debug file, and open it only when the
 * prototype cache of its build id cannot answer. When the cache was
 * filled from the debug file at ROOT/.build-id/ (libc6-dbg's), that file
 * unchanged (stat) is what the search would find first, and it is not
 * even opened. */
static struct vg_dwarf *with_debug_file(struct vg_dwarf *dw)
{
	char hex[256], bid_path[PATH_MAX];
	const char *was;

	if (dw_build_id(dw->f.elf, hex, sizeof(hex)))
		dw->pcache = vg_proto_cache_open(hex);
	if (dw->pcache && (was = vg_proto_cache_path(dw->pcache)) &&
	    dw_build_id_debug_file(dw->f.elf, bid_path, sizeof(bid_path)) &&
	    !strcmp(was, bid_path) && vg_proto_cache_bind(dw->pcache, was))
		dw->debug_path = strdup(was);
	else
		dw->debug_path = dw_find_debug_file(dw->f.elf, dw->path);
	if (!dw->debug_path) {
		vg_proto_cache_close(dw->pcache);
		dw->pcache = NULL;
		return dw;
	}
	if (dw->pcache)
		vg_proto_cache_bind(dw->pcache, dw->debug_path);
	dw->deferred = true;
	return dw;
}

struct vg_dwarf *vg_dwarf_open(const char *binary, struct vg_err *e)
{
	struct vg_dwarf *dw = calloc(1, sizeof(*dw));

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
		return with_debug_file(dw);
	if (!dw->debug_path)
		return dw;
	return open_debug(dw, e);
fail:
	vg_dwarf_close(dw);
	return NULL;
}

void vg_dwarf_close(struct vg_dwarf *dw)
{
	Dwarf_Error err = NULL;

	if (!dw)
		return;
	vg_proto_cache_close(dw->pcache);
	for (size_t i = 0; i < dw->nents; i++)
		free(dw->ents[i].name);
	free(dw->ents);
	free(dw->hit.name);
	if (dw->dbg && dw->aranges) {
		for (Dwarf_Signed i = 0; i < dw->naranges; i++)
			dwarf_dealloc(dw->dbg, dw->aranges[i], DW_DLA_ARANGE);
		dwarf_dealloc(dw->dbg, dw->aranges, DW_DLA_LIST);
	}
	if (dw->dbg)
		dwarf_finish(dw->dbg, &err);
	vg_elf_file_close(&dw->f);
	free(dw->debug_path);
	free(dw->problem);
	free(dw->path);
	free(dw);
}

bool vg_dwarf_has_debug(struct vg_dwarf *dw)
{
	dw_load(dw);
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

uint64_t vg_dwarf_text_vaddr(const struct vg_dwarf *dw)
{
	uint64_t lo = UINT64_MAX;
	size_t n;

	if (!dw->f.elf || elf_getphdrnum(dw->f.elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(dw->f.elf, (int)i, &ph) &&
		    ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    ph.p_vaddr < lo)
			lo = ph.p_vaddr;
	}
	return lo == UINT64_MAX ? 0 : lo;
}

int dw_need_debug(struct vg_dwarf *dw, const char *what,
		  struct vg_err *e)
{
	dw_load(dw);
	if (dw->dbg)
		return 0;
	if (dw->problem)
		return vg_errf(e, "%s (needed for %s)", dw->problem, what);
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "%s has no DWARF debug information, needed for %s: build it with -g, or install its debug symbols (the -dbgsym or -dbg package)",
			    dw->path, what);
}

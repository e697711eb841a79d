/* DWARF types and struct fields (user/sym/dwarf.h): how a type is spelled,
 * its size and kind, and where a member lies. */
#include "dwarf_internal.h"
#include "proto_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (depth > MAX_DEPTH || !dw_die(dw, off, &die)) {
		snprintf(buf, len, "?");
		return;
	}
	tag = dw_tag(dw, die);
	name = dw_name(dw, die);
	if (tag != DW_TAG_typedef && tag != DW_TAG_base_type &&
	    tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_enumeration_type && tag != DW_TAG_class_type &&
	    tag != DW_TAG_unspecified_type) {
		dw_ref(dw, die, DW_AT_type, &t);
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

		for (bool ok = dw_child(dw, die, &c); ok; ok = dw_next(dw, &c)) {
			if (dw_tag(dw, c) != DW_TAG_subrange_type)
				continue;
			if (dw_udata(dw, c, DW_AT_count, &n))
				snprintf(dim, sizeof(dim), "[%llu]",
					 (unsigned long long)n);
			else if (dw_udata(dw, c, DW_AT_upper_bound, &n))
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


/* A struct only declared here ("struct queue;" in a unit that only passes
 * pointers around): its definition from another unit, or 0. */
static uint64_t complete(struct vg_dwarf *dw, const char *name, int tag)
{
	size_t lo, hi;

	if (!name)
		return 0;
	dw_ent_range(dw, name, ENT_TYPE, &lo, &hi);
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

	if (dw_udata(dw, m, DW_AT_data_member_location, &v))
		return v;
	/* DWARF 2: an expression, DW_OP_plus_uconst N */
	if (!dw_attr(dw, m, DW_AT_data_member_location, &a))
		return 0;
	if (dw_expr(dw, a, &p, &n, &blk)) {
		if (n > 1 && p[0] == DW_OP_plus_uconst)
			v = dw_uleb(p + 1, n - 1, &used);
		if (blk)
			dwarf_dealloc(dw->dbg, blk, DW_DLA_BLOCK);
	}
	dwarf_dealloc_attribute(a);
	return v;
}

/* A member's position in bits, and its bit size if it is a bit-field. */
void dw_member_bits(struct vg_dwarf *dw, Dwarf_Die m, uint64_t tsize,
		    uint64_t *bitpos, uint64_t *bitsize)
{
	uint64_t v, bo;

	*bitsize = 0;
	if (!dw_udata(dw, m, DW_AT_bit_size, bitsize))
		*bitsize = 0;
	if (dw_udata(dw, m, DW_AT_data_bit_offset, &v)) {
		*bitpos = v;
		return;
	}
	*bitpos = member_offset(dw, m) * 8;
	/* DWARF 2/3: DW_AT_bit_offset counts from the most significant bit
	 * of the storage unit of DW_AT_byte_size */
	if (*bitsize && dw_udata(dw, m, DW_AT_bit_offset, &bo)) {
		uint64_t bs = tsize;

		dw_udata(dw, m, DW_AT_byte_size, &bs);
		*bitpos += bs * 8 - bo - *bitsize;
	}
}

static uint32_t struct_align(struct vg_dwarf *dw, Dwarf_Die die, int depth,
			     struct vg_err *e)
{
	uint32_t al = 1;
	uint64_t v, t;
	Dwarf_Die c;

	if (dw_udata(dw, die, DW_AT_alignment, &v))
		return (uint32_t)v;
	for (bool ok = dw_child(dw, die, &c); ok; ok = dw_next(dw, &c)) {
		struct vg_type mt;

		if (dw_tag(dw, c) != DW_TAG_member ||
		    !dw_ref(dw, c, DW_AT_type, &t))
			continue;
		if (dw_udata(dw, c, DW_AT_alignment, &v)) {
			al = v > al ? (uint32_t)v : al;
			continue;
		}
		if (dw_describe(dw, t, &mt, depth + 1, e) == 0 && mt.align > al)
			al = mt.align;
	}
	return al;
}

int dw_describe(struct vg_dwarf *dw, vg_type_id id, struct vg_type *t,
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
		if (!dw_die(dw, cur, &die))
			return vg_errf(e, "bad DWARF type reference 0x%llx in %s",
				       (unsigned long long)cur, dw->path);
		tag = dw_tag(dw, die);
		if (!is_qualifier(tag))
			break;
		next = 0;
		dw_ref(dw, die, DW_AT_type, &next);
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
	    dw_flag(dw, die, DW_AT_declaration)) {
		uint64_t def = complete(dw, dw_name(dw, die), tag);

		if (def && dw_die(dw, def, &c)) {
			dwarf_dealloc_die(die);
			die = c;
			cur = def;
		}
	}
	t->id = cur;
	if (dw_udata(dw, die, DW_AT_byte_size, &v))
		t->size = v;
	switch (tag) {
	case DW_TAG_base_type:
		v = 0;
		dw_udata(dw, die, DW_AT_encoding, &v);
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
		dw_ref(dw, die, DW_AT_type, &t->target);
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
		if (dw_ref(dw, die, DW_AT_type, &t->target)) {
			struct vg_type u;

			if (!dw_describe(dw, t->target, &u, depth + 1, e))
				t->enum_signed = u.kind == VG_TK_SINT;
		} else {
			for (bool ok = dw_child(dw, die, &c); ok;
			     ok = dw_next(dw, &c))
				if (dw_negative(dw, c, DW_AT_const_value))
					t->enum_signed = true;
		}
		break;
	case DW_TAG_array_type: {
		struct vg_type el;
		uint64_t total = 1;
		bool first = true;

		t->kind = VG_TK_ARRAY;
		dw_ref(dw, die, DW_AT_type, &t->target);
		for (bool ok = dw_child(dw, die, &c); ok; ok = dw_next(dw, &c)) {
			if (dw_tag(dw, c) != DW_TAG_subrange_type)
				continue;
			if (dw_udata(dw, c, DW_AT_count, &v))
				count = v;
			else if (dw_udata(dw, c, DW_AT_upper_bound, &v))
				count = v + 1;
			else
				count = 0;
			if (first)
				t->count = count;
			first = false;
			total *= count;
		}
		if (dw_describe(dw, t->target, &el, depth + 1, e)) {
			dwarf_dealloc_die(die);
			return -1;
		}
		t->align = el.align;
		if (!t->size)
			t->size = total * el.size;
		if (dw_flag(dw, die, DW_AT_GNU_vector)) {
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
	if (vg_proto_cache_get_type(dw->pcache, id, out))
		return 0;
	if (dw_need_debug(dw, "types", e) || dw_describe(dw, id, out, 0, e))
		return -1;
	vg_proto_cache_put_type(dw->pcache, id, out);
	return 0;
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

	if (dw_need_debug(dw, name, e))
		return -1;
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (!strncmp(name, kws[i].kw, strlen(kws[i].kw))) {
			tag = kws[i].tag;
			n = name + strlen(kws[i].kw);
		}
	dw_ent_range(dw, n, ENT_TYPE, &lo, &hi);
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
	if (dw_describe(dw, dw->ents[pick].off, out, 0, e))
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

	if (depth > MAX_DEPTH || !dw_die(dw, sid, &die))
		return 0;
	for (bool ok = dw_child(dw, die, &c); ok; ok = dw_next(dw, &c)) {
		const char *mname;
		uint64_t t = 0, bitpos, bitsize;
		struct vg_type mt;

		if (dw_tag(dw, c) != DW_TAG_member)
			continue;
		mname = dw_name(dw, c);
		dw_ref(dw, c, DW_AT_type, &t);
		if (mname && strcmp(mname, name))
			continue;
		if (dw_describe(dw, t, &mt, 0, e)) {
			found = -1;
		} else if (mname) {
			dw_member_bits(dw, c, mt.size, &bitpos, &bitsize);
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
	if (dw_need_debug(dw, "struct fields", e))
		return -1;
	if (strstr(path, "->"))
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "field path '%s' has '->': each dereference is a separate memory read (%s)",
				    path, dw->path);
	if (dw_describe(dw, base, &t, 0, e))
		return -1;
	if (t.kind == VG_TK_PTR && dw_describe(dw, t.target, &t, 0, e))
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
			if (dw_describe(dw, t.target, &el, 0, e))
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

#include "capture.h"

#include <stdio.h>
#include <string.h>

#include "sym/dwarf.h"

static bool scalar(const struct vg_type *t)
{
	return (t->kind == VG_TK_SINT || t->kind == VG_TK_UINT ||
		t->kind == VG_TK_BOOL || t->kind == VG_TK_PTR ||
		t->kind == VG_TK_ENUM) && t->size >= 1 && t->size <= 8;
}

/* why never points into e */
static int fail(struct vg_err *e, const char *why)
{
	snprintf(e->msg, sizeof(e->msg), "%s", why);
	e->exit_code = VG_EXIT_USAGE;
	return -1;
}

/* The pointer the capture starts from: its slot and its type. The probe
 * has put each parameter in the slot of its position by then, from
 * wherever the ABI passed it (user/plan/args.c). */
static int source(const struct vg_proto *pr, const struct vg_cap_req *c,
		  const char *binary, struct vg_cap_plan *plan,
		  struct vg_type *t, struct vg_err *e)
{
	char why[512];

	if (c->src == VG_SLOT_RET) {
		if (!pr->has_ret)
			return fail(e, "the function returns nothing");
		if (pr->sret)
			return fail(e, "the function returns a struct in memory (not supported)");
		plan->src = VG_SLOT_RET;
		*t = pr->ret;
		return 0;
	}
	if ((size_t)c->src >= pr->nparams) {
		snprintf(why, sizeof(why), "%s in %s has %zu parameters in DWARF, the spec uses parameter %d",
			 pr->func, binary, pr->nparams, c->src + 1);
		return fail(e, why);
	}
	plan->src = (uint8_t)c->src;
	*t = pr->params[c->src].type;
	return 0;
}

static bool char_like(const struct vg_type *t)
{
	return (t->kind == VG_TK_SINT || t->kind == VG_TK_UINT) && t->size == 1;
}

/* str(p->name): a `char *` member is followed to its string, a char array
 * member is the string itself. */
static int plan_string(struct vg_dwarf *dw, const struct vg_type *m,
		       struct vg_cap_plan *plan, struct vg_err *e)
{
	struct vg_err fe = { 0 };
	struct vg_type el;
	char why[300];

	if ((m->kind == VG_TK_PTR || m->kind == VG_TK_ARRAY) && m->target &&
	    !vg_dwarf_type(dw, m->target, &el, &fe) && char_like(&el)) {
		plan->str = m->kind == VG_TK_PTR ? VG_CAPS_PTR : VG_CAPS_AT;
		return 0;
	}
	snprintf(why, sizeof(why), "it is a %s, expected a char * or a char array",
		 m->name);
	return fail(e, why);
}

/* The members of PATH ("count", "a.b->c") from a value of type *t, one
 * load per "->" (struct vg_cap_plan); *t becomes the last member's type. */
static int walk(struct vg_dwarf *dw, struct vg_type *t, const char *path_in,
		struct vg_cap_plan *plan, struct vg_err *e)
{
	char why[300], path[128], *seg, *next;
	struct vg_err fe = { 0 };

	snprintf(path, sizeof(path), "%s", path_in);
	for (seg = path; seg; seg = next) {
		struct vg_field f;

		if ((next = strstr(seg, "->")))
			*next = 0, next += 2;
		if (plan->nsteps == VG_CAP_STEPS)
			return fail(e, "more than 3 dereferences");
		if (plan->nsteps && t->kind != VG_TK_PTR) {
			snprintf(why, sizeof(why), "the member before '->%s' is a %s, not a pointer",
				 seg, t->name);
			return fail(e, why);
		}
		if (vg_dwarf_field(dw, t->id, seg, &f, &fe))
			return fail(e, fe.msg);
		if (f.bit_size)
			return fail(e, "bit-fields are not supported");
		plan->off[plan->nsteps++] = (uint32_t)f.offset;
		*t = f.type;
	}
	return 0;
}

/* what is read at the end of the walk: a scalar's size and signedness, or
 * a string */
static int finish(struct vg_dwarf *dw, const struct vg_type *last, bool is_str,
		  struct vg_cap_plan *plan, struct vg_err *e)
{
	char why[300];

	if (is_str)
		return plan_string(dw, last, plan, e);
	if (!scalar(last)) {
		snprintf(why, sizeof(why), "it is a %s, expected an integer, bool, enum or pointer of at most 8 bytes",
			 last->name);
		return fail(e, why);
	}
	plan->size = (uint8_t)last->size;
	plan->is_signed = last->kind == VG_TK_SINT ||
			  (last->kind == VG_TK_ENUM && last->enum_signed);
	return 0;
}

static int plan_one(struct vg_dwarf *dw, const struct vg_proto *pr,
		    const char *binary, const struct vg_cap_req *c,
		    struct vg_cap_plan *plan, struct vg_err *e)
{
	char why[700];
	struct vg_type t, last;
	struct vg_err fe = { 0 };

	memset(plan, 0, sizeof(*plan));
	if (source(pr, c, binary, plan, &t, e))
		return -1;
	if (t.kind != VG_TK_PTR) {
		snprintf(why, sizeof(why), "it is a %s in %s (%s), not a pointer",
			 t.name, pr->func, binary);
		return fail(e, why);
	}
	if (c->is_str && !c->path[0]) {		/* str(p) */
		if (t.target && (vg_dwarf_type(dw, t.target, &last, &fe) ||
				 !char_like(&last))) {
			snprintf(why, sizeof(why), "it is a %s, expected a char *",
				 t.name);
			return fail(e, why);
		}
		plan->str = VG_CAPS_AT;
		return 0;
	}
	if (!c->path[0]) {	/* *p */
		if (!t.target || vg_dwarf_type(dw, t.target, &last, &fe))
			return fail(e, "it points to void");
		plan->nsteps = 1;
	} else {
		if (walk(dw, &t, c->path, plan, e))
			return -1;
		last = t;
	}
	return finish(dw, &last, c->is_str, plan, e);
}

int vg_capture_plan(struct vg_dwarf *dw, const char *binary,
		    const char *func, const struct vg_cap_req *req, int n,
		    struct vg_cap_plan *out, int *bad, struct vg_err *e)
{
	struct vg_proto pr;
	struct vg_err de = { 0 };
	int rc = 0;

	*bad = 0;
	if (!dw)
		return fail(e, "the binary is not a readable ELF file");
	if (vg_dwarf_proto(dw, func, &pr, &de)) {
		/* str(p) needs only p's value: libc's fopen(path) has no
		 * DWARF on most systems, and its path is still a string; a
		 * pattern's `*s` (an out-parameter) is a word, as positions
		 * are without DWARF */
		for (int k = 0; k < n; k++) {
			if (req[k].src == VG_CAP_GLOBAL)
				continue;
			if (req[k].word) {
				memset(&out[k], 0, sizeof(out[k]));
				out[k].src = (uint8_t)req[k].src;
				out[k].nsteps = 1;
				out[k].size = 8;
				continue;
			}
			if (!req[k].is_str || req[k].path[0]) {
				*bad = k;
				return fail(e, de.msg);
			}
			memset(&out[k], 0, sizeof(out[k]));
			out[k].src = (uint8_t)req[k].src;
			out[k].str = VG_CAPS_AT;
		}
		return 0;
	}
	for (int k = 0; !rc && k < n; k++)
		if (req[k].src != VG_CAP_GLOBAL &&
		    (rc = plan_one(dw, &pr, binary, &req[k], &out[k], e)))
			*bad = k;
	vg_proto_free(&pr);
	return rc;
}

int vg_capture_plan_global(struct vg_dwarf *dw, const char *prog,
			   const struct vg_cap_req *c, struct vg_cap_plan *plan,
			   struct vg_err *e)
{
	char why[700], name[128], *cut;
	const char *rest = "";
	struct vg_err fe = { 0 };
	struct vg_global g;
	struct vg_type t;
	uint64_t text, off;

	memset(plan, 0, sizeof(*plan));
	plan->src = VG_CAP_GLOBAL;
	snprintf(name, sizeof(name), "%s", c->path);
	cut = name + strcspn(name, ".-");
	if (*cut) {
		rest = c->path + (cut - name);
		*cut = 0;
	}
	if (!dw)
		return fail(e, "the program is not a readable ELF file");
	if (vg_dwarf_global(dw, name, &g, &fe))
		return fail(e, fe.msg);
	text = vg_dwarf_text_vaddr(dw);
	if (!text && !vg_dwarf_is_pie(dw))
		return fail(e, "the program has no executable segment");
	if (g.addr < text || g.addr - text > UINT32_MAX) {
		snprintf(why, sizeof(why), "global '%s' lies before the text of %s (not supported)",
			 name, prog);
		return fail(e, why);
	}
	off = g.addr - text;
	if (!g.has_type) {	/* .symtab only: its size, as unsigned */
		if (*rest || c->is_str || !(g.size == 1 || g.size == 2 ||
					   g.size == 4 || g.size == 8)) {
			snprintf(why, sizeof(why), "%s has no DWARF type for global '%s' (build it with -g)",
				 prog, name);
			return fail(e, why);
		}
		plan->nsteps = 1;
		plan->off[0] = (uint32_t)off;
		plan->size = (uint8_t)g.size;
		return 0;
	}
	t = g.type;
	if (*rest == '.') {	/* ::cfg.level: a member of the global itself */
		char dots[128];
		struct vg_field f;

		snprintf(dots, sizeof(dots), "%s", rest + 1);
		dots[strcspn(dots, "-")] = 0;
		rest += 1 + strlen(dots);
		if (vg_dwarf_field(dw, t.id, dots, &f, &fe))
			return fail(e, fe.msg);
		if (f.bit_size)
			return fail(e, "bit-fields are not supported");
		off += f.offset;
		t = f.type;
	}
	plan->off[plan->nsteps++] = (uint32_t)off;
	if (!strncmp(rest, "->", 2)) {
		if (t.kind != VG_TK_PTR) {
			snprintf(why, sizeof(why), "::%.100s is a %s, not a pointer",
				 c->path, t.name);
			return fail(e, why);
		}
		if (walk(dw, &t, rest + 2, plan, e))
			return -1;
	}
	return finish(dw, &t, c->is_str, plan, e);
}

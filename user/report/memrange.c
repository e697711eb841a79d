/* The range a memory check's violation is about (memrange.h), from the
 * violation's own variables: what vigil computed at the call, nothing
 * more. */
#include "memrange.h"
#include "names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/json.h"

/* index of the visible variable called name of type t, -1 */
static int var_of(const struct vg_property *p, const char *name,
		  enum vg_type t)
{
	for (int i = 0; i < p->nvars; i++)
		if (!p->vars[i].hidden && !p->vars[i].clock &&
		    p->vars[i].type == t && !strcmp(p->vars[i].name, name))
			return i;
	return -1;
}

bool vg_memrange_of(const struct vg_spec *spec, const struct vg_slice_view *s,
		    struct vg_memrange *m)
{
	const struct vg_property *p = &spec->props[s->prop];
	int len = var_of(p, "len", VG_TYPE_UINT);
	int room = var_of(p, "room", VG_TYPE_UINT);
	int at = var_of(p, "at", VG_TYPE_PTR);

	memset(m, 0, sizeof(*m));
	if (!s->vars || len < 0 || room < 0 ||
	    vg_property_mem_pred(p, NULL) < 0)
		return false;
	m->len = (uint64_t)s->vars[len];
	m->room = (uint64_t)s->vars[room];
	/* an update that did not run leaves them as they were declared:
	 * not a range this check measured */
	if (m->len <= m->room)
		return false;
	m->over = m->len - m->room;
	if (at >= 0 && s->vars[at]) {
		m->has_at = true;
		m->at = (uint64_t)s->vars[at];
		m->named = vg_name_of(m->at, m->object, sizeof(m->object));
	}
	return true;
}

void vg_memrange_text(const struct vg_memrange *m, char *buf, size_t len)
{
	char head[96], where[320] = "", tail[96] = "";

	if (m->has_at)
		snprintf(head, sizeof(head), "[0x%" PRIx64 ", 0x%" PRIx64
			 "): %" PRIu64 " bytes", m->at, m->at + m->len, m->len);
	else
		snprintf(head, sizeof(head), "%" PRIu64 " bytes", m->len);
	if (m->named)
		snprintf(where, sizeof(where), " at %s", m->object);
	/* room 0: the pointer is in no live object (between heap blocks,
	 * in a freed block) or at an object's very end */
	if (m->room)
		snprintf(tail, sizeof(tail), ": %" PRIu64 " fit, %" PRIu64
			 " past its end", m->room, m->over);
	else if (m->named)
		snprintf(tail, sizeof(tail), ": %" PRIu64 " past its end",
			 m->over);
	else
		snprintf(tail, sizeof(tail), " in no live object: all %"
			 PRIu64 " outside", m->over);
	snprintf(buf, len, "%s%s%s", head, where, tail);
}

void vg_memrange_json(const struct vg_memrange *m, FILE *out)
{
	char text[512];

	vg_memrange_text(m, text, sizeof(text));
	fputs("{", out);
	if (m->has_at)
		fprintf(out, "\"at\":\"0x%" PRIx64 "\",", m->at);
	fprintf(out, "\"len\":%" PRIu64 ",\"room\":%" PRIu64
		",\"over\":%" PRIu64, m->len, m->room, m->over);
	if (m->named) {
		fputs(",\"object\":", out);
		vg_json_str(out, m->object);
	}
	fputs(",\"text\":", out);
	vg_json_str(out, text);
	fputc('}', out);
}

/* How values and events read, in the reports' text and in their JSON
 * (report.h: vg_format_value, vg_event_text, vg_event_json), and the
 * names pointer values get there (vg_report_set_namer, names.h). */
#include "report.h"
#include "names.h"
#include "vigil_event.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

void vg_format_value(const struct vg_spec *spec, enum vg_type t, uint64_t v,
		     char *buf, size_t len)
{
	switch (t) {
	case VG_TYPE_PTR:
		snprintf(buf, len, "0x%" PRIx64, v);
		break;
	case VG_TYPE_UINT:
		snprintf(buf, len, "%" PRIu64, v);
		break;
	case VG_TYPE_BOOL:
		snprintf(buf, len, "%s", v ? "true" : "false");
		break;
	case VG_TYPE_STR: {
		const char *s = vg_spec_string(spec, v);

		snprintf(buf, len, "\"%s\"", s ? s : "?");
		break;
	}
	default:
		snprintf(buf, len, "%" PRId64, (int64_t)v);
		break;
	}
}

void vg_slice_text(const struct vg_spec *spec, const struct vg_slice_view *s,
		   const char *sep, char *out, size_t len)
{
	const struct vg_property *p = &spec->props[s->prop];
	size_t n = 0;
	char v[128];

	out[0] = 0;
	for (int i = 0; i < p->nparams && n < len; i++) {
		if (!(s->mask >> i & 1))
			continue;
		vg_format_value(spec, p->param_types[i], s->params[i], v,
				sizeof(v));
		n += (size_t)snprintf(out + n, len - n, "%s%s=%s", n ? sep : "",
				      p->params[i], v);
	}
}

static vg_value_namer namer;
static void *namer_ctx;
static bool name_objects;

void vg_report_set_namer(vg_value_namer fn, void *ctx)
{
	namer = fn;
	namer_ctx = ctx;
}

void vg_names_objects(bool on)
{
	name_objects = on;
}

/* The name of a value that may be an address (user space, not a small
 * number), into buf; false when it has none. */
bool vg_name_of(uint64_t v, char *buf, size_t len)
{
	return namer && v >= (1u << 20) && v < (1ull << 47) &&
	       namer(namer_ctx, v, name_objects, buf, len);
}

/* " (NAME)" after a value in text */
void vg_name_text(FILE *out, uint64_t v)
{
	char name[256];

	if (vg_name_of(v, name, sizeof(name)))
		fprintf(out, " (%s)", name);
}

void vg_name_json(struct vg_jnames *j, const char *key, uint64_t v)
{
	char name[256];

	if (!vg_name_of(v, name, sizeof(name)))
		return;
	fputs(j->n++ ? "," : ",\"names\":{", j->out);
	vg_json_str(j->out, key);
	fputc(':', j->out);
	vg_json_str(j->out, name);
}

void vg_names_json_end(struct vg_jnames *j)
{
	if (j->n)
		fputc('}', j->out);
}

/* Event fields have no declared type: small values read best in decimal,
 * addresses in hex. */
static void format_field(uint64_t v, char *buf, size_t len)
{
	if ((int64_t)v > -65536 && (int64_t)v < (1 << 20))
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "0x%" PRIx64, v);
}

/* A str(p) capture as C would write it: "a\tb", non-printable bytes as
 * \xNN. */
static void format_string(const char *str, char *buf, size_t len)
{
	size_t n = 0;

	buf[n++] = '"';
	for (; *str && n + 6 < len; str++) {
		unsigned char c = (unsigned char)*str;

		if (c == '"' || c == '\\')
			n += snprintf(buf + n, len - n, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			n += snprintf(buf + n, len - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n++] = '"';
	buf[n] = 0;
}

/* capture k of event e: a number, or for str(p) the string (quoted when
 * `quoted`, as in the text report; raw for JSON) */
static void format_capture(const struct vg_spec *spec, const struct vg_event *e,
			   int k, uint64_t v, bool quoted, char *buf, size_t len)
{
	const char *str;

	if (!e->caps[k].is_str) {
		format_field(v, buf, len);
		return;
	}
	str = vg_spec_string(spec, v);
	if (!quoted)
		snprintf(buf, len, "%s", str ? str : "");
	else
		format_string(str ? str : "", buf, len);
}

/* Position i (VG_SLOT_RET: the return value) of event e: the string for
 * one that binds a `string` slice parameter (quoted when `quoted`, as the
 * text report writes it; raw for JSON), else as format_field. */
static void event_field(const struct vg_spec *spec, const struct vg_event *e,
			int i, uint64_t v, bool quoted, char *buf, size_t len)
{
	uint32_t bit = i == VG_SLOT_RET ? VG_STR_RET_BIT : 1u << i;
	const char *str = (e->str_fields & bit) ? vg_spec_string(spec, v)
						 : NULL;

	if (!str)
		format_field(v, buf, len);
	else if (!quoted)
		snprintf(buf, len, "%s", str);
	else
		format_string(str, buf, len);
}

/* A timeout: how long the slice was in the state, the limit, and when
 * the timer fired against its deadline. Times are of the events' clock
 * (CLOCK_MONOTONIC live, trace time offline), in seconds. */
static void timeout_text(const struct vg_spec *spec, FILE *out,
			 const struct vg_mon_event *ev)
{
	uint64_t entered = ev->slot[VG_TSLOT_ENTERED],
		 limit = ev->slot[VG_TSLOT_LIMIT],
		 fired = ev->slot[VG_TSLOT_FIRED];
	int st = (int)ev->slot[VG_TSLOT_STATE];
	const char *name = "?";

	for (int i = 0; i < spec->nprops; i++)
		if (spec->props[i].timed &&
		    spec->props[i].timeout_event == ev->event &&
		    st < spec->props[i].nstates) {
			name = spec->props[i].states[st].name;
			break;
		}
	fprintf(out, "timeout in state %s: entered at %.6fs, limit %.3fms, deadline %.6fs, fired at %.6fs (%+.3fms)",
		name, (double)entered / 1e9, (double)limit / 1e6,
		(double)ev->time_ns / 1e9, (double)fired / 1e9,
		((double)fired - (double)ev->time_ns) / 1e6);
}

void vg_event_text(const struct vg_spec *spec, FILE *out,
		   const struct vg_mon_event *ev)
{
	const struct vg_event *e = &spec->events[ev->event];
	char buf[64], old[64], sbuf[4 * VG_STR_MAX + 4];

	if (e->kind == VG_EV_TIMEOUT) {
		timeout_text(spec, out, ev);
		return;
	}
	if (vg_event_watches(e)) {	/* write q->count: 5 (was 4) at 0x... */
		format_field(ev->slot[VG_WSLOT_VALUE], buf, sizeof(buf));
		format_field(ev->slot[VG_WSLOT_OLD], old, sizeof(old));
		fprintf(out, "%s %s: %s (was %s) at 0x%llx",
			vg_event_kind_name(e->kind), e->name, buf, old,
			(unsigned long long)ev->slot[VG_WSLOT_ADDR]);
		return;
	}
	if (e->kind == VG_EV_NAMED)
		fprintf(out, "%s(", e->name);
	else if (!e->name[0])	/* exit(code), signal(sig), thread_* */
		fprintf(out, "%s(", vg_event_kind_name(e->kind));
	else
		fprintf(out, "%s %s(", vg_event_kind_name(e->kind), e->name);
	for (int i = 0; i < e->nfields; i++) {
		event_field(spec, e, i, ev->slot[i], true, sbuf, sizeof(sbuf));
		fprintf(out, "%s%s", i ? ", " : "", sbuf);
		if (!(e->str_fields >> i & 1))
			vg_name_text(out, ev->slot[i]);
	}
	fprintf(out, ")");
	if (e->uses_ret || e->kind == VG_EV_AFTER) {
		event_field(spec, e, VG_SLOT_RET, ev->slot[VG_SLOT_RET], true,
			    buf, sizeof(buf));
		fprintf(out, " returned %s", buf);
		if (!(e->str_fields & VG_STR_RET_BIT))
			vg_name_text(out, ev->slot[VG_SLOT_RET]);
	}
	/* what the probe read from memory: "with q->count=8 q->cap=8" */
	for (int k = 0; k < e->ncaps; k++) {
		format_capture(spec, e, k, ev->slot[VG_SLOT_CAP0 + k], true,
			       sbuf, sizeof(sbuf));
		fprintf(out, "%s%s=%s", k ? " " : " with ", e->caps[k].text,
			sbuf);
	}
}

void vg_event_json(const struct vg_spec *spec, FILE *out,
		   const struct vg_mon_event *ev)
{
	const struct vg_event *e = &spec->events[ev->event];
	char buf[4096];

	fputs("\"event\":{\"kind\":", out);
	vg_json_str(out, vg_event_kind_name(e->kind));
	fputs(",\"name\":", out);
	vg_json_str(out, e->name);
	fputs(",\"args\":[", out);
	for (int i = 0; i < e->nfields; i++) {
		event_field(spec, e, i, ev->slot[i], false, buf, sizeof(buf));
		fprintf(out, "%s", i ? "," : "");
		vg_json_str(out, buf);
	}
	fputc(']', out);
	if (e->kind == VG_EV_AFTER) {
		event_field(spec, e, VG_SLOT_RET, ev->slot[VG_SLOT_RET], false,
			    buf, sizeof(buf));
		fputs(",\"ret\":", out);
		vg_json_str(out, buf);
	}
	if (e->ncaps) {
		fputs(",\"read\":{", out);
		for (int k = 0; k < e->ncaps; k++) {
			char sbuf[VG_STR_MAX + 1];

			format_capture(spec, e, k, ev->slot[VG_SLOT_CAP0 + k],
				       false, sbuf, sizeof(sbuf));
			fprintf(out, "%s", k ? "," : "");
			vg_json_str(out, e->caps[k].text);
			fputc(':', out);
			vg_json_str(out, sbuf);
		}
		fputc('}', out);
	}
	{	/* "names":{"0":"&A","ret":"block of ..."} */
		struct vg_jnames j = { out, 0 };
		char key[16];

		for (int i = 0; i < e->nfields; i++)
			if (!(e->str_fields >> i & 1)) {
				snprintf(key, sizeof(key), "%d", i);
				vg_name_json(&j, key, ev->slot[i]);
			}
		if (e->kind == VG_EV_AFTER && !(e->str_fields & VG_STR_RET_BIT))
			vg_name_json(&j, "ret", ev->slot[VG_SLOT_RET]);
		vg_names_json_end(&j);
	}
	if (e->kind == VG_EV_TIMEOUT)
		fprintf(out, ",\"timeout\":{\"entered_ns\":%" PRIu64
			",\"limit_ns\":%" PRIu64 ",\"deadline_ns\":%" PRIu64
			",\"fired_ns\":%" PRIu64 "}",
			ev->slot[VG_TSLOT_ENTERED], ev->slot[VG_TSLOT_LIMIT],
			ev->time_ns, ev->slot[VG_TSLOT_FIRED]);
	fprintf(out, "},\"pid\":%u,\"tid\":%u,\"time_ns\":%" PRIu64
		",\"seq\":%" PRIu64, ev->pid, ev->tid, ev->time_ns, ev->seq);
}

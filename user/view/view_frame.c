/* The live view's frames (view_frame.h). */
#include "view_frame.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"
#include "util/json.h"

int vg_frame_tindex(const struct vg_spec *spec, int prop, int trans)
{
	int n = 0;

	for (int i = 0; i < prop; i++)
		n += spec->props[i].ntrans;
	return n + trans;
}

int vg_frame_ntrans(const struct vg_spec *spec)
{
	return vg_frame_tindex(spec, spec->nprops, 0);
}

/* {"q":"0x55..","n":3}: the parameters a slice binds, or its variables */
static void params_json(const struct vg_spec *spec,
			const struct vg_property *p,
			const struct vg_slice_view *s, FILE *out)
{
	char buf[160];
	bool first = true;

	fputc('{', out);
	for (int i = 0; i < p->nparams; i++) {
		if (!(s->mask & (1u << i)))
			continue;
		vg_format_value(spec, p->param_types[i], s->params[i], buf,
				sizeof(buf));
		fprintf(out, "%s", first ? "" : ",");
		vg_json_str(out, p->params[i]);
		fputc(':', out);
		vg_json_value(out, p->param_types[i], buf);
		first = false;
	}
	fputc('}', out);
}

static void vars_json(const struct vg_spec *spec, const struct vg_property *p,
		      const struct vg_slice_view *s, FILE *out)
{
	char buf[160];

	fputc('{', out);
	/* a tombstone (a violation state) keeps no variables */
	for (int i = 0; s->vars && i < p->nvars; i++) {
		vg_format_value(spec, p->vars[i].type, (uint64_t)s->vars[i],
				buf, sizeof(buf));
		fprintf(out, "%s", i ? "," : "");
		vg_json_str(out, p->vars[i].name);
		fputc(':', out);
		vg_json_value(out, p->vars[i].type, buf);
	}
	fputc('}', out);
}

struct count_ctx {
	const struct vg_spec *spec;
	uint64_t *n;		/* [base[prop] + state] */
	const int *base;
	/* the selected state's slices, as JSON */
	FILE *sel;
	int sel_prop, sel_state, sel_cap, sel_shown;
	uint64_t sel_total;
};

static void count_one(void *ctx, const struct vg_slice_view *s)
{
	struct count_ctx *c = ctx;
	const struct vg_property *p = &c->spec->props[s->prop];

	c->n[c->base[s->prop] + s->state]++;
	if (s->prop != c->sel_prop || s->state != c->sel_state)
		return;
	c->sel_total++;
	if (c->sel_shown >= c->sel_cap)
		return;
	fprintf(c->sel, "%s{\"slice\":", c->sel_shown ? "," : "");
	params_json(c->spec, p, s, c->sel);
	fputs(",\"vars\":", c->sel);
	vars_json(c->spec, p, s, c->sel);
	fprintf(c->sel, ",\"inconclusive\":%s}",
		s->inconclusive ? "true" : "false");
	c->sel_shown++;
}

static void str_or_null(FILE *out, const char *s)
{
	if (s)
		vg_json_str(out, s);
	else
		fputs("null", out);
}

char *vg_frame_build(const struct vg_frame_in *in, size_t *len)
{
	const struct vg_spec *spec = in->spec;
	int nst = 0, base[spec->nprops + 1];
	char *sel = NULL, *buf = NULL;
	size_t sel_len = 0;
	struct count_ctx cc = { .spec = spec, .base = base,
				.sel_prop = in->sel_prop,
				.sel_state = in->sel_state,
				.sel_cap = in->sel_cap };
	FILE *out;

	for (int i = 0; i < spec->nprops; i++) {
		base[i] = nst;
		nst += spec->props[i].nstates;
	}
	if (!(cc.n = calloc(nst + 1, sizeof(uint64_t))) ||
	    !(cc.sel = open_memstream(&sel, &sel_len))) {
		free(cc.n);
		return NULL;
	}
	for (int m = 0; m < in->nmons; m++)
		vg_monitor_foreach(in->mons[m], count_one, &cc);
	fclose(cc.sel);
	if (!(out = open_memstream(&buf, len))) {
		free(cc.n);
		free(sel);
		return NULL;
	}
	fprintf(out, "{\"v\":1,\"seq\":%" PRIu64 ",\"t_ms\":%" PRIu64
		",\"phase\":", in->seq, in->t_ms);
	vg_json_str(out, in->phase);
	fputs(",\"note\":", out);
	str_or_null(out, in->note);
	fprintf(out, ",\"events\":%" PRIu64 ",\"rate\":%.0f,\"lost\":%" PRIu64
		",\"probes\":[%d,%d],\"props\":[",
		in->events, in->rate, in->lost, in->probes_on,
		in->probes_total);
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];
		uint64_t live = 0;

		fprintf(out, "%s{\"name\":", i ? "," : "");
		vg_json_str(out, p->name);
		fprintf(out, ",\"tier\":\"%s\",",
			in->kernel && in->kernel[i] ? "kernel" : "user");
		/* unloaded while it runs (vigil unload): the page hides it */
		if (in->nmons && vg_monitor_prop_disabled(in->mons[0], i))
			fputs("\"gone\":true,", out);
		fputs("\"states\":[", out);
		for (int s = 0; s < p->nstates; s++) {
			uint64_t n = cc.n[base[i] + s];

			live += n;
			fprintf(out, "%s{\"name\":", s ? "," : "");
			vg_json_str(out, p->states[s].name);
			fprintf(out, ",\"kind\":\"%s\",\"slices\":%" PRIu64 "}",
				vg_state_kind_name(p->states[s].kind), n);
		}
		fputs("],\"edges\":[", out);
		for (int t = 0; t < p->ntrans; t++)
			fprintf(out, "%s%" PRIu64, t ? "," : "",
				in->fired ? in->fired[vg_frame_tindex(spec, i, t)]
					  : 0);
		fprintf(out, "],\"live\":%" PRIu64 "}", live);
	}
	fputs("],\"violations\":[", out);
	for (int i = 0; i < in->nviolations; i++)
		fprintf(out, "%s%s", i ? "," : "", in->violations[i]);
	fputs("],\"selected\":", out);
	if (in->sel_prop >= 0 && in->sel_prop < spec->nprops &&
	    in->sel_state >= 0 &&
	    in->sel_state < spec->props[in->sel_prop].nstates)
		fprintf(out, "{\"prop\":%d,\"state\":%d,\"total\":%" PRIu64
			",\"slices\":[%s]}", in->sel_prop, in->sel_state,
			cc.sel_total, sel ? sel : "");
	else
		fputs("null", out);
	fputc('}', out);
	free(cc.n);
	free(sel);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *vg_frame_violation(const struct vg_spec *spec,
			 const struct vg_slice_view *s, int from,
			 const char *event_text, const char *event_members,
			 const char *evidence)
{
	const struct vg_property *p = &spec->props[s->prop];
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fputs("{\"property\":", out);
	vg_json_str(out, p->name);
	fprintf(out, ",\"prop\":%d,\"slice\":", s->prop);
	params_json(spec, p, s, out);
	fputs(",\"from\":", out);
	vg_json_str(out, p->states[from].name);
	fputs(",\"state\":", out);
	vg_json_str(out, p->states[s->state].name);
	fputs(",\"text\":", out);
	vg_json_str(out, event_text);
	fprintf(out, ",%s,\"evidence\":%s}", event_members,
		evidence && *evidence ? evidence : "[]");
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

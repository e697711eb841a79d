#include "dot.h"

#include <inttypes.h>

int vg_dot_index(const struct vg_spec *spec, int prop, int state)
{
	int n = 0;

	for (int i = 0; i < prop; i++)
		n += spec->props[i].nstates;
	return n + state;
}

int vg_dot_nstates(const struct vg_spec *spec)
{
	return vg_dot_index(spec, spec->nprops, 0);
}

/* DOT identifiers and labels: quote, escaping quotes and backslashes. */
static void q(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", out);	/* DOT's line break */
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void edge_label(const struct vg_spec *spec,
		       const struct vg_property *p,
		       const struct vg_transition *t, FILE *out)
{
	const struct vg_event *ev = &spec->events[t->event];
	char buf[512];

	if (ev->kind == VG_EV_NAMED)
		snprintf(buf, sizeof(buf), "%s%s", ev->name,
			 t->guard.len ? " [guard]" : "");
	else
		snprintf(buf, sizeof(buf), "%s%s%s%s",
			 vg_event_kind_name(ev->kind), ev->name[0] ? " " : "",
			 ev->name, t->guard.len ? " [guard]" : "");
	q(out, buf);
	(void)p;
}

void vg_dot_write(const struct vg_spec *spec, FILE *out,
		  const struct vg_dot_marks *marks)
{
	fprintf(out, "digraph vigil {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
	for (int pi = 0; pi < spec->nprops; pi++) {
		const struct vg_property *p = &spec->props[pi];

		fprintf(out, "  subgraph cluster_%d {\n    label=", pi);
		q(out, p->name);
		fprintf(out, ";\n    __start_%d [shape=point];\n", pi);
		for (int s = 0; s < p->nstates; s++) {
			const struct vg_state *st = &p->states[s];
			int i = vg_dot_index(spec, pi, s);
			char label[512];

			if (marks && marks->ended)
				snprintf(label, sizeof(label), "%s\n%" PRIu64 " slice%s",
					 st->name, marks->ended[i],
					 marks->ended[i] == 1 ? "" : "s");
			else
				snprintf(label, sizeof(label), "%s", st->name);
			fprintf(out, "    p%d_s%d [label=", pi, s);
			q(out, label);
			fprintf(out, ", shape=%s",
				st->kind == VG_STATE_ACCEPTING ? "doublecircle"
							       : "circle");
			if (st->kind == VG_STATE_VIOLATION)
				fprintf(out, ", color=red, fontcolor=red");
			if (marks && marks->reached && marks->reached[i])
				fprintf(out, ", style=filled, fillcolor=%s",
					st->kind == VG_STATE_VIOLATION
						? "mistyrose" : "lightblue");
			fprintf(out, "];\n");
		}
		fprintf(out, "    __start_%d -> p%d_s0;\n", pi, pi);
		for (int t = 0; t < p->ntrans; t++) {
			fprintf(out, "    p%d_s%d -> p%d_s%d [label=", pi,
				p->trans[t].from, pi, p->trans[t].to);
			edge_label(spec, p, &p->trans[t], out);
			fprintf(out, "];\n");
		}
		for (int s = 0; s < p->nstates; s++) {	/* timeouts: dashed */
			const struct vg_state *st = &p->states[s];
			char label[64];

			if (!st->timed)
				continue;
			if (st->limit_ns > 0)
				snprintf(label, sizeof(label), "after %.3gms",
					 (double)st->limit_ns / 1e6);
			else
				snprintf(label, sizeof(label), "at the deadline");
			fprintf(out, "    p%d_s%d -> p%d_s%d [style=dashed, label=",
				pi, s, pi, st->timeout_to);
			q(out, label);
			fprintf(out, "];\n");
		}
		fprintf(out, "  }\n");
	}
	fprintf(out, "}\n");
}

#include "dot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

const char *vg_dot_kind_color(enum vg_state_kind k)
{
	switch (k) {
	case VG_STATE_ACCEPTING:
		return "#dff0d8";	/* green: good */
	case VG_STATE_VIOLATION:
		return "#f2dede";	/* red: bad, final */
	default:
		return "#fcf8e3";	/* amber: not good yet */
	}
}

char *vg_dot_svg(const struct vg_spec *spec, const struct vg_dot_marks *marks,
		 size_t *len, struct vg_err *e)
{
	/* dot reads the graph from a memory file it inherits: no temporary
	 * file to clean up, no pipe in both directions to deadlock on */
	int fd = memfd_create("vigil-dot", 0);
	char cmd[64], *svg = NULL;
	size_t cap = 0;
	FILE *in, *out;
	int st;

	*len = 0;
	if (fd < 0 || !(in = fdopen(fd, "w"))) {
		vg_errf(e, "cannot draw the automata: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	vg_dot_write(spec, in, marks);
	fflush(in);
	snprintf(cmd, sizeof(cmd), "dot -Tsvg /proc/self/fd/%d", fd);
	if (!(out = popen(cmd, "r"))) {
		vg_errf(e, "cannot run Graphviz's dot: %s", strerror(errno));
		fclose(in);
		return NULL;
	}
	for (;;) {
		size_t n;

		if (*len + 4096 + 1 > cap) {
			char *bigger = realloc(svg, cap = 2 * cap + 8192);

			if (!bigger)
				break;
			svg = bigger;
		}
		if (!(n = fread(svg + *len, 1, cap - *len - 1, out)))
			break;
		*len += n;
	}
	st = pclose(out);
	fclose(in);
	if (st || !svg || !*len) {
		vg_errf(e, "Graphviz's dot failed (status %d); is graphviz installed?",
			st);
		free(svg);
		return NULL;
	}
	svg[*len] = 0;
	return svg;
}

void vg_dot_write(const struct vg_spec *spec, FILE *out,
		  const struct vg_dot_marks *marks)
{
	fprintf(out, "digraph vigil {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
	/* the stop's note is an xlabel, which dot may otherwise leave out
	 * where it finds no room */
	if (marks && marks->stop_note)
		fprintf(out, "  forcelabels=true;\n");
	for (int pi = 0; pi < spec->nprops; pi++) {
		const struct vg_property *p = &spec->props[pi];

		if (marks && marks->hidden && marks->hidden[pi])
			continue;
		fprintf(out, "  subgraph cluster_%d {\n    label=", pi);
		q(out, p->name);
		fprintf(out, ";\n    __start_%d [shape=point];\n", pi);
		/* the live view hides a property unloaded while it runs:
		 * everything of it has an id under pP (view.js) */
		if (marks && marks->live)
			fprintf(out, "    id=\"p%d\";\n    __start_%d [id=\"p%d_start\"];\n",
				pi, pi, pi);
		for (int s = 0; s < p->nstates; s++) {
			const struct vg_state *st = &p->states[s];
			int i = vg_dot_index(spec, pi, s);
			char label[512];

			if (marks && marks->live)
				/* room for the live view's count, which the
				 * page writes over this line */
				snprintf(label, sizeof(label), "%s\n%s", st->name,
					 VG_DOT_COUNT_ROOM);
			else if (marks && marks->ended)
				snprintf(label, sizeof(label), "%s\n%" PRIu64 " slice%s",
					 st->name, marks->ended[i],
					 marks->ended[i] == 1 ? "" : "s");
			else
				snprintf(label, sizeof(label), "%s", st->name);
			fprintf(out, "    p%d_s%d [label=", pi, s);
			q(out, label);
			/* the stop's note (a slice's name, as wide as its
			 * values) beside the state, not in it: a circle grows
			 * with its label, and the state would be drawn as wide
			 * as the note; the node keeps the plain graph's size */
			if (marks && marks->stop_note && marks->stop_prop == pi &&
			    marks->stop_state == s) {
				fputs(", xlabel=", out);
				q(out, marks->stop_note);
			}
			fprintf(out, ", shape=%s",
				st->kind == VG_STATE_ACCEPTING ? "doublecircle"
							       : "circle");
			if (st->kind == VG_STATE_VIOLATION)
				fprintf(out, ", color=red, fontcolor=red");
			/* the kind at a glance, as the live view shows it */
			if (marks && marks->stop_note && marks->stop_prop == pi &&
			    marks->stop_state == s)
				fprintf(out, ", style=filled, fillcolor=\"%s\", color=\"%s\", penwidth=4, tooltip=",
					VG_DOT_STOP_FILL, VG_DOT_STOP_BORDER);
			else
				fprintf(out, ", style=filled, fillcolor=\"%s\"",
					vg_dot_kind_color(st->kind));
			if (marks && marks->stop_note && marks->stop_prop == pi &&
			    marks->stop_state == s)
				q(out, marks->stop_note);
			if (marks && marks->reached && marks->reached[i] &&
			    !(marks->stop_note && marks->stop_prop == pi &&
			      marks->stop_state == s))
				fprintf(out, ", penwidth=3");
			fprintf(out, ", id=\"p%d_s%d\"];\n", pi, s);
		}
		fprintf(out, "    __start_%d -> p%d_s0", pi, pi);
		if (marks && marks->live)
			fprintf(out, " [id=\"p%d_init\"]", pi);
		fputs(";\n", out);
		for (int t = 0; t < p->ntrans; t++) {
			fprintf(out, "    p%d_s%d -> p%d_s%d [label=", pi,
				p->trans[t].from, pi, p->trans[t].to);
			edge_label(spec, p, &p->trans[t], out);
			fprintf(out, ", id=\"p%d_t%d\"];\n", pi, t);
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

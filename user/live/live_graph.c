/* `vigil graph [PROP] [--svg]` in a live session: the automata as DOT
 * (or SVG, through Graphviz), each state with its live slice count, and
 * the state of the slice the last stop was about marked (a blue fill and
 * border, and a note naming the slice beside the state, outside it). The
 * properties added with `vigil load` have a graph each, after the
 * session's own. */
#include "live_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load.h"
#include "monitor/monitor.h"
#include "report/dot.h"
#include "spec/spec.h"

/* One part's graph (the run's, or a `vigil load` part's); the stop's mark
 * when it is its own. */
static int one_graph(struct vg_run *r, struct vg_run *o, FILE *m,
		     json_t *graphs, bool svg, struct vg_err *e)
{
	const struct vg_spec *spec = vg_run_spec(o);
	int n = vg_dot_nstates(spec);
	struct vg_live_counts c = { spec, calloc((size_t)n + 1, sizeof(uint64_t)) };
	uint8_t *reached = calloc((size_t)n + 1, 1);
	struct vg_dot_marks mk = { 0 };
	const struct vg_run *owner;
	const char *slice;
	char note[320], *dot = NULL;
	size_t dlen = 0;
	FILE *d;
	int prop, state;

	if (!c.per_state || !reached || !(d = open_memstream(&dot, &dlen))) {
		free(c.per_state);
		free(reached);
		return vg_errf(e, "out of memory");
	}
	vg_monitor_foreach(vg_live_monitor(o), vg_live_count_slice, &c);
	for (int i = 0; i < n; i++)
		reached[i] = c.per_state[i] > 0;
	mk.reached = reached;
	mk.ended = c.per_state;
	mk.hidden = vg_load_gone(o);
	if (vg_live_last_stop(r, &owner, &prop, &state, &slice) && owner == o) {
		snprintf(note, sizeof(note), "last stop: %s", slice);
		mk.stop_note = note;
		mk.stop_prop = prop;
		mk.stop_state = state;
	}
	if (svg) {	/* the note is the state's xlabel */
		size_t n = 0;
		char *g = vg_dot_svg(spec, &mk, &n, e);

		if (g)
			fwrite(g, 1, n, d);
		free(g);
		if (!g) {
			fclose(d);
			free(dot);
			free(c.per_state);
			free(reached);
			return -1;
		}
	} else {
		if (o != r)
			fprintf(d, "// loaded from %s\n",
				vg_load_path(o));
		if (mk.stop_note)
			fprintf(d, "// the last stop was about %s slice %s, in state %s\n",
				spec->props[prop].name, slice,
				spec->props[prop].states[state].name);
		vg_dot_write(spec, d, &mk);
	}
	fclose(d);
	fputs(dot ? dot : "", m);
	json_array_append_new(graphs, json_pack("{s:s,s:s}", "loaded",
		o == r ? "" : vg_load_path(o), svg ? "svg" : "dot",
		dot ? dot : ""));
	free(dot);
	free(c.per_state);
	free(reached);
	return 0;
}

json_t *vg_live_graph(struct vg_run *r, json_t *args)
{
	const char *pn = NULL, *a;
	struct vg_run *own = NULL, *o;
	const struct vg_run *owner;
	struct vg_err e = { 0 };
	json_t *graphs, *d, *reply;
	const char *slice;
	char *text = NULL;
	size_t tlen = 0;
	int prop, state;
	bool svg = false;
	FILE *m;

	for (size_t i = 0; (a = json_string_value(json_array_get(args, i))); i++)
		if (!strcmp(a, "--svg"))
			svg = true;
		else if (!pn)
			pn = a;
		else
			return vg_live_reply(false, "usage: graph [PROPERTY] [--svg]", NULL);
	if (pn && !(own = vg_load_owner(r, pn)))
		return vg_live_reply(false, "no such property", NULL);
	if (!(m = open_memstream(&text, &tlen)))
		return vg_live_reply(false, "out of memory", NULL);
	graphs = json_array();
	for (int k = 0; (o = vg_live_part(r, k)); k++) {
		if (own && o != own)
			continue;
		if (o != r)	/* the run's own are read already */
			vg_run_sync_kernel(o);
		if (one_graph(r, o, m, graphs, svg, &e)) {
			fclose(m);
			free(text);
			json_decref(graphs);
			return vg_live_reply(false, e.msg, NULL);
		}
	}
	fclose(m);
	d = json_pack("{s:o}", "graphs", graphs);
	if (vg_live_last_stop(r, &owner, &prop, &state, &slice))
		json_object_set_new(d, "last_stop", json_pack("{s:s,s:s,s:s}",
			"property", vg_run_spec(owner)->props[prop].name, "state",
			vg_run_spec(owner)->props[prop].states[state].name,
			"slice", slice));
	reply = vg_live_reply(true, text, d);
	free(text);
	return reply;
}

/* The whole monitor state as text: what `kill -USR1` on a running vigil
 * prints (dump.h). */
#include "dump.h"

#include <inttypes.h>
#include <stdlib.h>

#include "report/report.h"

struct count_ctx {
	const struct vg_spec *spec;
	uint64_t *n;		/* [base[prop] + state] */
	const int *base;
};

static void count_one(void *ctx, const struct vg_slice_view *s)
{
	struct count_ctx *c = ctx;

	c->n[c->base[s->prop] + s->state]++;
}

struct print_ctx {
	const struct vg_spec *spec;
	FILE *out;
	int prop, state, cap, shown;
};

static void print_one(void *ctx, const struct vg_slice_view *s)
{
	struct print_ctx *c = ctx;
	const struct vg_property *p = &c->spec->props[s->prop];
	char buf[128];
	int first = 1;

	if (s->prop != c->prop || s->state != c->state || c->shown >= c->cap)
		return;
	c->shown++;
	fputs("    ", c->out);
	if (!p->nparams) {
		fputs("(the one instance)", c->out);
		first = 0;
	}
	for (int i = 0; i < p->nparams; i++) {
		if (!(s->mask & (1u << i)))
			continue;
		vg_format_value(c->spec, p->param_types[i], s->params[i], buf,
				sizeof(buf));
		fprintf(c->out, "%s%s=%s", first ? "" : " ", p->params[i], buf);
		first = 0;
	}
	/* a tombstone (a violation state) keeps no variables */
	for (int i = 0; s->vars && i < p->nvars; i++) {
		vg_format_value(c->spec, p->vars[i].type, (uint64_t)s->vars[i],
				buf, sizeof(buf));
		/* two spaces between the parameters and the variables */
		fprintf(c->out, "%s%s=%s", i ? " " : first ? "" : "  ",
			p->vars[i].name, buf);
	}
	if (s->inconclusive)
		fputs("  (may have missed events)", c->out);
	fputc('\n', c->out);
}

int vg_report_dump(const struct vg_spec *spec, struct vg_monitor *m,
		   FILE *out, int cap, uint32_t pid)
{
	struct count_ctx cc = { .spec = spec };
	int *base = calloc(spec->nprops + 1, sizeof(int)), total = 0;
	char who[32] = "";

	if (!base)
		return -1;
	for (int i = 0; i < spec->nprops; i++) {
		base[i] = total;
		total += spec->props[i].nstates;
	}
	cc.base = base;
	cc.n = calloc(total + 1, sizeof(uint64_t));
	if (!cc.n) {
		free(base);
		return -1;
	}
	vg_monitor_foreach(m, count_one, &cc);
	if (pid)
		snprintf(who, sizeof(who), "pid %u: ", pid);
	for (int i = 0; i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];
		const int64_t *g = vg_monitor_globals(m, i);
		uint64_t live = 0;
		char buf[128];

		for (int s = 0; s < p->nstates; s++)
			live += cc.n[base[i] + s];
		fprintf(out, "vigil: %s%s: %" PRIu64 " live slice%s%s\n", who,
			p->name, live, live == 1 ? "" : "s",
			vg_monitor_prop_inconclusive(m, i)
				? " (inconclusive: some slice may have missed events)"
				: "");
		for (int k = 0; g && k < p->nglobals; k++) {
			vg_format_value(spec, p->globals[k].type,
					(uint64_t)g[k], buf, sizeof(buf));
			fprintf(out, "%s%s=%s%s", k ? " " : "  globals: ",
				p->globals[k].name, buf,
				k + 1 == p->nglobals ? "\n" : "");
		}
		/* one pass over the slices per state that has some: this is
		 * on demand, and keeps no copy of a large store */
		for (int s = 0; s < p->nstates; s++) {
			uint64_t n = cc.n[base[i] + s];
			struct print_ctx pc = { spec, out, i, s, cap, 0 };

			if (!n)
				continue;
			fprintf(out, "  %s (%s): %" PRIu64 "\n",
				p->states[s].name,
				vg_state_kind_name(p->states[s].kind), n);
			vg_monitor_foreach(m, print_one, &pc);
			if (n > (uint64_t)pc.shown)
				fprintf(out, "    ... %" PRIu64 " more\n",
					n - (uint64_t)pc.shown);
		}
	}
	fflush(out);
	free(cc.n);
	free(base);
	return 0;
}

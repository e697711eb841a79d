#include "evidence.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/json.h"

#define DEFAULT_CAP 65536
#define MAX_FRAMES 32

struct entry {
	uint16_t prop, from, to;
	uint32_t mask;
	uint64_t params[VG_MAX_PARAMS];
	struct vg_mon_event ev;
};

struct vg_evidence {
	const struct vg_spec *spec;
	struct entry *ring;
	size_t cap, next, count;
	uint64_t added;		/* ever: vg_evidence_mark */
	int show;
	vg_stack_fn stack;
	void *stack_ctx;
};

struct vg_evidence *vg_evidence_new(const struct vg_spec *spec, size_t cap,
				    int show)
{
	struct vg_evidence *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->spec = spec;
	x->cap = cap ? cap : DEFAULT_CAP;
	x->show = show > 0 ? show : 16;
	x->ring = calloc(x->cap, sizeof(*x->ring));
	if (!x->ring) {
		free(x);
		return NULL;
	}
	return x;
}

void vg_evidence_free(struct vg_evidence *x)
{
	if (!x)
		return;
	free(x->ring);
	free(x);
}

void vg_evidence_set_stacks(struct vg_evidence *x, vg_stack_fn fn, void *ctx)
{
	x->stack = fn;
	x->stack_ctx = ctx;
}

void vg_evidence_add(struct vg_evidence *x, const struct vg_slice_view *s,
		     int from, int to, const struct vg_mon_event *ev)
{
	struct entry *en = &x->ring[x->next];

	en->prop = (uint16_t)s->prop;
	en->from = (uint16_t)from;
	en->to = (uint16_t)to;
	en->mask = s->mask;
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		en->params[i] = s->mask >> i & 1 ? s->params[i] : 0;
	en->ev = *ev;
	x->next = (x->next + 1) % x->cap;
	if (x->count < x->cap)
		x->count++;
	x->added++;
}

uint64_t vg_evidence_mark(const struct vg_evidence *x)
{
	return x->added;
}

void vg_evidence_rewind(struct vg_evidence *x, uint64_t mark)
{
	uint64_t k = x->added > mark ? x->added - mark : 0;

	if (k >= x->count) {	/* the ring went round since: none is left */
		x->count = 0;
	} else {
		x->next = (x->next + x->cap - k) % x->cap;
		x->count -= k;
	}
	x->added = mark;
}

/* Part of s's history: the same property, and a binding s extends (the
 * events of a less specific slice reached s through a join). */
static bool belongs(const struct entry *en, const struct vg_slice_view *s)
{
	if (en->prop != s->prop || (en->mask & ~s->mask))
		return false;
	for (int i = 0; i < VG_MAX_PARAMS; i++)
		if (en->mask >> i & 1 && en->params[i] != s->params[i])
			return false;
	return true;
}

/* The newest `show` entries of s, oldest first, into idx; returns how
 * many, and in *all how many the ring holds. */
static int select_entries(const struct vg_evidence *x,
			  const struct vg_slice_view *s, size_t *idx,
			  size_t *all)
{
	int n = 0;
	const struct entry *last = NULL;

	*all = 0;
	for (size_t k = 0; k < x->count; k++) {
		size_t i = (x->next + x->cap - 1 - k) % x->cap;
		const struct entry *en = &x->ring[i];

		if (!belongs(en, s))
			continue;
		/* One event steps every slice it matches: (a) and, joined,
		 * (a, b) both took it. Show it once, as the most specific
		 * slice saw it (its entries are adjacent: the monitor steps
		 * all slices of an event before the next). */
		if (last && en->ev.seq && en->ev.seq == last->ev.seq &&
		    en->ev.time_ns == last->ev.time_ns) {
			if (n && idx[n - 1] == (size_t)(last - x->ring) &&
			    __builtin_popcount(en->mask) >
			    __builtin_popcount(last->mask))
				idx[n - 1] = i;
			if (__builtin_popcount(en->mask) >
			    __builtin_popcount(last->mask))
				last = en;
			continue;
		}
		last = en;
		if (n < x->show)
			idx[n++] = i;
		(*all)++;
	}
	for (int a = 0, b = n - 1; a < b; a++, b--) {
		size_t t = idx[a];

		idx[a] = idx[b];
		idx[b] = t;
	}
	return n;
}

int vg_evidence_stack_text(struct vg_evidence *x,
			   const struct vg_mon_event *ev, FILE *out,
			   const char *indent)
{
	char lines[MAX_FRAMES][320];
	int n = x->stack ? x->stack(x->stack_ctx, ev, lines, MAX_FRAMES) : 0;

	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s %s\n", indent, i ? "  " : "at", lines[i]);
	return n;
}

void vg_evidence_stack_json(struct vg_evidence *x,
			    const struct vg_mon_event *ev, FILE *out)
{
	char lines[MAX_FRAMES][320];
	int n = x->stack ? x->stack(x->stack_ctx, ev, lines, MAX_FRAMES) : 0;

	fputc('[', out);
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s", i ? "," : "");
		vg_json_str(out, lines[i]);
	}
	fputc(']', out);
}

void vg_evidence_text(struct vg_evidence *x, const struct vg_slice_view *s,
		      FILE *out)
{
	const struct vg_property *p = &x->spec->props[s->prop];
	size_t idx[x->show], all;
	int n = select_entries(x, s, idx, &all);
	uint64_t t0;

	if (!n)
		return;
	t0 = x->ring[idx[0]].ev.time_ns;
	fprintf(out, "  evidence: the last %d of this slice's %zu recorded steps, oldest first%s\n",
		n, all, all >= x->cap ? " (older ones dropped)" : "");
	for (int k = 0; k < n; k++) {
		const struct entry *en = &x->ring[idx[k]];

		fprintf(out, "    %+.6fs tid %u  ",
			(double)(en->ev.time_ns - t0) / 1e9, en->ev.tid);
		vg_event_text(x->spec, out, &en->ev);
		fprintf(out, "  %s -> %s\n", p->states[en->from].name,
			p->states[en->to].name);
		vg_evidence_stack_text(x, &en->ev, out, "        ");
	}
}

void vg_evidence_json(struct vg_evidence *x, const struct vg_slice_view *s,
		      FILE *out)
{
	const struct vg_property *p = &x->spec->props[s->prop];
	size_t idx[x->show], all;
	int n = select_entries(x, s, idx, &all);

	fputc('[', out);
	for (int k = 0; k < n; k++) {
		const struct entry *en = &x->ring[idx[k]];

		fprintf(out, "%s{", k ? "," : "");
		vg_event_json(x->spec, out, &en->ev);
		fputs(",\"from\":", out);
		vg_json_str(out, p->states[en->from].name);
		fputs(",\"to\":", out);
		vg_json_str(out, p->states[en->to].name);
		fputs(",\"stack\":", out);
		vg_evidence_stack_json(x, &en->ev, out);
		fputc('}', out);
	}
	fputc(']', out);
}

void vg_evidence_foreach(struct vg_evidence *x, vg_evidence_visit cb,
			 void *ctx)
{
	for (size_t k = 0; k < x->count; k++) {
		const struct entry *en =
			&x->ring[(x->next + x->cap - 1 - k) % x->cap];

		cb(ctx, en->prop, en->mask, en->params, en->from, en->to,
		   &en->ev);
	}
}

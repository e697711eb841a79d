/* Loss records against the previous check (delta.h). A record's key is
 * its kind and its stack's frames as text, joined: exact, and as stable
 * as the symbols. The checks of one run have tens of records at most in
 * the programs that ask for deltas, so the keys are searched linearly. */
#include "delta.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	char *key;
	uint64_t blocks, bytes, indirect;
	struct vg_leak_stack stack;	/* copies: a gone record shows it */
	char **text;
	bool seen;
};

struct generation {
	struct entry *v;
	size_t n;
	uint64_t blocks[VG_LEAK_NKINDS], bytes[VG_LEAK_NKINDS];
};

struct vg_leak_delta {
	struct generation base;	/* the previous check's */
	struct generation old;	/* the one before: gone records' stacks */
};

static void gen_free(struct generation *g)
{
	for (size_t i = 0; i < g->n; i++) {
		for (int k = 0; k < g->v[i].stack.n; k++)
			free(g->v[i].text[k]);
		free(g->v[i].text);
		free(g->v[i].key);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

struct vg_leak_delta *vg_leak_delta_new(void)
{
	return calloc(1, sizeof(struct vg_leak_delta));
}

void vg_leak_delta_free(struct vg_leak_delta *d)
{
	if (!d)
		return;
	gen_free(&d->base);
	gen_free(&d->old);
	free(d);
}

static char *make_key(enum vg_leak_kind kind, const struct vg_leak_stack *st)
{
	size_t len = 4;
	char *k, *p;

	for (int i = 0; st && i < st->n; i++)
		len += strlen(st->text[i]) + 1;
	if (!(k = malloc(len)))
		return NULL;
	p = k + snprintf(k, len, "%d", (int)kind);
	for (int i = 0; st && i < st->n; i++)
		p += snprintf(p, len - (size_t)(p - k), "\n%s", st->text[i]);
	return k;
}

/* one record's entry of the next generation: its key, counts, stack */
static int entry_fill(struct entry *e, const struct vg_leak_record *x,
		      const struct vg_leak_stack *st)
{
	memset(e, 0, sizeof(*e));
	e->blocks = x->blocks;
	e->bytes = x->bytes;
	e->indirect = x->indirect;
	if (!(e->key = make_key(x->kind, st)))
		return -1;
	if (!st || !st->n)
		return 0;
	if (!(e->text = calloc((size_t)st->n, sizeof(char *))))
		return -1;
	for (int i = 0; i < st->n; i++) {
		if (!(e->text[i] = strdup(st->text[i])))
			return -1;
		e->stack.n = i + 1;
	}
	e->stack.text = (const char *const *)e->text;
	e->stack.frames = NULL;	/* text is all a report needs */
	return 0;
}

static struct entry *find(struct generation *g, const char *key)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].key, key))
			return &g->v[i];
	return NULL;
}

/* the previous check's records r lacks, with no block now */
static int add_gone(struct vg_leak_report *r, struct generation *prev)
{
	size_t gone = 0;
	struct vg_leak_record *v;

	for (size_t i = 0; i < prev->n; i++)
		gone += !prev->v[i].seen && prev->v[i].blocks;
	if (!gone)
		return 0;
	v = realloc(r->rec, ((size_t)r->nrec + gone) * sizeof(*v));
	if (!v)
		return -1;
	r->rec = v;
	/* shown records first, suppressed ones after: make room */
	memmove(&v[r->nshown + gone], &v[r->nshown],
		(size_t)(r->nrec - r->nshown) * sizeof(*v));
	for (size_t i = 0, k = (size_t)r->nshown; i < prev->n; i++) {
		struct entry *e = &prev->v[i];

		if (e->seen || !e->blocks)
			continue;
		memset(&v[k], 0, sizeof(v[k]));
		v[k].kind = (enum vg_leak_kind)atoi(e->key);
		v[k].stack = -1;
		v[k].supp = -1;
		v[k].old_blocks = e->blocks;
		v[k].old_bytes = e->bytes;
		v[k].old_indirect = e->indirect;
		v[k].gone_stack = e->stack.n ? &e->stack : NULL;
		k++;
	}
	r->nrec += (int)gone;
	r->nshown += (int)gone;
	vg_leak_records_sort(r);
	return 0;
}

int vg_leak_delta_apply(struct vg_leak_delta *d, struct vg_leak_report *r,
			const struct vg_leak_stack *stacks, int nstacks,
			enum vg_leak_delta_mode mode)
{
	struct generation next = { 0 };
	int nshown = r->nshown;

	next.v = calloc((size_t)nshown + 1, sizeof(*next.v));
	if (!next.v)
		return -1;
	for (size_t i = 0; i < d->base.n; i++)
		d->base.v[i].seen = false;
	for (int i = 0; i < nshown; i++) {
		struct vg_leak_record *x = &r->rec[i];
		const struct vg_leak_stack *st =
			x->stack >= 0 && x->stack < nstacks ? &stacks[x->stack]
							    : NULL;
		struct entry *e = &next.v[next.n], *o;

		if (entry_fill(e, x, st)) {
			next.n++;
			gen_free(&next);
			return -1;
		}
		next.n++;
		if ((o = find(&d->base, e->key))) {
			o->seen = true;
			x->old_blocks = o->blocks;
			x->old_bytes = o->bytes;
			x->old_indirect = o->indirect;
		}
	}
	memcpy(r->old_blocks, d->base.blocks, sizeof(r->old_blocks));
	memcpy(r->old_bytes, d->base.bytes, sizeof(r->old_bytes));
	memcpy(next.blocks, r->blocks, sizeof(next.blocks));
	memcpy(next.bytes, r->bytes, sizeof(next.bytes));
	if (add_gone(r, &d->base)) {
		gen_free(&next);
		return -1;
	}
	r->delta = mode;
	/* the gone records point into base, which lives one more check */
	gen_free(&d->old);
	d->old = d->base;
	d->base = next;
	return 0;
}

/* The leak property's verdicts at exit from the leak check's classes
 * (leaks_internal.h): the blocks the check at exit (or abort) classed, by
 * address, and the classer user/report/ asks for each heap block's
 * slice. */
#include "leaks_internal.h"

#include <stdlib.h>

#include "leakscan/scan.h"
#include "monitor/monitor.h"
#include "report/report.h"
#include "spec/spec.h"

#define LIBC_OWN VG_LEAK_NKINDS	/* a kind apart in struct leak_class */

struct leak_class {
	uint64_t addr;
	int kind;		/* enum vg_leak_kind, or LIBC_OWN */
};

struct vg_leak_verdicts {
	const struct vg_spec *spec;
	unsigned errors;
	struct leak_class *cls;	/* sorted by address */
	size_t n;
};

struct vg_leak_verdicts *vg_leak_verdicts_new(const struct vg_spec *spec,
					      unsigned errors)
{
	struct vg_leak_verdicts *v = calloc(1, sizeof(*v));

	if (v) {
		v->spec = spec;
		v->errors = errors;
	}
	return v;
}

void vg_leak_verdicts_free(struct vg_leak_verdicts *v)
{
	if (!v)
		return;
	free(v->cls);
	free(v);
}

static int by_addr(const void *x, const void *y)
{
	const struct leak_class *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

int vg_leak_verdicts_set(struct vg_leak_verdicts *v,
			 const struct vg_leak_block *b, const bool *libc,
			 size_t n)
{
	struct leak_class *cls = calloc(n + 1, sizeof(*cls));

	if (!cls)
		return -1;
	for (size_t i = 0; i < n; i++)
		cls[i] = (struct leak_class){
			b[i].addr, libc[i] ? LIBC_OWN : (int)b[i].kind };
	qsort(cls, n, sizeof(*cls), by_addr);
	free(v->cls);
	v->cls = cls;
	v->n = n;
	return 0;
}

bool vg_leak_verdicts_any(const struct vg_leak_verdicts *v)
{
	return v && v->cls;
}

bool vg_leak_verdict_of(void *ctx, const struct vg_slice_view *s,
			struct vg_leak_verdict *out)
{
	const struct vg_leak_verdicts *v = ctx;
	struct leak_class key = { 0 }, *c;
	int size_var;

	if (!v || !v->cls || !(s->mask & 1) ||
	    !vg_leak_block_prop(&v->spec->props[s->prop], &size_var))
		return false;
	key.addr = s->params[0];
	c = bsearch(&key, v->cls, v->n, sizeof(*c), by_addr);
	if (!c)
		return false;
	if (c->kind == LIBC_OWN) {
		*out = (struct vg_leak_verdict){
			"libc", "the C library's own block", false };
		return true;
	}
	out->kind = vg_leak_kind_name(c->kind);
	out->text = vg_leak_kind_text(c->kind);
	out->error = (v->errors >> c->kind) & 1;
	return true;
}

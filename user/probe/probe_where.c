/* Where a spec's function probes go: the object that defines each
 * function (the program, the libraries the loader maps for it, and the
 * --lib libraries it may dlopen), found once per run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"
#include "sym/cxxnames.h"
#include "sym/libs.h"

int vg_probe_libs(struct vg_probe *p, struct vg_err *e)
{
	if (p->libs_loaded)
		return 0;
	if (vg_libs_load_with(p->binary, p->dl_libs, p->ndl_libs, &p->libs, e))
		return -1;
	p->libs_loaded = true;
	return 0;
}

/* A function that cannot be found is the spec's error: say where the spec
 * asked for it (exit status 2). */
int vg_probe_at_spec_line(const struct vg_event *ev, struct vg_err *e)
{
	char tmp[sizeof(e->msg)];

	snprintf(tmp, sizeof(tmp), "%.256s:%d:%d: %.3800s", ev->loc.file,
		 ev->loc.line, ev->loc.col, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s", tmp);
	e->exit_code = VG_EXIT_USAGE;
	return -1;
}

int vg_probe_locate_all(struct vg_probe *p, const struct vg_event *ev,
			const struct vg_func_where **where, size_t *n,
			struct vg_err *e)
{
	struct vg_located *l;
	void *np;

	for (int i = 0; i < p->nlocated; i++)
		if (!strcmp(p->located[i].name, ev->name)) {
			*where = p->located[i].v;
			*n = p->located[i].n;
			return 0;
		}
	/* a bad --lib is the command line's error, not the spec line's */
	if (vg_probe_libs(p, e))
		return -1;
	np = realloc(p->located, (size_t)(p->nlocated + 1) * sizeof(*l));
	if (!np)
		return vg_errf(e, "out of memory");
	p->located = np;
	l = &p->located[p->nlocated];
	memset(l, 0, sizeof(*l));
	if (vg_libs_find_funcs(&p->libs, ev->name, &l->v, &l->n, e))
		return vg_probe_at_spec_line(ev, e);
	if (!(l->name = strdup(ev->name))) {
		free(l->v);
		return vg_errf(e, "out of memory");
	}
	p->nlocated++;
	*where = l->v;
	*n = l->n;
	return 0;
}

int vg_probe_locate(struct vg_probe *p, const struct vg_event *ev,
		    struct vg_func_where *where, struct vg_err *e)
{
	const struct vg_func_where *all;
	size_t n;

	if (vg_probe_locate_all(p, ev, &all, &n, e))
		return -1;
	*where = all[0];
	return 0;
}

void vg_probe_where_free(struct vg_probe *p)
{
	for (int i = 0; i < p->nlocated; i++) {
		free(p->located[i].name);
		free(p->located[i].v);
	}
	free(p->located);
	p->located = NULL;
	p->nlocated = 0;
	if (p->libs_loaded)
		vg_libs_free(&p->libs);
	p->libs_loaded = false;
}

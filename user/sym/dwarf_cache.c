/* A set of open DWARF handles, one per object file, so that planning many
 * probes in the same binary reads its index once (user/sym/dwarf.h). */
#include "dwarf_cache.h"
#include "dwarf.h"

#include <stdlib.h>
#include <string.h>

struct vg_dwarf_cache {
	size_t n, cap;
	struct entry {
		char *path;
		struct vg_dwarf *dw;	/* NULL: not an ELF file we can read */
	} *v;
};

struct vg_dwarf *vg_dwarf_cached(struct vg_dwarf_cache **cp, const char *path)
{
	struct vg_dwarf_cache *c = *cp;
	struct vg_err ignored = { 0 };
	struct entry *en;

	if (!c && !(c = *cp = calloc(1, sizeof(*c))))
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path))
			return c->v[i].dw;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	en = &c->v[c->n];
	if (!(en->path = strdup(path)))
		return NULL;
	en->dw = vg_dwarf_open(path, &ignored);
	c->n++;
	return en->dw;
}

void vg_dwarf_cache_free(struct vg_dwarf_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		vg_dwarf_close(c->v[i].dw);
		free(c->v[i].path);
	}
	free(c->v);
	free(c);
}

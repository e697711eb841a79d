/* A growing byte buffer for files and signatures built in memory before
 * they are written or compared (the caches' files, the early BPF load's
 * signature): appends never fail, an allocation that does sets oom and
 * makes every later append a no-op, so that the caller checks once. */
#ifndef VIGIL_UTIL_BYTEBUF_H
#define VIGIL_UTIL_BYTEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vg_bytebuf {
	uint8_t *p;		/* malloc'd; the caller frees it */
	size_t n, cap;
	bool oom;
};

/* n bytes at v after the rest */
void vg_bytebuf_put(struct vg_bytebuf *b, const void *v, size_t n);

#endif

/* Symbolized values in reports: a pointer that is the address of a global
 * prints as (&A), or (&A+8); one into a heap block vigil saw allocated as
 * (block of 24 bytes from make_node at list.c:12, +16).
 *
 * "Saw allocated": the allocations the loaded specs already probe and
 * that reach user space (a user-tier property's events, or --record):
 * `after malloc(size) returns p`, calloc, realloc, reallocarray,
 * aligned_alloc, memalign, valloc, pvalloc, strdup, strndup; a block is
 * forgotten at `before free(p)` or the realloc that moves it. No probe is
 * added for this. The site is the caller when the event captures its
 * stack (--stacks, a `backtrace` reaction), else the allocator's name. At
 * most 65536 live blocks are kept (past that, new ones are not named). */
#ifndef VIGIL_SESSION_SYMVAL_H
#define VIGIL_SESSION_SYMVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monitor.h"

struct session;
struct vg_symval;

/* NULL when out of memory. Registers itself as the report's namer. */
struct vg_symval *vg_symval_new(struct session *ss);
void vg_symval_free(struct vg_symval *sv);
/* Every user-tier event, before the monitor sees it. */
void vg_symval_event(struct vg_symval *sv, const struct vg_mon_event *ev);
/* The name of value v: "&A", "&A+8", "block of 24 bytes from ..., +16";
 * false when it is neither. */
bool vg_symval_name(void *sv, uint64_t v, char *buf, size_t len);

#endif

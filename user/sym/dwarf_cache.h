/* DWARF handles kept open by path, for many questions about the same
 * objects (every probe of a spec in one binary). Its own header so that
 * code which also includes spec/spec.h can use it: both spec.h and dwarf.h
 * name a struct vg_loc. */
#ifndef VIGIL_SYM_DWARF_CACHE_H
#define VIGIL_SYM_DWARF_CACHE_H

struct vg_dwarf;
struct vg_dwarf_cache;

/* The handle of PATH, opened on first use; NULL when PATH cannot be opened
 * (vg_dwarf_open says why). The cache starts as a NULL pointer and owns
 * the handles it returns. */
struct vg_dwarf *vg_dwarf_cached(struct vg_dwarf_cache **c, const char *path);
void vg_dwarf_cache_free(struct vg_dwarf_cache *c);

#endif

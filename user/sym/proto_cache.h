/* A persistent cache of what vigil learnt from a separate debug file
 * (libc6-dbg's for libc): function prototypes, "not in this DWARF", and
 * "in it, but with no prototype vigil can use" (glibc's assembly string
 * functions, which every spec on memcpy or strlen asks about).
 * Opening and zlib-inflating libc's debug file costs ~40-60 ms on every
 * run for answers that never change while the library does not, so, as
 * gdb's index-cache and debuginfod's cache do, the answers are kept on
 * disk, one file per GNU build-id, under
 *   $VIGIL_CACHE_DIR, else $XDG_CACHE_HOME/vigil, else $HOME/.cache/vigil
 * (VIGIL_CACHE_DIR empty or "off": no cache). A file also records the
 * debug file it was read from (path, size, mtime, inode): type ids in a
 * cached prototype are DIE offsets in that file, valid for later DWARF
 * queries as long as it is the same file. A missing, torn, corrupt or
 * foreign-version cache file is ignored and rewritten; writes are
 * atomic (temporary file, rename); an unwritable directory is silent.
 * For user/sym/dwarf.c and dwarf_func.c. */
#ifndef VIGIL_SYM_PROTO_CACHE_H
#define VIGIL_SYM_PROTO_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"
#include "dwarf.h"

struct vg_proto_cache;

/* The cache directory, or false when the cache is off (or no HOME). */
bool vg_proto_cache_dir(char *buf, size_t len);

/* This vigil: the running executable's build id (answers another build
 * of vigil cached are not used), for the plan's cache too
 * (plan/jump_cache.h) */
const char *vg_proto_cache_vigil(void);

/* The cache of the debug files of build id BUILD_ID (lowercase hex),
 * read from disk if there; NULL when the cache is off or memory is
 * short. Its entries count only once vg_proto_cache_bind agrees. */
struct vg_proto_cache *vg_proto_cache_open(const char *build_id);

/* The debug file the entries on disk were read from, or NULL. */
const char *vg_proto_cache_path(const struct vg_proto_cache *c);

/* Bind to the debug file DEBUG_PATH: true when the entries on disk were
 * read from this same file (path, size, mtime, inode); otherwise they
 * are dropped (and the file rewritten on close) and false. */
bool vg_proto_cache_bind(struct vg_proto_cache *c, const char *debug_path);

enum vg_pc_answer {
	VG_PC_MISS,		/* not cached */
	VG_PC_PROTO,		/* *out filled (to vg_proto_free) */
	VG_PC_ABSENT,		/* the function is not in this DWARF */
	VG_PC_UNUSABLE,		/* it is, with no prototype vigil can use:
				 * *why says why (the cache's string) */
};

/* The answer for function NAME (C may be NULL: a miss). */
enum vg_pc_answer vg_proto_cache_get(struct vg_proto_cache *c,
				     const char *name, struct vg_proto *out,
				     const char **why);

/* Remember an answer: P, or when P is NULL "not in this DWARF" (the
 * message, which names the binary, is the caller's to make: two copies
 * of a binary share a build id). C may be NULL. */
void vg_proto_cache_put(struct vg_proto_cache *c, const char *name,
			const struct vg_proto *p);

/* Remember that NAME's prototype cannot be used, and WHY (a message with
 * no binary's path in it, for the same reason as above) */
void vg_proto_cache_put_unusable(struct vg_proto_cache *c, const char *name,
				 const char *why);

/* The description of type id (vg_dwarf_type's), when cached: the
 * capture of `*p` asks it of a debug file it would otherwise inflate. */
bool vg_proto_cache_get_type(struct vg_proto_cache *c, vg_type_id id,
			     struct vg_type *out);
void vg_proto_cache_put_type(struct vg_proto_cache *c, vg_type_id id,
			     const struct vg_type *t);

/* Write the cache if it learnt something (merging what another vigil
 * wrote meanwhile), and free it. Never fails the run. */
void vg_proto_cache_close(struct vg_proto_cache *c);

#endif

/* The direct branches of a file's executable segment (reloc.h's
 * vg_reloc_jumps), kept on disk: the plan of the in-process tier sweeps
 * a library's whole code for jumps into the bytes a patch replaces
 * (plan_fast.c), a million instructions for libc, ~25 ms of every run's
 * start on the main thread, for an answer that does not change while
 * the file does not. One file per library file under the cache
 * directory of sym/proto_cache.h (VIGIL_CACHE_DIR empty or "off": none),
 *   DIR/jumps/HASH.jumps
 * made for this build of vigil and that file (path, device, inode, size,
 * mtime) and segment; any other, torn or corrupt file is ignored and
 * written again, atomically (a temporary file, rename); a directory that
 * cannot be written is silent. Plan-internal. */
#ifndef VIGIL_PLAN_JUMP_CACHE_H
#define VIGIL_PLAN_JUMP_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "reloc/reloc.h"

/* The branches of [text_off, text_off + text_len) of the file path,
 * whose bytes are text, sorted by target, as vg_reloc_jumps makes them
 * (*out malloc'd): from the cache, else swept and cached. 0, or -1 when
 * out of memory. */
int vg_jump_cache_get(const char *path, const uint8_t *text,
		      uint64_t text_off, uint64_t text_len,
		      struct vg_reloc_jump **out, size_t *n);

#endif

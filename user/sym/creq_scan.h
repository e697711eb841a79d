/* Where a file's code makes valgrind client requests
 * (include/vigil_creq.h): the file offset of the `xchg %rbx,%rbx` after
 * each magic preamble in its executable segments, for the probes of
 * VALGRIND_DO_LEAK_CHECK and the like (user/plan/plan_creq.c). */
#ifndef VIGIL_SYM_CREQ_SCAN_H
#define VIGIL_SYM_CREQ_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* The requests in buf[0..n), a copy of the file from file offset base:
 * base + the index of each xchg into out (up to max); returns how many
 * there are (more than max when out was too small). */
size_t vg_creq_scan_buf(const uint8_t *buf, size_t n, uint64_t base,
			uint64_t *out, size_t max);

/* The requests in the executable PT_LOAD segments of the ELF file path:
 * *out (malloc'd, NULL when none) and *n. -1 with e set when the file
 * cannot be read as ELF. */
int vg_creq_scan_file(const char *path, uint64_t **out, size_t *n,
		      struct vg_err *e);

#endif

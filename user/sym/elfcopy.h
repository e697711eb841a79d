/* Another copy of a probed file: a container's own libc, or its own copy
 * of the program. uprobes are placed by (inode, file offset), so a site
 * computed in one file must be carried to the other: the same offset when
 * both are the same build (GNU build id), else through the function that
 * holds it (its name looked up in the other file). */
#ifndef VIGIL_SYM_ELFCOPY_H
#define VIGIL_SYM_ELFCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

/* The GNU build id of PATH into id (cap bytes): its length, 0 when the
 * file has none, -1 when it cannot be read as ELF. */
int vg_elf_build_id(const char *path, uint8_t *id, size_t cap);

/* Carry n file offsets of FROM into TO (out[i] for offs[i]). Same build
 * id: the same offsets. Otherwise each offset's function (a symbol of
 * FROM holding it) is looked up by name in TO: a function's entry is
 * carried always; a site inside a function only when both copies of it
 * have the same size (else the code differs and no place is sure).
 * *how is set to "same build" or "by symbol". Fails naming the function
 * and both files. */
int vg_elf_carry_offsets(const char *from, const char *to,
			 const uint64_t *offs, uint64_t *out, int n,
			 const char **how, struct vg_err *e);

#endif

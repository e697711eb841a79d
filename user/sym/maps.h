/* A running process's mappings and load addresses.
 *
 * Once the target runs, its link-time addresses (globals, watchpoints)
 * must be moved to run-time ones: vg_maps_* read /proc/PID/maps and give
 * each mapped object's load bias. What the loader will map before the
 * process runs is libs.h's. */
#ifndef VIGIL_SYM_MAPS_H
#define VIGIL_SYM_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/err.h"

struct vg_map {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset mapped at start */
	char perms[5];		/* "r-xp" */
	dev_t dev;
	ino_t ino;		/* 0: anonymous, [heap], [stack], ... */
	char *path;		/* NULL when anonymous; " (deleted)" kept */
};

struct vg_maps {
	pid_t pid;
	size_t n;
	struct vg_map *v;
};

/* Read /proc/PID/maps. */
int vg_maps_read(pid_t pid, struct vg_maps *out, struct vg_err *e);
void vg_maps_free(struct vg_maps *m);

/* A mapped ELF object and its load bias: run-time address = link-time
 * address (st_value, DW_AT_low_pc, DW_OP_addr) + bias. 0 for a non-PIE
 * executable. */
struct vg_object {
	char *path;
	dev_t dev;
	ino_t ino;
	uint64_t start;		/* lowest mapped address */
	uint64_t bias;
};

struct vg_objects {
	size_t n;
	struct vg_object *v;
};

/* Every ELF file mapped in the process (the executable, ld.so, each
 * library), in address order. Files that are not ELF (a mapped data file,
 * locale archives) are left out. */
int vg_maps_objects(const struct vg_maps *m, struct vg_objects *out,
		    struct vg_err *e);
void vg_objects_free(struct vg_objects *o);

/* The load bias of BINARY (matched by device and inode, so any path to
 * the same file works) in the process: for a PIE, the load base. Fails
 * naming the binary and the pid when it is not mapped there. */
int vg_maps_load_bias(const struct vg_maps *m, const char *binary,
		      uint64_t *bias, struct vg_err *e);

/* The run-time address of file offset off of the file at path: in the
 * executable mapping of it that holds that offset, matched as
 * vg_maps_load_bias matches (device and inode, or the real path); 0 when
 * none does. */
uint64_t vg_maps_file_vaddr(const struct vg_maps *m, const char *path,
			    uint64_t off);

/* The same from the pid alone, for `vigil attach -p PID`. */
int vg_proc_load_bias(pid_t pid, const char *binary, uint64_t *bias,
		      struct vg_err *e);

/* The shared objects mapped in pid, other than its executable, that are
 * still on disk as they were mapped (the same device and inode at their
 * path): for `vigil attach`, the libraries a running program dlopen'ed,
 * which its DT_NEEDED do not name. *paths gets n malloc'ed paths (free
 * them with vg_paths_free). */
int vg_proc_mapped_libs(pid_t pid, char ***paths, size_t *n,
			struct vg_err *e);
void vg_paths_free(char **paths, size_t n);

#endif

/* Shared libraries: which file defines a probed function.
 *
 * Before the target runs, vigil must know which file defines a probed
 * function: `before malloc(n)` is a uprobe on libc.so.6, not on the
 * program. vg_libs_load works out the libraries the dynamic loader will
 * map, the way ld.so does it, without running anything; vg_libs_find_func
 * then searches them in the loader's symbol-lookup order.
 *
 * The addresses of a running process (load biases) are maps.h's. */
#ifndef VIGIL_SYM_LIBS_H
#define VIGIL_SYM_LIBS_H

#include <limits.h>
#ifndef PATH_MAX
#include <linux/limits.h>
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/err.h"
#include "elf.h"

struct vg_lib {
	char *needed;		/* the DT_NEEDED string ("libc.so.6");
				 * for v[0], the binary as given */
	char *path;		/* where the loader finds it; NULL: nowhere
				 * (the program would not start) */
	const char *how;	/* "rpath", "LD_LIBRARY_PATH", "runpath",
				 * "ld.so.cache", "default", "path" (a
				 * DT_NEEDED with a slash), "interp"
				 * (PT_INTERP), "binary", "--lib" (named by
				 * the user: the program may dlopen it);
				 * NULL when not found */
	size_t loader;		/* index of the object that needed it */
	dev_t dev;		/* of path: matches /proc/PID/maps entries */
	ino_t ino;
};

/* v[0] is the binary; then every library it loads, directly or not, in
 * breadth-first order: the loader's load order, which is also the order in
 * which it looks symbols up. From v[nloaded] on, the libraries the user
 * said the program may load with dlopen (--lib), in the order given. */
struct vg_libs {
	size_t n;
	size_t nloaded;		/* v[0 .. nloaded): the loader's */
	struct vg_lib *v;
};

/* Resolve the libraries of BINARY as ld.so would: for each DT_NEEDED of an
 * object, DT_RPATH of the object and of the objects that loaded it (only
 * when the object has no DT_RUNPATH), LD_LIBRARY_PATH, the object's
 * DT_RUNPATH, /etc/ld.so.cache, then /lib/x86_64-linux-gnu,
 * /usr/lib/x86_64-linux-gnu, /lib, /usr/lib ($ORIGIN, $LIB and $PLATFORM
 * expanded; files of another ELF class or machine skipped, as ld.so does).
 * A library that cannot be found is kept with path NULL: the caller
 * decides whether that matters. Not modelled: glibc-hwcaps
 * subdirectories, LD_PRELOAD, dlopen (vg_libs_load_with names those).
 * Fails only when BINARY is unreadable or not an ELF file. */
int vg_libs_load(const char *binary, struct vg_libs *out, struct vg_err *e);

/* The same, then the libraries the program may load with dlopen, which
 * nothing in its files names (--lib): a path with a slash as it is (from
 * vigil's working directory), a bare name where dlopen from the program
 * would look for it. Their own DT_NEEDED are not followed; one the
 * loader maps anyway is not added twice. Fails (VG_EXIT_USAGE) naming a
 * library that cannot be found or read, or is not an x86-64 shared
 * library. A uprobe on such a file, attached before the program maps it,
 * fires once it does (the kernel puts the breakpoints into every new
 * mapping of the file), across dlclose and dlopen again. */
int vg_libs_load_with(const char *binary, const char *const *dlopened,
		      size_t ndlopened, struct vg_libs *out,
		      struct vg_err *e);
void vg_libs_free(struct vg_libs *libs);

/* A function and the object that defines it. */
struct vg_func_where {
	size_t obj;		/* index into vg_libs.v; 0: the binary */
	char path[PATH_MAX];	/* of that object: attach the uprobe here */
	struct vg_func fn;	/* offset is a file offset in path */
	char sym[256];		/* the symbol found, as in the table
				 * (_ZN5Queue4pushEi for Queue::push(int));
				 * "" when DWARF alone had the function */
};

/* Which object defines NAME, in the loader's order: the binary (.symtab,
 * .dynsym), then each library's exported symbols (.dynsym, default
 * version), then the libraries' local symbols when they are not stripped;
 * then the same two for the --lib libraries; then DWARF (the binary's,
 * then the libraries' debug files, --lib ones last) for functions that
 * have no symbol. malloc -> /lib/x86_64-linux-gnu/libc.so.6. On failure,
 * e says why (inlined everywhere, only compiler clones, or found nowhere,
 * naming the binary and how many libraries were searched, with a hint
 * about --lib). */
int vg_libs_find_func(const struct vg_libs *libs, const char *name,
		      struct vg_func_where *out, struct vg_err *e);

#endif

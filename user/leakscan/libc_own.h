/* Which blocks the C library allocated for itself: the rule the leak check
 * (--leak-check's loss records) and the leak property's verdict at exit
 * share (user/leaks/leaks.c). memcheck frees such blocks at exit
 * (__libc_freeres) before it looks; LeakSanitizer ignores them too.
 *
 * A block is the C library's own when every frame of its allocation stack
 * (from the allocator's caller out) is in the C library or the dynamic
 * loader, and the scan found it still reachable: it is kept by the
 * library's data (stdio's buffers, locale and time zone data, the
 * loader's link maps), not lost. The second half is needed because the
 * stacks are walked by frame pointers, which glibc does not keep: a
 * program's own strdup or fopen often shows glibc's frames alone (the
 * caller's frame is skipped), and a lost block must stay a leak. */
#ifndef VIGIL_LEAKSCAN_LIBC_OWN_H
#define VIGIL_LEAKSCAN_LIBC_OWN_H

#include <stdbool.h>

#include "leakscan/scan.h"
#include "leakscan/suppress.h"

/* Is obj (a path) the C library or the dynamic loader: libc.so.*,
 * ld-linux*.so.*, ld.so, and the libraries glibc splits off (libpthread,
 * libdl, librt, libresolv, libnss_*, libm)? */
bool vg_leak_libc_object(const char *obj);

/* Are frames f[0..n) (innermost first, the allocator's own frame left
 * out) all in the C library? n == 0 (no stack known) and a frame whose
 * object is unknown: false. */
bool vg_leak_libc_stack(const struct vg_leak_frame *f, int n);

/* The rule above: a block of kind k allocated at f[0..n) */
bool vg_leak_libc_own(const struct vg_leak_frame *f, int n,
		      enum vg_leak_kind k);

#endif

/* Linux x86-64 system calls by name, for `syscall openat(dirfd, path)`
 * events. The table is generated at build time from the kernel headers
 * (build/syscall_names.h, see the Makefile). */
#ifndef VIGIL_PROBE_SYSCALLS_H
#define VIGIL_PROBE_SYSCALLS_H

/* The number of system call NAME, or -1 when there is none. */
int vg_syscall_nr(const char *name);

/* Up to max names close to NAME (at most two edits away, or starting with
 * it), for "did you mean"; returns how many. */
int vg_syscall_similar(const char *name, const char **out, int max);

#endif

/* Getting code and a shared region into a stopped target, and patching
 * it, with ptrace alone (as a debugger does): no relinking, no
 * LD_PRELOAD, no compel. The in-process tier (include/vigil_fast.h) puts
 * its agent's code and its region into the target through these.
 *
 * Every thread of the target is stopped (seized) between vg_inject_seize
 * (or vg_inject_run_to_entry) and vg_inject_release; every call restores
 * the registers and bytes it changed, on its error paths too. */
#ifndef VIGIL_FAST_INJECT_H
#define VIGIL_FAST_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct vg_inject;

/* Seize every thread of pid (PTRACE_SEIZE + PTRACE_INTERRUPT, again until
 * /proc/pid/task shows no new thread): all stopped when it returns. A
 * target in a group stop (SIGSTOP) is left in it by vg_inject_release. */
int vg_inject_seize(pid_t pid, struct vg_inject **out, struct vg_err *e);

/* The program vigil forked (vg_proc_spawn_stopped: stopped before its
 * exec) run to its entry point (AT_ENTRY: every DT_NEEDED library mapped,
 * relocated, its constructors run) and held there, seized. */
int vg_inject_run_to_entry(pid_t pid, struct vg_inject **out,
			   struct vg_err *e);

/* Detach from every thread, leaving each as it was: running, or in the
 * group stop it was in. Frees in. */
void vg_inject_release(struct vg_inject *in);

pid_t vg_inject_pid(const struct vg_inject *in);

/* A system call run in the target's first seized thread (its leader when
 * it has one): *ret gets its result (a negative errno when the call
 * itself failed); -1 and e only when the injection failed. */
int vg_inject_syscall(struct vg_inject *in, long *ret, long nr, long a1,
		      long a2, long a3, long a4, long a5, long a6,
		      struct vg_err *e);

/* Memory of the target, through /proc/pid/mem (a debugger's FOLL_FORCE
 * access: read-only text is written too, copied on write). */
int vg_inject_write(struct vg_inject *in, uint64_t addr, const void *buf,
		    size_t len, struct vg_err *e);
int vg_inject_read(struct vg_inject *in, uint64_t addr, void *buf,
		   size_t len, struct vg_err *e);

/* mmap in the target: len bytes, prot, flags (MAP_PRIVATE|MAP_ANONYMOUS,
 * say), fd at offset 0; near != 0: the whole mapping within ±1.5 GB of
 * near (a jmp rel32 reaches it), in a hole of /proc/pid/maps, placed with
 * MAP_FIXED_NOREPLACE. *addr gets the address. */
#define VG_INJECT_NEAR_SPAN (3ull << 29)	/* 1.5 GB */
int vg_inject_mmap_near(struct vg_inject *in, uint64_t near, size_t len,
			int prot, int flags, int fd, uint64_t *addr,
			struct vg_err *e);

/* A region shared by vigil and the target: a memfd created in the target,
 * mapped MAP_SHARED there (*remote) and here (*local, len bytes, munmap
 * it when done); the target's descriptor is closed, its mapping stays. */
int vg_inject_shared(struct vg_inject *in, size_t len, uint64_t *remote,
		     void **local, struct vg_err *e);

/* Write n patches (bytes[i], len[i] bytes at addr[i]) once no seized
 * thread's pc lies strictly inside (addr[i], addr[i] + len[i]) nor in
 * [busy_lo, busy_hi) (the stubs, when unpatching; busy_hi <= busy_lo: no
 * such range): a thread there is single-stepped out, up to a bound; a
 * thread that does not leave fails the call with its tid and pc. */
int vg_inject_patch(struct vg_inject *in, const uint64_t *addr,
		    const uint8_t *const *bytes, const uint32_t *len, int n,
		    uint64_t busy_lo, uint64_t busy_hi, struct vg_err *e);

/* How vg_inject_patch gets a thread out of a range instead of stepping
 * it: where(ctx, pc) is an address where the thread goes on as it would
 * from pc (the same instructions, moved), 0 when none. A step ends in a
 * SIGTRAP stop, and a thread let go in one (vigil killed) gets the
 * SIGTRAP; a move has no such moment. */
void vg_inject_set_mover(struct vg_inject *in,
			 uint64_t (*where)(void *ctx, uint64_t pc), void *ctx);

/* Step every seized thread until neither its pc nor the system call it
 * would restart lies in any [lo[i], hi[i]) (code about to be unmapped),
 * as vg_inject_patch does for the bytes it patches; the same bounds and
 * errors. */
int vg_inject_step_clear(struct vg_inject *in, const uint64_t *lo,
			 const uint64_t *hi, int n, struct vg_err *e);

/* Seized thread i: its tid and pc (0 when it is gone); -1 past the
 * last */
int vg_inject_thread(struct vg_inject *in, int i, pid_t *tid, uint64_t *pc);

/* The offset of glibc's struct pthread tid from the thread pointer (fs
 * base), from libc's _thread_db_pthread_tid descriptor, checked against
 * every seized thread's tid. */
int vg_inject_tid_offset(struct vg_inject *in, uint32_t *off,
			 struct vg_err *e);

#endif

/* System calls without libc, and the reads of target memory that must not
 * fault: a pointer a capture follows may be anything, and the agent runs
 * on the target's threads, where a fault is the target's crash. */
#include "agent.h"

#define NR_process_vm_readv 310
#define NR_tgkill 234
#define NR_sched_yield 24
#define NR_futex 202
#define FUTEX_WAIT 0	/* not _PRIVATE: the region is vigil's mapping too */
#define FUTEX_WAKE 1

VG_HIDDEN long vg_sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

struct vg_iovec {
	__u64 base, len;
};

/* Is [src, src + n) between the agent's own frame and the top of the
 * stack it runs on? Then it is mapped: a plain copy cannot fault. The
 * captures of a caller's out-parameter (sqlite3_prepare's `*s`) are
 * there, and a system call an event is most of the tier's cost. Only the
 * main thread's stack is known (vigil wrote its mapping at install: it
 * grows down but never shrinks); on another stack (a thread's, a
 * coroutine's, sigaltstack) sp is outside it and the read goes through
 * the kernel. */
static int on_own_stack(const struct vg_fast_shared *sh, __u64 src, __u64 n)
{
	__u64 sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp >= sh->stack_lo && sp < sh->stack_hi && src >= sp &&
	       src < sh->stack_hi && n <= sh->stack_hi - src;
}

/* n bytes at src in this process: on the agent's own stack a copy, else
 * through process_vm_readv on its own pid, where the kernel reports a bad
 * address instead of a SIGSEGV. 0 or -1. */
VG_HIDDEN int vg_read_mem(const struct vg_fast_shared *sh, void *dst,
			  __u64 src, __u64 n)
{
	struct vg_iovec l = { (__u64)dst, n }, r = { src, n };

	if (on_own_stack(sh, src, n)) {
		vg_memcpy(dst, (const void *)src, n);
		return 0;
	}
	return vg_sys6(NR_process_vm_readv, vg_me((struct vg_fast_shared *)sh),
		       (long)&l, 1, (long)&r, 1, 0) == (long)n ? 0 : -1;
}

VG_HIDDEN void vg_kill_thread(__u32 tgid, __u32 tid, int sig)
{
	vg_sys6(NR_tgkill, tgid, tid, sig, 0, 0, 0);
}

/* the CPU to another thread: one holding a lock we want, most likely */
VG_HIDDEN void vg_yield(void)
{
	vg_sys6(NR_sched_yield, 0, 0, 0, 0, 0, 0);
}

/* Sleeps while *word is val, ns at most (a wake, a signal or a change
 * before the sleep end it sooner) */
VG_HIDDEN void vg_futex_wait(__u32 *word, __u32 val, __u64 ns)
{
	struct { long sec, nsec; } ts = { (long)(ns / 1000000000ull),
					  (long)(ns % 1000000000ull) };

	vg_sys6(NR_futex, (long)word, FUTEX_WAIT, val, (long)&ts, 0, 0);
}

VG_HIDDEN void vg_futex_wake(__u32 *word)
{
	vg_sys6(NR_futex, (long)word, FUTEX_WAKE, 1, 0, 0, 0);
}

/* Has thread tid of process tgid ended? tgkill's signal 0 checks, sends
 * nothing: ESRCH when there is no such thread any more. */
VG_HIDDEN int vg_thread_gone(__u32 tgid, __u32 tid)
{
	return vg_sys6(NR_tgkill, tgid, tid, 0, 0, 0, 0) == -3 /* ESRCH */;
}

/* The compiler may still emit calls to these for a structure's copy or
 * zeroing, freestanding or not (GCC documents it): here they are. */
VG_HIDDEN void *memset(void *d, int c, unsigned long n)
{
	vg_memset(d, c, n);
	return d;
}

VG_HIDDEN void *memcpy(void *d, const void *s, unsigned long n)
{
	vg_memcpy(d, s, n);
	return d;
}

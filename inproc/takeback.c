/* vigil gone: the agent takes this process's patches back, writing each
 * patched function's original bytes over its jmp, when it can do so
 * safely; else they stay, inert (every call goes through its stub and
 * the agent's liveness check, which records nothing).
 *
 * The rule. Rewriting code another thread may be executing at that
 * moment (cross-modifying code) is not safe: a thread may fetch half old,
 * half new bytes, or run the page while it is not executable. So the
 * bytes are written only when no other thread can run them:
 *
 *   - the process has exactly one thread ("Threads:" in
 *     /proc/self/status), the one doing it, which is in the agent, not in
 *     any patch; nothing else can make a thread while it is here, since
 *     every signal is blocked first (a handler could call
 *     pthread_create, or the patched function itself, halfway through
 *     the bytes);
 *   - this process is the one whose tgid the agent's private page holds
 *     (getpid): a vfork child shares its parent's memory, and its own
 *     "Threads: 1" says nothing of the parent's threads;
 *   - no seccomp filter, which could kill the process on a system call
 *     it does not expect: none when vigil installed the tier (its
 *     `seccomp` in the region: then not even these checks' calls are
 *     made), none now (Seccomp: 0, read once the file is open: a filter
 *     installed after vigil's install that kills on openat is the one
 *     case this cannot see);
 *   - the bytes at the function are still exactly the patch vigil wrote
 *     (read through process_vm_readv, which cannot fault): a library
 *     unloaded and something else mapped there, or a breakpoint of gdb's
 *     in them, and the function is left.
 *
 * A thread's pc can only be at a patch's first byte (the jmp is one
 * instruction, and the install refused functions with a jump into the
 * bytes it covers), an instruction boundary of the original bytes too;
 * a relocated copy jumps back to fn + patch_len, another; so once
 * written, every path through the function is the original's. The
 * stubs and the agent stay mapped: a thread may owe a return to a
 * return stub.
 *
 * With more threads the patches stay as they are, and the agent tries
 * again later (every 256th call seen with vigil gone, at most every
 * RETRY_NS): a program whose workers end may have one thread again. A
 * forked child not followed (it never records) is not here: it keeps
 * its inert patches. A process sharing its memory without being one of
 * its threads (clone(CLONE_VM) without CLONE_THREAD, but for vfork) is
 * not seen by this rule.
 *
 * The page is made RWX (its protection plus write), written, and given
 * its protection back, as /proc/self/maps says it is now: if the second
 * mprotect failed, the page stays executable and the target runs on.
 * Any failure leaves the function as it was. Exactly one thread of the
 * process does it: a CAS on `back` in the agent's private page
 * (vigil_fast.h, struct vg_fast_threads_hdr), which a fork wipes, so a
 * followed child takes back its own copy of the code. */
#include "agent.h"

#define NR_read 0
#define NR_close 3
#define NR_mprotect 10
#define NR_rt_sigprocmask 14
#define NR_getpid 39
#define NR_openat 257
#define AT_FDCWD (-100)
#define O_RDONLY_CLOEXEC 02000000
#define SIG_SETMASK 2
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define PAGE 4096ull
#define RETRY_NS 50000000ull	/* 50 ms */
#define CLOCK_MONOTONIC 1

enum { AGAIN, DONE };

struct vg_ts {
	long sec, nsec;
};

/* as inproc/event.c's: the vDSO's clock, through vigil's pointer */
static __u64 now(struct vg_fast_shared *sh)
{
	int (*cg)(int, struct vg_ts *) = (int (*)(int, struct vg_ts *))
						 sh->clock_gettime;
	struct vg_ts ts;

	if (!cg || cg(CLOCK_MONOTONIC, &ts))
		return 0;
	return (__u64)ts.sec * 1000000000ull + (__u64)ts.nsec;
}

/* Each line of a /proc file, its first 63 characters as a string, to
 * fn; fn returns non-zero to stop. -1: the file could not be read. A
 * small buffer: this runs on the target's thread, whose stack may be
 * small. */
typedef int (*line_fn)(void *ctx, const char *line);

static int each_line(const char *path, line_fn fn, void *ctx)
{
	char buf[256], line[64];
	__u32 n = 0;
	long fd, got;

	fd = vg_sys6(NR_openat, AT_FDCWD, (long)path, O_RDONLY_CLOEXEC, 0, 0,
		     0);
	if (fd < 0)
		return -1;
	while ((got = vg_sys6(NR_read, fd, (long)buf, sizeof(buf), 0, 0,
			      0)) > 0) {
		for (long i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (n < sizeof(line) - 1)
					line[n++] = buf[i];
				continue;
			}
			line[n] = 0;
			n = 0;
			if (fn(ctx, line))
				goto done;
		}
	}
done:
	vg_sys6(NR_close, fd, 0, 0, 0, 0, 0);
	return got < 0 ? -1 : 0;
}

static int starts(const char *s, const char *with)
{
	while (*with)
		if (*s++ != *with++)
			return 0;
	return 1;
}

/* the decimal number after s's blanks; -1: none */
static long number(const char *s)
{
	long v = 0;
	int any = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s >= '0' && *s <= '9'; s++, any = 1)
		v = v * 10 + (*s - '0');
	return any ? v : -1;
}

struct status {
	long threads, seccomp;
};

static int status_line(void *ctx, const char *line)
{
	struct status *st = ctx;

	if (starts(line, "Threads:"))
		st->threads = number(line + 8);
	else if (starts(line, "Seccomp:"))
		st->seccomp = number(line + 8);
	return st->threads >= 0 && st->seccomp >= 0;
}

static const char *hex(const char *s, __u64 *v)
{
	*v = 0;
	for (;; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0)
			return s;
		*v = *v << 4 | (__u64)d;
	}
}

/* The protection now of each hook in `want`: the mapping that holds its
 * whole patch (one mapping, or none: left) */
struct prots {
	struct vg_fast_shared *sh;
	__u64 want;
	__u8 prot[VG_FAST_MAX_HOOKS];	/* PROT_*, 0x80: found */
};

static int maps_line(void *ctx, const char *line)
{
	struct prots *p = ctx;
	__u64 lo, hi;
	const char *s = hex(line, &lo);
	__u8 prot;

	if (*s != '-')
		return 0;
	s = hex(s + 1, &hi);
	if (*s != ' ' || !s[1] || !s[2] || !s[3])
		return 0;
	prot = 0x80 | (s[1] == 'r' ? PROT_READ : 0) |
	       (s[2] == 'w' ? PROT_WRITE : 0) | (s[3] == 'x' ? PROT_EXEC : 0);
	for (__u32 i = 0; i < VG_FAST_MAX_HOOKS; i++) {
		const struct vg_fast_hook *hk = &p->sh->hooks[i];

		if ((p->want >> i & 1) && hk->fn >= lo &&
		    hk->fn + hk->patch_len <= hi)
			p->prot[i] = prot;
	}
	return 0;
}

/* Is hook i's patch in place, byte for byte? */
static int patched(struct vg_fast_shared *sh, const struct vg_fast_hook *hk)
{
	__u8 cur[16];

	if (hk->patch_len < 5 || hk->patch_len > sizeof(cur) || !hk->fn ||
	    hk->patch[0] != 0xe9)
		return 0;
	if (vg_read_mem(sh, cur, hk->fn, hk->patch_len))
		return 0;
	for (__u32 k = 0; k < hk->patch_len; k++)
		if (cur[k] != hk->patch[k])
			return 0;
	return 1;
}

static void write_back(const struct vg_fast_hook *hk, __u8 prot)
{
	__u64 lo = hk->fn & ~(PAGE - 1),
	      hi = (hk->fn + hk->patch_len + PAGE - 1) & ~(PAGE - 1);
	volatile __u8 *fn = (volatile __u8 *)hk->fn;

	prot &= PROT_READ | PROT_WRITE | PROT_EXEC;
	if (vg_sys6(NR_mprotect, (long)lo, (long)(hi - lo),
		    prot | PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0))
		return;
	for (__u32 k = 0; k < hk->patch_len; k++)
		fn[k] = hk->orig[k];
	vg_sys6(NR_mprotect, (long)lo, (long)(hi - lo), prot, 0, 0, 0);
}

/* Signals blocked, the rule checked, the bytes written */
static int take_back(struct vg_fast_shared *sh)
{
	struct status st = { -1, -1 };
	struct prots p = { sh, 0, { 0 } };
	__u32 n = sh->nhooks < VG_FAST_MAX_HOOKS ? sh->nhooks
						  : VG_FAST_MAX_HOOKS;

	if (each_line("/proc/self/status", status_line, &st))
		return AGAIN;	/* (no fd left, say: it may come back) */
	/* (no Seccomp line: a kernel without seccomp) */
	if (st.seccomp > 0 || st.threads < 0)
		return DONE;
	if (st.threads != 1)
		return AGAIN;
	for (__u32 i = 0; i < n; i++)
		if (patched(sh, &sh->hooks[i]))
			p.want |= 1ull << i;
	if (!p.want || each_line("/proc/self/maps", maps_line, &p))
		return DONE;
	for (__u32 i = 0; i < n; i++)
		if ((p.want >> i & 1) && (p.prot[i] & 0x80))
			write_back(&sh->hooks[i], p.prot[i]);
	return DONE;
}

VG_HIDDEN void vg_take_back(struct vg_fast_shared *sh)
{
	struct vg_fast_threads_hdr *th = vg_at(sh, sh->threads_off);
	__u32 none = VG_BACK_NONE;
	__u64 all = ~0ull, old, t = now(sh);
	int r = AGAIN;

	if (t < __atomic_load_n(&th->back_next, __ATOMIC_RELAXED))
		return;
	if (!__atomic_compare_exchange_n(&th->back, &none, VG_BACK_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;	/* done, or at it (a signal handler's call) */
	if (__atomic_load_n(&sh->seccomp, __ATOMIC_RELAXED))
		r = DONE;	/* not even the checks' system calls */
	else if ((__u32)vg_sys6(NR_getpid, 0, 0, 0, 0, 0, 0) ==
		    __atomic_load_n(&th->tgid, __ATOMIC_RELAXED) &&
	    !vg_sys6(NR_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8,
		     0, 0)) {
		r = take_back(sh);
		vg_sys6(NR_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
	}
	__atomic_store_n(&th->back_next, t + RETRY_NS, __ATOMIC_RELAXED);
	__atomic_store_n(&th->back, r == DONE ? VG_BACK_DONE : VG_BACK_NONE,
			 __ATOMIC_RELEASE);
}

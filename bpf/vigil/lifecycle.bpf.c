// SPDX-License-Identifier: GPL-2.0
/* Events from tracepoints: exit(code), signal(sig), thread_start,
 * thread_exit, syscall name(args). They go to the user tier only. The target's
 * forks and execs are reported (VG_REC_PROC) whatever the spec.
 *
 * Each program serves one event kind, so instead of a BPF cookie the event
 * index comes from a constant user space sets before loading (-1: the
 * spec does not use it). They are read-only data (.rodata), which the
 * verifier reads: the handle() of an event the spec does not use is dead
 * code it never walks. In .data, vg_exit's two inlined handle()s cost it
 * 51,097 verified instructions; the early load of vg_kstep (user/probe/
 * split_load.c) compares .rodata byte for byte, so vg_probe_early_start
 * sets these from the spec as vg_probe_open does. */
#include "vigil.bpf.h"

const volatile __s32 ev_exit = -1, ev_signal = -1, ev_thread_start = -1,
		     ev_thread_exit = -1;
/* a fault in a watched (freed) block: the event vigil adds for it
 * (user/watchset/callacc.c); -1: none */
const volatile __s32 ev_fault = -1;

/* the target's wait status, once its last thread has exited (user space
 * reads it for a process it attached to: only the parent can wait) */
__u32 target_exited = 0;
__s32 target_exit_status = 0;
/* and when (bpf_ktime_get_ns): the user tier's clock for the target's
 * timeouts stops there (user/session/timeouts.c) */
__u64 target_exit_ns = 0;
/* watchpoints need the program's load address: stop the target at the
 * exec that starts it, once, so user space can arm them before any of
 * its code runs */
__u32 stop_at_exec = 0;

/* --follow-fork, per-process probes (user/probe/probe_follow.c): a followed
 * process's fork stops the child before it runs any of its code, until
 * user space has attached the child's own probes. fork_stop_ok: the kernel
 * has bpf_send_signal_task (6.13), set before load, so that without it
 * the call is dead code; fork_stop: user space clears it before it lets
 * the held children go at its end. */
extern int bpf_send_signal_task(struct task_struct *task, int sig,
				enum pid_type type, __u64 value) __ksym __weak;
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;
const volatile __u32 fork_stop_ok = 0;
__u32 fork_stop = 0;
/* vigil watch (user/watch/watch_session.c): a process that execs this
 * file (its inode and device as the kernel encodes it; 0: not watching)
 * is followed from its first instruction: held at the exec like a
 * followed fork's child, until user space has attached its probes */
__u64 watch_ino = 0;
__u32 watch_dev = 0;
/* vigil watch --lib-mapped: the same for a process that maps this file
 * executable (the loader mapping a library's text, or dlopen) */
__u64 watch_lib_ino = 0;
__u32 watch_lib_dev = 0;
/* vigil watch --same-build: a process that execs a file of this name
 * (another copy: a container's, another layer's) is held as well; user
 * space compares its build id and follows it or lets it go at once */
char watch_name[64] = {};

/* One lifecycle event's slots, as a global function's argument (the
 * verifier sizes the memory behind the pointer by its type). */
struct vg_life_slots {
	__u64 v[VG_NSLOTS];
};

/* A lifecycle event into handle() (ctx NULL: no user stack to walk).
 * A global function, which the verifier checks once per program, not from
 * each call site's state: inlined, vg_exit's two handle()s (thread_exit,
 * then exit) walked the second from every state the first left, 50,788
 * instructions against 11,108 for one. */
__noinline int vg_life_event(__u32 event, __u32 tid, struct vg_life_slots *s)
{
	if (!s)
		return 0;
	return handle(NULL, event, tid, s->v, false, false);
}

#define VG_SIGBUS 7
#define VG_SIGSEGV 11
#define VG_X86_TRAP_PF 14

/* A SIGSEGV or SIGBUS the kernel raised for an access (si_code > 0, not a
 * kill(2)): where, whether it was a write (x86's page-fault error code,
 * bit 1, which the fault handler left in the thread), and the faulting
 * instruction. User space checks the address against the freed blocks
 * (user/session/fault.c): memcheck keeps freed memory mapped, so a
 * program that dies natively of an access to a block glibc unmapped at
 * free still gets its use after free reported, at that instruction. */
static __always_inline void fault(void *ctx, int sig,
				  struct kernel_siginfo *info, __u32 tid)
{
	struct vg_life_slots s = { .v = { (__u64)sig } };
	__u64 *slot = s.v;
	struct task_struct *t;
	struct pt_regs *regs;

	if ((sig != VG_SIGSEGV && sig != VG_SIGBUS) || !info ||
	    BPF_CORE_READ(info, si_code) <= 0)
		return;
	t = bpf_get_current_task_btf();
	slot[1] = (__u64)BPF_CORE_READ(info, _sifields._sigfault._addr);
	if (BPF_CORE_READ(t, thread.trap_nr) == VG_X86_TRAP_PF)
		slot[2] = BPF_CORE_READ(t, thread.error_code) >> 1 & 1;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	slot[3] = regs ? BPF_CORE_READ(regs, ip) : 0;
	/* the stack of the access (the plan asks for it: VG_EVF_STACK), by
	 * build id: the process is gone by the time it is symbolized */
	slot[VG_SLOT_STACK] = (__u64)stack_id(ctx, tid);
	vg_life_event(ev_fault, tid, &s);
}

/* signal_deliver fires in get_signal() as the signal is delivered, before
 * a handler or the default action (core dump, termination) runs. */
SEC("tp_btf/signal_deliver")
int BPF_PROG(vg_signal, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct vg_life_slots s = { .v = { (__u64)sig } };
	__u32 tid;

	if ((ev_signal < 0 && ev_fault < 0) || !is_target(&tid))
		return 0;
	if (ev_fault >= 0)
		fault(ctx, sig, info, tid);
	if (ev_signal < 0)
		return 0;
	/* a SIGSTOP the kernel sent (SI_KERNEL: bpf_send_signal's, a probe
	 * holding the thread for vigil, or a debugger's attach) is not the
	 * program's signal; one kill(2) sent is (SI_USER) */
	if (sig == 19 /* SIGSTOP */ &&
	    BPF_CORE_READ(info, si_code) == 0x80 /* SI_KERNEL */)
		return 0;
	return vg_life_event(ev_signal, tid, &s);
}

/* A new process, a new program, or the end of a followed process: user
 * space says so, attaches a new process's probes (the probes on the
 * target's pid fire in its memory only; an exec'd program has other code
 * than the probed binary), and lets go of a process that ended. */
/* AT_BASE from the new program's auxiliary vector (mm->saved_auxv, pairs
 * of type and value up to AT_NULL): where the kernel mapped its dynamic
 * loader; 0 for a static program. */
static __always_inline __u64 interp_base(struct mm_struct *mm)
{
	__u32 off = bpf_core_field_offset(struct mm_struct, saved_auxv);
	__u64 kv[2];

	for (int i = 0; i < 28; i++) {
		if (bpf_probe_read_kernel(kv, sizeof(kv),
					  (char *)mm + off + i * sizeof(kv)) ||
		    !kv[0])
			return 0;
		if (kv[0] == 7)	/* AT_BASE */
			return kv[1];
	}
	return 0;
}

static __always_inline void fill_proc(struct vg_rec_proc *r, __u16 flags,
				      __u32 what, __u32 tid, __u32 child,
				      struct linux_binprm *bprm)
{
	fill_hdr(&r->h, VG_REC_PROC, flags, what, tid);
	r->child = child;
	r->path[0] = 0;
	r->dev = 0;
	r->ino = 0;
	r->start_code = 0;
	r->interp_base = 0;
	if (bprm) {
		/* the new program is mapped by now (sched_process_exec);
		 * bprm->mm was handed to the task and cleared */
		struct task_struct *t = (struct task_struct *)bpf_get_current_task();
		struct mm_struct *mm = BPF_CORE_READ(t, mm);

		r->start_code = BPF_CORE_READ(mm, start_code);
		r->interp_base = mm ? interp_base(mm) : 0;
		bpf_probe_read_kernel_str(r->path, sizeof(r->path),
					  BPF_CORE_READ(bprm, filename));
		r->ino = BPF_CORE_READ(bprm, file, f_inode, i_ino);
		r->dev = BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev);
	}
	bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
}

static __always_inline void send_proc(__u32 what, __u32 tid, __u32 child,
				      struct linux_binprm *bprm)
{
	struct vg_rec_proc *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r) {
		count(&counters, VG_CNT_RB_LOST);
		return;
	}
	fill_proc(r, 0, what, tid, child, bprm);
}

/* A followed process forked: the child is followed from now on, and,
 * with per-process probes, stopped before it can run any of its code:
 * the signal is pending before the child is first woken, and is taken on
 * its way to user space. Only a child whose record is reserved is stopped
 * (user space lets it go on that record, or at its end), and the stop
 * counts as in flight (vg_probe_quiesce) so that vigil's end, which
 * clears fork_stop, knows when no fork can stop a child any more. */
static __always_inline void follow_fork(struct task_struct *child,
					__u32 ctgid, __u32 tid)
{
	struct vg_rec_proc *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	__u32 on = VG_FOLLOW_ON, zero = 0, *v;
	__u16 flags = 0;
	__u64 *busy;

	if (!follow_forks) {
		if (r)
			fill_proc(r, 0, VG_PROC_FORK, tid, ctgid, NULL);
		else
			count(&counters, VG_CNT_RB_LOST);
		return;
	}
	if (bpf_map_update_elem(&followed, &ctgid, &on, BPF_ANY)) {
		count(&counters, VG_CNT_UNFOLLOWED);	/* the table is full */
		if (r)
			fill_proc(r, 0, VG_PROC_FORK, tid, ctgid, NULL);
		return;
	}
	if (!r) {	/* followed, but user space cannot know it */
		count(&counters, VG_CNT_RB_LOST);
		count(&counters, VG_CNT_UNFOLLOWED);
		return;
	}
	flags = VG_RF_FOLLOWED;
	busy = bpf_map_lookup_elem(&inflight, &zero);
	if (busy)
		__sync_fetch_and_add(busy, 1);	/* before reading fork_stop */
	if (fork_stop_ok && fork_stop &&
	    !bpf_send_signal_task(child, SIGSTOP, PIDTYPE_TGID, 0)) {
		v = bpf_map_lookup_elem(&followed, &ctgid);
		if (v)
			*v = VG_FOLLOW_HELD;
		flags |= VG_RF_FORKSTOP;
	}
	if (busy)
		__sync_fetch_and_sub(busy, 1);
	fill_proc(r, flags, VG_PROC_FORK, tid, ctgid, NULL);
}

/* sched_process_exit's second argument, group_dead (Linux 6.16; set
 * before load from user/probe/features.c). Without it, the process's exit
 * is reported by the last of its threads to reach the tracepoint, after
 * every thread's thread_exit: vg_exit_in counts the threads in do_exit
 * (exit_group_dead_fentry), and the one that brings the count to 0 once
 * the process has no live thread left is the last. (The thread that ends
 * the process, do_exit's own group_dead, is not it: before 6.16 the
 * tracepoint comes after exit_mm, where another thread may wait.) There,
 * too, a thread's thread_exit is sent as it enters do_exit: exit_mm wakes
 * its joiner, which may run (and report) before the thread reaches the
 * tracepoint; 6.16 moved the tracepoint before exit_mm.
 * Without do_exit to trace, the last thread is the one that finds the
 * process's count of live threads at zero, which do_exit lowers before
 * the tracepoint; as threads exiting together may all find it so, the
 * first of them for this process (by its leader's start time, which a
 * reused tgid does not share) is the one. */
const volatile bool exit_group_dead_arg = false;
const volatile bool exit_group_dead_fentry = false;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __s64);
} exiting SEC(".maps");

SEC("fentry/do_exit")
int BPF_PROG(vg_exit_in, long code)
{
	struct vg_life_slots s = {};
	__u32 tid, tgid;
	__s64 zero = 0, *n;

	if (!is_target_in(&tid, &tgid))
		return 0;
	if (ev_thread_exit >= 0) {
		s.v[0] = tid;
		vg_life_event(ev_thread_exit, tid, &s);
	}
	n = bpf_map_lookup_elem(&exiting, &tgid);
	if (!n) {
		bpf_map_update_elem(&exiting, &tgid, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&exiting, &tgid);
	}
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}

/* the last thread of the process to reach the tracepoint (vg_exit_in) */
static __always_inline bool last_exiting(struct task_struct *p, __u32 tgid)
{
	__s64 *n = bpf_map_lookup_elem(&exiting, &tgid);

	return n && __sync_fetch_and_add(n, -1) == 1 &&
	       BPF_CORE_READ(p, signal, live.counter) == 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} group_exits SEC(".maps");

static __always_inline bool group_dead_of(struct task_struct *p, __u32 tgid)
{
	__u64 start, old, *v;

	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return false;
	start = BPF_CORE_READ(p, group_leader, start_time);
	v = bpf_map_lookup_elem(&group_exits, &tgid);
	if (!v) {
		if (!bpf_map_update_elem(&group_exits, &tgid, &start,
					 BPF_NOEXIST))
			return true;
		v = bpf_map_lookup_elem(&group_exits, &tgid);
		if (!v)
			return false;
	}
	old = *v;
	return old != start &&
	       __sync_val_compare_and_swap(v, old, start) == old;
}

/* sched_process_exit runs for every exiting thread; group_dead marks the
 * last one, whose exit code is the process's. The arguments are read from
 * ctx: the second only where the tracepoint has it. */
SEC("tp_btf/sched_process_exit")
int vg_exit(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct vg_life_slots s = {};
	__u64 *slot = s.v;
	bool group_dead;
	__u32 tid;
	int code;

	if (!is_target(&tid))
		return 0;
	if (exit_group_dead_arg) {
		group_dead = (bool)ctx[1];
	} else if (exit_group_dead_fentry) {
		group_dead = last_exiting(p, cur_tgid());
	} else {
		group_dead = group_dead_of(p, cur_tgid());
	}
	if (ev_thread_exit >= 0 && !exit_group_dead_fentry) {	/* else: vg_exit_in */
		slot[0] = tid;
		vg_life_event(ev_thread_exit, tid, &s);
	}
	if (group_dead) {
		__u32 tgid = cur_tgid();

		code = BPF_CORE_READ(p, signal, group_exit_code);
		if (!code)
			code = BPF_CORE_READ(p, exit_code);
		if (tgid == target_tgid) {
			target_exit_status = code;
			target_exit_ns = bpf_ktime_get_ns();
			target_exited = 1;
		}
	}
	if (ev_exit >= 0 && group_dead) {
		/* as wait(2) encodes it: status in bits 8-15, signal in 0-6 */
		__builtin_memset(&s, 0, sizeof(s));
		slot[0] = (code >> 8) & 0xff;
		slot[1] = code & 0x7f;
		vg_life_event(ev_exit, tid, &s);
	}
	/* a followed process: its probes can go, and (vigil watch) its
	 * state, once its exit event is in the ring before this record */
	if (group_dead && cur_tgid() != target_tgid) {
		__u32 tgid = cur_tgid();
		struct vg_rec_proc *r;

		bpf_map_delete_elem(&followed, &tgid);
		r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
		if (!r) {
			count(&counters, VG_CNT_RB_LOST);
			return 0;
		}
		fill_hdr(&r->h, VG_REC_PROC, 0, VG_PROC_EXIT, tid);
		r->child = tgid;
		r->dev = code;
		r->ino = 0;
		r->path[0] = 0;
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	}
	return 0;
}

/* `syscall name(args)` events: the event index + 1 of each system call
 * number the spec names (0: none) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_MAX_SYSCALL);
	__type(key, __u32);
	__type(value, __u32);
} sys_ev SEC(".maps");

/* raw_syscalls:sys_enter: every system call of every process, so the
 * target's tgid is checked first. The arguments are in the registers of
 * the syscall ABI (r10, not rcx, for the fourth). */
SEC("tp_btf/sys_enter")
int BPF_PROG(vg_sys_enter, struct pt_regs *regs, long id)
{
	struct vg_life_slots s = {};
	__u64 *slot = s.v;
	__u32 nr = (__u32)id, tid, *ev;

	if (!is_target(&tid) || id < 0 || id >= VG_MAX_SYSCALL)
		return 0;
	ev = bpf_map_lookup_elem(&sys_ev, &nr);
	if (!ev || !*ev)
		return 0;
	slot[0] = BPF_CORE_READ(regs, di);
	slot[1] = BPF_CORE_READ(regs, si);
	slot[2] = BPF_CORE_READ(regs, dx);
	slot[3] = BPF_CORE_READ(regs, r10);
	slot[4] = BPF_CORE_READ(regs, r8);
	slot[5] = BPF_CORE_READ(regs, r9);
	return vg_life_event(*ev - 1, tid, &s);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(vg_fork, struct task_struct *parent, struct task_struct *child)
{
	struct vg_life_slots s = {};
	__u32 tid;

	if (!is_target(&tid))
		return 0;
	if (BPF_CORE_READ(child, tgid) != cur_tgid()) {	/* a process */
		follow_fork(child, BPF_CORE_READ(child, tgid), tid);
		return 0;
	}
	if (ev_thread_start < 0)
		return 0;
	s.v[0] = BPF_CORE_READ(child, pid);
	return vg_life_event(ev_thread_start, tid, &s);
}

/* vigil watch: a process that is not followed exec'd. If its program is
 * the watched file, it is followed, and held before its first instruction
 * (the signal is taken on its way back to user space) until user space
 * has attached its probes -- as a followed fork's child is. Only with its
 * record reserved, so that user space always learns of a held process. */
static __always_inline void watch_hold(struct linux_binprm *bprm, __u32 tid)
{
	__u32 tgid = cur_tgid(), held = VG_FOLLOW_HELD, on = VG_FOLLOW_ON;
	__u32 zero = 0;
	struct vg_rec_proc *r;
	__u16 flags = VG_RF_FOLLOWED;
	__u64 *busy;

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(&counters, VG_CNT_RB_LOST);
		count(&counters, VG_CNT_UNFOLLOWED);
		return;
	}
	if (bpf_map_update_elem(&followed, &tgid, &held, BPF_ANY)) {
		count(&counters, VG_CNT_UNFOLLOWED);	/* the table is full */
		fill_proc(r, 0, VG_PROC_EXEC, tid, tgid, bprm);
		return;
	}
	busy = bpf_map_lookup_elem(&inflight, &zero);
	if (busy)
		__sync_fetch_and_add(busy, 1);	/* before reading fork_stop */
	if (fork_stop && !bpf_send_signal(SIGSTOP))
		flags |= VG_RF_FORKSTOP;
	else	/* not held: followed, its probes attached a moment late */
		bpf_map_update_elem(&followed, &tgid, &on, BPF_ANY);
	if (busy)
		__sync_fetch_and_sub(busy, 1);
	fill_proc(r, flags, VG_PROC_EXEC, tid, tgid, bprm);
}

/* --same-build: is the exec'd file's name watch_name? */
static __always_inline bool watch_name_is(struct linux_binprm *bprm)
{
	char n[sizeof(watch_name)];

	if (!watch_name[0] ||
	    bpf_probe_read_kernel_str(n, sizeof(n),
				      BPF_CORE_READ(bprm, file, f_path.dentry,
						    d_name.name)) <= 0)
		return false;
	for (int i = 0; i < (int)sizeof(n); i++) {
		if (n[i] != watch_name[i])
			return false;
		if (!n[i])
			return true;
	}
	return false;
}

static __always_inline void watch_exec(struct linux_binprm *bprm, __u32 tid)
{
	if ((BPF_CORE_READ(bprm, file, f_inode, i_ino) == watch_ino &&
	     BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev) == watch_dev) ||
	    watch_name_is(bprm))
		watch_hold(bprm, tid);
}

/* vigil watch --lib-mapped: a process not followed maps the library
 * executable. It is held as it returns from mmap, before any code of the
 * library can run (the loader relocates and runs its initializers
 * later), until its probes are in; its record is an exec's without a
 * path. */
/* (at the mmap system call's entry, raw_syscalls:sys_enter, the file
 * read from the descriptor table: this kernel may have neither fentry
 * nor kprobes; the signal is taken as mmap returns, with the mapping
 * made and none of the library's code run) */
SEC("tp_btf/sys_enter")
int BPF_PROG(vg_watch_mmap, struct pt_regs *regs, long id)
{
	struct task_struct *t;
	struct fdtable *fdt;
	struct file **fdv, *file = NULL;
	__u32 tid;
	int fd;

	if (id != 9 /* mmap */ || !(BPF_CORE_READ(regs, dx) & 4 /* PROT_EXEC */))
		return 0;
	fd = (int)BPF_CORE_READ(regs, r8);
	if (fd < 0 || is_target(&tid))
		return 0;
	t = (struct task_struct *)bpf_get_current_task();
	fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fdv = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fdv[fd]) || !file)
		return 0;
	if (BPF_CORE_READ(file, f_inode, i_ino) == watch_lib_ino &&
	    BPF_CORE_READ(file, f_inode, i_sb, s_dev) == watch_lib_dev)
		watch_hold(NULL, tid);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(vg_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tid;

	if (!is_target(&tid)) {
		if (watch_ino)
			watch_exec(bprm, tid);
		return 0;
	}
	if (stop_at_exec) {
		stop_at_exec = 0;
		bpf_send_signal(SIGSTOP);
	}
	send_proc(VG_PROC_EXEC, tid, 0, bprm);
	return 0;
}

/* the kernel tier's timeouts, which signal other tasks too (above) */
#include "ktimer_arm.bpf.h"

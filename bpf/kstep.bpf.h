/* The in-kernel tier: the automaton of an eligible property evaluated inside
 * the probe, so a violation stops the target at the violating call itself
 * and events that change nothing never wake user space.
 *
 * The tables come from user/probe/ktier.c: per property (kprops), the
 * transitions of each (property, state, event) in first-match order
 * (ktrans), and the guard/update bytecode (kcode). Slices live in kslots,
 * keyed by the property and its slice parameter values.
 *
 * Concurrency: two threads can hit the same slice at once (two CPUs pushing
 * to one queue). BPF forbids bpf_spin_lock in tracing programs, so each slice
 * carries its own lock word taken with compare-and-swap, spinning a bounded
 * number of times; a thread that cannot take it in time reports
 * VG_REC_KBUSY and the user side marks the property inconclusive, rather than
 * risk a torn update.
 *
 * Slices live in kslots, an array used as an open-addressed hash table
 * (include/vigil_event.h): finding a slice is a multiply and, usually, one
 * array access, where a BPF hash map lookup cost ~50 ns a quiet event.
 * Slices are never deleted here, not even when they are back in the initial
 * state with initial variables (which the user tier frees): a thread may
 * be waiting for the lock of a slice another thread would delete, and an
 * open-addressed table cannot lose a slot from a probe path. A slice in
 * the initial state means the same as no slice, so verdicts do not change;
 * the cost is that the table holds every object seen, bounded by
 * --max-slices (overflow reported, never silent).
 */
#ifndef VIGIL_KSTEP_BPF_H
#define VIGIL_KSTEP_BPF_H

#define SIGSTOP 19
/* How many times a thread tries for a slice's lock (one bpf_loop step
 * each; only when it is contended). Uprobe programs run preemptible, so
 * the holder may be off its CPU in the middle of a step: 4096 tries made
 * tests/e2e/faults.sh's 2000-thread mutex storm inconclusive on a loaded
 * machine. */
#define VG_KLOCK_SPINS 65536

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_KMAX_PROPS);
	__type(key, __u32);
	__type(value, struct vg_kprop);
} kprops SEC(".maps") VG_SHARED;

/* indexed by VG_KTRANS_INDEX(kprop, state, binding): an array, not a
 * hash, because this lookup is on every event's path */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS);
	__type(key, __u32);
	__type(value, struct vg_ktrans);
} ktrans SEC(".maps") VG_SHARED;

/* --view: how often each transition was taken, by its spec_index, while
 * count_trans is set (a view can be opened on a running session). */
__u32 count_trans VG_SHARED = 0;
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VG_KMAX_TRANS_HITS);
	__type(key, __u32);
	__type(value, __u64);
} ktrans_hits SEC(".maps") VG_SHARED;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_KMAX_CODE);
	__type(key, __u32);
	__type(value, struct vg_insn);
} kcode SEC(".maps") VG_SHARED;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* kslot_mask + 1, set by user space */
	/* user space reads the whole table in place (at exit, for the live
	 * view), not through system calls */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct vg_kslot);
} kslots SEC(".maps") VG_SHARED;

/* Set by user space: the table has kslot_mask + 1 slots (a power of two,
 * at least twice --max-slices, so probe paths stay short) and takes at
 * most kslot_max slices; kslot_count is how many it holds. */
__u32 kslot_mask VG_SHARED = 0;
/* vigil watch: slices are keyed by process too (vg_kslot.tgid) */
__u32 kslot_by_tgid VG_SHARED = 0;
__u32 kslot_max VG_SHARED = 0;
__u32 kslot_count VG_SHARED = 0;
/* Set before load: a kernel-tier property asks memory predicates, and
 * the object map is set up (bpf/kmem.bpf.h). Otherwise the calls of its
 * global functions are dead code, which kernels from 6.8 on do not
 * verify (before, every global function is: about 350,000 instructions
 * more of vg_kstep's verification) */
const volatile __u32 kmem_on VG_SHARED = 0;

/* The interpreter's state, handed to the bpf_loop callback. It lives in
 * a per-CPU map, not on the BPF stack (kstep_args, kt_scratch): Linux 6.1
 * counts 512 bytes for the whole chain of calls, vg_kstep's, its
 * property's and the timer's, and two of these on the stack made 800
 * (Linux 6.13 gives such programs a private stack). Arrays, not pointers,
 * so that it holds no pointer: one read back from a map is a number. */
struct vm {
	__u32 off, len, pc;
	__u32 sp;
	int err;
	__u32 tid;
	/* a memory predicate was unknown (vg_kmem), in this guard or
	 * update; unk_step: in this step's (kmem.bpf.h) */
	int unknown, unk_step;
	__u64 slot[VG_NSLOTS];	/* the event's */
	__s64 vars[VG_KMAX_VARS];
	__u64 key[VG_KMAX_PARAMS];
	__s64 st[VG_STACK_MAX];
	/* an entry probe's ip and sp (0 elsewhere), and the call a stop
	 * sends the thread back to (bpf/rewind.bpf.h) */
	__u64 uip, usp, rewind;
};

#include "rewind.bpf.h"

/* vg_binop (include/vigil_ops.h) as a global function, defined once in
 * bpf/vigil/kstep.bpf.c: the verifier checks its switch once, not inlined
 * at each of the interpreter's three places for each state it reaches them
 * with (vg_kstep: 30,231 -> 13,845 instructions). */
__s64 vg_kbinop(__u32 op, __s64 a, __s64 b, int *err);
/* VG_OP_MEM: a memory predicate from the object map (bpf/kmem.bpf.h,
 * defined once in bpf/vigil/kstep.bpf.c); unknown: set when it is */
__s64 vg_kmem(__u32 pred, __u64 p, __u64 n, int *unknown);

#define SP(x) ((x) & (VG_STACK_MAX - 1))

/* bpf_loop's context must be on the stack: the vm is in a map */
struct vm_ref {
	struct vm *m;
};

/* One instruction; returns 1 to stop the loop. mem: VG_OP_MEM is
 * answered (the transitions' guards and updates); the timer's code (a
 * deadline, a timeout's update) runs a build without it: Linux 6.1
 * counts the stack of every chain of calls a subprogram may make, and
 * vg_kstep, vg_kstep_prop, vg_ktimer_enter, this, vg_kmem and its lookup
 * made 544 bytes of 512 (the plan keeps a timed property with memory
 * predicates out of the BPF kernel tier) */
static __always_inline int vm_step_in(__u32 i, struct vm_ref *r,
				      const bool mem)
{
	struct vm *m = r->m;
	struct vg_insn *in;
	__u32 k;
	__s64 a, b;

	if (m->err || m->pc >= m->len)
		return 1;
	k = m->off + m->pc;
	in = bpf_map_lookup_elem(&kcode, &k);
	if (!in) {
		m->err = 1;
		return 1;
	}
	m->pc++;
	switch (in->op) {
	case VG_OP_END:
		m->pc = m->len;
		return 1;
	case VG_OP_PUSH:
		m->st[SP(m->sp)] = in->imm;
		m->sp++;
		break;
	case VG_OP_FIELD:
		m->st[SP(m->sp)] = m->slot[in->idx < VG_NSLOTS ? in->idx : 0];
		m->sp++;
		break;
	case VG_OP_PARAM:
		m->st[SP(m->sp)] = m->key[in->idx & (VG_KMAX_PARAMS - 1)];
		m->sp++;
		break;
	case VG_OP_LDVAR:
		m->st[SP(m->sp)] = m->vars[in->idx & (VG_KMAX_VARS - 1)];
		m->sp++;
		break;
	case VG_OP_STVAR:
		m->sp--;
		m->vars[in->idx & (VG_KMAX_VARS - 1)] = m->st[SP(m->sp)];
		break;
	case VG_OP_TID:
		m->st[SP(m->sp)] = m->tid;
		m->sp++;
		break;
	case VG_OP_TIME:
		m->st[SP(m->sp)] = ev_time();
		m->sp++;
		break;
	case VG_OP_DUP:
		m->st[SP(m->sp)] = m->st[SP(m->sp - 1)];
		m->sp++;
		break;
	case VG_OP_POP:
		m->sp--;
		break;
	case VG_OP_NEG:
		m->st[SP(m->sp - 1)] = -m->st[SP(m->sp - 1)];
		break;
	case VG_OP_NOT:
		m->st[SP(m->sp - 1)] = m->st[SP(m->sp - 1)] == 0;
		break;
	case VG_OP_BNOT:
		m->st[SP(m->sp - 1)] = ~m->st[SP(m->sp - 1)];
		break;
	case VG_OP_JMP:
		m->pc += (__u32)in->imm;
		break;
	case VG_OP_JZ:
	case VG_OP_JNZ:
		m->sp--;
		a = m->st[SP(m->sp)];
		if ((in->op == VG_OP_JZ) == (a == 0))
			m->pc += (__u32)in->imm;
		break;
	case VG_OP_MEM:
		if (!mem || !kmem_on) {	/* (the plan gives none such code) */
			m->err = 1;
			break;
		}
		b = m->st[SP(m->sp - 1)];
		a = m->st[SP(m->sp - 2)];
		m->sp--;
		m->st[SP(m->sp - 1)] = vg_kmem((__u32)in->imm, (__u64)a,
					       (__u64)b, &m->unknown);
		break;
	default:
		/* binary operators */
		b = m->st[SP(m->sp - 1)];
		a = m->st[SP(m->sp - 2)];
		m->sp--;
		m->st[SP(m->sp - 1)] = vg_kbinop(in->op, a, b, &m->err);
		break;
	}
	if (m->sp > VG_STACK_MAX)
		m->err = 1;
	return m->err ? 1 : 0;
}

static int vm_step(__u32 i, struct vm_ref *r)
{
	return vm_step_in(i, r, true);
}

static int vm_step_timer(__u32 i, struct vm_ref *r)
{
	return vm_step_in(i, r, false);
}

/* Run code [off, off+len); returns the top of stack, 1 when empty.
 * timer: the timer's code (vm_step_in) */
static __always_inline __s64 vm_run_in(struct vm *m, __u32 off, __u32 len,
				       const bool timer)
{
	struct vm_ref r = { .m = m };

	m->off = off;
	m->len = len;
	m->pc = 0;
	m->sp = 0;
	bpf_loop(VG_KMAX_PROG, timer ? vm_step_timer : vm_step, &r, 0);
	if (m->err)
		return 0;
	return m->sp ? m->st[SP(m->sp - 1)] : 1;
}

static __always_inline __s64 vm_run(struct vm *m, __u32 off, __u32 len)
{
	return vm_run_in(m, off, len, false);
}

static __always_inline __s64 vm_run_timer(struct vm *m, __u32 off, __u32 len)
{
	return vm_run_in(m, off, len, true);
}

/* Finding a slice: its probe path (vg_kslot_probe), at most VG_KPROBES
 * slots, claiming the first empty one when the event would create the
 * slice. */
enum { KF_ABSENT = -1, KF_FULL = -2, KF_WAIT = -3 };

struct kfind {
	__u64 k0, k1;
	/* h: where the path goes on from its home (KF_WAIT: the slot
	 * another thread claimed, until the path is found again) */
	__u32 prop, home, h;
	__u32 tgid;		/* kslot_by_tgid: the process's; else 0 */
	bool create;
	bool claimed;		/* res is a slot this thread just claimed */
	int res;		/* a slot index, or KF_* */
};

static int kfind_step(__u32 i, struct kfind *f)
{
	__u32 idx = vg_kslot_probe(f->home, f->h, i) & kslot_mask;
	struct vg_kslot *s = bpf_map_lookup_elem(&kslots, &idx);
	__u32 use;

	if (!s) {
		f->res = KF_FULL;
		return 1;
	}
	use = *(volatile __u32 *)&s->use;
	if (use == VG_KSLOT_READY) {
		if (s->prop != f->prop || s->key[0] != f->k0 ||
		    s->key[1] != f->k1 || s->tgid != f->tgid)
			return 0;	/* another slice: probe on */
		f->res = (int)idx;
		return 1;
	}
	if (use == VG_KSLOT_EMPTY) {
		if (!f->create) {
			f->res = KF_ABSENT;
			return 1;
		}
		if (__sync_fetch_and_add(&kslot_count, 1) >= kslot_max) {
			__sync_fetch_and_sub(&kslot_count, 1);
			f->res = KF_FULL;
			return 1;
		}
		if (__sync_val_compare_and_swap(&s->use, VG_KSLOT_EMPTY,
						VG_KSLOT_CLAIMED) ==
		    VG_KSLOT_EMPTY) {
			f->res = (int)idx;
			f->claimed = true;
			return 1;
		}
		__sync_fetch_and_sub(&kslot_count, 1);
	}
	/* claimed by another thread that is writing its key: it may be
	 * this very slice; wait for it (kwait_ready), then look again */
	f->res = KF_WAIT;
	f->h = idx;
	return 1;
}

static __always_inline int kfind(struct kfind *f)
{
	__u32 idx = f->home & kslot_mask;
	struct vg_kslot *s = bpf_map_lookup_elem(&kslots, &idx);

	/* the common case, the slice in its home, without the
	 * loop's call of kfind_step: on a kernel with return-thunk
	 * mitigations (Safe RET) a call and its return cost 10-20 ns */
	if (s && *(volatile __u32 *)&s->use == VG_KSLOT_READY &&
	    s->prop == f->prop && s->key[0] == f->k0 && s->key[1] == f->k1 &&
	    s->tgid == f->tgid) {
		f->res = (int)idx;
		return f->res;
	}
	f->res = KF_FULL;	/* every slot of the path taken */
	bpf_loop(VG_KPROBES, kfind_step, f, 0);
	return f->res;
}

static int kready_step(__u32 i, __u32 *idx)
{
	struct vg_kslot *s = bpf_map_lookup_elem(&kslots, idx);

	return !s || *(volatile __u32 *)&s->use == VG_KSLOT_READY;
}

struct klock_try {
	struct vg_kslot *s;
	bool got;
};

static int klock_step(__u32 i, struct klock_try *t)
{
	if (__sync_val_compare_and_swap(&t->s->lock, 0, 1) == 0) {
		t->got = true;
		return 1;
	}
	return 0;
}

/* bpf_loop, not a plain loop: the verifier would walk every spin. */
static __always_inline bool klock(struct vg_kslot *s)
{
	struct klock_try t = { .s = s };

	if (__sync_val_compare_and_swap(&s->lock, 0, 1) == 0)
		return true;	/* the common case: nobody else is here */
	bpf_loop(VG_KLOCK_SPINS, klock_step, &t, 0);
	return t.got;
}

/* The release: every store of the step (the slice's variables and state)
 * before the lock word's. On x86-64 (TSO, where the JIT keeps the
 * program's order) a plain store after a compiler barrier is one, as the
 * kernel's own spin_unlock; a locked instruction here waited for the
 * step's stores to drain, several ns of every event. */
static __always_inline void kunlock(struct vg_kslot *s)
{
#ifdef __TARGET_ARCH_x86
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&s->lock = 0;
#else
	__sync_fetch_and_and(&s->lock, 0);
#endif
}

static __always_inline void kreport(__u16 kind, __u16 flags, __u32 event,
				    __u32 prop, __u32 from, __u32 to,
				    __u32 tid,
				    __u64 *key, __s64 *vars,
				    __u64 *slot)
{
	struct vg_rec_kstep *r;

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(&ev_lost, event);
		count(&counters, VG_CNT_RB_LOST);
		return;
	}
	fill_hdr(&r->h, kind, flags, event, tid);
	r->prop = prop;
	r->from = from;
	r->to = to;
	r->pad = 0;
	r->key[0] = key[0];
	r->key[1] = key[1];
	__builtin_memcpy(r->vars, vars, sizeof(r->vars));
	__builtin_memcpy(r->slot, slot, sizeof(r->slot));
	/* a verdict or a stop must reach user space now */
	bpf_ringbuf_submit(r, (flags & (VG_RF_STOPPED | VG_RF_VERDICT)) ||
				      kind != VG_REC_KSTEP
			      ? BPF_RB_FORCE_WAKEUP : wake_flags());
}

/* Apply the first transition whose guard holds. Returns the new state, or
 * -1 when no transition matches. m->vars is updated in place. */
static __always_inline __s64 kopnd(struct vm *m, struct vg_kopnd *o)
{
	switch (o->kind) {
	case VG_KO_FIELD:
		return m->slot[o->idx < VG_NSLOTS ? o->idx : 0];
	case VG_KO_VAR:
		return m->vars[o->idx & (VG_KMAX_VARS - 1)];
	case VG_KO_PARAM:
		return m->key[o->idx & (VG_KMAX_PARAMS - 1)];
	}
	return o->imm;
}

static __always_inline __s64 kexpr(struct vm *m, struct vg_kexpr *x)
{
	__s64 a = kopnd(m, &x->a), b;

	if (x->op == VG_OP_END)
		return a;
	b = kopnd(m, &x->b);
	/* a counter's step and its bound here, not in vg_kbinop: its call
	 * and return cost as much as the operator (vigil_ops.h's meaning) */
	switch (x->op) {
	case VG_OP_ADD:
		return (__s64)((__u64)a + (__u64)b);
	case VG_OP_SUB:
		return (__s64)((__u64)a - (__u64)b);
	case VG_OP_EQ:
		return a == b;
	case VG_OP_NE:
		return a != b;
	case VG_OP_LTS:
		return a < b;
	case VG_OP_LES:
		return a <= b;
	case VG_OP_GTS:
		return a > b;
	case VG_OP_GES:
		return a >= b;
	}
	return vg_kbinop(x->op, a, b, &m->err);
}

/* One transition of kapply's: the verifier checks its guard and update
 * once as a bpf_loop callback, not VG_KMAX_TRANS unrolled copies of
 * them (about half of vg_kstep's verification, which is most of vigil's
 * start-up with the kernel tier). */
struct kapply_ctx {
	struct vm *m;
	struct vg_ktrans *t;
	int to;
};

static int kapply_step(__u32 i, struct kapply_ctx *c)
{
	struct vm *m = c->m;
	struct vg_ktrans *t = c->t;
	__u32 k = i & (VG_KMAX_TRANS - 1);

	if (t->t[k].guard_fast) {
		if (!kexpr(m, &t->t[k].guard))
			return 0;
	} else if (t->t[k].guard_len) {
		__s64 held;

		m->unknown = 0;
		held = vm_run(m, t->t[k].guard_off, t->t[k].guard_len);
		/* unknown: passed over, whatever its value (the user tier's
		 * choose(), the agent's kapply) */
		m->unk_step |= m->unknown;
		if (!held || m->unknown)
			return 0;
	}
	if (t->t[k].upd_fast) {
		/* statements in order: the second may read the first */
		__s64 v = kexpr(m, &t->t[k].upd[0]);

		m->vars[t->t[k].upd[0].dst & (VG_KMAX_VARS - 1)] = v;
		if (t->t[k].upd_fast > 1) {
			v = kexpr(m, &t->t[k].upd[1]);
			m->vars[t->t[k].upd[1].dst & (VG_KMAX_VARS - 1)] = v;
		}
	} else if (t->t[k].upd_len) {
		m->unknown = 0;
		vm_run(m, t->t[k].upd_off, t->t[k].upd_len);
		m->unk_step |= m->unknown;
	}
	if (count_trans) {
		__u32 h = t->t[k].spec_index;
		__u64 *n = bpf_map_lookup_elem(&ktrans_hits, &h);

		if (n)
			(*n)++;
	}
	c->to = t->t[k].to;
	return 1;	/* the first whose guard holds */
}

static __always_inline int kapply(struct vm *m, __u32 prop, __u32 state,
				  __u32 bind)
{
	__u32 tk = VG_KTRANS_INDEX(prop, state, bind);
	struct vg_ktrans *t = bpf_map_lookup_elem(&ktrans, &tk);
	struct kapply_ctx c = { .m = m, .t = t, .to = -1 };

	if (!t)
		return -1;
	bpf_loop(t->n < VG_KMAX_TRANS ? t->n : VG_KMAX_TRANS, kapply_step,
		 &c, 0);
	return c.to;
}

static __always_inline bool vars_initial(struct vg_kprop *p, __s64 *vars)
{
	for (int i = 0; i < VG_KMAX_VARS; i++)
		if (vars[i] != p->init_vars[i])
			return false;
	return true;
}

#endif

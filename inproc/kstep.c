/* The kernel tier's interpreter (bpf/vigil/kstep.bpf.c, bpf/kstep.bpf.h)
 * inside the target: the same names and the same rules, in the same
 * order, so that the two read side by side; the bpf_loop callbacks are
 * plain bounded loops here, the maps the region's arrays (kstep.h).
 * Every rule's reason is the BPF code's; only what differs is said here.
 *
 * Freestanding: no libc and no global data (inproc/kstep.mk checks
 * that the object needs no symbol from outside: a copy the compiler
 * made into a memcpy call would show there).
 */
#include "kstep.h"
/* freeable(p)'s first question, the agent's hinted one (omhint.h) */
#include "omhint.h"
#define VG_OM_HAS vg_om_has_hinted
#include "vigil_mempred.h"
#include "vigil_objmap.h"
#include "vigil_ops.h"

/* as bpf/kstep.bpf.h: the holder of a lock may be off its CPU */
#define VG_KLOCK_SPINS 65536

/* The region's tables (kstep.h says their sizes) */
#define TABLE(sh, off) ((void *)((char *)(sh) + (sh)->off))

static inline struct vg_kprop *kprop_at(struct vg_fast_shared *sh, __u32 k)
{
	struct vg_kprop *t = TABLE(sh, kprops_off);

	return k < VG_KMAX_PROPS ? &t[k] : (struct vg_kprop *)0;
}

static inline struct vg_ktrans *ktrans_at(struct vg_fast_shared *sh, __u32 i)
{
	struct vg_ktrans *t = TABLE(sh, ktrans_off);

	return &t[i & (VG_KMAX_PROPS * VG_KMAX_STATES * VG_KMAX_BINDINGS - 1)];
}

static inline struct vg_kslot *kslot_at(struct vg_fast_shared *sh, __u32 i)
{
	struct vg_kslot *t = (struct vg_kslot *)(unsigned long)sh->kslots_addr;

	return &t[i & sh->kslot_mask];
}

/* the BPF global that counts the table's slices, mapped likewise */
static inline __u32 *kslot_count(struct vg_fast_shared *sh)
{
	return (__u32 *)(unsigned long)sh->kslot_count_addr;
}

/* the counters vigil reads in place: every thread adds to them */
static inline void count(struct vg_fast_shared *sh, int c)
{
	__atomic_fetch_add(&sh->cnt[c], 1, __ATOMIC_RELAXED);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* The event's instant, read at the first that asks (inproc/kstep.h) */
static __u64 env_now(struct vg_inproc_env *env)
{
	if (!env->now_ns && env->clock)
		env->now_ns = env->clock(env->sh);
	return env->now_ns;
}

/* The interpreter's state, on the thread's stack (no verifier here to
 * count it): the event's slots are the caller's. */
struct vm {
	__u32 off, len, pc;
	__u32 sp;
	int err;
	__u32 tid;
	const struct vg_insn *code;	/* the kcode table */
	const __u64 *slot;		/* the event's, VG_NSLOTS */
	struct vg_inproc_env *env;	/* strlen_at's reads, the time */
	struct vg_objmap *om;		/* VG_OP_MEM's answers (NULL: none,
					 * all unknown) */
	int unknown;			/* a memory predicate was unknown */
	int unk_step;			/* ... in this step's guards or
					 * updates */
	__s64 vars[VG_KMAX_VARS];
	__u64 key[VG_KMAX_PARAMS];
	__s64 st[VG_STACK_MAX];
};

#define SP(x) ((x) & (VG_STACK_MAX - 1))

/* strlen_at's most bytes read, as the user tier's (user/objmap/) */
#define STRLEN_MAX 65536

/* The string at p, at most max bytes (STRLEN_MAX at most), as the user
 * tier reads it (user/objmap/objmap_run.c, read_strlen): anywhere, a
 * string running off its block included (that is the overread), through
 * env->read (never a fault: the memory may be unmapped by another thread
 * meanwhile), a page at a time; a page that cannot be read ends it; -1
 * for unknown (p itself unreadable) */
static __s64 strlen_at(struct vm *m, __u64 p, __u64 max)
{
	char buf[128];
	__u64 n = 0;

	if (!m->env || !m->env->read)
		return -1;
	if (max > STRLEN_MAX)
		max = STRLEN_MAX;
	while (n < max) {
		__u64 at = p + n, want = max - n,
		      page_left = 4096 - (at & 4095);

		if (want > sizeof(buf))
			want = sizeof(buf);
		if (want > page_left)
			want = page_left;
		if (m->env->read(m->env->ctx, buf, at, want))
			return n ? (__s64)n : -1;
		for (__u64 i = 0; i < want; i++)
			if (!buf[i])
				return (__s64)(n + i);
		n += want;
	}
	return (__s64)max;
}

/* VG_OP_MEM: predicate pred of pointer p and length n, from the object
 * map, as user/objmap/objmap.c's vg_objmap_pred answers it: a live object
 * (a heap block, a global), a freed block, the heap between blocks (an
 * arena: no object), or unknown, which sets m->unknown and answers 0 (the
 * guard is then not taken: kapply). Memory the map has no entry for at
 * all (a stack, a mapping of the program's own, a global not filed) is
 * unknown, never "no object"; but freeable(p) and freed(p), which are
 * about heap blocks only, are false there when the map saw every
 * allocation (vg_om_freeable, vg_om_freed). */
static __s64 mem_pred(struct vm *m, __s64 pred, __u64 p, __u64 n)
{
	struct vg_om_obj o;
	__s64 len;

	/* an empty range is valid wherever it is, as the user tier says
	 * (user/objmap/objmap.c) */
	if ((pred == VG_MEM_VALID || pred == VG_MEM_VALID_READ) && !n)
		return 1;
	if (pred == VG_MEM_STRLEN_AT) {	/* the memory, not the map */
		if ((len = strlen_at(m, p, n)) < 0)
			goto unknown;
		return len;
	}
	/* statements about heap blocks, which a complete map can make of
	 * memory it has no entry for (vigil_objmap_pred.h) */
	if (pred == VG_MEM_FREEABLE || pred == VG_MEM_FREED) {
		if (!m->om)
			goto unknown;
		len = pred == VG_MEM_FREED ? vg_om_freed(m->om, p)
					   : vg_om_freeable(m->om, p);
		if (len < 0)
			goto unknown;
		return len;
	}
	if (m->om && vg_om_answer((__u32)pred, p, n,
				  vg_om_lookup(m->om, p, &o), &o, &len))
		return len;
unknown:
	m->unknown = 1;
	return 0;
}

/* One instruction; returns 1 to stop the loop. */
static int vm_step(struct vm *m)
{
	const struct vg_insn *in;
	__u32 k;
	__s64 a, b;

	if (m->err || m->pc >= m->len)
		return 1;
	k = m->off + m->pc;
	if (k >= VG_KMAX_CODE) {	/* the kcode map's lookup failing */
		m->err = 1;
		return 1;
	}
	in = &m->code[k];
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
		m->st[SP(m->sp)] = (__s64)env_now(m->env);
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
		b = m->st[SP(m->sp - 1)];
		a = m->st[SP(m->sp - 2)];
		m->sp--;
		m->st[SP(m->sp - 1)] = mem_pred(m, in->imm, (__u64)a,
						 (__u64)b);
		break;
	default:
		/* binary operators; anything else (LDGLOB, STGLOB: the
		 * user tier's) is an error, as in the kernel */
		b = m->st[SP(m->sp - 1)];
		a = m->st[SP(m->sp - 2)];
		m->sp--;
		m->st[SP(m->sp - 1)] = vg_binop(in->op, a, b, &m->err);
		break;
	}
	if (m->sp > VG_STACK_MAX)
		m->err = 1;
	return m->err ? 1 : 0;
}

/* Run code [off, off+len); returns the top of stack, 1 when empty. At
 * most VG_KMAX_PROG steps, as bpf_loop's bound. */
static __s64 vm_run(struct vm *m, __u32 off, __u32 len)
{
	m->off = off;
	m->len = len;
	m->pc = 0;
	m->sp = 0;
	for (__u32 i = 0; i < VG_KMAX_PROG; i++)
		if (vm_step(m))
			break;
	if (m->err)
		return 0;
	return m->sp ? m->st[SP(m->sp - 1)] : 1;
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
	__u32 tgid;		/* always 0: no slices keyed by process */
	int create;
	int claimed;		/* res is a slot this thread just claimed */
	int res;		/* a slot index, or KF_* */
};

static inline int kslot_is(const struct vg_kslot *s, const struct kfind *f)
{
	return s->prop == f->prop && s->key[0] == f->k0 &&
	       s->key[1] == f->k1 && s->tgid == f->tgid;
}

static int kfind_step(struct vg_fast_shared *sh, __u32 i, struct kfind *f)
{
	__u32 idx = vg_kslot_probe(f->home, f->h, i) & sh->kslot_mask;
	struct vg_kslot *s = kslot_at(sh, idx);
	__u32 use;

	/* acquire: the key read below is the one READY published */
	use = __atomic_load_n(&s->use, __ATOMIC_ACQUIRE);
	if (use == VG_KSLOT_READY) {
		if (!kslot_is(s, f))
			return 0;	/* another slice: probe on */
		f->res = (int)idx;
		return 1;
	}
	if (use == VG_KSLOT_EMPTY) {
		if (!f->create) {
			f->res = KF_ABSENT;
			return 1;
		}
		if (__atomic_fetch_add(kslot_count(sh), 1, __ATOMIC_SEQ_CST) >=
		    sh->kslot_max) {
			__atomic_fetch_sub(kslot_count(sh), 1,
					   __ATOMIC_SEQ_CST);
			f->res = KF_FULL;
			return 1;
		}
		{
			__u32 want = VG_KSLOT_EMPTY;

			if (__atomic_compare_exchange_n(&s->use, &want,
							VG_KSLOT_CLAIMED, 0,
							__ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST)) {
				f->res = (int)idx;
				f->claimed = 1;
				return 1;
			}
		}
		__atomic_fetch_sub(kslot_count(sh), 1, __ATOMIC_SEQ_CST);
	}
	/* claimed by another thread that is writing its key: it may be
	 * this very slice; wait for it (kready), then look again */
	f->res = KF_WAIT;
	f->h = idx;
	return 1;
}

static int kfind(struct vg_fast_shared *sh, struct kfind *f)
{
	struct vg_kslot *s = kslot_at(sh, f->home);

	/* the common case, the slice in its home */
	if (__atomic_load_n(&s->use, __ATOMIC_ACQUIRE) == VG_KSLOT_READY &&
	    kslot_is(s, f)) {
		f->res = (int)(f->home & sh->kslot_mask);
		return f->res;
	}
	f->res = KF_FULL;	/* every slot of the path taken */
	for (__u32 i = 0; i < VG_KPROBES; i++)
		if (kfind_step(sh, i, f))
			break;
	return f->res;
}

/* KF_WAIT: until the slot another thread claimed is READY, bounded */
static void kready(struct vg_fast_shared *sh, __u32 idx)
{
	struct vg_kslot *s = kslot_at(sh, idx);

	for (__u32 i = 0; i < VG_KLOCK_SPINS; i++) {
		if (__atomic_load_n(&s->use, __ATOMIC_ACQUIRE) ==
		    VG_KSLOT_READY)
			return;
		cpu_relax();
	}
}

static inline int klock_try(struct vg_kslot *s)
{
	__u32 free = 0;

	return __atomic_compare_exchange_n(&s->lock, &free, 1, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static int klock(struct vg_kslot *s)
{
	if (klock_try(s))
		return 1;	/* the common case: nobody else is here */
	for (__u32 i = 0; i < VG_KLOCK_SPINS; i++) {
		cpu_relax();
		/* read before the locked instruction: spinning on a CAS
		 * takes the line from its holder each time */
		if (!__atomic_load_n(&s->lock, __ATOMIC_RELAXED) &&
		    klock_try(s))
			return 1;
	}
	return 0;
}

/* The holder may be a thread of the target that lost its CPU with the
 * lock held: the agent runs in user space, preemptible, unlike a BPF
 * program, and on a busy machine (2,000 threads on one mutex, both CPUs
 * taken) it stays off its CPU longer than klock spins. Giving it the CPU
 * a bounded number of times lets it finish before this event is given
 * up as busy (its verdicts inconclusive). */
#define VG_KLOCK_YIELDS 256
static int klock_long(const struct vg_inproc_env *env, struct vg_kslot *s)
{
	if (klock(s))
		return 1;
	for (__u32 i = 0; env->yield && i < VG_KLOCK_YIELDS; i++) {
		env->yield();
		if (!__atomic_load_n(&s->lock, __ATOMIC_RELAXED) &&
		    klock_try(s))
			return 1;
	}
	return 0;
}

/* The release: every store of the step before the lock word's. On x86-64
 * (TSO) a plain store after a compiler barrier is one, as the kernel's
 * spin_unlock and bpf/kstep.bpf.h's kunlock; a release store is exactly
 * that there (a plain mov the compiler keeps after the step's stores, no
 * locked instruction), a right one elsewhere, and one ThreadSanitizer
 * sees, where it took the asm barrier's for a race. */
static inline void kunlock(struct vg_kslot *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

static void kreport(struct vg_inproc_env *env, __u16 kind, __u16 flags,
		    __u32 event, __u32 prop, __u32 from, __u32 to,
		    const __u64 *key, const __s64 *vars, const __u64 *slot)
{
	struct vg_rec_kstep r;

	r.h.kind = kind;
	r.h.flags = flags | VG_RF_INPROC;	/* the in-process tier's */
	r.h.event = event;
	r.h.pid = env->tgid;
	r.h.tid = env->tid;
	r.h.time_ns = env_now(env);
	r.prop = (__u16)prop;
	r.from = (__u16)from;
	r.to = (__u16)to;
	r.pad = 0;
	r.key[0] = key[0];
	r.key[1] = key[1];
	for (int i = 0; i < VG_KMAX_VARS; i++)
		r.vars[i] = vars[i];
	for (int i = 0; i < VG_NSLOTS; i++)
		r.slot[i] = slot[i];
	/* a dropped record: emit counts it (kstep.h) */
	env->emit(env->ctx, &r, sizeof(r), event);
}

static __s64 kopnd(struct vm *m, const struct vg_kopnd *o)
{
	switch (o->kind) {
	case VG_KO_FIELD:
		return (__s64)m->slot[o->idx < VG_NSLOTS ? o->idx : 0];
	case VG_KO_VAR:
		return m->vars[o->idx & (VG_KMAX_VARS - 1)];
	case VG_KO_PARAM:
		return (__s64)m->key[o->idx & (VG_KMAX_PARAMS - 1)];
	}
	return o->imm;
}

/* the fast form of `a OP b` (vigil_event.h): what its bytecode computes */
static __s64 kexpr(struct vm *m, const struct vg_kexpr *x)
{
	__s64 a = kopnd(m, &x->a), b;

	if (x->op == VG_OP_END)
		return a;
	b = kopnd(m, &x->b);
	return vg_binop(x->op, a, b, &m->err);
}

/* Transition k's guard: its value (1 for none), in its fast form or as
 * bytecode; m->unknown set when a memory predicate in it was unknown */
static __s64 kguard(struct vm *m, const struct vg_ktrans *t, __u32 k)
{
	m->unknown = 0;
	if (t->t[k].guard_fast)
		return kexpr(m, &t->t[k].guard);
	if (!t->t[k].guard_len)
		return 1;
	return vm_run(m, t->t[k].guard_off, t->t[k].guard_len);
}

/* Apply the first transition whose guard holds. Returns the new state, or
 * -1 when no transition matches. m->vars is updated in place. */
static int kapply(struct vg_fast_shared *sh, struct vm *m, __u32 prop,
		  __u32 state, __u32 bind)
{
	const struct vg_ktrans *t =
		ktrans_at(sh, VG_KTRANS_INDEX(prop, state, bind));
	__u32 n = t->n < VG_KMAX_TRANS ? t->n : VG_KMAX_TRANS;

	for (__u32 k = 0; k < n; k++) {
		__s64 held = kguard(m, t, k);

		/* unknown: passed over, whatever its value (the user tier's
		 * choose()) */
		m->unk_step |= m->unknown;
		if (!held || m->unknown)
			continue;
		if (t->t[k].upd_fast) {
			/* statements in order: the second may read the
			 * first */
			__s64 v = kexpr(m, &t->t[k].upd[0]);

			m->vars[t->t[k].upd[0].dst & (VG_KMAX_VARS - 1)] = v;
			if (t->t[k].upd_fast > 1) {
				v = kexpr(m, &t->t[k].upd[1]);
				m->vars[t->t[k].upd[1].dst &
					(VG_KMAX_VARS - 1)] = v;
			}
		} else if (t->t[k].upd_len) {
			m->unknown = 0;
			vm_run(m, t->t[k].upd_off, t->t[k].upd_len);
			m->unk_step |= m->unknown;
		}
		/* (no ktrans_hits: the live view counts the kernel's) */
		return (int)t->t[k].to;	/* the first whose guard holds */
	}
	return -1;
}

static inline void vars_copy(__s64 *to, const __s64 *from)
{
	for (int i = 0; i < VG_KMAX_VARS; i++)
		to[i] = from[i];
}

/* A memory predicate of this step was unknown: counted for the verdict
 * (user/fast/fast.c gives the counts to the monitor), as the user tier's
 * monitor counts it, unless a known guard took a violation (that one is
 * real); kept: the slice is left out of its initial state, so its
 * verdict is inconclusive, not just the step's */
static void count_unknown(struct vg_fast_shared *sh, const struct vg_kprop *p,
			  __u32 prop, int to, int from, const __s64 *vars)
{
	int state = to >= 0 ? to : from, kept = state != 0;

	if (to >= 0 && ((p->violation_mask >> (to & 31)) & 1))
		return;
	for (int i = 0; !kept && i < VG_KMAX_VARS; i++)
		kept = vars[i] != p->init_vars[i];
	__atomic_fetch_add(&sh->kunknown[prop & (VG_KMAX_PROPS - 1)], 1,
			   __ATOMIC_RELAXED);
	if (kept)
		__atomic_fetch_add(&sh->kunknown_kept[prop &
						      (VG_KMAX_PROPS - 1)],
				   1, __ATOMIC_RELAXED);
}

/* The slice key of property p at this event: its parameters' values,
 * from the event's slots (kslot: which slot each parameter binds) */
static void key_of(const struct vg_kprop *p, const __u8 *kslot,
		   const __u64 *slot, __u64 *key)
{
	for (int i = 0; i < VG_KMAX_PARAMS; i++)
		if ((__u32)i < p->nparams)
			key[i] = slot[kslot[i] < VG_NSLOTS ? kslot[i] : 0];
		else
			key[i] = 0;
}

/* where its slot's probe path starts, and goes on (slices are not keyed
 * by process in here: tgid 0) */
static __u32 key_home(__u32 prop, const __u64 *key)
{
	return vg_kslot_home(prop, vg_kslot_key0(key[0], 0), key[1]);
}

static __u32 key_hash(__u32 prop, const __u64 *key)
{
	return vg_kslot_hash(prop, vg_kslot_key0(key[0], 0), key[1]);
}

/* One rule the BPF program has not (kpre, vigil_event.h): an event whose
 * transitions all leave one state, each under a guard that asks the
 * event alone, changes no slice when none of those guards holds, so the
 * slice is not looked up: a cache and TLB miss in a table of tens of
 * megabytes (fishy_size at every malloc, bad_free at every free), and a
 * slot claimed for nothing (fishy_size's slice of every size). A guard
 * that errs or is unknown leaves it to the step, which counts it. */
static int kpre_holds(struct vg_fast_shared *sh, struct vm *m, __u32 prop,
		      __u32 state, __u32 bind)
{
	const struct vg_ktrans *t =
		ktrans_at(sh, VG_KTRANS_INDEX(prop, state, bind));
	__u32 n = t->n < VG_KMAX_TRANS ? t->n : VG_KMAX_TRANS;

	m->err = 0;
	for (__u32 k = 0; k < n; k++)
		if (kguard(m, t, k) || m->unknown || m->err)
			return 1;
	return 0;
}

/* One event for one kernel-tier property; VG_RF_STOPPED when the slice
 * entered a state that stops the process. */
static int kstep_prop(struct vg_inproc_env *env, __u32 prop,
		      const __u8 *kslot, __u32 bind, __u32 event,
		      __u64 *slot, struct vm *m)
{
	struct vg_fast_shared *sh = env->sh;
	struct vg_kprop *p = kprop_at(sh, prop);
	struct vg_ktrans *t;
	struct kfind f = { .prop = prop };
	struct vg_kslot *s;
	__s64 *vars = m->vars;
	int to = -1, from = 0, idx, reborn, taken;
	__u16 flags = 0;

	if (!p)
		return 0;
	key_of(p, kslot, slot, m->key);
	m->err = 0;
	m->unk_step = 0;
	f.k0 = m->key[0];
	f.k1 = m->key[1];
	f.tgid = 0;
	f.home = key_home(prop, m->key);
	f.h = key_hash(prop, m->key);
	/* A slice we have not seen is in the initial state: create it only
	 * if a transition of the initial state on this event changes
	 * something. Two threads may meet a new object at once: one claims
	 * the slot, the other waits until its key is written; then both step
	 * it under its lock. */
	t = ktrans_at(sh, VG_KTRANS_INDEX(prop, 0, bind));
	f.create = t->moves != 0;
	idx = kfind(sh, &f);
	if (idx == KF_WAIT) {
		kready(sh, f.h);
		f.h = key_hash(prop, m->key);
		idx = kfind(sh, &f);
	}
	if (idx == KF_ABSENT)
		return 0;	/* nothing here can leave the initial state */
	if (idx == KF_FULL) {
		count(sh, VG_FCNT_KFULL);
		kreport(env, VG_REC_KFULL, 0, event, prop, 0, 0, m->key, vars,
			slot);
		return 0;
	}
	s = idx >= 0 ? kslot_at(sh, (__u32)idx) : (struct vg_kslot *)0;
	if (s && f.claimed) {
		s->prop = prop;
		s->tgid = f.tgid;
		s->key[0] = f.k0;
		s->key[1] = f.k1;
		s->state = 0;
		vars_copy(s->vars, p->init_vars);
		/* publish: a full barrier, the key is written before READY */
		__atomic_exchange_n(&s->use, VG_KSLOT_READY, __ATOMIC_SEQ_CST);
	}
	if (!s || !klock_long(env, s)) {
		count(sh, VG_FCNT_KBUSY);
		kreport(env, VG_REC_KBUSY, 0, event, prop, 0, 0, m->key, vars,
			slot);
		return 0;
	}
	from = s->state;
	/* A slice in a violation state is a finished instance (the user
	 * tier's tombstone): only an event that creates what it binds
	 * (create_mask) and starts a new instance from the initial state
	 * into a state that is not a violation moves it, and the step is
	 * reported as from the initial state. Any other event is absorbed. */
	reborn = (p->violation_mask >> (from & 31)) & 1;
	if (reborn)
		from = 0;
	vars_copy(vars, reborn ? p->init_vars : s->vars);
	/* the same object used again, not made again: absorbed, its guards
	 * not even asked (the user tier's start(): no memory predicate of
	 * it is counted unknown) */
	if (reborn && !((p->create_mask >> (bind & 31)) & 1))
		to = -1;
	else
		to = kapply(sh, m, prop, (__u32)from, bind);
	taken = to;
	/* the same violation again: absorbed (s->state is still the slice's
	 * own, under its lock) */
	if (to >= 0 && ((p->violation_mask >> (s->state & 31)) & 1) &&
	    ((p->violation_mask >> (to & 31)) & 1))
		to = -1;
	if (to >= 0) {
		vars_copy(s->vars, vars);
		s->state = (__u16)to;
	}
	kunlock(s);
	/* as the transition chosen: a violation a known guard took is
	 * checked, absorbed or not */
	if (m->unk_step)
		count_unknown(sh, p, prop, taken, from, vars);
	if (to < 0)
		return 0;	/* no transition: nothing to report */
	if (m->err) {
		count(sh, VG_FCNT_KERR);
		return 0;
	}
	if ((p->violation_mask >> (to & 31)) & 1)
		flags |= VG_RF_VERDICT;
	/* the caller stops the process before the function runs: the
	 * target halts at the violating call */
	if ((p->stop_mask >> (to & 31)) & 1)
		flags |= VG_RF_STOPPED;
	if (from != to || ((p->notify_mask >> (to & 31)) & 1) ||
	    ((p->notify_mask >> (from & 31)) & 1))
		kreport(env, VG_REC_KSTEP, flags, event, prop, (__u32)from,
			(__u32)to, m->key, vars, slot);
	return flags & VG_RF_STOPPED;
}

int vg_inproc_kstep(struct vg_inproc_env *env, const struct vg_ev_conf *conf,
		    __u32 event, __u64 *slot, int at_entry)
{
	struct vm m;
	__u32 n = conf->nkprops;
	int stopped = 0;

	(void)at_entry;		/* the kernel's rewind only */
	m.code = TABLE(env->sh, kcode_off);
	m.slot = slot;
	m.env = env;
	m.om = env->sh->objmap_off ? TABLE(env->sh, objmap_off)
				   : (struct vg_objmap *)0;
	m.tid = env->tid;
	/* Each property's slice is a slot of its own, hashed apart, in a
	 * table of tens of megabytes: a cache and TLB miss each. Asked for
	 * all at once, the misses overlap instead of coming one after the
	 * other (allocs_bench under five memory specs: the agent's time
	 * was mostly these loads). A property whose guards on this event
	 * read the event alone is asked first (kpre_holds), once: when none
	 * holds, its slot is neither fetched nor stepped. */
	__u32 pass = 0;	/* the properties this event cannot move */

	for (int i = 0; i < VG_KMAX_VARS; i++)
		m.vars[i] = 0;
	for (__u32 k = 0; k < VG_KMAX_EV_PROPS && k < n; k++) {
		const struct vg_kprop *p = kprop_at(env->sh, conf->kprop[k]);

		if (!p)
			continue;
		/* timeouts and checkpoints are the kernel's (kstep.h):
		 * counted for every event of such a property, stepped or not */
		if (p->timed_mask || p->ckpt_mask)
			count(env->sh, VG_FCNT_KUNSUP);
		key_of(p, conf->kslot[k], slot, m.key);
		if (conf->kpre[k] &&
		    !kpre_holds(env->sh, &m, conf->kprop[k], conf->kpre[k] - 1,
				conf->kbind[k])) {
			pass |= 1u << k;	/* nothing to look up */
			continue;
		}
		__builtin_prefetch(kslot_at(env->sh,
					    key_home(conf->kprop[k], m.key)));
	}
	for (__u32 k = 0; k < VG_KMAX_EV_PROPS && k < n; k++) {
		if (pass >> k & 1)
			continue;
		/* KFULL and KBUSY records carry no variables of a slice */
		for (int i = 0; i < VG_KMAX_VARS; i++)
			m.vars[i] = 0;
		stopped |= kstep_prop(env, conf->kprop[k], conf->kslot[k],
				      conf->kbind[k], event, slot, &m);
	}
	return stopped;
}

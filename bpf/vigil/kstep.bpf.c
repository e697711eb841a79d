// SPDX-License-Identifier: GPL-2.0
/* The kernel tier's interpreter as a program of its own: vg_kstep steps
 * the event's properties, each in a global function (the VM, the slice
 * table and the transitions are kstep.bpf.h's; the timeouts' deadlines,
 * ktimer.bpf.h's; bpf/vigil.bpf.h says which unit holds what). */
#include "vigil.bpf.h"
#include "ktimer.bpf.h"
#include "kmem.bpf.h"

/* also linked alone (build/bpf/kstep.bpf.o, user/probe/split_load.c) */
char LICENSE[] SEC("license") = "GPL";

/* kstep.bpf.h says why a global function (err: never NULL; the check is
 * for the verifier, which takes a global function's pointer as nullable) */
__noinline __s64 vg_kbinop(__u32 op, __s64 a, __s64 b, int *err)
{
	if (!err)
		return 0;
	return vg_binop(op, a, b, err);
}

/* The slice kslots[idx], locked, its new variables written, enters state
 * `to`: set or clear its deadline (ktimer.bpf.h), with the event's slots
 * and thread (kstep_args). A global function, checked once on its own:
 * as a static one it was checked again under every state of its caller,
 * its deadline's bytecode with it (7,000 of vg_kstep's 34,000
 * instructions). err: the step's so far; returns it, or the deadline's. */
__noinline int vg_ktimer_enter(__u32 idx, __u32 to, int err)
{
	__u32 zero = 0, prop, dv;
	struct kstep_args *a = bpf_map_lookup_elem(&kstep_args, &zero);
	struct vg_kslot *s = bpf_map_lookup_elem(&kslots, &idx);
	struct vg_kprop *p;
	struct vm *m;

	if (!a || !s)
		return 1;
	prop = s->prop;
	p = bpf_map_lookup_elem(&kprops, &prop);
	if (!p)
		return 1;
	m = &a->tm;
	m->err = err;
	m->tid = a->tid;
	__builtin_memcpy(m->slot, a->m.slot, sizeof(m->slot));
	m->key[0] = s->key[0];
	m->key[1] = s->key[1];
	__builtin_memcpy(m->vars, s->vars, sizeof(m->vars));
	ktimer_enter(m, p, prop, to, s, idx, m->tid, cur_tgid(), m->slot, 0);
	dv = p->deadline_var & (VG_KMAX_VARS - 1);
	s->vars[dv] = m->vars[dv];
	return m->err;
}

/* One event for one kernel-tier property. */
static __always_inline void kstep_prop(__u32 prop, __u8 *kslot, __u32 bind,
				       __u32 event,
				       __u32 tid, __u64 *slot,
				       struct vm *m)
{
	struct vg_kprop *p = bpf_map_lookup_elem(&kprops, &prop);
	__u32 t0 = VG_KTRANS_INDEX(prop, 0, bind);
	struct vg_ktrans *t;
	struct kfind f = { .prop = prop };
	struct vg_kslot *s;
	__s64 *vars = m->vars;
	int to = -1, from = 0, idx, taken;
	bool reborn;
	__u16 flags = 0;

	if (!p)
		return;
	for (int i = 0; i < VG_KMAX_PARAMS; i++)
		if (i < p->nparams)
			m->key[i] = slot[kslot[i] < VG_NSLOTS ? kslot[i] : 0];
		else
			m->key[i] = 0;
	m->err = 0;
	m->unk_step = 0;
	f.k0 = m->key[0];
	f.k1 = m->key[1];
	f.tgid = kslot_by_tgid ? cur_tgid() : 0;
	f.home = vg_kslot_home(prop, vg_kslot_key0(f.k0, f.tgid), f.k1);
	f.h = vg_kslot_hash(prop, vg_kslot_key0(f.k0, f.tgid), f.k1);
	/* A slice we have not seen is in the initial state: create it only
	 * if a transition of the initial state on this event changes
	 * something. Two threads may meet a new object at once: one claims
	 * the slot, the other waits until its key is written; then both step
	 * it under its lock. */
	t = bpf_map_lookup_elem(&ktrans, &t0);
	f.create = t && t->moves;
	idx = kfind(&f);
	if (idx == KF_WAIT) {
		__u32 w = f.h;

		bpf_loop(VG_KLOCK_SPINS, kready_step, &w, 0);
		f.h = vg_kslot_hash(prop, vg_kslot_key0(f.k0, f.tgid), f.k1);
		idx = kfind(&f);
	}
	if (idx == KF_ABSENT)
		return;	/* nothing here can leave the initial state */
	if (idx == KF_FULL) {
		count(&counters, VG_CNT_KFULL);
		kreport(VG_REC_KFULL, 0, event, prop, 0, 0, tid, m->key,
			vars, slot);
		return;
	}
	s = idx >= 0 ? bpf_map_lookup_elem(&kslots, &idx) : NULL;
	if (s && f.claimed) {
		s->prop = prop;
		s->tgid = f.tgid;
		s->key[0] = f.k0;
		s->key[1] = f.k1;
		s->state = 0;
		__builtin_memcpy(s->vars, p->init_vars, sizeof(s->vars));
		/* publish: a full barrier, the key is written before READY */
		__sync_lock_test_and_set(&s->use, VG_KSLOT_READY);
	}
	if (!s || !klock(s)) {
		count(&counters, VG_CNT_KBUSY);
		kreport(VG_REC_KBUSY, 0, event, prop, 0, 0, tid, m->key, vars,
			slot);
		return;
	}
	from = s->state;
	/* A slice in a violation state is a finished instance (the user
	 * tier's tombstone, user/monitor/monitor.c): only an event that
	 * creates what it binds (create_mask: the address handed out again)
	 * and starts a new instance from the initial state into a state
	 * that is not a violation moves it, and the step is reported as
	 * from the initial state. Any other event is absorbed. */
	reborn = (p->violation_mask >> (from & 31)) & 1;
	/* from 0 when reborn, by a mask, not a branch: a constant `from`
	 * and a live `reborn` made the verifier walk the transitions twice
	 * (vg_kstep: 87,457 -> 176,605 instructions) */
	from &= (__u32)reborn - 1;
	__builtin_memcpy(vars, s->vars, sizeof(m->vars));
	if (reborn)
		__builtin_memcpy(vars, p->init_vars, sizeof(m->vars));
	to = kapply(m, prop, from, bind);
	/* the same object used again, not made again: absorbed, and what
	 * its guards asked not counted (inproc/kstep.c's kstep_prop does not
	 * ask them: the user tier's start(); here they run all the same, a
	 * branch around kapply doubling its verification, as above) */
	if (reborn && !((p->create_mask >> (bind & 31)) & 1)) {
		to = -1;
		m->unk_step = 0;
	}
	taken = to;
	/* the same violation again: absorbed (s->state is still the slice's
	 * own, under its lock) */
	if (to >= 0 && ((p->violation_mask >> (s->state & 31)) & 1) &&
	    ((p->violation_mask >> (to & 31)) & 1))
		to = -1;
	if (to >= 0) {
		__builtin_memcpy(s->vars, vars, sizeof(m->vars));
		if (p->timed_mask) {	/* set or clear the deadline */
			__u32 dv = p->deadline_var & (VG_KMAX_VARS - 1);

			m->err = vg_ktimer_enter(idx, to, m->err);
			vars[dv] = s->vars[dv];
		}
		s->state = to;
	}
	kunlock(s);
	/* as the transition chosen: a violation a known guard took is
	 * checked, absorbed or not */
	if (kmem_on && m->unk_step)
		kmem_count_unknown(p, prop, taken, from, vars);
	if (to < 0)
		return;		/* no transition: nothing to report */
	if (m->err) {
		count(&counters, VG_CNT_KERR);
		return;
	}
	if ((p->violation_mask >> (to & 31)) & 1)
		flags |= VG_RF_VERDICT;
	if ((p->stop_mask >> (to & 31)) & 1) {
		/* Stops every thread of the process before the probed
		 * instruction runs: the target halts at the violating call. */
		bpf_send_signal(SIGSTOP);
		flags |= VG_RF_STOPPED | rewind_plan(m, event);
	} else if (((p->ckpt_mask >> (to & 31)) & 1) &&
		   bpf_ktime_get_ns() >= ckpt_next_ns) {
		/* two CPUs may both pass: user space handles a second stop
		 * like the first, it costs a checkpoint skipped, no more */
		ckpt_next_ns = ~0ull;
		bpf_send_signal(SIGSTOP);
		flags |= VG_RF_CKPT;
	}
	if (from != to || ((p->notify_mask >> (to & 31)) & 1) ||
	    ((p->notify_mask >> (from & 31)) & 1))
		kreport(VG_REC_KSTEP, flags, event, prop, from, to, tid,
			m->key, vars, slot);
}

/* The event vg_entry_k or vg_return_k handed over (the per-CPU
 * kstep_args, *a) and its entry in the event table; NULL when either
 * lookup fails (never, but the verifier asks) */
static __always_inline struct vg_ev_conf *kstep_event(struct kstep_args **a,
						      __u32 *event)
{
	__u32 zero = 0;

	*a = bpf_map_lookup_elem(&kstep_args, &zero);
	if (!*a)
		return NULL;
	*event = (*a)->event;
	return bpf_map_lookup_elem(&ev_conf, event);
}

/* One property of the event vg_kstep handles (its k-th): a global
 * function, which the verifier checks once, on its own, whatever its
 * caller's state; as a bpf_loop callback of vg_kstep it was checked again
 * for each state vg_kstep's code after the loop could be reached with
 * (25,818 instructions without that code, 78,437 with the clock's reset
 * after the loop). The event's slots, thread and rewind plan are in the
 * per-CPU kstep_args. */
__noinline int vg_kstep_prop(__u32 k)
{
	struct kstep_args *a;
	__u32 event;
	struct vg_ev_conf *conf = kstep_event(&a, &event);

	if (!conf)
		return 0;
	k &= VG_KMAX_EV_PROPS - 1;
	/* a->m: the slots, uip, usp and the rewind another property of
	 * this event may have planned are kept from one to the next */
	a->m.tid = a->tid;
	kstep_prop(conf->kprop[k], conf->kslot[k], conf->kbind[k], event,
		   a->tid, a->m.slot, &a->m);
	return 0;
}

/* The kernel tier's step of the event vg_entry_k or vg_return_k just
 * handled (their tail call, above) */
SEC("uprobe")
int vg_kstep(struct pt_regs *ctx)
{
	struct vg_uregs *regs = (struct vg_uregs *)ctx;	/* no CO-RE */
	struct kstep_args *a;
	__u32 event, n;
	struct vg_ev_conf *conf = kstep_event(&a, &event);
	struct vg_fast_omev *om;

	if (!conf)
		return 0;
	n = conf->nkprops;
	/* no rewind but at an entry: uip 0 says so (rewind_plan) */
	a->m.uip = 0;
	a->m.usp = 0;
	a->m.rewind = 0;
	if (kstop_rewind && (a->at_entry & 1)) {
		a->m.uip = regs->ip;
		a->m.usp = regs->sp;
	}
	for (__u32 i = 0; i < VG_KMAX_EV_PROPS; i++) {
		if (i >= n)
			break;
		vg_kstep_prop(i);
	}
	/* an allocation event: its block filed or freed in the object map,
	 * after its properties' guards saw the map as it was (kmem.bpf.h) */
	if (kmem_on) {
		om = bpf_map_lookup_elem(&om_ev, &event);
		if (om && om->role)
			vg_kmem_event(event, a->at_entry);
	}
	/* only what rewind_plan planned */
	rewind_apply(regs, a->tid, a->m.uip, a->m.usp, a->m.rewind);
	/* the event's own time is over (bpf/evclock.bpf.h) */
	if (conf->flags & (VG_EVF_USER | VG_EVF_KTIME))
		ev_clock_set(0, 0);
	return 0;
}

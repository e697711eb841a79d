/* Exact kernel-tier stops at a function's entry.
 *
 * bpf_send_signal(SIGSTOP) takes effect when the thread returns to user
 * space, and the kernel runs the probed instruction first (emulated or
 * single-stepped out of line): a stop at `before f` used to leave f's
 * first instruction done (a store already made). Since Linux 6.18 a
 * uprobe program may write its registers, and handle_swbp() then skips
 * the probed instruction when the handlers moved the ip. So a stopping
 * probe at f's entry sends the thread back to the call that entered f:
 * ip = the call instruction, sp += 8 (the return address popped). Nothing
 * of f has run; the gdb command file (user/act/gdb.c) steps the call
 * again so that frame #0 is f at its first instruction.
 *
 * The call must be one we can verify from its bytes, reading backwards
 * from the return address at [sp]:
 *   e8 rel32         whose target is f, or a PLT stub that jumps to f
 *   ff 15 disp32     call *GOT(%rip) (-fno-plt), the slot holding f
 * A call through a register, a tail call (jmp) or an unresolved lazy PLT
 * entry is not rewound: the stop stays where it was, after f's first
 * instruction, and the record says so (no VG_RF_REWOUND).
 *
 * The repeated hit: when the thread runs the call again every probe at f
 * fires again. Each link (its cookie) lets that hit of this thread through
 * once (`rewound`), so the event is not counted or stepped twice. A
 * function with a return probe is never rewound (user space leaves its
 * events out of rewind_ok): the kernel hijacks the return address after
 * the handlers ran, at the sp we moved.
 *
 * kstop_rewind is set by user space only when the kernel accepts a ctx
 * write (user/probe/rewind.c); otherwise the verifier never sees one.
 */
#ifndef VIGIL_REWIND_BPF_H
#define VIGIL_REWIND_BPF_H

#define VG_REWIND_LINKS 8	/* links at one address let through */
#define VG_REWIND_WINDOW 32	/* the probe sits this far into f at most
				 * (user/probe/placement.c skips endbr64,
				 * nops, test/cmp) */

const volatile bool kstop_rewind VG_SHARED = false;

/* The registers of a uprobe's thread as x86-64's entry code saves them
 * (struct pt_regs, laid out as arch/x86/include/uapi/asm/ptrace.h has it),
 * read and written here without CO-RE: vmlinux.h's pt_regs would give the
 * kernel tier's step relocations against the kernel's BTF, and its own
 * object (build/bpf/kstep.bpf.o) then parses that BTF to load, ~10 ms of
 * vigil's start-up. The layout is the build kernel's, checked below. */
struct vg_uregs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
	__u64 orig_ax, ip, cs, flags, sp, ss;
};
_Static_assert(__builtin_offsetof(struct vg_uregs, ip) ==
	       __builtin_offsetof(struct pt_regs, ip) &&
	       __builtin_offsetof(struct vg_uregs, sp) ==
	       __builtin_offsetof(struct pt_regs, sp),
	       "x86-64's struct pt_regs");

struct vg_rewound {
	__u64 bp, sp;		/* the probed address and sp at the hit */
	__u64 call;		/* where the thread was sent back to */
	__u64 seen[VG_REWIND_LINKS];	/* cookies that let the re-hit by */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);	/* a thread that died
						 * stopped leaves its entry */
	__uint(max_entries, 4096);
	__type(key, __u32);	/* tid */
	__type(value, struct vg_rewound);
} rewound SEC(".maps") VG_SHARED;

/* per event: 1 when its probe may rewind (an entry event of the kernel
 * tier whose function has no return probe) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VG_MAX_EVENTS);
	__type(key, __u32);
	__type(value, __u8);
} rewind_ok SEC(".maps") VG_SHARED;

static __always_inline bool near_probe(__u64 target, __u64 bp)
{
	return target <= bp && bp - target <= VG_REWIND_WINDOW;
}

/* A PLT stub at t whose GOT slot holds f (bound already). */
static __always_inline bool plt_to(__u64 t, __u64 bp)
{
	__u8 c[12];
	__s32 disp;
	__u64 next, got;

	if (bpf_probe_read_user(c, sizeof(c), (void *)t))
		return false;
	if (c[0] == 0xff && c[1] == 0x25) {		/* jmp *x(%rip) */
		__builtin_memcpy(&disp, &c[2], 4);
		next = t + 6;
	} else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e &&
		   c[3] == 0xfa && c[4] == 0xf2 && c[5] == 0xff &&
		   c[6] == 0x25) {	/* endbr64; bnd jmp *x(%rip) */
		__builtin_memcpy(&disp, &c[7], 4);
		next = t + 11;
	} else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e &&
		   c[3] == 0xfa && c[4] == 0xff && c[5] == 0x25) {
		__builtin_memcpy(&disp, &c[6], 4);	/* endbr64; jmp */
		next = t + 10;
	} else {
		return false;
	}
	if (bpf_probe_read_user(&got, sizeof(got),
				(void *)(next + (__s64)disp)))
		return false;
	return near_probe(got, bp);
}

/* The address of the call that entered the function probed at bp, with
 * the return address at [sp]; 0 when it is not one we can verify. */
static __always_inline __u64 rewind_call_site(__u64 bp, __u64 sp)
{
	__u64 ret, got;
	__u8 c[6];
	__s32 disp;

	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)sp) ||
	    ret < 6 || bpf_probe_read_user(c, sizeof(c), (void *)(ret - 6)))
		return 0;
	__builtin_memcpy(&disp, &c[2], 4);	/* rel32 or disp32 */
	if (c[1] == 0xe8) {
		__u64 t = ret + (__s64)disp;

		return near_probe(t, bp) || plt_to(t, bp) ? ret - 5 : 0;
	}
	if (c[0] == 0xff && c[1] == 0x15) {
		if (bpf_probe_read_user(&got, sizeof(got),
					(void *)(ret + (__s64)disp)))
			return 0;
		return near_probe(got, bp) ? ret - 6 : 0;
	}
	return 0;
}

/* At a stop decided in the kernel tier (kstep_prop): can this thread be
 * sent back to the call? Plans it in m (m->rewind) and returns
 * VG_RF_REWOUND for the record, or 0 when the stop stays after f's first
 * instruction. m->uip/usp are the registers at an entry probe, 0 else. */
static __always_inline __u16 rewind_plan(struct vm *m, __u32 event)
{
	struct vg_rewound *r;
	__u8 *ok;

	if (!kstop_rewind || !m->uip)
		return 0;
	if (m->rewind)
		return VG_RF_REWOUND;	/* another property of this event */
	/* another program at this address already rewound this hit */
	r = bpf_map_lookup_elem(&rewound, &m->tid);
	if (r && r->call == m->uip && r->sp + 8 == m->usp)
		return VG_RF_REWOUND;
	ok = bpf_map_lookup_elem(&rewind_ok, &event);
	if (!ok || !*ok)
		return 0;
	m->rewind = rewind_call_site(m->uip, m->usp);
	return m->rewind ? VG_RF_REWOUND : 0;
}

/* After the properties were stepped: move the registers as planned, and
 * arm the let-through of the repeated hit. */
static __always_inline void rewind_apply(struct vg_uregs *ctx, __u32 tid,
					 __u64 uip, __u64 usp, __u64 call)
{
	struct vg_rewound r = { .bp = uip, .sp = usp, .call = call };

	if (!kstop_rewind || !call)
		return;
	bpf_map_update_elem(&rewound, &tid, &r, BPF_ANY);
	ctx->ip = call;
	ctx->sp = usp + 8;
}

/* At every entry probe: true for the repeated hit of a rewound call, which
 * this link lets through once. A hit with other registers (the same hit,
 * after the program that rewound it changed them; or another call) is
 * handled as usual; this link's second hit at the same place is a new
 * call and ends the let-through. */
static __always_inline bool rewind_rehit(struct pt_regs *ctx, __u64 cookie,
					 __u32 tid)
{
	struct vg_rewound *r;

	if (!kstop_rewind)
		return false;
	r = bpf_map_lookup_elem(&rewound, &tid);
	if (!r || r->bp != PT_REGS_IP(ctx) || r->sp != PT_REGS_SP(ctx))
		return false;
	for (int i = 0; i < VG_REWIND_LINKS; i++) {
		if (r->seen[i] == cookie) {
			bpf_map_delete_elem(&rewound, &tid);
			return false;
		}
		if (!r->seen[i]) {
			r->seen[i] = cookie;
			return true;
		}
	}
	bpf_map_delete_elem(&rewound, &tid);
	return false;
}

#endif

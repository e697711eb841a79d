/* The stubs, as machine code (x86-64), written by hand: a few fixed
 * instruction sequences, with the hook's index and two addresses as their
 * immediates. Both build a struct vg_fast_regs (include/vigil_fast.h) on
 * the stack by pushes, last field first, and call the agent with the
 * stack 16-byte aligned, as the ABI wants at a call:
 *
 * entry stub, reached by the patched function's jmp, so %rsp = E with
 * E = 8 (mod 16), pointing at the return address:
 *	push %rsp			regs.rsp = E (the value before the push)
 *	push %r11 ... push %rdi		the rest, down to regs.rdi at E - 80
 *	pushf				flags: E - 88 = 0 (mod 16)
 *	lea 8(%rsp), %rdi		&regs
 *	mov $hook, %esi
 *	movabs $agent_entry, %rax
 *	call *%rax
 *	btrq $8, (%rsp)			no trap flag: a pushf single-stepped
 *					by gdb (stepi) saved it set, and the
 *					popf would trap after every
 *					instruction from then on
 *	popf; pop %rdi ... pop %r11	as they were (the agent may have
 *					rewritten the return address at E:
 *					memory, not a register)
 *	lea 8(%rsp), %rsp		drop regs.rsp, flags untouched
 *	jmp *0(%rip); .quad reloc	the relocated first instructions
 *
 * return stub, reached by the function's own `ret`, %rsp = R = E + 8,
 * 0 (mod 16); rax and rdx hold the return value (xmm0/xmm1 too, which
 * the agent, built -mgeneral-regs-only, does not touch; nor does the
 * vDSO's clock_gettime, which it calls: see inproc/README.md):
 *	push %rsp; push %r11 ... push %rdi	regs, at R - 80 = 0 (mod 16)
 *	mov %rsp, %rdi; mov $hook, %esi
 *	movabs $agent_return, %rax; call *%rax
 *	mov %rax, 72(%rsp)		the original return address, in
 *					regs.rsp's place
 *	pop %rdi ... pop %r11		rax and rdx as the function left them
 *	lea 8(%rsp), %rsp
 *	jmp *-8(%rsp)			the kernel keeps 128 bytes below
 *					%rsp out of signal frames: the
 *					address stays put until the jump
 * Flags are dead after a return (the ABI), so the return stub leaves
 * them. */
#include <string.h>

#include "fast/tramp.h"

struct emit {
	uint8_t *p, *end;
	int bad;
};

static void put(struct emit *e, const void *b, size_t n)
{
	if (e->p + n > e->end) {
		e->bad = 1;
		return;
	}
	memcpy(e->p, b, n);
	e->p += n;
}

#define PUT(e, ...) do {						\
		const uint8_t b_[] = { __VA_ARGS__ };			\
		put(e, b_, sizeof(b_));					\
	} while (0)

static void put_u32(struct emit *e, uint32_t v)
{
	put(e, &v, 4);	/* x86-64: little-endian, as the immediates */
}

static void put_u64(struct emit *e, uint64_t v)
{
	put(e, &v, 8);
}

/* push %r11, %r10, %rax, %r9, %r8, %rcx, %rdx, %rsi, %rdi: the fields of
 * struct vg_fast_regs before rsp, last first */
static void push_regs(struct emit *e)
{
	PUT(e, 0x41, 0x53, 0x41, 0x52, 0x50, 0x41, 0x51, 0x41, 0x50, 0x51,
	    0x52, 0x56, 0x57);
}

static void pop_regs(struct emit *e)
{
	PUT(e, 0x5f, 0x5e, 0x5a, 0x59, 0x41, 0x58, 0x41, 0x59, 0x58, 0x41,
	    0x5a, 0x41, 0x5b);
}

/* mov $hook, %esi; movabs $fn, %rax; call *%rax */
static void call_agent(struct emit *e, uint32_t hook, uint64_t fn)
{
	PUT(e, 0xbe);
	put_u32(e, hook);
	PUT(e, 0x48, 0xb8);
	put_u64(e, fn);
	PUT(e, 0xff, 0xd0);
}

/* The entry stub's way on: registers back, then the relocated first
 * instructions */
static void entry_on(struct emit *e, uint64_t reloc)
{
	PUT(e, 0x48, 0x0f, 0xba, 0x34, 0x24, 0x08);	/* btrq $8, (%rsp) */
	PUT(e, 0x9d);				/* popf */
	pop_regs(e);
	PUT(e, 0x48, 0x8d, 0x64, 0x24, 0x08);	/* lea 8(%rsp), %rsp */
	PUT(e, 0xff, 0x25, 0, 0, 0, 0);		/* jmp *0(%rip) */
	put_u64(e, reloc);
}

/* The agent returned 1: a kernel-tier stop state. tgkill(getpid(),
 * gettid(), SIGSTOP) with the frame still on the stack, flags at %rsp:
 * stopped right after the third syscall (VG_TRAMP_STOPPED), with every
 * register of the call but rax, rdi, rsi, rdx, rcx and r11 as it was
 * and those in the frame, vigil can put the thread back on the
 * function's first instruction (fast_rewind.c). The signal is this
 * thread's: the whole process stops all the same, and under gdb it is
 * this thread that reports it (a kill() would go to whichever thread
 * takes it). Resumed as it is (vigil gone), it goes on as without the
 * stop. */
static void entry_stop(struct emit *e)
{
	PUT(e, 0xb8, 39, 0, 0, 0, 0x0f, 0x05);	/* mov $SYS_getpid, %eax; syscall */
	PUT(e, 0x89, 0xc7);			/* mov %eax, %edi */
	PUT(e, 0xb8, 186, 0, 0, 0, 0x0f, 0x05);	/* mov $SYS_gettid, %eax; syscall */
	PUT(e, 0x89, 0xc6);			/* mov %eax, %esi */
	PUT(e, 0xba, 19, 0, 0, 0);		/* mov $SIGSTOP, %edx */
	PUT(e, 0xb8, 234, 0, 0, 0, 0x0f, 0x05);	/* mov $SYS_tgkill, %eax; syscall */
}

int vg_tramp_entry_stub(uint8_t *buf, size_t cap, uint64_t at, uint32_t hook,
			uint64_t agent_entry, uint64_t reloc)
{
	struct emit e = { buf, buf + cap, 0 };
	uint8_t *jnz;

	PUT(&e, 0x54);				/* push %rsp */
	push_regs(&e);
	PUT(&e, 0x9c);				/* pushf */
	PUT(&e, 0x48, 0x8d, 0x7c, 0x24, 0x08);	/* lea 8(%rsp), %rdi */
	call_agent(&e, hook, agent_entry);
	PUT(&e, 0x85, 0xc0);			/* test %eax, %eax */
	jnz = e.p;
	PUT(&e, 0x75, 0);			/* jnz stop */
	entry_on(&e, reloc);
	if (!e.bad)
		jnz[1] = (uint8_t)(e.p - (jnz + 2));
	entry_stop(&e);
	if (!e.bad && e.p - buf != VG_TRAMP_STOPPED)
		return -1;	/* tramp.h's offset is wrong */
	entry_on(&e, reloc);
	return e.bad ? -1 : (int)(e.p - buf);
}

int vg_tramp_return_stub(uint8_t *buf, size_t cap, uint64_t at, uint32_t hook,
			 uint64_t agent_return)
{
	struct emit e = { buf, buf + cap, 0 };

	PUT(&e, 0x54);				/* push %rsp */
	push_regs(&e);
	PUT(&e, 0x48, 0x89, 0xe7);		/* mov %rsp, %rdi */
	call_agent(&e, hook, agent_return);
	PUT(&e, 0x48, 0x89, 0x44, 0x24, 0x48);	/* mov %rax, 72(%rsp) */
	pop_regs(&e);
	PUT(&e, 0x48, 0x8d, 0x64, 0x24, 0x08);	/* lea 8(%rsp), %rsp */
	PUT(&e, 0xff, 0x64, 0x24, 0xf8);	/* jmp *-8(%rsp) */
	return e.bad ? -1 : (int)(e.p - buf);
}

/* valgrind's client requests (valgrind.h, memcheck.h from Debian's
 * valgrind package), as BPF and user space both need them: the amd64
 * magic sequence a request is, and the requests vigil acts on.
 *
 * A request is `rol $3,%rdi; rol $13,%rdi; rol $61,%rdi; rol $51,%rdi`
 * (128 bits of rotation: %rdi is unchanged) then `xchg %rbx,%rbx`, with
 * %rax pointing to {request, arg1..arg5} and the result in %rdx, which
 * natively keeps the default the macro put there. vigil is not valgrind:
 * it never changes %rdx (RUNNING_ON_VALGRIND stays 0); it reads the
 * array at the xchg (bpf/vigil/creq.bpf.c) and acts on the leak
 * requests below (user/session/leaks_creq.c). */
#ifndef VIGIL_CREQ_H
#define VIGIL_CREQ_H

/* the preamble's 16 bytes, then the xchg's 3, where the probe goes */
#define VG_CREQ_PREAMBLE                                               \
	{ 0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d,              \
	  0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33 }
#define VG_CREQ_PREAMBLE_LEN 16
#define VG_CREQ_XCHG { 0x48, 0x87, 0xdb }	/* xchg %rbx,%rbx */
#define VG_CREQ_XCHG_LEN 3

/* memcheck's requests (VG_USERREQ_TOOL_BASE('M','C') + n) */
#define VG_CREQ_MC_BASE 0x4d430000u
#define VG_CREQ_DO_LEAK_CHECK (VG_CREQ_MC_BASE + 6)
#define VG_CREQ_COUNT_LEAKS (VG_CREQ_MC_BASE + 7)
#define VG_CREQ_COUNT_LEAK_BLOCKS (VG_CREQ_MC_BASE + 12)

/* the words of the request array the probe reads */
#define VG_CREQ_WORDS 6

/* is this a request vigil acts on (the probe drops the others, which
 * then cost the program one uprobe hit and nothing more) */
#define VG_CREQ_WANTED(req)                                            \
	((req) == VG_CREQ_DO_LEAK_CHECK || (req) == VG_CREQ_COUNT_LEAKS || \
	 (req) == VG_CREQ_COUNT_LEAK_BLOCKS)

#endif

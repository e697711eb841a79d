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
 * requests below (user/session/leaks_creq.c) and on those that tell
 * memcheck not to report (user/watchset/errquiet.h). */
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

/* the requests by which a program tells memcheck not to report
 * (user/watchset/errquiet.h): valgrind's core request, then memcheck's */
#define VG_CREQ_CHANGE_ERR_DISABLEMENT 0x1801u	/* arg1: +1 off, -1 on */
#define VG_CREQ_MAKE_MEM_NOACCESS (VG_CREQ_MC_BASE + 0)
#define VG_CREQ_MAKE_MEM_UNDEFINED (VG_CREQ_MC_BASE + 1)
#define VG_CREQ_MAKE_MEM_DEFINED (VG_CREQ_MC_BASE + 2)
#define VG_CREQ_ENABLE_ADDR_ERRS_IN_RANGE (VG_CREQ_MC_BASE + 13)
#define VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE (VG_CREQ_MC_BASE + 14)

/* the words of the request array the probe reads */
#define VG_CREQ_WORDS 6

/* is this a request vigil acts on (the probe drops the others, which
 * then cost the program one uprobe hit and nothing more): the leak
 * requests, which hold the process for the check (under --leak-check,
 * VG_EVF_CREQ_LEAKS), and those that silence errors, which do not
 * (whenever a property watches freed blocks, VG_EVF_CREQ_ERRS) */
#define VG_CREQ_LEAK_REQ(req)                                          \
	((req) == VG_CREQ_DO_LEAK_CHECK || (req) == VG_CREQ_COUNT_LEAKS || \
	 (req) == VG_CREQ_COUNT_LEAK_BLOCKS)
#define VG_CREQ_ERRS_REQ(req)                                          \
	((req) == VG_CREQ_CHANGE_ERR_DISABLEMENT ||                      \
	 (req) == VG_CREQ_MAKE_MEM_NOACCESS ||                           \
	 (req) == VG_CREQ_MAKE_MEM_UNDEFINED ||                          \
	 (req) == VG_CREQ_MAKE_MEM_DEFINED ||                            \
	 (req) == VG_CREQ_ENABLE_ADDR_ERRS_IN_RANGE ||                   \
	 (req) == VG_CREQ_DISABLE_ADDR_ERRS_IN_RANGE)

#endif

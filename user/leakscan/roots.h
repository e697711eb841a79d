/* The roots of a stopped process and the reading of its blocks, for the
 * leak scan (scan.h). Reads only (process_vm_readv, /proc), writes
 * nothing; every thread must already be stopped (SIGSTOP, or a gdb stop).
 *
 * Roots:
 *  - every thread's stack from its stack pointer (/proc/PID/task/TID/
 *    syscall; not the red zone below it) to the end of its mapping: for a pthread, that end holds its
 *    thread control block and static TLS (glibc puts them at the top of
 *    the thread's stack);
 *  - every thread's general registers, when vigil can seize it with
 *    ptrace for a moment (not while gdb is attached: then the registers
 *    are missing and said so);
 *  - every other readable, writable mapping: the data and bss of every
 *    loaded object, the main thread's TLS and TCB (ld.so allocates them in
 *    a mapping of its own), the program's own mmap'd memory;
 * except the heap's: [heap], an anonymous mapping holding a live block
 * (malloc's arenas and mmap'd chunks: their free chunks hold stale
 * pointers; the blocks in them are scanned when reached), a pthread stack
 * no live thread is on (glibc's cache of dead threads' stacks), and
 * devices (/dev/..., never read). A bss that the kernel merged with a
 * mapping holding a block is scanned except for the blocks' bytes. */
#ifndef VIGIL_LEAKSCAN_ROOTS_H
#define VIGIL_LEAKSCAN_ROOTS_H

#include <stdint.h>
#include <sys/types.h>

#include "leakscan/scan.h"
#include "util/err.h"

struct vg_leak_roots_info {
	int threads;		/* stacks scanned */
	int threads_regs;	/* of which registers were read too */
	int regions;		/* root mappings (stacks apart) */
	uint64_t root_bytes;	/* bytes read as roots, stacks included */
	uint64_t unreadable;	/* root bytes that could not be read */
	uint64_t blocks_unread;	/* blocks whose contents could not be read */
};

/* Read the contents of blocks[0..n) (their data: one buffer returned in
 * *buf, freed by the caller). 0, or -1 with e set (out of memory). */
int vg_leak_read_blocks(pid_t pid, struct vg_leak_block *blocks, size_t n,
			uint8_t **buf, struct vg_leak_roots_info *info,
			struct vg_err *e);

/* Give scan every root of the stopped process pid (the blocks are those
 * scan was made from, sorted). call (may be NULL) says how the thread
 * held at _exit is scanned. 0, or -1 with e set (the process is gone, a
 * thread is running). */
struct vg_leak_call {
	/* a thread stopped at the entry of a function (the hold at _exit):
	 * of its registers only the callee-saved ones are live there (rbx,
	 * rbp, r12-r15; the others are its caller's dead values, stale
	 * pointers memcheck does not see either: it checks after the
	 * exit_group system call); 0: none */
	pid_t tid;
	/* a return address on its stack (exit's, in the function that
	 * called exit): its stack is scanned from above that slot, the
	 * frames below being exit's own; 0: from the stack pointer */
	uint64_t ret;
};
int vg_leak_scan_roots(pid_t pid, struct vg_leak_scan *scan,
		       const struct vg_leak_block *blocks, size_t n,
		       const struct vg_leak_call *call,
		       struct vg_leak_roots_info *info, struct vg_err *e);

#endif

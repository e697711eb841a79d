/* An access that faulted in a watched block (watchset.h's fault event: a
 * SIGSEGV or SIGBUS whose address lies in a freed block glibc unmapped
 * at free): the line the violation's report gets, with the faulting
 * instruction, since the program dies of it and gdb never sees it
 * stopped there. The session calls it around the fault event's check
 * against the watched blocks. */
#ifndef VIGIL_WATCHSET_FAULT_H
#define VIGIL_WATCHSET_FAULT_H

#include "monitor/monitor.h"
#include "report/evidence.h"

struct vg_report;

/* Before the fault event ev is checked: r's fault note ("SIGSEGV, a
 * read, at pc 0x... main+0x3a (prog.c:21)"), where from the event's
 * stack as stack(ctx) symbolizes it; cleared by vg_fault_done. */
void vg_fault_note(struct vg_report *r, const struct vg_mon_event *ev,
		   vg_stack_fn stack, void *ctx);
void vg_fault_done(struct vg_report *r);

#endif

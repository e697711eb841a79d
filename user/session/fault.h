/* An access that faulted in a watched block (user/watchset/watchset.h's fault
 * event: a SIGSEGV or SIGBUS whose address lies in a freed block glibc
 * unmapped at free): the line the violation's report gets, with the
 * faulting instruction, since the program dies of it and gdb never sees
 * it stopped there. */
#ifndef VIGIL_SESSION_FAULT_H
#define VIGIL_SESSION_FAULT_H

#include "monitor/monitor.h"

struct session;

/* Before the fault event ev is checked against the watched blocks: the
 * report's fault note ("SIGSEGV, a read, at pc 0x... main+0x3a
 * (prog.c:21)"), cleared by vg_fault_done. */
void vg_fault_note(struct session *ss, const struct vg_mon_event *ev);
void vg_fault_done(struct session *ss);

#endif

/* What the files of the session's leak check share (leaks.c,
 * leaks_creq.c): the check's state. Not for other files. */
#ifndef VIGIL_SESSION_LEAKS_INTERNAL_H
#define VIGIL_SESSION_LEAKS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "leaks.h"
#include "leakscan/records.h"

struct vg_leak_supp;
struct vg_leak_verdicts;
struct vg_leak_delta;
struct session;
struct vg_mon_event;

struct vg_leaks {
	struct vg_leak_supp *supp;
	unsigned show;		/* kinds whose records the text shows */
	int hold_event[VG_LEAK_NHOLDS];	/* by enum vg_leak_hold - 1; -1 */
	int exit_event;		/* `before exit`: where its caller's frame is */
	pid_t exit_caller_tid;
	uint64_t exit_caller;	/* exit's return address (in its caller) */
	bool at_exit;		/* the target is held at its end */
	int at_signal;		/* or raises this signal on itself */
	enum vg_leak_hold at_kind;	/* by this hold */
	pid_t exit_tid;		/* by this thread (at a call: dead scratch
				 * registers) */
	bool done_at_exit;
	/* the classes of the check at exit (or abort), for the leak
	 * property's verdicts */
	struct vg_leak_verdicts *verdicts;
	bool keep_classes;	/* this check's are kept */
	/* every check's records, against the previous one's
	 * (leakscan/delta.h) */
	struct vg_leak_delta *delta;
	/* how the next check shows them: set by a client request
	 * (leaks_creq.c) for its check, then cleared */
	enum vg_leak_delta_mode delta_mode;
	bool summary_only;
	const char *request;	/* "VALGRIND_DO_LEAK_CHECK", for the JSON */
	/* the last check's LEAK SUMMARY (VALGRIND_COUNT_LEAKS): by kind,
	 * then the suppressed */
	uint64_t sum_bytes[VG_LEAK_NKINDS + 1], sum_blocks[VG_LEAK_NKINDS + 1];
	/* client requests the probes sent, handled once the process is
	 * held (leaks_creq.c) */
	struct vg_leak_creq {
		pid_t tid;
		uint64_t word[6];
	} creq[8];
	int ncreq;
	int creq_event;		/* the hold's client-request event, or -1 */
};

/* Wait up to 2 s until every thread of pid is stopped; is pid traced
 * (gdb)? */
bool vg_leaks_wait_stopped(pid_t pid);
bool vg_leaks_traced(pid_t pid);

/* a client request's event: noted (leaks.c's vg_session_leaks_note) */
void vg_leaks_creq_note(struct session *ss, const struct vg_mon_event *ev);

#endif

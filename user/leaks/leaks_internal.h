/* What the files of user/leaks/ share: the check's state behind the
 * opaque struct vg_leaks of leaks.h, and the leak property's verdicts.
 * Not for other folders. */
#ifndef VIGIL_LEAKS_INTERNAL_H
#define VIGIL_LEAKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "leaks.h"
#include "leakscan/records.h"
#include "leakscan/scan.h"

struct vg_leak_supp;
struct vg_leak_verdicts;
struct vg_leak_delta;
struct vg_mon_event;
struct vg_slice_view;
struct vg_leak_verdict;

struct vg_leaks {
	struct vg_run *run;	/* whose check: read through vg_run_* */
	struct vg_leaks_opts o;
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

/* a client request's event: noted (leaks.c's vg_leaks_note) */
void vg_leaks_creq_note(struct vg_leaks *l, const struct vg_mon_event *ev);

/* The check now (the target stopped for it and resumed unless it was
 * stopped already): the loss records as text to text, as one JSON line
 * to json (either may be NULL); regs: register values to count as roots
 * (gdb's, when it holds the threads). -1 with e set. */
int vg_leaks_check(struct vg_leaks *l, const char *when, FILE *text,
		   FILE *json, const uint64_t *regs, size_t nregs,
		   struct vg_err *e);
/* Did the check run at the program's end (at _exit or a fatal raise)? */
bool vg_leaks_ran_at_end(const struct vg_leaks *l);

/* ---- the leak property's verdicts at exit (leak_verdicts.c)
 *
 * From the classes of the check at exit (or abort): the blocks it
 * classed, by address, and the classer user/report/ asks for each heap
 * block's slice (vg_report_set_leak_classer). A lost block (the kinds in
 * `errors`) is an error; a still reachable block and the C library's own
 * are not (docs/reference/leak-check.md). */

/* errors: a bit per enum vg_leak_kind. NULL: out of memory. */
struct vg_leak_verdicts *vg_leak_verdicts_new(const struct vg_spec *spec,
					      unsigned errors);
void vg_leak_verdicts_free(struct vg_leak_verdicts *v);
/* The classes of a check (they replace those of an earlier one): blocks
 * b[0..n), classed; libc[i]: b[i] is the C library's own. 0, -1 out of
 * memory. */
int vg_leak_verdicts_set(struct vg_leak_verdicts *v,
			 const struct vg_leak_block *b, const bool *libc,
			 size_t n);
bool vg_leak_verdicts_any(const struct vg_leak_verdicts *v);
/* A vg_leak_classer, ctx the vg_leak_verdicts */
bool vg_leak_verdict_of(void *ctx, const struct vg_slice_view *s,
			struct vg_leak_verdict *out);

#endif

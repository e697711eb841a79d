/* The leak check where the program asks for it with valgrind's client
 * requests (memcheck.h; include/vigil_creq.h): --leak-check's hold
 * property has an event at every request's xchg (plan/plan_creq.c), whose
 * probe (bpf/vigil/creq.bpf.c) sends the leak requests only, with the
 * process stopped. Once the drain is over (hold.c), each is done as
 * memcheck does it, then the hold is let go:
 *
 *   VALGRIND_DO_LEAK_CHECK          every loss record, the LEAK SUMMARY
 *   VALGRIND_DO_ADDED_LEAK_CHECK    the records that grew since the
 *                                   previous check, "+n" beside each count
 *   VALGRIND_DO_CHANGED_LEAK_CHECK  those that grew or shrank (to nothing
 *                                   too)
 *   VALGRIND_DO_NEW_LEAK_CHECK      those that had no block before
 *                                   (valgrind 3.21's memcheck.h)
 *   VALGRIND_DO_QUICK_LEAK_CHECK    the LEAK SUMMARY alone
 *   VALGRIND_COUNT_LEAKS,           the last check's bytes (blocks): lost
 *   VALGRIND_COUNT_LEAK_BLOCKS      (definitely + indirectly), possibly
 *                                   lost, reachable, suppressed, written
 *                                   where the request's four pointers say
 *
 * The check reads the process as the one at exit does, with every
 * thread's registers as roots: the request's own %rax points to its
 * array on the stack, which holds no heap pointer. The result register
 * (%rdx) is never written: every macro above uses the statement form,
 * whose result is not used, and RUNNING_ON_VALGRIND must stay 0, since
 * the program does not run on valgrind's synthetic CPU. */
#include "leaks.h"
#include "leaks_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "feature/feature.h"
#include "monitor/monitor.h"
#include "report/report.h"
#include "vigil_creq.h"

void vg_leaks_creq_note(struct vg_leaks *l, const struct vg_mon_event *ev)
{
	if (!l || l->creq_event < 0 || ev->event != l->creq_event ||
	    ev->pid != (uint32_t)vg_run_pid(l->run))
		return;
	if (l->ncreq == (int)(sizeof(l->creq) / sizeof(l->creq[0]))) {
		fprintf(stderr, "vigil: more than %d leak client requests in one batch of records: the later ones are not done\n",
			l->ncreq);
		return;
	}
	l->creq[l->ncreq].tid = (pid_t)ev->tid;
	memcpy(l->creq[l->ncreq].word, ev->slot, sizeof(l->creq[0].word));
	l->ncreq++;
}

/* memcheck's VG_USERREQ__DO_LEAK_CHECK: arg1 0 full, 1 summary; arg2 0
 * every record, 1 increased, 2 changed, 3 new (valgrind 3.21's
 * VALGRIND_DO_NEW_LEAK_CHECK); another is "any", as memcheck takes it */
static const char *leak_check_name(const uint64_t *w,
				   enum vg_leak_delta_mode *mode,
				   bool *summary)
{
	*summary = w[1] == 1;
	*mode = VG_LEAK_DELTA_NONE;
	if (*summary)
		return "VALGRIND_DO_QUICK_LEAK_CHECK";
	if (w[2] == 1) {
		*mode = VG_LEAK_DELTA_INCREASED;
		return "VALGRIND_DO_ADDED_LEAK_CHECK";
	}
	if (w[2] == 2) {
		*mode = VG_LEAK_DELTA_CHANGED;
		return "VALGRIND_DO_CHANGED_LEAK_CHECK";
	}
	if (w[2] == 3) {
		*mode = VG_LEAK_DELTA_NEW;
		return "VALGRIND_DO_NEW_LEAK_CHECK";
	}
	return "VALGRIND_DO_LEAK_CHECK";
}

static void do_leak_check(struct vg_leaks *l, const uint64_t *w)
{
	struct vg_err e = { 0 };
	char when[64];

	l->request = leak_check_name(w, &l->delta_mode, &l->summary_only);
	snprintf(when, sizeof(when), "at %s", l->request);
	if (vg_leaks_check(l, when, stderr,
			   vg_report_json_file(vg_run_report(l->run)),
			   NULL, 0, &e))
		fprintf(stderr, "vigil: leak check %s: %s\n", when, e.msg);
	l->request = NULL;
	l->delta_mode = VG_LEAK_DELTA_NONE;
	l->summary_only = false;
}

/* VALGRIND_COUNT_LEAKS / _BLOCKS: the four counts where the program's
 * pointers (the macro's own zeroed locals) say; a pointer that is not
 * to writable memory of the process is left alone */
static void count_leaks(struct vg_leaks *l, const uint64_t *w, bool blocks)
{
	const uint64_t *sum = blocks ? l->sum_blocks : l->sum_bytes;
	uint64_t v[4] = {
		sum[VG_LEAK_DEFINITE] + sum[VG_LEAK_INDIRECT],
		sum[VG_LEAK_POSSIBLE], sum[VG_LEAK_REACHABLE],
		sum[VG_LEAK_NKINDS],
	};

	for (int i = 0; i < 4; i++) {
		struct iovec local = { &v[i], sizeof(v[i]) };
		struct iovec remote = { (void *)(uintptr_t)w[i + 1],
					sizeof(v[i]) };

		if (w[i + 1] && !(w[i + 1] & 7) &&
		    process_vm_writev(vg_run_pid(l->run), &local, 1, &remote, 1, 0) !=
			    (ssize_t)sizeof(v[i]))
			fprintf(stderr, "vigil: %s: cannot write its result %d at 0x%llx\n",
				blocks ? "VALGRIND_COUNT_LEAK_BLOCKS"
				       : "VALGRIND_COUNT_LEAKS",
				i + 1, (unsigned long long)w[i + 1]);
	}
}

void vg_leaks_creq(struct vg_leaks *l)
{
	pid_t pid;
	int n;

	if (!l || !l->ncreq)
		return;
	pid = vg_run_pid(l->run);
	n = l->ncreq;
	l->ncreq = 0;
	/* gdb takes the hold's SIGSTOP and lets the other threads run */
	if (vg_leaks_traced(pid)) {
		fprintf(stderr, "vigil: a leak client request: gdb holds pid %d, so it cannot be stopped whole; run `vigil leaks` in gdb\n",
			pid);
		return;
	}
	/* the probe's SIGSTOP reaches every thread */
	if (!vg_leaks_wait_stopped(pid)) {
		fprintf(stderr, "vigil: a leak client request: pid %d did not stop; not done\n",
			pid);
		return;
	}
	for (int i = 0; i < n; i++) {
		const uint64_t *w = l->creq[i].word;

		if (w[0] == VG_CREQ_DO_LEAK_CHECK)
			do_leak_check(l, w);
		else if (w[0] == VG_CREQ_COUNT_LEAKS)
			count_leaks(l, w, false);
		else if (w[0] == VG_CREQ_COUNT_LEAK_BLOCKS)
			count_leaks(l, w, true);
	}
}

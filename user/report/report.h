/* Reports: what the user reads (text on stderr) and what tools read (JSON
 * lines, --json FILE). Both say the same things; the JSON schema is the
 * contract in DESIGN.md. */
#ifndef VIGIL_REPORT_H
#define VIGIL_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "monitor/monitor.h"

struct vg_report;

struct vg_report *vg_report_new(const struct vg_spec *spec, FILE *text,
				const char *json_path, struct vg_err *e);
/* Violations then show the evidence (report/evidence.h), and each is also
 * written to RUNDIR/violation-PID.json for `vigil status` in gdb. */
struct vg_evidence;
void vg_report_set_evidence(struct vg_report *r, struct vg_evidence *x);
/* Where exactly the next stopped violation's thread is, when not before
 * the event's function ran ("stopped after f's first instruction: ..."):
 * printed with "is stopped at this event" and as JSON "stop_note". */
void vg_report_stop_note(struct vg_report *r, const char *note);
/* The fault of the next violation's event, when its access raised one
 * (user/watchset/fault.c: "SIGSEGV, a read, at pc 0x... in f at x.c:12"):
 * printed as "fault" and as JSON "fault". NULL clears it. */
void vg_report_fault_note(struct vg_report *r, const char *note);

/* Names for pointer values (user/symval/symval.c): "&A", "block of 24
 * bytes from make_node at list.c:12, +16"; false when v has none. One for
 * the process: reports and evidence print "0x... (NAME)", and JSON
 * objects get a "names" member beside the values. NULL: none. object:
 * the value is named as the object it points into ("global table[64]"
 * rather than "&table"), which the violation of a property that uses a
 * memory predicate asks. */
typedef bool (*vg_value_namer)(void *ctx, uint64_t v, bool object, char *buf,
			       size_t len);
void vg_report_set_namer(vg_value_namer fn, void *ctx);
/* How a process is named beyond its pid: its pid inside its pid
 * namespace and its cgroup (a container's). A violation's report says so
 * (text: a "process" line; JSON: ns_pid, cgroup) when fn says true. */
struct vg_report_proc {
	uint32_t ns_pid;
	const char *cgroup;
};
typedef bool (*vg_proc_namer)(void *ctx, uint32_t pid,
			      struct vg_report_proc *out);
void vg_report_set_proc_namer(struct vg_report *r, vg_proc_namer fn,
			      void *ctx);
/* The JSON-lines stream (--json), or NULL: for lines of other modules'
 * (vigil watch's processes). */
FILE *vg_report_json(struct vg_report *r);
/* Flushes and closes the JSON file. */
void vg_report_free(struct vg_report *r);
/* The errors the ERROR SUMMARY lines counted so far, violations and
 * verdicts at the end alike (an unloaded property's too): any makes the
 * exit status an error's. */
uint64_t vg_report_errors(const struct vg_report *r);
/* The --json file (NULL without), for a report of another kind (the
 * leak check's) to go into the same stream of JSON lines */
FILE *vg_report_json_file(struct vg_report *r);

/* A slice entered a violation state from state `from`. stopped: the
 * target is stopped at the event. */
void vg_report_violation(struct vg_report *r, const struct vg_slice_view *s,
			 int from, const struct vg_mon_event *ev, bool stopped);

/* `backtrace`: the event's symbolized user stack, text and JSON. */
void vg_report_backtrace(struct vg_report *r, const struct vg_slice_view *s,
			 const struct vg_mon_event *ev);

/* `log "fmt"`: {name} expands a slice parameter, variable, global or
 * event field by name. */
void vg_report_log(struct vg_report *r, const struct vg_slice_view *s,
		   const struct vg_mon_event *ev, const char *fmt);

/* End of run: one verdict per live slice (tombstones were reported when
 * they happened). Returns how many slices ended non-accepting. */
/* pid: with --follow-fork, the followed process the monitor is of (its
 * lines say "pid N: "); 0 for the target itself */
int vg_report_final(struct vg_report *r, struct vg_monitor *m, uint32_t pid);

/* What the leak check at exit said of a heap block's slice (leaks/
 * leak_verdicts.c, --leak-check): kind NULL, nothing (the verdict is its state's);
 * else the class ("definite", "indirect", "possible", "reachable", "libc"
 * for a block the C library allocated for itself), its words for the text
 * ("definitely lost"), and whether it is an error: one that is not ends
 * `accepting` (memcheck does not count still reachable blocks as errors,
 * and frees the C library's own before it looks). Asked by
 * vg_report_final of the target's own slices in non-accepting states. */
struct vg_leak_verdict {
	const char *kind, *text;
	bool error;
};
typedef bool (*vg_leak_classer)(void *ctx, const struct vg_slice_view *s,
				struct vg_leak_verdict *out);
void vg_report_set_leak_classer(struct vg_report *r, vg_leak_classer fn,
				void *ctx);

/* What a machine feature the run lacked kept it from seeing ("this
 * machine's debug registers do not fire"): said after the ERROR SUMMARY's
 * inconclusive count, and in the JSON stats ("blind") and summary
 * ("inconclusive_why"). NULL or "": nothing. */
void vg_report_set_blind(struct vg_report *r, const char *why);

struct vg_run_stats {
	uint64_t events, lost;
	uint64_t records;	/* ring-buffer records read (live runs) */
	uint64_t *hits, *lost_per_event;	/* [spec->nevents] */
	uint64_t kfull, kbusy;
	uint64_t capfaults;	/* p->field reads that faulted (read as 0) */
	uint64_t forks, execs;	/* by the target: processes not followed,
				 * programs it became */
	int exit_code;		/* target's, or -1 */
	int exit_signal;	/* or 0 */
	bool target_exited;
};

void vg_report_stats(struct vg_report *r, struct vg_monitor *m,
		     const struct vg_run_stats *st);
/* The ERROR SUMMARY line alone (vg_report_stats ends with it), label
 * before it ("loaded from FILE: "): a property added with `vigil load`. */
void vg_report_summary(struct vg_report *r, const char *label);
/* The slices the ERROR SUMMARY counts inconclusive */
uint64_t vg_report_inconclusive(const struct vg_report *r);
/* `vigil unload` of a property the session started with: its verdicts
 * (as vg_report_final, that property only) and its ERROR SUMMARY line,
 * label before it; the run's last summary leaves it out afterwards
 * (vg_report_final leaves out the monitor's disabled properties). */
/* vigil watch: the verdicts of one property in process pid's monitor m,
 * before its vg_report_unload (whose summary counts them). */
void vg_report_final_prop(struct vg_report *r, struct vg_monitor *m,
			  uint32_t pid, int prop);
void vg_report_unload(struct vg_report *r, struct vg_monitor *m, int prop,
		      const char *label);

/* The target forked process `child` (what = VG_PROC_FORK; `same` when it
 * is followed, --follow-fork), or exec'd `path` (VG_PROC_EXEC; `same` when
 * it is the monitored program again).
 * Said as it happens, the first few times; the stats count them all. */
void vg_report_process(struct vg_report *r, int what, uint32_t pid,
		       uint32_t child, const char *path, bool same,
		       uint64_t nth);

/* A value as text according to its type (pointers in hex, strings
 * quoted). */
void vg_format_value(const struct vg_spec *spec, enum vg_type t, uint64_t v,
		     char *buf, size_t len);

/* A slice's bound parameters as "q=0x5614..." joined by sep (", "),
 * cut to len; "" for the one instance of a property without any */
void vg_slice_text(const struct vg_spec *spec, const struct vg_slice_view *s,
		   const char *sep, char *out, size_t len);

/* An event as the reports show it: "before queue_push(0x5614...)" and
 * "event":{...},"pid":..,"tid":..,"time_ns":..,"seq":.. */
void vg_event_text(const struct vg_spec *spec, FILE *out,
		   const struct vg_mon_event *ev);
void vg_event_json(const struct vg_spec *spec, FILE *out,
		   const struct vg_mon_event *ev);

#endif

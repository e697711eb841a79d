/* Private to user/report/: the report's state, shared by report.c
 * (verdicts as they happen) and report_end.c (the run's end: final
 * verdicts, stats, the ERROR SUMMARY). */
#ifndef VIGIL_REPORT_INTERNAL_H
#define VIGIL_REPORT_INTERNAL_H

#include <stdio.h>

#include "report.h"

struct vg_report {
	const struct vg_spec *spec;
	struct vg_evidence *evidence;	/* may be NULL (offline) */
	FILE *text;
	FILE *json;
	uint64_t violations;
	char stop_note[256];	/* for the next stopped violation */
	char fault_note[320];	/* for the next violation */
	/* for the ERROR SUMMARY: per [property][state], flattened at
	 * base[prop], violations entered and slices ending non-accepting
	 * (or inconclusive) at exit */
	int *base;
	uint64_t *entered, *ended, *unsure;
	/* every error a summary counts, kept through an unload's reset of
	 * the arrays above: the exit status says whether there was any */
	uint64_t errors;
	/* how a process is named beyond its pid (vigil watch, containers) */
	vg_proc_namer proc_namer;
	void *proc_ctx;
	/* the leak check's class of a block at exit (vg_report_set_leak_classer) */
	vg_leak_classer leak_classer;
	void *leak_ctx;
	char blind[128];	/* vg_report_set_blind */
	/* a report of several lines, made in memory and written at once
	 * (report.c: block_begin/end): text is then that memory stream */
	FILE *block_out;
	char *block;
	size_t block_len;
};

/* report.c's helpers the end's lines use too */
const char *vg_rep_verdict_of(const struct vg_property *p, int state,
			      bool inconclusive);
void vg_rep_text_slice(struct vg_report *r, const struct vg_slice_view *s);
void vg_rep_json_verdict(struct vg_report *r, FILE *out,
			 const struct vg_slice_view *s, const char *verdict);
void vg_rep_json_process(struct vg_report *r, FILE *out, uint32_t pid);

#endif

/* Loss records, as memcheck prints them: the classed blocks grouped by
 * (kind, allocation stack), with block and byte counts, sorted by bytes
 * (direct + indirect) ascending, so the largest comes last, then by kind
 * and block count; suppressed records counted apart; a LEAK SUMMARY. */
#ifndef VIGIL_LEAKSCAN_RECORDS_H
#define VIGIL_LEAKSCAN_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "leakscan/scan.h"
#include "leakscan/suppress.h"

/* An allocation stack, innermost first (frames for suppressions, text
 * for the report: "main+0x1f (leaky.c:9)") */
struct vg_leak_stack {
	int n;
	const struct vg_leak_frame *frames;
	const char *const *text;
};

struct vg_leak_record {
	enum vg_leak_kind kind;
	int stack;		/* index into the stacks */
	uint64_t blocks, bytes, indirect;
	int supp;		/* the suppression that matched, or -1 */
	uint64_t first_addr;	/* its lowest block (for the report) */
	/* against the previous check (leakscan/delta.h): its counts then,
	 * and, for a record that has no block left (stack -1), the stack it
	 * had */
	uint64_t old_blocks, old_bytes, old_indirect;
	const struct vg_leak_stack *gone_stack;
};

/* Which records a check shows (memcheck's VALGRIND_DO_*_LEAK_CHECK):
 * every one with blocks; only those that grew since the previous check
 * (ADDED), or that changed (CHANGED, a record that has lost all its
 * blocks too), or that had no block before (NEW, valgrind 3.21's), with
 * the change beside each count: "10 (+10) bytes" */
enum vg_leak_delta_mode {
	VG_LEAK_DELTA_NONE,
	VG_LEAK_DELTA_INCREASED,
	VG_LEAK_DELTA_CHANGED,
	VG_LEAK_DELTA_NEW,
};

struct vg_leak_report {
	struct vg_leak_record *rec;	/* sorted; suppressed ones last */
	int nrec, nshown;		/* nshown: not suppressed */
	uint64_t blocks[VG_LEAK_NKINDS], bytes[VG_LEAK_NKINDS];
	uint64_t supp_blocks, supp_bytes;
	int *supp_used;			/* [vg_leak_supp_count]: records */
	enum vg_leak_delta_mode delta;
	bool summary_only;		/* VALGRIND_DO_QUICK_LEAK_CHECK */
	/* with delta: the summary of the previous check */
	uint64_t old_blocks[VG_LEAK_NKINDS], old_bytes[VG_LEAK_NKINDS];
};

/* blocks: classed (vg_leak_scan_finish), their tag the index of their
 * stack in stacks[nstacks] (-1: none known). supp may be NULL. Returns
 * 0, -1 out of memory. */
int vg_leak_records(const struct vg_leak_block *blocks, size_t n,
		    const struct vg_leak_stack *stacks, int nstacks,
		    const struct vg_leak_supp *supp,
		    struct vg_leak_report *out);
void vg_leak_report_free(struct vg_leak_report *r);
/* memcheck's order again (after records were added) */
void vg_leak_records_sort(struct vg_leak_report *r);
/* does the check show record x (its delta mode, not its kind)? */
bool vg_leak_record_shown(const struct vg_leak_report *r,
			  const struct vg_leak_record *x);

/* Text: the records of the kinds in show (bit per kind; memcheck's
 * default is definite and possible), then the LEAK SUMMARY. */
void vg_leak_report_text(const struct vg_leak_report *r,
			 const struct vg_leak_stack *stacks,
			 const struct vg_leak_supp *supp, unsigned show,
			 FILE *out);
/* JSON: the members of one object (no braces): "records" (every record
 * not suppressed, with its stack), "summary", "suppressed". */
void vg_leak_report_json(const struct vg_leak_report *r,
			 const struct vg_leak_stack *stacks,
			 const struct vg_leak_supp *supp, FILE *out);

/* "1,234" into buf */
const char *vg_leak_commas(uint64_t v, char *buf, size_t len);

#endif

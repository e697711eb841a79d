/* Loss records against the previous leak check, as memcheck keeps them
 * for VALGRIND_DO_ADDED_LEAK_CHECK and VALGRIND_DO_CHANGED_LEAK_CHECK: a
 * record is its kind and its allocation stack (the stack as text, so the
 * same in every check); each check's counts are the next one's previous
 * ones, and a record of the previous check that has no block left now
 * comes back with 0 blocks, so that CHANGED shows it ("0 (-10) bytes in
 * 0 (-1) blocks"). Every check goes through it, whatever it shows. */
#ifndef VIGIL_LEAKSCAN_DELTA_H
#define VIGIL_LEAKSCAN_DELTA_H

#include "leakscan/records.h"

struct vg_leak_delta;

struct vg_leak_delta *vg_leak_delta_new(void);
void vg_leak_delta_free(struct vg_leak_delta *d);

/* r (vg_leak_records' result, its stacks[nstacks]) against d: each
 * record's old counts, the previous check's records it lacks added with
 * none (their stacks live until the next call), the summary's old
 * totals, r->delta = mode; then r is the previous check. -1 out of
 * memory (d is then as it was). */
int vg_leak_delta_apply(struct vg_leak_delta *d, struct vg_leak_report *r,
			const struct vg_leak_stack *stacks, int nstacks,
			enum vg_leak_delta_mode mode);

#endif

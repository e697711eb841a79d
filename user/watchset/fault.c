/* Accesses that faulted in a watched block (fault.h). */
#include "fault.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "watchset.h"

void vg_fault_note(struct vg_report *r, const struct vg_mon_event *ev,
		   vg_stack_fn stack, void *ctx)
{
	char note[320], lines[3][320];
	int n = stack(ctx, ev, lines, 3), len;

	len = snprintf(note, sizeof(note), "%s, a %s, at pc 0x%llx",
		       ev->slot[VG_FSLOT_SIG] == SIGBUS ? "SIGBUS" : "SIGSEGV",
		       ev->slot[VG_FSLOT_WRITE] ? "write" : "read",
		       (unsigned long long)ev->slot[VG_FSLOT_PC]);
	/* where: the function and line of the access, and its caller */
	for (int i = 0; i < n && len > 0 && (size_t)len < sizeof(note); i++)
		len += snprintf(note + len, sizeof(note) - (size_t)len, "%s%s",
				i ? " < " : ": ", lines[i]);
	if (len > 0 && (size_t)len < sizeof(note))
		snprintf(note + len, sizeof(note) - (size_t)len,
			 "; the program dies of it");
	vg_report_fault_note(r, note);
}

void vg_fault_done(struct vg_report *r)
{
	vg_report_fault_note(r, NULL);
}

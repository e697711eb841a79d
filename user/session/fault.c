/* Accesses that faulted in a watched block (user/session/fault.h). */
#include "fault.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "session_internal.h"
#include "watchset/watchset.h"

void vg_fault_note(struct session *ss, const struct vg_mon_event *ev)
{
	char note[320], lines[3][320];
	int n = vg_session_event_stack(ss, ev, lines, 3), len;

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
	vg_report_fault_note(ss->report, note);
}

void vg_fault_done(struct session *ss)
{
	vg_report_fault_note(ss->report, NULL);
}

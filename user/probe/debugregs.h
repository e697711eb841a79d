/* Whether this machine's debug registers fire. Some hypervisors accept a
 * hardware breakpoint and never raise it (PVM guests, gVisor, WSL, SEV
 * guests without debug virtualization): every watchpoint then stays
 * silent, and a verdict that needs one would read "no errors". CRIU
 * checks the same at run time (kerndat_breakpoints). Some emulators
 * (QEMU's TCG) fire them but report an old hit again at a later debug
 * exception: a watch event that did not happen. */
#ifndef VIGIL_PROBE_DEBUGREGS_H
#define VIGIL_PROBE_DEBUGREGS_H

#include <stdbool.h>
#include <stddef.h>

enum vg_regs {
	VG_REGS_UNKNOWN,	/* no breakpoint could be opened (privilege,
				 * no perf breakpoint PMU): not checked */
	VG_REGS_FIRE,
	VG_REGS_SILENT,		/* armed, written, not seen */
	VG_REGS_STALE,		/* they fire, and report a hit again at the
				 * next debug exception (a single step, or
				 * another breakpoint's hit): QEMU's TCG
				 * does, real hardware does not */
};

/* The answer for this boot: taken from the run directory when a vigil of
 * this user checked since the machine booted, else checked now (a write
 * breakpoint on a variable of a short-lived thread, the write, the count)
 * and kept there. VIGIL_DEBUG_REGS=off in the environment answers
 * VG_REGS_SILENT without a check: what a run on such a machine gives, seen
 * on one whose registers work. */
enum vg_regs vg_debug_regs(void);
/* The check itself, never cached (vigil doctor); why says what it saw */
enum vg_regs vg_debug_regs_check(char *why, size_t len);
/* how the check found out, for the messages that say so */
#define VG_NO_REGS_WHY "checked: a write to a watched variable was not seen"
#define VG_STALE_REGS_WHY "checked: a single step after the writes to a watched variable counted a hit"

#endif

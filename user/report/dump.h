/* The monitor's whole state as text, for `kill -USR1` on a running vigil
 * (user/status/monitor_dump.c): per property its live slices by state,
 * each with its parameters and variables, and its globals. */
#ifndef VIGIL_DUMP_H
#define VIGIL_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "monitor/monitor.h"

/* At most cap slices are listed per state, then "... N more". pid: with
 * --follow-fork, the followed process the monitor is of (0: the target).
 * -1 when out of memory. */
int vg_report_dump(const struct vg_spec *spec, struct vg_monitor *m,
		   FILE *out, int cap, uint32_t pid);

#endif

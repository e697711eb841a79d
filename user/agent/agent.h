/* vigil agent: the host service. One monitoring session per configuration
 * file (user/agent/config.h), each a vigil process of its own (vigil
 * watch --exe, or vigil attach -p for a pidfile's process) that the agent
 * starts, restarts when its configuration changed (SIGHUP), and stops.
 * A session whose file did not change is left running: its slices and
 * counts go on. The agent serves the sessions' metrics as one endpoint
 * and logs lifecycle messages where the sessions log their verdicts
 * (report/oplog.h). */
#ifndef VIGIL_AGENT_H
#define VIGIL_AGENT_H

#include "util/err.h"

struct vg_agent_opts {
	const char *config_dir;		/* --config; /etc/vigil/agent.d */
	const char *state_dir;		/* --state-dir: metrics files */
	const char *metrics_addr;	/* --metrics ADDR:PORT, or NULL */
	int metrics_port;
	const char *log_path;		/* --log FILE: JSON lines without
					 * journald (NULL: stdout) */
	const char *vigil;		/* the vigil binary the sessions run */
};

/* Runs until SIGTERM or SIGINT: 0, or -1 with e set (a bad configuration
 * at start: VG_EXIT_USAGE, FILE:LINE). */
int vg_agent_run(const struct vg_agent_opts *o, struct vg_err *e);

#endif

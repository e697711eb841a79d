/* vigil agent's configuration: a directory (default /etc/vigil/agent.d)
 * of NAME.conf files, one per watched executable (or service), each a
 * list of `key = value` lines (docs/OPERATIONS.md has the format):
 *
 *   exe = /usr/sbin/queued        every process of it (vigil watch --exe)
 *   pidfile = /run/queued.pid     or the process whose pid is there
 *   spec = queue_bounds.vigil     one or more (relative: to the directory)
 *   define = max=8                -D, one or more
 *   reaction = log                log (default), stop, kill, checkpoint
 *   reaction.PROP = stop          one property's own
 *   checkpoint-dir = /var/lib/vigil/queued
 *   tier = auto                   auto, kernel, user
 *
 * Errors name FILE:LINE and what was expected.
 */
#ifndef VIGIL_AGENT_CONFIG_H
#define VIGIL_AGENT_CONFIG_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

#define VG_AGENT_MAX_SPECS 64
#define VG_AGENT_MAX_DEFINES 64

struct vg_agent_unit {
	char name[256];			/* NAME of NAME.conf */
	char path[4096];		/* the file */
	char exe[4096];			/* exe =, or "" */
	char pidfile[4096];		/* pidfile =, or "" */
	char *specs[VG_AGENT_MAX_SPECS];	/* absolute paths */
	int nspecs;
	char *defines[VG_AGENT_MAX_DEFINES];	/* NAME=VALUE */
	int ndefines;
	char reaction[16];		/* log, stop, kill, checkpoint */
	/* reaction.PROP = R lines, as "PROP=R" */
	char *prop_reactions[VG_AGENT_MAX_SPECS];
	int nprop_reactions;
	char checkpoint_dir[4096];	/* or "" */
	char tier[8];			/* auto, kernel, user */
	bool same_build;		/* same-build = yes: copies of exe by build id */
	/* the file's bytes and its specs' bytes, hashed: a reload restarts
	 * the unit's session only when this changed */
	uint64_t fingerprint;
};

struct vg_agent_conf {
	struct vg_agent_unit *units;
	int nunits;
};

/* Reads every *.conf in dir (in name order). -1 with e set (VG_EXIT_USAGE,
 * "FILE:LINE: ...") on the first error; conf is then empty. */
int vg_agent_conf_load(const char *dir, struct vg_agent_conf *conf,
		       struct vg_err *e);
/* One file, into u (the loader's step; the tests use it). */
int vg_agent_unit_load(const char *path, struct vg_agent_unit *u,
		       struct vg_err *e);
void vg_agent_unit_free(struct vg_agent_unit *u);
void vg_agent_conf_free(struct vg_agent_conf *conf);

/* FNV-1a over n bytes, from h (1469598103934665603 to begin); a file's
 * bytes into h (-1 when it cannot be read, or is over 16 MiB). */
uint64_t vg_agent_fnv(uint64_t h, const void *p, size_t n);
int vg_agent_hash_file(const char *path, uint64_t *h);

#endif

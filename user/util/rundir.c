#include "rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int vg_rundir(char *out, size_t len, struct vg_err *e)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(out, len, "%s/vigil-%u", tmp, (unsigned)getuid());
	if (mkdir(out, 0700) && errno != EEXIST)
		return vg_errf(e, "cannot create %s: %s", out, strerror(errno));
	if (lstat(out, &st))
		return vg_errf(e, "cannot inspect %s: %s", out, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 0777) != 0700)
		return vg_errf(e, "%s is not a private directory of ours (want mode 0700, owner uid %u); remove it",
			       out, (unsigned)getuid());
	return 0;
}

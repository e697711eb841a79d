#include "rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

int vg_rundir(char *out, size_t len, struct vg_err *e)
{
	const char *tmp = getenv("TMPDIR");

	return vg_private_dir(tmp && *tmp ? tmp : "/tmp", out, len, e);
}

int vg_memdir(char *out, size_t len, struct vg_err *e)
{
	struct statfs fs;

	if (statfs("/dev/shm", &fs) || fs.f_type != TMPFS_MAGIC ||
	    access("/dev/shm", W_OK))
		return vg_rundir(out, len, e);
	return vg_private_dir("/dev/shm", out, len, e);
}

int vg_private_dir(const char *base, char *out, size_t len, struct vg_err *e)
{
	struct stat st;

	snprintf(out, len, "%s/vigil-%u", base, (unsigned)getuid());
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

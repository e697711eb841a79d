/* vigil watch --same-build: every copy of the watched executable.
 *
 * --exe PATH alone matches one file (its device and inode): PATH itself,
 * from any mount namespace, as a bind mount or an overlay's shared lower
 * layer show it. A container image holds its own copy of the program (a
 * file of another inode on every host, every overlay upper layer, every
 * unpacked image), which is the same program when it is the same build:
 * the same GNU build id, which the linker derives from the contents. So
 * --same-build follows also a process whose executable has PATH's file
 * name and PATH's build id. The exec tracepoint holds every exec of a
 * file of that name (bpf/vigil/lifecycle.bpf.c, watch_name); the build
 * id is compared here, on its exec record, and a process of another build
 * is let go at once (held for the time of reading one ELF note). Its
 * probes then go on its own copy (user/probe/probe_remap.c). */
#include "session_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sym/elfcopy.h"

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

const char *vg_session_watch_name(const struct session *ss)
{
	return ss->o->watch_exe && ss->o->watch_same_build
		       ? base(ss->o->watch_exe)
		       : NULL;
}

int vg_session_watch_copy_init(struct session *ss, struct vg_err *e)
{
	int n;

	if (!vg_session_watch_name(ss))
		return 0;
	if (strlen(base(ss->o->watch_exe)) >= 64)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--same-build: the file name of %s is longer than 63 bytes",
				    ss->o->watch_exe);
	n = vg_elf_build_id(ss->o->watch_exe, ss->watch_build_id,
			    sizeof(ss->watch_build_id));
	if (n <= 0)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--same-build: %s %s", ss->o->watch_exe,
				    n < 0 ? "is not an ELF file"
					  : "has no GNU build id (link it with --build-id) to tell its copies by");
	ss->watch_build_id_len = n;
	return 0;
}

bool vg_session_watch_is_copy(const struct session *ss, pid_t pid)
{
	char link[64], exe[4096];
	uint8_t id[64];
	ssize_t n;

	if (!vg_session_watch_name(ss))
		return false;
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	if ((n = readlink(link, exe, sizeof(exe) - 1)) <= 0)
		return false;
	exe[n] = 0;
	if (strcmp(base(exe), base(ss->o->watch_exe)))
		return false;
	/* /proc/PID/exe opens the very file, whatever its root */
	return vg_elf_build_id(link, id, sizeof(id)) == ss->watch_build_id_len &&
	       !memcmp(id, ss->watch_build_id, (size_t)ss->watch_build_id_len);
}

/* Which processes vigil watch watches (watchmatch.h).
 *
 * vigil watch --same-build: every copy of the watched executable.
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
#include "watchmatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/procinfo.h"
#include "sym/elfcopy.h"

struct vg_watch_match {
	const char *exe;		/* --exe (the options', borrowed) */
	bool lib;			/* --lib-mapped */
	bool same_build;
	uint32_t dev;			/* its executable, as the kernel */
	uint64_t ino;			/* encodes dev_t; 0 with --lib-mapped */
	uint32_t lib_dev;		/* --lib-mapped: the library's */
	uint64_t lib_ino;
	uint8_t build_id[64];		/* --same-build: the executable's */
	int build_id_len;
};

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

const char *vg_watch_match_name(const struct vg_watch_match *m)
{
	return m && m->same_build ? base(m->exe) : NULL;
}

static int copy_init(struct vg_watch_match *m, struct vg_err *e)
{
	int n;

	if (!vg_watch_match_name(m))
		return 0;
	if (strlen(base(m->exe)) >= 64)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--same-build: the file name of %s is longer than 63 bytes",
				    m->exe);
	n = vg_elf_build_id(m->exe, m->build_id, sizeof(m->build_id));
	if (n <= 0)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "--same-build: %s %s", m->exe,
				    n < 0 ? "is not an ELF file"
					  : "has no GNU build id (link it with --build-id) to tell its copies by");
	m->build_id_len = n;
	return 0;
}

struct vg_watch_match *vg_watch_match_new(const char *exe, bool lib,
					  bool same_build, struct vg_err *e)
{
	struct vg_watch_match *m;
	struct stat st;

	if (stat(exe, &st)) {
		vg_errf_code(e, VG_EXIT_USAGE, "--exe %s: no such file", exe);
		return NULL;
	}
	if (!(m = calloc(1, sizeof(*m)))) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	m->exe = exe;
	m->lib = lib;
	m->same_build = same_build;
	m->ino = st.st_ino;
	m->dev = vg_kernel_dev(st.st_dev);
	if (copy_init(m, e)) {
		free(m);
		return NULL;
	}
	if (lib) {	/* matched at its mapping, not an exec */
		m->lib_ino = m->ino;
		m->lib_dev = m->dev;
		m->ino = 0;
		m->dev = 0;
	}
	return m;
}

void vg_watch_match_free(struct vg_watch_match *m)
{
	free(m);
}

void vg_watch_match_ids(const struct vg_watch_match *m, uint32_t *dev,
			uint64_t *ino, uint32_t *lib_dev, uint64_t *lib_ino)
{
	*dev = m ? m->dev : 0;
	*ino = m ? m->ino : 0;
	*lib_dev = m ? m->lib_dev : 0;
	*lib_ino = m ? m->lib_ino : 0;
}

static bool is_copy(const struct vg_watch_match *m, pid_t pid)
{
	char link[64], exe[4096];
	uint8_t id[64];
	ssize_t n;

	if (!vg_watch_match_name(m))
		return false;
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	if ((n = readlink(link, exe, sizeof(exe) - 1)) <= 0)
		return false;
	exe[n] = 0;
	if (strcmp(base(exe), base(m->exe)))
		return false;
	/* /proc/PID/exe opens the very file, whatever its root */
	return vg_elf_build_id(link, id, sizeof(id)) == m->build_id_len &&
	       !memcmp(id, m->build_id, (size_t)m->build_id_len);
}

/* --lib-mapped: has pid the library mapped executable? */
static bool maps_it(const struct vg_watch_match *m, pid_t pid)
{
	char path[64], line[4400];
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!yes && fgets(line, sizeof(line), f)) {
		char perms[8];
		unsigned maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu", perms, &maj,
			   &min, &ino) == 4 && perms[2] == 'x' &&
		    ino == m->lib_ino && (maj << 20 | min) == m->lib_dev)
			yes = true;
	}
	fclose(f);
	return yes;
}

bool vg_watch_match_running(const struct vg_watch_match *m, pid_t pid)
{
	char path[64];
	struct stat st;

	if (!m)
		return false;
	if (m->lib)
		return maps_it(m, pid);
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return (!stat(path, &st) && st.st_ino == m->ino &&
		vg_kernel_dev(st.st_dev) == m->dev) ||
	       is_copy(m, pid);	/* --same-build */
}

bool vg_watch_match_exec(const struct vg_watch_match *m, pid_t pid,
			 uint32_t dev, uint64_t ino)
{
	if (!m)
		return false;
	return (ino == m->ino && dev == m->dev) || is_copy(m, pid);
}

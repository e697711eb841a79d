/* A running process's mappings: /proc/PID/maps, the ELF objects mapped
 * there and their load biases, for user/sym/maps.h. What the loader will
 * map before the process runs is libs.c's. */
#include "maps.h"
#include "sym_internal.h"
#include "proc/procinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int vg_maps_read(pid_t pid, struct vg_maps *out, struct vg_err *e)
{
	char fname[64], *line = NULL, root[64];
	size_t cap = 0, lcap = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	/* a process in a container names its files from its own root:
	 * reach them through it (proc/procinfo.h) */
	if (vg_proc_root_prefix(pid, root, sizeof(root), e))
		return -1;
	snprintf(fname, sizeof(fname), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(fname, "re")))
		return vg_errf(e, "cannot read %s: %s%s", fname,
			       strerror(errno),
			       errno == ENOENT ? " (the process is gone)" : "");
	while (getline(&line, &lcap, f) > 0) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;
		struct vg_map *m;
		char *path;
		size_t n;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start,
			   &end, perms, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			void *p = realloc(out->v, ncap * sizeof(*out->v));

			if (!p) {
				free(line);
				fclose(f);
				vg_maps_free(out);
				return vg_errf(e, "out of memory");
			}
			out->v = p;
			cap = ncap;
		}
		m = &out->v[out->n];
		memset(m, 0, sizeof(*m));
		m->start = start;
		m->end = end;
		m->offset = off;
		snprintf(m->perms, sizeof(m->perms), "%.4s", perms);
		m->dev = makedev(maj, min);
		m->ino = (ino_t)ino;
		path = line + pos;
		n = strcspn(path, "\n");
		path[n] = 0;
		if (n && path[0] == '/' && root[0]) {
			if (asprintf(&m->path, "%s%s", root, path) < 0)
				m->path = NULL;
		} else if (n) {
			m->path = strdup(path);
		}
		if (n && !m->path) {
			free(line);
			fclose(f);
			vg_maps_free(out);
			return vg_errf(e, "out of memory");
		}
		out->n++;
	}
	free(line);
	fclose(f);
	return 0;
}

void vg_maps_free(struct vg_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* A mapped file's path without the " (deleted)" the kernel appends. */
static void file_of(const struct vg_map *m, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", m->path ? m->path : "");
	n = strlen(buf);
	if (n > 10 && !strcmp(buf + n - 10, " (deleted)"))
		buf[n - 10] = 0;
}

/* The bias of the object whose lowest mapping is m: the PT_LOAD segment
 * mapped at m's file offset gives the link-time address of m->start. */
static int bias_of(const char *elfpath, const struct vg_map *m,
		   uint64_t *bias)
{
	struct vg_elf_file f;
	struct vg_err e;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t n;
	int ret = -1;

	if (vg_elf_file_open(elfpath, &f, &e))
		return -1;
	if (!elf_getphdrnum(f.elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(f.elf, i, &ph) ||
			    ph.p_type != PT_LOAD ||
			    (ph.p_offset & ~(page - 1)) != m->offset)
				continue;
			*bias = m->start - (ph.p_vaddr & ~(page - 1));
			ret = 0;
			break;
		}
	}
	vg_elf_file_close(&f);
	return ret;
}

int vg_maps_objects(const struct vg_maps *m, struct vg_objects *out,
		    struct vg_err *e)
{
	char path[PATH_MAX];

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < m->n; i++) {
		const struct vg_map *mp = &m->v[i];
		struct vg_object *o;
		bool seen = false;
		uint64_t bias;
		void *p;

		if (!mp->ino || !mp->path || mp->path[0] != '/')
			continue;
		for (size_t k = 0; k < out->n && !seen; k++)
			seen = out->v[k].dev == mp->dev &&
			       out->v[k].ino == mp->ino;
		if (seen)
			continue;
		/* maps are in address order: this is the lowest mapping */
		file_of(mp, path, sizeof(path));
		if (bias_of(path, mp, &bias))
			continue;	/* not ELF, or not readable */
		p = realloc(out->v, (out->n + 1) * sizeof(*out->v));
		if (!p) {
			vg_objects_free(out);
			return vg_errf(e, "out of memory");
		}
		out->v = p;
		o = &out->v[out->n];
		if (!(o->path = strdup(path))) {
			vg_objects_free(out);
			return vg_errf(e, "out of memory");
		}
		o->dev = mp->dev;
		o->ino = mp->ino;
		o->start = mp->start;
		o->bias = bias;
		out->n++;
	}
	return 0;
}

void vg_objects_free(struct vg_objects *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i].path);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

/* Is mp a mapping of the file (its stat st when have_st, its real path
 * when real)? By device and inode, or else by path: for a file on
 * overlayfs (a container's root), an older kernel (Debian 12's 6.1) puts
 * in /proc/PID/maps the device and inode of the file in the layer
 * beneath, where stat() of the same path gives the overlay's; 6.18 puts
 * the overlay's, as stat() does. */
static bool map_is_file(const struct vg_map *mp, const struct stat *st,
			bool have_st, const char *real)
{
	char path[PATH_MAX];

	if (!mp->ino || !mp->path)
		return false;
	if (have_st && mp->dev == st->st_dev && mp->ino == st->st_ino)
		return true;
	if (!real)
		return false;
	file_of(mp, path, sizeof(path));
	return !strcmp(path, real);
}

int vg_maps_load_bias(const struct vg_maps *m, const char *binary,
		      uint64_t *bias, struct vg_err *e)
{
	char real[PATH_MAX];
	struct stat st;
	bool have_st = stat(binary, &st) == 0;
	bool have_real = realpath(binary, real) != NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct vg_map *mp = &m->v[i];

		if (!map_is_file(mp, &st, have_st, have_real ? real : NULL))
			continue;
		/* first (lowest) mapping of the file; read the segments from
		 * the file we were given, which is the same file */
		if (bias_of(binary, mp, bias))
			return vg_errf(e, "%s is mapped in process %d at 0x%llx, but that offset (0x%llx) is no PT_LOAD segment of it",
				       binary, (int)m->pid,
				       (unsigned long long)mp->start,
				       (unsigned long long)mp->offset);
		return 0;
	}
	return vg_errf(e, "%s is not mapped in process %d%s", binary,
		       (int)m->pid,
		       have_st ? "" : " (and it cannot be read here)");
}

uint64_t vg_maps_file_vaddr(const struct vg_maps *m, const char *path,
			    uint64_t off)
{
	char real[PATH_MAX];
	struct stat st;
	bool have_st = stat(path, &st) == 0;
	bool have_real = realpath(path, real) != NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct vg_map *mp = &m->v[i];

		if (mp->perms[2] == 'x' && off >= mp->offset &&
		    off - mp->offset < mp->end - mp->start &&
		    map_is_file(mp, &st, have_st, have_real ? real : NULL))
			return mp->start + (off - mp->offset);
	}
	return 0;
}

int vg_proc_load_bias(pid_t pid, const char *binary, uint64_t *bias,
		      struct vg_err *e)
{
	struct vg_maps m;
	int r;

	if (vg_maps_read(pid, &m, e))
		return -1;
	r = vg_maps_load_bias(&m, binary, bias, e);
	vg_maps_free(&m);
	return r;
}

void vg_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

int vg_proc_mapped_libs(pid_t pid, char ***paths, size_t *n,
			struct vg_err *e)
{
	char exe[64], why[256];
	struct stat ex, st;
	struct vg_maps m;
	struct vg_objects o;
	int ret = 0;

	*paths = NULL;
	*n = 0;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (stat(exe, &ex))
		return vg_errf(e, "%s: %s", exe, strerror(errno));
	if (vg_maps_read(pid, &m, e))
		return -1;
	if (vg_maps_objects(&m, &o, e)) {
		vg_maps_free(&m);
		return -1;
	}
	*paths = calloc(o.n + 1, sizeof(**paths));
	if (!*paths)
		ret = vg_errf(e, "out of memory");
	for (size_t i = 0; !ret && i < o.n; i++) {
		const struct vg_object *ob = &o.v[i];

		if (ob->dev == ex.st_dev && ob->ino == ex.st_ino)
			continue;
		if (stat(ob->path, &st) || st.st_dev != ob->dev ||
		    st.st_ino != ob->ino) {
			/* replaced or deleted since it was mapped (an
			 * upgrade): its functions are not looked for there */
			fprintf(stderr, "vigil: pid %d maps %s, but the file there now is another (replaced since?): its functions are not probed\n",
				(int)pid, ob->path);
			continue;
		}
		if (vg_not_a_library(ob->path, why, sizeof(why)))
			continue;
		if (!((*paths)[*n] = strdup(ob->path)))
			ret = vg_errf(e, "out of memory");
		else
			(*n)++;
	}
	if (ret) {
		vg_paths_free(*paths, *n);
		*paths = NULL;
		*n = 0;
	}
	vg_objects_free(&o);
	vg_maps_free(&m);
	return ret;
}

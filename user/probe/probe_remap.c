/* vigil watch: a watched process's own copies of the probed files.
 *
 * The plan places every site in the files vigil sees from its own root:
 * the watched program and the libraries the host's loader would give it.
 * A process in a container (another root, after pivot_root or chroot)
 * runs its own files: its copy of libc is another inode, and a uprobe on
 * the host's libc never fires there. So before a watched process's links
 * are attached, each group's file is looked up in the process itself,
 * through its root (proc/procinfo.h): the program is its executable; a
 * library is the file of the same name it has mapped (/proc/PID/maps),
 * or, held at its exec before its loader ran, the one its loader will map
 * (sym/libs.h, resolved under its root). When that is another file than
 * the group's (device and inode), the group's sites are carried to it
 * (sym/elfcopy.h: the same offsets for the same build, else through the
 * function names) and its links go on that file. The carried offsets are
 * kept per (device, inode, mtime) and group, so that the tenth container
 * running the same image costs no ELF reading.
 *
 * A process in vigil's own root has the plan's libraries; only its
 * executable may be another file (vigil watch --same-build: a copy). */
#include "probe_internal.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc/proc.h"
#include "proc/procinfo.h"
#include "sym/elfcopy.h"
#include "sym/libs.h"
#include "sym/maps.h"

/* one group's sites carried to one file */
struct carried {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	int g;
	uint64_t *offsets;
	const char *how;
};

struct vg_remap {
	struct carried *v;
	int n, cap;
};

struct vg_kid_file {
	char *path;		/* through the process's root */
	const uint64_t *offsets;	/* the cache's */
	const char *how;
	/* no file of the group's name in the process (nor where its
	 * loader looks): its links stay on the host's file, where they see
	 * nothing of it; said, not refused (a library it may never load) */
	const char *missing;
};

/* what a process has, read once per process */
struct kid_view {
	pid_t pid;
	char exe[PATH_MAX];
	bool have_maps, have_libs;
	struct vg_maps maps;
	struct vg_libs libs;
};

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The process's file for the host file `path` (stat'd as hs), or NULL. */
static char *kid_file_for(struct vg_probe *p, struct kid_view *kv,
			  const char *path, const struct stat *hs)
{
	struct stat bs;
	struct vg_err e = { 0 };
	const char *name = base(path);

	/* the watched program: the process's own executable (a copy has
	 * its name; under --lib-mapped p->binary is the library) */
	if (!stat(p->binary, &bs) && bs.st_dev == hs->st_dev &&
	    bs.st_ino == hs->st_ino && !strcmp(base(kv->exe), name))
		return strdup(kv->exe);
	if (!kv->have_maps && !vg_maps_read(kv->pid, &kv->maps, &e))
		kv->have_maps = true;
	for (size_t i = 0; kv->have_maps && i < kv->maps.n; i++) {
		const struct vg_map *m = &kv->maps.v[i];

		if (m->path && m->perms[2] == 'x' && !strcmp(base(m->path), name))
			return strdup(m->path);
	}
	/* not mapped yet (held at its exec): where its loader will look */
	if (!kv->have_libs && !vg_libs_load(kv->exe, &kv->libs, &e))
		kv->have_libs = true;
	for (size_t i = 1; kv->have_libs && i < kv->libs.n; i++) {
		const struct vg_lib *l = &kv->libs.v[i];

		if (l->path && (!strcmp(base(l->path), name) ||
				(l->needed && !strcmp(base(l->needed), name))))
			return strdup(l->path);
	}
	return NULL;
}

/* Group g's sites carried to file `to` (stat'd as ts), from the cache or
 * read now. */
static const struct carried *carry(struct vg_probe *p, int g, const char *to,
				   const struct stat *ts, struct vg_err *e)
{
	struct vg_remap *r = p->remap;
	const struct uprobe_group *u = &p->groups[g];
	struct carried *c;

	if (!r && !(r = p->remap = calloc(1, sizeof(*r)))) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	for (int i = 0; i < r->n; i++) {
		c = &r->v[i];
		if (c->g == g && c->dev == ts->st_dev && c->ino == ts->st_ino &&
		    c->mtime.tv_sec == ts->st_mtim.tv_sec &&
		    c->mtime.tv_nsec == ts->st_mtim.tv_nsec)
			return c;
	}
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 8;
		void *v = realloc(r->v, (size_t)cap * sizeof(*r->v));

		if (!v) {
			vg_errf(e, "out of memory");
			return NULL;
		}
		r->v = v;
		r->cap = cap;
	}
	c = &r->v[r->n];
	*c = (struct carried){ .dev = ts->st_dev, .ino = ts->st_ino,
			       .mtime = ts->st_mtim, .g = g };
	if (!(c->offsets = malloc((size_t)(u->n ? u->n : 1) * sizeof(uint64_t)))) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	if (vg_elf_carry_offsets(u->path, to, u->offsets, c->offsets, u->n,
				 &c->how, e)) {
		free(c->offsets);
		return NULL;
	}
	r->n++;
	return c;
}

/* pid ended meanwhile: no error (its attach fails with ESRCH, which
 * vg_probe_follow takes as gone, and its exit record is on the way) */
static bool gone(pid_t pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

void vg_probe_kid_files_free(struct vg_probe *p, struct vg_kid_links *k)
{
	for (int g = 0; k->files && g < p->ngroups; g++)
		free(k->files[g].path);
	free(k->files);
	k->files = NULL;
}

int vg_probe_kid_files(struct vg_probe *p, struct vg_kid_links *k,
		       struct vg_err *e)
{
	struct kid_view *kv;
	struct stat bs;
	char root[64];
	bool own_root;
	int rc = 0;

	vg_probe_kid_files_free(p, k);
	if (p->pid > 0)
		return 0;	/* --follow-fork: a child runs its parent's files */
	if (vg_proc_root_prefix(k->pid, root, sizeof(root), e))
		return gone(k->pid) ? 0 : -1;
	own_root = !root[0];
	if (stat(p->binary, &bs))
		return 0;
	if (!(kv = calloc(1, sizeof(*kv))))
		return vg_errf(e, "out of memory");
	kv->pid = k->pid;
	if (vg_proc_exe(k->pid, kv->exe, e)) {
		free(kv);
		return gone(k->pid) ? 0 : -1;
	}
	for (int g = 0; g < p->ngroups && !rc; g++) {
		const struct uprobe_group *u = &p->groups[g];
		const struct carried *c;
		struct stat hs, ts;
		char *own;

		if (stat(u->path, &hs) ||
		    (own_root && (hs.st_dev != bs.st_dev || hs.st_ino != bs.st_ino ||
				  strcmp(base(kv->exe), base(u->path)))))
			continue;	/* vigil's own root: its libraries */
		own = kid_file_for(p, kv, u->path, &hs);
		if (!own && !own_root) {
			if (!k->files &&
			    !(k->files = calloc((size_t)p->ngroups, sizeof(*k->files)))) {
				rc = vg_errf(e, "out of memory");
				break;
			}
			k->files[g].missing = u->path;
			continue;
		}
		if (!own || stat(own, &ts) ||
		    (ts.st_dev == hs.st_dev && ts.st_ino == hs.st_ino)) {
			/* the very file (a bind mount, a shared layer), or
			 * none of that name: the plan's */
			free(own);
			continue;
		}
		if (!k->files &&
		    !(k->files = calloc((size_t)p->ngroups, sizeof(*k->files)))) {
			free(own);
			rc = vg_errf(e, "out of memory");
			break;
		}
		if (!(c = carry(p, g, own, &ts, e))) {
			free(own);
			rc = -1;
			break;
		}
		k->files[g] = (struct vg_kid_file){ .path = own,
						    .offsets = c->offsets,
						    .how = c->how };
	}
	if (kv->have_maps)
		vg_maps_free(&kv->maps);
	if (kv->have_libs)
		vg_libs_free(&kv->libs);
	free(kv);
	if (rc)
		vg_probe_kid_files_free(p, k);
	return rc;
}

void vg_probe_kid_site(const struct vg_probe *p, int g, pid_t pid,
		       const char **path, const uint64_t **offsets)
{
	for (int i = 0; pid > 0 && i < p->nkids; i++)
		if (p->kids[i].pid == pid) {
			if (p->kids[i].files && p->kids[i].files[g].path) {
				*path = p->kids[i].files[g].path;
				*offsets = p->kids[i].files[g].offsets;
			}
			return;
		}
}

/* the names of k's own copies (missing false) or of the files it lacks
 * (missing true), each once, into buf at *at; how many */
static int list_files(const struct vg_probe *p, const struct vg_kid_links *k,
		      bool missing, char *buf, size_t len, size_t *at)
{
	int n = 0;

	for (int g = 0; g < p->ngroups; g++) {
		const char *f = missing ? k->files[g].missing : k->files[g].path;
		bool dup = false;

		if (!f)
			continue;
		for (int h = 0; h < g && !dup; h++) {
			const char *o = missing ? k->files[h].missing
						: k->files[h].path;

			dup = o && !strcmp(base(o), base(f));
		}
		if (dup || *at >= len)
			continue;
		if (missing)
			*at += (size_t)snprintf(buf + *at, len - *at, "%s%s",
						n ? ", " : "", base(f));
		else
			*at += (size_t)snprintf(buf + *at, len - *at, "%s%s (%s)",
						n ? ", " : "", base(f),
						k->files[g].how);
		n++;
	}
	return n;
}

int vg_probe_own_files(const struct vg_probe *p, pid_t pid, char *buf,
		       size_t len)
{
	char own[512] = "", miss[512] = "";
	size_t a = 0, b = 0, at = 0;
	int n = 0, m = 0;

	for (int i = 0; i < p->nkids; i++)
		if (p->kids[i].pid == pid && p->kids[i].files) {
			n = list_files(p, &p->kids[i], false, own, sizeof(own), &a);
			m = list_files(p, &p->kids[i], true, miss, sizeof(miss), &b);
		}
	buf[0] = 0;
	if (n)
		at = (size_t)snprintf(buf, len, "probed in its own copies: %s", own);
	if (m && at < len)
		snprintf(buf + at, len - at, "%snot in it (its probes there see nothing): %s",
			 n ? "; " : "", miss);
	return n + m;
}

void vg_probe_remap_free(struct vg_probe *p)
{
	struct vg_remap *r = p->remap;

	if (!r)
		return;
	for (int i = 0; i < r->n; i++)
		free(r->v[i].offsets);
	free(r->v);
	free(r);
	p->remap = NULL;
}

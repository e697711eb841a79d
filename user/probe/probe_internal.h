/* What the files of user/probe/ share about a loaded probe set; other modules see
 * only probe.h. */
#ifndef VIGIL_PROBE_INTERNAL_H
#define VIGIL_PROBE_INTERNAL_H

#include <bpf/libbpf.h>
#include <pthread.h>

#include "probe.h"
#include "sym/libs.h"

struct vg_dwarf_cache;

/* one breakpoint, in every thread of the process (probe_watch.c) */
struct probe_wp {
	uint64_t addr;		/* 0: a free entry */
	struct bpf_link **links;	/* one per thread */
	int nlinks;
};

struct vg_probe {
	const struct vg_spec *spec;
	struct vigil_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	int *link_prog_fd;	/* the program of each link */
	struct uprobe_site *sites;	/* per link; path NULL: not a uprobe */
	int nlinks;
	pid_t pid;
	/* --follow-fork (probe_follow.c): each followed process has its own
	 * uprobe links, indexed like sites; per_pid false: the kernel cannot
	 * hold a child at its fork, and the target's links take any process
	 * (pid -1), filtered in BPF */
	bool per_pid;
	struct vg_kid_links *kids;
	int nkids, kids_cap;
	/* links being destroyed on threads of their own (probe_follow.c) */
	pthread_mutex_t reap_mu;
	pthread_cond_t reap_cv;
	int reaping;
	bool suspended;
	int ncpus;
	int kprop_map[VG_KMAX_PROPS];
	int nkprops;
	uint32_t kslot_max, kslot_cap;	/* the kernel-tier slice table */
	struct bpf_program *entry, *ret;	/* the builds loaded */
	struct vg_libs libs;		/* the target's shared libraries */
	bool libs_loaded;
	struct vg_located *located;	/* each function's sites, found once */
	int nlocated;
	int caplinks;			/* links, link_prog_fd, sites */
	/* --lib: libraries the target may dlopen (vg_probe_opts.libs) */
	const char *const *dl_libs;
	size_t ndl_libs;
	/* `write x`, `read x`, `access x`, `change` (probe_watch.c): the
	 * breakpoints armed, by id (addr 0: free) */
	struct probe_wp *wps;
	int nwps;
	struct vg_dwarf_cache *wdc;	/* for vg_probe_watch_type */
	char binary[4096];		/* the target's executable */
	/* during vg_probe_drain */
	vg_probe_cb cb;
	void *cb_ctx;
	int cb_failed;
};

/* Where a uprobe link was attached, so that it can be attached again
 * after vg_probe_suspend (a CRIU dump must not see the int3 in the text). */
struct uprobe_site {
	struct bpf_program *prog;
	char *path;
	uint64_t offset;
	uint64_t cookie;
	bool retprobe;
	bool off;		/* --dynamic: detached until needed */
};

struct vg_kid_links {
	pid_t pid;
	struct bpf_link **links;	/* [nlinks] */
};

/* probe_where.c: the objects a spec's functions are looked for in
 * (p->libs, loaded once); where ev's function is, errors prefixed with
 * the spec line that names it (exit status 2); that prefix alone. */
int vg_probe_libs(struct vg_probe *p, struct vg_err *e);
int vg_probe_locate(struct vg_probe *p, const struct vg_event *ev,
		    struct vg_func_where *where, struct vg_err *e);
int vg_probe_at_spec_line(const struct vg_event *ev, struct vg_err *e);
/* Every site ev's function name stands for (a C++ name: each overload),
 * found once per run: *where points into p's cache. */
struct vg_located {
	char *name;
	struct vg_func_where *v;
	size_t n;
};
int vg_probe_locate_all(struct vg_probe *p, const struct vg_event *ev,
			const struct vg_func_where **where, size_t *n,
			struct vg_err *e);
/* The libraries and the sites found (vg_probe_close, lint) */
void vg_probe_where_free(struct vg_probe *p);

/* Attach a uprobe site for one process (pid -1: any), with the process in
 * the cookie's high half (bpf/vigil.bpf.c, others_link). NULL, errno
 * set, on failure. */
struct bpf_link *vg_probe_attach_site(const struct uprobe_site *u, pid_t pid);
/* Destroys links l[0..n) (NULL ones are skipped) and sets them to NULL,
 * on several threads at once, so that the kernel's waits for each close
 * overlap (probe_links.c) */
void vg_links_destroy(struct bpf_link **l, int n);
/* Let go of the children still held at their fork, once no fork can hold
 * another (vg_probe_close). */
void vg_probe_release_held(struct vg_probe *p);
void vg_probe_free_kids(struct vg_probe *p);

#endif

/* Multi-uprobe links through the bpf(2) system call, beside libbpf 1.1.
 *
 * Why: each uprobe link is detached on its own and each detach waits out a
 * grace period in the kernel (~80-130 ms on Linux 6.18), so a run's exit
 * and a checkpoint's detach grew with the number of probes. A multi-uprobe
 * link (BPF_TRACE_UPROBE_MULTI, Linux 6.6) holds any number of uprobes of
 * one program on one file, each with its cookie, filtered to one process
 * by the kernel; closing it unregisters them all and waits once. Debian
 * 12's libbpf (1.1) predates its API (1.3) and its uapi headers (Linux
 * 6.1) predate the attribute layout, so both are declared here, from the
 * kernel's stable uapi (docs/INTERNALS.md, uprobe links, says why not a newer libbpf).
 *
 * A program attached by multi-uprobe links must be loaded for them
 * (expected_attach_type), and can then be attached no other way: a run
 * uses one kind or the other for every uprobe, decided once
 * (vg_ulink_multi). */
#include "ulink.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* include/uapi/linux/bpf.h of Linux 6.6 */
#define VG_BPF_TRACE_UPROBE_MULTI 48
#define VG_BPF_F_UPROBE_MULTI_RETURN (1u << 0)

/* union bpf_attr for BPF_LINK_CREATE, its uprobe_multi member */
struct vg_link_create_umulti {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umulti_flags;
	uint32_t pid;
};

static int link_create_umulti(int prog_fd, const char *path, bool ret,
			      const uint64_t *offsets,
			      const uint64_t *cookies, int n, pid_t pid)
{
	struct vg_link_create_umulti a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = VG_BPF_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = (uint32_t)n;
	a.umulti_flags = ret ? VG_BPF_F_UPROBE_MULTI_RETURN : 0;
	a.pid = pid > 0 ? (uint32_t)pid : 0;	/* 0: any process */
	return (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/* As libbpf 1.3 probes it: a program loaded for multi-uprobe links, a
 * link on "/" (not a regular file) fails with EBADF where the kernel
 * knows the link type, EINVAL where it does not. */
static bool kernel_has_umulti(void)
{
	struct bpf_insn insns[2];
	LIBBPF_OPTS(bpf_prog_load_opts, po,
		    .expected_attach_type = VG_BPF_TRACE_UPROBE_MULTI);
	uint64_t off = 0;
	int prog, link;
	bool yes;

	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;	/* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "vg_umulti_probe", "GPL",
			     insns, 2, &po);
	if (prog < 0)
		return false;
	link = link_create_umulti(prog, "/", false, &off, NULL, 1, 0);
	yes = link < 0 && errno == EBADF;
	if (link >= 0)
		close(link);
	close(prog);
	return yes;
}

static pthread_once_t multi_once = PTHREAD_ONCE_INIT;
static bool multi_ok;

static void decide_multi(void)
{
	const char *no = getenv("VIGIL_NO_UPROBE_MULTI");

	multi_ok = !(no && *no && strcmp(no, "0")) && kernel_has_umulti();
}

bool vg_ulink_multi(void)
{
	pthread_once(&multi_once, decide_multi);
	return multi_ok;
}

void vg_ulink_prepare(struct bpf_program *prog)
{
	if (vg_ulink_multi())
		bpf_program__set_expected_attach_type(
			prog, (enum bpf_attach_type)VG_BPF_TRACE_UPROBE_MULTI);
}

bool vg_ulink_attached(const struct vg_ulink *l)
{
	return l->fd >= 0 || l->one;
}

int vg_ulink_attach(struct vg_ulink *l, struct bpf_program *prog,
		    const char *path, bool ret, const uint64_t *offsets,
		    const uint64_t *cookies, int n, pid_t pid, int *bad)
{
	*l = VG_ULINK_NONE;
	*bad = -1;
	if (n <= 0)
		return 0;
	if (vg_ulink_multi()) {
		l->fd = link_create_umulti(bpf_program__fd(prog), path, ret,
					   offsets, cookies, n, pid);
		return l->fd < 0 ? -1 : 0;
	}
	l->one = calloc((size_t)n, sizeof(*l->one));
	if (!l->one) {
		errno = ENOMEM;
		return -1;
	}
	l->n = n;
	for (int i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret,
			    .bpf_cookie = cookies[i]);

		l->one[i] = bpf_program__attach_uprobe_opts(prog, pid, path,
							    offsets[i], &uo);
		if (!l->one[i]) {
			int err = errno;

			*bad = i;
			vg_ulinks_destroy(l, 1);
			errno = err;
			return -1;
		}
	}
	return 0;
}

/* One thing to close: a multi link's fd, or a single link */
struct closer {
	int fd;
	struct bpf_link *bl;
};

struct closing {
	struct closer *c;
	int n;
	atomic_int next;
};

static void *close_some(void *arg)
{
	struct closing *d = arg;
	int i;

	while ((i = atomic_fetch_add(&d->next, 1)) < d->n) {
		if (d->c[i].bl)
			bpf_link__destroy(d->c[i].bl);
		else
			close(d->c[i].fd);
	}
	return NULL;
}

/* Closing a uprobe link waits in the kernel (~110 ms each on these
 * machines, one after another from one thread). From several threads the
 * waits overlap in part (the kernel still finishes them ~80 ms apart): an
 * empty sqlite3 run under specs/lib/sqlite_stmt.vigil, 18 single links,
 * went from 3.2-4.9 s to 2.3-2.4 s. A multi link waits once for all its
 * uprobes; a run has a few (one per program and file), closed the same
 * way. The waits need no CPU, so the caller tears down the rest meanwhile
 * (vg_ulinks_close_begin, _end). */
enum { MAX_THREADS = 32 };

struct vg_ulinks_closing {
	struct closing d;
	pthread_t t[MAX_THREADS];
	int nt;
};

/* Every closer of l[0..n), each link left empty; *nc of them (NULL
 * when none or no memory: then closed here, one after another) */
static struct closer *take_closers(struct vg_ulink *l, int n, int *nc)
{
	struct closer *c;
	int cap = 0;

	*nc = 0;
	for (int i = 0; i < n; i++)
		cap += l[i].fd >= 0 ? 1 : l[i].n;
	c = cap ? malloc((size_t)cap * sizeof(*c)) : NULL;
	for (int i = 0; i < n; i++) {
		if (l[i].fd >= 0) {
			if (c)
				c[(*nc)++] = (struct closer){ .fd = l[i].fd };
			else
				close(l[i].fd);
		}
		for (int k = 0; k < l[i].n; k++) {
			if (!l[i].one[k])
				continue;
			if (c)
				c[(*nc)++] = (struct closer){ .fd = -1,
							      .bl = l[i].one[k] };
			else
				bpf_link__destroy(l[i].one[k]);
		}
		free(l[i].one);
		l[i] = VG_ULINK_NONE;
	}
	if (c && !*nc) {
		free(c);
		c = NULL;
	}
	return c;
}

struct vg_ulinks_closing *vg_ulinks_close_begin(struct vg_ulink *l, int n)
{
	struct vg_ulinks_closing *k;
	struct closer *c;
	int nc;

	if (!(c = take_closers(l, n, &nc)))
		return NULL;
	if (!(k = calloc(1, sizeof(*k)))) {
		struct closing d = { .c = c, .n = nc };

		close_some(&d);
		free(c);
		return NULL;
	}
	k->d.c = c;
	k->d.n = nc;
	while (k->nt < MAX_THREADS && k->nt < nc &&
	       !pthread_create(&k->t[k->nt], NULL, close_some, &k->d))
		k->nt++;
	return k;
}

void vg_ulinks_close_end(struct vg_ulinks_closing *k)
{
	if (!k)
		return;
	close_some(&k->d);	/* what no thread took (none could be made) */
	for (int i = 0; i < k->nt; i++)
		pthread_join(k->t[i], NULL);
	free(k->d.c);
	free(k);
}

void vg_ulinks_destroy(struct vg_ulink *l, int n)
{
	vg_ulinks_close_end(vg_ulinks_close_begin(l, n));
}

/* Uprobe links for a group of probe sites of one BPF program on one file
 * (user/probe/ulink.c): one multi-uprobe link (BPF_TRACE_UPROBE_MULTI,
 * Linux 6.6) when the kernel has them, one link per site otherwise.
 * Probe-internal. */
#ifndef VIGIL_PROBE_ULINK_H
#define VIGIL_PROBE_ULINK_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The attachment of one group for one process. Empty: fd < 0 and no
 * singles (a zeroed one is not empty: use VG_ULINK_NONE). */
struct vg_ulink {
	int fd;			/* the multi-uprobe link, or -1 */
	struct bpf_link **one;	/* the fallback: [n] single links */
	int n;
};
#define VG_ULINK_NONE ((struct vg_ulink){ .fd = -1 })

/* Whether this run uses multi-uprobe links: the kernel has them and
 * VIGIL_NO_UPROBE_MULTI is not set (the e2e tests force the fallback
 * with it). Decided once per process. */
bool vg_ulink_multi(void);

/* Before the object is loaded: a program that will go into multi-uprobe
 * links must be loaded for them (expected_attach_type). */
void vg_ulink_prepare(struct bpf_program *prog);

/* Attach n sites of prog on path (file offsets; cookies as
 * bpf_get_attach_cookie reads them), for process pid (-1: any), as
 * uretprobes when ret. 0, or -1 with errno set and l left empty; *bad is
 * the site that failed when the kernel says which (single links), else
 * -1. */
int vg_ulink_attach(struct vg_ulink *l, struct bpf_program *prog,
		    const char *path, bool ret, const uint64_t *offsets,
		    const uint64_t *cookies, int n, pid_t pid, int *bad);

bool vg_ulink_attached(const struct vg_ulink *l);

/* Detach every link of l[0..n) (each left empty) at once: a multi link
 * is one close; the fallback's single links are closed on several threads
 * so that the kernel's waits overlap. */
void vg_ulinks_destroy(struct vg_ulink *l, int n);

/* vg_ulinks_destroy in two halves, so that the caller's other teardown
 * runs while the kernel waits: begin takes every link of l[0..n) (each
 * left empty) and starts closing them on their own threads; end waits
 * until all are closed. NULL from begin: there was nothing to wait for. */
struct vg_ulinks_closing;
struct vg_ulinks_closing *vg_ulinks_close_begin(struct vg_ulink *l, int n);
void vg_ulinks_close_end(struct vg_ulinks_closing *k);

#endif

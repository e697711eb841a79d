/* The pending return addresses of a process's threads, read from the
 * kernel by the vg_returns task iterator (bpf/returns.bpf.h). */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/probe_internal.h"
#include "probe/returns.h"
#include "proc/proc.h"
#include "vigil.skel.h"

int vg_probe_returns(struct vg_probe *p, pid_t pid, struct vg_pending_ret *out,
		     int max, struct vg_err *e)
{
	struct bpf_program *prog = p->skel->progs.vg_returns;
	struct bpf_link *link;
	size_t got = 0;
	ssize_t n;
	int fd;

	if (bpf_program__fd(prog) < 0)
		return 0;	/* no return probes: none of vigil's pending */
	p->skel->bss->returns_tgid = (uint32_t)pid;
	/* one pass of the iterator per question: the kernel's list is only
	 * stable while the threads are stopped, which is when gdb asks */
	if (!(link = bpf_program__attach_iter(prog, NULL)))
		return vg_errf(e, "reading the pending returns: %s",
			       strerror(errno));
	if ((fd = bpf_iter_create(bpf_link__fd(link))) < 0) {
		bpf_link__destroy(link);
		return vg_errf(e, "reading the pending returns: %s",
			       strerror(errno));
	}
	while (got < (size_t)max * sizeof(*out) &&
	       (n = read(fd, (char *)out + got,
			 (size_t)max * sizeof(*out) - got)) > 0)
		got += (size_t)n;
	close(fd);
	bpf_link__destroy(link);
	return (int)(got / sizeof(*out));
}

uint64_t vg_returns_trampoline(pid_t pid)
{
	uint64_t lo, hi;

	return vg_proc_uprobes_page(pid, &lo, &hi) ? lo : 0;
}

static int rw_word(pid_t pid, uint64_t addr, uint64_t *v, bool write)
{
	struct iovec local = { v, sizeof(*v) };
	struct iovec remote = { (void *)addr, sizeof(*v) };

	return (write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
		      : process_vm_readv(pid, &local, 1, &remote, 1, 0)) ==
		       (ssize_t)sizeof(*v) ? 0 : -1;
}

int vg_returns_mend(struct vg_probe *p, pid_t pid, bool to_real)
{
	struct vg_pending_ret r[512];
	uint64_t tramp = vg_returns_trampoline(pid), v;
	struct vg_err e = { 0 };
	int n = vg_probe_returns(p, pid, r, 512, &e), mended = 0;

	for (int i = 0; tramp && i < n; i++) {
		uint64_t from = to_real ? tramp : r[i].ret;
		uint64_t to = to_real ? r[i].ret : tramp;

		if (!rw_word(pid, r[i].slot, &v, false) && v == from &&
		    !rw_word(pid, r[i].slot, &to, true))
			mended++;
	}
	return mended;
}

/* The pages of watched blocks, for the probes' filter of calls into libc's
 * string and memory functions and read/write system calls
 * (bpf/callacc.bpf.h; user/session/watchset_ranges.c keeps them). */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>

#include "vigil.skel.h"

int vg_probe_page_set(struct vg_probe *p, uint64_t page, bool on)
{
	int fd;
	uint8_t one = 1;

	if (!p || !p->skel)
		return 0;
	fd = bpf_map__fd(p->skel->maps.watched_pages);
	if (!on)
		return bpf_map_delete_elem(fd, &page) && errno != ENOENT ? -1 : 0;
	if (bpf_map_update_elem(fd, &page, &one, BPF_ANY)) {
		/* full: every call goes to user space from now on */
		p->skel->bss->pages_all = 1;
		return -1;
	}
	return 0;
}

void vg_probe_pages_all(struct vg_probe *p)
{
	if (p && p->skel)
		p->skel->bss->pages_all = 1;
}

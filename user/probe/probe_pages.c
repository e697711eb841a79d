/* What the watchset tells the probes: the pages of watched blocks, for
 * their filter of calls into libc's string and memory functions and
 * read/write system calls (bpf/callacc.bpf.h; watchset_ranges.c keeps
 * them), and whether a hold to arm a watchpoint is futile (every register
 * taken under --watch-policy=refuse; bpf/vigil.bpf.c's arm_stop). */
#include "probe_internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>

#include "vigil.skel.h"

int vg_probe_page_set(struct vg_probe *p, uint64_t page, bool on)
{
	int fd;
	uint8_t one = 1;

	/* no call checks watched blocks: the filter was made with one
	 * entry (probe_config.c) and is never read */
	if (!p || !p->skel ||
	    bpf_map__max_entries(p->skel->maps.watched_pages) <= 1)
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

void vg_probe_armed_addr(struct vg_probe *p, uint64_t addr, bool on)
{
	uint8_t one = 1;
	int fd;

	if (!p || !p->skel)
		return;
	fd = bpf_map__fd(p->skel->maps.armed_addrs);
	if (on)
		bpf_map_update_elem(fd, &addr, &one, BPF_ANY);
	else
		bpf_map_delete_elem(fd, &addr);
}

void vg_probe_holds_futile(struct vg_probe *p, uint64_t releases)
{
	if (p && p->skel)
		p->skel->data->futile_at = releases;
}

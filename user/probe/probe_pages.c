/* What the watchset tells the probes: the pages of watched blocks, for
 * their filter of calls into libc's string and memory functions and
 * read/write system calls (bpf/callacc.bpf.h; watchset_ranges.c keeps
 * them), and whether a hold to arm a watchpoint is futile (every register
 * taken under --watch-policy=refuse; bpf/vigil.bpf.c's arm_stop). */
#include "probe_internal.h"
#include "watch.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sys/mman.h>

#include "vigil.skel.h"

/* The filter's counts, mapped in vigil when a call checks watched
 * blocks (else the map has one entry, probe_config.c, and is never read):
 * changed in place, no system call per freed block */
static uint64_t *page_counts(struct vg_probe *p)
{
	void *m;

	if (p->page_counts || !p->skel ||
	    bpf_map__max_entries(p->skel->maps.watched_pages) != VG_PAGE_SLOTS)
		return p->page_counts;
	m = mmap(NULL, VG_PAGE_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		 MAP_SHARED, bpf_map__fd(p->skel->maps.watched_pages), 0);
	if (m == MAP_FAILED) {
		p->skel->bss->pages_all = 1;	/* every call sent */
		return NULL;
	}
	return p->page_counts = m;
}

void vg_probe_page_count(struct vg_probe *p, uint64_t page, int delta)
{
	uint64_t *c = p ? page_counts(p) : NULL;

	if (c)
		__atomic_fetch_add(&c[vg_page_slot(page)], (uint64_t)(int64_t)delta,
				   __ATOMIC_RELAXED);
}

void vg_probe_pages_all(struct vg_probe *p)
{
	if (p && p->skel)
		p->skel->bss->pages_all = 1;
}

void vg_probe_armed_addr(struct vg_probe *p, uint64_t addr, bool on)
{
	uint8_t one = VG_ARMED_ON;	/* not released (again) */
	int fd;

	if (!p || !p->skel)
		return;
	if (p->src.armed)
		p->src.armed(p->src.ctx, addr, on);
	fd = bpf_map__fd(p->skel->maps.armed_addrs);
	if (on)
		bpf_map_update_elem(fd, &addr, &one, BPF_ANY);
	else
		bpf_map_delete_elem(fd, &addr);
}

void vg_probe_holds_done(struct vg_probe *p)
{
	vg_watch_far();	/* (a move outside a drain) the armer sleeps first */
	if (p && p->src.holds_done)
		p->src.holds_done(p->src.ctx);
}

void vg_probe_holds_futile(struct vg_probe *p, uint64_t releases,
			   uint64_t inproc_releases)
{
	if (p && p->src.futile)
		p->src.futile(p->src.ctx, inproc_releases);
	if (p && p->skel)
		p->skel->data->futile_at = releases;
}

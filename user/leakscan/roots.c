#include "roots.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (1u << 20)	/* bytes per process_vm_readv of a root */
#define PAGE 4096u
#define MAX_IOV 1024

struct map {
	uint64_t lo, hi;
	char perms[5];
	unsigned long inode;
	char path[256];
	bool stack;		/* a live thread's: scanned from its sp */
};

static ssize_t readv_at(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

/* ---- blocks */

int vg_leak_read_blocks(pid_t pid, struct vg_leak_block *blocks, size_t n,
			uint8_t **buf, struct vg_leak_roots_info *info,
			struct vg_err *e)
{
	uint64_t total = 0, off = 0;
	uint8_t *b;

	for (size_t i = 0; i < n; i++)
		total += blocks[i].size;
	b = malloc(total ? total : 1);
	if (!b)
		return vg_errf(e, "leak scan: out of memory for %" PRIu64
			       " bytes of blocks", total);
	*buf = b;
	for (size_t i = 0; i < n; i++) {
		blocks[i].data = b + off;
		off += blocks[i].size;
	}
	/* up to MAX_IOV blocks per call; a short read (a block not mapped:
	 * a slice past a free vigil did not see) is redone block by block */
	for (size_t i = 0; i < n; ) {
		struct iovec l[MAX_IOV], r[MAX_IOV];
		size_t k = 0, want = 0;
		ssize_t got;

		while (i + k < n && k < MAX_IOV) {
			const struct vg_leak_block *x = &blocks[i + k];

			l[k].iov_base = (void *)x->data;
			l[k].iov_len = x->size;
			r[k].iov_base = (void *)(uintptr_t)x->addr;
			r[k].iov_len = x->size;
			want += x->size;
			k++;
		}
		got = want ? process_vm_readv(pid, l, k, r, k, 0) : 0;
		if (got < 0 && errno == ESRCH)
			return vg_errf(e, "leak scan: pid %d is gone", pid);
		if (got != (ssize_t)want)
			for (size_t j = 0; j < k; j++) {
				struct vg_leak_block *x = &blocks[i + j];

				if (x->size &&
				    readv_at(pid, x->addr, (void *)x->data,
					     x->size) != (ssize_t)x->size) {
					x->data = NULL;
					info->blocks_unread++;
				}
			}
		i += k;
	}
	return 0;
}

/* ---- the process's layout */

static int read_maps(pid_t pid, struct map **out, size_t *n, struct vg_err *e)
{
	char path[64], line[4400];
	FILE *f;
	struct map *v = NULL;
	size_t cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return vg_errf(e, "leak scan: %s: %s", path, strerror(errno));
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct map m = { 0 };
		unsigned long long lo, hi, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %4s %llx %*s %lu %n", &lo, &hi,
			   m.perms, &off, &m.inode, &pos) < 4)
			continue;
		m.lo = lo;
		m.hi = hi;
		if (pos) {
			snprintf(m.path, sizeof(m.path), "%s", line + pos);
			m.path[strcspn(m.path, "\n")] = 0;
		}
		if (*n == cap) {
			struct map *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return vg_errf(e, "out of memory");
			}
			v = nv;
		}
		v[(*n)++] = m;
	}
	fclose(f);
	*out = v;
	return 0;
}

static struct map *map_of(struct map *m, size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= m[i].lo && a < m[i].hi)
			return &m[i];
	return NULL;
}

/* the first block ending after a */
static size_t first_after(const struct vg_leak_block *b, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid].addr + b[mid].size <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [lo, hi) as roots, in chunks; pages that cannot be read are skipped */
static void scan_range(pid_t pid, struct vg_leak_scan *s, uint8_t *buf,
		       uint64_t lo, uint64_t hi,
		       struct vg_leak_roots_info *info)
{
	while (lo < hi) {
		size_t len = hi - lo > CHUNK ? CHUNK : (size_t)(hi - lo);
		ssize_t got = readv_at(pid, lo, buf, len);

		if (got > 0) {
			vg_leak_scan_root(s, lo, buf, (size_t)got);
			info->root_bytes += (uint64_t)got;
			lo += (uint64_t)got;
			continue;
		}
		/* this page is not readable: skip to the next one */
		len = (size_t)(((lo / PAGE) + 1) * PAGE - lo);
		if (len > hi - lo)
			len = (size_t)(hi - lo);
		info->unreadable += len;
		lo += len;
	}
}

/* [lo, hi) without the bytes of blocks */
static void scan_between(pid_t pid, struct vg_leak_scan *s, uint8_t *buf,
			 const struct vg_leak_block *b, size_t n,
			 uint64_t lo, uint64_t hi,
			 struct vg_leak_roots_info *info)
{
	for (size_t i = first_after(b, n, lo); lo < hi; i++) {
		uint64_t stop = i < n && b[i].addr < hi ? b[i].addr : hi;

		if (stop > lo)
			scan_range(pid, s, buf, lo, stop, info);
		if (i >= n || b[i].addr >= hi)
			break;
		lo = b[i].addr + b[i].size;
	}
}

/* ---- threads */

/* sp of a stopped thread: the second to last field of .../syscall
 * ("running" when it is not stopped) */
static int thread_sp(pid_t pid, pid_t tid, uint64_t *sp, struct vg_err *e)
{
	char path[96], line[512], *last, *prev;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 1;	/* gone meanwhile: no stack */
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 1;
	}
	fclose(f);
	if (!strncmp(line, "running", 7))
		return vg_errf(e, "leak scan: thread %d of pid %d is running (the process must be stopped)",
			       tid, pid);
	line[strcspn(line, "\n")] = 0;
	last = strrchr(line, ' ');
	if (!last)
		return 1;
	*last = 0;
	prev = strrchr(line, ' ');
	*sp = strtoull(prev ? prev + 1 : line, NULL, 16);
	return 0;
}

/* Seize the (stopped) thread for its registers, then let it go: it goes
 * back to the stop it was in. Not possible while another tracer (gdb)
 * has it. */
static bool thread_regs(pid_t tid, struct user_regs_struct *r)
{
	bool ok;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0))
		return false;
	ok = ptrace(PTRACE_GETREGS, tid, 0, r) == 0;
	if (!ok && errno == ESRCH) {	/* not yet in its trap stop */
		int st;

		if (waitpid(tid, &st, __WALL) == tid)
			ok = ptrace(PTRACE_GETREGS, tid, 0, r) == 0;
	}
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return ok;
}

static void scan_regs(struct vg_leak_scan *s, const struct user_regs_struct *r,
		      bool at_call)
{
	const unsigned long long saved[] = {	/* callee-saved, and TLS */
		r->rbx, r->rbp, r->r12, r->r13, r->r14, r->r15,
		r->fs_base, r->gs_base,
	};
	const unsigned long long scratch[] = {
		r->rax, r->rcx, r->rdx, r->rsi, r->rdi, r->r8, r->r9, r->r10,
		r->r11,
	};

	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++)
		vg_leak_scan_root_word(s, saved[i]);
	for (size_t i = 0; !at_call && i < sizeof(scratch) / sizeof(scratch[0]); i++)
		vg_leak_scan_root_word(s, scratch[i]);
}

/* the slot above sp holding the return address ret, or sp */
static uint64_t above_return(pid_t pid, uint8_t *buf, uint64_t sp,
			     uint64_t hi, uint64_t ret)
{
	for (uint64_t lo = sp; ret && lo < hi; ) {
		size_t len = hi - lo > CHUNK ? CHUNK : (size_t)(hi - lo);
		ssize_t got = readv_at(pid, lo, buf, len);

		if (got <= 0)
			break;
		for (size_t o = 0; o + 8 <= (size_t)got; o += 8) {
			uint64_t v;

			memcpy(&v, buf + o, 8);
			if (v == ret)
				return lo + o + 8;
		}
		lo += (uint64_t)got;
	}
	return sp;
}

static int scan_threads(pid_t pid, struct vg_leak_scan *s, uint8_t *buf,
			struct map *m, size_t nm,
			const struct vg_leak_call *call,
			struct vg_leak_roots_info *info, struct vg_err *e)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return vg_errf(e, "leak scan: pid %d is gone", pid);
	while (!rc && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct user_regs_struct r;
		struct map *st;
		uint64_t sp = 0, lo;

		if (tid <= 0)
			continue;
		rc = thread_sp(pid, tid, &sp, e);
		if (rc) {
			rc = rc < 0 ? -1 : 0;
			continue;
		}
		info->threads++;
		if (thread_regs(tid, &r)) {
			info->threads_regs++;
			scan_regs(s, &r, call && tid == call->tid);
			sp = r.rsp;
		}
		st = map_of(m, nm, sp);
		if (!st)
			continue;
		st->stack = true;
		/* from sp up: not the 128-byte red zone below it, which at
		 * a call (the hold at _exit) holds only the callees' dead
		 * data, and stale pointers there would keep lost blocks
		 * reachable */
		lo = call && tid == call->tid
		     ? above_return(pid, buf, sp, st->hi, call->ret) : sp;
		scan_range(pid, s, buf, lo, st->hi, info);
	}
	closedir(d);
	return rc;
}

/* ---- the other mappings */

static bool anonymous(const struct map *m)
{
	return m->inode == 0 && (!m->path[0] || !strncmp(m->path, "[anon:", 6));
}

static bool blocks_in(const struct vg_leak_block *b, size_t n,
		      const struct map *m)
{
	size_t i = first_after(b, n, m->lo);

	return i < n && b[i].addr < m->hi;
}

static bool is_root(const struct map *m, const struct map *prev,
		    const struct vg_leak_block *b, size_t n)
{
	if (m->perms[0] != 'r' || m->perms[1] != 'w' || m->stack)
		return false;
	/* vigil's own in the target (the in-process tier, user/fast/): its
	 * ring and frames hold the program's pointers, but nothing of the
	 * program's */
	if (!strncmp(m->path, "/memfd:vigil-fast", 17) ||
	    !strncmp(m->path, "[anon:vigil-fast", 16) ||
	    !strncmp(m->path, "anon_inode:bpf-map", 18))
		return false;
	if (m->path[0] == '[' && strncmp(m->path, "[anon:", 6))
		return false;	/* [heap], [stack] (no live thread on it),
				 * [vvar], [vsyscall] */
	if (!strncmp(m->path, "/dev/", 5) && strcmp(m->path, "/dev/zero") &&
	    strncmp(m->path, "/dev/shm/", 9))
		return false;	/* a device's memory: never read */
	if (!anonymous(m))
		return true;	/* an object's data, a file the program mapped */
	/* a glibc pthread stack (its guard page below it) no live thread
	 * is on: a dead thread's, cached */
	if (prev && prev->hi == m->lo && anonymous(prev) &&
	    !strcmp(prev->perms, "---p"))
		return false;
	/* with blocks: malloc's (an arena, an mmap'd chunk), unless it is a
	 * bss the kernel merged with one (it follows the object's file) */
	if (blocks_in(b, n, m))
		return prev && prev->hi == m->lo && !anonymous(prev);
	return true;
}

int vg_leak_scan_roots(pid_t pid, struct vg_leak_scan *scan,
		       const struct vg_leak_block *blocks, size_t n,
		       const struct vg_leak_call *call,
		       struct vg_leak_roots_info *info, struct vg_err *e)
{
	struct map *m = NULL;
	size_t nm = 0;
	uint8_t *buf = malloc(CHUNK);
	int rc = -1;

	if (!buf)
		return vg_errf(e, "out of memory");
	if (read_maps(pid, &m, &nm, e) ||
	    scan_threads(pid, scan, buf, m, nm, call, info, e))
		goto out;
	for (size_t i = 0; i < nm; i++) {
		if (!is_root(&m[i], i ? &m[i - 1] : NULL, blocks, n))
			continue;
		info->regions++;
		scan_between(pid, scan, buf, blocks, n, m[i].lo, m[i].hi, info);
	}
	rc = 0;
out:
	free(m);
	free(buf);
	return rc;
}

/* The target's memory while vigil holds it (inject.h): reads and writes
 * through /proc/pid/mem, mappings made by system calls run in it, the
 * region it shares with vigil, and where glibc keeps a thread's tid. */
#include "inject_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sym/elf.h"
#include "proc/proc.h"
#include "sym/maps.h"

#define PAGE 4096ull
#define USER_TOP 0x7ffffffff000ull	/* 47-bit user space */
#define USER_BOTTOM 0x10000ull		/* vm.mmap_min_addr's default */
/* room left for the stack to grow (the kernel's stack_guard_gap is 1 MB)
 * and for brk to grow the heap */
#define STACK_ROOM (8ull << 20)
#define HEAP_ROOM (256ull << 20)

static int mem_io(struct vg_inject *in, bool wr, uint64_t addr, void *buf,
		  size_t len, struct vg_err *e)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = wr ? pwrite(in->memfd, (char *)buf + done,
					len - done, (off_t)(addr + done))
			       : pread(in->memfd, (char *)buf + done,
				       len - done, (off_t)(addr + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return vg_errf(e, "pid %d: %s %zu bytes at 0x%" PRIx64 ": %s",
				       in->pid, wr ? "writing" : "reading",
				       len, addr,
				       r < 0 ? strerror(errno) : "not mapped");
		done += (size_t)r;
	}
	return 0;
}

int vg_inject_write(struct vg_inject *in, uint64_t addr, const void *buf,
		    size_t len, struct vg_err *e)
{
	return mem_io(in, true, addr, (void *)buf, len, e);
}

int vg_inject_read(struct vg_inject *in, uint64_t addr, void *buf,
		   size_t len, struct vg_err *e)
{
	return mem_io(in, false, addr, buf, len, e);
}

/* A system call's result that is an error */
static bool sys_failed(long r)
{
	return r < 0 && r >= -4095;
}

static int sys(struct vg_inject *in, long *ret, const char *what, long nr,
	       long a1, long a2, long a3, long a4, long a5, long a6,
	       struct vg_err *e)
{
	if (vg_inject_syscall(in, ret, nr, a1, a2, a3, a4, a5, a6, e))
		return -1;
	if (sys_failed(*ret))
		return vg_errf(e, "pid %d: %s: %s", in->pid, what,
			       strerror((int)-*ret));
	return 0;
}

struct cand {
	uint64_t addr, dist;
};

static int by_dist(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->dist < y->dist ? -1 : x->dist > y->dist;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The place nearest to near in the hole [lo, hi) for len bytes within
 * the span around near; false when it holds none. */
static bool in_hole(uint64_t lo, uint64_t hi, uint64_t near, size_t len,
		    struct cand *c)
{
	uint64_t min = near > VG_INJECT_NEAR_SPAN ? near - VG_INJECT_NEAR_SPAN : 0;
	uint64_t max = near + VG_INJECT_NEAR_SPAN;

	lo = (lo > min ? lo : min);
	lo = (lo + PAGE - 1) & ~(PAGE - 1);
	hi = (hi < max ? hi : max) & ~(PAGE - 1);
	if (hi <= lo || hi - lo < len)
		return false;
	c->addr = near <= lo ? lo : near >= hi - len ? hi - len
			     : near & ~(PAGE - 1);
	c->dist = dist(c->addr, near) > dist(c->addr + len, near)
			  ? dist(c->addr, near) : dist(c->addr + len, near);
	return true;
}

/* Where brk starts the heap (/proc/pid/stat's start_brk, field 47):
 * before the program has called brk there is no [heap] line yet, and a
 * mapping right above its data would leave malloc no room to grow there
 * (it falls back to mmap: other addresses, another program). 0: unknown */
static uint64_t start_brk(pid_t pid)
{
	return vg_proc_stat_u64(pid, 47);
}

/* Holes of the target's maps near `near`, nearest first; none in the
 * heap's way: brk's room from start_brk on, up to the end of reach */
static int holes(struct vg_inject *in, uint64_t near, size_t len,
		 struct cand **out, size_t *n, struct vg_err *e)
{
	struct vg_maps m;
	uint64_t prev = USER_BOTTOM, brk = start_brk(in->pid);
	uint64_t brk_end = brk ? brk + 2 * VG_INJECT_NEAR_SPAN : 0;

	if (vg_maps_read(in->pid, &m, e))
		return -1;
	*n = 0;
	if (!(*out = calloc(m.n + 2, sizeof(**out)))) {
		vg_maps_free(&m);
		return vg_errf(e, "out of memory");
	}
	for (size_t i = 0; i <= m.n; i++) {
		const struct vg_map *mp = i < m.n ? &m.v[i] : NULL;
		uint64_t hi = mp && mp->start < USER_TOP ? mp->start : USER_TOP;

		if (mp && mp->path && !strcmp(mp->path, "[stack]"))
			hi = hi > STACK_ROOM ? hi - STACK_ROOM : 0;
		if (brk && prev < brk_end && hi > brk) {	/* the heap's */
			if (prev < brk && in_hole(prev, brk, near, len,
						  &(*out)[*n]))
				(*n)++;
			prev = brk_end;
		}
		if (hi > prev && in_hole(prev, hi, near, len, &(*out)[*n]))
			(*n)++;
		if (!mp || mp->start >= USER_TOP)
			break;
		prev = mp->end > prev ? mp->end : prev;
		if (mp->path && !strcmp(mp->path, "[heap]"))
			prev += HEAP_ROOM;
	}
	vg_maps_free(&m);
	qsort(*out, *n, sizeof(**out), by_dist);
	return 0;
}

int vg_inject_mmap_near(struct vg_inject *in, uint64_t near, size_t len,
			int prot, int flags, int fd, uint64_t *addr,
			struct vg_err *e)
{
	struct cand *c;
	size_t n;
	long r;

	len = (len + PAGE - 1) & ~(PAGE - 1);
	if (!near) {
		if (sys(in, &r, "mmap", SYS_mmap, 0, (long)len, prot, flags,
			fd, 0, e))
			return -1;
		*addr = (uint64_t)r;
		return 0;
	}
	if (holes(in, near, len, &c, &n, e))
		return -1;
	for (size_t i = 0; i < n && i < 16; i++) {
		if (vg_inject_syscall(in, &r, SYS_mmap, (long)c[i].addr,
				      (long)len, prot,
				      flags | MAP_FIXED_NOREPLACE, fd, 0, e))
			goto fail;
		if ((uint64_t)r == c[i].addr) {
			*addr = c[i].addr;
			free(c);
			return 0;
		}
		if (!sys_failed(r)) {	/* a kernel that took it as a hint */
			long u;

			vg_inject_syscall(in, &u, SYS_munmap, r, (long)len, 0,
					  0, 0, 0, NULL);
		} else if (r != -EEXIST) {
			vg_errf(e, "pid %d: mmap of %zu bytes at 0x%" PRIx64 ": %s",
				in->pid, len, c[i].addr, strerror((int)-r));
			goto fail;
		}
	}
	vg_errf(e, "pid %d: no free %zu bytes within 1.5 GB of 0x%" PRIx64,
		in->pid, len, near);
fail:
	free(c);
	return -1;
}

/* Map the target's memfd fd here too */
static int map_here(struct vg_inject *in, long fd, size_t len, void **local,
		    struct vg_err *e)
{
	char path[64];
	int lfd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", in->pid, fd);
	if ((lfd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return vg_errf(e, "opening %s: %s", path, strerror(errno));
	*local = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, lfd, 0);
	close(lfd);
	if (*local == MAP_FAILED)
		return vg_errf(e, "mapping %s: %s", path, strerror(errno));
	return 0;
}

/* The memfd's name is written on the stack of the thread the system
 * calls run in, below its red zone: memory no code of it uses now. */
int vg_inject_shared(struct vg_inject *in, size_t len, uint64_t *remote,
		     void **local, struct vg_err *e)
{
	static const char name[] = "vigil-fast";
	struct user_regs_struct r;
	uint64_t at;
	long fd = -1, ret, map = 0;

	len = (len + PAGE - 1) & ~(PAGE - 1);
	if (vg_inject_getregs(in, 0, &r, e))
		return -1;
	at = (r.rsp - 128 - 64) & ~15ull;
	if (vg_inject_write(in, at, name, sizeof(name), e) ||
	    sys(in, &fd, "memfd_create", SYS_memfd_create, (long)at,
		MFD_CLOEXEC, 0, 0, 0, 0, e))
		return -1;
	if (sys(in, &ret, "ftruncate of its memfd", SYS_ftruncate, fd,
		(long)len, 0, 0, 0, 0, e) ||
	    sys(in, &map, "mmap of its memfd", SYS_mmap, 0, (long)len,
		PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0, e))
		goto fail;
	if (map_here(in, fd, len, local, e))
		goto fail;
	if (sys(in, &ret, "close", SYS_close, fd, 0, 0, 0, 0, 0, e)) {
		munmap(*local, len);
		fd = -1;	/* what is left of it, the target keeps */
		goto fail;
	}
	*remote = (uint64_t)map;
	return 0;
fail:
	if (map)
		vg_inject_syscall(in, &ret, SYS_munmap, map, (long)len, 0, 0,
				  0, 0, NULL);
	if (fd >= 0)
		vg_inject_syscall(in, &ret, SYS_close, fd, 0, 0, 0, 0, 0, NULL);
	return -1;
}

/* libc.so.6 among the target's objects */
static int find_libc(pid_t pid, char *path, size_t size, uint64_t *bias,
		     struct vg_err *e)
{
	struct vg_maps m;
	struct vg_objects o;
	int ret = -1;

	if (vg_maps_read(pid, &m, e))
		return -1;
	if (vg_maps_objects(&m, &o, e)) {
		vg_maps_free(&m);
		return -1;
	}
	for (size_t i = 0; i < o.n && ret; i++) {
		const char *b = strrchr(o.v[i].path, '/');

		b = b ? b + 1 : o.v[i].path;
		if (!strncmp(b, "libc.so", 7) || !strncmp(b, "libc-2.", 7)) {
			snprintf(path, size, "%s", o.v[i].path);
			*bias = o.v[i].bias;
			ret = 0;
		}
	}
	vg_objects_free(&o);
	vg_maps_free(&m);
	if (ret)
		vg_errf(e, "pid %d has no libc.so.6 mapped (a static program, or not glibc)",
			pid);
	return ret;
}

/* libc exports, for libthread_db, a descriptor of struct pthread's tid:
 * uint32_t[3] = { size in bits, element count, offset }
 * (nptl_db/thread_dbP.h's DB_DEFINE_DESC, from structs.def's
 * DB_STRUCT_FIELD (pthread, tid); GLIBC_PRIVATE since 2.34). */
int vg_inject_tid_offset(struct vg_inject *in, uint32_t *off,
			 struct vg_err *e)
{
	char path[4096];
	uint64_t bias, sym, size;
	uint32_t d[3];

	if (find_libc(in->pid, path, sizeof(path), &bias, e) ||
	    vg_elf_dyn_object(path, "_thread_db_pthread_tid", &sym, &size, e))
		return -1;
	if (size != sizeof(d))
		return vg_errf(e, "%s: _thread_db_pthread_tid has %" PRIu64 " bytes, not 12",
			       path, size);
	if (vg_inject_read(in, bias + sym, d, sizeof(d), e))
		return -1;
	if (d[0] != 32 || d[1] != 1 || d[2] > 65536)
		return vg_errf(e, "%s: _thread_db_pthread_tid is {%u, %u, %u}, not a 32-bit field",
			       path, d[0], d[1], d[2]);
	for (int i = 0; i < in->n; i++) {
		struct user_regs_struct r;
		uint32_t tid;

		if (in->t[i].gone)
			continue;
		if (vg_inject_getregs(in, i, &r, e) ||
		    vg_inject_read(in, r.fs_base + d[2], &tid, 4, e))
			return -1;
		if (tid != (uint32_t)in->t[i].tid)
			return vg_errf(e, "pid %d: thread %d has %u at fs_base 0x%llx + %u, not its tid",
				       in->pid, in->t[i].tid, tid, r.fs_base,
				       d[2]);
	}
	*off = d[2];
	return 0;
}

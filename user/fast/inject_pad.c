/* Where vigil's injected system calls run (inject.c): a `syscall`
 * instruction followed by code that puts every register back as it was
 * before the injection and jumps to where the thread was.
 *
 * Why: vigil replaces a thread's registers for the moment of one system
 * call. If vigil dies then (SIGKILL, a crash), the kernel detaches the
 * thread and it runs on from wherever vigil left it. With the call run
 * over the thread's own pc (the bytes borrowed), it would go on with the
 * wrong registers and its own code overwritten; here it goes on through
 * this code, which restores it: as if vigil had finished.
 *
 * The code lives in the padding at the end of an executable file mapping
 * (the bytes of its last page past the end of its ELF segment, by the
 * file's program headers: nothing runs or reads them there), written
 * through /proc/pid/mem (private, copied on write), so that no system
 * call is needed to make room for it.
 * Its data (the registers to restore) follows it in the same page, read
 * with rip-relative loads. Its bytes are put back at the release; a copy
 * left by a vigil that died is never reached (and taken again by the
 * next).
 *
 *	pad+0	syscall
 *	pad+2	mov RSP_LOW(%rip), %rsp		the thread's %rsp - 256: below
 *						its red zone
 *	      	push FLAGS(%rip); popf
 *	      	lea 256(%rsp), %rsp		flags untouched
 *	      	mov GPR[r](%rip), r		for each of the 15 others
 *	      	jmp *RIP(%rip)
 */
#include "inject_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sym/maps.h"

#define DATA_OFF 256		/* struct pad_data, from the pad's start */

struct pad_data {
	uint64_t gpr[16];	/* by x86 register number (rsp's unused) */
	uint64_t flags, rip, rsp_low;
};

_Static_assert(DATA_OFF + sizeof(struct pad_data) <= VG_INJECT_PAD,
	       "the pad's data does not fit");

struct code {
	uint8_t b[DATA_OFF];
	int n;
};

static void put(struct code *c, const uint8_t *b, int n)
{
	memcpy(c->b + c->n, b, n);
	c->n += n;
}

/* rel32 to the data field at off, from the end of the instruction whose
 * 4-byte displacement comes next (tail: bytes after the displacement) */
static void disp(struct code *c, size_t off, int tail)
{
	int32_t d = (int32_t)(DATA_OFF + off) - (c->n + 4 + tail);

	put(c, (const uint8_t *)&d, 4);
}

static void mov_load(struct code *c, int reg, size_t off)
{
	uint8_t op[3] = { reg >= 8 ? 0x4c : 0x48, 0x8b,
			  (uint8_t)(((reg & 7) << 3) | 5) };

	put(c, op, 3);
	disp(c, off, 0);
}

static void build(struct code *c)
{
	static const uint8_t sys[2] = { 0x0f, 0x05 }, push[2] = { 0xff, 0x35 },
		popf = 0x9d, lea[8] = { 0x48, 0x8d, 0xa4, 0x24, 0, 1, 0, 0 },
		jmp[2] = { 0xff, 0x25 };

	memset(c, 0, sizeof(*c));
	put(c, sys, 2);
	mov_load(c, 4, offsetof(struct pad_data, rsp_low));
	put(c, push, 2);
	disp(c, offsetof(struct pad_data, flags), 0);
	put(c, &popf, 1);
	put(c, lea, 8);
	for (int r = 0; r < 16; r++)
		if (r != 4)
			mov_load(c, r, offsetof(struct pad_data, gpr) + 8 * r);
	put(c, jmp, 2);
	disp(c, offsetof(struct pad_data, rip), 0);
}

/* Mapping p's file, opened: through /proc/pid/map_files (the target's
 * own file, whatever its mount namespace), which the kernel opens only
 * for CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE; without them (a user
 * tracing a program of their own) by its path under the target's root
 * (/proc/pid/root, open to its tracer), taken only if its device and
 * inode are the mapping's. A file replaced since, or on an overlay (whose
 * maps line gives the layer's inode), is not taken: no pad there. */
static int open_mapped(pid_t pid, const struct vg_map *p)
{
	char path[4200];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, p->start, p->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || (errno != EPERM && errno != EACCES))
		return fd;
	if (snprintf(path, sizeof(path), "/proc/%d/root%s", pid, p->path) >=
		    (int)sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != p->dev || st.st_ino != p->ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Bytes at the end of mapping p that its ELF segment does not cover:
 * the executable PT_LOAD mapped there (its offset rounded down to the
 * page is the mapping's) ends before the mapping does. 0 when not an ELF
 * file or no such segment. */
static uint64_t spare(pid_t pid, const struct vg_map *p)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t room = 0;
	int fd;

	if ((fd = open_mapped(pid, p)) < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (int i = 0; i < eh.e_phnum; i++) {
		uint64_t end;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    (ph.p_offset & ~4095ull) != p->offset)
			continue;
		end = ph.p_offset + ph.p_filesz;	/* as a file offset */
		if (ph.p_memsz == ph.p_filesz &&
		    end <= p->offset + (p->end - p->start))
			room = p->offset + (p->end - p->start) - end;
		break;
	}
out:
	close(fd);
	return room;
}

/* The first executable file mapping with VG_INJECT_PAD bytes past its
 * segment's end (a pad a vigil that died left there is taken again),
 * what they hold kept in in->pad_orig */
static uint64_t find(struct vg_inject *in)
{
	struct vg_maps m;
	uint64_t at = 0;

	if (vg_maps_read(in->pid, &m, NULL))
		return 0;
	for (size_t i = 0; i < m.n && !at; i++) {
		const struct vg_map *p = &m.v[i];

		if (strcmp(p->perms, "r-xp") || !p->path || p->path[0] != '/' ||
		    spare(in->pid, p) < VG_INJECT_PAD ||
		    vg_inject_read(in, p->end - VG_INJECT_PAD, in->pad_orig,
				   VG_INJECT_PAD, NULL))
			continue;
		at = p->end - VG_INJECT_PAD;
	}
	vg_maps_free(&m);
	return at;
}

int vg_inject_pad(struct vg_inject *in, uint64_t *at)
{
	struct code c;

	if (!in->pad_tried) {
		in->pad_tried = true;
		build(&c);
		if ((in->pad = find(in))) {
			if (vg_inject_write(in, in->pad, c.b, c.n, NULL)) {
				vg_inject_pad_undo(in);
				in->pad = 0;
			}
		}
	}
	*at = in->pad;
	return in->pad ? 0 : -1;
}

int vg_inject_pad_set(struct vg_inject *in, const struct user_regs_struct *r,
		      uint64_t rip, uint64_t rax, struct vg_err *e)
{
	struct pad_data d = {
		.gpr = { rax, r->rcx, r->rdx, r->rbx, 0, r->rbp, r->rsi,
			 r->rdi, r->r8, r->r9, r->r10, r->r11, r->r12, r->r13,
			 r->r14, r->r15 },
		.flags = r->eflags, .rip = rip, .rsp_low = r->rsp - 256,
	};

	return vg_inject_write(in, in->pad + DATA_OFF, &d, sizeof(d), e);
}

void vg_inject_pad_undo(struct vg_inject *in)
{
	if (in->pad)
		vg_inject_write(in, in->pad, in->pad_orig, VG_INJECT_PAD, NULL);
}

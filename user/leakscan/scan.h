/* The conservative reachability scan of memcheck's leak checker (and
 * LeakSanitizer's), on memory already read: given the live blocks (address,
 * size, contents) and the roots (the words of data, bss, stacks, registers
 * and TLS), class every block:
 *
 *   definitely lost  no pointer to it anywhere (a clique leader);
 *   indirectly lost  pointed to only from lost blocks (its clique's
 *                    leader counts its bytes as "indirect");
 *   possibly lost    only interior pointers reach it, or only through
 *                    possibly lost blocks;
 *   still reachable  a pointer to its start from a root or from a
 *                    reachable block.
 *
 * A pointer is any 8-byte aligned word whose value falls in [addr,
 * addr+size) of a block (a 0-byte block: equal to addr). Nothing here
 * reads a process: user/leakscan/roots.c does, the tests give images. */
#ifndef VIGIL_LEAKSCAN_SCAN_H
#define VIGIL_LEAKSCAN_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum vg_leak_kind {
	VG_LEAK_DEFINITE,
	VG_LEAK_INDIRECT,
	VG_LEAK_POSSIBLE,
	VG_LEAK_REACHABLE,
	VG_LEAK_NKINDS
};

/* "definite", "indirect", "possible", "reachable" (valgrind's
 * match-leak-kinds names) and "definitely lost" etc. (its report's) */
const char *vg_leak_kind_name(enum vg_leak_kind k);
const char *vg_leak_kind_text(enum vg_leak_kind k);

struct vg_leak_block {
	uint64_t addr, size;
	const uint8_t *data;	/* its contents (size bytes), NULL when they
				 * could not be read: not scanned */
	int tag;		/* the caller's (e.g. which loss record) */
	/* results of vg_leak_scan_finish */
	enum vg_leak_kind kind;
	uint64_t indirect;	/* a definitely lost block: the bytes of the
				 * blocks indirectly lost through it */
};

struct vg_leak_scan;

/* blocks: n of them, in any order; they are sorted by address here (the
 * array is the caller's, and stays valid until vg_leak_scan_free).
 * Overlapping blocks keep the first of each overlap only. NULL: out of
 * memory. */
struct vg_leak_scan *vg_leak_scan_new(struct vg_leak_block *blocks, size_t n);
void vg_leak_scan_free(struct vg_leak_scan *s);
/* How many blocks it kept: the first ones of the caller's array, once
 * sorted (an overlap drops the later block) */
size_t vg_leak_scan_count(const struct vg_leak_scan *s);

/* One root region: every aligned word of [addr, addr+len) (data at
 * `data`). Regions may come in any number of pieces. */
void vg_leak_scan_root(struct vg_leak_scan *s, uint64_t addr,
		       const void *data, size_t len);
/* glibc's malloc: a pointer to the chunk after a block (its header
 * overlaps the block's last bytes when the size is 9 to 16 past a
 * multiple of 16) is the allocator's own (its top chunk, its bins), not
 * an interior pointer of the program's: ignore it. The session sets it;
 * memcheck, which replaces the allocator, never sees such pointers. */
void vg_leak_scan_glibc_chunks(struct vg_leak_scan *s, int on);
/* Say on f where each root that reaches a block is (address, or 0 for a
 * register), why a block is kept: VIGIL_LEAK_TRACE=1 in the session */
void vg_leak_scan_trace(struct vg_leak_scan *s, FILE *f);
/* One root word that has no address (a register's value). */
void vg_leak_scan_root_word(struct vg_leak_scan *s, uint64_t value);

/* The block holding value, or -1 (after sorting: index into blocks). */
long vg_leak_scan_find(const struct vg_leak_scan *s, uint64_t value);

/* After every root: class the unreached blocks (cliques) and set each
 * block's kind and indirect bytes. */
void vg_leak_scan_finish(struct vg_leak_scan *s);

#endif

/* Unit tests of the in-process tier's relocator on libc (user/reloc/
 * reloc.h): its hot functions moved next to libc, decoded again
 * (reloc_check.h), and called through their trampolines.
 *
 * VG_RELOC_LIST=1 build/tests/test_reloc_libc prints which of libc's
 * functions the relocator accepts on this machine, and why it refuses
 * the others. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reloc_check.h"
#include "sym/dwarf_internal.h"
#include "sym/sym_internal.h"

/* The size of libc's function at addr: its dynamic symbol's, or for an
 * IFUNC's implementation (__memmove_avx_unaligned_erms) its symbol's in
 * libc's separate debug file. 0 when unknown. */
static uint32_t libc_size(void *addr, char *name, size_t namelen)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	struct vg_elf_file f, d;
	struct vg_err e = { 0 };
	uint64_t vaddr;
	uint32_t size = 0;
	char *dbg;

	snprintf(name, namelen, "?");
	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT))
		return 0;
	if (info.dli_saddr == addr && sym && sym->st_size) {
		snprintf(name, namelen, "%s", info.dli_sname);
		return (uint32_t)sym->st_size;
	}
	vaddr = (uintptr_t)addr - (uintptr_t)info.dli_fbase;
	if (vg_elf_file_open(info.dli_fname, &f, &e))
		return 0;
	dbg = dw_find_debug_file(f.elf, info.dli_fname);
	vg_elf_file_close(&f);
	if (!dbg || vg_elf_file_open(dbg, &d, &e)) {
		free(dbg);
		return 0;
	}
	free(dbg);
	for (Elf_Scn *s = NULL; !size && (s = elf_nextscn(d.elf, s));) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(s, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym gs;

			if (gelf_getsym(data, k, &gs) && gs.st_value == vaddr &&
			    GELF_ST_TYPE(gs.st_info) == STT_FUNC && gs.st_size) {
				size = (uint32_t)gs.st_size;
				snprintf(name, namelen, "%s",
					 elf_strptr(d.elf, sh.sh_link, gs.st_name));
				break;
			}
		}
	}
	vg_elf_file_close(&d);
	return size;
}

/* the executable segment of the object holding addr */
struct seg { uintptr_t addr, base; size_t len; };

static int seg_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seg *s = arg;

	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    s->addr >= lo && s->addr < lo + ph->p_memsz) {
			s->base = lo;
			s->len = ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static void *at_fn;	/* the trampoline being called */

/* libc's own allocator: under ASan malloc and free here are ASan's, and
 * a block of one must not go to the other */
static void *(*lc_malloc)(size_t);
static void (*lc_free)(void *);
static size_t (*lc_usable)(void *);

static bool ex_malloc(void)
{
	void *p = ((void *(*)(size_t))at_fn)(100);
	bool ok = p && lc_usable(p) >= 100;

	lc_free(p);
	return ok;
}
static bool ex_free(void)
{
	((void (*)(void *))at_fn)(lc_malloc(100));
	((void (*)(void *))at_fn)(NULL);
	return true;
}
static bool ex_calloc(void)
{
	int *p = ((void *(*)(size_t, size_t))at_fn)(16, sizeof(int));
	bool ok = p && p[0] == 0 && p[15] == 0;

	lc_free(p);
	return ok;
}
static bool ex_realloc(void)
{
	char *p = lc_malloc(4);

	memcpy(p, "abc", 4);
	p = ((void *(*)(void *, size_t))at_fn)(p, 4000);
	bool ok = p && !strcmp(p, "abc");

	lc_free(p);
	return ok;
}
static bool ex_memalign(void)
{
	void *p = ((void *(*)(size_t, size_t))at_fn)(256, 100);
	bool ok = p && !((uintptr_t)p & 255);

	lc_free(p);
	return ok;
}
static bool ex_posix_memalign(void)
{
	void *p = NULL;
	bool ok = ((int (*)(void **, size_t, size_t))at_fn)(&p, 256, 100) == 0 &&
		  !((uintptr_t)p & 255);

	lc_free(p);
	return ok;
}
static bool ex_strdup(void)
{
	char *p = ((char *(*)(const char *))at_fn)("hello");
	bool ok = p && !strcmp(p, "hello");

	free(p);	/* libc's strdup calls the malloc that won */
	return ok;
}
static bool ex_memcpy(void)
{
	char src[300], dst[300];

	for (int k = 0; k < 300; k++)
		src[k] = (char)k;
	((void *(*)(void *, const void *, size_t))at_fn)(dst, src, 300);
	return !memcmp(src, dst, 300);
}
static bool ex_memset(void)
{
	char b[300];

	((void *(*)(void *, int, size_t))at_fn)(b, 7, 300);
	return b[0] == 7 && b[299] == 7;
}
static bool ex_strlen(void)
{
	static const char s[] = "more than sixteen chars";

	return ((size_t (*)(const char *))at_fn)(s) == sizeof(s) - 1;
}
static bool ex_strcpy(void)
{
	char b[32];

	((char *(*)(char *, const char *))at_fn)(b, "copied");
	return !strcmp(b, "copied");
}
static pthread_mutex_t ex_mu = PTHREAD_MUTEX_INITIALIZER;
static bool ex_lock(void)
{
	bool ok = ((int (*)(pthread_mutex_t *))at_fn)(&ex_mu) == 0 &&
		  pthread_mutex_trylock(&ex_mu) != 0;

	pthread_mutex_unlock(&ex_mu);
	return ok;
}
static bool ex_unlock(void)
{
	pthread_mutex_lock(&ex_mu);
	return ((int (*)(pthread_mutex_t *))at_fn)(&ex_mu) == 0 &&
	       pthread_mutex_trylock(&ex_mu) == 0 &&
	       pthread_mutex_unlock(&ex_mu) == 0;
}
/* read or write 3 bytes through a pipe with the trampoline */
static bool ex_rw(bool rd)
{
	int p[2];
	char b[4] = { 0 };
	bool ok;

	if (pipe(p) || (rd && write(p[1], "abc", 3) != 3))
		return false;
	if (rd)
		ok = ((ssize_t (*)(int, void *, size_t))at_fn)(p[0], b, 3) == 3;
	else
		ok = ((ssize_t (*)(int, const void *, size_t))at_fn)(p[1], "abc", 3) == 3 &&
		     read(p[0], b, 3) == 3;
	close(p[0]);
	close(p[1]);
	return ok && !strcmp(b, "abc");
}
static bool ex_read(void) { return ex_rw(true); }
static bool ex_write(void) { return ex_rw(false); }
static bool ex_open(void)
{
	int fd = ((int (*)(const char *, int, ...))at_fn)("/dev/null", O_RDONLY);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static const struct { const char *name; bool (*ex)(void); } libc_fns[] = {
	{ "malloc", ex_malloc }, { "free", ex_free }, { "calloc", ex_calloc },
	{ "realloc", ex_realloc }, { "memalign", ex_memalign },
	{ "posix_memalign", ex_posix_memalign },
	{ "aligned_alloc", ex_memalign }, { "strdup", ex_strdup },
	{ "memcpy", ex_memcpy }, { "memmove", ex_memcpy },
	{ "memset", ex_memset }, { "strlen", ex_strlen },
	{ "strcpy", ex_strcpy }, { "pthread_mutex_lock", ex_lock },
	{ "pthread_mutex_unlock", ex_unlock }, { "read", ex_read },
	{ "write", ex_write }, { "open", ex_open },
};

static const char *hex(const uint8_t *b, uint32_t n)
{
	static char buf[64];

	for (uint32_t k = 0; k < n && k < 16; k++)
		snprintf(buf + 3 * k, 4, " %02x", b[k]);
	return buf;
}

/* Each accepted function is decoded again against its original, then
 * called through its trampoline (which jumps back into libc's own,
 * unpatched code). At least malloc, free and strlen must be accepted. */
static void test_libc(void **state)
{
	bool list = getenv("VG_RELOC_LIST") != NULL;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	int accepted = 0;

	assert_non_null(libc);
	assert_non_null(lc_malloc = dlsym(libc, "malloc"));
	assert_non_null(lc_free = dlsym(libc, "free"));
	assert_non_null(lc_usable = dlsym(libc, "malloc_usable_size"));
	for (size_t k = 0; k < sizeof(libc_fns) / sizeof(libc_fns[0]); k++) {
		const char *name = libc_fns[k].name;
		void *fn = dlsym(libc, name);
		char impl[128], why[200];
		uint32_t size;
		uint8_t *page;
		struct vg_reloc r;
		uint64_t f = (uintptr_t)fn;

		assert_non_null(fn);
		size = libc_size(fn, impl, sizeof(impl));
		page = near_page(f, 4096);
		assert_non_null(page);
		struct seg sg = { .addr = f };
		int rc;

		assert_int_not_equal(dl_iterate_phdr(seg_cb, &sg), 0);
		rc = vg_reloc_build(fn, size, f, (uintptr_t)page + 64,
				    (uintptr_t)page, &r, why, sizeof(why));
		if (!rc) {
			rc = vg_reloc_check_text((void *)sg.base, sg.base, sg.len,
						 f, r.patch_len, why, sizeof(why));
			/* glibc's memmove-vec-unaligned-erms.S: mempcpy
			 * jumps past memmove's first mov %rdi, %rax */
			if (!strcmp(name, "memmove") &&
			    !memcmp(fn, "\x48\x89\xf8", 3) &&
			    (rc == 0 || !strstr(why, "before the function, lands inside the patch (+0x3)")))
				fail_msg("memmove: mempcpy's jump to +0x3 not seen (%s)", why);
		}
		if (rc) {
			if (list)
				printf("refused  %-22s %-36s size %-5u %s\n",
				       name, impl, size, why);
			munmap(page, 4096);
			continue;
		}
		compare(fn, f, (uintptr_t)page + 64, (uintptr_t)page, &r);
		memcpy(page + 64, r.code, r.len);
		at_fn = page + 64;
		if (!libc_fns[k].ex())
			fail_msg("%s through its trampoline gave a wrong result", name);
		accepted++;
		if (list)
			printf("accepted %-22s %-36s size %-5u patch %2u bytes:%s%s\n",
			       name, impl, size, r.patch_len, hex(r.orig, r.patch_len),
			       r.indirect ? " (has indirect jumps)" : "");
		munmap(page, 4096);
	}
	dlclose(libc);
	if (list)
		printf("%d of %zu accepted\n", accepted,
		       sizeof(libc_fns) / sizeof(libc_fns[0]));
	assert_true(accepted >= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc),
	};

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The on-disk cache of a file's direct branches (user/plan/jump_cache.h):
 * libc's executable segment's branches from the cache equal a fresh
 * sweep's (vg_reloc_jumps), and are read from the file the first call
 * wrote; a cache file for other bytes under the same path (the library
 * replaced), a corrupt or a truncated one is ignored and rewritten, and
 * the answer is the sweep of the bytes given; VIGIL_CACHE_DIR=off
 * writes nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/jump_cache.h"

static const char libc_path[] = "/lib/x86_64-linux-gnu/libc.so.6";
static char dir[PATH_MAX], cache_dir[PATH_MAX], jumps_dir[PATH_MAX + 8];
static uint8_t *text;
static uint64_t text_off, text_len;

/* libc's executable segment, as plan_fast.c reads it */
static int read_segment(void)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(libc_path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (int i = 0; i < eh.e_phnum && rc; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			  (uint64_t)i * eh.e_phentsize)) != sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		text_off = ph.p_offset;
		text_len = ph.p_filesz;
		if ((text = malloc(text_len)) &&
		    pread(fd, text, text_len, (off_t)text_off) ==
		    (ssize_t)text_len)
			rc = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* the one cache file there is (its path in path), or 0 when none */
static int cache_files(char *path, size_t len)
{
	DIR *d = opendir(jumps_dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".jumps")) {
			snprintf(path, len, "%s/%s", jumps_dir, de->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static void clear_cache(void)
{
	char path[PATH_MAX * 2];

	while (cache_files(path, sizeof(path)))
		unlink(path);
}

/* the cache's answer for buf equals a fresh sweep of buf */
static void assert_answer(const uint8_t *buf)
{
	struct vg_reloc_jump *a, *b;
	size_t na, nb;

	assert_int_equal(vg_jump_cache_get(libc_path, buf, text_off, text_len,
					   &a, &na), 0);
	assert_int_equal(vg_reloc_jumps(buf, text_off, text_len, &b, &nb), 0);
	assert_true(na > 1000);		/* libc has tens of thousands */
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof(*a));
	free(a);
	free(b);
}

static void test_written_then_read(void **state)
{
	char path[PATH_MAX * 2];
	struct stat st1, st2;

	(void)state;
	clear_cache();
	assert_answer(text);
	assert_int_equal(cache_files(path, sizeof(path)), 1);
	assert_int_equal(stat(path, &st1), 0);
	assert_true(st1.st_size > 1000 * 16);
	/* the second answer comes from that file, which stays as it is */
	assert_answer(text);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
}

/* other bytes at the same path: the old file's jumps are not theirs */
static void test_other_bytes(void **state)
{
	uint8_t *other = malloc(text_len);
	char path[PATH_MAX * 2];
	struct stat st1, st2;
	uint64_t at;

	(void)state;
	assert_non_null(other);
	clear_cache();
	assert_answer(text);
	assert_int_equal(cache_files(path, sizeof(path)), 1);
	assert_int_equal(stat(path, &st1), 0);
	/* a jmp rel32 to 0x1000 bytes in, as the segment's first
	 * instruction (the sweep decodes from there) */
	memcpy(other, text, text_len);
	at = 0;
	other[at] = 0xe9;
	{
		int32_t rel = 0x1000 - 5;

		memcpy(other + at + 1, &rel, 4);
	}
	{	/* (the two sweeps differ: a stale answer would show) */
		struct vg_reloc_jump *j;
		size_t n;
		int found = 0;

		assert_int_equal(vg_reloc_jumps(other, text_off, text_len,
						&j, &n), 0);
		for (size_t i = 0; i < n; i++)
			found |= j[i].from == text_off + at &&
				 j[i].target == text_off + 0x1000;
		assert_true(found);
		free(j);
	}
	assert_answer(other);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st1.st_ino != st2.st_ino);	/* written again */
	assert_answer(text);
	free(other);
}

static void damage(const char *path, off_t at, int truncate_it)
{
	int fd = open(path, O_RDWR);
	uint8_t c;

	assert_true(fd >= 0);
	if (truncate_it) {
		assert_int_equal(ftruncate(fd, at), 0);
	} else {
		assert_int_equal(pread(fd, &c, 1, at), 1);
		c ^= 0x40;
		assert_int_equal(pwrite(fd, &c, 1, at), 1);
	}
	close(fd);
}

static void test_bad_files(void **state)
{
	char path[PATH_MAX * 2];
	struct stat st;

	(void)state;
	for (int k = 0; k < 3; k++) {
		clear_cache();
		assert_answer(text);
		assert_int_equal(cache_files(path, sizeof(path)), 1);
		assert_int_equal(stat(path, &st), 0);
		if (k == 0)		/* a jump's target */
			damage(path, st.st_size / 2, 0);
		else if (k == 1)	/* the header: this vigil's id */
			damage(path, 8 + 4 + 4, 0);
		else
			damage(path, st.st_size - 100, 1);
		assert_answer(text);
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_size > 1000 * 16);	/* rewritten whole */
		assert_answer(text);
	}
}

static void test_cache_off(void **state)
{
	char path[PATH_MAX * 2];

	(void)state;
	clear_cache();
	setenv("VIGIL_CACHE_DIR", "off", 1);
	assert_answer(text);
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	assert_int_equal(cache_files(path, sizeof(path)), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/vigil-jc-XXXXXX");
	if (!mkdtemp(dir) || read_segment())
		return -1;
	snprintf(cache_dir, sizeof(cache_dir), "%.*s/cache",
		 (int)sizeof(dir) - 16, dir);
	snprintf(jumps_dir, sizeof(jumps_dir), "%s/jumps", cache_dir);
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written_then_read),
		cmocka_unit_test(test_other_bytes),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_cache_off),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/* The on-disk cache of plan/jump_cache.h. A file:
 *   "VIGILJC" NUL, u32 version, this vigil (u32 length, bytes), the
 *   library's path (likewise), u64 segment offset, segment length,
 *   CRC-32 and Adler-32 of the segment's bytes, u64 count, count pairs
 *   of u64 (target, from), u32 CRC-32 of everything before it.
 * Little-endian, this machine's own. The segment's own checksums (64
 * bits), not the file's inode and mtime, say it is the same code: a
 * library replaced between the read and a stat could not file its old
 * code's jumps under its new name, and a wrong answer would let a patch
 * go where some code jumps into it. */
#include "plan/jump_cache.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sym/proto_cache.h"
#include "util/bytebuf.h"
#include "util/rundir.h"

#define JC_MAGIC "VIGILJC"	/* 8 bytes with its NUL */
#define JC_VERSION 1u
#define JC_MAX_FILE (256u << 20)	/* larger is not ours */
#define JC_NID 4

/* what the cached sweep was of */
struct ident {
	const char *vigil, *path;
	uint64_t v[JC_NID];	/* segment offset, length, CRC, Adler */
};

static void ident_of(const char *path, const uint8_t *text, uint64_t off,
		     uint64_t len, struct ident *id)
{
	uLong crc = crc32(0, NULL, 0), adler = adler32(0, NULL, 0);

	id->vigil = vg_proto_cache_vigil();
	id->path = path;
	id->v[0] = off;
	id->v[1] = len;
	for (uint64_t at = 0; at < len; at += 1u << 30) {
		uInt n = (uInt)(len - at < (1u << 30) ? len - at : 1u << 30);

		crc = crc32(crc, text + at, n);
		adler = adler32(adler, text + at, n);
	}
	id->v[2] = crc;
	id->v[3] = adler;
}

/* DIR/jumps/HASH.jumps: HASH of the path and segment (FNV-1a), so that
 * a library updated in place replaces its own file */
static bool cache_file(const struct ident *id, char *buf, size_t len,
		       char *dir, size_t dlen)
{
	char top[PATH_MAX];
	uint64_t h = 0xcbf29ce484222325ull;
	int n;

	if (!vg_proto_cache_dir(top, sizeof(top)))
		return false;
	for (const char *c = id->path; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	h = (h ^ id->v[0]) * 0x100000001b3ull;
	n = snprintf(dir, dlen, "%s/jumps", top);
	if (n <= 0 || (size_t)n >= dlen)
		return false;
	n = snprintf(buf, len, "%s/%016llx.jumps", dir, (unsigned long long)h);
	return n > 0 && (size_t)n < len;
}

/* --- the bytes -------------------------------------------------------- */

static void put_u64(struct vg_bytebuf *b, uint64_t v)
{
	vg_bytebuf_put(b, &v, sizeof(v));
}

static void put_str(struct vg_bytebuf *b, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	vg_bytebuf_put(b, &n, sizeof(n));
	vg_bytebuf_put(b, s, n);
}

static void put_head(struct vg_bytebuf *b, const struct ident *id, uint64_t count)
{
	uint32_t version = JC_VERSION;

	vg_bytebuf_put(b, JC_MAGIC, 8);
	vg_bytebuf_put(b, &version, sizeof(version));
	put_str(b, id->vigil);
	put_str(b, id->path);
	for (int i = 0; i < JC_NID; i++)
		put_u64(b, id->v[i]);
	put_u64(b, count);
}

/* --- reading and writing --------------------------------------------- */

static int load(const char *file, const struct ident *id,
		struct vg_reloc_jump **out, size_t *n)
{
	struct vg_bytebuf want = { 0 };
	uint8_t *p = NULL;
	struct stat st;
	uint64_t count;
	uint32_t crc;
	size_t head, body;
	FILE *f = fopen(file, "rb");
	int rc = -1;

	if (!f)
		return -1;
	if (fstat(fileno(f), &st) || st.st_size < 12 ||
	    (uint64_t)st.st_size > JC_MAX_FILE ||
	    !(p = malloc((size_t)st.st_size)) ||
	    fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		goto out;
	/* the header this sweep would have: the file must start with it,
	 * bar the count, which it then gives */
	put_head(&want, id, 0);
	head = want.n;
	if (want.oom || (size_t)st.st_size < head + 4 ||
	    memcmp(p, want.p, head - 8))
		goto out;
	memcpy(&count, p + head - 8, 8);
	body = (size_t)st.st_size - head - 4;
	if (count > body / sizeof(**out) || body != count * sizeof(**out))
		goto out;
	memcpy(&crc, p + (size_t)st.st_size - 4, 4);
	if (crc != (uint32_t)crc32(0, p, (uInt)(st.st_size - 4)))
		goto out;
	if (!(*out = malloc(count ? body : 1)))
		goto out;
	memcpy(*out, p + head, body);
	*n = (size_t)count;
	rc = 0;
out:
	free(want.p);
	free(p);
	fclose(f);
	return rc;
}

static void save(const char *file, const char *dir, const struct ident *id,
		 const struct vg_reloc_jump *j, size_t n)
{
	struct vg_bytebuf b = { 0 };
	char tmp[PATH_MAX + 8];
	struct vg_err e;	/* a cache that cannot be written is silent */
	uint32_t crc;
	bool ok;
	int fd;

	put_head(&b, id, n);
	vg_bytebuf_put(&b, j, n * sizeof(*j));
	crc = b.oom ? 0 : (uint32_t)crc32(0, b.p, (uInt)b.n);
	vg_bytebuf_put(&b, &crc, sizeof(crc));
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file);
	if (b.oom || vg_mkdir_p(dir, &e) || (fd = mkstemp(tmp)) < 0) {
		free(b.p);
		return;
	}
	ok = write(fd, b.p, b.n) == (ssize_t)b.n;
	ok = !fchmod(fd, 0644) && ok;
	if (close(fd) || !ok || rename(tmp, file))
		unlink(tmp);
	free(b.p);
}

int vg_jump_cache_get(const char *path, const uint8_t *text,
		      uint64_t text_off, uint64_t text_len,
		      struct vg_reloc_jump **out, size_t *n)
{
	char file[PATH_MAX], dir[PATH_MAX];
	struct ident id = { .path = path, .v = { text_off, text_len } };
	bool cached = cache_file(&id, file, sizeof(file), dir, sizeof(dir));

	if (cached)	/* (the checksums only when there is a cache) */
		ident_of(path, text, text_off, text_len, &id);
	*out = NULL;
	*n = 0;
	if (cached && !load(file, &id, out, n))
		return 0;
	if (vg_reloc_jumps(text, text_off, text_len, out, n))
		return -1;
	if (cached)
		save(file, dir, &id, *out, *n);
	return 0;
}

/* The on-disk cache of user/sym/proto_cache.h.
 *
 * One file per build id, DIR/dwarf/BUILDID.protos:
 *   "VIGILPC" NUL, u32 version, this vigil, the build id, the debug file (path, size, mtime, inode),
 *   u32 count, the entries (name, then a prototype, "absent", "unusable"
 *   and why, or for a type's entry, named TYPE_NAME and its id, the
 *   type),
 *   u32 CRC-32 of everything before it.
 * "this vigil" is the build id of the running executable: answers from
 * another build of vigil (whose DWARF reading may differ) are not used.
 * Integers are little-endian (the cache is this machine's own), strings a
 * u32 length and the bytes. A file that does not parse to its last byte
 * with the right CRC, version and build id is ignored. */
#include "proto_cache.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/bytebuf.h"
#include "util/rundir.h"

#define PC_MAGIC "VIGILPC"	/* 8 bytes with its NUL */
#define PC_VERSION 3u
#define PC_NULL 0xffffffffu	/* the length of a NULL string */
#define PC_MAX_FILE (64u << 20)	/* larger is not ours */

struct pc_ent {
	char *name;
	bool absent;		/* not in this DWARF; else p */
	bool is_type;		/* a type's entry: t, not p */
	char *why;		/* unusable: in this DWARF, but no prototype
				 * vigil can use, and why (vg_proto_cache_put_
				 * unusable); else p */
	struct vg_proto p;
	struct vg_type t;
};

/* a type's entry: a name no function has */
#define TYPE_NAME "\ttype %llx"

struct file_id {
	uint64_t size, mtime_s, mtime_ns, ino;
};

struct vg_proto_cache {
	char *build_id;
	char *debug_path;	/* what the entries were read from */
	struct file_id id;
	struct pc_ent *v;
	size_t n, cap;
	bool dirty;
};

/* --- which vigil ----------------------------------------------------- */

/* The GNU build id of the running executable, from its PT_NOTE segment
 * in memory (no file is read); the time this file was compiled when it
 * has none. */
static int main_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *hex = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr +
						     ph->p_vaddr);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + sizeof(ElfW(Nhdr)) <= ph->p_memsz) {
			const ElfW(Nhdr) *nh = (const void *)(p + off);
			size_t name = (nh->n_namesz + 3) & ~(size_t)3,
			       desc = (nh->n_descsz + 3) & ~(size_t)3;
			const uint8_t *d = p + off + sizeof(*nh) + name;

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + off + sizeof(*nh), "GNU", 4) &&
			    nh->n_descsz && nh->n_descsz <= 64) {
				for (size_t j = 0; j < nh->n_descsz; j++)
					snprintf(hex + 2 * j, 3, "%02x", d[j]);
				return 1;
			}
			off += sizeof(*nh) + name + desc;
		}
	}
	return 1;	/* the first object is the executable: stop */
}

static char vigil_id[160];

static void find_vigil_id(void)
{
	dl_iterate_phdr(main_build_id, vigil_id);
	if (!vigil_id[0])
		snprintf(vigil_id, sizeof(vigil_id), "built %s %s", __DATE__,
			 __TIME__);
}

static const char *this_vigil(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_vigil_id);
	return vigil_id;
}

const char *vg_proto_cache_vigil(void)
{
	return this_vigil();
}

/* --- where ---------------------------------------------------------- */

bool vg_proto_cache_dir(char *buf, size_t len)
{
	const char *d = getenv("VIGIL_CACHE_DIR"), *x, *h;
	int n;

	if (d)
		n = *d && strcmp(d, "off") ? snprintf(buf, len, "%s", d) : -1;
	else if ((x = getenv("XDG_CACHE_HOME")) && *x == '/')
		n = snprintf(buf, len, "%s/vigil", x);
	else if ((h = getenv("HOME")) && *h == '/')
		n = snprintf(buf, len, "%s/.cache/vigil", h);
	else
		n = -1;
	return n > 0 && (size_t)n < len;
}

static bool cache_file(const char *build_id, char *buf, size_t len)
{
	char dir[PATH_MAX];
	int n;

	if (!vg_proto_cache_dir(dir, sizeof(dir)))
		return false;
	n = snprintf(buf, len, "%s/dwarf/%s.protos", dir, build_id);
	return n > 0 && (size_t)n < len;
}

static bool file_id_of(const char *path, struct file_id *id)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	*id = (struct file_id){ (uint64_t)st.st_size,
				(uint64_t)st.st_mtim.tv_sec,
				(uint64_t)st.st_mtim.tv_nsec,
				(uint64_t)st.st_ino };
	return true;
}

/* --- entries -------------------------------------------------------- */

static void ent_free(struct pc_ent *en)
{
	free(en->name);
	free(en->why);
	vg_proto_free(&en->p);
}

static void ents_clear(struct vg_proto_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		ent_free(&c->v[i]);
	c->n = 0;
}

static struct pc_ent *find(struct vg_proto_cache *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

static struct pc_ent *add(struct vg_proto_cache *c)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct pc_ent *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	memset(&c->v[c->n], 0, sizeof(c->v[0]));
	return &c->v[c->n++];
}

static int proto_copy(struct vg_proto *to, const struct vg_proto *from)
{
	*to = *from;
	to->func = NULL;
	to->params = NULL;
	to->nparams = 0;
	if (from->func && !(to->func = strdup(from->func)))
		goto oom;
	if (from->nparams &&
	    !(to->params = calloc(from->nparams, sizeof(*to->params))))
		goto oom;
	for (; to->nparams < from->nparams; to->nparams++) {
		const struct vg_param *s = &from->params[to->nparams];
		struct vg_param *d = &to->params[to->nparams];

		*d = *s;
		if (s->name && !(d->name = strdup(s->name)))
			goto oom;
	}
	return 0;
oom:
	vg_proto_free(to);
	return -1;
}

/* --- encoding ------------------------------------------------------- */

static void w_bytes(struct vg_bytebuf *b, const void *p, size_t n)
{
	vg_bytebuf_put(b, p, n);
}

static void w_u32(struct vg_bytebuf *b, uint32_t v)
{
	w_bytes(b, &v, 4);
}

static void w_u64(struct vg_bytebuf *b, uint64_t v)
{
	w_bytes(b, &v, 8);
}

static void w_str(struct vg_bytebuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	w_u32(b, s ? (uint32_t)n : PC_NULL);
	w_bytes(b, s, n);
}

static void w_type(struct vg_bytebuf *b, const struct vg_type *t)
{
	w_u64(b, t->id);
	w_u32(b, (uint32_t)t->kind);
	w_u64(b, t->size);
	w_u32(b, t->align);
	w_u64(b, t->target);
	w_u64(b, t->count);
	w_u32(b, t->enum_signed);
	w_str(b, t->name);
}

static void w_loc(struct vg_bytebuf *b, const struct vg_loc *l)
{
	w_u32(b, (uint32_t)l->kind);
	w_u32(b, (uint32_t)l->nregs);
	w_u32(b, (uint32_t)l->reg[0]);
	w_u32(b, (uint32_t)l->reg[1]);
	w_u32(b, (uint32_t)l->stack_off);
}

static void w_ent(struct vg_bytebuf *b, const struct pc_ent *en)
{
	const struct vg_proto *p = &en->p;

	w_str(b, en->name);
	w_u32(b, en->is_type ? 2 : en->why ? 3 : en->absent);
	if (en->is_type)
		w_type(b, &en->t);
	if (en->why)
		w_str(b, en->why);
	if (en->absent || en->is_type || en->why)
		return;
	w_str(b, p->func);
	w_u32(b, (uint32_t)p->nparams);
	for (size_t i = 0; i < p->nparams; i++) {
		w_str(b, p->params[i].name);
		w_type(b, &p->params[i].type);
		w_loc(b, &p->params[i].loc);
	}
	w_u32(b, p->variadic | p->has_ret << 1 | p->sret << 2 |
		 p->nocall << 3 | p->from_decl << 4);
	w_type(b, &p->ret);
	w_loc(b, &p->ret_loc);
}

/* --- decoding: every read is bounded; a short or odd file sets bad ---- */

struct rbuf {
	const uint8_t *p;
	size_t n, off;
	bool bad;
};

static const void *r_bytes(struct rbuf *b, size_t n)
{
	const void *p;

	if (b->bad || n > b->n - b->off) {
		b->bad = true;
		return NULL;
	}
	p = b->p + b->off;
	b->off += n;
	return p;
}

static uint32_t r_u32(struct rbuf *b)
{
	const void *p = r_bytes(b, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static uint64_t r_u64(struct rbuf *b)
{
	const void *p = r_bytes(b, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

/* a string into buf (len bytes with the NUL); false for NULL */
static bool r_str_in(struct rbuf *b, char *buf, size_t len)
{
	uint32_t n = r_u32(b);
	const char *s;

	buf[0] = 0;
	if (n == PC_NULL)
		return false;
	if (n >= len || !(s = r_bytes(b, n)) || memchr(s, 0, n)) {
		b->bad = true;
		return false;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	return true;
}

static char *r_str(struct rbuf *b)
{
	char buf[4096];
	char *s;

	if (!r_str_in(b, buf, sizeof(buf)))
		return NULL;
	if (!(s = strdup(buf)))
		b->bad = true;
	return s;
}

static void r_type(struct rbuf *b, struct vg_type *t)
{
	uint32_t kind;

	t->id = r_u64(b);
	kind = r_u32(b);
	if (kind > VG_TK_OTHER)
		b->bad = true;
	t->kind = (enum vg_tkind)kind;
	t->size = r_u64(b);
	t->align = r_u32(b);
	t->target = r_u64(b);
	t->count = r_u64(b);
	t->enum_signed = r_u32(b) != 0;
	if (!r_str_in(b, t->name, sizeof(t->name)))
		b->bad = true;
}

static void r_loc(struct rbuf *b, struct vg_loc *l)
{
	uint32_t kind = r_u32(b), nregs = r_u32(b);

	if (kind > VG_LOC_STACK || nregs > 2)
		b->bad = true;
	l->kind = (enum vg_loc_kind)kind;
	l->nregs = (int)nregs;
	for (int i = 0; i < 2; i++) {
		uint32_t r = r_u32(b);

		if (r > VG_REG_XMM7)
			b->bad = true;
		l->reg[i] = (enum vg_reg)r;
	}
	l->stack_off = (int32_t)r_u32(b);
}

static void r_ent(struct rbuf *b, struct pc_ent *en)
{
	struct vg_proto *p = &en->p;
	uint32_t n, flags;

	if (!(en->name = r_str(b)))
		b->bad = true;
	switch (r_u32(b)) {
	case 0:
		break;
	case 1:
		en->absent = true;
		return;
	case 2:
		en->is_type = true;
		r_type(b, &en->t);
		return;
	case 3:
		if (!(en->why = r_str(b)))
			b->bad = true;
		return;
	default:
		b->bad = true;
		return;
	}
	p->func = r_str(b);
	n = r_u32(b);
	/* each parameter takes more than 64 bytes: a count the rest of the
	 * file cannot hold is a corrupt one */
	if (b->bad || n > (b->n - b->off) / 64) {
		b->bad = true;
		return;
	}
	if (n && !(p->params = calloc(n, sizeof(*p->params)))) {
		b->bad = true;
		return;
	}
	for (; !b->bad && p->nparams < n; p->nparams++) {
		struct vg_param *pa = &p->params[p->nparams];

		pa->name = r_str(b);
		r_type(b, &pa->type);
		r_loc(b, &pa->loc);
	}
	flags = r_u32(b);
	if (flags >> 5)
		b->bad = true;
	p->variadic = flags & 1;
	p->has_ret = flags >> 1 & 1;
	p->sret = flags >> 2 & 1;
	p->nocall = flags >> 3 & 1;
	p->from_decl = flags >> 4 & 1;
	r_type(b, &p->ret);
	r_loc(b, &p->ret_loc);
}

/* The file's contents (malloc'd) or NULL */
static uint8_t *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *p = NULL;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < 16 || st.st_size > PC_MAX_FILE ||
	    !(p = malloc((size_t)st.st_size)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, p + got, (size_t)st.st_size - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got != (size_t)st.st_size) {
		free(p);
		p = NULL;
	}
	*len = got;
out:
	close(fd);
	return p;
}

/* Parse the file on disk into c (debug file and entries); false, with c
 * left without entries, when it is not a whole, valid file of this
 * build id. */
static bool load(struct vg_proto_cache *c, const char *path)
{
	size_t len = 0;
	uint8_t *data = slurp(path, &len);
	struct rbuf b = { data, len, 0, false };
	char bid[256];
	uint32_t crc, n;

	if (!data)
		return false;
	memcpy(&crc, data + len - 4, 4);
	b.n = len - 4;
	if (crc != (uint32_t)crc32(0, data, (uInt)(len - 4)) ||
	    memcmp(r_bytes(&b, 8), PC_MAGIC, 8) || r_u32(&b) != PC_VERSION ||
	    !r_str_in(&b, bid, sizeof(bid)) || strcmp(bid, this_vigil()) ||
	    !r_str_in(&b, bid, sizeof(bid)) || strcmp(bid, c->build_id))
		goto bad;
	free(c->debug_path);
	c->debug_path = r_str(&b);
	c->id.size = r_u64(&b);
	c->id.mtime_s = r_u64(&b);
	c->id.mtime_ns = r_u64(&b);
	c->id.ino = r_u64(&b);
	n = r_u32(&b);
	for (uint32_t i = 0; !b.bad && i < n; i++) {
		struct pc_ent *en = add(c);

		if (!en)
			goto bad;
		r_ent(&b, en);
	}
	if (b.bad || b.off != b.n || !c->debug_path)
		goto bad;
	free(data);
	return true;
bad:
	ents_clear(c);
	free(c->debug_path);
	c->debug_path = NULL;
	free(data);
	return false;
}

/* --- the interface -------------------------------------------------- */

struct vg_proto_cache *vg_proto_cache_open(const char *build_id)
{
	struct vg_proto_cache *c;
	char path[PATH_MAX];

	if (!build_id || !*build_id || strlen(build_id) > 128 ||
	    strspn(build_id, "0123456789abcdef") != strlen(build_id) ||
	    !cache_file(build_id, path, sizeof(path)))
		return NULL;
	if (!(c = calloc(1, sizeof(*c))) ||
	    !(c->build_id = strdup(build_id))) {
		free(c);
		return NULL;
	}
	load(c, path);
	return c;
}

const char *vg_proto_cache_path(const struct vg_proto_cache *c)
{
	return c ? c->debug_path : NULL;
}

bool vg_proto_cache_bind(struct vg_proto_cache *c, const char *debug_path)
{
	struct file_id id = { 0 };
	bool have = file_id_of(debug_path, &id);

	if (have && c->debug_path && !strcmp(c->debug_path, debug_path) &&
	    !memcmp(&id, &c->id, sizeof(id)))
		return true;
	ents_clear(c);
	free(c->debug_path);
	c->debug_path = strdup(debug_path);
	c->id = id;
	/* rewrite it, so that a stale or broken file does not stay */
	c->dirty = have && c->debug_path;
	return false;
}

bool vg_proto_cache_get_type(struct vg_proto_cache *c, vg_type_id id,
			     struct vg_type *out)
{
	char name[32];
	struct pc_ent *en;

	snprintf(name, sizeof(name), TYPE_NAME, (unsigned long long)id);
	if (!c || !(en = find(c, name)) || !en->is_type)
		return false;
	*out = en->t;
	return true;
}

/* A new entry named name, last in the table, for a put to fill; NULL
 * when the cache is off, unbound, has one, or memory is short */
static struct pc_ent *put_new(struct vg_proto_cache *c, const char *name)
{
	struct pc_ent *en;

	if (!c || !c->debug_path || find(c, name) || !(en = add(c)))
		return NULL;
	if (!(en->name = strdup(name))) {
		c->n--;
		return NULL;
	}
	return en;
}

/* put_new's entry taken back: its fill failed */
static void put_undo(struct vg_proto_cache *c, struct pc_ent *en)
{
	ent_free(en);
	c->n--;
}

void vg_proto_cache_put_type(struct vg_proto_cache *c, vg_type_id id,
			     const struct vg_type *t)
{
	char name[32];
	struct pc_ent *en;

	snprintf(name, sizeof(name), TYPE_NAME, (unsigned long long)id);
	if (!(en = put_new(c, name)))
		return;
	en->is_type = true;
	en->t = *t;
	c->dirty = true;
}

enum vg_pc_answer vg_proto_cache_get(struct vg_proto_cache *c,
				     const char *name, struct vg_proto *out,
				     const char **why)
{
	struct pc_ent *en = c ? find(c, name) : NULL;

	if (!en)
		return VG_PC_MISS;
	if (en->absent)
		return VG_PC_ABSENT;
	if (en->why) {
		*why = en->why;
		return VG_PC_UNUSABLE;
	}
	if (proto_copy(out, &en->p))
		return VG_PC_MISS;	/* out of memory: DWARF will say */
	return VG_PC_PROTO;
}

void vg_proto_cache_put(struct vg_proto_cache *c, const char *name,
			const struct vg_proto *p)
{
	struct pc_ent *en = put_new(c, name);

	if (!en)
		return;
	en->absent = !p;
	if (p && proto_copy(&en->p, p)) {
		put_undo(c, en);
		return;
	}
	c->dirty = true;
}

void vg_proto_cache_put_unusable(struct vg_proto_cache *c, const char *name,
				 const char *why)
{
	struct pc_ent *en = put_new(c, name);

	if (!en)
		return;
	if (!(en->why = strdup(why))) {
		put_undo(c, en);
		return;
	}
	c->dirty = true;
}

static void save(struct vg_proto_cache *c, const char *path)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16];
	struct vg_bytebuf b = { 0 };
	struct vg_err e;	/* a cache that cannot be written is silent */
	uint32_t crc;
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	if (!(slash = strrchr(dir, '/')))
		return;
	*slash = 0;
	w_bytes(&b, PC_MAGIC, 8);
	w_u32(&b, PC_VERSION);
	w_str(&b, this_vigil());
	w_str(&b, c->build_id);
	w_str(&b, c->debug_path);
	w_u64(&b, c->id.size);
	w_u64(&b, c->id.mtime_s);
	w_u64(&b, c->id.mtime_ns);
	w_u64(&b, c->id.ino);
	w_u32(&b, (uint32_t)c->n);
	for (size_t i = 0; i < c->n; i++)
		w_ent(&b, &c->v[i]);
	crc = b.oom ? 0 : (uint32_t)crc32(0, b.p, (uInt)b.n);
	w_u32(&b, crc);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (b.oom || vg_mkdir_p(dir, &e) || (fd = mkstemp(tmp)) < 0) {
		free(b.p);
		return;
	}
	bool ok = write(fd, b.p, b.n) == (ssize_t)b.n;

	ok = !fchmod(fd, 0644) && ok;
	if (close(fd) || !ok || rename(tmp, path))
		unlink(tmp);
	free(b.p);
}

void vg_proto_cache_close(struct vg_proto_cache *c)
{
	char path[PATH_MAX];

	if (!c)
		return;
	if (c->dirty && c->debug_path &&
	    cache_file(c->build_id, path, sizeof(path))) {
		/* what another vigil wrote since, for the same debug file,
		 * is kept beside what this one learnt */
		struct vg_proto_cache disk = { .build_id = c->build_id };

		if (load(&disk, path) && !strcmp(disk.debug_path, c->debug_path) &&
		    !memcmp(&disk.id, &c->id, sizeof(c->id)))
			for (size_t i = 0; i < disk.n; i++) {
				struct pc_ent *en;

				if (find(c, disk.v[i].name) || !(en = add(c)))
					continue;
				*en = disk.v[i];
				disk.v[i] = (struct pc_ent){ 0 };
			}
		ents_clear(&disk);
		free(disk.v);
		free(disk.debug_path);
		save(c, path);
	}
	ents_clear(c);
	free(c->v);
	free(c->debug_path);
	free(c->build_id);
	free(c);
}

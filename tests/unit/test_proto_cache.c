/* The prototype cache of separate debug files (user/sym/proto_cache.h):
 * a prototype answered from the cache equals, field by field, the one
 * read from DWARF, for the libc functions specs/lib/mutex.vigil probes
 * (libc6-dbg's debug file) and every function of the sym fixtures'
 * stripped targets (debug file by build id and by .gnu_debuglink); a warm
 * handle answers without opening the debug file, and its type ids still
 * work once it is opened; a truncated, corrupt, foreign-version or other
 * build id's file is ignored and rewritten; a changed debug file misses;
 * an unwritable directory changes nothing. */
#include "sym_fixture.h"

#include <zlib.h>

#include "sym/dwarf_internal.h"
#include "sym/proto_cache.h"

static const char libc_path[] = "/lib/x86_64-linux-gnu/libc.so.6";
static const char *const libc_funcs[] = {
	"pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_unlock",
	"pthread_cond_wait", "pthread_cond_timedwait",
	"pthread_cond_clockwait",
};

static char cache_dir[PATH_MAX];

/* --- comparing ------------------------------------------------------- */

static void assert_type_eq(const struct vg_type *a, const struct vg_type *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->align, b->align);
	assert_int_equal(a->target, b->target);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->enum_signed, b->enum_signed);
	assert_string_equal(a->name, b->name);
}

static void assert_loc_eq(const struct vg_loc *a, const struct vg_loc *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->nregs, b->nregs);
	assert_int_equal(a->reg[0], b->reg[0]);
	assert_int_equal(a->reg[1], b->reg[1]);
	assert_int_equal(a->stack_off, b->stack_off);
}

static void assert_proto_eq(const struct vg_proto *a, const struct vg_proto *b)
{
	assert_string_equal(a->func, b->func);
	assert_int_equal(a->nparams, b->nparams);
	for (size_t i = 0; i < a->nparams; i++) {
		const struct vg_param *x = &a->params[i], *y = &b->params[i];

		assert_int_equal(x->name == NULL, y->name == NULL);
		if (x->name)
			assert_string_equal(x->name, y->name);
		assert_type_eq(&x->type, &y->type);
		assert_loc_eq(&x->loc, &y->loc);
	}
	assert_int_equal(a->variadic, b->variadic);
	assert_int_equal(a->has_ret, b->has_ret);
	assert_type_eq(&a->ret, &b->ret);
	assert_loc_eq(&a->ret_loc, &b->ret_loc);
	assert_int_equal(a->sret, b->sret);
	assert_int_equal(a->nocall, b->nocall);
	assert_int_equal(a->from_decl, b->from_decl);
}

/* --- answers --------------------------------------------------------- */

struct answer {
	int rc, code;
	char msg[sizeof(((struct vg_err *)0)->msg)];
	struct vg_proto p;
};

static void ask(struct vg_dwarf *dw, const char *fn, struct answer *a)
{
	struct vg_err e = { 0 };

	memset(a, 0, sizeof(*a));
	a->rc = vg_dwarf_proto(dw, fn, &a->p, &e);
	if (a->rc) {
		a->code = e.exit_code;
		snprintf(a->msg, sizeof(a->msg), "%s", e.msg);
	}
}

static void assert_answer_eq(const char *fn, const struct answer *a,
			     const struct answer *b)
{
	if (a->rc != b->rc)
		fail_msg("%s: rc %d (%s) against %d (%s)", fn, a->rc, a->msg,
			 b->rc, b->msg);
	if (a->rc) {
		assert_int_equal(a->code, b->code);
		assert_string_equal(a->msg, b->msg);
	} else {
		assert_proto_eq(&a->p, &b->p);
	}
}

/* The answers for FUNCS from DWARF alone (no cache) */
static struct answer *reference(const char *bin, const char *const *funcs,
				size_t n)
{
	struct answer *ref = calloc(n, sizeof(*ref));
	struct vg_dwarf *dw;

	assert_non_null(ref);
	setenv("VIGIL_CACHE_DIR", "off", 1);
	dw = open_ok(bin);
	assert_null(dw->pcache);
	for (size_t i = 0; i < n; i++)
		ask(dw, funcs[i], &ref[i]);
	vg_dwarf_close(dw);
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	return ref;
}

static void free_answers(struct answer *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vg_proto_free(&a[i].p);
	free(a);
}

/* Cold (fills the cache), then warm: every answer equals the reference,
 * and the warm handle never opened the debug file. */
static void cold_then_warm(const char *bin, const char *const *funcs,
			   size_t n)
{
	struct answer *ref = reference(bin, funcs, n), got;
	struct vg_dwarf *dw = open_ok(bin);
	size_t typed = 0;

	assert_non_null(dw->pcache);
	for (size_t i = 0; i < n; i++) {
		ask(dw, funcs[i], &got);
		assert_answer_eq(funcs[i], &got, &ref[i]);
		vg_proto_free(&got.p);
	}
	assert_non_null(dw->dbg);	/* cold: DWARF was read */
	vg_dwarf_close(dw);

	dw = open_ok(bin);
	for (size_t i = 0; i < n; i++) {
		ask(dw, funcs[i], &got);
		assert_answer_eq(funcs[i], &got, &ref[i]);
		vg_proto_free(&got.p);
	}
	if (dw->dbg || !dw->deferred)
		fail_msg("%s: a warm run opened %s", bin, dw->debug_path);
	/* the type ids of a cached prototype are DIE offsets of the same
	 * debug file: a type query opens it and finds them */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; !ref[i].rc && j < ref[i].p.nparams; j++) {
			const struct vg_type *want = &ref[i].p.params[j].type;
			struct vg_type t;
			struct vg_err e = { 0 };

			if (!want->id)
				continue;
			/* (its name is the resolved type's, not the
			 * typedef the parameter is spelt with) */
			assert_int_equal(vg_dwarf_type(dw, want->id, &t, &e), 0);
			assert_int_equal(t.id, want->id);
			assert_int_equal(t.kind, want->kind);
			assert_int_equal(t.size, want->size);
			assert_int_equal(t.target, want->target);
			typed++;
		}
	assert_true(typed > 0);
	assert_non_null(dw->dbg);
	vg_dwarf_close(dw);
	free_answers(ref, n);
}

/* --- targets ------------------------------------------------------------ */

/* every function symbol of the unstripped build, and one that is nowhere */
static char **target_funcs(size_t *n)
{
	char cmd[PATH_MAX + 128], line[512];
	char **v = calloc(512, sizeof(*v));
	FILE *f;

	assert_non_null(v);
	FMT(cmd, "nm --defined-only %s | awk '$2 ~ /^[Tt]$/ { print $3 }'",
	    P("types"));
	assert_non_null(f = popen(cmd, "r"));
	*n = 0;
	while (*n < 511 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			assert_non_null(v[(*n)++] = strdup(line));
	}
	pclose(f);
	assert_true(*n > 10);
	assert_non_null(v[(*n)++] = strdup("vigil_no_such_function"));
	return v;
}

static void free_funcs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void test_libc_mutex_functions(void **state)
{
	struct vg_dwarf *dw;

	(void)state;
	setenv("VIGIL_CACHE_DIR", "off", 1);
	dw = open_ok(libc_path);
	if (!vg_dwarf_has_debug(dw))
		fail_msg("%s has no readable debug file: install libc6-dbg (scripts/setup.sh)",
			 libc_path);
	vg_dwarf_close(dw);
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	cold_then_warm(libc_path, libc_funcs,
		       sizeof(libc_funcs) / sizeof(libc_funcs[0]));
}

/* glibc's assembly string functions (every CPU's variant is in libc):
 * in its DWARF, with no type the ABI can place, an answer of the DWARF
 * alone, so cached as one. Each run of a spec on memcpy or strlen used to
 * open and index libc's debug file for them (0.42 s against 0.25 s to
 * start the six memory specs). */
static const char *const libc_asm_funcs[] = {
	"__strlen_sse2", "__memmove_sse2_unaligned_erms", "__strcmp_sse2",
	"pthread_cond_signal",	/* and a prototype, for its types */
};

static void test_libc_unusable_cached(void **state)
{
	size_t n = sizeof(libc_asm_funcs) / sizeof(libc_asm_funcs[0]);
	struct answer *ref;

	(void)state;
	ref = reference(libc_path, libc_asm_funcs, n);
	for (size_t i = 0; i + 1 < n; i++) {
		assert_int_equal(ref[i].rc, -1);
		if (!strstr(ref[i].msg, "cannot pass a value") ||
		    !strstr(ref[i].msg, libc_path))
			fail_msg("%s: %s", libc_asm_funcs[i], ref[i].msg);
	}
	free_answers(ref, n);
	cold_then_warm(libc_path, libc_asm_funcs, n);
}

/* A type a capture follows (posix_memalign's `void **memptr` to what it
 * points to) comes from the cache on a warm run: the debug file is not
 * opened, and the description is the one DWARF gave. */
static void test_types_cached(void **state)
{
	struct vg_proto pr;
	struct vg_type cold, warm;
	struct vg_err e = { 0 };
	struct vg_dwarf *dw;

	(void)state;
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	dw = open_ok(libc_path);
	assert_int_equal(vg_dwarf_proto(dw, "posix_memalign", &pr, &e), 0);
	assert_true(pr.nparams >= 1 && pr.params[0].type.target);
	assert_int_equal(vg_dwarf_type(dw, pr.params[0].type.target, &cold, &e), 0);
	assert_int_equal(cold.kind, VG_TK_PTR);		/* void * */
	vg_proto_free(&pr);
	vg_dwarf_close(dw);
	dw = open_ok(libc_path);
	assert_int_equal(vg_dwarf_proto(dw, "posix_memalign", &pr, &e), 0);
	assert_int_equal(vg_dwarf_type(dw, pr.params[0].type.target, &warm, &e), 0);
	assert_null(dw->dbg);
	assert_memory_equal(&cold, &warm, sizeof(cold));
	vg_proto_free(&pr);
	vg_dwarf_close(dw);
}

static void test_target_by_build_id(void **state)
{
	char root[PATH_MAX];
	size_t n;
	char **funcs = target_funcs(&n);

	(void)state;
	FMT(root, "%s/dbg", dir);
	setenv("VIGIL_DEBUG_DIR", root, 1);
	cold_then_warm(P("types_bid"), (const char *const *)funcs, n);
	/* a copy of the binary elsewhere (same build id, same debug file):
	 * the cache answers, and its messages name the copy */
	assert_int_equal(sh("cp %s %s", P("types_bid"), P("types_bid2")), 0);
	struct answer *ref = reference(P("types_bid2"),
				       (const char *const *)funcs, n), got;
	struct vg_dwarf *dw = open_ok(P("types_bid2"));

	for (size_t i = 0; i < n; i++) {
		ask(dw, funcs[i], &got);
		assert_answer_eq(funcs[i], &got, &ref[i]);
		vg_proto_free(&got.p);
	}
	assert_null(dw->dbg);
	vg_dwarf_close(dw);
	free_answers(ref, n);
	unsetenv("VIGIL_DEBUG_DIR");
	free_funcs(funcs, n);
}

static void test_target_by_debuglink(void **state)
{
	size_t n;
	char **funcs = target_funcs(&n);

	(void)state;
	cold_then_warm(P("types_strip"), (const char *const *)funcs, n);
	free_funcs(funcs, n);
}

/* --- bad files ---------------------------------------------------------- */

static void cache_file_of(const char *bin, char *path, size_t len)
{
	char bid[128];

	assert_int_equal(sh_line(bid, sizeof(bid),
				 "readelf -n %s | awk '/Build ID/ { print $3 }'",
				 bin), 0);
	assert_true(strlen(bid) > 4);
	assert_true(snprintf(path, len, "%s/dwarf/%s.protos", cache_dir, bid) <
		    (int)len);
}

/* One question about types_strip: true when the cache answered (the
 * debug file stayed closed); the answer must be the DWARF one anyway. */
static bool answered_from_cache(const struct answer *ref)
{
	struct vg_dwarf *dw = open_ok(P("types_strip"));
	struct answer got;
	bool hit;

	ask(dw, "queue_push", &got);
	assert_answer_eq("queue_push", &got, ref);
	vg_proto_free(&got.p);
	hit = dw->dbg == NULL;
	vg_dwarf_close(dw);
	return hit;
}

static void test_bad_cache_files(void **state)
{
	static const char *const fn[] = { "queue_push" };
	struct answer *ref = reference(P("types_strip"), fn, 1);
	char path[PATH_MAX], other[PATH_MAX + 16];
	uint8_t *buf;
	long len;
	FILE *f;

	(void)state;
	cache_file_of(P("types_strip"), path, sizeof(path));
	unlink(path);
	assert_false(answered_from_cache(ref));	/* fills it */
	assert_true(answered_from_cache(ref));

	/* truncated: ignored, then rewritten whole */
	assert_int_equal(sh("truncate -s $(($(stat -c %%s %s) / 2)) %s", path, path), 0);
	assert_false(answered_from_cache(ref));
	assert_true(answered_from_cache(ref));

	/* one byte changed in the middle */
	assert_int_equal(sh("len=$(stat -c %%s %s); printf '\\x5a' | dd of=%s bs=1 seek=$((len / 2)) conv=notrunc status=none",
			    path, path), 0);
	assert_false(answered_from_cache(ref));
	assert_true(answered_from_cache(ref));

	/* garbage, and an empty file */
	assert_int_equal(sh("head -c 3000 /dev/urandom > %s", path), 0);
	assert_false(answered_from_cache(ref));
	assert_int_equal(sh(": > %s", path), 0);
	assert_false(answered_from_cache(ref));
	assert_true(answered_from_cache(ref));

	/* another format version, with a CRC that matches */
	assert_non_null(f = fopen(path, "r+b"));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	assert_true(len > 16);
	assert_non_null(buf = malloc((size_t)len));
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[8] ^= 0x40;	/* the u32 version after the 8-byte magic */
	uint32_t crc = (uint32_t)crc32(0, buf, (uInt)(len - 4));

	memcpy(buf + len - 4, &crc, 4);
	rewind(f);
	assert_int_equal(fwrite(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	free(buf);
	assert_false(answered_from_cache(ref));
	assert_true(answered_from_cache(ref));

	/* a valid file under another build id's name misses */
	FMT(other, "%s/dwarf/%s.protos", cache_dir,
	    "00112233445566778899aabbccddeeff00112233");
	assert_int_equal(sh("cp %s %s", path, other), 0);
	struct vg_proto_cache *c =
		vg_proto_cache_open("00112233445566778899aabbccddeeff00112233");
	struct vg_proto p;
	const char *why = NULL;

	assert_non_null(c);
	assert_null(vg_proto_cache_path(c));
	assert_int_equal(vg_proto_cache_get(c, "queue_push", &p, &why), VG_PC_MISS);
	vg_proto_cache_close(c);

	/* the debug file changed (its mtime): the entries are not trusted */
	assert_int_equal(sh("touch -d '2001-01-01' %s/.debug/types_strip.debug",
			    dir), 0);
	assert_false(answered_from_cache(ref));
	assert_true(answered_from_cache(ref));
	free_answers(ref, 1);
}

static void test_cache_dir_choice(void **state)
{
	static const char *const fn[] = { "queue_push" };
	struct answer *ref = reference(P("types_strip"), fn, 1);
	char buf[PATH_MAX];

	(void)state;
	setenv("VIGIL_CACHE_DIR", "", 1);
	assert_false(vg_proto_cache_dir(buf, sizeof(buf)));
	setenv("VIGIL_CACHE_DIR", "off", 1);
	assert_false(vg_proto_cache_dir(buf, sizeof(buf)));
	unsetenv("VIGIL_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	assert_true(vg_proto_cache_dir(buf, sizeof(buf)));
	assert_string_equal(buf, "/x/cache/vigil");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/someone", 1);
	assert_true(vg_proto_cache_dir(buf, sizeof(buf)));
	assert_string_equal(buf, "/home/someone/.cache/vigil");
	/* unwritable: the answer is DWARF's, nothing fails */
	setenv("VIGIL_CACHE_DIR", "/proc/vigil-no-such-dir", 1);
	assert_false(answered_from_cache(ref));
	assert_false(answered_from_cache(ref));
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	free_answers(ref, 1);
}

static int group_setup(void **state)
{
	if (setup(state))
		return -1;
	FMT(cache_dir, "%s/cache", dir);
	setenv("VIGIL_CACHE_DIR", cache_dir, 1);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_mutex_functions),
		cmocka_unit_test(test_libc_unusable_cached),
		cmocka_unit_test(test_types_cached),
		cmocka_unit_test(test_target_by_build_id),
		cmocka_unit_test(test_target_by_debuglink),
		cmocka_unit_test(test_bad_cache_files),
		cmocka_unit_test(test_cache_dir_choice),
	};

	(void)argc;
	if (!realpath(argv[0], self_exe))
		snprintf(self_exe, sizeof(self_exe), "%s", argv[0]);
	return cmocka_run_group_tests(tests, group_setup, teardown);
}

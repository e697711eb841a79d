/* Unit tests of the type layer (user/sym/dwarf.h) against real binaries:
 * struct fields through typedefs, anonymous members, arrays and
 * bitfields, globals with and without DWARF, and the parameter names a
 * spec is compared with (fixtures: sym_fixture.h). */
#include "sym_fixture.h"

/* --- struct fields ------------------------------------------------------------- */

static vg_type_id param_type(struct vg_dwarf *dw, const char *func, size_t i)
{
	struct vg_err e = { 0 };
	struct vg_proto p;
	vg_type_id t;

	if (vg_dwarf_proto(dw, func, &p, &e))
		fail_msg("%s", e.msg);
	assert_true(i < p.nparams);
	t = p.params[i].type.id;
	vg_proto_free(&p);
	return t;
}

static void field_ok(struct vg_dwarf *dw, vg_type_id base, const char *path,
		     uint64_t off, uint64_t size, enum vg_tkind kind,
		     struct vg_field *f)
{
	struct vg_err e = { 0 };

	if (vg_dwarf_field(dw, base, path, f, &e))
		fail_msg("field %s: %s", path, e.msg);
	if (f->offset != off || f->size != size || f->type.kind != kind)
		fail_msg("field %s: offset %llu size %llu kind %d; expected %llu %llu %d",
			 path, (unsigned long long)f->offset,
			 (unsigned long long)f->size, f->type.kind,
			 (unsigned long long)off, (unsigned long long)size,
			 kind);
}

static void test_field_simple(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;
	struct vg_type t;
	struct vg_err e = { 0 };

	(void)state;
	field_ok(dw, q, "cap", 0, 4, VG_TK_SINT, &f);
	field_ok(dw, q, "count", 4, 4, VG_TK_SINT, &f);
	assert_int_equal(f.bit_size, 0);
	field_ok(dw, q, "items", 40, 8, VG_TK_PTR, &f);
	assert_string_equal(f.type.name, "long int *");
	field_ok(dw, q, "name", 48, 8, VG_TK_PTR, &f);
	field_ok(dw, q, "color", 56, 4, VG_TK_ENUM, &f);
	field_ok(dw, q, "ok", 60, 1, VG_TK_BOOL, &f);
	field_ok(dw, q, "ratio", 64, 8, VG_TK_FLOAT, &f);
	field_ok(dw, q, "next", 72, 8, VG_TK_PTR, &f);
	/* follow next: its target is struct queue again */
	assert_int_equal(vg_dwarf_type(dw, f.type.target, &t, &e), 0);
	assert_string_equal(t.name, "struct queue");
	field_ok(dw, f.type.target, "count", 4, 4, VG_TK_SINT, &f);
	vg_dwarf_close(dw);
}

static void test_field_nested_anonymous_array(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;

	(void)state;
	field_ok(dw, q, "in", 8, 16, VG_TK_STRUCT, &f);
	assert_string_equal(f.type.name, "struct inner");
	field_ok(dw, q, "in.s", 8, 2, VG_TK_SINT, &f);
	field_ok(dw, q, "in.c", 10, 1, VG_TK_SINT, &f);
	field_ok(dw, q, "in.l", 16, 8, VG_TK_SINT, &f);
	field_ok(dw, q, "pos.x", 24, 4, VG_TK_SINT, &f);
	field_ok(dw, q, "pos.y", 28, 4, VG_TK_SINT, &f);
	/* C11 anonymous union */
	field_ok(dw, q, "u1", 32, 4, VG_TK_SINT, &f);
	field_ok(dw, q, "u2", 32, 4, VG_TK_FLOAT, &f);
	field_ok(dw, q, "arr", 80, 16, VG_TK_ARRAY, &f);
	assert_int_equal(f.type.count, 4);
	field_ok(dw, q, "arr[2]", 88, 4, VG_TK_SINT, &f);
	vg_dwarf_close(dw);
}

static void test_field_bitfields(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;

	(void)state;
	field_ok(dw, q, "flag", 36, 1, VG_TK_UINT, &f);
	assert_int_equal(f.bit_offset, 0);
	assert_int_equal(f.bit_size, 3);
	field_ok(dw, q, "bits", 36, 1, VG_TK_UINT, &f);
	assert_int_equal(f.bit_offset, 3);
	assert_int_equal(f.bit_size, 5);
	vg_dwarf_close(dw);
}

static void test_field_through_typedefs(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	/* cq_ptr = const volatile queue_t *, queue_t = struct queue */
	vg_type_id cq = param_type(dw, "typed_ptr", 0);
	struct vg_field f;
	struct vg_type t;
	struct vg_err e = { 0 };

	(void)state;
	field_ok(dw, cq, "in.l", 16, 8, VG_TK_SINT, &f);
	assert_int_equal(vg_dwarf_type_by_name(dw, "queue_t", &t, &e), 0);
	assert_int_equal(t.kind, VG_TK_STRUCT);
	field_ok(dw, t.id, "pos.y", 28, 4, VG_TK_SINT, &f);
	assert_int_equal(vg_dwarf_type_by_name(dw, "struct queue", &t, &e), 0);
	assert_int_equal(t.size, 96);
	assert_int_equal(t.align, 8);
	assert_int_equal(vg_dwarf_type_by_name(dw, "enum color", &t, &e), 0);
	assert_int_equal(t.kind, VG_TK_ENUM);
	assert_int_equal(vg_dwarf_type_by_name(dw, "struct nope", &t, &e), -1);
	assert_contains(e.msg, "struct nope");
	assert_contains(e.msg, P("types"));
	vg_dwarf_close(dw);
}

static void test_field_errors(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	vg_type_id q = param_type(dw, "queue_push", 0);
	struct vg_field f;
	struct vg_err e = { 0 };
	char want[PATH_MAX + 64];

	(void)state;
	FMT(want, "no field 'x' in struct queue (%s)",
		 P("types"));
	assert_int_equal(vg_dwarf_field(dw, q, "x", &f, &e), -1);
	assert_string_equal(e.msg, want);
	assert_int_equal(e.exit_code, 2);
	FMT(want, "no field 'zz' in struct inner (%s)",
		 P("types"));
	assert_int_equal(vg_dwarf_field(dw, q, "in.zz", &f, &e), -1);
	assert_string_equal(e.msg, want);
	assert_int_equal(vg_dwarf_field(dw, q, "count.x", &f, &e), -1);
	assert_contains(e.msg, "not a struct");
	assert_int_equal(vg_dwarf_field(dw, q, "arr[4]", &f, &e), -1);
	assert_contains(e.msg, "out of bounds");
	assert_int_equal(vg_dwarf_field(dw, q, "items[1]", &f, &e), -1);
	assert_contains(e.msg, "pointer");
	assert_int_equal(vg_dwarf_field(dw, q, "next->count", &f, &e), -1);
	assert_contains(e.msg, "->");
	assert_int_equal(vg_dwarf_field(dw, q, "in.", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "arr[1]x", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "arr[1].", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "arr[x]", &f, &e), -1);
	assert_int_equal(vg_dwarf_field(dw, q, "", &f, &e), -1);
	vg_dwarf_close(dw);
}

static void test_field_completed_from_other_unit(void **state)
{
	struct vg_dwarf *dw = open_ok(P("opaque"));
	/* peek(struct opaque *) is in a unit where struct opaque is only
	 * declared; the definition is in the other unit */
	vg_type_id o = param_type(dw, "peek", 0);
	struct vg_field f;

	(void)state;
	field_ok(dw, o, "b", 8, 8, VG_TK_SINT, &f);
	field_ok(dw, o, "a", 0, 4, VG_TK_SINT, &f);
	vg_dwarf_close(dw);
}

static void test_proto_matches_probed_address(void **state)
{
	struct vg_dwarf *dw = open_ok(P("opaque"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	struct vg_func f;
	char file[PATH_MAX] = "";

	(void)state;
	/* two static dup_static, one per file, with different parameters:
	 * the prototype is the one of the code at the symbol's address */
	assert_int_equal(vg_dwarf_func(dw, "dup_static", &f, &e), 0);
	assert_int_equal(sh_line(file, sizeof(file), "addr2line -e %s 0x%llx",
				 P("opaque"), (unsigned long long)f.addr),
			 0);
	assert_int_equal(vg_dwarf_proto(dw, "dup_static", &p, &e), 0);
	if (strstr(file, "opq_a.c")) {
		assert_int_equal(p.nparams, 1);
		assert_string_equal(p.params[0].name, "a");
	} else {
		assert_non_null(strstr(file, "opq_b.c"));
		assert_int_equal(p.nparams, 2);
		assert_string_equal(p.params[0].name, "b");
	}
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

/* --- globals --------------------------------------------------------------------- */

static void test_globals(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_global g;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_int_equal(g.addr, nm_addr(P("types"), "g_counter"));
	assert_int_equal(g.size, 4);
	assert_true(g.pie);
	assert_int_equal(g.source, VG_SRC_SYMTAB);
	assert_true(g.has_type);
	assert_int_equal(g.type.kind, VG_TK_SINT);
	assert_int_equal(vg_dwarf_global(dw, "s_hidden", &g, &e), 0);
	assert_int_equal(g.addr, nm_addr(P("types"), "s_hidden"));
	assert_int_equal(g.size, 80);
	assert_int_equal(g.type.kind, VG_TK_ARRAY);
	assert_int_equal(g.type.count, 10);
	assert_string_equal(g.type.name, "long int[10]");
	assert_int_equal(vg_dwarf_global(dw, "g_queue", &g, &e), 0);
	assert_int_equal(g.type.kind, VG_TK_STRUCT);
	assert_int_equal(g.size, 96);
	assert_int_equal(vg_dwarf_global(dw, "g_size", &g, &e), 0);
	assert_string_equal(g.type.name, "my_size");
	assert_int_equal(g.type.kind, VG_TK_UINT);
	/* refused or absent, with the name and the binary */
	assert_int_equal(vg_dwarf_global(dw, "t_local", &g, &e), -1);
	assert_contains(e.msg, "'t_local'");
	assert_contains(e.msg, "thread-local");
	assert_int_equal(vg_dwarf_global(dw, "nope", &g, &e), -1);
	assert_contains(e.msg, "'nope'");
	assert_contains(e.msg, P("types"));
	vg_dwarf_close(dw);
	dw = open_ok(P("types_nopie"));
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_false(g.pie);
	assert_int_equal(g.addr, nm_addr(P("types_nopie"), "g_counter"));
	vg_dwarf_close(dw);
}

/* every variable DWARF places, for naming addresses without .symtab:
 * the stripped copy's (its debug file's) against the unstripped symbols */
struct seen_vars {
	int n, hidden, counter, tls;
	uint64_t hidden_addr, hidden_size;
	bool hidden_ext, counter_ext;
	char hidden_file[256];
};

static void on_var(void *ctx, const char *name, uint64_t addr, uint64_t size,
		   bool external, const char *file)
{
	struct seen_vars *sv = ctx;

	sv->n++;
	if (!strcmp(name, "s_hidden")) {
		sv->hidden++;
		sv->hidden_addr = addr;
		sv->hidden_size = size;
		sv->hidden_ext = external;
		snprintf(sv->hidden_file, sizeof(sv->hidden_file), "%s",
			 file ? file : "");
	} else if (!strcmp(name, "g_counter")) {
		sv->counter++;
		sv->counter_ext = external;
	} else if (!strcmp(name, "t_local")) {
		sv->tls++;
	}
}

static void test_each_var_stripped(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_strip"));
	struct seen_vars sv = { 0 };

	(void)state;
	vg_dwarf_each_var(dw, on_var, &sv);
	assert_int_equal(sv.hidden, 1);
	assert_int_equal(sv.hidden_addr, nm_addr(P("types"), "s_hidden"));
	assert_int_equal(sv.hidden_size, 80);
	assert_false(sv.hidden_ext);	/* a static */
	assert_contains(sv.hidden_file, "sym_types.c");
	assert_int_equal(sv.counter, 1);
	assert_true(sv.counter_ext);
	assert_int_equal(sv.tls, 0);	/* no single address */
	vg_dwarf_close(dw);
}

static void test_globals_dwarf_only_and_no_dwarf(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types_strip"));
	struct vg_global g;
	struct vg_err e = { 0 };

	(void)state;
	assert_int_equal(vg_dwarf_global(dw, "s_hidden", &g, &e), 0);
	assert_int_equal(g.source, VG_SRC_DWARF);
	assert_int_equal(g.addr, nm_addr(P("types"), "s_hidden"));
	assert_int_equal(g.size, 80);
	vg_dwarf_close(dw);
	dw = open_ok(P("types_nodw"));
	assert_int_equal(vg_dwarf_global(dw, "g_counter", &g, &e), 0);
	assert_false(g.has_type);
	assert_int_equal(g.size, 4);
	vg_dwarf_close(dw);
}

/* --- parameter names ------------------------------------------------------------------ */

static void test_param_names(void **state)
{
	struct vg_dwarf *dw = open_ok(P("types"));
	struct vg_err e = { 0 };
	struct vg_proto p;
	char buf[256];

	(void)state;
	assert_int_equal(vg_dwarf_param_name(dw, "queue_push", 0, buf,
					     sizeof(buf), &e), 0);
	assert_string_equal(buf, "q");
	assert_int_equal(vg_dwarf_param_name(dw, "queue_push", 1, buf,
					     sizeof(buf), &e), 0);
	assert_string_equal(buf, "v");
	assert_int_equal(vg_dwarf_param_name(dw, "queue_push", 2, buf,
					     sizeof(buf), &e), -1);
	assert_contains(e.msg, "'queue_push'");
	assert_contains(e.msg, "2 parameters");
	assert_int_equal(vg_dwarf_param_name(dw, "printf", 0, buf,
					     sizeof(buf), &e), -1);
	assert_contains(e.msg, "no name");

	assert_int_equal(vg_dwarf_proto(dw, "queue_push", &p, &e), 0);
	assert_string_equal(vg_proto_param_name(&p, 0), "q");
	assert_null(vg_proto_param_name(&p, 5));
	assert_true(vg_proto_name_differs(&p, P("types"), 0, "queue", buf,
					  sizeof(buf)));
	assert_contains(buf, "'queue'");
	assert_contains(buf, "'q'");
	assert_contains(buf, "queue_push");
	assert_false(vg_proto_name_differs(&p, P("types"), 0, "q", buf,
					   sizeof(buf)));
	assert_false(vg_proto_name_differs(&p, P("types"), 1, "_", buf,
					   sizeof(buf)));
	assert_false(vg_proto_name_differs(&p, P("types"), 7, "x", buf,
					   sizeof(buf)));
	vg_proto_free(&p);
	vg_dwarf_close(dw);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_field_simple),
	cmocka_unit_test(test_field_nested_anonymous_array),
	cmocka_unit_test(test_field_bitfields),
	cmocka_unit_test(test_field_through_typedefs),
	cmocka_unit_test(test_field_errors),
	cmocka_unit_test(test_field_completed_from_other_unit),
	cmocka_unit_test(test_proto_matches_probed_address),
	cmocka_unit_test(test_globals),
	cmocka_unit_test(test_globals_dwarf_only_and_no_dwarf),
	cmocka_unit_test(test_each_var_stripped),
	cmocka_unit_test(test_param_names),
};

SYM_TEST_MAIN(tests)

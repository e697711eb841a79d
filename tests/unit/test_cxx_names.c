/* C++ function names: the spec side (the parser's names: qualified,
 * destructors, operators, quoted, with a parameter-type list before the
 * pattern's names) and the symbol side (demangling, the split of a
 * demangled function, matching with overloads, templates and parameter
 * types). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "spec_load.h"
#include "sym/cxxnames.h"

static const struct vg_event *event_named(const struct vg_spec *s,
					  const char *name)
{
	for (int i = 0; i < s->nevents; i++)
		if (!strcmp(s->events[i].name, name))
			return &s->events[i];
	print_error("no event '%s'", name);
	fail();
	return NULL;
}

static void test_parse_names(void **state)
{
	(void)state;
	struct vg_spec *s = load(
		"property p\n"
		"slice on ptr q\n"
		"state a {\n"
		"  after ns::Queue::Queue(q) -> a\n"
		"  before Queue::~Queue(q) -> a\n"
		"  before Queue::push(int)(q, v) when v > 0 -> a\n"
		"  before \"Box<int>::get\"(q) -> a\n"
		"  after operator new(n) returns q -> a\n"
		"  before \"operator delete[]\"(q) outside Queue::~Queue, \"operator delete[](void*, unsigned long)\" -> a\n"
		"  before ::g(q) -> a\n"
		"  before Queue::operator==(q, o) -> a\n"
		"  before f(const char *, int)(q) -> a\n"
		"}\n");
	const struct vg_event *e;

	event_named(s, "ns::Queue::Queue");
	event_named(s, "Queue::~Queue");
	/* the types before the names; v is still position 2 */
	e = event_named(s, "Queue::push(int)");
	assert_int_equal(e->nfields, 2);
	assert_string_equal(e->argname[1], "v");
	event_named(s, "Box<int>::get");
	event_named(s, "operator new");
	e = event_named(s, "operator delete[]");
	assert_int_equal(e->noutside, 2);
	assert_string_equal(e->outside[0], "Queue::~Queue");
	assert_string_equal(e->outside[1], "operator delete[](void*, unsigned long)");
	event_named(s, "::g");
	event_named(s, "Queue::operator==");
	event_named(s, "f(const char *, int)");
	vg_spec_free(s);

	/* a string parameter stands for a quoted name */
	s = load("param alloc = \"operator new[]\"\n"
		 "property p state a { after $alloc(n) returns q -> a }\n");
	event_named(s, "operator new[]");
	vg_spec_free(s);
}

static void expect_error(const char *text, const char *msg)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	assert_int_not_equal(vg_spec_load_string(s, "t.vigil", text, &e), 0);
	if (!strstr(e.msg, msg)) {
		print_error("got '%s', expected '%s'", e.msg, msg);
		fail();
	}
	vg_spec_free(s);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error("property p state a { before Queue::(q) -> a }",
		     "t.vigil:1:36: error: unexpected '(', expected a name after '::' or '~'");
	expect_error("property p state a { before Queue::~(q) -> a }",
		     "t.vigil:1:37: error: unexpected '(', expected a name after '::' or '~'");
	expect_error("property p state a { before \"\"(q) -> a }",
		     "t.vigil:1:29: error: empty function name");
	/* a list alone is the pattern's names, whatever they are called */
	struct vg_spec *sp = load("property p state a { before f(int) -> a }");

	assert_string_equal(sp->events[0].name, "f");
	assert_string_equal(sp->events[0].argname[0], "int");
	vg_spec_free(sp);
}

static void test_demangle(void **state)
{
	(void)state;
	char buf[256], *d;

	d = vg_demangle("_ZN4shop5Queue4pushEi");
	assert_non_null(d);
	assert_string_equal(d, "shop::Queue::push(int)");
	free(d);
	d = vg_demangle("_Znwm@@GLIBCXX_3.4");
	assert_non_null(d);
	assert_string_equal(d, "operator new(unsigned long)");
	free(d);
	assert_null(vg_demangle("malloc"));
	assert_null(vg_demangle("_Zgarbage"));
	vg_demangle_into("free", buf, sizeof(buf));
	assert_string_equal(buf, "free");
	vg_demangle_into("_ZdaPv", buf, sizeof(buf));
	assert_string_equal(buf, "operator delete[](void*)");
	assert_true(vg_cxx_is_plain("queue_push"));
	assert_false(vg_cxx_is_plain("Queue::push"));
	assert_false(vg_cxx_is_plain("operator new"));
}

static void split_is(const char *d, const char *q, const char *p)
{
	char qn[256], pa[256];

	if (!vg_cxx_split(d, qn, sizeof(qn), pa, sizeof(pa))) {
		print_error("'%s' not split", d);
		fail();
	}
	assert_string_equal(qn, q);
	assert_string_equal(pa, p);
}

static void test_split(void **state)
{
	(void)state;
	char qn[256], pa[256];

	split_is("shop::Queue::push(int)", "shop::Queue::push", "int");
	split_is("shop::Queue::operator[](int) const", "shop::Queue::operator[]", "int");
	split_is("Queue::operator()(int, long)", "Queue::operator()", "int, long");
	split_is("operator new(unsigned long, std::nothrow_t const&)",
		 "operator new", "unsigned long, std::nothrow_t const&");
	/* a function template's return type goes */
	split_is("std::vector<int, std::allocator<int> > make<int>(int)",
		 "make<int>", "int");
	split_is("bool operator< <int>(Box<int> const&, Box<int> const&)",
		 "operator< <int>", "Box<int> const&, Box<int> const&");
	/* ABI tags are not what anyone writes */
	split_is("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::c_str[abi:cxx11]() const",
		 "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::c_str", "");
	/* not functions of their own */
	assert_false(vg_cxx_split("shop::Queue::push(int) [clone .cold]", qn, sizeof(qn), pa, sizeof(pa)));
	assert_false(vg_cxx_split("non-virtual thunk to shop::Rect::~Rect()", qn, sizeof(qn), pa, sizeof(pa)));
	assert_false(vg_cxx_split("vtable for shop::Rect", qn, sizeof(qn), pa, sizeof(pa)));
}

static void test_matches(void **state)
{
	(void)state;
	char key[256];

	/* qualified, or its last components */
	assert_true(vg_cxx_matches("shop::Queue::push", "shop::Queue::push", "int", key, sizeof(key)));
	assert_string_equal(key, "shop::Queue::push");
	assert_true(vg_cxx_matches("Queue::push", "shop::Queue::push", "int", NULL, 0));
	assert_true(vg_cxx_matches("push", "shop::Queue::push", "int", NULL, 0));
	assert_false(vg_cxx_matches("ueue::push", "shop::Queue::push", "int", NULL, 0));
	assert_false(vg_cxx_matches("Stack::push", "shop::Queue::push", "int", NULL, 0));
	/* constructors and destructors */
	assert_true(vg_cxx_matches("Queue::Queue", "shop::Queue::Queue", "int", NULL, 0));
	assert_false(vg_cxx_matches("Queue::Queue", "shop::Queue::~Queue", "", NULL, 0));
	assert_true(vg_cxx_matches("Queue::~Queue", "shop::Queue::~Queue", "", NULL, 0));
	/* parameter types: as the demangler writes them, or as C++ does */
	assert_true(vg_cxx_matches("Queue::push(int)", "shop::Queue::push", "int", NULL, 0));
	assert_false(vg_cxx_matches("Queue::push(int)", "shop::Queue::push", "char const*", NULL, 0));
	assert_true(vg_cxx_matches("Queue::push(const char *)", "shop::Queue::push", "char const*", NULL, 0));
	assert_true(vg_cxx_matches("f(const std::string&, int)", "f", "std::string const&, int", NULL, 0));
	assert_true(vg_cxx_matches("pop()", "shop::Queue::pop", "", NULL, 0));
	assert_true(vg_cxx_matches("pop(void)", "shop::Queue::pop", "", NULL, 0));
	assert_false(vg_cxx_matches("pop()", "shop::Queue::pop", "int", NULL, 0));
	/* templates: arguments left out match every instantiation, under
	 * one key; given, that one */
	assert_true(vg_cxx_matches("Box::get", "Box<int>::get", "", key, sizeof(key)));
	assert_string_equal(key, "Box::get");
	assert_true(vg_cxx_matches("Box<long>::get", "Box<long>::get", "", NULL, 0));
	assert_false(vg_cxx_matches("Box<long>::get", "Box<int>::get", "", NULL, 0));
	assert_true(vg_cxx_matches("Box< long >::get", "Box<long>::get", "", NULL, 0));
	/* operators */
	assert_true(vg_cxx_matches("operator new", "operator new", "unsigned long", NULL, 0));
	assert_false(vg_cxx_matches("operator new", "operator new[]", "unsigned long", NULL, 0));
	assert_true(vg_cxx_matches("operator delete[](void*)", "operator delete[]", "void*", NULL, 0));
	assert_false(vg_cxx_matches("operator delete[](void*)", "operator delete[]", "void*, unsigned long", NULL, 0));
	assert_true(vg_cxx_matches("Queue::operator[]", "shop::Queue::operator[]", "int", NULL, 0));
	assert_true(vg_cxx_matches("Queue::operator()", "Queue::operator()", "int", NULL, 0));
	assert_true(vg_cxx_matches("Queue::operator()(int)", "Queue::operator()", "int", NULL, 0));
	assert_true(vg_cxx_matches("operator<<", "std::operator<<", "std::ostream&, int", NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_names),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A spec from text, for unit tests: fails the test on any load error. */
#ifndef VIGIL_TESTS_SPEC_LOAD_H
#define VIGIL_TESTS_SPEC_LOAD_H

#include "spec/spec.h"

static struct vg_spec *load(const char *text)
{
	struct vg_spec *s = vg_spec_new();
	struct vg_err e = { 0 };

	assert_non_null(s);
	if (vg_spec_load_string(s, "t.vigil", text, &e)) {
		print_error("unexpected error: %s", e.msg);
		fail();
	}
	return s;
}

#endif

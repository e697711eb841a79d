/* libFuzzer target for the spec loader: any input must either load or be
 * refused with a message, without crashing, leaking or reading out of
 * bounds. Linting a loaded spec exercises the bytecode evaluator too.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -Iinclude -Iuser user/spec/[a-z]*.c user/util/err.c tests/fuzz/fuzz_spec.c \
 *     -o build/fuzz_spec
 *   build/fuzz_spec -dict=tests/fuzz/fuzz_spec.dict tests/fuzz/corpus_spec
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vg_spec *spec = vg_spec_new();
	struct vg_err e = { 0 };
	char *text = malloc(size + 1);
	FILE *null;

	if (!spec || !text) {
		free(text);
		vg_spec_free(spec);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;	/* the loader takes a C string */
	/* a -D, for the parameters of whatever declares `param alloc` */
	vg_spec_define(spec, "alloc", "my_alloc", &e);
	if (vg_spec_load_string(spec, "fuzz.vigil", text, &e) == 0) {
		vg_spec_check_defines(spec, &e);
		null = fopen("/dev/null", "w");
		vg_spec_lint(spec, null);
		if (null)
			fclose(null);
		/* a second load of the same text must fail cleanly (duplicate
		 * property names) or append, never corrupt */
		vg_spec_load_string(spec, "again.vigil", text, &e);
	} else if (!strstr(e.msg, "error: ") || e.exit_code == 0) {
		abort();
	}
	free(text);
	vg_spec_free(spec);
	return 0;
}

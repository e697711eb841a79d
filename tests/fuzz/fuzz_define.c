/* libFuzzer target: -D NAME=VALUE (user/spec/params.c) against a spec
 * whose parameters are a name, a number and a string. The input is one or
 * more NAME=VALUE lines; any of them must be taken, or refused with a
 * clear error (exit status 2), never crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"

static const char spec_text[] =
	"param FUNC = queue_push\n"
	"param CAP = 8\n"
	"param NAME = \"x\"\n"
	"property p\n"
	"slice on ptr q\n"
	"state s accepting {\n"
	"  before $FUNC(q) when q != $CAP -> s\n"
	"  before open(p) when str(p) == $NAME -> bad\n"
	"}\n"
	"state bad violation\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vg_spec *spec = vg_spec_new();
	char *text = malloc(size + 1);
	struct vg_err e;
	char *save, *line;

	if (!spec || !text)
		__builtin_trap();
	memcpy(text, data, size);
	text[size] = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq || eq == line)
			continue;
		*eq = 0;
		if (vg_spec_define(spec, line, eq + 1, &e))
			goto out;
	}
	if (!vg_spec_load_string(spec, "fuzz.vigil", spec_text, &e))
		vg_spec_check_defines(spec, &e);
out:
	free(text);
	vg_spec_free(spec);
	return 0;
}

/* Within user/report/: the names pointer values get in reports, from the
 * namer the session sets (report.h, vg_report_set_namer): " (&A)" after a
 * value in text, and ,"names":{"KEY":"NAME",...} beside the values of a
 * JSON object, only for those that have one. */
#ifndef VIGIL_REPORT_NAMES_H
#define VIGIL_REPORT_NAMES_H

#include <stdint.h>
#include <stdio.h>

void vg_name_text(FILE *out, uint64_t v);

struct vg_jnames {
	FILE *out;
	int n;		/* names written so far */
};
void vg_name_json(struct vg_jnames *j, const char *key, uint64_t v);
void vg_names_json_end(struct vg_jnames *j);

#endif

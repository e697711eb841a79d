/* Within user/report/: the names pointer values get in reports, from the
 * namer the session sets (report.h, vg_report_set_namer): " (&A)" after a
 * value in text, and ,"names":{"KEY":"NAME",...} beside the values of a
 * JSON object, only for those that have one. */
#ifndef VIGIL_REPORT_NAMES_H
#define VIGIL_REPORT_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void vg_name_text(FILE *out, uint64_t v);
/* The name of v into buf (the same as vg_name_text's); false: none */
bool vg_name_of(uint64_t v, char *buf, size_t len);
/* While on, values are named as the objects they point into (the
 * violation of a property about objects: report.c) */
void vg_names_objects(bool on);

struct vg_jnames {
	FILE *out;
	int n;		/* names written so far */
};
void vg_name_json(struct vg_jnames *j, const char *key, uint64_t v);
void vg_names_json_end(struct vg_jnames *j);

#endif

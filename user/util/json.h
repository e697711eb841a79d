/* The few JSON writing helpers the reports need. */
#ifndef VIGIL_JSON_H
#define VIGIL_JSON_H

#include <stdio.h>

#include "spec/spec.h"

/* Open a report file, readable by its owner only (it may hold addresses
 * and arguments of the target). */
FILE *vg_json_open(const char *path, struct vg_err *e);
/* Write s as a JSON string, escaped. */
void vg_json_str(FILE *f, const char *s);
/* Write a formatted value (vg_format_value) as JSON: numbers and booleans
 * bare, pointers and strings as strings. */
void vg_json_value(FILE *f, enum vg_type t, const char *formatted);

#endif

/* How a C scalar's bits become a 64-bit spec value (enum vg_arg_conv,
 * include/vigil_event.h), shared by the argument plans (args.c) and the
 * watchpoints (watch_plan.c). Includes sym/dwarf.h, so not for code that also
 * includes spec/spec.h (both name a vg_loc). */
#ifndef VIGIL_PLAN_CONV_H
#define VIGIL_PLAN_CONV_H

#include "sym/dwarf.h"

/* VG_CONV_* for type t, or -1 when it is no scalar of 1 to 8 bytes */
int vg_conv_of(const struct vg_type *t);

#endif

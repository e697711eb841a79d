/* The default reaction to a violation state without a reaction of its
 * own (--on-violation; a property's own with --on-violation PROP=...,
 * spec.h's on_violation). The scenario performs it (scenario.c); the
 * plan takes from it the states whose entry stops the target. */
#ifndef VIGIL_ACT_ON_VIOLATION_H
#define VIGIL_ACT_ON_VIOLATION_H

enum vg_on_violation { VG_OV_STOP, VG_OV_GDB, VG_OV_CONTINUE, VG_OV_KILL,
		       VG_OV_CHECKPOINT };

#endif

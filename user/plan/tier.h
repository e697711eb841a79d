/* The tier asked for (--tier): the plan decides each property's from it
 * (vg_plan_tiers: plan_ktier.c's eligibility), the session runs them. */
#ifndef VIGIL_PLAN_TIER_H
#define VIGIL_PLAN_TIER_H

enum vg_tier { VG_TIER_AUTO, VG_TIER_USER, VG_TIER_KERNEL };

#endif

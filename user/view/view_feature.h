/* --view and `vigil view PID`: the live page, a feature of the session
 * (user/feature/feature.h; view_feature.c). */
#ifndef VIGIL_VIEW_FEATURE_H
#define VIGIL_VIEW_FEATURE_H

struct vg_feature;
extern const struct vg_feature vg_view_feature;

#endif

/* --webhook URL: each violation, and the run's end, POSTed as JSON to a
 * URL, as chat tools (a "text" field: Slack's and Mattermost's incoming
 * webhooks) and Alertmanager (--webhook-format=alertmanager: its
 * /api/v2/alerts array) take them. A feature of the session
 * (user/feature/feature.h): the posts go out on a thread of their own,
 * so a slow or dead endpoint never holds the run up; what could not be
 * sent is counted and said at the end. */
#ifndef VIGIL_WEBHOOK_H
#define VIGIL_WEBHOOK_H

struct vg_feature;
extern const struct vg_feature vg_webhook_feature;

#endif

/* The live view (`--view`): a page on localhost that draws each property's
 * automaton and animates it while the program runs (docs/reference/live-view.md).
 *
 * This module is the HTTP side only: a libmicrohttpd daemon on its own
 * threads serves the shipped page (user/view/static/), the automaton's SVG
 * and a stream of frames (server-sent events). It never touches the
 * monitor: the session builds each frame (view_frame.h) on its own thread
 * and publishes it here. Nothing is built while no page is connected, so
 * a view nobody watches costs the monitor a flag read per loop wake-up.
 */
#ifndef VIGIL_VIEW_H
#define VIGIL_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct vg_view;

struct vg_view_opts {
	const char *addr;	/* numeric IPv4 address; NULL = 127.0.0.1 */
	int port;		/* 0 = any free port */
	const char *svg;	/* the automata, drawn by Graphviz */
	size_t svg_len;
	const char *title;	/* the page's title: the specs and the target */
};

/* Starts serving. The URL (with its random token) is vg_view_url(). */
struct vg_view *vg_view_start(const struct vg_view_opts *o, struct vg_err *e);
const char *vg_view_url(const struct vg_view *v);

/* Is a frame wanted now: some page connected, and the last frame is at
 * least VG_VIEW_PERIOD_MS old? */
#define VG_VIEW_PERIOD_MS 150
bool vg_view_due(struct vg_view *v, uint64_t now_ns);
/* The state the page asked to list the slices of: *prop -1 when none. */
void vg_view_selected(struct vg_view *v, int *prop, int *state);
/* Hand over a frame (a JSON object, owned by the view from now on). The
 * connected pages get it; a page that connects later gets the last one. */
void vg_view_publish(struct vg_view *v, char *json, size_t len,
		     uint64_t now_ns);
/* Pages connected now (the benchmarks and tests). */
int vg_view_clients(struct vg_view *v);

/* Serves the last frame until SIGINT or SIGTERM (the run is over: the
 * page keeps its final picture for whoever is looking). */
void vg_view_linger(struct vg_view *v);
void vg_view_stop(struct vg_view *v);

#endif

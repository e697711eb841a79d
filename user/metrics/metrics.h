/* --metrics ADDR:PORT: a Prometheus endpoint (text exposition format
 * 0.0.4) on its own libmicrohttpd threads, like the live view's server.
 *
 * It never reads the monitor: the session (session_metrics.c) builds the
 * body on its own thread about once a second and publishes it here; the
 * agent instead gives a source that builds a body per scrape from its
 * sessions' files (vg_metrics_merge). GET /metrics answers it.
 */
#ifndef VIGIL_METRICS_H
#define VIGIL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

struct vg_metrics;

/* "ADDR:PORT" (numeric IPv4; PORT 0 = any free one) into addr/port;
 * -1 when it is not one. */
int vg_metrics_parse_addr(const char *s, char *addr, size_t len, int *port);

/* Starts serving on addr:port. */
struct vg_metrics *vg_metrics_start(const char *addr, int port,
				    struct vg_err *e);
/* The port it listens on (the one chosen when 0 was asked). */
int vg_metrics_port(const struct vg_metrics *m);
/* Hand over a body (malloc'ed, owned by the server from now on): scrapes
 * get the last one. */
void vg_metrics_publish(struct vg_metrics *m, char *body, size_t len);
/* Or build one per scrape, on the server's thread: a malloc'ed body and
 * its length, or NULL. */
typedef char *(*vg_metrics_source)(void *ctx, size_t *len);
void vg_metrics_set_source(struct vg_metrics *m, vg_metrics_source fn,
			   void *ctx);
void vg_metrics_stop(struct vg_metrics *m);

/* Writing a body: a family's HELP and TYPE lines, then its samples.
 * labels: "k1", "v1", "k2", "v2", ..., NULL (values escaped here). */
void vg_metrics_family(FILE *f, const char *name, const char *type,
		       const char *help);
void vg_metrics_sample(FILE *f, const char *name, double value, ...);

/* vigil's own CPU seconds (user + system) and resident bytes. */
void vg_metrics_self(double *cpu_seconds, uint64_t *rss_bytes);

/* Several bodies as one: each family's HELP/TYPE once, then all its
 * samples (the exposition format wants a family's lines together).
 * Returns a malloc'ed body, or NULL (out of memory). */
char *vg_metrics_merge(const char *const *bodies, size_t n, size_t *len);

#endif

/* The control channel of a live session: a Unix socket in vigil's private
 * run directory (RUNDIR/ctl-PID.sock, mode 0600, peers checked with
 * SO_PEERCRED), speaking the JSON-lines protocol of docs/CONTROL.md: one
 * request object a line in, one response object a line out.
 *
 * The server is polled from the session's event loop (vg_ctl_fd is an
 * epoll descriptor that is readable when a client connects or writes); it
 * never blocks on a client: reads take what is there, a line that is not
 * complete waits for the next wake-up, and a write that cannot finish in
 * VG_CTL_SEND_MS drops that client. The client side (vg_ctl_call) puts a
 * timeout on every read, so a stuck vigil never freezes its caller. */
#ifndef VIGIL_CTL_H
#define VIGIL_CTL_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

#define VG_CTL_VERSION 1
#define VG_CTL_SEND_MS 1000	/* a client that reads nothing is dropped */
#define VG_CTL_LINE_MAX 65536	/* a request longer than this is refused */

struct vg_ctl;

/* A request: cmd and its args (a JSON array of strings, maybe empty) from
 * client id. Returns the response object (owned by the server), which
 * should say "ok"; NULL sends {"ok":false,"error":"out of memory"}. */
typedef json_t *(*vg_ctl_handler)(void *ctx, int client, const char *cmd,
				  json_t *args, json_t *req);
/* Client id's connection ended (the peer closed it or was dropped). */
typedef void (*vg_ctl_closed)(void *ctx, int client);

/* Listen on RUNDIR/ctl-PID.sock for the session of pid. */
struct vg_ctl *vg_ctl_open(pid_t pid, vg_ctl_handler fn, vg_ctl_closed closed,
			   void *ctx, struct vg_err *e);
/* Close every connection, remove the socket. NULL is fine. */
void vg_ctl_close(struct vg_ctl *c);
/* Readable when there is something to serve. */
int vg_ctl_fd(const struct vg_ctl *c);
/* The socket's path. */
const char *vg_ctl_path(const struct vg_ctl *c);
/* Accept, read and answer whatever is there, without blocking. */
void vg_ctl_serve(struct vg_ctl *c);
/* The process at the other end of client's connection (SO_PEERCRED), or
 * 0 when there is none. */
pid_t vg_ctl_peer_pid(const struct vg_ctl *c, int client);

/* --- the client side (vigil ctl, tests) --- */

/* The socket of the session monitoring pid (no check that it exists). */
int vg_ctl_socket_path(pid_t pid, char *out, size_t len, struct vg_err *e);
/* Send {"v":1,"cmd":cmd,"args":args} (args NULL: none; stolen) to path and
 * wait at most timeout_ms for the response line. Returns the response, or
 * NULL with e set. */
json_t *vg_ctl_call(const char *path, const char *cmd, json_t *args,
		    int timeout_ms, struct vg_err *e);

#endif

/* --journal: sd_journal_sendv to journald, or JSON lines (jansson) with
 * the same fields where journald does not run. */
#include "report/oplog.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/lazylib.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define MAX_FIELDS 24

struct vg_oplog {
	bool journald;
	FILE *json;		/* JSON lines, or NULL */
	bool own;		/* json is a file we opened */
	char where[4200];
};

/* why not journald, when the operator did not choose JSON */
static const char *no_journald(void)
{
	static char why[600];

	if (access(JOURNAL_SOCKET, W_OK))
		return JOURNAL_SOCKET " is absent";
	snprintf(why, sizeof(why), "cannot load libsystemd: %s",
		 vg_lazylib_systemd_error());
	return why;
}

struct vg_oplog *vg_oplog_open(const char *json_path, int force_json,
			       struct vg_err *e)
{
	struct vg_oplog *l = calloc(1, sizeof(*l));

	if (!l) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	/* a journald that is not running leaves no socket: checked once,
	 * as the operator's choice of sink is made at start */
	if (!force_json && access(JOURNAL_SOCKET, W_OK) == 0 &&
	    !vg_lazylib_systemd_error()) {
		l->journald = true;
		snprintf(l->where, sizeof(l->where), "journald (%s)",
			 JOURNAL_SOCKET);
		return l;
	}
	if (!json_path || !strcmp(json_path, "-")) {
		l->json = stdout;
		snprintf(l->where, sizeof(l->where),
			 "JSON lines on stdout (no journald: %s)", no_journald());
		return l;
	}
	if (!(l->json = fopen(json_path, "ae"))) {
		vg_errf(e, "--journal: cannot open %s: %s", json_path,
			strerror(errno));
		free(l);
		return NULL;
	}
	l->own = true;
	snprintf(l->where, sizeof(l->where), "JSON lines in %s%s%s%s",
		 json_path, force_json ? "" : " (no journald: ",
		 force_json ? "" : no_journald(), force_json ? "" : ")");
	return l;
}

const char *vg_oplog_where(const struct vg_oplog *l)
{
	return l->where;
}

static void send_journal(int priority, const char *message,
			 const char **kv, int n)
{
	struct iovec iov[MAX_FIELDS + 3];
	char *lines[MAX_FIELDS + 3];
	int k = 0;

	if (asprintf(&lines[k++], "MESSAGE=%s", message) < 0 ||
	    asprintf(&lines[k++], "PRIORITY=%d", priority) < 0 ||
	    asprintf(&lines[k++], "SYSLOG_IDENTIFIER=vigil") < 0)
		return;		/* out of memory: the entry is lost */
	for (int i = 0; i < n; i += 2)
		if (asprintf(&lines[k], "%s=%s", kv[i], kv[i + 1]) >= 0)
			k++;
	for (int i = 0; i < k; i++)
		iov[i] = (struct iovec){ lines[i], strlen(lines[i]) };
	sd_journal_sendv(iov, k);
	for (int i = 0; i < k; i++)
		free(lines[i]);
}

static void send_json(FILE *f, int priority, const char *message,
		      const char **kv, int n)
{
	json_t *o = json_object();
	struct timespec ts;

	if (!o)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	json_object_set_new(o, "time", json_real(ts.tv_sec + ts.tv_nsec / 1e9));
	json_object_set_new(o, "PRIORITY", json_integer(priority));
	json_object_set_new(o, "SYSLOG_IDENTIFIER", json_string("vigil"));
	json_object_set_new(o, "MESSAGE", json_string(message));
	for (int i = 0; i < n; i += 2)
		json_object_set_new(o, kv[i], json_string(kv[i + 1]));
	json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	fflush(f);	/* a shipper tails it: whole lines, now */
	json_decref(o);
}

void vg_oplog_send(struct vg_oplog *l, int priority, const char *message,
		   ...)
{
	const char *kv[2 * MAX_FIELDS];
	int n = 0;
	va_list ap;

	if (!l)
		return;
	va_start(ap, message);
	while (n < 2 * MAX_FIELDS && (kv[n] = va_arg(ap, const char *))) {
		kv[n + 1] = va_arg(ap, const char *);
		if (!kv[n + 1])
			break;
		n += 2;
	}
	va_end(ap);
	if (l->journald)
		send_journal(priority, message, kv, n);
	else
		send_json(l->json, priority, message, kv, n);
}

void vg_oplog_close(struct vg_oplog *l)
{
	if (!l)
		return;
	if (l->own)
		fclose(l->json);
	else if (l->json)
		fflush(l->json);
	free(l);
}

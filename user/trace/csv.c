/* CSV traces in the runtime-verification-competition format. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* One field: trimmed, unquoted into buf. Returns the position after the
 * field's comma (or len), -1 on an unterminated quote. */
static long next_field(const char *line, size_t len, size_t pos, char *buf,
		       size_t buflen, bool *quoted)
{
	size_t n = 0;

	while (pos < len && (line[pos] == ' ' || line[pos] == '\t'))
		pos++;
	*quoted = pos < len && line[pos] == '"';
	if (*quoted) {
		pos++;
		for (;;) {
			if (pos >= len)
				return -1;
			if (line[pos] == '"') {
				if (pos + 1 < len && line[pos + 1] == '"') {
					pos++;	/* "" is a quote */
				} else {
					pos++;
					break;
				}
			}
			if (n + 1 < buflen)
				buf[n++] = line[pos];
			pos++;
		}
		while (pos < len && line[pos] != ',')
			pos++;
	} else {
		while (pos < len && line[pos] != ',') {
			if (n + 1 < buflen)
				buf[n++] = line[pos];
			pos++;
		}
		while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' ||
			     buf[n - 1] == '\r'))
			n--;
	}
	buf[n] = 0;
	return pos < len ? (long)pos + 1 : (long)len;
}

/* Integers as the competition writes them; anything else is a string. */
static bool parse_int(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	if (*s == '-')
		*v = (uint64_t)strtoll(s, &end, 0);
	else
		*v = strtoull(s, &end, 0);
	return !*end && !errno;
}

/* A timestamp: digits and a unit (ns, us, ms, s), none meaning ns.
 * 0 when it is one. */
static int parse_time(const char *s, uint64_t *v)
{
	static const struct {
		const char *u;
		uint64_t mult;
	} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1000 },
		      { "ms", 1000000 }, { "s", 1000000000 } };
	char *end;

	if (!(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u)) {
			if (*v > UINT64_MAX / units[i].mult)
				return -1;
			*v *= units[i].mult;
			return 0;
		}
	return -1;
}

int vg_csv_parse_line(struct vg_spec *spec, const char *line, size_t len,
		      uint64_t lineno, struct vg_mon_event *ev,
		      struct vg_err *e)
{
	char buf[4096];
	bool quoted;
	long pos;
	int event, field = 0;
	const struct vg_event *def;
	uint64_t when = 0;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (len == 0)
		return 0;
	pos = next_field(line, len, 0, buf, sizeof(buf), &quoted);
	if (pos < 0)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%llu: unterminated quote in the event name",
				    (unsigned long long)lineno);
	if (buf[0] == '@' && !quoted) {
		/* @TIME,name,...: the event's time (docs/reference/offline.md) */
		if (parse_time(buf + 1, &when))
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%llu: bad timestamp '%.40s', expected @NUMBER with a unit (ns, us, ms, s; none is ns), as in @1500ms,name,...",
					    (unsigned long long)lineno, buf);
		pos = next_field(line, len, (size_t)pos, buf, sizeof(buf),
				 &quoted);
		if (pos < 0)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%llu: unterminated quote in the event name",
					    (unsigned long long)lineno);
	}
	if (!buf[0])
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%llu: empty event name, expected name,value,...",
				    (unsigned long long)lineno);
	event = vg_spec_find_event(spec, VG_EV_NAMED, buf);
	if (event < 0)
		return 0;
	def = &spec->events[event];
	memset(ev, 0, sizeof(*ev));
	ev->event = event;
	ev->time_ns = when;
	while ((size_t)pos < len) {
		uint64_t v;

		if (field == VG_MAX_FIELDS)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%llu: event %s has more than %d fields",
					    (unsigned long long)lineno,
					    def->name, VG_MAX_FIELDS);
		pos = next_field(line, len, pos, buf, sizeof(buf), &quoted);
		if (pos < 0)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%llu: unterminated quote in field %d",
					    (unsigned long long)lineno,
					    field + 1);
		if (!quoted && parse_int(buf, &v))
			ev->slot[field] = v;
		else
			ev->slot[field] = vg_spec_intern(spec, buf);
		field++;
	}
	if (field < def->nfields)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%llu: event %s has %d field%s, the spec uses %d",
				    (unsigned long long)lineno, def->name,
				    field, field == 1 ? "" : "s",
				    def->nfields);
	return 1;
}

/* vigil's recorded traces, and reading any trace back.
 *
 * A recording is compact because a busy target produces millions of
 * events: after the header, each event is a run of LEB128 varints
 *   event index, tid, time delta from the previous event (ns),
 *   then its fields (zigzag-encoded) and the return value if it has one,
 * so a typical call costs 8 to 20 bytes instead of a 96-byte record.
 *
 * Header: "VIGILREC", u32 version, u32 pid, u32 number of events, then per
 * event u8 kind, u8 nfields, u8 uses_ret, u8 ncaps, u16 name length, name,
 * and per capture (a value read from memory, `q->count`) u16 length and
 * its key "SRC:PATH" ("0:count"; "SRC:str:PATH" for a C string, str(p) is
 * "0:str:"; "::PATH" for a global, "::str:PATH" for its string); the captured values follow the return value in each record, a
 * string as its length and its bytes. (Version 2 had no strings; it reads
 * the same.) Events are matched to the reading spec by kind and
 * name, captures by key, so a recording can be checked against any spec
 * that uses some of its events. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "util/json.h"
#include "util/lines.h"

/* how a capture is named in the header */
static void cap_key(const struct vg_capture *c, char *buf, size_t len)
{
	if (c->src == VG_CAP_GLOBAL)	/* "::str:name" */
		snprintf(buf, len, "::%s%s", c->is_str ? "str:" : "",
			 c->path);
	else
		snprintf(buf, len, "%d:%s%s", c->src, c->is_str ? "str:" : "",
			 c->path);
}

struct vg_recorder {
	FILE *f;
	const struct vg_spec *spec;
	uint64_t last_time;
};

static void put_varint(FILE *f, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		fputc(b | (v ? 0x80 : 0), f);
	} while (v);
}

static int get_varint(FILE *f, uint64_t *v)
{
	uint64_t r = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		int c = fgetc(f);

		if (c == EOF)
			return shift ? -1 : 0;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			return 1;
		}
	}
	return -1;
}

static uint64_t zigzag(uint64_t v)
{
	return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ -(v & 1);
}

struct vg_recorder *vg_recorder_open(const struct vg_spec *spec,
				     const char *path, uint32_t pid,
				     struct vg_err *e)
{
	struct vg_recorder *r = calloc(1, sizeof(*r));
	uint32_t hdr[3] = { VG_REC_VERSION, pid, spec->nevents };

	if (!r) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	r->spec = spec;
	r->f = vg_json_open(path, e);	/* private file, like every output */
	if (!r->f) {
		free(r);
		return NULL;
	}
	fwrite(VG_REC_MAGIC, 1, 8, r->f);
	fwrite(hdr, sizeof(hdr), 1, r->f);
	for (int i = 0; i < spec->nevents; i++) {
		const struct vg_event *ev = &spec->events[i];
		uint16_t n = strlen(ev->name);
		uint8_t b[4] = { ev->kind, ev->nfields, ev->uses_ret ||
							ev->kind == VG_EV_AFTER,
				 (uint8_t)ev->ncaps };

		fwrite(b, 4, 1, r->f);
		fwrite(&n, 2, 1, r->f);
		fwrite(ev->name, 1, n, r->f);
		for (int k = 0; k < ev->ncaps; k++) {
			char key[128];
			uint16_t kn;

			cap_key(&ev->caps[k], key, sizeof(key));
			kn = (uint16_t)strlen(key);
			fwrite(&kn, 2, 1, r->f);
			fwrite(key, 1, kn, r->f);
		}
	}
	return r;
}

int vg_recorder_write(struct vg_recorder *r, const struct vg_mon_event *ev)
{
	const struct vg_event *def = &r->spec->events[ev->event];

	put_varint(r->f, ev->event);
	put_varint(r->f, ev->tid);
	put_varint(r->f, ev->time_ns - r->last_time);
	r->last_time = ev->time_ns;
	for (int i = 0; i < def->nfields; i++)
		put_varint(r->f, zigzag(ev->slot[i]));
	if (def->uses_ret || def->kind == VG_EV_AFTER)
		put_varint(r->f, zigzag(ev->slot[VG_SLOT_RET]));
	for (int k = 0; k < def->ncaps; k++) {
		const char *str;

		if (!def->caps[k].is_str) {
			put_varint(r->f, zigzag(ev->slot[VG_SLOT_CAP0 + k]));
			continue;
		}
		str = vg_spec_string(r->spec, ev->slot[VG_SLOT_CAP0 + k]);
		str = str ? str : "";
		put_varint(r->f, strlen(str));
		fputs(str, r->f);
	}
	return ferror(r->f) ? -1 : 0;
}

int vg_recorder_close(struct vg_recorder *r, struct vg_err *e)
{
	int rc = 0;

	if (!r)
		return 0;
	if (ferror(r->f) | fclose(r->f))
		rc = vg_errf(e, "writing the recording: %s", strerror(errno));
	free(r);
	return rc;
}

/* --- reading ------------------------------------------------------------ */

struct rec_event {
	int spec_event;		/* -1: the spec does not use it */
	uint8_t nfields, has_ret, ncaps;
	/* recorded capture k is the spec event's capture cap_to[k], or
	 * -1 when the spec does not read it */
	int8_t cap_to[VG_MAX_CAPS];
	bool cap_str[VG_MAX_CAPS];	/* recorded capture k is a string */
};

struct vg_trace {
	struct vg_spec *spec;
	FILE *f;
	const char *path;
	bool binary;
	uint64_t lineno, skipped, seq, time;
	/* a CSV trace's first line that named no event of the spec */
	uint64_t first_skip;
	char first_skip_text[64];
	/* binary */
	uint32_t pid, nrec;
	struct rec_event *rec;
	/* csv */
	char *line;
	size_t cap;
	uint64_t offset;	/* of the line being read */
};


/* Which recorded capture feeds each of the spec event's: by key, since
 * two specs may read the same memory in another order. A capture the spec
 * needs and the recording lacks is an error (its value would read 0). */
static int match_captures(struct vg_trace *t, struct rec_event *re,
			  char (*keys)[128], struct vg_err *e)
{
	const struct vg_event *ev = &t->spec->events[re->spec_event];

	for (int k = 0; k < re->ncaps; k++)
		re->cap_to[k] = -1;
	for (int j = 0; j < ev->ncaps; j++) {
		char key[128];
		int found = -1;

		cap_key(&ev->caps[j], key, sizeof(key));
		for (int k = 0; k < re->ncaps; k++)
			if (!strcmp(keys[k], key))
				found = k;
		if (found < 0)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%d:%d: '%s' was not read from memory in %s (a recording holds what its own spec read)",
					    ev->caps[j].loc.file,
					    ev->caps[j].loc.line,
					    ev->caps[j].loc.col,
					    ev->caps[j].text, t->path);
		re->cap_to[found] = (int8_t)j;
	}
	return 0;
}

static int read_header(struct vg_trace *t, struct vg_err *e)
{
	uint32_t hdr[3];

	if (fread(hdr, sizeof(hdr), 1, t->f) != 1)
		return vg_errf_code(e, VG_EXIT_USAGE, "%s: truncated header",
				    t->path);
	if (hdr[0] != VG_REC_VERSION && hdr[0] != 2)
		return vg_errf_code(e, VG_EXIT_USAGE,
				    "%s: recording version %u, this vigil reads versions 2 and %u",
				    t->path, hdr[0], VG_REC_VERSION);
	t->pid = hdr[1];
	t->nrec = hdr[2];
	if (t->nrec > 65536)
		return vg_errf_code(e, VG_EXIT_USAGE, "%s: corrupt header",
				    t->path);
	t->rec = calloc(t->nrec + 1, sizeof(*t->rec));
	if (!t->rec)
		return vg_errf(e, "out of memory");
	for (uint32_t i = 0; i < t->nrec; i++) {
		struct rec_event *re = &t->rec[i];
		char keys[VG_MAX_CAPS][128];
		uint8_t b[4];
		uint16_t n;
		char name[65536];

		if (fread(b, 4, 1, t->f) != 1 || fread(&n, 2, 1, t->f) != 1 ||
		    fread(name, 1, n, t->f) != n || b[1] > VG_MAX_FIELDS ||
		    b[3] > VG_MAX_CAPS)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s: truncated event table", t->path);
		name[n] = 0;
		for (int k = 0; k < b[3]; k++)
			if (fread(&n, 2, 1, t->f) != 1 || n >= sizeof(keys[k]) ||
			    fread(keys[k], 1, n, t->f) != n)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "%s: truncated event table",
						    t->path);
			else
				keys[k][n] = 0;
		re->spec_event = vg_spec_find_event(t->spec, b[0], name);
		re->nfields = b[1];
		re->has_ret = b[2];
		re->ncaps = b[3];
		for (int k = 0; k < re->ncaps; k++)
			re->cap_str[k] = strstr(keys[k], ":str:") != NULL ||
					 !strncmp(keys[k], "::str:", 6);
		if (re->spec_event >= 0 && match_captures(t, re, keys, e))
			return -1;
	}
	return 0;
}

struct vg_trace *vg_trace_open(struct vg_spec *spec, const char *path,
			       struct vg_err *e)
{
	struct vg_trace *t = calloc(1, sizeof(*t));
	char magic[8];

	if (!t) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	t->spec = spec;
	t->path = path;
	t->f = fopen(path, "rb");
	if (!t->f) {
		vg_errf_code(e, VG_EXIT_USAGE, "cannot read %s: %s", path,
			     strerror(errno));
		free(t);
		return NULL;
	}
	t->binary = fread(magic, 1, 8, t->f) == 8 &&
		    !memcmp(magic, VG_REC_MAGIC, 8);
	if (!t->binary) {
		rewind(t->f);
		/* a CSV trace has fields, not the target's memory */
		for (int i = 0; i < spec->nevents; i++)
			if (spec->events[i].ncaps) {
				const struct vg_capture *c = &spec->events[i].caps[0];

				vg_errf_code(e, VG_EXIT_USAGE,
					     "%s:%d:%d: '%s' reads target memory, which the text trace %s does not have (check a recording of a live run: vigil run --record)",
					     c->loc.file, c->loc.line,
					     c->loc.col, c->text, path);
				vg_trace_close(t);
				return NULL;
			}
	} else if (read_header(t, e)) {
		vg_trace_close(t);
		return NULL;
	}
	return t;
}

void vg_trace_close(struct vg_trace *t)
{
	if (!t)
		return;
	if (t->f)
		fclose(t->f);
	free(t->rec);
	free(t->line);
	free(t);
}

uint64_t vg_trace_skipped(const struct vg_trace *t)
{
	return t->skipped;
}

const char *vg_trace_first_skipped(const struct vg_trace *t,
				   uint64_t *lineno)
{
	*lineno = t->first_skip;
	return t->first_skip ? t->first_skip_text : NULL;
}

bool vg_trace_is_csv(const struct vg_trace *t)
{
	return !t->binary;
}

static int next_binary(struct vg_trace *t, struct vg_mon_event *ev,
		       struct vg_err *e)
{
	for (;;) {
		uint64_t id, tid, dt, v;
		struct rec_event *re;
		int r = get_varint(t->f, &id);

		if (r == 0)
			return 0;
		t->lineno++;
		if (r < 0 || id >= t->nrec || get_varint(t->f, &tid) != 1 ||
		    get_varint(t->f, &dt) != 1)
			goto bad;
		re = &t->rec[id];
		memset(ev, 0, sizeof(*ev));
		for (int i = 0; i < re->nfields; i++) {
			if (get_varint(t->f, &v) != 1)
				goto bad;
			ev->slot[i] = unzigzag(v);
		}
		if (re->has_ret) {
			if (get_varint(t->f, &v) != 1)
				goto bad;
			ev->slot[VG_SLOT_RET] = unzigzag(v);
		}
		for (int k = 0; k < re->ncaps; k++) {
			char str[VG_STR_MAX];

			if (get_varint(t->f, &v) != 1)
				goto bad;
			if (re->cap_str[k]) {	/* length, then the bytes */
				if (v >= sizeof(str) ||
				    fread(str, 1, v, t->f) != v)
					goto bad;
				str[v] = 0;
				v = vg_spec_intern(t->spec, str);
				if (v == UINT64_MAX)
					return vg_errf(e, "out of memory");
			} else {
				v = unzigzag(v);
			}
			if (re->spec_event >= 0 && re->cap_to[k] >= 0)
				ev->slot[VG_SLOT_CAP0 + re->cap_to[k]] = v;
		}
		t->time += dt;
		if (re->spec_event < 0) {
			t->skipped++;
			continue;
		}
		ev->event = re->spec_event;
		ev->tid = tid;
		ev->pid = t->pid;
		ev->time_ns = t->time;
		ev->seq = ++t->seq;
		return 1;
	}
bad:
	return vg_errf_code(e, VG_EXIT_USAGE,
			    "%s: record %llu (near byte %lld) is truncated or corrupt",
			    t->path, (unsigned long long)t->lineno,
			    (long long)ftello(t->f));
}

int vg_trace_next(struct vg_trace *t, struct vg_mon_event *ev,
		  struct vg_err *e)
{
	if (t->binary)
		return next_binary(t, ev, e);
	for (;;) {
		size_t n;
		ssize_t bad;
		int r = vg_read_line(t->f, &t->line, &t->cap, VG_TRACE_LINE_MAX,
				     &n);

		if (r == 0) {
			if (ferror(t->f))
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "%s: read error after line %llu: %s",
						    t->path,
						    (unsigned long long)t->lineno,
						    strerror(errno));
			return 0;
		}
		t->lineno++;
		if (r < 0)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%llu: line longer than %d bytes (from byte %llu): not a CSV trace, expected name,value,... lines or a recording (vigil run --record)",
					    t->path, (unsigned long long)t->lineno,
					    VG_TRACE_LINE_MAX,
					    (unsigned long long)t->offset);
		if ((bad = vg_not_text(t->line, n)) >= 0)
			return vg_errf_code(e, VG_EXIT_USAGE,
					    "%s:%llu:%lld: byte 0x%02x (byte %llu of the file): not a CSV trace, expected name,value,... lines or a recording (vigil run --record)",
					    t->path, (unsigned long long)t->lineno,
					    (long long)bad + 1,
					    (unsigned char)t->line[bad],
					    (unsigned long long)(t->offset + (uint64_t)bad));
		t->offset += n + 1;
		r = vg_csv_parse_line(t->spec, t->line, n, t->lineno, ev, e);
		if (r < 0) {
			char msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%.1024s:%.3000s", t->path,
				 e->msg);
			snprintf(e->msg, sizeof(e->msg), "%s", msg);
			return -1;
		}
		if (r > 0) {
			/* a line without @TIME is at the time of the last
			 * one with it; time never goes back */
			size_t k = 0;

			while (k < (size_t)n && (t->line[k] == ' ' ||
						 t->line[k] == '\t'))
				k++;
			if (k >= (size_t)n || t->line[k] != '@')
				ev->time_ns = t->time;
			else if (ev->time_ns < t->time)
				return vg_errf_code(e, VG_EXIT_USAGE,
						    "%.1024s:%llu: timestamp %llu ns is before the previous line's %llu ns, expected times in order",
						    t->path,
						    (unsigned long long)t->lineno,
						    (unsigned long long)ev->time_ns,
						    (unsigned long long)t->time);
			t->time = ev->time_ns;
		}
		if (r == 0) {
			if (n && !t->skipped++) {
				t->first_skip = t->lineno;
				snprintf(t->first_skip_text,
					 sizeof(t->first_skip_text), "%.*s%s",
					 (int)(n < 48 ? n : 48), t->line,
					 n > 48 ? "..." : "");
			}
			continue;
		}
		ev->seq = ++t->seq;
		return 1;
	}
}

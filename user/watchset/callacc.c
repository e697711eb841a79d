/* Accesses through calls (user/watchset/callacc.h). */
#include "callacc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"
#include "vigil_event.h"

/* An argument that is a pointer to memory the call touches: `len` is the
 * argument holding its size in bytes, or -1 for a string, of which only
 * the first byte is sure to be touched (its length is not an argument). */
struct role {
	int8_t ptr, len;
	bool write;
};

static const struct call {
	const char *name;
	bool sys;		/* a system call: the kernel touches it */
	int nr;
	struct role r[VG_CALLACC_RANGES];
} calls[] = {
	{ "memcpy", false, 2, { { 0, 2, true }, { 1, 2, false } } },
	{ "memmove", false, 2, { { 0, 2, true }, { 1, 2, false } } },
	{ "mempcpy", false, 2, { { 0, 2, true }, { 1, 2, false } } },
	{ "memset", false, 1, { { 0, 2, true } } },
	{ "memcmp", false, 2, { { 0, 2, false }, { 1, 2, false } } },
	{ "memchr", false, 1, { { 0, -1, false } } },
	{ "strlen", false, 1, { { 0, -1, false } } },
	{ "strnlen", false, 1, { { 0, -1, false } } },
	{ "strcpy", false, 2, { { 0, -1, true }, { 1, -1, false } } },
	{ "stpcpy", false, 2, { { 0, -1, true }, { 1, -1, false } } },
	{ "strncpy", false, 2, { { 0, 2, true }, { 1, -1, false } } },
	{ "strcat", false, 2, { { 0, -1, false }, { 1, -1, false } } },
	{ "strncat", false, 2, { { 0, -1, false }, { 1, -1, false } } },
	{ "strcmp", false, 2, { { 0, -1, false }, { 1, -1, false } } },
	{ "strncmp", false, 2, { { 0, -1, false }, { 1, -1, false } } },
	{ "strchr", false, 1, { { 0, -1, false } } },
	{ "strrchr", false, 1, { { 0, -1, false } } },
	{ "strstr", false, 2, { { 0, -1, false }, { 1, -1, false } } },
	{ "strdup", false, 1, { { 0, -1, false } } },
	/* at entry, as memcheck checks them: the whole buffer the call may
	 * fill or send */
	{ "read", true, 1, { { 1, 2, true } } },
	{ "pread64", true, 1, { { 1, 2, true } } },
	{ "recvfrom", true, 1, { { 1, 2, true } } },
	{ "write", true, 1, { { 1, 2, false } } },
	{ "pwrite64", true, 1, { { 1, 2, false } } },
	{ "sendto", true, 1, { { 1, 2, false } } },
};

#define NCALLS (sizeof(calls) / sizeof(calls[0]))

const char *vg_callacc_names(void)
{
	return "memcpy memmove mempcpy memset memcmp memchr strlen strnlen "
	       "strcpy stpcpy strncpy strcat strncat strcmp strncmp strchr "
	       "strrchr strstr strdup, read(2) pread64(2) recvfrom(2) "
	       "write(2) pwrite64(2) sendto(2)";
}

/* Two names glibc implements with one function (memmove is memcpy's on
 * x86-64) would trap twice at one address for the same ranges: keep the
 * first. The implementations are vigil's own libc's, which is the
 * target's (user/sym/ifunc.c). */
static bool same_as_earlier(void *libc, size_t i)
{
	void *me;

	if (calls[i].sys || !libc)
		return false;
	if (!(me = dlsym(libc, calls[i].name)))
		return true;	/* not in this libc: nothing to probe */
	for (size_t j = 0; j < i; j++)
		if (!calls[j].sys && calls[j].nr == calls[i].nr &&
		    !memcmp(calls[j].r, calls[i].r, sizeof(calls[i].r)) &&
		    dlsym(libc, calls[j].name) == me)
			return true;
	return false;
}

static int add_one(struct vg_spec *spec, int served, size_t c,
		   struct vg_err *e)
{
	const struct vg_event *w = &spec->events[served];
	struct vg_event *evs, *ev;
	int nf = 0;

	evs = realloc(spec->events, (size_t)(spec->nevents + 1) * sizeof(*evs));
	if (!evs)
		return vg_errf(e, "out of memory");
	spec->events = evs;
	w = &spec->events[served];
	ev = &spec->events[spec->nevents];
	*ev = (struct vg_event){
		.kind = calls[c].sys ? VG_EV_SYSCALL : VG_EV_BEFORE,
		.loc = w->loc,
		.access_for = served + 1,
		.noutside = w->noutside,
		.outside_mask = w->outside_mask,
	};
	memcpy(ev->outside, w->outside, sizeof(ev->outside));
	ev->nrng = (uint8_t)calls[c].nr;
	for (int k = 0; k < calls[c].nr; k++) {
		const struct role *r = &calls[c].r[k];

		ev->rng_ptr[k] = (uint8_t)r->ptr;
		ev->rng_len[k] = r->len >= 0 ? (uint8_t)r->len : 0xff;

		ev->used |= 1u << r->ptr;
		if (r->ptr + 1 > nf)
			nf = r->ptr + 1;
		if (r->len >= 0) {
			ev->used |= 1u << r->len;
			if (r->len + 1 > nf)
				nf = r->len + 1;
		}
	}
	ev->nfields = nf;
	if (!(ev->name = strdup(calls[c].name)))
		return vg_errf(e, "out of memory");
	spec->nevents++;
	return 0;
}

/* The fault event of a watch (VG_EV_SIGNAL, named "fault"): the lifecycle
 * tracepoint's SIGSEGV or SIGBUS raised by an access, whose slots are
 * VG_FSLOT_* (bpf/vigil/lifecycle.bpf.c). glibc unmaps a large block at
 * free (and trims the heap's top): the program dies natively of the access
 * memcheck, which keeps freed blocks mapped, reports. */
static int add_fault(struct vg_spec *spec, int served, struct vg_err *e)
{
	struct vg_event *evs, *ev;

	evs = realloc(spec->events, (size_t)(spec->nevents + 1) * sizeof(*evs));
	if (!evs)
		return vg_errf(e, "out of memory");
	spec->events = evs;
	ev = &spec->events[spec->nevents];
	*ev = (struct vg_event){
		.kind = VG_EV_SIGNAL,
		.loc = spec->events[served].loc,
		.access_for = served + 1,
		.nfields = VG_FSLOT_N,
		.used = (1u << VG_FSLOT_N) - 1,
	};
	if (!(ev->name = strdup("fault")))
		return vg_errf(e, "out of memory");
	spec->nevents++;
	return 0;
}

bool vg_callacc_is_fault(const struct vg_spec *spec, int event)
{
	const struct vg_event *e = &spec->events[event];

	return e->access_for && e->kind == VG_EV_SIGNAL;
}

int vg_callacc_add(struct vg_spec *spec, struct vg_err *e)
{
	int n = spec->nevents, rc = 0;
	/* the C library's own names (not a sanitizer's interceptors) */
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	for (int i = 0; i < n; i++) {
		const struct vg_event *w = &spec->events[i];
		enum vg_event_kind k = w->kind;

		if (!vg_event_watches(w) || !w->wloc.per_slice ||
		    k == VG_EV_CHANGE || w->access_for)
			continue;
		/* the probes' event table has room for so many: without the
		 * calls, the registers still watch */
		if (spec->nevents + (int)NCALLS + 1 > VG_MAX_EVENTS) {
			fprintf(stderr, "vigil: %s: no room for the %zu events that watch calls into its memory (memcpy, read...: the spec has %d events, at most %d): only debug registers watch it\n",
				w->name, NCALLS, spec->nevents, VG_MAX_EVENTS);
			continue;
		}
		/* (add_one moves spec->events: w is not read past here) */
		for (size_t c = 0; c < NCALLS && !rc; c++) {
			if (same_as_earlier(libc, c))
				continue;
			/* a write watch cares for no read, and back */
			if ((k == VG_EV_WRITE && calls[c].nr == 1 &&
			     !calls[c].r[0].write) ||
			    (k == VG_EV_READ && calls[c].nr == 1 &&
			     calls[c].r[0].write))
				continue;
			rc = add_one(spec, i, c, e);
		}
		if (!rc)
			rc = add_fault(spec, i, e);
	}
	if (libc)
		dlclose(libc);
	return rc;
}

static const struct call *call_of(const struct vg_event *ev)
{
	for (size_t c = 0; c < NCALLS; c++)
		if (calls[c].sys == (ev->kind == VG_EV_SYSCALL) &&
		    !strcmp(calls[c].name, ev->name))
			return &calls[c];
	return NULL;
}

int vg_callacc_ranges(const struct vg_spec *spec,
		      const struct vg_mon_event *ev,
		      struct vg_callacc_range *out)
{
	const struct vg_event *e = &spec->events[ev->event];
	const struct call *c = call_of(e);
	int n = 0;

	if (vg_callacc_is_fault(spec, ev->event)) {
		if (!ev->slot[VG_FSLOT_ADDR])
			return 0;
		out[0] = (struct vg_callacc_range){
			ev->slot[VG_FSLOT_ADDR], 1, ev->slot[VG_FSLOT_WRITE] != 0 };
		return 1;
	}
	if (!c || !e->access_for)
		return 0;
	for (int k = 0; k < c->nr; k++) {
		const struct role *r = &c->r[k];
		uint64_t a = ev->slot[r->ptr];
		uint64_t len = r->len >= 0 ? ev->slot[r->len] : 1;

		if (!a || !len)
			continue;	/* touches nothing */
		if (len > UINT64_MAX - a)
			len = UINT64_MAX - a;
		out[n++] = (struct vg_callacc_range){ a, len, r->write };
	}
	return n;
}

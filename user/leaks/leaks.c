/* The leak check of a run (leaks.h): the blocks from the target's
 * monitor, their allocation stacks from its evidence ring, the target
 * stopped (or found stopped) for the scan, the classes from
 * user/leakscan/, the loss records to stderr and --json. The run is read
 * through vg_run_* and vg_leaks_host_*. */
#include "leaks.h"
#include "leaks_internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/feature.h"
#include "leakscan/delta.h"
#include "leakscan/libc_own.h"
#include "leakscan/records.h"
#include "leakscan/roots.h"
#include "leakscan/scan.h"
#include "leakscan/suppress.h"
#include "monitor/monitor.h"
#include "probe/probe.h"
#include "proc/proc.h"
#include "report/evidence.h"
#include "report/report.h"
#include "sym/symbolize.h"
#include "util/clock.h"

#define STOP_WAIT_MS 2000	/* for every thread to take a SIGSTOP */


struct vg_leaks *vg_leaks_new(struct vg_run *run,
			      const struct vg_leaks_opts *o, struct vg_err *e)
{
	const struct vg_spec *spec = vg_run_spec(run);
	struct vg_leaks *l = calloc(1, sizeof(*l));

	if (!l) {
		vg_errf(e, "out of memory");
		return NULL;
	}
	l->run = run;
	l->o = *o;
	l->show = o->show ? o->show
			  : 1u << VG_LEAK_DEFINITE | 1u << VG_LEAK_POSSIBLE;
	/* memcheck's errors are definite and possible; indirectly lost
	 * blocks are lost too (LeakSanitizer reports them) */
	l->verdicts = vg_leak_verdicts_new(spec,
					   o->errors ? o->errors
					   : 1u << VG_LEAK_DEFINITE |
					     1u << VG_LEAK_INDIRECT |
					     1u << VG_LEAK_POSSIBLE);
	if (!l->verdicts)
		goto oom;
	for (int k = 0; k < VG_LEAK_NHOLDS; k++)
		l->hold_event[k] = -1;
	l->exit_event = -1;
	l->creq_event = -1;
	if (!(l->delta = vg_leak_delta_new()))
		goto oom;
	for (int i = 0; o->leak_check && i < spec->nprops; i++) {
		const struct vg_property *p = &spec->props[i];

		if (strcmp(p->name, VG_LEAK_HOLD_PROP))
			continue;
		for (int b = 0; b < p->nbindings; b++) {
			int ev = p->bindings[b].event;

			enum vg_leak_hold k =
				vg_leak_hold_kind(spec->events[ev].name);

			if (k)
				l->hold_event[k - 1] = ev;
			else if (spec->events[ev].client_request)
				l->creq_event = ev;
			else
				l->exit_event = ev;
		}
	}
	if (o->suppressions &&
	    (!(l->supp = vg_leak_supp_new()) ||
	     vg_leak_supp_load(l->supp, o->suppressions, e))) {
		if (l->supp)	/* e says what is wrong with the file */
			goto fail;
		goto oom;
	}
	return l;
oom:
	vg_errf(e, "out of memory");
fail:
	vg_leaks_free(l);
	return NULL;
}

void vg_leaks_free(struct vg_leaks *l)
{
	if (!l)
		return;
	vg_leak_supp_free(l->supp);
	vg_leak_verdicts_free(l->verdicts);
	vg_leak_delta_free(l->delta);
	free(l);
}

void vg_leaks_note(struct vg_leaks *l, const struct vg_mon_event *ev)
{
	pid_t pid;

	if (!l)
		return;
	pid = vg_run_pid(l->run);
	vg_leaks_creq_note(l, ev);
	if (ev->event == l->exit_event && ev->pid == (uint32_t)pid) {
		l->exit_caller_tid = (pid_t)ev->tid;
		l->exit_caller = ev->slot[VG_SLOT_CALLER];
	}
	for (int k = 0; k < VG_LEAK_NHOLDS; k++) {
		int sig = k ? vg_leak_hold_signal(k + 1, pid, ev->slot) : 0;

		if (ev->event != l->hold_event[k] ||
		    ev->pid != (uint32_t)pid || (k && !sig))
			continue;
		l->at_exit = true;
		l->at_signal = sig;
		l->at_kind = k + 1;
		l->exit_tid = (pid_t)ev->tid;
	}
}

/* ---- the blocks */

struct blocks {
	const struct vg_spec *spec;
	int *size_var;			/* [nprops], -1: not a block prop */
	struct vg_leak_block *v;
	size_t n, cap;
	bool oom;
};

static void take_block(void *ctx, const struct vg_slice_view *s)
{
	struct blocks *b = ctx;
	const struct vg_property *p = &b->spec->props[s->prop];

	if (b->size_var[s->prop] < 0 || !(s->mask & 1) ||
	    p->states[s->state].kind != VG_STATE_NONACCEPTING || !s->params[0])
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct vg_leak_block *v = realloc(b->v, cap * sizeof(*v));

		if (!v) {
			b->oom = true;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	memset(&b->v[b->n], 0, sizeof(b->v[0]));
	b->v[b->n].addr = s->params[0];
	b->v[b->n].size = s->vars ? (uint64_t)s->vars[b->size_var[s->prop]] : 0;
	if (b->v[b->n].size > (1ull << 40))	/* not a size malloc gave */
		b->v[b->n].size = 0;
	b->v[b->n].tag = -1;
	b->n++;
}

/* ---- their allocation stacks */

struct alloc {
	uint64_t addr;
	size_t order;			/* newest first */
	int event;
	int64_t stack;
};

struct allocs {
	const struct blocks *b;
	struct alloc *v;
	size_t n, cap;
};

static void take_alloc(void *ctx, int prop, uint32_t mask,
		       const uint64_t *params, int from, int to,
		       const struct vg_mon_event *ev)
{
	struct allocs *a = ctx;
	const struct vg_property *p = &a->b->spec->props[prop];

	(void)from;
	if (a->b->size_var[prop] < 0 || !(mask & 1) ||
	    p->states[to].kind != VG_STATE_NONACCEPTING)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		struct alloc *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n] = (struct alloc){ params[0], a->n, ev->event,
				     (int64_t)ev->slot[VG_SLOT_STACK] };
	a->n++;
}

static int by_addr_order(const void *x, const void *y)
{
	const struct alloc *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* one per distinct (allocating event, stack) */
struct stacks {
	struct {
		int event;
		int64_t id;
	} *key;
	struct vg_leak_stack *v;
	struct vg_leak_frame *frames;	/* [n][VG_STACK_DEPTH + 1] */
	struct vg_frame *sym;		/* the strings frames point into */
	char (*text)[320];
	const char **textp;
	int n;
	int *slot;			/* hash of keys: index + 1, 0 empty */
	size_t nslot;			/* a power of two, > 2 * cap */
};

static void stacks_free(struct stacks *st)
{
	free(st->key);
	free(st->v);
	free(st->frames);
	free(st->sym);
	free(st->text);
	free(st->textp);
	free(st->slot);
}

static size_t key_hash(int event, int64_t id, size_t nslot)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull ^ (uint64_t)event;

	return (size_t)(h ^ h >> 29) & (nslot - 1);
}

/* the index of (event, stack id), added if new; -1 out of memory */
static int stack_index(struct stacks *st, int event, int64_t id)
{
	size_t h;

	if ((size_t)st->n * 2 + 2 > st->nslot) {	/* grow and rehash */
		size_t nslot = st->nslot ? st->nslot * 2 : 256;
		int *slot = calloc(nslot, sizeof(*slot));
		void *k = realloc(st->key, nslot / 2 * sizeof(*st->key));

		if (!slot || !k) {
			free(slot);
			if (k)
				st->key = k;
			return -1;
		}
		st->key = k;
		for (int i = 0; i < st->n; i++) {
			h = key_hash(st->key[i].event, st->key[i].id, nslot);
			while (slot[h])
				h = (h + 1) & (nslot - 1);
			slot[h] = i + 1;
		}
		free(st->slot);
		st->slot = slot;
		st->nslot = nslot;
	}
	for (h = key_hash(event, id, st->nslot); st->slot[h];
	     h = (h + 1) & (st->nslot - 1)) {
		int i = st->slot[h] - 1;

		if (st->key[i].event == event && st->key[i].id == id)
			return i;
	}
	st->key[st->n].event = event;
	st->key[st->n].id = id;
	st->slot[h] = st->n + 1;
	return st->n++;
}

/* Symbolize each stack once; the allocator itself first, as memcheck's
 * stacks start with malloc */
static int stacks_symbolize(struct vg_leaks *l, struct stacks *st)
{
	const struct vg_spec *spec = vg_run_spec(l->run);
	struct vg_probe *probe = vg_run_probe(l->run);
	struct vg_symbolizer *sym;
	const int per = VG_STACK_DEPTH + 1;
	size_t all = (size_t)(st->n ? st->n : 1) * per;

	st->v = calloc((size_t)st->n + 1, sizeof(*st->v));
	st->frames = calloc(all, sizeof(*st->frames));
	st->sym = calloc(all, sizeof(*st->sym));
	st->text = calloc(all, sizeof(*st->text));
	st->textp = calloc(all, sizeof(*st->textp));
	if (!st->v || !st->frames || !st->sym || !st->text || !st->textp)
		return -1;
	for (int i = 0; i < st->n; i++) {
		struct vg_stack_frame fr[VG_STACK_DEPTH];
		size_t base = (size_t)i * per;
		int n = 0, got = 0;
		struct vg_frame *f = &st->sym[base];

		snprintf(f->func, sizeof(f->func), "%s",
			 spec->events[st->key[i].event].name);
		snprintf(st->text[base], sizeof(st->text[0]), "%s", f->func);
		n = 1;
		if (vg_leaks_host_stack_on(l->run, st->key[i].event) && probe)
			got = vg_probe_stack(probe, st->key[i].id, fr,
					     VG_STACK_DEPTH);
		/* the symbolizer is made at first use: not for no frame */
		sym = got ? vg_leaks_host_symbolizer(l->run) : NULL;
		for (int k = 0; k < got && n < per; k++, n++) {
			f = &st->sym[base + (size_t)n];
			if (fr[k].has_build_id)
				vg_symbolize_file(sym, fr[k].build_id,
						  fr[k].offset, true, f);
			else
				vg_symbolize(sym, fr[k].offset, true, f);
			vg_frame_format(f, st->text[base + (size_t)n],
					sizeof(st->text[0]));
		}
		for (int k = 0; k < n; k++) {
			f = &st->sym[base + (size_t)k];
			st->frames[base + (size_t)k] = (struct vg_leak_frame){
				f->func, f->file, f->line, f->obj };
			st->textp[base + (size_t)k] = st->text[base + (size_t)k];
		}
		/* no stack captured: the allocator alone says little */
		st->v[i].n = got ? n : 0;
		st->v[i].frames = &st->frames[base];
		st->v[i].text = &st->textp[base];
	}
	return 0;
}

/* ---- the C library's own blocks (leakscan/libc_own.h) */

struct own {
	struct vg_leak_block *kept;	/* the others, for the records */
	size_t nkept;
	uint64_t blocks, bytes;		/* left out */
};

/* Leave the C library's own blocks out of the records; keep every
 * block's class for the verdicts when asked (l->keep_classes) */
static int libc_own_out(struct vg_leaks *l, const struct blocks *b,
			const struct stacks *st, struct own *o)
{
	bool *libc = calloc(b->n + 1, sizeof(bool));
	int rc = 0;

	o->kept = calloc(b->n + 1, sizeof(*o->kept));
	if (!o->kept || !libc) {
		free(libc);
		return -1;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct vg_leak_block *k = &b->v[i];
		const struct vg_leak_stack *s =
			k->tag >= 0 && k->tag < st->n ? &st->v[k->tag] : NULL;

		/* frames[0] is the allocator's own: its callers decide */
		libc[i] = s && s->n > 1 &&
			  vg_leak_libc_own(s->frames + 1, s->n - 1, k->kind);
		if (libc[i]) {
			o->blocks++;
			o->bytes += k->size;
		} else {
			o->kept[o->nkept++] = *k;
		}
	}
	if (l->keep_classes)
		rc = vg_leak_verdicts_set(l->verdicts, b->v, libc, b->n);
	free(libc);
	return rc;
}

/* ---- the target stopped for the scan */

static bool all_stopped(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	bool ok = true;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(d = opendir(path)))
		return false;
	while (ok && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		char st = tid > 0 ? vg_proc_state(tid) : 'T';

		ok = st == 'T' || st == 't' || st == 0;
	}
	closedir(d);
	return ok;
}

bool vg_leaks_wait_stopped(pid_t pid)
{
	uint64_t end = vg_now_ns(CLOCK_MONOTONIC) + STOP_WAIT_MS * 1000000ull;
	struct timespec nap = { 0, 100000 };

	while (!all_stopped(pid)) {
		if (vg_now_ns(CLOCK_MONOTONIC) > end)
			return false;
		nanosleep(&nap, NULL);
	}
	return true;
}

/* ---- the check */

int vg_leaks_check(struct vg_leaks *l, const char *when, FILE *text,
		   FILE *json, const uint64_t *regs, size_t nregs,
		   struct vg_err *e)
{
	const struct vg_spec *spec = vg_run_spec(l->run);
	struct vg_probe *probe = vg_run_probe(l->run);
	pid_t pid = vg_run_pid(l->run);
	struct vg_monitor *mon = NULL;
	struct blocks b = { .spec = spec };
	struct allocs a = { .b = &b };
	struct stacks st = { 0 };
	struct vg_leak_roots_info info = { 0 };
	struct vg_leak_report rep = { 0 };
	struct vg_leak_scan *scan = NULL;
	uint8_t *data = NULL;
	bool stopped_here = false, any = false, incomplete;
	uint64_t t0 = vg_now_ns(CLOCK_MONOTONIC);
	struct vg_leak_call call = { 0 };
	struct own own = { 0 };
	char n1[32], n2[32];
	int rc = -1;

	/* held at _exit: that thread is at a call, and below the frame of
	 * exit's caller are only exit's own frames, where the slots it has
	 * not written yet still hold its caller's dead data (the copies of
	 * return values the kernel's uretprobe trampoline pushed, too) */
	if (l->at_exit) {
		call.tid = l->exit_tid;
		if (l->exit_caller_tid == call.tid && !l->at_signal)
			call.ret = l->exit_caller;
	}

	b.size_var = calloc((size_t)spec->nprops + 1, sizeof(int));
	if (!b.size_var)
		return vg_errf(e, "out of memory");
	for (int i = 0; i < spec->nprops; i++) {
		b.size_var[i] = -1;
		any |= vg_leak_block_prop(&spec->props[i], &b.size_var[i]);
	}
	if (!any) {
		vg_errf_code(e, VG_EXIT_USAGE, "no leak property in the spec: the leak check needs specs/lib/leak.vigil");
		goto out;
	}
	vg_run_sync_kernel(l->run);
	/* the target's monitor: the first of the run's (followed
	 * processes' blocks are not in its memory) */
	vg_run_monitors(l->run, &mon, 1);
	vg_monitor_foreach(mon, take_block, &b);
	/* blocks the monitor lost track of (--max-slices, the kernel tier's
	 * table full, lost records) are not scanned: what only they point
	 * to looks lost */
	incomplete = probe && vg_probe_counter(probe, VG_CNT_KFULL) > 0;
	for (int i = 0; i < spec->nprops; i++)
		incomplete |= b.size_var[i] >= 0 &&
			      vg_monitor_prop_inconclusive(mon, i);
	if (b.oom) {
		vg_errf(e, "out of memory");
		goto out;
	}
	if (!all_stopped(pid)) {
		if (kill(pid, SIGSTOP)) {
			vg_errf(e, "leak check: pid %d is gone", pid);
			goto out;
		}
		stopped_here = true;
		if (!vg_leaks_wait_stopped(pid)) {
			vg_errf(e, "leak check: pid %d did not stop within %d ms",
				pid, STOP_WAIT_MS);
			goto out;
		}
	}
	if (vg_leak_read_blocks(pid, b.v, b.n, &data, &info, e) ||
	    !(scan = vg_leak_scan_new(b.v, b.n)) ||
	    (vg_leak_scan_glibc_chunks(scan, 1), false) ||
	    (getenv("VIGIL_LEAK_TRACE") &&
	     (vg_leak_scan_trace(scan, stderr), false)) ||
	    vg_leak_scan_roots(pid, scan, b.v, b.n, &call, &info, e)) {
		if (!scan && !e->msg[0])
			vg_errf(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nregs; i++)	/* gdb's registers */
		vg_leak_scan_root_word(scan, regs[i]);
	if (stopped_here) {	/* the scan has read all it needs */
		kill(pid, SIGCONT);
		stopped_here = false;
	}
	vg_leak_scan_finish(scan);
	b.n = vg_leak_scan_count(scan);	/* overlaps dropped */

	/* each block's allocation: the newest step into a live state */
	vg_evidence_foreach(vg_run_evidence(l->run, (uint32_t)pid), take_alloc,
			    &a);
	qsort(a.v, a.n, sizeof(*a.v), by_addr_order);
	for (size_t i = 0, j = 0; i < b.n; i++) {
		while (j < a.n && a.v[j].addr < b.v[i].addr)
			j++;
		if (j < a.n && a.v[j].addr == b.v[i].addr)
			b.v[i].tag = stack_index(&st, a.v[j].event,
						 a.v[j].stack);
	}
	if (stacks_symbolize(l, &st) || libc_own_out(l, &b, &st, &own) ||
	    vg_leak_records(own.kept, own.nkept, st.v, st.n, l->supp, &rep) ||
	    vg_leak_delta_apply(l->delta, &rep, st.v, st.n, l->delta_mode)) {
		vg_errf(e, "out of memory");
		goto out;
	}
	rep.summary_only = l->summary_only;
	memcpy(l->sum_bytes, rep.bytes, sizeof(rep.bytes));
	memcpy(l->sum_blocks, rep.blocks, sizeof(rep.blocks));
	l->sum_bytes[VG_LEAK_NKINDS] = rep.supp_bytes;
	l->sum_blocks[VG_LEAK_NKINDS] = rep.supp_blocks;
	if (text) {
		fprintf(text, "vigil: leak check of pid %d (%s): %zu blocks live; roots: %d threads' stacks (%d with registers), %d mappings, %" PRIu64 " bytes read",
			pid, when, b.n, info.threads, info.threads_regs,
			info.regions, info.root_bytes);
		if (info.threads_regs < info.threads && nregs)
			fprintf(text, "; the registers of %d threads from gdb",
				info.threads - info.threads_regs);
		else if (info.threads_regs < info.threads)
			fprintf(text, "; registers missing: another tracer (gdb) holds %d threads",
				info.threads - info.threads_regs);
		if (info.blocks_unread)
			fprintf(text, "; %" PRIu64 " blocks could not be read (freed where vigil did not see it?)",
				info.blocks_unread);
		fprintf(text, "; %.1f ms\n",
			(double)(vg_now_ns(CLOCK_MONOTONIC) - t0) / 1e6);
		if (incomplete)
			fprintf(text, "vigil: the leak property lost track of some blocks (slice table full: raise --max-slices; or records lost): blocks reachable only through them are counted as lost\n");
		fputc('\n', text);
		vg_leak_report_text(&rep, st.v, l->supp,
				    l->show, text);
		if (own.blocks)
			fprintf(text, "The C library's own (left out): %s bytes in %s blocks\n",
				vg_leak_commas(own.bytes, n1, sizeof(n1)),
				vg_leak_commas(own.blocks, n2, sizeof(n2)));
		fflush(text);
	}
	if (json) {
		fprintf(json, "{\"type\":\"leaks\",\"pid\":%d,\"when\":\"%s\",",
			pid, when);
		if (l->request)	/* a client request's check */
			fprintf(json, "\"request\":\"%s\",",
				l->request);
		fprintf(json, "\"complete\":%s,\"blocks\":%zu,\"roots\":{\"threads\":%d,\"threads_with_registers\":%d,\"mappings\":%d,\"bytes\":%" PRIu64 "},",
			incomplete ? "false" : "true", b.n,
			info.threads, info.threads_regs, info.regions,
			info.root_bytes);
		fprintf(json, "\"libc_own\":{\"blocks\":%" PRIu64 ",\"bytes\":%" PRIu64 "},",
			own.blocks, own.bytes);
		vg_leak_report_json(&rep, st.v, l->supp, json);
		fputs("}\n", json);
		fflush(json);
	}
	rc = 0;
out:
	if (stopped_here)
		kill(pid, SIGCONT);
	vg_leak_report_free(&rep);
	vg_leak_scan_free(scan);
	free(data);
	free(b.v);
	free(b.size_var);
	free(a.v);
	free(own.kept);
	stacks_free(&st);
	return rc;
}

/* Is another process (gdb) tracing pid? */
bool vg_leaks_traced(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	bool yes = false;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10)) {
			yes = atoi(line + 10) != 0;
			break;
		}
	fclose(f);
	return yes;
}

bool vg_leaks_ran_at_end(const struct vg_leaks *l)
{
	return l && l->done_at_exit;
}

void vg_leaks_at_exit(struct vg_leaks *l)
{
	struct vg_err e = { 0 };
	char when[48] = "at exit";
	struct vg_report *report;
	pid_t pid;
	int sig;

	if (!l || !l->at_exit || l->done_at_exit)
		return;
	pid = vg_run_pid(l->run);
	/* a signal it raises on itself: checked when it will kill it (a
	 * handler, SIG_IGN, a blocked signal: it goes on, the hold is let go) */
	sig = l->at_signal;
	if (sig && !vg_leak_signal_kills(l->at_kind, pid, l->exit_tid, sig)) {
		l->at_exit = false;
		l->at_signal = 0;
		return;
	}
	if (l->at_kind == VG_LEAK_HOLD_ABORT)
		snprintf(when, sizeof(when), "at abort");
	else if (l->at_kind == VG_LEAK_HOLD_ASSERT)
		snprintf(when, sizeof(when), "at a failed assert");
	else if (sig)
		snprintf(when, sizeof(when), "at SIG%s",
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	l->done_at_exit = true;
	/* gdb takes the hold's SIGSTOP (vigil's holds pass silently) and its
	 * other threads run on: no stop of the whole program to scan */
	if (vg_leaks_traced(pid)) {
		fprintf(stderr, "vigil: leak check at exit: gdb holds pid %d, so it cannot be stopped whole here; run `vigil leaks` in gdb before it exits (`break _exit`)\n",
			pid);
		goto out;
	}
	/* the SIGSTOP of the hold reaches every thread */
	if (!vg_leaks_wait_stopped(pid)) {
		fprintf(stderr, "vigil: leak check at exit: pid %d did not stop; no leak report\n",
			pid);
		goto out;
	}
	/* its classes make the leak property's verdicts at the end */
	report = vg_run_report(l->run);
	l->keep_classes = true;
	if (vg_leaks_check(l, when, stderr, vg_report_json_file(report), NULL,
			   0, &e))
		fprintf(stderr, "vigil: leak check at exit: %s\n", e.msg);
	l->keep_classes = false;
	if (vg_leak_verdicts_any(l->verdicts))
		vg_report_set_leak_classer(report, vg_leak_verdict_of,
					   l->verdicts);
out:
	l->at_exit = false;	/* until the next hold */
}

void vg_leaks_on_demand(struct vg_leaks *l)
{
	const struct vg_spec *spec;
	struct vg_err e = { 0 };
	int v;
	bool any = false;

	if (!l)
		return;
	spec = vg_run_spec(l->run);
	for (int i = 0; i < spec->nprops && !any; i++)
		any = vg_leak_block_prop(&spec->props[i], &v);
	if (any && vg_leaks_check(l, "on demand", stderr,
				  vg_report_json_file(vg_run_report(l->run)),
				  NULL, 0, &e))
		fprintf(stderr, "vigil: leak check: %s\n", e.msg);
}

/* Throughput and memory of the parametric monitor on generated event
 * streams (no kernel, no parser: specs are built by hand with
 * tests/unit/monitor_builder.h).
 *
 *   make build/bench_monitor          (rule in tests/bench/Makefile.inc)
 *   build/bench_monitor [CSV]         CSV, e.g. build/bench/monitor.csv
 *   QUICK=1 build/bench_monitor CSV   fewer events, sweep stops at 1M
 *   ONLY=1param build/bench_monitor   only scenarios whose name has it
 *
 * Run it on one core (taskset -c 1 ...). Every figure is the median of
 * RUNS runs over the same stream, measured in the same process as a
 * baseline: a bare open-addressing hash lookup (+1 on a counter) over the
 * same keys, on a table of the same number of keys -- the floor that the
 * memory system sets for "find something by key" on this machine. Each
 * scenario runs in its own child process so that its peak RSS is its own.
 *
 * APIs: "event" feeds vg_monitor_event one at a time; "batch" feeds
 * vg_monitor_events 256 at a time (it prefetches). Access patterns, stated
 * because they decide the result on a store larger than the caches:
 *   uniform  every event picks a live object uniformly at random
 *   zipf     object rank r with P(rank <= r) = ln(r+1)/ln(n+1) (Zipf-like,
 *            s = 1), ranks scattered over the objects at random
 *   burst    a uniformly random object gets 1..16 events in a row (mean
 *            8.5), as a program works on one queue or iterator at a time
 * Streams are precomputed (reading them costs ~nothing), except 2param-
 * mixed, generated on the fly (splitmix64, ~2 ns/event, included).
 *
 * Scenarios (1M = 2^20 live slices):
 *   1param-*   queue_bounds: push(q) with a guard n < max and update n++
 *   2param-next-*   unsafe_iter, 2^17 collections x 8 iterators, next(i)
 *   2param-mixed-*  next(i), and 1 event in 10 from a change: update(c),
 *                   dispose(i) and create(c, new i) for c's 8 iterators;
 *                   live slices stay at 2^20 (see gen_mixed)
 *   churn      open(x)/close(x), 2^16 open at once: every event creates or
 *              frees a slice; store bytes at start/middle/end show whether
 *              memory stays flat
 *   sweep-N    1param uniform with N live slices, N = 1, 10, 100, 1K, 10K,
 *              100K, 1M (2^20), 10M; QUICK stops at 1M; a point is skipped,
 *              with a line saying so, when MemAvailable is below what it
 *              needs (~110 B per slice at peak, plus its stream)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monitor_builder.h"

#define RUNS 5
#define BATCH 256

static uint64_t nev = 5000000;		/* events per run */
static bool quick;
static const char *csv_path, *only;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A key that looks like a heap address. */
static inline uint64_t addr(uint64_t k)
{
	return 0x7f0000000000ull + k * 48;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[n / 2];
}

static void die(const char *what, struct vg_err *e)
{
	fprintf(stderr, "bench_monitor: %s: %s\n", what, e ? e->msg : "failed");
	exit(1);
}

/* ---- streams ----------------------------------------------------------- */

enum pattern { UNIFORM, ZIPF, BURST };
static const char *const pat_name[] = { "uniform", "zipf", "burst" };

/* n indices into [0, nobj) following pattern p. */
static uint32_t *make_stream(enum pattern p, uint64_t nobj, uint64_t n,
			     uint64_t seed)
{
	uint32_t *s = malloc(n * sizeof(*s)), *perm = NULL;
	uint64_t r = seed;

	if (!s)
		die("stream", NULL);
	if (p == ZIPF) {		/* rank -> object, scattered */
		perm = malloc(nobj * sizeof(*perm));
		for (uint64_t i = 0; i < nobj; i++)
			perm[i] = (uint32_t)i;
		for (uint64_t i = nobj - 1; i > 0; i--) {
			uint64_t j = splitmix(&r) % (i + 1);
			uint32_t t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t x = splitmix(&r);

		if (p == UNIFORM) {
			s[i++] = (uint32_t)(x % nobj);
		} else if (p == ZIPF) {
			double u = (x >> 11) * 0x1.0p-53;
			uint64_t rank = (uint64_t)exp(u * log((double)nobj + 1)) - 1;

			s[i++] = perm[rank < nobj ? rank : nobj - 1];
		} else {
			uint64_t len = 1 + (x >> 60), obj = (x & 0xffffffffu) % nobj;

			for (uint64_t k = 0; k < len && i < n; k++)
				s[i++] = (uint32_t)obj;
		}
	}
	free(perm);
	return s;
}

/* ---- baseline: a bare hash lookup over the same keys ------------------- */

struct bent {
	uint64_t key, count;
};

static inline uint64_t bhash(uint64_t k)
{
	k *= 0xbf58476d1ce4e5b9ull;
	return k ^ (k >> 31);
}

/* Mlookups/s of find-and-increment for keys addr(idx[i]) in a table of
 * nobj keys at load <= 1/2, on huge pages like the monitor's tables;
 * without (pf = 0) and with prefetching 8 keys ahead. */
static double baseline(uint64_t nobj, const uint32_t *idx, uint64_t n, int pf)
{
	uint64_t cap = 16, sum = 0;
	struct bent *t;
	double secs;

	while (cap < 2 * nobj)
		cap *= 2;
	t = aligned_alloc(2 << 20, ((cap * sizeof(*t)) + (2 << 20) - 1) &
					   ~(size_t)((2 << 20) - 1));
	madvise(t, cap * sizeof(*t), MADV_HUGEPAGE);
	memset(t, 0, cap * sizeof(*t));
	for (uint64_t k = 0; k < nobj; k++) {
		uint64_t j = bhash(addr(k)) & (cap - 1);

		while (t[j].key)
			j = (j + 1) & (cap - 1);
		t[j].key = addr(k);
	}
	secs = now();
	for (uint64_t i = 0; i < n; i++) {
		uint64_t key = addr(idx[i]), j = bhash(key) & (cap - 1);

		if (pf && i + 8 < n)
			__builtin_prefetch(&t[bhash(addr(idx[i + 8])) & (cap - 1)]);
		while (t[j].key != key)
			j = (j + 1) & (cap - 1);
		sum += ++t[j].count;
	}
	secs = now() - secs;
	free(t);
	if (sum == 42)			/* keep the loop */
		putchar(' ');
	return n / secs / 1e6;
}

/* ---- specs ----------------------------------------------------------------- */

static int qnew, qpush, icreate, iupdate, inext, idispose, fopen_, fclose_;

static void build_queue(struct mb *b)
{
	enum { N, MAX };
	static const struct vg_insn setmax[] = { I_FIELD(0), I_STV(MAX), I_END };
	static const struct vg_insn lt[] = { I_LDV(N), I_LDV(MAX),
					     I_OP(VG_OP_LTS), I_END };
	static const struct vg_insn inc[] = { I_LDV(N), I_PUSH(1),
					      I_OP(VG_OP_ADD), I_STV(N), I_END };

	mb_init(b);
	qnew = mb_event(b, "queue_new", 1);
	qpush = mb_event(b, "queue_push", 1);
	mb_prop(b, "queue_bounds", 1, "q");
	mb_var(b, "n", 0);
	mb_var(b, "max", 0);
	mb_state(b, "init", VG_STATE_ACCEPTING);
	mb_state(b, "ready", VG_STATE_ACCEPTING);
	mb_state(b, "overflow", VG_STATE_VIOLATION);
	mb_bind(b, qnew, VG_SLOT_RET);
	mb_bind(b, qpush, 0);
	mb_trans_u(b, 0, qnew, 1, setmax);
	mb_trans_gu(b, 1, qpush, 1, lt, inc);
	mb_trans(b, 1, qpush, 2);
}

static void build_iter(struct mb *b)
{
	mb_init(b);
	icreate = mb_event(b, "create", 2);
	iupdate = mb_event(b, "update", 1);
	inext = mb_event(b, "next", 1);
	idispose = mb_event(b, "dispose", 1);
	mb_prop(b, "unsafe_iter", 2, "c", "i");
	mb_state(b, "init", VG_STATE_ACCEPTING);
	mb_state(b, "live", VG_STATE_ACCEPTING);
	mb_state(b, "stale", VG_STATE_ACCEPTING);
	mb_state(b, "bad", VG_STATE_VIOLATION);
	mb_bind(b, icreate, 0, 1);
	mb_bind(b, iupdate, 0, VG_UNBOUND);
	mb_bind(b, inext, VG_UNBOUND, 0);
	mb_bind(b, idispose, VG_UNBOUND, 0);
	mb_trans(b, 0, icreate, 1);
	mb_trans(b, 1, iupdate, 2);
	mb_trans(b, 1, inext, 1);
	mb_trans(b, 2, iupdate, 2);
	mb_trans(b, 2, inext, 3);
	/* back to the initial state: the slice is freed */
	mb_trans(b, 1, idispose, 0);
	mb_trans(b, 2, idispose, 0);
}

static void build_files(struct mb *b)
{
	mb_init(b);
	fopen_ = mb_event(b, "open", 1);
	fclose_ = mb_event(b, "close", 1);
	mb_prop(b, "files", 1, "x");
	mb_state(b, "closed", VG_STATE_ACCEPTING);
	mb_state(b, "opened", VG_STATE_NONACCEPTING);
	mb_bind(b, fopen_, 0);
	mb_bind(b, fclose_, 0);
	mb_trans(b, 0, fopen_, 1);
	mb_trans(b, 1, fclose_, 0);
}

/* ---- driving --------------------------------------------------------------- */

/* Makes event i of a stream into *ev. */
struct gen {
	void (*fn)(const struct gen *g, uint64_t i, struct vg_mon_event *ev);
	const uint32_t *idx;
	int event;
	uint64_t off;			/* added to the object index */
	uint64_t *rng;
};

static void gen_idx(const struct gen *g, uint64_t i, struct vg_mon_event *ev)
{
	ev->event = g->event;
	ev->slot[0] = addr(g->idx[i] + g->off);
}

static uint64_t next_iter;

/* 2param-mixed: a correct program that, after it changes a collection,
 * drops its iterators and makes new ones. Iterator slot s (8 per
 * collection, collection s / 8) holds iter_of[s]. Mostly next(i) on a
 * random slot; about 1 event in 10 belongs to a change: update(c), then
 * for each of c's 8 slots dispose(old i) and create(c, new i). Live slices
 * stay at 2^20, every update walks 8 slices, disposes free slices and
 * creates join new ones. */
static uint64_t *iter_of;
static struct {
	int left;		/* events of the change still to come */
	uint64_t c;
} change;

static void gen_mixed(const struct gen *g, uint64_t i, struct vg_mon_event *ev)
{
	uint64_t r = splitmix(g->rng), s;

	if (change.left) {
		int step = 16 - change.left--;	/* 0..15 */

		s = change.c * 8 + (uint64_t)step / 2;
		if (step % 2 == 0) {
			ev->event = idispose;
			ev->slot[0] = addr(iter_of[s] + (1ull << 30));
		} else {
			iter_of[s] = next_iter++;
			ev->event = icreate;
			ev->slot[0] = addr(change.c);
			ev->slot[1] = addr(iter_of[s] + (1ull << 30));
		}
		return;
	}
	if ((r >> 54) % 1000 < 6) {
		change.c = (r >> 3) & ((1u << 17) - 1);
		change.left = 16;
		ev->event = iupdate;
		ev->slot[0] = addr(change.c);
		return;
	}
	if (g->idx)			/* burst: the slot comes from idx */
		r = g->idx[i];
	ev->event = inext;
	ev->slot[0] = addr(iter_of[r & ((1u << 20) - 1)] + (1ull << 30));
}

static double drive(struct vg_monitor *m, const struct gen *g, uint64_t n,
		    bool batch)
{
	static struct vg_mon_event evs[BATCH];
	struct vg_err e;
	double t = now();

	for (uint64_t i = 0; i < n; i += BATCH) {
		uint64_t k = n - i < BATCH ? n - i : BATCH;

		for (uint64_t j = 0; j < k; j++)
			g->fn(g, i + j, &evs[j]);
		if (batch) {
			if (vg_monitor_events(m, evs, k, &e))
				die("events", &e);
			continue;
		}
		for (uint64_t j = 0; j < k; j++)
			if (vg_monitor_event(m, &evs[j], &e))
				die("event", &e);
	}
	return now() - t;
}

static void feed1(struct vg_monitor *m, int event, int slot, uint64_t v,
		  uint64_t v2)
{
	struct vg_mon_event ev = { .event = event };
	struct vg_err e;

	ev.slot[slot] = v;
	ev.slot[1] = slot == 0 ? v2 : ev.slot[1];
	if (slot == VG_SLOT_RET)
		ev.slot[0] = v2;
	if (vg_monitor_event(m, &ev, &e))
		die("setup", &e);
}

static FILE *csv;

/* Runs the stream RUNS times per API; prints and writes one row each. */
static void measure(const char *scen, const char *pat, struct vg_monitor *m,
		    const struct gen *g, uint64_t n, double base, double basepf)
{
	for (int api = 0; api < 2; api++) {
		double r[RUNS], lo = 1e30, hi = 0, med;
		struct vg_monitor_stats st;
		struct rusage ru;

		for (int k = 0; k < RUNS; k++) {
			r[k] = n / drive(m, g, n, api) / 1e6;
			lo = r[k] < lo ? r[k] : lo;
			hi = r[k] > hi ? r[k] : hi;
		}
		med = median(r, RUNS);
		vg_monitor_stats(m, &st);
		getrusage(RUSAGE_SELF, &ru);
		printf("%-18s %-7s %-5s %7.2f Mev/s %6.1f ns/ev [%6.2f..%6.2f]"
		       "  live %8" PRIu64 " %6.1f B/slice  RSS %7.1f MB"
		       "  baseline %6.2f / pf %6.2f Ml/s\n",
		       scen, pat, api ? "batch" : "event", med, 1e3 / med, lo,
		       hi, st.slices_live,
		       st.slices_live ? (double)st.bytes / st.slices_live : 0.0,
		       ru.ru_maxrss / 1024.0, base, basepf);
		if (csv)
			fprintf(csv, "%s,%s,%s,%" PRIu64 ",%" PRIu64
				     ",%.3f,%.2f,%.3f,%.3f,%.1f,%.1f,%.3f,%.3f\n",
				scen, pat, api ? "batch" : "event",
				st.slices_live, n, med, 1e3 / med, lo, hi,
				st.slices_live ? (double)st.bytes / st.slices_live : 0.0,
				ru.ru_maxrss / 1024.0, base, basepf);
	}
	fflush(stdout);
	if (csv)
		fflush(csv);
}

/* ---- scenarios ------------------------------------------------------------- */

static void bench_queue(const char *scen, uint64_t nobj, enum pattern p)
{
	struct mb b;
	struct vg_err e;
	struct vg_monitor *m;
	uint64_t n = nev;
	uint32_t *idx;
	struct gen g = { gen_idx };
	double base, basepf;

	build_queue(&b);
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	if (!m)
		die("new", &e);
	for (uint64_t k = 0; k < nobj; k++)	/* capacity: never full */
		feed1(m, qnew, VG_SLOT_RET, addr(k), 1ull << 40);
	idx = make_stream(p, nobj, n, 42 + nobj);
	base = baseline(nobj, idx, n, 0);
	basepf = baseline(nobj, idx, n, 1);
	g.idx = idx;
	g.event = qpush;
	measure(scen, pat_name[p], m, &g, n, base, basepf);
	free(idx);
	vg_monitor_free(m);
	mb_free(&b);
}

static void bench_iter(const char *scen, bool mixed, enum pattern p)
{
	const uint64_t nit = 1u << 20, per = 8;
	struct mb b;
	struct vg_err e;
	struct vg_monitor *m;
	uint64_t n = nev, rng = 7;
	uint32_t *idx = NULL;
	struct gen g = { gen_idx };
	double base, basepf;

	build_iter(&b);
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	if (!m)
		die("new", &e);
	for (uint64_t i = 0; i < nit; i++)
		feed1(m, icreate, 0, addr(i / per), addr(i + (1ull << 30)));
	next_iter = nit;
	free(iter_of);
	iter_of = malloc(nit * sizeof(*iter_of));
	if (!iter_of)
		abort();
	for (uint64_t i = 0; i < nit; i++)
		iter_of[i] = i;
	idx = make_stream(p, nit, n, 99);
	base = baseline(nit, idx, n, 0);	/* the iterators' keys */
	basepf = baseline(nit, idx, n, 1);
	g.event = inext;
	g.off = 1ull << 30;
	g.idx = idx;
	if (mixed) {
		g.fn = gen_mixed;
		g.rng = &rng;
		/* burst: objects from idx (scaled to each kind by gen_mixed) */
		g.idx = p == BURST ? idx : NULL;
	}
	measure(scen, pat_name[p], m, &g, n, base, basepf);
	free(idx);
	vg_monitor_free(m);
	mb_free(&b);
}

static uint64_t store_bytes(struct vg_monitor *m)
{
	struct vg_monitor_stats st;

	vg_monitor_stats(m, &st);
	return st.bytes;
}

static void bench_churn(const char *scen, uint64_t unused, enum pattern p)
{
	const uint64_t window = 1u << 16;
	struct mb b;
	struct vg_err e;
	struct vg_monitor *m;
	uint64_t half = nev / 2, before, mid = 0, base = 0;
	double r[RUNS];

	build_files(&b);
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	if (!m)
		die("new", &e);
	for (uint64_t k = 0; k < window; k++)
		feed1(m, fopen_, 0, addr(k), 0);
	before = store_bytes(m);
	/* open a new file, close the oldest: every key is new */
	for (int k = 0; k < RUNS; k++) {
		double t = now();

		for (uint64_t i = 0; i < half; i++) {
			feed1(m, fclose_, 0, addr(base + i), 0);
			feed1(m, fopen_, 0, addr(base + i + window), 0);
			if (k == RUNS / 2 && i == half / 2)
				mid = store_bytes(m);
		}
		r[k] = 2 * half / (now() - t) / 1e6;
		base += half;
	}
	{
		struct vg_monitor_stats st;
		struct rusage ru;
		double med = median(r, RUNS);

		vg_monitor_stats(m, &st);
		getrusage(RUSAGE_SELF, &ru);
		printf("%-18s %-7s %-5s %7.2f Mev/s %6.1f ns/ev  live %8" PRIu64
		       " %6.1f B/slice  RSS %7.1f MB  store bytes: start %" PRIu64
		       " middle %" PRIu64 " end %" PRIu64 " (%s)\n",
		       scen, "fifo", "event", med, 1e3 / med, st.slices_live,
		       (double)st.bytes / st.slices_live, ru.ru_maxrss / 1024.0,
		       before, mid, st.bytes,
		       st.bytes <= before + before / 8 ? "flat" : "GROWS");
		if (csv)
			fprintf(csv, "%s,fifo,event,%" PRIu64 ",%" PRIu64
				     ",%.3f,%.2f,,,%.1f,%.1f,,\n",
				scen, st.slices_live, 2 * half * RUNS, med,
				1e3 / med, (double)st.bytes / st.slices_live,
				ru.ru_maxrss / 1024.0);
	}
	vg_monitor_free(m);
	mb_free(&b);
	(void)unused, (void)p;
}

static void iter_next(const char *s, uint64_t u, enum pattern p)
{
	(void)u;
	bench_iter(s, false, p);
}

static void iter_mixed(const char *s, uint64_t u, enum pattern p)
{
	(void)u;
	bench_iter(s, true, p);
}

/* MB of MemAvailable in /proc/meminfo, or -1. */
static long mem_available_mb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* Each scenario in its own process: its peak RSS is its own. */
static void run(const char *scen, void (*fn)(const char *, uint64_t,
					     enum pattern),
		uint64_t nobj, enum pattern p)
{
	pid_t pid;
	int status;

	if (only && !strstr(scen, only))
		return;
	fflush(stdout);
	if (csv)
		fflush(csv);
	pid = fork();
	if (pid == 0) {
		fn(scen, nobj, p);
		fflush(stdout);		/* _exit does not */
		if (csv)
			fclose(csv);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status)
		fprintf(stderr, "bench_monitor: %s failed\n", scen);
}

int main(int argc, char **argv)
{
	static const uint64_t sweep[] = { 1, 10, 100, 1000, 10000, 100000,
					  1u << 20, 10000000 };
	double t0 = now();

	quick = getenv("QUICK") && atoi(getenv("QUICK"));
	only = getenv("ONLY");
	if (quick)
		nev = 500000;
	if (argc > 1) {
		csv_path = argv[1];
		csv = fopen(csv_path, "w");
		if (!csv) {
			perror(csv_path);
			return 2;
		}
		fprintf(csv, "scenario,pattern,api,live_slices,events_per_run,"
			     "median_mev_s,ns_per_event,min_mev_s,max_mev_s,"
			     "bytes_per_slice,peak_rss_mb,baseline_mlookup_s,"
			     "baseline_prefetch_mlookup_s\n");
	}
	printf("bench_monitor: %" PRIu64 " events per run, median of %d runs%s\n",
	       nev, RUNS, quick ? " (QUICK)" : "");
	run("1param-1M", bench_queue, 1u << 20, UNIFORM);
	run("1param-1M", bench_queue, 1u << 20, ZIPF);
	run("1param-1M", bench_queue, 1u << 20, BURST);
	run("2param-next", iter_next, 0, UNIFORM);
	run("2param-next", iter_next, 0, BURST);
	run("2param-mixed", iter_mixed, 0, UNIFORM);
	run("2param-mixed", iter_mixed, 0, BURST);
	run("churn", bench_churn, 0, UNIFORM);
	for (size_t i = 0; i < sizeof(sweep) / sizeof(sweep[0]); i++) {
		char name[32];

		/* peak: the store (~110 B a slice while its table doubles),
		 * the stream (4 B an event) and the baseline's table */
		long need = (long)((sweep[i] * 140 + nev * 4) >> 20) + 64;
		long avail = mem_available_mb();

		if (quick && sweep[i] > (1u << 20))
			break;
		snprintf(name, sizeof(name), "sweep-%" PRIu64, sweep[i]);
		if (avail >= 0 && avail < 2 * need) {
			printf("%-18s skipped: needs ~%ld MB, MemAvailable %ld MB\n",
			       name, need, avail);
			continue;
		}
		run(name, bench_queue, sweep[i], UNIFORM);
	}
	printf("bench_monitor: %.0f s%s%s\n", now() - t0,
	       csv_path ? ", CSV in " : "", csv_path ? csv_path : "");
	return 0;
}

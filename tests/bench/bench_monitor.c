/* Throughput and memory of the parametric monitor, on event streams made
 * in memory (no kernel, no parser: specs are built by hand).
 *
 *   cc -O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -Iuser -Itests/unit
 *      -o build/bench_monitor tests/bench/bench_monitor.c
 *      user/monitor/[a-z]*.c user/util/err.c
 *   build/bench_monitor [events_millions]
 *
 * Every scenario runs twice: events fed one at a time (vg_monitor_event),
 * then in batches of 256 (vg_monitor_events, "/batch", which prefetches).
 * Each scenario runs in its own child process so that its peak RSS
 * (getrusage) is its own. Scenarios:
 *   1param-1K       queue_bounds, 2^10 live queues (all in cache): CPU cost
 *   1param-random   queue_bounds, 2^20 live queues, push on a random queue
 *   1param-seq      the same, queues visited in creation order
 *   2param-next     unsafe_iter, 2^17 collections x 8 iterators, next(i)
 *   2param-mixed    the same, 80% next(i), 10% update(c), 10% create(c,i)
 *   churn           files: open(x) ... close(x), 2^16 open at any time,
 *                   every event creates or frees a slice
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monitor_builder.h"

static uint64_t nevents = 20000000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void feed(struct vg_monitor *m, struct vg_mon_event *ev)
{
	struct vg_err e;

	if (vg_monitor_event(m, ev, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		exit(1);
	}
}

/* Events are made by a generator, then fed one by one (vg_monitor_event)
 * or in batches of BATCH (vg_monitor_events, which prefetches). */
#define BATCH 256
static bool batched;

typedef void (*gen_fn)(uint64_t i, struct vg_mon_event *ev);

static double drive(struct vg_monitor *m, gen_fn gen, uint64_t n)
{
	static struct vg_mon_event evs[BATCH];
	struct vg_mon_event ev = { 0 };
	struct vg_err e;
	double t = now();

	if (!batched) {
		for (uint64_t i = 0; i < n; i++) {
			gen(i, &ev);
			feed(m, &ev);
		}
		return now() - t;
	}
	for (uint64_t i = 0; i < n; i += BATCH) {
		uint64_t k = n - i < BATCH ? n - i : BATCH;

		for (uint64_t j = 0; j < k; j++)
			gen(i + j, &evs[j]);
		if (vg_monitor_events(m, evs, k, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			exit(1);
		}
	}
	return now() - t;
}

/* A key that looks like a heap address. */
static inline uint64_t addr(uint64_t k)
{
	return 0x7f0000000000ull + k * 48;
}

/* i-th element of a pseudo-random permutation of [0, 2^bits). */
static inline uint64_t perm(uint64_t i, int bits)
{
	uint64_t m = (1ull << bits) - 1;

	i = (i * 0x9e3779b97f4a7c15ull) & m;
	i ^= i >> (bits / 2);
	return (i * 0xbf58476d1ce4e5b9ull) & m;
}

static void report(const char *name0, struct vg_monitor *m, uint64_t n,
		   double secs, uint64_t bytes_before)
{
	struct vg_monitor_stats st;
	struct rusage ru;

	char name[64];

	snprintf(name, sizeof(name), "%s%s", name0, batched ? "/batch" : "");
	vg_monitor_stats(m, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("%-20s %7.2f Mev/s %7.1f ns/ev  live %8" PRIu64
	       "  %6.1f B/slice  store %7.1f MB (before run %7.1f MB)  peak RSS %7.1f MB"
	       "  created %" PRIu64 " freed %" PRIu64 " tomb %" PRIu64 "\n",
	       name, n / secs / 1e6, secs * 1e9 / n, st.slices_live,
	       st.slices_live ? (double)st.bytes / st.slices_live : 0.0,
	       st.bytes / 1048576.0, bytes_before / 1048576.0,
	       ru.ru_maxrss / 1024.0, st.slices_created, st.slices_freed,
	       st.tombstones);
	fflush(stdout);
}

static uint64_t store_bytes(struct vg_monitor *m)
{
	struct vg_monitor_stats st;

	vg_monitor_stats(m, &st);
	return st.bytes;
}

/* ---- queue_bounds, one parameter ------------------------------------- */

static int qnew, qpush, qpop;

static void build_queue(struct mb *b)
{
	enum { N, MAX };
	static const struct vg_insn setmax[] = { I_FIELD(0), I_STV(MAX), I_END };
	static const struct vg_insn lt[] = { I_LDV(N), I_LDV(MAX),
					     I_OP(VG_OP_LTS), I_END };
	static const struct vg_insn inc[] = { I_LDV(N), I_PUSH(1),
					      I_OP(VG_OP_ADD), I_STV(N), I_END };
	static const struct vg_insn gt0[] = { I_LDV(N), I_PUSH(0),
					      I_OP(VG_OP_GTS), I_END };
	static const struct vg_insn dec[] = { I_LDV(N), I_PUSH(1),
					      I_OP(VG_OP_SUB), I_STV(N), I_END };

	mb_init(b);
	qnew = mb_event(b, "queue_new", 1);
	qpush = mb_event(b, "queue_push", 1);
	qpop = mb_event(b, "queue_pop", 1);
	mb_prop(b, "queue_bounds", 1, "q");
	mb_var(b, "n", 0);
	mb_var(b, "max", 0);
	mb_state(b, "init", VG_STATE_ACCEPTING);
	mb_state(b, "ready", VG_STATE_ACCEPTING);
	mb_state(b, "overflow", VG_STATE_VIOLATION);
	mb_state(b, "underflow", VG_STATE_VIOLATION);
	mb_bind(b, qnew, VG_SLOT_RET);
	mb_bind(b, qpush, 0);
	mb_bind(b, qpop, 0);
	mb_trans_u(b, 0, qnew, 1, setmax);
	mb_trans_gu(b, 1, qpush, 1, lt, inc);
	mb_trans(b, 1, qpush, 2);
	mb_trans_gu(b, 1, qpop, 1, gt0, dec);
	mb_trans(b, 1, qpop, 3);
}

static int qbits = 20;
static bool qrandom;

static void gen_push(uint64_t i, struct vg_mon_event *ev)
{
	ev->event = qpush;
	ev->slot[0] = addr(qrandom ? perm(i, qbits)
				   : (i & ((1ull << qbits) - 1)));
}

static void bench_1param(bool random)
{
	const int bits = qbits;
	struct vg_mon_event ev = { 0 };
	struct vg_err e;
	struct mb b;
	struct vg_monitor *m;
	uint64_t before;
	double t;

	build_queue(&b);
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	ev.event = qnew;
	ev.slot[0] = 1ull << 40;		/* capacity: never overflows */
	for (uint64_t k = 0; k < (1ull << bits); k++) {
		ev.slot[VG_SLOT_RET] = addr(k);
		feed(m, &ev);
	}
	before = store_bytes(m);
	qrandom = random;
	t = drive(m, gen_push, nevents);
	report(bits < 20 ? "1param-1K" : random ? "1param-random" : "1param-seq",
	       m, nevents, t, before);
	vg_monitor_free(m);
	mb_free(&b);
}

/* ---- unsafe_iter, two parameters ------------------------------------- */

static int icreate, iupdate, inext;

static void build_iter(struct mb *b)
{
	mb_init(b);
	icreate = mb_event(b, "create", 2);
	iupdate = mb_event(b, "update", 1);
	inext = mb_event(b, "next", 1);
	mb_prop(b, "unsafe_iter", 2, "c", "i");
	mb_state(b, "init", VG_STATE_ACCEPTING);
	mb_state(b, "live", VG_STATE_ACCEPTING);
	mb_state(b, "stale", VG_STATE_ACCEPTING);
	mb_state(b, "bad", VG_STATE_VIOLATION);
	mb_bind(b, icreate, 0, 1);
	mb_bind(b, iupdate, 0, VG_UNBOUND);
	mb_bind(b, inext, VG_UNBOUND, 0);
	mb_trans(b, 0, icreate, 1);
	mb_trans(b, 1, iupdate, 2);
	mb_trans(b, 1, inext, 1);
	mb_trans(b, 2, iupdate, 2);
	mb_trans(b, 2, inext, 3);
}

static bool imixed;
static uint64_t next_iter;

static void gen_iter(uint64_t i, struct vg_mon_event *ev)
{
	const int cbits = 17, ibits = 20;
	uint64_t r = perm(i, 30);
	int k = imixed ? (int)(r % 10) : 0;

	if (k < 8) {
		ev->event = inext;
		ev->slot[0] = addr(r & ((1ull << ibits) - 1)) + 8;
	} else if (k == 8) {
		ev->event = iupdate;
		ev->slot[0] = addr((r >> 4) & ((1ull << cbits) - 1));
	} else {
		ev->event = icreate;
		ev->slot[0] = addr((r >> 4) & ((1ull << cbits) - 1));
		ev->slot[1] = addr(next_iter++) + 8;
	}
}

static void bench_2param(bool mixed)
{
	const int per = 8, ibits = 20;	/* 2^17 collections * 8 = 2^20 */
	struct vg_mon_event ev = { 0 };
	struct vg_err e;
	struct mb b;
	struct vg_monitor *m;
	uint64_t before;
	double t;

	next_iter = 1ull << ibits;
	build_iter(&b);
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	ev.event = icreate;
	for (uint64_t i = 0; i < (1ull << ibits); i++) {
		ev.slot[0] = addr(i / per);
		ev.slot[1] = addr(i) + 8;
		feed(m, &ev);
	}
	before = store_bytes(m);
	imixed = mixed;
	t = drive(m, gen_iter, nevents);
	report(mixed ? "2param-mixed" : "2param-next", m, nevents, t, before);
	vg_monitor_free(m);
	mb_free(&b);
}

/* ---- churn: slices die as fast as they are born ---------------------- */

static void bench_churn(void)
{
	const uint64_t window = 1 << 16;
	struct vg_mon_event ev = { 0 };
	struct vg_err e;
	struct mb b;
	struct vg_monitor *m;
	int eo, ec;
	uint64_t before, mid = 0;
	double t;

	mb_init(&b);
	eo = mb_event(&b, "open", 1);
	ec = mb_event(&b, "close", 1);
	mb_prop(&b, "files", 1, "x");
	mb_state(&b, "closed", VG_STATE_ACCEPTING);
	mb_state(&b, "opened", VG_STATE_NONACCEPTING);
	mb_bind(&b, eo, 0);
	mb_bind(&b, ec, 0);
	mb_trans(&b, 0, eo, 1);
	mb_trans(&b, 1, ec, 0);
	m = vg_monitor_new(&b.spec, NULL, NULL, &e);
	ev.event = eo;
	for (uint64_t k = 0; k < window; k++) {
		ev.slot[0] = addr(k);
		feed(m, &ev);
	}
	before = store_bytes(m);
	t = now();
	/* open a new file, close the oldest: every key is new */
	for (uint64_t i = 0; i < nevents / 2; i++) {
		ev.event = ec;
		ev.slot[0] = addr(i);
		feed(m, &ev);
		ev.event = eo;
		ev.slot[0] = addr(i + window);
		feed(m, &ev);
		if (i == nevents / 4)
			mid = store_bytes(m);
	}
	t = now() - t;
	report("churn", m, nevents / 2 * 2, t, before);
	printf("%-20s store bytes: after warm-up %" PRIu64 ", half-way %" PRIu64
	       ", end %" PRIu64 "\n",
	       "churn", before, mid, store_bytes(m));
	vg_monitor_free(m);
	mb_free(&b);
}

static void small_wrap(bool random)
{
	qbits = 10;
	bench_1param(random);
}

static void run(void (*fn)(bool), bool arg)
{
	pid_t p;

	fflush(stdout);
	p = fork();

	if (p == 0) {
		fn(arg);
		exit(0);
	}
	waitpid(p, NULL, 0);
}

static void churn_wrap(bool unused)
{
	(void)unused;
	bench_churn();
}

int main(int argc, char **argv)
{
	if (argc > 1)
		nevents = (uint64_t)(atof(argv[1]) * 1e6);
	printf("bench_monitor: %" PRIu64 " events per scenario\n", nevents);
	for (int b = 0; b < 2; b++) {
		batched = b;
		run(small_wrap, true);
		run(bench_1param, true);
		run(bench_1param, false);
		run(bench_2param, false);
		run(bench_2param, true);
		run(churn_wrap, false);
	}
	return 0;
}

/* The whole BPF object loaded on a thread while the plan is built, taken
 * when vg_probe_open would configure it the same (early_load.h). */
#include "early_load.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "split_load.h"
#include "util/bytebuf.h"

enum { LOADING, LOADED, DROPPED };

struct vg_early_load {
	struct bpf_object *model;
	int (*load)(void *arg);
	void *arg;
	void (*destroy)(void *arg);	/* set by a drop */
	struct vg_load_stats *stats;
	unsigned long long load_ns;
	int err;
	int state;
	pthread_t th;
	bool threaded;
	/* what decides the load, taken before it (sig_of) */
	unsigned char *sig;
	size_t nsig;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Everything of obj's configuration that its load depends on: which
 * programs it loads and how they attach, each map's size and whether it
 * is made, and the read-only data the verifier reads (.bss and .data are
 * written after, vg_split_write_data). The same ELF, so the same order. */
static unsigned char *sig_of(struct bpf_object *obj, size_t *n,
			     size_t at_byte, const char **differs)
{
	struct vg_bytebuf b = { 0 };
	struct bpf_program *prog;
	struct bpf_map *m;

	/* differs: the program or map whose part holds byte at_byte (for
	 * VIGIL_DEBUG's reason) */
#define MARK(name) do { if (differs && b.n <= at_byte) *differs = (name); \
		   } while (0)
	bpf_object__for_each_program(prog, obj) {
		unsigned char on = bpf_program__autoload(prog);
		int at = bpf_program__expected_attach_type(prog);

		MARK(bpf_program__name(prog));
		vg_bytebuf_put(&b, &on, 1);
		vg_bytebuf_put(&b, &at, sizeof(at));
	}
	bpf_object__for_each_map(m, obj) {
		uint32_t max = bpf_map__max_entries(m);
		unsigned char made = bpf_map__autocreate(m);
		const void *init;
		size_t sz = 0;

		MARK(bpf_map__name(m));
		vg_bytebuf_put(&b, &max, sizeof(max));
		vg_bytebuf_put(&b, &made, 1);
		if (!(bpf_map__map_flags(m) & BPF_F_RDONLY_PROG))
			continue;
		init = bpf_map__initial_value(m, &sz);
		vg_bytebuf_put(&b, &sz, sizeof(sz));
		if (init)
			vg_bytebuf_put(&b, init, sz);
	}
#undef MARK
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*n = b.n;
	return b.p;
}

static void release(struct vg_early_load *el)
{
	vg_load_stats_free(el->stats);
	if (el->destroy)
		el->destroy(el->arg);
	free(el->sig);
	free(el);
}

static void *load_main(void *arg)
{
	struct vg_early_load *el = arg;
	unsigned long long t0 = now_ns();

	el->err = el->load(el->arg);
	el->load_ns = now_ns() - t0;
	if (__atomic_exchange_n(&el->state, LOADED, __ATOMIC_ACQ_REL) ==
	    DROPPED)
		release(el);
	return NULL;
}

struct vg_early_load *vg_early_load_start(struct bpf_object *model,
					  int (*load)(void *arg), void *arg)
{
	struct vg_early_load *el = calloc(1, sizeof(*el));

	if (!el)
		return NULL;
	el->model = model;
	el->load = load;
	el->arg = arg;
	if (!(el->sig = sig_of(model, &el->nsig, 0, NULL))) {
		free(el);
		return NULL;
	}
	el->stats = vg_load_stats_arm(model);
	if (pthread_create(&el->th, NULL, load_main, el) == 0)
		el->threaded = true;
	else
		load_main(el);	/* one CPU then: now */
	return el;
}

bool vg_early_load_fits(const struct vg_early_load *el,
			struct bpf_object *main, const char **differs)
{
	size_t n = 0, i = 0;
	unsigned char *sig = sig_of(main, &n, 0, NULL);
	bool same = sig && n == el->nsig && !memcmp(sig, el->sig, n);

	if (!same && sig && differs) {	/* the first byte that differs */
		while (i < n && i < el->nsig && sig[i] == el->sig[i])
			i++;
		*differs = "(the size)";
		free(sig);
		sig = sig_of(main, &n, i, differs);
	}
	free(sig);
	return same;
}

int vg_early_load_take(struct vg_early_load *el, struct bpf_object *main,
		       struct vg_load_stats **stats,
		       unsigned long long *load_ns)
{
	int err;

	if (el->threaded)
		pthread_join(el->th, NULL);
	err = el->err;
	if (!err)
		err = vg_split_write_data(main, el->model);
	*stats = el->stats;
	*load_ns = el->load_ns;
	el->stats = NULL;
	free(el->sig);
	free(el);
	return err;
}

void vg_early_load_drop(struct vg_early_load *el, void (*destroy)(void *arg))
{
	if (!el)
		return;
	el->destroy = destroy;
	if (el->threaded) {
		if (__atomic_exchange_n(&el->state, DROPPED,
					__ATOMIC_ACQ_REL) == LOADING) {
			pthread_detach(el->th);	/* it frees el */
			return;
		}
		pthread_join(el->th, NULL);
	}
	release(el);
}

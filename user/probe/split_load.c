/* One BPF object's programs verified on two CPUs (split_load.h): a
 * maps-only object creates the maps, main and a side object holding the
 * one slow program take them (bpf_map__reuse_fd) and load at the same
 * time. With the kernel tier, vg_kstep verified beside the rest (and
 * beside the plan, when started early) takes most of vigil's start-up
 * verification off the critical path. */
#include "split_load.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct vg_split {
	struct bpf_object *maps, *side;
	const char *name;
	struct vg_load_stats *stats;
	pthread_t th;
	bool threaded;
	int err;	/* the side's load */
	/* a split dropped while its thread still loads is freed by the
	 * thread, so that nobody waits for a load nobody uses */
	int state;	/* LOADING, LOADED, DROPPED */
	/* the maps are made on the thread too (libbpf reads the kernel's
	 * BTF for that, tens of ms): main waits for them in finish */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool maps_done;
	int maps_err;
};

enum { LOADING, LOADED, DROPPED };

static void split_release(struct vg_split *s)
{
	bpf_object__close(s->side);
	bpf_object__close(s->maps);
	vg_load_stats_free(s->stats);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

static int take_maps(struct bpf_object *obj, struct bpf_object *maps);

static void *load_side(void *arg)
{
	struct vg_split *s = arg;
	int err = bpf_object__load(s->maps);

	if (!err)
		err = take_maps(s->side, s->maps);
	pthread_mutex_lock(&s->mu);
	s->maps_err = err;
	s->maps_done = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	s->err = err ? err : bpf_object__load(s->side);
	if (__atomic_exchange_n(&s->state, LOADED, __ATOMIC_ACQ_REL) == DROPPED)
		split_release(s);
	return NULL;
}

static struct bpf_object *open_copy(struct bpf_object *model, const void *elf,
				    size_t sz)
{
	LIBBPF_OPTS(bpf_object_open_opts, o,
		    .object_name = bpf_object__name(model));
	struct bpf_object *obj = bpf_object__open_mem(elf, sz, &o);
	struct bpf_program *prog;

	if (!obj)
		return NULL;
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	return obj;
}

static bool frozen(const struct bpf_map *m)
{
	return bpf_map__map_flags(m) & BPF_F_RDONLY_PROG;
}

/* the maps as model would create them: its sizes and its global data as
 * configured so far (created by load_side) */
static int copy_maps(struct bpf_object *model, struct bpf_object *maps)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, model) {
		struct bpf_map *c = bpf_object__find_map_by_name(maps,
								 bpf_map__name(m));
		const void *init;
		size_t n;

		if (!c)
			return -ENOENT;
		if (bpf_map__set_max_entries(c, bpf_map__max_entries(m)) ||
		    bpf_map__set_autocreate(c, bpf_map__autocreate(m)))
			return -EINVAL;
		init = bpf_map__initial_value(m, &n);
		if (init && bpf_map__set_initial_value(c, init, n))
			return -EINVAL;
	}
	return 0;
}

static int wait_maps(struct vg_split *s)
{
	pthread_mutex_lock(&s->mu);
	while (!s->maps_done)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return s->maps_err;
}

/* obj's maps by name, before obj is loaded (bpf_map__reuse_fd renames
 * them after the kernel's names) */
static int take_maps(struct bpf_object *obj, struct bpf_object *maps)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		struct bpf_map *c = bpf_object__find_map_by_name(maps,
								 bpf_map__name(m));
		int err;

		if (!c)
			return -ENOENT;
		if (bpf_map__fd(c) < 0)
			continue;	/* not created (autocreate off) */
		if ((err = bpf_map__reuse_fd(m, bpf_map__fd(c))))
			return err;
	}
	return 0;
}

/* Do main's maps come out as the split created them? .rodata is frozen
 * at creation and the verifier reads it: it must be the same bytes */
static bool fits(struct bpf_object *main, struct bpf_object *maps)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, main) {
		struct bpf_map *c = bpf_object__find_map_by_name(maps,
								 bpf_map__name(m));
		const void *a, *b;
		size_t na, nb;

		if (!c || bpf_map__max_entries(c) != bpf_map__max_entries(m) ||
		    bpf_map__autocreate(c) != bpf_map__autocreate(m))
			return false;
		if (!frozen(m))
			continue;
		a = bpf_map__initial_value(m, &na);
		b = bpf_map__initial_value(c, &nb);
		if (!a || !b || na != nb || memcmp(a, b, na))
			return false;
	}
	return true;
}

int vg_split_write_data(struct bpf_object *from, struct bpf_object *into)
{
	struct bpf_map *m;
	unsigned zero = 0;

	bpf_object__for_each_map(m, from) {
		struct bpf_map *t = from == into ? m :
			bpf_object__find_map_by_name(into, bpf_map__name(m));
		const void *init;
		size_t n;

		if (frozen(m) || !(init = bpf_map__initial_value(m, &n)) ||
		    !t || bpf_map__fd(t) < 0)
			continue;
		if (bpf_map_update_elem(bpf_map__fd(t), &zero, init, 0))
			return -errno;
	}
	return 0;
}

void vg_split_free(struct vg_split *sp)
{
	if (!sp)
		return;
	if (sp->threaded) {
		if (__atomic_exchange_n(&sp->state, DROPPED,
					__ATOMIC_ACQ_REL) == LOADING) {
			pthread_detach(sp->th);	/* it frees sp */
			return;
		}
		pthread_join(sp->th, NULL);
	}
	split_release(sp);
}

struct vg_split *vg_split_start(struct bpf_object *model, const void *elf,
				size_t sz, const char *name)
{
	struct bpf_program *mp = bpf_object__find_program_by_name(model, name);
	struct bpf_program *sp;
	struct vg_split *s;
	int err;

	if (!mp || !bpf_program__autoload(mp)) {
		errno = 0;
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	s->name = name;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->maps = open_copy(model, elf, sz);
	s->side = open_copy(model, elf, sz);
	if (!s->maps || !s->side)
		goto fail;
	if ((err = copy_maps(model, s->maps))) {
		errno = -err;
		goto fail;
	}
	sp = bpf_object__find_program_by_name(s->side, name);
	bpf_program__set_autoload(sp, true);
	bpf_program__set_expected_attach_type(sp,
		bpf_program__expected_attach_type(mp));
	s->stats = vg_load_stats_arm(s->side);
	if (pthread_create(&s->th, NULL, load_side, s) == 0)
		s->threaded = true;
	else
		load_side(s);	/* one CPU then: now */
	return s;
fail:
	err = errno;
	vg_split_free(s);
	errno = err;
	return NULL;
}

int vg_split_finish(struct vg_split *sp, struct bpf_object *main,
		    const void *elf, size_t sz, const char *name,
		    int (*load_main)(void *arg), void *arg,
		    struct bpf_object **side, struct vg_load_stats **stats)
{
	struct bpf_program *mp = bpf_object__find_program_by_name(main, name);
	int err;

	*side = NULL;
	*stats = NULL;
	if (!mp || !bpf_program__autoload(mp)) {
		vg_split_free(sp);
		return load_main(arg);
	}
	if (sp && (wait_maps(sp) || !fits(main, sp->maps))) {
		vg_split_free(sp);
		sp = NULL;
	}
	if (!sp && !(sp = vg_split_start(main, elf, sz, name)))
		return errno ? -errno : -EINVAL;
	/* main's global data after the maps were made: .bss and .data
	 * written now; its program runs from the side */
	if ((err = wait_maps(sp)) || (err = take_maps(main, sp->maps)) ||
	    (err = vg_split_write_data(main, main))) {
		vg_split_free(sp);
		return err;
	}
	bpf_program__set_autoload(mp, false);
	err = load_main(arg);
	if (sp->threaded)
		pthread_join(sp->th, NULL);
	sp->threaded = false;
	if (!err)
		err = sp->err;
	*stats = sp->stats;
	sp->stats = NULL;
	if (!err) {
		*side = sp->side;
		sp->side = NULL;
	}
	vg_split_free(sp);	/* main and the side hold the maps */
	return err;
}

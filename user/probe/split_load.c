/* One BPF object's programs verified on two CPUs (split_load.h): a
 * maps-only object creates the maps, main and a side object holding the
 * one slow program take them (bpf_map__reuse_fd) and load at the same
 * time. With the kernel tier, vg_kstep verified beside the rest takes
 * about half of vigil's start-up verification off the critical path. */
#include "split_load.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

struct side_load {
	struct bpf_object *obj;
	int err;
};

static void *load_side(void *arg)
{
	struct side_load *s = arg;

	s->err = bpf_object__load(s->obj);
	return NULL;
}

static struct bpf_object *open_copy(struct bpf_object *main, const void *elf,
				    size_t sz)
{
	LIBBPF_OPTS(bpf_object_open_opts, o,
		    .object_name = bpf_object__name(main));
	struct bpf_object *obj = bpf_object__open_mem(elf, sz, &o);
	struct bpf_program *prog;

	if (!obj)
		return NULL;
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	return obj;
}

/* the maps as main would create them: its sizes and its global data as
 * configured so far (.rodata is frozen at creation, so it must be final) */
static int create_maps(struct bpf_object *main, struct bpf_object *maps)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, main) {
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
	return bpf_object__load(maps);
}

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

int vg_split_load(struct bpf_object *main, const void *elf, size_t sz,
		  const char *name, int (*load_main)(void *arg), void *arg,
		  struct bpf_object **side, struct vg_load_stats **stats)
{
	struct bpf_program *mp = bpf_object__find_program_by_name(main, name);
	struct bpf_program *sp;
	struct bpf_object *maps = NULL;
	struct side_load s = { 0 };
	pthread_t th;
	int err;

	*side = NULL;
	*stats = NULL;
	if (!mp || !bpf_program__autoload(mp))
		return load_main(arg);
	maps = open_copy(main, elf, sz);
	s.obj = open_copy(main, elf, sz);
	if (!maps || !s.obj) {
		err = -errno;
		goto out;
	}
	/* names first: take_maps renames a map to the kernel's name */
	if ((err = create_maps(main, maps)) ||
	    (err = take_maps(s.obj, maps)) || (err = take_maps(main, maps)))
		goto out;
	sp = bpf_object__find_program_by_name(s.obj, name);
	if (!sp) {
		err = -ENOENT;
		goto out;
	}
	bpf_program__set_autoload(sp, true);
	bpf_program__set_expected_attach_type(sp,
		bpf_program__expected_attach_type(mp));
	bpf_program__set_autoload(mp, false);
	*stats = vg_load_stats_arm(s.obj);
	if ((err = pthread_create(&th, NULL, load_side, &s))) {
		/* one CPU then: the side first, main after */
		load_side(&s);
		err = s.err ? s.err : load_main(arg);
	} else {
		err = load_main(arg);
		pthread_join(th, NULL);
		if (!err)
			err = s.err;
	}
	if (!err) {
		*side = s.obj;
		s.obj = NULL;
	}
out:
	bpf_object__close(s.obj);
	bpf_object__close(maps);	/* main and the side hold the maps */
	return err;
}

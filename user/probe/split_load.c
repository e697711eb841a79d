/* Programs verified beside the main object's load (split_load.h): a
 * maps-only copy of the kstep object creates the maps they share (global
 * data at main's sizes), main and the side object take them
 * (bpf_map__reuse_fd), and each loads on its own thread. The side object
 * is vg_kstep's own (no CO-RE relocation and no kfunc, so its loads need
 * neither the kernel's BTF nor a relocation pass over main's programs),
 * or, when vg_kstep does not load, a second copy of main that loads
 * vg_watch alone (it parses the kernel's BTF for itself, on that CPU). */
#include "split_load.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kstep.skel.h"
#include "vigil.skel.h"
#include "util/heap.h"

#define KSTEP_PROG "vg_kstep"
/* the longest of the others in the verifier (45 of 105 ms, six memory
 * specs), the one the side loads when vg_kstep does not */
#define WATCH_PROG "vg_watch"

/* libbpf 1.1 reads the kernel's BTF whole into one buffer, copies it into
 * another, and indexes its types: twice its size and some */
static size_t btf_reserve(void)
{
	struct stat st;

	if (stat("/sys/kernel/btf/vmlinux", &st) || st.st_size <= 0 ||
	    st.st_size > (64 << 20))
		return 0;
	return 2 * (size_t)st.st_size + (4u << 20);
}

static bool frozen(const struct bpf_map *m)
{
	return bpf_map__map_flags(m) & BPF_F_RDONLY_PROG;
}

/* An object of the ELF elf[sz] (the kstep object's, or main's own for a
 * copy), named as main so that its global data maps have main's names;
 * only its program named prog (NULL: none) loads, attached as mp is */
static struct bpf_object *open_side(struct bpf_object *main, const void *elf,
				    size_t sz, const char *prog,
				    struct bpf_program *mp)
{
	LIBBPF_OPTS(bpf_object_open_opts, o,
		    .object_name = bpf_object__name(main));
	struct bpf_object *obj;
	struct bpf_program *p;

	if (!(obj = bpf_object__open_mem(elf, sz, &o)))
		return NULL;
	bpf_object__for_each_program(p, obj) {
		bool on = prog && !strcmp(bpf_program__name(p), prog);

		bpf_program__set_autoload(p, on);
		if (on)
			bpf_program__set_expected_attach_type(p,
				bpf_program__expected_attach_type(mp));
	}
	return obj;
}

/* the kstep object; only vg_kstep loads, or (prog false) nothing */
static struct bpf_object *open_kstep(struct bpf_object *main,
				     struct bpf_program *mp, bool prog)
{
	size_t sz;
	const void *elf = kstep_bpf__elf_bytes(&sz);

	return open_side(main, elf, sz, prog ? KSTEP_PROG : NULL, mp);
}

/* A second copy of main's object that loads wp (main's WATCH_PROG)
 * alone; its maps are taken from the maps-only object (take_copy_maps),
 * so its global data is main's by construction */
static struct bpf_object *open_copy(struct bpf_object *main,
				    struct bpf_program *wp)
{
	size_t sz;
	const void *elf = vigil_bpf__elf_bytes(&sz);

	return open_side(main, elf, sz, WATCH_PROG, wp);
}

/* Is each variable of kobj's global data where main has it? (the kstep
 * program reads main's maps at its own offsets) */
static bool same_layout(struct bpf_object *kobj, struct bpf_object *main)
{
	struct btf *kb = bpf_object__btf(kobj), *mb = bpf_object__btf(main);
	int n = kb ? (int)btf__type_cnt(kb) : 0;

	if (!kb || !mb)
		return false;
	for (int id = 1; id < n; id++) {
		const struct btf_type *ks = btf__type_by_id(kb, id), *ms;
		const struct btf_var_secinfo *kv, *mv;
		const char *sec = btf__name_by_offset(kb, ks->name_off);
		int mid;

		if (!btf_is_datasec(ks) || !strcmp(sec, ".maps"))
			continue;
		if ((mid = btf__find_by_name_kind(mb, sec, BTF_KIND_DATASEC)) < 0)
			return false;
		ms = btf__type_by_id(mb, mid);
		kv = btf_var_secinfos(ks);
		for (int i = 0; i < btf_vlen(ks); i++, kv++) {
			const char *name = btf__name_by_offset(kb,
				btf__type_by_id(kb, kv->type)->name_off);
			bool found = false;

			mv = btf_var_secinfos(ms);
			for (int j = 0; j < btf_vlen(ms) && !found; j++, mv++)
				found = !strcmp(name, btf__name_by_offset(mb,
					btf__type_by_id(mb, mv->type)->name_off)) &&
					mv->offset == kv->offset &&
					mv->size == kv->size;
			if (!found)
				return false;
		}
	}
	return true;
}

/* main's global data map m, made as libbpf makes it (its image written,
 * .rodata frozen: the verifier reads it), for both objects to take. An
 * fd or a negative errno. */
static int data_map(const struct bpf_map *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = bpf_map__map_flags(m));
	char name[BPF_OBJ_NAME_LEN];
	const void *init;
	unsigned zero = 0;
	size_t n;
	int fd, err;

	snprintf(name, sizeof(name), "%s", bpf_map__name(m));
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(zero),
			    bpf_map__value_size(m), 1, &o);
	if (fd < 0)
		return -errno;
	init = bpf_map__initial_value((struct bpf_map *)m, &n);
	if ((init && bpf_map_update_elem(fd, &zero, init, 0)) ||
	    (frozen(m) && bpf_map_freeze(fd))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* The maps the kstep object has, made as main configures them: a maps-
 * only kstep object makes them, its global data ones by data_map. */
static int make_maps(struct bpf_object *maps, struct bpf_object *main)
{
	struct bpf_map *c;

	bpf_object__for_each_map(c, maps) {
		struct bpf_map *m = bpf_object__find_map_by_name(main,
							bpf_map__name(c));
		int fd, err;

		if (!m)
			return -ENOENT;
		if (bpf_map__is_internal(c)) {
			if ((fd = data_map(m)) < 0)
				return fd;
			err = bpf_map__reuse_fd(c, fd);
			close(fd);
			if (err)
				return err;
			continue;
		}
		if (bpf_map__set_max_entries(c, bpf_map__max_entries(m)) ||
		    bpf_map__set_autocreate(c, bpf_map__autocreate(m)))
			return -EINVAL;
	}
	return bpf_object__load(maps);
}

/* obj's maps that maps made, by name (maps' own names: bpf_map__reuse_fd
 * renames a map after the kernel's name, which is the same here); all of
 * them when every one must be found */
static int take_maps(struct bpf_object *obj, struct bpf_object *maps,
		     bool all)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		struct bpf_map *c = bpf_object__find_map_by_name(maps,
							bpf_map__name(m));
		int err;

		if (!c) {
			if (all)
				return -ENOENT;
			continue;	/* main's alone: main makes it */
		}
		if (bpf_map__fd(c) < 0)
			continue;	/* not created (autocreate off) */
		if ((err = bpf_map__reuse_fd(m, bpf_map__fd(c))))
			return err;
	}
	return 0;
}

/* The copy of main takes every map the maps-only object made; one it did
 * not make is main's alone (a lifecycle program's), never made twice: a
 * reference to it from vg_watch would fail the copy's load, loudly. */
static int take_copy_maps(struct bpf_object *copy, struct bpf_object *maps)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, copy) {
		struct bpf_map *c = bpf_object__find_map_by_name(maps,
							bpf_map__name(m));
		int err;

		if (!c || bpf_map__fd(c) < 0) {
			if (bpf_map__set_autocreate(m, false))
				return -EINVAL;
			continue;
		}
		if ((err = bpf_map__reuse_fd(m, bpf_map__fd(c))))
			return err;
	}
	return 0;
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

/* The other CPU's part: the maps made, then the side object loaded (the
 * kstep object, or copy: main's copy); the maps' outcome is handed over
 * (maps_done) before the load, for main to take them */
struct side {
	struct bpf_object *main, *maps, *kobj;
	bool copy;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool maps_done;
	int maps_err, load_err;
};

static void *run_side(void *arg)
{
	struct side *s = arg;
	int err = make_maps(s->maps, s->main);

	if (!err && s->kobj)
		err = s->copy ? take_copy_maps(s->kobj, s->maps)
			      : take_maps(s->kobj, s->maps, true);
	pthread_mutex_lock(&s->mu);
	s->maps_err = err;
	s->maps_done = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	s->load_err = err || !s->kobj ? err : bpf_object__load(s->kobj);
	return NULL;
}

/* libbpf parses the kernel's BTF when an object's load needs it, or
 * earlier for bpf_program__set_attach_target: asked for main's first BTF
 * tracepoint here (the id libbpf would look up at the load), the parse
 * (~30 ms, the longest step of the load but the verifier's) overlaps the
 * maps' making on the other CPU instead of following it. A failure is
 * left for the load to report. */
static void parse_kernel_btf(struct bpf_object *main)
{
	static const char tp[] = "tp_btf/";
	struct bpf_program *p;

	bpf_object__for_each_program(p, main) {
		const char *sec = bpf_program__section_name(p);

		if (bpf_program__autoload(p) &&
		    !strncmp(sec, tp, sizeof(tp) - 1)) {
			bpf_program__set_attach_target(p, 0,
						       sec + sizeof(tp) - 1);
			return;
		}
	}
}

int vg_split_load(struct bpf_object *main, int (*load_main)(void *arg),
		  void *arg, struct bpf_object **side,
		  struct vg_load_stats **stats)
{
	struct bpf_program *mp = bpf_object__find_program_by_name(main,
								  KSTEP_PROG);
	struct bpf_program *wp = bpf_object__find_program_by_name(main,
								  WATCH_PROG);
	struct side s = { .main = main, .mu = PTHREAD_MUTEX_INITIALIZER,
			  .cv = PTHREAD_COND_INITIALIZER };
	bool kstep = mp && bpf_program__autoload(mp), threaded;
	/* vg_kstep alone is as long as all the rest: the side has no room
	 * for more then */
	bool watch = !kstep && wp && bpf_program__autoload(wp);
	pthread_t th;
	int err;

	*side = NULL;
	*stats = NULL;
	/* the kernel's BTF, which the main object's load reads into two
	 * fresh buffers, lands in memory faulted in at once (heap.h) */
	vg_heap_reserve(btf_reserve());
	if (!mp) {
		err = load_main(arg);
		goto out;
	}
	/* the maps, made on the other CPU, whether vg_kstep loads or not */
	if (!(s.maps = open_kstep(main, mp, false)) ||
	    (kstep && !(s.kobj = open_kstep(main, mp, true))) ||
	    (watch && !(s.kobj = open_copy(main, wp)))) {
		err = errno ? -errno : -EINVAL;
		goto out;
	}
	if (kstep && !same_layout(s.kobj, main)) {	/* a build out of step */
		err = load_main(arg);
		goto out;
	}
	s.copy = watch;
	if (s.kobj)
		*stats = vg_load_stats_arm(s.kobj);
	threaded = !pthread_create(&th, NULL, run_side, &s);
	if (threaded)
		parse_kernel_btf(main);
	else	/* one CPU then: in turn */
		run_side(&s);
	pthread_mutex_lock(&s.mu);
	while (!s.maps_done)
		pthread_cond_wait(&s.cv, &s.mu);
	pthread_mutex_unlock(&s.mu);
	err = s.maps_err;
	if (!err && !(err = take_maps(main, s.maps, false))) {
		bpf_program__set_autoload(mp, false);
		if (watch)
			bpf_program__set_autoload(wp, false);
		err = load_main(arg);
	}
	if (threaded)
		pthread_join(th, NULL);
	if (!err)
		err = s.load_err;
	if (!err) {
		*side = s.kobj;
		s.kobj = NULL;
	} else if (*stats) {	/* why the side's was refused, if it was */
		vg_load_stats_refused(*stats, s.kobj, stderr);
		*stats = NULL;
	}
out:
	vg_heap_reserve_end();
	bpf_object__close(s.kobj);
	bpf_object__close(s.maps);	/* main and the side hold the maps */
	return err;
}

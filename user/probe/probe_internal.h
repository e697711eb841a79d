/* What the files of user/probe/ share about a loaded probe set; other modules see
 * only probe.h. */
#ifndef VIGIL_PROBE_INTERNAL_H
#define VIGIL_PROBE_INTERNAL_H

#include <bpf/libbpf.h>
#include <pthread.h>
#include <stdarg.h>

#include "probe.h"
#include "sym/libs.h"
#include "ulink.h"

struct vg_dwarf_cache;

/* one breakpoint, in every thread of the process (probe_watch.c) */
struct probe_wp {
	uint64_t addr;		/* 0: a free entry */
	struct probe_wp_thread {	/* one per thread */
		struct bpf_link *link;
		int fd;		/* its perf event (the link owns it) */
	} *th;
	int nth;
	/* deleted in a drain: its breakpoints kept, for an arming later in
	 * the same drain to move (probe_watch.c); at its end released, or
	 * with keep_wps disabled (off) for an arming in a later drain */
	bool parked, off;
};

struct vg_early_load;
struct vigil_bpf;

#define VG_DEFAULT_RINGBUF (8u << 20)
#define VG_DEFAULT_KSLICES 65536

static inline size_t vg_pow2_at_least(size_t n)
{
	size_t p = 4096;

	while (p < n)
		p <<= 1;
	return p;
}

/* vg_probe_early_start's load of the whole object (probe_early.c,
 * early_load.h) */
struct vg_probe_early {
	struct vg_early_load *whole;
	struct vg_early_objs *objs;	/* what it loads (probe_early.c) */
};

/* libbpf's messages: only with VIGIL_DEBUG (probe.c) */
int vg_probe_libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			  va_list ap);
/* vigil_bpf__load(skel), as split_load.h and early_load.h call it */
int vg_probe_load_skel(void *skel);
/* Which programs skel loads: the uprobe programs (used: 1 << VG_PROG_*
 * of the plan's sites), their kernel-tier builds with ktier, and the
 * lifecycle ones with their event numbers (.rodata) as spec's events
 * need; the stack map full size only with stacks, the calls' page filter
 * only for a spec with calls checked against watched blocks
 * (probe_config.c) */
void vg_probe_config_programs(struct vigil_bpf *skel,
			      const struct vg_spec *spec, bool ktier,
			      unsigned used, bool stacks);
/* Whether the spec alone says some event may take a user stack: a
 * `backtrace` reaction, a timed property, a fault in a watched block, a
 * per-slice watch (a superset of the plan's stack events but for
 * --stacks and --leak-check, which the caller knows) */
bool vg_probe_stacks_predicted(const struct vg_spec *spec);
/* *skel, configured, not loaded: when early's object is configured the
 * same, *skel becomes it (loaded; the one given is destroyed) and 0 is
 * returned, with *kstep the object vg_kstep was loaded from (split_load.h,
 * or NULL); else -1 and *skel is for the caller to load (early's is
 * dropped). early may be NULL (probe_early.c). */
int vg_probe_early_take(struct vg_probe_early *early, struct vigil_bpf **skel,
			struct bpf_object **side);

struct vg_probe {
	const struct vg_spec *spec;
	struct vigil_bpf *skel;
	/* vg_kstep's own object, or main's copy that loaded vg_watch
	 * (split_load.h); vg_probe_prog finds a program in either */
	struct bpf_object *side_obj;
	struct ring_buffer *rb;
	/* the tracepoints */
	struct bpf_link **links;
	int *link_prog_fd;	/* the program of each link */
	int nlinks;
	/* the uprobes, by program and file (probe_links.c), and their links
	 * for the target [ngroups] */
	struct uprobe_group *groups;
	int ngroups, groups_cap;
	struct vg_ulink *glinks;
	pid_t pid;
	/* --follow-fork (probe_follow.c): each followed process has its own
	 * uprobe links, indexed like groups; per_pid false: the kernel cannot
	 * hold a child at its fork, and the target's links take any process
	 * (pid -1), filtered in BPF */
	bool per_pid;
	struct vg_kid_links *kids;
	int nkids, kids_cap;
	/* entry probes on a jmp, where a stop lands (jmp_stop.c) */
	struct vg_jmp_site *jmps;
	int njmps;
	/* vigil watch: sites carried to containers' own copies of the
	 * files (probe_remap.c) */
	struct vg_remap *remap;
	/* links being destroyed on threads of their own (probe_follow.c) */
	pthread_mutex_t reap_mu;
	pthread_cond_t reap_cv;
	int reaping;
	bool suspended;
	/* vg_probe_detach_now's closes, waited for by vg_probe_close */
	struct vg_ulinks_closing *closing;
	/* the holder of the last references once the targets are gone
	 * (late_release.h), let go at the end of vg_probe_close; -1: none */
	int late_fd;
	int ncpus;
	int kprop_map[VG_KMAX_PROPS];
	int nkprops;
	/* the events the plan holds (VG_EVF_HOLD), which a live session's
	 * own holds (probe_live.c) must not take away */
	bool plan_hold[VG_MAX_EVENTS];
	struct vg_probe_source src;	/* the in-process tier's ring */
	/* its records of this drain, copied out, delivered in time order
	 * among the BPF ring's (probe.c, vg_probe_drain) */
	struct {
		uint8_t *buf;
		size_t len, cap, at;	/* bytes; at: delivered so far */
		uint64_t last_ns;	/* the time of the last one copied */
	} pend;
	uint32_t kslot_max, kslot_cap;	/* the kernel-tier slice table */
	const struct vg_kslot *kslot_mem;	/* it, mapped read-only; or
						 * NULL (read by system calls) */
	size_t kslot_mem_len;
	/* the kernel tier's object map (probe_objmap.c), mapped; NULL:
	 * none (its three elements are not mapped); om_whole: every
	 * allocation reaches it, so the heap's range may be filed */
	struct vg_objmap *om_mem;
	size_t om_len;
	bool om_whole;
	uint64_t om_files[VG_MAX_EVENTS / 64];	/* events whose call's
						 * block it files */
	uint64_t *om_filed;	/* the objects whose globals are filed, by
				 * their lowest address */
	size_t om_nfiled;
	/* the final report's names (block_names.c): asked for once the maps
	 * change no more, the maps' live blocks copied out once many are
	 * asked for */
	bool names_frozen;
	uint32_t names_asked;	/* since the freeze (block_names.c) */
	struct vg_block_names *names;
	bool om_started;	/* set up at the exec */
	bool stop_exec;		/* the target stops at its exec for vigil */
	uint64_t *page_counts;	/* watched_pages, mapped (probe_pages.c) */
	struct bpf_program *entry, *ret;	/* the builds loaded */
	/* `write x`, `read x`, `access x`, `change` (probe_watch.c): the
	 * breakpoints armed, by id (addr 0: free) */
	struct probe_wp *wps;
	int nwps;
	char binary[4096];		/* the target's executable */
	/* `vigil unload` of a property the run started with
	 * (probe_unload.c): what it changed, to undo on a restore */
	struct probe_gone *gone;	/* [spec->nprops], NULL until then */
	struct vg_ev_conf *idle_conf;	/* [VG_MAX_EVENTS]: idle events' own */
	bool idle[VG_MAX_EVENTS];	/* no property left reacts to it */
	/* the stacks the stack map had no room for, by id - VG_STACK_SPILLED
	 * (probe_stacks.c); those not received yet read as no frames */
	struct bpf_stack_build_id (*spilled)[VG_STACK_DEPTH];
	uint32_t spilled_cap;
	/* during vg_probe_drain */
	vg_probe_cb cb;
	void *cb_ctx;
	int cb_failed;
	bool draining;	/* in vg_probe_drain: a deleted watchpoint is parked */
	bool keep_wps;	/* parked ones outlive the drain, disabled */
};

/* The uprobes (or uretprobes) of one program on one file, attached
 * together (ulink.h: one multi-uprobe link), and what it takes to attach
 * them again after vg_probe_suspend (a CRIU dump must not see the int3 in
 * the text) or for a followed process. */
struct uprobe_group {
	struct bpf_program *prog;
	char *path;
	bool retprobe;
	/* --dynamic: the event whose entry probes these are, attached only
	 * while a slice needs them (vg_probe_event_attach); -1: all run */
	int event;
	bool off;		/* --dynamic: detached until needed */
	bool idle;		/* every site's event is idle: detached
				 * (probe_unload.c) */
	int n, cap;
	uint64_t *offsets;	/* in the file */
	uint64_t *events;	/* each site's event: its cookie's low half */
};

struct vg_kid_links {
	pid_t pid;
	struct vg_ulink *glinks;	/* [ngroups] */
	/* [ngroups] or NULL: the files its links go on when they are not
	 * the groups' own (a container's copies, probe_remap.c) */
	struct vg_kid_file *files;
};

/* vigil watch (probe_remap.c): find k's own copies of the groups' files
 * through its root and carry the sites there (before its links are
 * attached); free them; the file and offsets group g is attached to in
 * pid (unchanged when they are the group's); the cache, freed. */
int vg_probe_kid_files(struct vg_probe *p, struct vg_kid_links *k,
		       struct vg_err *e);
void vg_probe_kid_files_free(struct vg_probe *p, struct vg_kid_links *k);
void vg_probe_kid_site(const struct vg_probe *p, int g, pid_t pid,
		       const char **path, const uint64_t **offsets);
void vg_probe_remap_free(struct vg_probe *p);

/* Add a site to the group of (prog, path, retprobe, dynamic event or
 * -1), made if new (starting detached when dynamic); before any attach. */
int vg_probe_add_site(struct vg_probe *p, struct bpf_program *prog,
		      const char *path, uint64_t offset, int event,
		      bool retprobe, int dynamic_event, struct vg_err *e);
/* Attach group g for one process (pid -1: any), with the process in the
 * cookies' high half (bpf/vigil.bpf.h, others_link). -1, errno set, and
 * e naming the function unless e is NULL, on failure. */
int vg_probe_attach_group(struct vg_probe *p, int g, pid_t pid,
			  struct vg_ulink *out, struct vg_err *e);
/* Attach every group not off for the target (vg_probe_open). */
int vg_probe_attach_groups(struct vg_probe *p, struct vg_err *e);
/* Attach group g for every process that lacks it (what: said in e);
 * detach group `only` (-1: every group) of every process in one go. */
int vg_probe_attach_everywhere(struct vg_probe *p, int g, const char *what,
			       struct vg_err *e);
void vg_probe_detach_group(struct vg_probe *p, int only);
/* Every uprobe link of every process taken and being closed, while the
 * caller tears down the rest (vg_probe_close); vg_ulinks_close_end waits. */
struct vg_ulinks_closing *vg_probe_detach_begin(struct vg_probe *p);
/* probe_unload.c: what vg_probe_disable_prop saved, freed */
void vg_probe_gone_free(struct vg_probe *p);
/* Destroys tracepoint links l[0..n) (NULL ones are skipped) and sets them
 * to NULL (probe_links.c) */
void vg_links_destroy(struct bpf_link **l, int n);
void vg_probe_free_groups(struct vg_probe *p);
/* Let go of the children still held at their fork, once no fork can hold
 * another (vg_probe_close). */
void vg_probe_release_held(struct vg_probe *p);
void vg_probe_free_kids(struct vg_probe *p);

/* probe_stacks.c: a VG_REC_STACK record's stack, kept for the run */
void vg_probe_keep_stack(struct vg_probe *p, const struct vg_rec_stack *r);
void vg_probe_stacks_free(struct vg_probe *p);

/* probe_drain.c: the BPF ring's callback (ring_buffer__new) */
int vg_probe_on_record(void *ctx, void *data, size_t size);

/* probe_objmap.c: the kernel tier's object map sized before the load
 * (objects 0: three elements), mapped after it; the BPF step's unknown
 * memory predicates of kernel property k added to *n and *kept */
void vg_probe_objmap_size(struct vg_probe *p, uint64_t objects);
int vg_probe_objmap_map(struct vg_probe *p, struct vg_err *e);
void vg_probe_objmap_unknown(const struct vg_probe *p, int k, uint64_t *n,
			     uint64_t *kept);
/* block_names.c: the frozen copy of the maps' blocks, freed */
void vg_probe_blocks_free(struct vg_probe *p);

/* probe_watch.c: the watchpoints parked in a drain, closed at its end */
void vg_probe_wp_flush(struct vg_probe *p);
/* the breakpoints' calls made from the CPU a thread waiting for a hold
 * waits on, if one does (watch.h's vg_watch_near), until
 * vg_probe_holds_done */
void vg_probe_near_hold(struct vg_probe *p);

/* The loaded program of the skeleton's mine: mine itself, or the one of
 * its name the side object loaded in its place (split_load.h). */
struct bpf_program *vg_probe_prog(const struct vg_probe *p,
				  struct bpf_program *mine);

#endif

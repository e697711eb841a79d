/* Filling an object map of include/vigil_objmap.h from vigil, before the
 * target runs: the in-process agent's (user/fast/fast_objmap.c, in the
 * region it shares with the target) and the kernel tier's (a BPF array,
 * bpf/kmem.bpf.h, filled by the session). What both need the same way:
 * each allocation event's part (struct vg_fast_omev), the globals of the
 * objects mapped, an attached process's heap marked lost. */
#ifndef VIGIL_OBJMAP_OM_FILL_H
#define VIGIL_OBJMAP_OM_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spec/spec.h"
#include "vigil_fast.h"
#include "vigil_objmap.h"

/* Each event's part in omev[nevents] (VG_MAX_EVENTS at most), for the
 * events seen(ctx, ev) says the map's keeper sees; false when an
 * allocation is not its to see whole (an allocation event it does not
 * see, a size the event does not read): then the heap's range must not
 * be filed (a block it missed would be "no object"). The events of one
 * call (one function at one end, bound by several specs) file its block
 * once, by the first that can. filed (NULL: not asked), a bitmap of
 * VG_MAX_EVENTS bits: the events whose call's block the map files, by
 * that event or another of the call's */
bool vg_om_fill_roles(const struct vg_spec *spec, int nevents,
		      struct vg_fast_omev *omev, uint64_t *filed,
		      bool (*seen)(void *ctx, int ev), void *ctx);
/* The data objects of every object mapped in pid, filed in m (NULL: only
 * counted); how many */
size_t vg_om_fill_globals(struct vg_objmap *m, pid_t pid);
/* the same for the objects take(ctx, its lowest address) takes (the
 * ones not filed yet, at the loader's rendezvous) */
size_t vg_om_fill_globals_if(struct vg_objmap *m, pid_t pid,
			     bool (*take)(void *ctx, uint64_t start),
			     void *ctx);
/* The data objects of the file at path: how many */
size_t vg_om_fill_count_file(const char *path);
/* An attached process's heap so far: blocks the map never saw, unknown */
void vg_om_fill_heap_lost(struct vg_objmap *m, pid_t pid);

#endif

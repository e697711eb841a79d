/* The object map's code (include/vigil_objmap.h) as BPF, on its own: one
 * program that runs one operation per call, so that
 * tests/unit/test_objmap_bpf.c can run it with BPF_PROG_TEST_RUN and
 * compare each answer, and the map's bytes, with the user-space build's.
 *
 * Syscall programs, not uprobes: uprobe (kprobe) programs have no test
 * run, and what is tested here is the map code, which the verifier checks
 * alike in both (bpf_loop, array map lookups, atomics on map values). The
 * operation comes in the context and the answer goes back in it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);		/* buckets + 1, set by the loader */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, union vg_om_elem);
} objmap SEC(".maps");

#define VG_OM_MAP objmap
#include "vigil_objmap.h"
#include "objmap_test.h"

/* one program an operation, as a probe would use them */
SEC("syscall")
int om_insert(struct om_call *c)
{
	c->ret = vg_om_insert(0, c->base, c->len, c->kind, c->site);
	return 0;
}

SEC("syscall")
int om_lookup(struct om_call *c)
{
	struct vg_om_obj o;

	c->ret = vg_om_lookup(0, c->base, &o);
	c->obj = o;
	return 0;
}

SEC("syscall")
int om_free(struct om_call *c)
{
	c->ret = vg_om_free(0, c->base);
	return 0;
}

SEC("syscall")
int om_remove(struct om_call *c)
{
	c->ret = vg_om_remove(0, c->base, c->kind);
	return 0;
}

SEC("syscall")
int om_lost(struct om_call *c)
{
	vg_om_mark_lost(0, c->base, c->len);
	c->ret = 0;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

/* One operation of tests/bpf/objmap_test.bpf.c: the program's context,
 * written by tests/unit/test_objmap_bpf.c, the answer written back */
#ifndef OBJMAP_TEST_H
#define OBJMAP_TEST_H

struct om_call {
	__u32 kind, site;
	__s32 ret, pad;
	__u64 base, len;	/* om_lookup: the pointer in base */
	struct vg_om_obj obj;
};

#endif

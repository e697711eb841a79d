// SPDX-License-Identifier: GPL-2.0
/* vg_creq: valgrind's client requests (include/vigil_creq.h). Attached at
 * the `xchg %rbx,%rbx` of each request the plan found in the program's
 * and its libraries' code (user/sym/creq_scan.c), with the leak hold's
 * client-request event as cookie. It reads the request array %rax points
 * to into slots 0..5 and hands the requests vigil acts on to the event's
 * usual path: a leak check or the leak counts (VG_EVF_CREQ_LEAKS) with a
 * hold that stops the process for the scan; the requests that tell
 * memcheck not to report (VG_EVF_CREQ_ERRS) with no hold. Any other
 * request is no event. It writes nothing:
 * %rdx keeps the default the program put there, as natively. */
#include "vigil.bpf.h"
#include "vigil_creq.h"

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe")
int vg_creq(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 event = (__u32)cookie;
	__u64 slot[VG_NSLOTS] = {};
	struct vg_ev_conf *conf;
	__u32 tid, tgid;
	bool leak;

	if (!is_target_in(&tid, &tgid) || others_link(cookie, false, tgid))
		return 0;
	if (bpf_probe_read_user(slot, VG_CREQ_WORDS * sizeof(__u64),
				(void *)PT_REGS_RC(ctx)))
		return 0;
	conf = bpf_map_lookup_elem(&ev_conf, &event);
	if (!conf)
		return 0;
	leak = VG_CREQ_LEAK_REQ(slot[0]);
	if (leak ? !(conf->flags & VG_EVF_CREQ_LEAKS)
		 : !(VG_CREQ_ERRS_REQ(slot[0]) &&
		     (conf->flags & VG_EVF_CREQ_ERRS)))
		return 0;
	/* only a leak request holds the process; the others are state
	 * user space keeps, in order with the accesses they silence */
	return handle_conf(ctx, conf, event, tid, slot, false, false, false,
			   leak, 0);
}

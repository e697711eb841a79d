/* What this machine's kernel lets vigil do, each answer a check run now
 * (a map created, a program loaded or refused, a uprobe hit), never a
 * guess from a version number: for `vigil doctor`, as `criu check` and
 * `bpftrace --info` report theirs. */
#ifndef VIGIL_PROBE_MACHINE_H
#define VIGIL_PROBE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

/* One check's answer: works or not, and what was seen, for the user */
struct vg_check {
	bool ok;
	char what[1024];
};

/* the kernel's BTF (/sys/kernel/btf/vmlinux), as libbpf parses it */
void vg_machine_btf(struct vg_check *c);
/* a BPF ring buffer map */
void vg_machine_ringbuf(struct vg_check *c);
/* a BPF program on a uprobe of vigil's own code, called: the count of
 * its runs */
void vg_machine_uprobe(struct vg_check *c);
/* the verifier takes a program that calls bpf_send_signal_thread (the
 * kernel tier's stop at the call) */
void vg_machine_send_signal_thread(struct vg_check *c);
/* the verifier takes a program that calls bpf_timer_init (the kernel
 * tier's timeouts) */
void vg_machine_timers(struct vg_check *c);

#endif

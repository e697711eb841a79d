/* Feature probes of the running kernel (features.h). The BTF ones read
 * /sys/kernel/btf/vmlinux once; the others load a program or open a perf
 * event, as the modules that use them always did (ulink.c, rewind.c,
 * watch.c), and are asked through them. */
#include "features.h"
#include "debugregs.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rewind.h"
#include "ulink.h"
#include "watch.h"

/* What the kernel's BTF says, read once: the parsed BTF (its ~5 MB raw,
 * more parsed) is freed at once, not kept for the run's life, and every
 * answer a run asks before its load comes from this one reading. */
static struct {
	bool copy_str, send_signal_task, task_from_pid;
	int exit_args;		/* sched_process_exit's arguments; -1 unknown */
	int do_exit_id;		/* do_exit's BTF id; -1 none */
	/* byte offsets of task_struct.mm and mm_struct.brk; 0: unknown */
	uint32_t off_mm, off_brk;
} kbtf = { .exit_args = -1, .do_exit_id = -1 };
static pthread_once_t kbtf_once = PTHREAD_ONCE_INIT;

/* a kfunc the kernel's BTF declares (a kfunc is a BTF function there),
 * or any function it describes */
static bool has_func(const struct btf *b, const char *name)
{
	return btf__find_by_name_kind(b, name, BTF_KIND_FUNC) >= 0;
}

/* The tracepoint's BTF: typedef btf_trace_NAME, a pointer to a function
 * whose first parameter is the tracepoint's data, then its arguments. */
static int tp_args(const struct btf *b, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	if ((id = btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF)) < 0)
		return -1;
	t = btf__type_by_id(b, btf__resolve_type(b, id));
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(b, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

/* The byte offset of member name in struct type id, looked for in its
 * anonymous members too (mm_struct's fields sit in one); 0: none */
static uint32_t member_off(const struct btf *b, int id, const char *name,
			   int depth)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	const struct btf_member *m;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || depth > 4)
		return 0;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(b, m->name_off);
		uint32_t at = btf_member_bit_offset(t, i) / 8, in;

		if (n && !strcmp(n, name))
			return at;
		if ((!n || !*n) &&
		    (in = member_off(b, btf__resolve_type(b, m->type), name,
				     depth + 1)))
			return at + in;
	}
	return 0;
}

static uint32_t struct_member(const struct btf *b, const char *st,
			      const char *name)
{
	int id = btf__find_by_name_kind(b, st, BTF_KIND_STRUCT);

	return id < 0 ? 0 : member_off(b, id, name, 0);
}

static void read_btf(void)
{
	struct btf *b = btf__load_vmlinux_btf();

	if (!b || libbpf_get_error(b))
		return;
	kbtf.copy_str = has_func(b, "bpf_copy_from_user_str");
	kbtf.send_signal_task = has_func(b, "bpf_send_signal_task");
	kbtf.task_from_pid = has_func(b, "bpf_task_from_pid");
	kbtf.exit_args = tp_args(b, "sched_process_exit");
	kbtf.do_exit_id = btf__find_by_name_kind(b, "do_exit", BTF_KIND_FUNC);
	kbtf.off_mm = struct_member(b, "task_struct", "mm");
	kbtf.off_brk = struct_member(b, "mm_struct", "brk");
	btf__free(b);
}

static void kernel_btf(void)
{
	pthread_once(&kbtf_once, read_btf);
}

static bool say(const char **why, bool yes, const char *yes_why,
		const char *no_why)
{
	if (why)
		*why = yes ? yes_why : no_why;
	return yes;
}

bool vg_feat_copy_from_user_str(const char **why)
{
	kernel_btf();
	return say(why, kbtf.copy_str,
		   "kfunc bpf_copy_from_user_str",
		   "no kfunc bpf_copy_from_user_str (Linux 6.12): a string's pages are faulted in, then read");
}

bool vg_feat_brk_offsets(uint32_t *off_mm, uint32_t *off_brk)
{
	kernel_btf();
	*off_mm = kbtf.off_mm;
	*off_brk = kbtf.off_brk;
	return kbtf.off_mm && kbtf.off_brk;
}

bool vg_feat_send_signal_task(const char **why)
{
	kernel_btf();
	return say(why, kbtf.send_signal_task,
		   "kfunc bpf_send_signal_task",
		   "no kfunc bpf_send_signal_task (Linux 6.13): a BPF program cannot stop another thread");
}

bool vg_feat_task_from_pid(const char **why)
{
	kernel_btf();
	return say(why, kbtf.task_from_pid,
		   "kfunc bpf_task_from_pid",
		   "no kfunc bpf_task_from_pid (Linux 6.2)");
}

bool vg_feat_exit_group_dead(const char **why)
{
	static int n = -2;

	if (n == -2)	/* VIGIL_NO_EXIT_GROUP_DEAD: test the fallback */
		n = getenv("VIGIL_NO_EXIT_GROUP_DEAD") ? 1
						       : (kernel_btf(), kbtf.exit_args);
	return say(why, n >= 2, "sched_process_exit(p, group_dead)",
		   "sched_process_exit has no group_dead (Linux 6.16): the last thread is told by counting them in do_exit");
}

/* An fentry program on the function of BTF id `id` loads: the kernel has
 * BPF trampolines (some builds leave out the function tracer they need)
 * and lets it attach. */
static bool fentry_loads(int id)
{
	struct bpf_insn insns[2];
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	int fd;

	if (id < 0)
		return false;
	o.attach_btf_id = (__u32)id;
	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;	/* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "vg_fentry_probe", "GPL",
			   insns, 2, &o);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool vg_feat_exit_fentry(const char **why)
{
	static int ok = -1;

	if (ok < 0)
		ok = (kernel_btf(), fentry_loads(kbtf.do_exit_id));
	return say(why, ok, "an fentry program on do_exit loads",
		   "no fentry program on do_exit (no BPF trampolines in this build)");
}

bool vg_feat_uprobe_multi(const char **why)
{
	return say(why, vg_ulink_multi(), "multi-uprobe links",
		   "no multi-uprobe links (Linux 6.6), or VIGIL_NO_UPROBE_MULTI: one uprobe per site");
}

bool vg_feat_rewind(const char **why)
{
	return say(why, vg_rewind_supported(),
		   "a probe may move the thread back to the call",
		   "a probe may not write the thread's registers, or VIGIL_NO_REWIND: a kernel-tier stop lands just after the call's first instruction");
}

bool vg_feat_ktimer(const char **why)
{
	kernel_btf();
	return say(why, !getenv("VIGIL_NO_KTIMER") && kbtf.send_signal_task &&
			kbtf.task_from_pid,
		   "the kernel tier's timer can stop a thread",
		   "no bpf_send_signal_task (Linux 6.13) or bpf_task_from_pid, or VIGIL_NO_KTIMER: timed properties run in the user tier");
}

bool vg_feat_debug_regs(const char **why)
{
	return say(why, vg_debug_regs() != VG_REGS_SILENT, "the debug registers fire",
		   "the debug registers do not fire (a hypervisor that does not pass them on): no hardware watchpoints");
}

const struct vg_kfeature vg_kfeatures[] = {
	{ "copy_from_user_str", vg_feat_copy_from_user_str },
	{ "send_signal_task", vg_feat_send_signal_task },
	{ "task_from_pid", vg_feat_task_from_pid },
	{ "exit_group_dead", vg_feat_exit_group_dead },
	{ "exit_fentry", vg_feat_exit_fentry },
	{ "uprobe_multi", vg_feat_uprobe_multi },
	{ "rewind", vg_feat_rewind },
	{ "ktimer", vg_feat_ktimer },
	{ "debug_regs", vg_feat_debug_regs },
	{ NULL, NULL },
};

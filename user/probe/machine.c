/* What the kernel lets vigil do, checked (user/probe/machine.h). The
 * programs here are a few instructions each, written out as bytecode:
 * they need no object file, no BTF and no skeleton, so each check tests
 * one thing. */
#include "machine.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ST_W(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define LDX_DW(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* r = the map whose fd is f (two instructions) */
#define LD_MAP(r, f)	INSN(BPF_LD | BPF_DW | BPF_IMM, r, BPF_PSEUDO_MAP_FD, 0, f), \
			INSN(0, 0, 0, 0, 0)

/* the verifier's first words of refusal, for the user */
static void refusal(struct vg_check *c, const char *log, int err)
{
	const char *l = log, *nl;
	char last[200] = "";

	/* the last line that is not the verifier's statistics */
	while (*l) {
		nl = strchr(l, '\n');
		if (!nl)
			nl = l + strlen(l);
		if (nl > l && strncmp(l, "processed ", 10) &&
		    strncmp(l, "verification time", 17))
			snprintf(last, sizeof(last), "%.*s", (int)(nl - l), l);
		l = *nl ? nl + 1 : nl;
	}
	snprintf(c->what, sizeof(c->what), "the verifier refuses it: %s",
		 last[0] ? last : strerror(err));
}

/* load a kprobe-type program (what uprobes run); its fd, or -1 with c
 * saying why */
static int load(struct vg_check *c, const struct bpf_insn *insns, size_t n)
{
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "vg_doctor", "GPL",
			       insns, n, &o);

	if (fd < 0)
		refusal(c, log, errno);
	return fd;
}

void vg_machine_btf(struct vg_check *c)
{
	struct btf *b = btf__load_vmlinux_btf();

	c->ok = b != NULL;
	if (b)
		snprintf(c->what, sizeof(c->what), "/sys/kernel/btf/vmlinux, %u types",
			 btf__type_cnt(b));
	else
		snprintf(c->what, sizeof(c->what), "the kernel's BTF cannot be read: %s (a kernel built with CONFIG_DEBUG_INFO_BTF=y has it)",
			 strerror(errno));
	btf__free(b);
}

void vg_machine_ringbuf(struct vg_check *c)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "vg_doctor", 0, 0,
				4096, NULL);

	c->ok = fd >= 0;
	snprintf(c->what, sizeof(c->what), "%s",
		 fd >= 0 ? "a 4 KiB BPF ring buffer made" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* the function the uprobe check probes: out of line, not folded away */
__attribute__((noinline, used)) int vg_machine_probed(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

/* where f is in the file mapped at it: its offset, from /proc/self/maps */
static int file_offset(const void *f, char *path, size_t len, uint64_t *off)
{
	uintptr_t a = (uintptr_t)f, lo, hi;
	unsigned long long foff;
	char line[4400], p[4096];
	FILE *m = fopen("/proc/self/maps", "re");
	int rc = -1;

	if (!m)
		return -1;
	while (rc && fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%lx %*s %llx %*s %*s %4095s", &lo, &hi,
			   &foff, p) == 4 && a >= lo && a < hi) {
			snprintf(path, len, "%s", p);
			*off = a - lo + foff;
			rc = 0;
		}
	fclose(m);
	return rc;
}

static int uprobe_pmu(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	int t = -1;

	if (f) {
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

void vg_machine_uprobe(struct vg_check *c)
{
	char path[4096];
	uint64_t off, hits = 0;
	uint32_t key = 0;
	int map = -1, prog = -1, pe = -1, type = uprobe_pmu();
	struct perf_event_attr a = { .size = sizeof(a) };

	c->ok = false;
	if (type < 0) {
		snprintf(c->what, sizeof(c->what), "no uprobe PMU (/sys/bus/event_source/devices/uprobe): a kernel with CONFIG_UPROBE_EVENTS=y has it");
		return;
	}
	if (file_offset((const void *)vg_machine_probed, path, sizeof(path),
			&off)) {
		snprintf(c->what, sizeof(c->what), "vigil's own code is not in /proc/self/maps");
		return;
	}
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "vg_doctor", 4, 8, 1, NULL);
	if (map < 0) {
		snprintf(c->what, sizeof(c->what), "a BPF array: %s", strerror(errno));
		return;
	}
	/* the count in the map's one slot goes up by one a hit */
	struct bpf_insn insns[] = {
		ST_W(BPF_REG_10, -4, 0),
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, -4),
		LD_MAP(BPF_REG_1, map),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 3),
		LDX_DW(BPF_REG_1, BPF_REG_0, 0),
		ADD_IMM(BPF_REG_1, 1),
		STX_DW(BPF_REG_0, BPF_REG_1, 0),
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
	};
	if ((prog = load(c, insns, sizeof(insns) / sizeof(insns[0]))) < 0)
		goto out;
	a.type = (uint32_t)type;
	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = off;
	pe = (int)syscall(SYS_perf_event_open, &a, getpid(), -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (pe < 0 || ioctl(pe, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(pe, PERF_EVENT_IOC_ENABLE, 0)) {
		snprintf(c->what, sizeof(c->what), "a uprobe on %.200s+0x%llx: %s",
			 path, (unsigned long long)off, strerror(errno));
		goto out;
	}
	for (int i = 0; i < 3; i++)
		vg_machine_probed(i);
	bpf_map_lookup_elem(map, &key, &hits);
	c->ok = hits == 3;
	snprintf(c->what, sizeof(c->what), "a BPF program on a uprobe of vigil's own function ran %llu times for its 3 calls",
		 (unsigned long long)hits);
out:
	if (pe >= 0)
		close(pe);
	if (prog >= 0)
		close(prog);
	close(map);
}

/* a program that calls helper f with its arguments zeroed: loads or not */
static void takes_helper(struct vg_check *c, int f, const char *name)
{
	struct bpf_insn insns[] = {
		MOV_IMM(BPF_REG_1, 0),
		MOV_IMM(BPF_REG_2, 0),
		MOV_IMM(BPF_REG_3, 0),
		CALL(f),
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
	};
	int fd = load(c, insns, sizeof(insns) / sizeof(insns[0]));

	c->ok = fd >= 0;
	if (fd >= 0) {
		snprintf(c->what, sizeof(c->what), "a uprobe program may call %s", name);
		close(fd);
	}
}

void vg_machine_send_signal_thread(struct vg_check *c)
{
	takes_helper(c, BPF_FUNC_send_signal_thread, "bpf_send_signal_thread");
}

void vg_machine_timers(struct vg_check *c)
{
	/* libbpf's own probe, in the program type of uprobes (it cannot
	 * probe a tracing program, which needs a target) */
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
					BPF_FUNC_timer_init, NULL);

	c->ok = r == 1;
	snprintf(c->what, sizeof(c->what), "%s",
		 r == 1 ? "the verifier knows bpf_timer_init"
		 : r == 0 ? "the verifier does not know bpf_timer_init"
			  : strerror(-r));
}

/* What the live gdb session (scripts/gdb/vigil.py) asks of the
 * in-process tier, over the control channel:
 *
 *   patches              every patched function: its address, the bytes
 *                        the patch covers (the file's), its stubs and its
 *                        relocated first instructions; gdb keeps its
 *                        breakpoints off the patch, puts a thread the
 *                        entry stub stopped back on the call, and
 *                        `vigil patches` lists them
 *   fast-rewound T H RSP gdb put thread T back on hook H's call at entry
 *                        %rsp RSP: the agent does not report it again
 *   fast-returns         the return addresses the agent swapped for its
 *                        return stubs, per thread (the `returns` of the
 *                        uretprobes, for bt and finish)
 *
 * vigil cannot do the rewind itself there (fast_rewind.c): gdb is the
 * thread's tracer, and has its registers. */
#include "fast_internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "vigil_fast.h"

static json_t *patches(struct vg_fast_run *f, char **text)
{
	struct vg_fast_hook_view v;
	json_t *arr = json_array();
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m)
		fprintf(m, "%-20s %-18s %-4s %-30s %s\n", "function", "address",
			"len", "original bytes", "entry stub / relocated");
	for (int i = 0; !vg_fast_hook_view(f, i, &v); i++) {
		char hex[40] = "";

		for (uint32_t b = 0; b < v.patch_len && b < 16; b++)
			snprintf(hex + 2 * b, sizeof(hex) - 2 * b, "%02x",
				 v.orig[b]);
		json_array_append_new(arr, json_pack(
			"{s:i,s:s,s:s,s:I,s:I,s:i,s:s,s:I,s:I,s:I,s:I,s:b}",
			"hook", i, "name", v.name, "path", v.path,
			"offset", (json_int_t)v.off, "fn", (json_int_t)v.fn,
			"patch_len", (int)v.patch_len, "orig", hex,
			"entry", (json_int_t)v.entry,
			"stopped", (json_int_t)v.stopped,
			"reloc", (json_int_t)v.reloc,
			"ret_stub", (json_int_t)v.ret_stub,
			"returns", v.nret != 0));
		if (m)
			fprintf(m, "%-20s 0x%016" PRIx64 " %-4u %-30s 0x%" PRIx64 " / 0x%" PRIx64 "\n",
				v.name, v.fn, v.patch_len, hex, v.entry,
				v.reloc);
	}
	if (m) {
		fprintf(m, "x/i and disassemble show the original bytes (gdb reads them from the file); the program runs the patch: a jmp to the entry stub\n");
		fclose(m);
	}
	*text = buf;
	{
		uint64_t alen, agent = vg_fast_agent(f, &alen);

		return json_pack("{s:o,s:I,s:I}", "patches", arr, "agent",
				 (json_int_t)agent, "agent_len",
				 (json_int_t)alen);
	}
}

static int rewound(struct vg_fast_run *f, json_t *args, char **text,
		   struct vg_err *e)
{
	const char *t = json_string_value(json_array_get(args, 0));
	const char *h = json_string_value(json_array_get(args, 1));
	const char *r = json_string_value(json_array_get(args, 2));

	if (!t || !h || !r)
		return vg_errf(e, "usage: fast-rewound TID HOOK RSP");
	if (vg_fast_note_rewound(f, (pid_t)atoi(t), atoi(h),
				 strtoull(r, NULL, 0)))
		return vg_errf(e, "no room to note the rewound call: it is reported again when it goes on");
	*text = strdup("");
	return 1;
}

static int peek(pid_t pid, uint64_t at, void *to, size_t len)
{
	struct iovec l = { to, len }, r = { (void *)(uintptr_t)at, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* thread tid's return frames, onto arr */
static void thread_returns(struct vg_fast_run *f, pid_t pid, uint32_t tid,
			   uint64_t table, uint32_t mask, json_t *arr)
{
	const struct vg_fast_shared *sh = vg_fast_region(f);
	uint32_t h = vg_fast_thread_hash(tid);
	struct vg_fast_thread hd;
	struct vg_fast_hook_view v;
	const size_t head = offsetof(struct vg_fast_thread, fr);

	for (uint32_t i = 0; i < VG_FAST_THREAD_PROBES && i <= mask; i++) {
		uint64_t at = table + (uint64_t)((h + i) & mask) * sizeof(hd);

		if (peek(pid, at, &hd, head) || !hd.tid)
			return;
		if (hd.tid != tid)
			continue;
		for (uint32_t d = 0; d < hd.depth && d < VG_FAST_SHADOW; d++) {
			struct vg_fast_frame fr;

			if (peek(pid, at + head + d * sizeof(fr), &fr,
				 sizeof(fr)) || fr.hook >= sh->nhooks ||
			    vg_fast_hook_view(f, (int)fr.hook, &v))
				continue;
			json_array_append_new(arr, json_pack(
				"{s:i,s:I,s:I,s:I,s:s}", "tid", (int)tid,
				"slot", (json_int_t)fr.rsp,
				"ret", (json_int_t)fr.ret,
				"trampoline", (json_int_t)v.ret_stub,
				"name", v.name));
		}
		return;
	}
}

static json_t *returns(struct vg_fast_run *f)
{
	const struct vg_fast_shared *sh = vg_fast_region(f);
	pid_t pid = vg_fast_pid(f);
	uint64_t n = vg_fast_nthreads(sh->threads_size);
	uint64_t table = vg_fast_remote(f) + sh->threads_off +
			 VG_FAST_THREADS_HDR;
	json_t *arr = json_array();
	struct dirent *d;
	char path[64];
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (n && (dir = opendir(path))) {
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.')
				thread_returns(f, pid, (uint32_t)atoi(d->d_name),
					       table, (uint32_t)(n - 1), arr);
		closedir(dir);
	}
	return json_pack("{s:o}", "returns", arr);
}

int vg_fast_ctl(struct vg_fast_run *f, const char *cmd, json_t *args,
		char **text, json_t **data, struct vg_err *e)
{
	if (!strcmp(cmd, "patches")) {
		if (!f) {
			*text = strdup("no function is patched (the in-process tier is off in this run)\n");
			*data = json_pack("{s:[]}", "patches");
			return 1;
		}
		*data = patches(f, text);
		return 1;
	}
	if (!strcmp(cmd, "fast-rewound"))
		return f ? rewound(f, args, text, e)
			 : vg_errf(e, "no function is patched");
	if (!strcmp(cmd, "fast-returns")) {
		*data = f ? returns(f) : json_pack("{s:[]}", "returns");
		*text = strdup("");
		return 1;
	}
	return 0;
}

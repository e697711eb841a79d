/* The verifier's statistics (log level BPF_LOG_STATS: "verification time
 * N usec", "processed N insns") per program, read from each program's log
 * buffer after the object is loaded. libbpf 1.1 has no other way to get
 * the time per program: it loads them all in bpf_object__load. */
#include "load_stats.h"

#include <stdlib.h>
#include <string.h>

#define VG_STATS_LOG 4096	/* the statistics are a few lines */
#define VG_BPF_LOG_STATS 4

struct vg_load_stats {
	int n;
	char (*logs)[VG_STATS_LOG];
};

struct vg_load_stats *vg_load_stats_arm(struct bpf_object *obj)
{
	struct vg_load_stats *s;
	struct bpf_program *prog;
	int i = 0;

	if (!getenv("VIGIL_DEBUG"))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	bpf_object__for_each_program(prog, obj)
		s->n++;
	s->logs = calloc(s->n ? s->n : 1, sizeof(*s->logs));
	if (!s->logs) {
		free(s);
		return NULL;
	}
	bpf_object__for_each_program(prog, obj) {
		/* the statistics only, not the whole trace: that would slow
		 * the load it measures */
		bpf_program__set_log_level(prog, VG_BPF_LOG_STATS);
		bpf_program__set_log_buf(prog, s->logs[i++], VG_STATS_LOG);
	}
	return s;
}

static unsigned long long stat_after(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

/* obj's programs loaded (or, skipped != NULL, not loaded) */
static int print_programs(struct vg_load_stats *s, struct bpf_object *obj,
			  struct bpf_object *side, char *skipped, size_t cap,
			  unsigned long long *total_us, FILE *out)
{
	struct bpf_program *prog;
	int i = 0, loaded = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *log = s->logs[i++];
		struct bpf_program *sp = side ? bpf_object__find_program_by_name(
			side, bpf_program__name(prog)) : NULL;

		if (!bpf_program__autoload(prog)) {
			/* loaded by the side object, or not at all */
			if (skipped && !(sp && bpf_program__autoload(sp)))
				snprintf(skipped + strlen(skipped),
					 cap - strlen(skipped), " %s",
					 bpf_program__name(prog));
			continue;
		}
		loaded++;
		/* a program the verifier refused: its log says why (at
		 * this level, the error without the trace) */
		if (!strstr(log, "verification time ")) {
			if (*log)
				fprintf(out, "vigil: debug: verifier: %s:\n%s\n",
					bpf_program__name(prog), log);
			continue;
		}
		*total_us += stat_after(log, "verification time ");
		fprintf(out, "vigil: debug: verifier: %-12s %6llu us, %7llu insns processed\n",
			bpf_program__name(prog),
			stat_after(log, "verification time "),
			stat_after(log, "processed "));
	}
	return loaded;
}

void vg_load_stats_free(struct vg_load_stats *s)
{
	if (!s)
		return;
	free(s->logs);
	free(s);
}

void vg_load_stats_print(struct vg_load_stats *s, struct bpf_object *obj,
			 struct vg_load_stats *side_s, struct bpf_object *side,
			 unsigned long long load_ns, FILE *out)
{
	unsigned long long total_us = 0;
	char skipped[512] = "";
	int loaded;

	if (!s) {
		vg_load_stats_free(side_s);
		return;
	}
	loaded = print_programs(s, obj, side, skipped, sizeof(skipped),
				&total_us, out);
	if (side && side_s)
		loaded += print_programs(side_s, side, NULL, NULL, 0,
					 &total_us, out);
	/* the verifier's time is the sum: with a side object, some of it
	 * ran at the same time as the rest (the load's own time says) */
	fprintf(out, "vigil: debug: verifier: %d programs loaded in %llu ms (verifier %llu ms); not loaded:%s\n",
		loaded, load_ns / 1000000, total_us / 1000,
		*skipped ? skipped : " none");
	vg_load_stats_free(s);
	vg_load_stats_free(side_s);
}

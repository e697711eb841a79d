/* stdio streams for specs/lib/file.vigil. Clean by default: every stream
 * is closed, nothing is used after fclose. With a flag, one bug:
 *   --leak          a stream is never closed
 *   --use-after     fputs on a stream after its fclose
 *   --double-close  fclose twice
 * It writes to stdout and stderr too (streams it never opened). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void log_line(FILE *f, int i)
{
	fputs("line\n", f);
	fprintf(f, "%d\n", i);
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	char path[64], buf[32];
	FILE *f;

	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/tmp/vigil-files-%d-%d", getpid(), i % 4);
		f = fopen(path, "w+");
		if (!f)
			return 2;
		log_line(f, i);
		fflush(f);
		fseek(f, 0, SEEK_SET);
		if (!fgets(buf, sizeof(buf), f))
			return 3;
		if (!strcmp(bug, "--leak") && i == 7) {
			unlink(path);
			continue;	/* the bug: never closed */
		}
		fclose(f);
		if (!strcmp(bug, "--use-after") && i == 9)
			log_line(f, i);	/* the bug */
		if (!strcmp(bug, "--double-close") && i == 11)
			fclose(f);	/* the bug */
		unlink(path);
	}
	fprintf(stderr, "files: done\n");
	printf("files: done\n");
	return 0;
}

/* A target that forks and execs (tests/e2e/fork_exec.sh, fork_perpid.sh).
 *   forker PROG     calls work(0..9), forks a child that calls
 *                   work(100..104) and exits 4, waits for it, then execs
 *                   PROG
 *   forker --self   the same, but execs itself with --again, which calls
 *                   work() 3 more times and exits 0
 *   forker --idle   an unrelated process running the same code: calls
 *                   work(7) every 10 ms, for at most 60 s
 *   forker --loop N forks N children one after the other, each calling
 *                   work(100), sleeping 2 ms and exiting; prints
 *                   "forker: children=N"
 * Prints "forker: parent calls=10 child calls=5 child status=4" and, after
 * --again, "forker: again calls=3". With FORKER_HOLD=FILE in the
 * environment, the parent creates FILE.ready once its child is done and
 * waits (at most 60 s) for FILE to exist before going on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(long k)
{
	sink += k;
}

/* FORKER_HOLD: a test looks at the process while it waits here */
static void hold(void)
{
	const char *f = getenv("FORKER_HOLD");
	char ready[4200];
	struct stat st;

	if (!f)
		return;
	snprintf(ready, sizeof(ready), "%s.ready", f);
	close(open(ready, O_CREAT | O_WRONLY, 0644));
	for (int i = 0; i < 6000 && stat(f, &st); i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	int status = 0;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "--idle")) {
		for (int i = 0; i < 6000; i++) {
			work(7);
			usleep(10000);
		}
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--loop")) {
		int n = atoi(argv[2]), done = 0;

		for (int i = 0; i < n; i++) {
			child = fork();
			if (child == 0) {
				work(100);
				usleep(2000);
				_exit(0);
			}
			if (child > 0 && waitpid(child, &status, 0) == child)
				done++;
		}
		printf("forker: children=%d\n", done);
		return 0;
	}

	if (argc > 1 && !strcmp(argv[1], "--again")) {
		for (int k = 0; k < 3; k++)
			work(k);
		printf("forker: again calls=3\n");
		return 0;
	}
	for (int k = 0; k < 10; k++)
		work(k);
	child = fork();
	if (child == 0) {
		for (int k = 0; k < 5; k++)
			work(100 + k);
		/* time for an asynchronous (user-tier) stop to find it */
		usleep(300000);
		_exit(4);
	}
	waitpid(child, &status, 0);
	hold();
	printf("forker: parent calls=10 child calls=5 child status=%d\n",
	       WEXITSTATUS(status));
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "--self"))
		execl("/proc/self/exe", argv[0], "--again", (char *)NULL);
	else
		execl(argc > 1 ? argv[1] : "/bin/true",
		      argc > 1 ? argv[1] : "/bin/true", (char *)NULL);
	perror("exec");
	return 1;
}

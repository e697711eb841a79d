/* A target that forks and execs (tests/e2e/fork_exec.sh).
 *   forker PROG     calls work(0..9), forks a child that calls
 *                   work(100..104) and exits 4, waits for it, then execs
 *                   PROG
 *   forker --self   the same, but execs itself with --again, which calls
 *                   work() 3 more times and exits 0
 * Prints "forker: parent calls=10 child calls=5 child status=4" and, after
 * --again, "forker: again calls=3". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(long k)
{
	sink += k;
}

int main(int argc, char **argv)
{
	int status = 0;
	pid_t child;

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

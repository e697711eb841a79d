/* A child that frees twice a block its parent allocated, after its
 * parent is gone (tests/e2e/fork_double_free.sh): the parent allocates
 * two blocks, forks, frees its own copy of the first once (correct) and
 * exits at once, without waiting; the child waits 300 ms, then frees the
 * first block, the second, and the first again (the bug: its heap is a
 * copy of the parent's, so the block is the parent's allocation).
 * Run it with GLIBC_TUNABLES=glibc.malloc.tcache_count=0: the blocks go
 * to glibc's fastbins, whose check looks only at the last block freed,
 * and the child runs to its end. No stdio: its buffer would be a block
 * too.
 * forkfree --exec: the parent allocates a block, forks a child that execs
 * /bin/true, waits for it, frees the block: the child's copy of the
 * block goes with its exec, it is no leak of the child's. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;	/* keeps gcc from dropping the mallocs */

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

int main(int argc, char **argv)
{
	char *p = malloc(64), *q = malloc(64);

	if (argc > 1 && !strcmp(argv[1], "--exec")) {
		if (fork() == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		wait(NULL);
		free(p);
		free(q);
		say("forkfree: exec done\n");
		return 0;
	}

	sink = p;
	sink = q;
	if (fork() == 0) {
		usleep(300 * 1000);
		free(p);
		free(q);
		free(p);	/* the bug */
		say("forkfree: child done\n");
		_exit(0);
	}
	free(p);
	say("forkfree: parent done\n");
	return 0;
}

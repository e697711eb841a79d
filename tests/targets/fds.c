/* File descriptors for specs/lib/fd.vigil. Clean by default: fds from
 * open, openat, creat, dup and socket are used and closed once; numbers
 * come back after a close: to another open, to a pipe, to opendir's own
 * open inside libc (which vigil cannot bind), and are then used and closed
 * rightly. With a flag, one bug:
 *   --leak          an fd from open is never closed
 *   --use-after     write on an fd closed earlier, after another open
 *                   (which got a different number)
 *   --double-close  close twice
 * It says what it did with write(2) on fd 1, which it never opens. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static int nopen, nopenat, ncreat;

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

static int open_file(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	nopen++;
	return open(path, O_RDWR | O_CREAT, 0600);
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	char line[128], buf[16];
	int a, b, c, d, p[2];

	snprintf(dir, sizeof(dir), "/tmp/vigil-fds-%d", getpid());
	if (mkdir(dir, 0700))
		return 2;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	nopen++;
	for (int i = 0; i < 5; i++) {
		a = open_file("a");
		b = openat(dfd, "b", O_RDWR | O_CREAT, 0600);
		nopenat++;
		c = creat("/dev/null", 0600);
		ncreat++;
		if (a < 0 || b < 0 || c < 0)
			return 3;
		if (write(a, "abc", 3) != 3 || pwrite(b, "x", 1, 0) != 1 ||
		    lseek(a, 0, SEEK_SET) != 0 || read(a, buf, 3) != 3)
			return 4;
		d = dup(a);
		close(a);
		fsync(d);	/* a's file, through the dup */
		close(d);
		close(b);
		close(c);
	}
	/* numbers that come back: a's number to a pipe, to opendir */
	a = open_file("a");
	close(a);
	if (pipe(p))
		return 5;
	if (write(p[1], "p", 1) != 1 || read(p[0], buf, 1) != 1)
		return 6;
	close(p[0]);
	close(p[1]);
	DIR *dh = opendir(dir);	/* libc's own open, the lowest number */

	while (readdir(dh))
		;
	closedir(dh);
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (s < 0)
		return 7;
	close(s);

	/* the bugs */
	a = open_file("a");
	b = open_file("b");
	if (!strcmp(bug, "--use-after")) {
		close(b);
		close(a);
		c = open_file("c");	/* gets a's number */
		snprintf(line, sizeof(line), "fds: write to fd %d, closed\n", b);
		say(line);
		if (write(b, "late", 4) >= 0)	/* the bug */
			return 8;
		close(c);
	} else if (!strcmp(bug, "--double-close")) {
		close(b);
		snprintf(line, sizeof(line), "fds: close fd %d again\n", b);
		say(line);
		close(b);		/* the bug */
		close(a);
	} else if (!strcmp(bug, "--leak")) {
		close(a);
		snprintf(line, sizeof(line), "fds: fd %d left open\n", b);
		say(line);		/* the bug: b never closed */
	} else {
		close(b);
		close(a);
	}
	close(dfd);
	unlink(strcat(strcpy(line, dir), "/a"));
	unlink(strcat(strcpy(line, dir), "/b"));
	unlink(strcat(strcpy(line, dir), "/c"));
	rmdir(dir);
	snprintf(line, sizeof(line), "fds: done, open=%d openat=%d creat=%d dup=5 socket=1\n",
		 nopen, nopenat, ncreat);
	say(line);
	return 0;
}

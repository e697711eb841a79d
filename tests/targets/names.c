/* C strings for str(p) (tests/e2e/strings.sh): names passed as `const
 * char *`, a char array member, a `char *` member, libc's fopen (no DWARF
 * on a stock system), a NULL name and a name longer than vigil reads.
 *   names          alice and bob log in; users get "read"
 *   names --bug    also root logs in as uid 1002, and the guest gets admin
 * Prints "names: logins=N grants=M opens=1". */
#include <stdio.h>
#include <string.h>

struct user {
	int id;
	char name[16];
	const char *role;
};

static int logins, grants;

__attribute__((noinline)) int login(const char *name, int uid)
{
	logins++;
	return name ? (int)strlen(name) + uid : uid;
}

__attribute__((noinline)) void grant(struct user *u, const char *perm)
{
	grants++;
	u->id += perm[0];
}

int main(int argc, char **argv)
{
	int bug = argc > 1 && !strcmp(argv[1], "--bug");
	struct user users[] = {
		{ 1, "alice", "staff" },
		{ 2, "guest", "visitor" },
	};
	char longname[101];
	FILE *f;

	memset(longname, 'x', 100);
	longname[100] = 0;
	login("alice", 1000);
	login("bob", 1001);
	login(NULL, 7);
	login(longname, 5);
	if (bug)
		login("root", 1002);
	for (int i = 0; i < 2; i++)
		grant(&users[i], "read");
	if (bug)
		grant(&users[1], "admin");
	f = fopen("/dev/null", "r");
	if (f)
		fclose(f);
	printf("names: logins=%d grants=%d opens=1\n", logins, grants);
	return 0;
}

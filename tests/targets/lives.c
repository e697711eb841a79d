/* One object id through two lives: opened, closed, used (the bug), then
 * opened again at the same id, closed and used again (the bug of its
 * second life), for tests/e2e/tombstone_lives.sh. */
#include <stdio.h>

__attribute__((noinline)) int obj_open(int id)
{
	__asm__ volatile("" : "+r"(id));
	return id;
}

__attribute__((noinline)) void obj_use(int id)
{
	__asm__ volatile("" : : "r"(id));
}

__attribute__((noinline)) void obj_close(int id)
{
	__asm__ volatile("" : : "r"(id));
}

int main(void)
{
	obj_open(5);
	obj_close(5);
	obj_use(5);	/* life 1: use after close */
	obj_use(5);	/* the same life: no second report */
	obj_open(5);	/* life 2 */
	obj_close(5);
	obj_use(5);	/* life 2: use after close */
	obj_open(7);
	obj_use(7);
	obj_close(7);
	puts("lives: done");
	return 0;
}

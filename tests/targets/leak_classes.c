/* One block of each of memcheck's leak classes, with distinct sizes so a
 * test can tell them apart (tests/e2e/leak_check.sh):
 *   24 bytes  definitely lost (dropped outright)
 *   32 bytes  definitely lost, a struct pointing to ...
 *   16 bytes  ... indirectly lost
 *   64 bytes  possibly lost: a global holds a pointer 16 bytes into it
 *   48 bytes  still reachable: a global holds it
 *   40 bytes  still reachable: only in register r12 of a live thread
 *   56 bytes  still reachable: only on the stack of a live thread
 * Every allocation is in a function of its own, and the stack below is
 * scrubbed before anything is checked, so that no stale copy of a
 * pointer in a dead frame or a callee-saved register changes a class.
 *
 *   leak_classes [--wait FILE]   with --wait: say "ready" and wait until
 *                                FILE exists (for checks on demand) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY 0x5a5a5a5a5a5a5a5aull

struct node {
	struct node *next;
	char pad[24];
};

char *held;		/* still reachable */
char *interior;		/* possibly lost: 16 bytes into its block */
static volatile int reg_ready, stack_ready;

/* zero the stack below the caller: no stale pointer in dead frames */
static void scrub(void)
{
	volatile char buf[16384];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 0;
}

static void lose(void)
{
	char *volatile p = malloc(24);

	p[0] = 1;
	p = NULL;
}

static void lose_struct(void)
{
	struct node *n = malloc(sizeof(struct node));

	n->next = malloc(16);
	/* the stores happen (the compiler may not drop them) */
	__asm__ volatile("" : : "r"(n) : "memory");
}

static void keep_interior(void)
{
	interior = (char *)malloc(64) + 16;
}

static void keep(void)
{
	held = malloc(48);
}

/* the block's address only in r12 while the thread waits in pause(2)
 * (a raw syscall: no libc frame spills it to the stack) */
static void *reg_thread(void *arg)
{
	uintptr_t x = (uintptr_t)malloc(40) ^ KEY;

	(void)arg;
	scrub();
	__asm__ volatile("mov %0, %%r12\n\t"
			 "xor %1, %%r12\n\t"
			 "xor %0, %0\n\t"
			 "movl $1, %2\n\t"
			 "1: mov $34, %%eax\n\t"	/* SYS_pause */
			 "syscall\n\t"
			 "jmp 1b\n\t"
			 : "+r"(x)
			 : "r"(KEY), "m"(reg_ready)
			 : "rax", "rcx", "r11", "r12", "memory");
	return NULL;
}

static void *stack_thread(void *arg)
{
	void *volatile p = malloc(56);

	(void)arg;
	scrub();
	stack_ready = 1;
	for (;;)
		pause();
	return p;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	const char *wait_for = argc > 2 && !strcmp(argv[1], "--wait")
			       ? argv[2] : NULL;

	if (pthread_create(&a, NULL, reg_thread, NULL) ||
	    pthread_create(&b, NULL, stack_thread, NULL))
		return 1;
	while (!reg_ready || !stack_ready)
		usleep(1000);
	lose();
	lose_struct();
	keep_interior();
	keep();
	printf("leak_classes: ready\n");
	fflush(stdout);
	scrub();	/* for the checks on demand while it waits */
	while (wait_for && access(wait_for, F_OK))
		usleep(10000);
	scrub();
	return 0;
}

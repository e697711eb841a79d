/* A bounded queue shared by 5 producers and 20 consumers: the bundled
 * example of specs/queue_bounds.vigil.
 *
 * Correct producers take the lock and wait while the queue is full. With
 * --bug, producer 0 makes one push more than its share, skipping the lock
 * and the wait, into a queue that is full. --slow makes consumers take
 * 60 ms per item instead of 0.2 ms: a run of about 6 s, for watching it.
 * --linger waits 5 s once the threads are done, before the queue is
 * drained: time for a stop that comes a little after its event.
 *
 * It prints how many times it called each function, so tests can compare
 * vigil's per-probe counts with the truth. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRODUCERS 5
#define CONSUMERS 20
#define ITEMS 400		/* per producer */
#define CAPACITY 8

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
	int cap, count, head, tail;
	long *items;
};

static struct queue *q;
static int bug, linger, pause_us = 200;
static long npush, npop, nnew;	/* calls, counted under the lock */
static int producers_left = PRODUCERS, consumers_left = CONSUMERS;
static long to_consume = PRODUCERS * ITEMS - CAPACITY;	/* under the lock */

__attribute__((noinline)) struct queue *queue_new(int size)
{
	struct queue *nq = calloc(1, sizeof(*nq));

	pthread_mutex_init(&nq->lock, NULL);
	pthread_cond_init(&nq->not_full, NULL);
	pthread_cond_init(&nq->not_empty, NULL);
	nq->cap = size;
	nq->items = calloc(size + 1, sizeof(long));
	__atomic_fetch_add(&nnew, 1, __ATOMIC_RELAXED);
	return nq;
}

/* The caller guarantees there is room. */
__attribute__((noinline)) void queue_push(struct queue *q, long v)
{
	q->items[q->tail] = v;
	q->tail = (q->tail + 1) % (q->cap + 1);
	q->count++;
	__atomic_fetch_add(&npush, 1, __ATOMIC_RELAXED);
}

/* The caller guarantees the queue is not empty. */
__attribute__((noinline)) long queue_pop(struct queue *q)
{
	long v = q->items[q->head];

	q->head = (q->head + 1) % (q->cap + 1);
	q->count--;
	__atomic_fetch_add(&npop, 1, __ATOMIC_RELAXED);
	return v;
}

static void *producer(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&q->lock);
		while (q->count >= q->cap)
			pthread_cond_wait(&q->not_full, &q->lock);
		queue_push(q, id * 100000 + i);
		pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->lock);
	}
	__atomic_fetch_sub(&producers_left, 1, __ATOMIC_SEQ_CST);
	if (bug && id == 0) {
		/* The bug: one more push, "knowing" there is room, without
		 * the lock and without waiting for room. So that the demo
		 * overflows every time (and without a data race that would
		 * blur the count), it waits until the queue is full and every
		 * other thread is done; real bugs are rarely this polite. */
		while (__atomic_load_n(&producers_left, __ATOMIC_SEQ_CST) ||
		       __atomic_load_n(&consumers_left, __ATOMIC_SEQ_CST))
			usleep(100);
		queue_push(q, -1);
	}
	return NULL;
}

/* Consumers take all but CAPACITY items, so the queue ends full. */
static void *consumer(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (q->count == 0 && to_consume > 0)
			pthread_cond_wait(&q->not_empty, &q->lock);
		if (to_consume == 0) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		queue_pop(q);
		if (--to_consume == 0)
			pthread_cond_broadcast(&q->not_empty);
		pthread_cond_signal(&q->not_full);
		pthread_mutex_unlock(&q->lock);
		usleep(pause_us);	/* consumers are slower: the queue stays full */
	}
	__atomic_fetch_sub(&consumers_left, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bug"))
			bug = 1;
		else if (!strcmp(argv[i], "--slow"))
			pause_us = 60000;
		else if (!strcmp(argv[i], "--linger"))
			linger = 1;
	}
	q = queue_new(CAPACITY);
	for (long i = 0; i < CONSUMERS; i++)
		pthread_create(&c[i], NULL, consumer, (void *)i);
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(c[i], NULL);
	if (linger)	/* time for a stop that comes after the event */
		sleep(5);
	while (q->count > 0)	/* drain what is left, all threads done */
		queue_pop(q);
	printf("queue: calls queue_new=%ld queue_push=%ld queue_pop=%ld\n",
	       nnew, npush, npop);
	return 0;
}

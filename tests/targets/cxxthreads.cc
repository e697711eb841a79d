// std::thread, std::mutex, std::lock_guard, std::unique_lock and
// std::condition_variable as C++ programmers use them; libstdc++ runs them
// on pthreads, where specs/lib/mutex.vigil and lock_order.vigil see them
// (tests/e2e/cxx_threads.sh).
//
//   cxxthreads clean         4 producers and 2 consumers through a queue
//                            under a mutex and a condition variable (wait
//                            with a predicate, wait_for), a lock_guard
//                            counter, two mutexes always in one order
//   cxxthreads inversion     one thread takes a then b, a later one b then a
//   cxxthreads wrong-thread  a mutex locked by one thread, unlocked by another
//
// Prints "cxxthreads: done N".
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex qmu, cmu, a, b;
static std::condition_variable qcv;
static std::deque<int> q;
static bool finished;
static long counter, consumed;

static void produce(int id)
{
	for (int i = 0; i < 200; i++) {
		{
			std::lock_guard<std::mutex> g(qmu);
			q.push_back(id * 1000 + i);
		}
		qcv.notify_one();
		std::lock_guard<std::mutex> g(cmu);
		counter++;
	}
}

static void consume()
{
	for (;;) {
		std::unique_lock<std::mutex> l(qmu);
		if (!qcv.wait_for(l, std::chrono::milliseconds(2),
				  [] { return !q.empty() || finished; }))
			continue;
		qcv.wait(l, [] { return !q.empty() || finished; });
		if (q.empty() && finished)
			return;
		q.pop_front();
		consumed++;
	}
}

static void both(std::mutex &x, std::mutex &y)
{
	std::lock_guard<std::mutex> gx(x);
	std::lock_guard<std::mutex> gy(y);
	counter++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "clean";
	std::vector<std::thread> ts;

	for (int i = 0; i < 2; i++)
		ts.emplace_back(consume);
	/* the consumers wait on an empty queue first: wait_for's timed wait
	 * (pthread_cond_clockwait) then happens on every run, not only when
	 * the producers happen to fall behind (a slow build, ASan, did not) */
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	for (int i = 0; i < 4; i++)
		ts.emplace_back(produce, i);
	for (size_t i = 2; i < ts.size(); i++)
		ts[i].join();
	{
		std::lock_guard<std::mutex> g(qmu);
		finished = true;
	}
	qcv.notify_all();
	ts[0].join();
	ts[1].join();

	std::thread(both, std::ref(a), std::ref(b)).join();
	if (!strcmp(mode, "inversion"))
		std::thread(both, std::ref(b), std::ref(a)).join();
	else
		std::thread(both, std::ref(a), std::ref(b)).join();
	if (!strcmp(mode, "wrong-thread")) {
		a.lock();
		std::thread([] { a.unlock(); }).join();	/* the bug */
	}
	std::printf("cxxthreads: done %ld %ld\n", counter, consumed);
	return 0;
}

// A small C++ program as its author writes it: a class in a namespace with
// overloads, a constructor and a destructor, a template, virtual methods,
// and the C++ allocation forms (tests/e2e/cxx_names.sh, cxx_alloc.sh).
//
//   cxxqueue clean          every object made, used and destroyed right
//   cxxqueue use-after-destroy   a Queue is pushed to after its destructor
//   cxxqueue new-free       new'd object released with free()
//   cxxqueue newarr-delete  new[]'d array released with delete
//   cxxqueue malloc-delete  malloc'ed block released with delete
//   cxxqueue new-delarr     new'd object released with delete[]
//   cxxqueue newarr-free    new[]'d array released with free()
//   cxxqueue malloc-delarr  malloc'ed block released with delete[]
//   cxxqueue double-delete  the same object deleted twice
//   cxxqueue leak           three new'd objects never deleted
//   cxxqueue bad-delete     delete of a pointer into the middle of an array
//   cxxqueue use-after-delete  a write into a deleted object
//
// Prints "cxxqueue: done N" when it gets to the end.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace shop {

class Queue {
public:
	explicit Queue(int cap) : cap_(cap), n_(0), items_(new int[cap]) {}
	~Queue() { delete[] items_; items_ = nullptr; }
	__attribute__((noinline)) bool push(int v)
	{
		if (n_ == cap_)
			return false;
		items_[n_++] = v;
		return true;
	}
	__attribute__((noinline)) bool push(const char *s)
	{
		return push((int)std::strlen(s));
	}
	__attribute__((noinline)) int pop() { return n_ ? items_[--n_] : -1; }
	__attribute__((noinline)) int operator[](int i) const { return items_[i]; }
	int size() const { return n_; }

private:
	int cap_, n_;
	int *items_;
};

struct Shape {
	virtual ~Shape() {}
	virtual long area() const = 0;
};
struct Square : Shape {
	long s;
	explicit Square(long side) : s(side) {}
	__attribute__((noinline)) long area() const override { return s * s; }
};
struct Rect : Shape {
	long w, h;
	Rect(long a, long b) : w(a), h(b) {}
	__attribute__((noinline)) long area() const override { return w * h; }
};

} // namespace shop

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get() const { return v; }
};

__attribute__((noinline)) static long use_shapes()
{
	shop::Shape *s[2] = { new shop::Square(3), new shop::Rect(2, 5) };
	long total = 0;

	for (auto *x : s)
		total += x->area();
	for (auto *x : s)
		delete x;
	return total;
}

__attribute__((noinline)) static long clean()
{
	shop::Queue q(4);
	auto *h = new shop::Queue(2);
	Box<int> bi{ 7 };
	Box<long> bl{ 8 };
	int *arr = new int[16];
	void *raw = std::malloc(32);
	int *nt = new (std::nothrow) int(5);

	q.push(1);
	q.push("two");
	h->push(3);
	arr[0] = q[0];
	long r = q.pop() + h->pop() + bi.get() + bl.get() + use_shapes() + *nt;
	delete h;
	delete[] arr;
	std::free(raw);
	delete nt;
	return r;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "clean";
	/* a use after delete on its own: clean()'s deleted objects would
	 * hold the debug registers a watchpoint needs */
	long r = strcmp(mode, "use-after-delete") ? clean() : 45;

	if (!strcmp(mode, "use-after-destroy")) {
		alignas(shop::Queue) static unsigned char buf[sizeof(shop::Queue)];
		auto *q = new (buf) shop::Queue(4);

		q->push(1);
		q->~Queue();
		q->push(2);	/* the bug: its items are gone */
	} else if (!strcmp(mode, "new-free")) {
		auto *q = new shop::Queue(2);

		std::free(q);	/* the bug */
	} else if (!strcmp(mode, "newarr-delete")) {
		long *a = new long[8];

		delete a;	/* the bug: new[] needs delete[] */
	} else if (!strcmp(mode, "malloc-delete")) {
		long *m = (long *)std::malloc(sizeof(long));

		delete m;	/* the bug */
	} else if (!strcmp(mode, "new-delarr")) {
		long *o = new long(1);

		delete[] o;	/* the bug */
	} else if (!strcmp(mode, "newarr-free")) {
		long *volatile a = new long[8];	/* volatile: g++ drops the pair */

		std::free(a);	/* the bug */
	} else if (!strcmp(mode, "malloc-delarr")) {
		long *m = (long *)std::malloc(4 * sizeof(long));

		delete[] m;	/* the bug */
	} else if (!strcmp(mode, "double-delete")) {
		long *volatile o = new long(1);

		delete o;
		delete o;	/* the bug */
	} else if (!strcmp(mode, "bad-delete")) {
		long *a = new long[8];

		delete (a + 2);	/* the bug: never allocated */
	} else if (!strcmp(mode, "use-after-delete")) {
		struct Big {
			long a[8];
		} *volatile b = new Big();

		delete b;
		*(volatile long *)&b->a[3] = 42;	/* the bug: 24 bytes in, past the free list's links */
	} else if (!strcmp(mode, "leak")) {
		for (int i = 0; i < 3; i++)
			r += (long)(new shop::Queue(1) != nullptr);
	}
	std::printf("cxxqueue: done %ld\n", r);
	return 0;
}

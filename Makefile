# vigil: the build pipeline, in the order data flows through it.
#
#   /sys/kernel/btf/vmlinux --bpftool btf dump--> build/vmlinux.h
#   bpf/vigil/*.bpf.c (units: call probes, the kernel-tier interpreter,
#     lifecycle tracepoints, watchpoints; bpf/*.bpf.h shared)
#     --clang -target bpf, each on its own--> build/bpf/vigil/*.bpf.o
#   build/bpf/vigil/*.bpf.o --bpftool gen object (the BPF linker)-->
#     build/bpf/vigil.bpf.o
#   build/bpf/vigil.bpf.o --bpftool gen skeleton--> build/vigil.skel.h
#   build/bpf/vigil/kstep.bpf.o --bpftool gen object--> build/bpf/kstep.bpf.o
#     --bpftool gen skeleton--> build/kstep.skel.h   (the kernel tier's step
#     alone, verified on a thread of its own with vigil.bpf.o's maps:
#     linked first into vigil.bpf.o, so its global data has the same
#     offsets in both; user/probe/split_load.c)
#   user/**/*.c (+ skeletons) --cc--> build/libvigil.a + build/vigil
#     (user/view/static/: the --view page's files, served as they are)
#   tests/targets/*.c --cc--> build/targets/*   (programs vigil is run on)
#   tests/targets/plugin/*.c --cc -shared--> build/targets/lib*.so   (dlopen'd)
#   tests/unit/test_*.c --cc + cmocka--> build/tests/*
#
# `make demo` and `make test` run scripts/setup.sh first (fast when nothing
# is missing), so a fresh Debian 12 machine needs no other step.

CC ?= cc
CXX ?= g++
CLANG ?= clang
BPFTOOL ?= bpftool
BUILD := build

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS += -D_GNU_SOURCE -Iinclude -I$(BUILD) -Iuser
# -lstdc++: __cxa_demangle, the C++ runtime's demangler (user/sym/cxxnames.c)
# -lZydis -lZycore: x86-64 decode and encode (user/fast/reloc.c)
LDLIBS := -lbpf -ldwarf -lelf -lz -lpthread -ljansson -lstdc++ -lZydis -lZycore
# libmicrohttpd (--view, --metrics) and libsystemd (--journal) are loaded
# when first used, by the sonames of the libraries found here
# (user/util/lazylib.c): linked, their 17 libraries cost every vigil
# process its start. (A pattern: build/ and make test SANITIZE=1's
# build-san/ alike.)
soname = $(shell objdump -p $$($(CC) -print-file-name=lib$(1).so) 2>/dev/null | awk '/SONAME/ { print $$2 }')
%/obj/user/util/lazylib.o: CFLAGS += -DVG_MHD_SONAME='"$(call soname,microhttpd)"' \
	-DVG_SYSTEMD_SONAME='"$(call soname,systemd)"' \
	-DVG_CURL_SONAME='"$(call soname,curl)"'

# make test SANITIZE=1: the userspace under ASan and UBSan.
ifeq ($(SANITIZE),1)
BUILD := build-san
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror \
	-Iinclude -I$(BUILD)
# vigil's BPF units, linked into one object and one skeleton (as retsnoop
# does); a unit includes shared helpers it does not call
VG_UNITS := bpf/vigil/kstep.bpf.c $(filter-out bpf/vigil/kstep.bpf.c,$(wildcard bpf/vigil/*.bpf.c))
VG_UNIT_OBJS := $(patsubst bpf/vigil/%.bpf.c,$(BUILD)/bpf/vigil/%.bpf.o,$(VG_UNITS))
BPF_SRCS := $(wildcard bpf/*.bpf.c)	# stand-alone objects, if any
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS := $(BUILD)/vigil.skel.h $(BUILD)/kstep.skel.h $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

MAIN_SRC := user/cli/main.c
LIB_SRCS := $(filter-out $(MAIN_SRC),$(shell find user -name '*.c' | sort))
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
MAIN_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(MAIN_SRC))
# (`make` alone builds vigil and the test targets, not the first rule an
# included file happens to have)
.DEFAULT_GOAL := all

# the in-process agent, embedded in libvigil.a (inproc/Makefile.inc)
include inproc/Makefile.inc

TARGET_SRCS := $(wildcard tests/targets/*.c)
TARGETS := $(patsubst tests/targets/%.c,$(BUILD)/targets/%,$(TARGET_SRCS))
# C++ targets (tests/targets/*.cc, g++): also built once without DWARF
# (%-nodebug), whose functions vigil finds from the symbol tables alone
CXX_TARGET_SRCS := $(wildcard tests/targets/*.cc)
TARGETS += $(patsubst tests/targets/%.cc,$(BUILD)/targets/%,$(CXX_TARGET_SRCS))
TARGETS += $(patsubst tests/targets/%.cc,$(BUILD)/targets/%-nodebug,$(CXX_TARGET_SRCS))
TARGET_LIB_SRCS := $(wildcard tests/targets/plugin/*.c)
TARGET_LIBS := $(patsubst tests/targets/plugin/%.c,$(BUILD)/targets/lib%.so,$(TARGET_LIB_SRCS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNITS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all setup demo test check unit e2e targets clean bench fuzz install soak memcheck-suite test-vm
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BUILD)/vigil targets

setup:
	@bash scripts/setup.sh

# --- BPF ---------------------------------------------------------------
$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(BUILD)/bpf/vigil/%.bpf.o: bpf/vigil/%.bpf.c $(BUILD)/vmlinux.h $(wildcard include/*.h bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -Ibpf -Wno-unused-function -c $< -o $@

$(BUILD)/bpf/vigil.bpf.o: $(VG_UNIT_OBJS)
	$(BPFTOOL) gen object $@ $^

$(BUILD)/bpf/kstep.bpf.o: $(BUILD)/bpf/vigil/kstep.bpf.o
	$(BPFTOOL) gen object $@ $^

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/vmlinux.h $(wildcard include/*.h bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# --- userspace ---------------------------------------------------------
# `syscall openat(...)` events: the x86-64 system call numbers, from the
# kernel headers of linux-libc-dev
$(BUILD)/syscall_names.h: /usr/include/x86_64-linux-gnu/asm/unistd_64.h
	@mkdir -p $(@D)
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$$/{ "\1", \2 },/p' $< > $@

$(BUILD)/obj/%.o: %.c $(SKELS) $(BUILD)/syscall_names.h $(wildcard include/*.h) $(shell find user -name '*.h')
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libvigil.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/vigil: $(MAIN_OBJ) $(BUILD)/libvigil.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# --- test targets: built with symbols and frame pointers so a backtrace
# through them is readable; noinline keeps probed functions real calls.
# A target that needs a library names it in TARGET_LDLIBS.
targets: $(TARGETS) $(TARGET_LIBS)
$(BUILD)/targets/%: tests/targets/%.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o $@ $< $(TARGET_LDLIBS)
$(BUILD)/targets/%: tests/targets/%.cc
	@mkdir -p $(@D)
	$(CXX) -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o $@ $< $(TARGET_LDLIBS)
$(BUILD)/targets/%-nodebug: tests/targets/%.cc
	@mkdir -p $(@D)
	$(CXX) -O1 -fno-omit-frame-pointer -fno-inline -pthread -o $@ $< $(TARGET_LDLIBS)
$(BUILD)/targets/zstreams: TARGET_LDLIBS := -lz
$(BUILD)/targets/stmts: TARGET_LDLIBS := -lsqlite3

# libraries a target loads with dlopen (tests/targets/dlhost.c), or links
# (abba_lib.c): kept out of tests/targets/*.c, which are programs
$(BUILD)/targets/lib%.so: tests/targets/plugin/%.c $(wildcard tests/targets/plugin/*.h)
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -fPIC -shared -o $@ $<
$(BUILD)/targets/dlhost: $(wildcard tests/targets/plugin/*.h)
# a program that links one of them (its mutexes are the library's)
$(BUILD)/targets/abba_lib: $(BUILD)/targets/libabbalib.so
$(BUILD)/targets/abba_lib: TARGET_LDLIBS := -L$(BUILD)/targets -labbalib -Wl,-rpath,'$$ORIGIN'
# (its library allocates a block before the program's entry)
$(BUILD)/targets/early_free: $(BUILD)/targets/libearlyblock.so
$(BUILD)/targets/early_free: TARGET_LDLIBS := -L$(BUILD)/targets -learlyblock -Wl,-rpath,'$$ORIGIN'

# --- tests -------------------------------------------------------------
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libvigil.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libvigil.a -lcmocka $(LDLIBS)

# BPF objects of unit tests (tests/bpf/*.bpf.c: the object map's code
# through the verifier, run by BPF_PROG_TEST_RUN) and their skeletons
$(BUILD)/tests/bpf/%.bpf.o: tests/bpf/%.bpf.c $(wildcard include/*.h tests/bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -Itests/bpf -I/usr/include/$(shell $(CC) -dumpmachine) -c $< -o $@

$(BUILD)/tests/bpf/%.skel.h: $(BUILD)/tests/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BUILD)/tests/test_objmap_probe_bpf: $(BUILD)/tests/bpf/objmap_test.skel.h tests/bpf/objmap_test.h
$(BUILD)/tests/test_objmap_probe_bpf: CFLAGS += -I$(BUILD)/tests/bpf -Itests/bpf
$(BUILD)/tests/test_objmap_probe: $(wildcard include/vigil_objmap*.h)

# the in-process tier's step of kernel-tier properties, and its test

unit: $(UNITS)

# make test, check and demo build on every CPU (JOBS=1: one at a time)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

# Under SANITIZE=1 a sanitizer report must not pass for vigil's exit
# status 1 (a violation): give them statuses of their own.
test: setup
	@$(MAKE) -j$(JOBS) --no-print-directory all unit
	@BUILD=$(BUILD) ASAN_OPTIONS=exitcode=86:detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1 \
		bash tests/run.sh

# make test-vm [VM_TESTS="uaf queue_overflow_stop ..."]: tests/e2e scripts
# inside a QEMU guest (software-emulated, two CPUs) booted on Debian 12's
# own kernel, 6.1, with this checkout shared read-only (scripts/vm.sh;
# scripts/setup.sh --vm fetches QEMU, busybox and the kernel package)
test-vm: all
	@BUILD=$(BUILD) bash scripts/vm.sh $(VM_TESTS)

# make check: the unit tests and the offline end-to-end tests, without
# root (tests/check.sh drops to nobody), in well under a minute
check:
	@$(MAKE) -j$(JOBS) --no-print-directory all unit
	@BUILD=$(BUILD) bash tests/check.sh

demo: setup
	@$(MAKE) -j$(JOBS) --no-print-directory all
	@bash scripts/demo.sh $(BUILD)

# make bench [QUICK=1]: the live cost (bench/) and real programs
# (bench/real_bench.py), checkpoint and restore times (bench/checkpoint.py),
# what --view costs per event (bench/view_bench.py),
# then the monitor alone, offline (tests/bench/), and its plot against live
# slices (bench/monitor_plot.py): every figure docs/PERFORMANCE.md publishes.
include bench/Makefile.inc
include tests/bench/Makefile.inc
bench: setup bench-progs $(BUILD)/bench_monitor
	@$(MAKE) --no-print-directory $(BUILD)/vigil || echo "bench: $(BUILD)/vigil does not build: the vigil rows will be skipped"
	@QUICK=$(QUICK) BUILD=$(BUILD) bash bench/run.sh
	@python3 bench/checkpoint.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@python3 bench/fixed_cost.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--reps 1)
	@python3 bench/placement.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@python3 bench/view_bench.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@python3 bench/timeout_bench.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@python3 bench/live_bench.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@$(MAKE) --no-print-directory $(BUILD)/targets/instance
	@python3 bench/procs_bench.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@$(MAKE) --no-print-directory bench-monitor QUICK=$(QUICK)
	@python3 bench/monitor_plot.py --build $(BUILD) $(if $(filter-out 0,$(QUICK)),--quick)
	@$(MAKE) --no-print-directory memcheck-suite

# make memcheck-suite: the memory specs of specs/lib/ against valgrind's
# memcheck on memcheck's own test programs (valgrind's source package,
# fetched by apt into /var/cache/vigil/valgrind, never committed): errors
# by kind, found, missed, false (bench/memcheck_suite.py)
memcheck-suite: setup $(BUILD)/vigil
	@python3 bench/memcheck_suite.py --build $(BUILD) --jobs 2

# make soak [SOAK_SECONDS=600] [TIER=user|kernel]: 500k events/s from 8
# threads over 100k live slices; vigil's RSS must stay flat, nothing lost,
# counts exact (bench/soak.py; figures in docs/PERFORMANCE.md).
SOAK_SECONDS ?= 600
TIER ?= user
soak: setup $(BUILD)/vigil $(BUILD)/bench/soak
	@python3 bench/soak.py --build $(BUILD) --seconds $(SOAK_SECONDS) --tier $(TIER)

clean:
	rm -rf build build-san

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man page and
# the library of properties (specs/lib), which vigil.1 names under FILES.
PREFIX ?= /usr/local
# vigil agent's service (scripts/vigil-agent.service.in; systemd reads
# PREFIX/lib/systemd/system for /usr/local too) and its config directory
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
install: $(BUILD)/vigil
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/vigil/specs
	install -m 755 $(BUILD)/vigil $(DESTDIR)$(PREFIX)/bin/vigil
	install -m 644 docs/vigil.1 $(DESTDIR)$(PREFIX)/share/man/man1/vigil.1
	install -m 644 specs/lib/*.vigil $(DESTDIR)$(PREFIX)/share/vigil/specs/
	install -d $(DESTDIR)$(PREFIX)/share/vigil/view
	install -m 644 user/view/static/* $(DESTDIR)$(PREFIX)/share/vigil/view/
	install -m 644 scripts/gdb/*.py $(DESTDIR)$(PREFIX)/share/vigil/
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSCONFDIR)/vigil/agent.d
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/vigil-agent.service.in \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/vigil-agent.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/vigil-agent.service
	install -m 644 scripts/agent-example.conf $(DESTDIR)$(PREFIX)/share/vigil/agent-example.conf

# --- fuzzing (libFuzzer, clang): make fuzz [FUZZ_SECONDS=600] -------------
# Each tests/fuzz/fuzz_X.c is built with the parts of user/ that need no
# kernel and run for FUZZ_SECONDS on its corpus tests/fuzz/corpus_X/.
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_LIB_SRCS := $(wildcard user/spec/*.c user/monitor/*.c user/trace/*.c) user/util/err.c user/util/json.c user/util/lines.c
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_SRCS)
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
		-Iinclude -Iuser -I$(BUILD) -o $@ $< $(FUZZ_LIB_SRCS) $(FUZZ_EXTRA)
# a reader outside those directories comes with its fuzzer
$(BUILD)/fuzz/fuzz_monstate: FUZZ_EXTRA := user/ckpt/monstate.c
$(BUILD)/fuzz/fuzz_monstate: user/ckpt/monstate.c

fuzz: $(FUZZERS)
	@for f in $(FUZZERS); do \
		name=$$(basename $$f); corpus=tests/fuzz/corpus_$${name#fuzz_}; \
		mkdir -p $(BUILD)/fuzz/work_$$name; \
		echo "fuzz: $$name for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -detect_leaks=1 \
			$(BUILD)/fuzz/work_$$name $$corpus || exit 1; \
	done

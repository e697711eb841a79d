# inproc/kstep.c, the in-process tier's kernel-tier step (included by the
# Makefile, beside inproc/Makefile.inc, the agent's).
#
#   inproc/kstep.c --cc freestanding--> build/inproc/kstep.o   (linked into
#     the agent, which runs inside the target: no libc, position
#     independent; `nm -u` must find no symbol it would need from outside)
#   inproc/kstep.c --cc hosted--> build/obj/inproc/kstep.o   (the unit tests,
#     tests/unit/test_inproc_kstep*.c)
INPROC_CFLAGS := -O2 -fPIC -ffreestanding -fno-builtin -fno-stack-protector \
	-mgeneral-regs-only -nostdlib -std=gnu11 -Wall -Wextra -Iinclude

$(BUILD)/inproc/kstep.o: inproc/kstep.c inproc/kstep.h $(wildcard include/*.h)
	@mkdir -p $(@D)
	$(CC) $(INPROC_CFLAGS) -c $< -o $@
	@if nm -u $@ | grep -q .; then \
		echo "$@ needs symbols from outside:"; nm -u $@; rm -f $@; exit 1; fi

# its tests link it hosted (the generic rule compiles it, with this header)
$(BUILD)/obj/inproc/kstep.o: inproc/kstep.h
INPROC_KSTEP_TESTS := $(BUILD)/tests/test_inproc_kstep $(BUILD)/tests/test_inproc_kstep_diff
$(INPROC_KSTEP_TESTS): $(BUILD)/tests/%: tests/unit/%.c tests/unit/inproc_fixture.h \
		$(BUILD)/obj/inproc/kstep.o $(BUILD)/inproc/kstep.o \
		$(BUILD)/libvigil.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iinproc $(LDFLAGS) -o $@ $< $(BUILD)/obj/inproc/kstep.o \
		$(BUILD)/libvigil.a -lcmocka $(LDLIBS)

# SPDX-License-Identifier: MIT
# ipcperf: one non-recursive Makefile.
#
#   make               build build/ipcperf and build/libipcperf.a
#   make run           build, then run the quick suite
#   make check         build and run every test; SAN=1 under ASan+UBSan
#   make valgrind      the unit tests under valgrind (must be clean)
#   make bench         the overhead benchmarks in bench/ (not tests)
#   make install       PREFIX=/usr/local DESTDIR=
#   make lint          includes point down the layers, cppcheck,
#                      clang-format --dry-run (neither reads the BPF
#                      program: C for the kernel's BPF target)
#   make fuzz          every libFuzzer target in tests/fuzz/ for
#                      FUZZ_SECONDS each (60)
#
# Missing Debian packages are installed by scripts/deps.sh when run as root,
# otherwise it prints the apt-get line to run.

CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
SAN ?=
V ?=

# CFLAGS holds what a user may replace (make CFLAGS=-O0): the optimisation
# level and debug information.  Everything the project needs (the warnings,
# -Werror, -pthread, dependency files, the sanitizers of SAN=1) is added
# with override below, so a user's CFLAGS adds to the project's flags and
# never removes one.
ifeq ($(SAN),1)
BUILD := build/san
CFLAGS ?= -O1 -g
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
else
BUILD := build
CFLAGS ?= -O2 -g
SANFLAGS :=
endif

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || \
	echo unknown)

# Check (and as root, install) the Debian packages the build needs before
# pkg-config is asked about them below.
ifeq ($(filter clean lint uninstall fuzz,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell sh scripts/deps.sh build >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error missing build dependencies: see the line above)
endif
endif

PKGS := jansson libsodium
HAVE_URING := $(shell pkg-config --exists liburing 2>/dev/null && echo 1)
ifeq ($(HAVE_URING),1)
PKGS += liburing
endif
# --explain's BPF program (src/explain/) is built where libbpf, bpftool,
# clang and the kernel's BTF are; elsewhere --explain says the build is
# without it and measurements run as before.
BPF_CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
HAVE_BPF := $(shell pkg-config --exists libbpf 2>/dev/null && \
	test -x $(BPFTOOL) && command -v $(BPF_CLANG) >/dev/null 2>&1 && \
	test -r $(VMLINUX_BTF) && echo 1)
BPF_ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
ifeq ($(HAVE_BPF),1)
PKGS += libbpf
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || \
	echo -ljansson -lsodium)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wundef
override CFLAGS += -std=gnu11 $(WARN) $(SANFLAGS) -pthread -MMD -MP \
	$(PKG_CFLAGS)
override LDFLAGS += $(SANFLAGS) -pthread
# Debian's http_parser ships no pkg-config file.
override LDLIBS += $(PKG_LIBS) -lhttp_parser -lm

# The flags every object is compiled with, recorded in each report's
# "build" field (as a C string: backslashes and quotes escaped, and the
# whole in shell single quotes).
CFLAGS_USED := $(strip $(CFLAGS))
CFLAGS_CSTR := $(subst ','\'',$(subst ",\",$(subst \,\\,$(CFLAGS_USED))))
override CPPFLAGS += -Iinclude -Isrc -D_GNU_SOURCE \
	-DIPCPERF_VERSION='"$(VERSION)"' \
	-DIPCPERF_CFLAGS='"$(CFLAGS_CSTR)"' \
	-DIPC_HAVE_URING=$(if $(HAVE_URING),1,0) \
	-DIPC_HAVE_BPF=$(if $(HAVE_BPF),1,0)

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-5s %s\n' $(1) $(2)
endif

# The library is every layer folder under src/ but the CLI's, so a new
# layer (src/remote/, say) is built once it exists; scripts/layers.sh
# refuses a folder it does not know the place of.
LIB_SRC := $(sort $(filter-out src/cli/%,$(wildcard src/*/*.c)))
ifneq ($(HAVE_URING),1)
LIB_SRC := $(filter-out src/engine/io_uring.c,$(LIB_SRC))
endif
LIB_SRC := $(filter-out src/explain/%.bpf.c,$(LIB_SRC))
ifeq ($(HAVE_BPF),1)
LIB_SRC := $(filter-out src/explain/loader_none.c,$(LIB_SRC))
else
LIB_SRC := $(filter-out src/explain/loader.c,$(LIB_SRC))
endif
CLI_SRC := $(sort $(wildcard src/cli/*.c))
CLI_MAIN := src/cli/main.c
CLI_LIBSRC := $(filter-out $(CLI_MAIN),$(CLI_SRC))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
SERVER_SRC := $(sort $(wildcard tests/servers/*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_LIBSRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ := $(CLI_MAIN:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
SERVER_BIN := $(SERVER_SRC:tests/servers/%.c=$(BUILD)/tests/servers/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

LIB := $(BUILD)/libipcperf.a
LIB_RELOC := $(BUILD)/obj/libipcperf.o
# The same objects with every name visible, for the unit tests only: a test
# may check a layer's internals through its private header (as
# HdrHistogram's tests do), while the program and any other user link the
# library, which exports ipc_* alone.
LIB_TEST := $(BUILD)/obj/libipcperf-test.a
OBJCOPY ?= objcopy
BIN := $(BUILD)/ipcperf

FLAGS_STAMP := $(BUILD)/flags

.PHONY: all run check check-fleet valgrind bench install uninstall lint clean fuzz FORCE
.DEFAULT_GOAL := all
# Keep the test and bench objects make would treat as intermediate.
.SECONDARY:

all: $(BIN) $(LIB)

# Rewritten only when the compiler or its flags change, and every object
# depends on it: make CFLAGS=-O0 rebuilds everything, so the build field
# of a report always names the flags its objects were compiled with.
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(CC) $(CFLAGS_CSTR)' | cmp -s - $@ || \
		printf '%s\n' '$(CC) $(CFLAGS_CSTR)' >$@

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# --explain: the kernel's types (CO-RE: the program adapts to the kernel
# it is loaded into), the program, and the skeleton the loader embeds it
# with; nothing is compiled at run time.
BPF_GEN := $(BUILD)/gen
$(BPF_GEN)/vmlinux.h:
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c >$@.tmp && \
		mv $@.tmp $@

$(BPF_GEN)/explain.bpf.o: src/explain/explain.bpf.c \
		src/explain/explain_abi.h $(BPF_GEN)/vmlinux.h
	$(call msg,BPF,$<)
	$(Q)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
		-Wall -Werror -I$(BPF_GEN) -c -o $@ $<

$(BPF_GEN)/explain.skel.h: $(BPF_GEN)/explain.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name explain_bpf >$@.tmp && mv $@.tmp $@

EXPLAIN_LOADER := $(BUILD)/obj/src/explain/loader.o \
	build/fuzz/obj/src/explain/loader.o
$(EXPLAIN_LOADER): $(BPF_GEN)/explain.skel.h
$(EXPLAIN_LOADER): override CPPFLAGS += -I$(BPF_GEN)

# The library exports only its public names, ipc_*: its objects are linked
# into one relocatable object whose other global symbols (the layers'
# internal helpers, tp_*, eng_*, msg_*, ...) objcopy makes local, the
# static archive's equivalent of a version script.  scripts/exports.sh
# checks the result (make check).
$(LIB): $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)$(LD) -r -o $(LIB_RELOC) $^
	$(Q)$(OBJCOPY) --wildcard --keep-global-symbol='ipc_*' $(LIB_RELOC)
	$(Q)rm -f $@ && $(AR) rcs $@ $(LIB_RELOC)

$(LIB_TEST): $(LIB_OBJ)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(CLI_OBJ) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(CLI_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(CLI_OBJ) $(LIB_TEST)
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CLI_OBJ) $(LIB_TEST) $(LDLIBS)

# Servers the end-to-end tests run (a misbehaving HTTP server).
$(BUILD)/tests/servers/%: $(BUILD)/obj/tests/servers/%.o $(LIB)
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LDLIBS)

run: $(BIN)
	$(BIN)

check: $(BIN) $(TEST_BIN) $(SERVER_BIN)
	$(Q)sh scripts/deps.sh test
	$(Q)BUILD=$(BUILD) SAN=$(SAN) tests/run

# The fleet test in full (tests/e2e/fleet.sh: star, pairs at once, a
# host's network cut), about two minutes of Ansible; make check runs
# its pairs part.
check-fleet: $(BIN)
	$(Q)sh scripts/deps.sh test
	$(Q)FLEET_FULL=1 bash tests/e2e/fleet.sh

valgrind: $(TEST_BIN)
	$(Q)sh scripts/deps.sh valgrind
	$(Q)BUILD=$(BUILD) VALGRIND=1 tests/run --unit

bench: $(BIN) $(BENCH_BIN)
	$(Q)sh scripts/deps.sh bench
	$(Q)BUILD=$(BUILD) bench/run

install: $(BIN) $(LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include/ipcperf \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ipcperf
	install -m 0644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libipcperf.a
	install -m 0644 include/ipcperf/*.h $(DESTDIR)$(PREFIX)/include/ipcperf/
	install -m 0644 docs/ipcperf.1 $(DESTDIR)$(PREFIX)/share/man/man1/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ipcperf \
		$(DESTDIR)$(PREFIX)/lib/libipcperf.a \
		$(DESTDIR)$(PREFIX)/share/man/man1/ipcperf.1
	rm -rf $(DESTDIR)$(PREFIX)/include/ipcperf

lint:
	$(Q)sh scripts/deps.sh lint
	sh scripts/layers.sh
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--inline-suppr -Iinclude -Isrc -D_GNU_SOURCE \
		-DIPC_HAVE_URING=1 -isrc/explain/explain.bpf.c \
		src tests/unit tests/fuzz tests/servers bench
	clang-format --dry-run -Werror $(LIB_SRC) $(CLI_SRC) \
		$(TEST_SRC) $(SERVER_SRC) $(BENCH_SRC) $(FUZZ_SRC) include/ipcperf/*.h

# libFuzzer targets: every tests/fuzz/fuzz_NAME.c is one, picked up by
# its name alone; its seed corpus is tests/fuzz/corpus/fuzz_NAME/ (or
# corpus/NAME/).  Each is linked with the library and the CLI's
# objects built again by clang with the fuzzer's coverage and ASan+UBSan,
# so a new target is one file and a folder of seeds; one that needs a
# library the program does not link names it in FUZZ_NAME_LIBS.  `make
# fuzz` runs each for FUZZ_SECONDS (or FUZZ_TIME; FUZZ_TARGETS=NAME... for
# some only); new inputs go to build/fuzz/corpus/NAME, a crash to
# build/fuzz/crash-*.  make check builds them where clang's fuzzer runtime
# is installed and replays each one's seeds plus a fixed count of inputs
# (tests/e2e/fuzz.sh).
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SECONDS ?= $(FUZZ_TIME)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -pthread -MMD -MP \
	-fsanitize=fuzzer-no-link $(FUZZ_SAN) $(PKG_CFLAGS)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_BIN := $(FUZZ_NAMES:%=build/fuzz/fuzz_%)
FUZZ_LIBOBJ := $(LIB_SRC:%.c=build/fuzz/obj/%.o) \
	$(CLI_LIBSRC:%.c=build/fuzz/obj/%.o)
ifneq ($(filter check,$(MAKECMDGOALS)),)
HAVE_FUZZ := $(shell sh scripts/deps.sh fuzz >/dev/null 2>&1 && echo 1)
endif

# (Here, not on check's own line: make expands a prerequisite list when
# it reads it, and FUZZ_BIN and HAVE_FUZZ are set only above.)
check: $(if $(HAVE_FUZZ),$(FUZZ_BIN))

build/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,FUZZCC,$<)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

build/fuzz/libipcperf.a: $(FUZZ_LIBOBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/fuzz/fuzz_%: build/fuzz/obj/tests/fuzz/fuzz_%.o build/fuzz/libipcperf.a
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -pthread -o $@ $^ \
		$(FUZZ_$*_LIBS) $(LDLIBS)

fuzz:
	$(Q)sh scripts/deps.sh fuzz
	$(Q)$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	$(Q)for n in $(FUZZ_TARGETS); do \
		seeds=tests/fuzz/corpus/fuzz_$$n; \
		[ -d $$seeds ] || seeds=tests/fuzz/corpus/$$n; \
		mkdir -p build/fuzz/corpus/$$n && \
		echo "fuzz_$$n: $(FUZZ_SECONDS) s" && \
		build/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-print_final_stats=1 -artifact_prefix=build/fuzz/ \
			build/fuzz/corpus/$$n $$seeds || exit 1; \
	done

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj build/fuzz/obj -name '*.d' 2>/dev/null)

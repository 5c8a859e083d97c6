# SPDX-License-Identifier: MIT
# ipcperf: one non-recursive Makefile.
#
#   make               build build/ipcperf, build/libipcperf.a and
#                      build/libipcperf.so.1
#   make deps          install the Debian packages the build and the tests
#                      need (as root; otherwise prints the apt-get line)
#   make run           make deps, build, then run the quick suite
#   make check         make deps, build and run every test; SAN=1 under
#                      ASan+UBSan
#   make check-deb     build the Debian packages, install them, try them,
#                      purge them (as root)
#   make valgrind      the unit tests under valgrind (must be clean)
#   make bench         the overhead benchmarks in bench/ (not tests)
#   make install       PREFIX=/usr/local DESTDIR= (LIBDIR=, BINDIR=, ...)
#   make lint          includes point down the layers, no cycle between
#                      .c files (scripts/cycles.sh), cppcheck,
#                      clang-format --dry-run (neither reads the BPF
#                      program: C for the kernel's BPF target)
#   make fuzz          every libFuzzer target in tests/fuzz/ for
#                      FUZZ_SECONDS each (60)
#
# Only make deps, run and check install packages (scripts/deps.sh, as
# root): make, make install and make -n never change the system; a build
# missing a package stops, naming it and how to install it.

CC ?= cc
DESTDIR ?=
SAN ?=
V ?=

# CFLAGS holds what a user may replace (make CFLAGS=-O0): the optimisation
# level and debug information.  Everything the project needs (the warnings,
# -Werror, -pthread, dependency files, the sanitizers of SAN=1, -fPIC for
# the shared library) is added
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

# The release, a semantic version (NEWS); built from git, the commit is
# its build metadata (0.9.0+g1234abcd5678, .dirty with uncommitted
# changes), so --version, a report's ipcperf.version and the server's
# greeting all name both.  SO_MAJOR is the library's ABI, not the release.
RELEASE := 0.9.0
SO_MAJOR := 1
SO_VERSION := $(SO_MAJOR).0.0
# Only this tree's own repository counts (not one it was unpacked inside);
# a tree from git archive has its commit in scripts/commit (export-subst).
GIT_TOP := $(shell git rev-parse --show-toplevel 2>/dev/null)
GIT_COMMIT := $(if $(filter $(CURDIR),$(GIT_TOP)),$(shell git rev-parse \
	--short=12 HEAD 2>/dev/null))
# (--no-optional-locks: finding out never rewrites git's index.)
GIT_DIRTY := $(if $(GIT_COMMIT),$(shell git --no-optional-locks diff \
	--quiet HEAD -- 2>/dev/null || echo .dirty))
ifeq ($(GIT_COMMIT),)
GIT_COMMIT := $(shell grep -E '^[0-9a-f]{40}$$' scripts/commit 2>/dev/null | \
	cut -c1-12)
endif
VERSION := $(RELEASE)$(if $(GIT_COMMIT),+g$(GIT_COMMIT)$(GIT_DIRTY))

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# zsh reads vendor-completions under /usr (Debian), site-functions
# elsewhere (/usr/local).
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)

PKGS := jansson libsodium openssl libnghttp2
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
	echo -ljansson -lsodium -lssl -lcrypto -lnghttp2)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wundef
# -fPIC: one set of objects for the shared library, the archive and the
# program; -fno-semantic-interposition keeps calls inside the library as
# direct (and inlinable) as without it.
override CFLAGS += -std=gnu11 $(WARN) $(SANFLAGS) -pthread -MMD -MP \
	-fPIC -fno-semantic-interposition $(PKG_CFLAGS)
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
LIB_SRC := $(filter-out src/engine/io_uring.c src/pattern/zc_ring.c,$(LIB_SRC))
else
LIB_SRC := $(filter-out src/pattern/zc_ring_none.c,$(LIB_SRC))
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
# bash and zsh completion, each written by a program from the CLI's
# option table.
COMPLETION := $(BUILD)/completion/ipcperf
COMPLETION_GEN := $(BUILD)/completion/gen-bash
ZSH_COMPLETION := $(BUILD)/completion/_ipcperf
ZSH_COMPLETION_GEN := $(BUILD)/completion/gen-zsh
SO_NAME := libipcperf.so.$(SO_MAJOR)
SO := $(BUILD)/libipcperf.so.$(SO_VERSION)
# The shared library's interface: every exported name, listed, so that a
# change to it is a diff of this file (scripts/exports.sh checks both
# libraries against it).
SO_MAP := src/libipcperf.map
LIB_RELOC := $(BUILD)/obj/libipcperf.o
# The same objects with every name visible, for the program, the
# completion generators and the tests: they use what the layers share
# (src/LAYER/lib_internal.h), and a test may check a layer's internals
# through its private header (as HdrHistogram's tests do), while any
# other user links the library, which exports its public names alone.
LIB_TEST := $(BUILD)/obj/libipcperf-test.a
OBJCOPY ?= objcopy
BIN := $(BUILD)/ipcperf

FLAGS_STAMP := $(BUILD)/flags
VERSION_STAMP := $(BUILD)/version

.PHONY: all deps deps-ok run check check-bins check-tests check-fleet check-deb \
	valgrind bench install uninstall lint clean fuzz static FORCE
.DEFAULT_GOAL := all
# Keep the test and bench objects make would treat as intermediate.
.SECONDARY:

all: $(BIN) $(LIB) $(SO) $(COMPLETION) $(ZSH_COMPLETION)

# The packages the build and the tests need, installed as root (CI and a
# fresh machine: make deps, then make).  run and check call it themselves,
# so that the quick start stays two commands.
DEPS_STEPS ?= build test
deps:
	$(Q)for s in $(DEPS_STEPS); do sh scripts/deps.sh $$s || exit 1; done

# Everything compiled first checks, never installs, the build's packages:
# a missing one stops the build naming it (deps.sh --check).
deps-ok:
	$(Q)sh scripts/deps.sh --check build

# The CLI's objects print the version: rebuilt when it changes.
$(VERSION_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(CLI_OBJ) $(MAIN_OBJ): $(VERSION_STAMP)

# Rewritten only when the compiler or its flags change, and every object
# depends on it: make CFLAGS=-O0 rebuilds everything, so the build field
# of a report always names the flags its objects were compiled with.
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(CC) $(CFLAGS_CSTR)' | cmp -s - $@ || \
		printf '%s\n' '$(CC) $(CFLAGS_CSTR)' >$@

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP) | deps-ok
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

# The library exports only its public names, those $(SO_MAP) lists: its
# objects are linked into one relocatable object whose other global
# symbols (the names the layers share among themselves, ipc_* too, and
# their helpers, tp_*, eng_*, ...) objcopy makes local, the static
# archive's equivalent of a version script.  scripts/exports.sh checks
# the result (make check).
LIB_KEEP := $(BUILD)/obj/exports.txt
$(LIB): $(LIB_OBJ) $(SO_MAP)
	$(call msg,AR,$@)
	$(Q)sed -n 's/^[[:space:]]*\(ipc_[A-Za-z0-9_]*\);.*/\1/p' $(SO_MAP) \
		>$(LIB_KEEP)
	$(Q)$(LD) -r -o $(LIB_RELOC) $(LIB_OBJ)
	$(Q)$(OBJCOPY) --keep-global-symbols=$(LIB_KEEP) $(LIB_RELOC)
	$(Q)rm -f $@ && $(AR) rcs $@ $(LIB_RELOC)

# The shared library exports the names $(SO_MAP) lists and no other.  The
# program links the layers' objects themselves (the archive with every
# name visible, below): it uses what the layers share and a user of the
# library does not, and build/ipcperf runs from the tree with no library
# path to set.
$(SO): $(LIB_OBJ) $(SO_MAP)
	$(call msg,LINK,$@)
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SO_NAME) \
		-Wl,--version-script=$(SO_MAP) -Wl,--no-undefined -o $@ \
		$(LIB_OBJ) $(LDLIBS)
	$(Q)ln -sf $(@F) $(BUILD)/$(SO_NAME) && \
		ln -sf $(SO_NAME) $(BUILD)/libipcperf.so

$(LIB_TEST): $(LIB_OBJ)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(CLI_OBJ) $(LIB_TEST)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(CLI_OBJ) $(LIB_TEST) $(LDLIBS)

# The same program linked statically, libc and all: one file that runs on
# any Linux host of the architecture, with no library to install there
# (the fleet role copies it).  glibc's name lookup still loads its NSS
# modules at run time (linking says so), so on a host of another glibc
# give it addresses rather than names.  Not part of all: it needs the
# static archives of the build's -dev packages.
STATIC_BIN := $(BUILD)/ipcperf-static
static: $(STATIC_BIN)
$(STATIC_BIN): $(MAIN_OBJ) $(CLI_OBJ) $(LIB_TEST)
	$(call msg,LINK,$@)
	$(Q)$(CC) -static $(LDFLAGS) -o $@ $(MAIN_OBJ) $(CLI_OBJ) $(LIB_TEST) \
		$(shell pkg-config --static --libs $(PKGS) 2>/dev/null) \
		-lhttp_parser -lm 2>$@.log || { cat $@.log >&2; exit 1; }
	$(Q)rm -f $@.log

$(COMPLETION_GEN): $(BUILD)/obj/completion/bash.o $(CLI_OBJ) $(LIB_TEST)
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CLI_OBJ) $(LIB_TEST) $(LDLIBS)

$(COMPLETION): $(COMPLETION_GEN)
	$(call msg,GEN,$@)
	$(Q)$< >$@.tmp && mv $@.tmp $@

$(ZSH_COMPLETION_GEN): $(BUILD)/obj/completion/zsh.o $(CLI_OBJ) $(LIB_TEST)
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CLI_OBJ) $(LIB_TEST) $(LDLIBS)

$(ZSH_COMPLETION): $(ZSH_COMPLETION_GEN)
	$(call msg,GEN,$@)
	$(Q)$< >$@.tmp && mv $@.tmp $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(CLI_OBJ) $(LIB_TEST)
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CLI_OBJ) $(LIB_TEST) $(LDLIBS)

# Servers the end-to-end tests run (a misbehaving HTTP server).
$(BUILD)/tests/servers/%: $(BUILD)/obj/tests/servers/%.o $(LIB_TEST)
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB_TEST) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LDLIBS)

# run and check install what is missing first (as root), then build in
# a new make, which asks pkg-config about what is now installed.  Under
# make -n the deps.sh lines are printed, not run.
run:
	$(Q)sh scripts/deps.sh build
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(BIN)

check:
	$(Q)sh scripts/deps.sh build
	$(Q)sh scripts/deps.sh test
	$(Q)sh scripts/deps.sh fuzz >/dev/null 2>&1 || true
	$(Q)$(MAKE) --no-print-directory $(CHECK_JOBS) check-bins
	$(Q)$(MAKE) --no-print-directory check-tests

# The README's `make check` has no -j, and the test programs, the fuzz
# targets (the library again under clang) and the static program are
# minutes of compiling one file at a time: build them on every CPU unless
# the caller chose a job count (then make's jobserver is already shared).
CHECK_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))

# The static program is for the fleet test (not under SAN=1: the
# sanitizers' runtimes cannot be linked statically).
check-bins: $(BIN) $(LIB) $(SO) $(COMPLETION) $(ZSH_COMPLETION) $(TEST_BIN) $(SERVER_BIN) \
	$(if $(SANFLAGS),,$(STATIC_BIN))

check-tests: check-bins
	$(Q)BUILD=$(BUILD) SAN=$(SAN) tests/run

# The Debian packages built from a clean clone, linted, installed, tried
# and purged (tests/e2e/deb.sh, as root; about a minute); not in check,
# because it installs packages on this machine.
check-deb:
	$(Q)sh scripts/deps.sh deb
	$(Q)BUILD=$(BUILD) IPCPERF_DEB_TEST=1 TEST_TIMEOUT=900 tests/run deb.sh

# The fleet test in full (tests/e2e/fleet.sh: star, pairs at once, a
# host's network cut), about two minutes of Ansible; make check runs
# its pairs part.
check-fleet: $(BIN) $(STATIC_BIN)
	$(Q)sh scripts/deps.sh test
	$(Q)FLEET_FULL=1 bash tests/e2e/fleet.sh

valgrind: $(TEST_BIN)
	$(Q)sh scripts/deps.sh valgrind
	$(Q)BUILD=$(BUILD) VALGRIND=1 tests/run --unit

bench: $(BIN) $(BENCH_BIN)
	$(Q)sh scripts/deps.sh bench
	$(Q)BUILD=$(BUILD) bench/run

# pkg-config's file: the private dependencies are there for a static
# link (pkg-config --static); a shared link needs -lipcperf alone.
PC_REQUIRES := $(PKGS)
PC_LIBS := -lhttp_parser -lm -pthread

install: $(BIN) $(LIB) $(SO) $(COMPLETION) $(ZSH_COMPLETION)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/ipcperf $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/ipcperf
	install -m 0644 $(LIB) $(DESTDIR)$(LIBDIR)/libipcperf.a
	install -m 0644 $(SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libipcperf.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libipcperf.so
	install -m 0644 include/ipcperf/*.h $(DESTDIR)$(INCLUDEDIR)/ipcperf/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(RELEASE)|' \
		-e 's|@REQUIRES@|$(PC_REQUIRES)|; s|@LIBS@|$(PC_LIBS)|' \
		src/ipcperf.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/ipcperf.pc
	install -m 0644 docs/ipcperf.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/ipcperf
	install -m 0644 $(ZSH_COMPLETION) $(DESTDIR)$(ZSHCOMPDIR)/_ipcperf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ipcperf $(DESTDIR)$(LIBDIR)/libipcperf.a \
		$(DESTDIR)$(LIBDIR)/libipcperf.so.$(SO_VERSION) \
		$(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/libipcperf.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/ipcperf.pc \
		$(DESTDIR)$(MANDIR)/man1/ipcperf.1 $(DESTDIR)$(BASHCOMPDIR)/ipcperf \
		$(DESTDIR)$(ZSHCOMPDIR)/_ipcperf
	rm -rf $(DESTDIR)$(INCLUDEDIR)/ipcperf

# The cycle check reads the objects' symbol tables: it builds them first.
lint: $(LIB_OBJ) $(CLI_OBJ) $(MAIN_OBJ)
	$(Q)sh scripts/deps.sh lint
	sh scripts/layers.sh
	sh scripts/cycles.sh $(BUILD)/obj
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--inline-suppr -Iinclude -Isrc -D_GNU_SOURCE \
		-DIPC_HAVE_URING=1 -isrc/explain/explain.bpf.c \
		src tests/unit tests/fuzz tests/servers bench
	clang-format --dry-run -Werror $(LIB_SRC) $(CLI_SRC) \
		$(TEST_SRC) $(SERVER_SRC) $(BENCH_SRC) $(FUZZ_SRC) include/ipcperf/*.h \
		examples/*.c completion/*.c

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
ifneq ($(filter check-bins check-tests,$(MAKECMDGOALS)),)
HAVE_FUZZ := $(shell sh scripts/deps.sh --check fuzz >/dev/null 2>&1 && \
	echo 1)
endif

# (Here, not on check-bins' own line: make expands a prerequisite list
# when it reads it, and FUZZ_BIN and HAVE_FUZZ are set only above.)
check-bins: $(if $(HAVE_FUZZ),$(FUZZ_BIN))

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

# SPDX-License-Identifier: MIT
# The build: a user's CFLAGS adds to the project's flags and never removes
# one, the report's build field names the flags the binary was compiled
# with, the libraries export exactly what the version script lists, the
# public headers compile as strict ISO C, and make, make -n and make install
# never run apt-get.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
lib="$root/${BUILD:-build}/libipcperf.a"
so="$root/${BUILD:-build}/libipcperf.so.1"
map="$root/src/libipcperf.map"
flags="-std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
	-Wmissing-prototypes -Wformat=2 -Wundef -pthread -MMD -MP"

# has_flags "description" FILE: every project flag is a word of FILE.
has_flags() {
	local f missing=""
	for f in $flags; do
		grep -qw -- "$f" "$2" || missing="$missing $f"
	done
	[ -z "$missing" ]
	ok $? "$1"
	[ -z "$missing" ] || diag "missing:$missing"
}

# What make would run to compile one file with a user's CFLAGS (nothing
# is built: -n; -B so that it prints the compile even when up to date).
if command -v make >/dev/null; then
	make -C "$root" -s -n -B V=1 SAN= CFLAGS=-O0 \
		build/obj/src/cli/msg.o >"$T/make.out" 2>"$T/make.err"
	ok $? "make -n CFLAGS=-O0 runs"
	grep 'src/cli/msg.c' "$T/make.out" | grep -- ' -c ' >"$T/cc.line"
	check "the compile of one file is printed" test -s "$T/cc.line"
	check "CFLAGS=-O0: the user's -O0 is used" grep -qw -- -O0 "$T/cc.line"
	check "CFLAGS=-O0: no -O2 behind the user's back" \
		sh -c "! grep -qw -- -O2 '$T/cc.line'"
	has_flags "CFLAGS=-O0: every warning, -Werror, -pthread, -MMD -MP kept" \
		"$T/cc.line"
	make -C "$root" -s -n -B V=1 SAN=1 CFLAGS=-O0 \
		build/san/obj/src/cli/msg.o 2>/dev/null |
		grep 'src/cli/msg.c' >"$T/san.line"
	check "SAN=1 CFLAGS=-O0: the sanitizers kept" \
		grep -q -- '-fsanitize=address,undefined' "$T/san.line"
else
	skip_n=6
	for i in $(seq $skip_n); do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip make is not installed"
	done
fi

# The binary under test says how it was built.
run rr -t pipe -n 20 -w 0 -r 1 -f json
is_rc 0 "a short run for its build field"
jq -r '.ipcperf.build' "$out" >"$T/build.field"
has_flags "the build field lists the project's flags" "$T/build.field"
if [ -f "$root/${BUILD:-build}/flags" ]; then
	# The stamp holds "CC FLAGS"; the field holds FLAGS.
	stamp=$(cut -d' ' -f2- "$root/${BUILD:-build}/flags")
	[ "$stamp" = "$(cat "$T/build.field")" ]
	ok $? "the build field is the flags the objects were compiled with"
	[ "$stamp" = "$(cat "$T/build.field")" ] ||
		diag "stamp '$stamp', field '$(cat "$T/build.field")'"
fi

# The version: the release, semantic, with the commit as build metadata
# when built from git; the same string in the JSON report; the release is
# NEWS's newest entry.
run --version
release=$(sed -n 's/^RELEASE := //p' "$root/Makefile")
grep -Eq "^ipcperf $release(\+g[0-9a-f]{12}(\.dirty)?)?\$" "$out"
ok $? "--version prints the release $release (+g<commit> from git)"
diag "$(cat "$out")"
if git -C "$root" rev-parse --short=12 HEAD >"$T/head" 2>/dev/null; then
	if grep -q "+g$(cat "$T/head")" "${BUILD:-build}/version" 2>/dev/null; then
		grep -q "+g$(cat "$T/head")" "$out"
		ok $? "--version names the commit it was built from"
	else
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip the binary is older than HEAD: make first"
	fi
fi
if [ -s "$T/head" ]; then
	# A tree from git archive (the fleet's build mode) knows its commit.
	mkdir -p "$T/arch"
	git -C "$root" archive HEAD | tar -x -C "$T/arch" &&
		env -u MAKEFLAGS -u MAKELEVEL make -C "$T/arch" -s -n 2>/dev/null |
		grep -q "'$release+g$(cat "$T/head")'"
	ok $? "a git archive tree builds as $release+g$(cat "$T/head")"
	rm -rf "$T/arch"
fi
ver=$(sed 's/^ipcperf //' "$out")
run rr -t pipe -n 20 -w 0 -r 1 -f json
[ "$(jq -r '.ipcperf.version' "$out")" = "$ver" ]
ok $? "the JSON's ipcperf.version is the same release and commit"
grep -q "^$release " "$root/NEWS" 2>/dev/null &&
	[ "$(grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+ ' "$root/NEWS" | cut -d' ' -f1)" = "$release" ]
ok $? "NEWS's newest entry is the release $release"

# Includes point down the layer order (make lint runs the same check).
sh "$root/scripts/layers.sh" "$root" >"$T/layers.out" 2>&1
ok $? "every include points down the layers"
sed 's/^/# /' "$T/layers.out" | head -n 20
# The check fails on an include up or sideways, naming the file and line.
mkdir -p "$T/tree"
cp -r "$root/src" "$root/include" "$T/tree/"
echo '#include "ipcperf/run.h"' >>"$T/tree/src/pattern/bulk.c"
sh "$root/scripts/layers.sh" "$T/tree" >"$T/up.out" 2>&1
[ $? = 1 ] && grep -q 'src/pattern/bulk.c:[0-9]*: pattern includes "ipcperf/run.h" (run), a layer above it' "$T/up.out"
ok $? "an include of run.h in a pattern is refused"
cp "$root/src/pattern/bulk.c" "$T/tree/src/pattern/bulk.c"
echo '#include "ipcperf/framing.h"' >>"$T/tree/src/link/spec.c"
echo '#include "ipcperf/base.h"' >>"$T/tree/src/stats/hist.c"
sh "$root/scripts/layers.sh" "$T/tree" >"$T/side.out" 2>&1
[ $? = 1 ] && grep -q 'src/link/spec.c:[0-9]*: link includes .*a layer beside it' "$T/side.out" &&
	grep -q 'src/stats/hist.c:[0-9]*: stats includes .*a layer beside it' "$T/side.out"
ok $? "link including framing, and stats including base, are refused"
cp "$root/src/link/spec.c" "$T/tree/src/link/spec.c"
cp "$root/src/stats/hist.c" "$T/tree/src/stats/hist.c"
mkdir -p "$T/tree/src/newlayer"
echo 'int ipc_new(void);' >"$T/tree/src/newlayer/new.c"
sh "$root/scripts/layers.sh" "$T/tree" >"$T/new.out" 2>&1
[ $? = 1 ] && grep -q 'layer "newlayer" is not in scripts/layers.sh' "$T/new.out"
ok $? "a folder with no place in the order is refused"
rm -rf "$T/tree"

# The public headers are usable from C++: every one has extern "C", so a
# C++ program that calls the library links (without it the names would be
# mangled and undefined).
missing=$(grep -L 'extern "C"' "$root"/include/ipcperf/*.h | grep -v '/ipcperf.h$')
[ -z "$missing" ]
ok $? "every public header declares its functions extern \"C\""
[ -z "$missing" ] || diag "without extern \"C\": $missing"
if command -v c++ >/dev/null && [ -f "$lib" ]; then
	cat >"$T/use.cc" <<'CXX'
#include "ipcperf/ipcperf.h"
int main()
{
	struct ipc_hist *h = ipc_hist_new();
	char err[128];
	uint64_t v = 0;
	ipc_hist_record(h, 5);
	bool good = ipc_transport_find("pipe") && ipc_engine_find("poll") &&
		    ipc_pattern_find("rr") && ipc_report_find("json") &&
		    !ipc_units_parse(IPC_UNIT_SIZE, "4k", 0, 1 << 20, &v, err,
				     sizeof(err)) && v == 4096;
	ipc_hist_free(h);
	return good ? 0 : 1;
}
CXX
	san=""
	[ "${SAN:-}" = 1 ] && san="-fsanitize=address,undefined"
	c++ -std=c++11 $san -I"$root/include" -D_GNU_SOURCE -o "$T/use" "$T/use.cc" \
		"$lib" $(pkg-config --libs jansson libsodium openssl libnghttp2 $(for p in liburing libbpf; do
			pkg-config --exists $p 2>/dev/null && echo $p; done) 2>/dev/null ||
			echo -ljansson -lsodium -lssl -lcrypto -lnghttp2) -lhttp_parser -lm -pthread >"$T/cxx.err" 2>&1 &&
		"$T/use"
	ok $? "a C++ program includes ipcperf.h, links and calls the library"
	head -n 5 "$T/cxx.err" | sed 's/^/# /'
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip no C++ compiler or no library"
fi

# Only ipc_* is exported, and exactly the names the version script lists
# (scripts/exports.sh prints what differs).
if [ -f "$lib" ] && [ -f "$so" ]; then
	sh "$root/scripts/exports.sh" --map "$map" "$lib" "$so" \
		>"$T/exports.out" 2>&1
	ok $? "libipcperf.a and .so export exactly what src/libipcperf.map lists"
	sed 's/^/# /' "$T/exports.out" | head -n 20
	readelf -d "$so" 2>/dev/null | grep -q 'Library soname: \[libipcperf.so.1\]'
	ok $? "the shared library's soname is libipcperf.so.1"
	# A name exported but not listed fails the check, named as "+ name".
	first=$(sed -n 's/^[[:space:]]*\(ipc_[A-Za-z0-9_]*\);$/\1/p' "$map" | head -n 1)
	grep -v "^[[:space:]]*$first;\$" "$map" >"$T/short.map"
	sh "$root/scripts/exports.sh" --map "$T/short.map" "$so" >"$T/short.out" 2>&1
	[ $? = 1 ] && grep -q "+ $first\$" "$T/short.out"
	ok $? "an export missing from the version script fails the check, named"
	# A name listed but no longer exported fails it too, as "- name".
	sed "s/^global:/global:\n\tipc_gone_away;/" "$map" >"$T/long.map"
	sh "$root/scripts/exports.sh" --map "$T/long.map" "$lib" >"$T/long.out" 2>&1
	[ $? = 1 ] && grep -q -- "- ipc_gone_away\$" "$T/long.out"
	ok $? "a listed name the library lacks fails the check, named"
	# The check itself fails on a non-ipc_ symbol: an archive with one.
	printf 'int leaked_helper(void);\nint leaked_helper(void) { return 1; }\nint ipc_fine(void) { return leaked_helper(); }\n' >"$T/leak.c"
	if cc -c -o "$T/leak.o" "$T/leak.c" 2>/dev/null &&
		ar rcs "$T/leak.a" "$T/leak.o" 2>/dev/null; then
		sh "$root/scripts/exports.sh" "$T/leak.a" >"$T/leak.out" 2>&1
		rc=$?
		[ $rc = 1 ] && grep -q leaked_helper "$T/leak.out"
		ok $? "the exports check fails on a non-ipc_ symbol and names it"
	else
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip no C compiler to build a leaking archive"
	fi
else
	for i in 1 2 3 4 5; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip no library at $lib and $so"
	done
fi

# The Debian symbols file lists the same names as the version script (or
# the package build would fail on the difference, later).
if [ -f "$root/debian/libipcperf1.symbols" ]; then
	sed -n 's/^[[:space:]]*\(ipc_[A-Za-z0-9_]*\);$/\1/p' "$map" | LC_ALL=C sort >"$T/map.names"
	sed -n 's/^ \(ipc_[A-Za-z0-9_]*\)@IPCPERF_1 .*/\1/p' \
		"$root/debian/libipcperf1.symbols" | LC_ALL=C sort >"$T/sym.names"
	test -s "$T/map.names" && cmp -s "$T/map.names" "$T/sym.names"
	ok $? "debian/libipcperf1.symbols lists what src/libipcperf.map lists"
	diff "$T/map.names" "$T/sym.names" | grep '^[<>]' | head -n 5 | sed 's/^/# /'
fi

# Each public header compiles alone as strict ISO C (no _GNU_SOURCE, no
# POSIX feature macro), as a user's -std=c11 -pedantic build includes it.
if command -v cc >/dev/null; then
	bad=""
	for h in "$root"/include/ipcperf/*.h; do
		printf '#include "ipcperf/%s"\nint main(void) { return 0; }\n' \
			"${h##*/}" >"$T/hdr.c"
		cc -std=c11 -pedantic -Wall -Wextra -Werror -I"$root/include" \
			-fsyntax-only "$T/hdr.c" >"$T/hdr.err" 2>&1 ||
			bad="$bad ${h##*/}"
	done
	[ -z "$bad" ]
	ok $? "every public header compiles with -std=c11 -pedantic -Werror"
	[ -z "$bad" ] || diag "failing:$bad: $(head -n 3 "$T/hdr.err" | tr '\n' ' ')"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip no C compiler"
fi

# make, make -n (of every goal that may install) and make install never
# run apt-get: a fake apt-get on PATH records any call, and a fake
# pkg-config that finds nothing makes every package look missing.
fake="$T/fakebin" fakeapt="$T/fakeapt"
mkdir -p "$fake" "$fakeapt"
printf '#!/bin/sh\necho "apt-get $*" >>"%s"\nexit 1\n' "$T/apt.log" >"$fakeapt/apt-get"
printf '#!/bin/sh\nexit 1\n' >"$fake/pkg-config"
cp "$fakeapt/apt-get" "$fake/apt-get"
chmod +x "$fake/apt-get" "$fakeapt/apt-get" "$fake/pkg-config"
: >"$T/apt.log"
if command -v make >/dev/null && [ "$(id -u)" = 0 ]; then
	# The fakes can catch it: deps.sh as root does call apt-get.
	PATH="$fake:$PATH" sh "$root/scripts/deps.sh" build >/dev/null 2>&1
	test -s "$T/apt.log"
	ok $? "the fake apt-get records deps.sh's install (the check can fail)"
	: >"$T/apt.log"
	for goal in all run check install deps check-deb check-fleet valgrind \
		bench lint fuzz; do
		env -u MAKEFLAGS -u MAKELEVEL PATH="$fake:$PATH" \
			make -C "$root" -n BUILD="$T/b" "$goal" >/dev/null 2>&1
	done
	test ! -s "$T/apt.log" && test ! -e "$T/b/flags"
	ok $? "make -n of every goal (all, run, check, install, deps, ...): no apt-get, nothing written"
	[ -s "$T/apt.log" ] && diag "$(head -n 3 "$T/apt.log")"
	# The quick start stays two commands: run and check install first.
	env -u MAKEFLAGS -u MAKELEVEL make -C "$root" --no-print-directory -n run 2>/dev/null |
		head -n 1 >"$T/run.first"
	env -u MAKEFLAGS -u MAKELEVEL make -C "$root" --no-print-directory -n check 2>/dev/null |
		head -n 2 | tr '\n' ' ' >"$T/check.first"
	[ "$(cat "$T/run.first")" = "sh scripts/deps.sh build" ] &&
		[ "$(cat "$T/check.first")" = "sh scripts/deps.sh build sh scripts/deps.sh test " ]
	ok $? "make run and make check start with deps.sh (which installs as root)"
	# A real build missing a package stops, naming it and make deps.
	env -u MAKEFLAGS -u MAKELEVEL PATH="$fake:$PATH" \
		make -C "$root" BUILD="$T/b" DESTDIR="$T/dest" install \
		>"$T/miss.out" 2>&1
	rc=$?
	[ $rc != 0 ] && test ! -s "$T/apt.log" &&
		grep -q 'libjansson-dev' "$T/miss.out" &&
		grep -q 'make deps' "$T/miss.out" && test ! -e "$T/dest"
	ok $? "make install with packages missing: stops naming them, no apt-get"
	[ -s "$T/apt.log" ] && diag "$(head -n 3 "$T/apt.log")"
	# With everything there, make install into DESTDIR: no apt-get either.
	# (The real pkg-config here, or the flags would change and all rebuild.)
	env -u MAKEFLAGS -u MAKELEVEL PATH="$fakeapt:$PATH" \
		make -C "$root" -s DESTDIR="$T/dest" PREFIX=/usr "SAN=${SAN:-}" \
		install >"$T/inst.out" 2>&1
	rc=$?
	[ $rc = 0 ] && test ! -s "$T/apt.log"
	ok $? "make install DESTDIR=...: no apt-get"
	d="$T/dest/usr"
	test -x "$d/bin/ipcperf" && test -f "$d/lib/libipcperf.a" &&
		test "$(readlink "$d/lib/libipcperf.so.1")" = libipcperf.so.1.0.0 &&
		test "$(readlink "$d/lib/libipcperf.so")" = libipcperf.so.1 &&
		test -f "$d/lib/libipcperf.so.1.0.0" &&
		test -f "$d/include/ipcperf/ipcperf.h" &&
		test -f "$d/share/man/man1/ipcperf.1" &&
		grep -q '^libdir=/usr/lib$' "$d/lib/pkgconfig/ipcperf.pc" &&
		grep -q '^Requires.private: jansson libsodium' "$d/lib/pkgconfig/ipcperf.pc"
	ok $? "make install: program, .a, .so with its links, headers, .pc, man page"
	(cd "$T/dest" && find . | sort | sed 's/^/# /' | head -n 30)
	head -n 5 "$T/inst.out" | sed 's/^/# /'
	rm -rf "$T/b"
else
	for i in 1 2 3 4 5 6; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip needs make and root (deps.sh installs only as root)"
	done
fi

# Every source file carries the licence's SPDX line in its first two lines
# (the second where the first is a #! line or YAML's ---).
if command -v git >/dev/null && git -C "$root" rev-parse 2>/dev/null; then
	git -C "$root" ls-files -- '*.c' '*.h' '*.sh' '*.bash' '*.py' '*.yml' \
		'*.ini' Makefile bench/run tests/run .ci/run |
		while read -r f; do
			head -n 2 "$root/$f" | grep -q 'SPDX-License-Identifier: MIT' ||
				echo "$f"
		done >"$T/nospdx"
	check "every source file has an SPDX line" test ! -s "$T/nospdx"
	[ -s "$T/nospdx" ] && diag "without: $(head -n 5 "$T/nospdx" | tr '\n' ' ')"
	check "LICENSE is the MIT licence" grep -q '^MIT License' "$root/LICENSE"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip not a git checkout"
fi

done_testing

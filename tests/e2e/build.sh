# SPDX-License-Identifier: MIT
# The build: a user's CFLAGS adds to the project's flags and never removes
# one, the report's build field names the flags the binary was compiled
# with, and the library exports only ipc_* symbols.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
lib="$root/${BUILD:-build}/libipcperf.a"
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
		"$lib" $(pkg-config --libs jansson libsodium $(for p in liburing libbpf; do
			pkg-config --exists $p 2>/dev/null && echo $p; done) 2>/dev/null ||
			echo -ljansson -lsodium) -lhttp_parser -lm -pthread >"$T/cxx.err" 2>&1 &&
		"$T/use"
	ok $? "a C++ program includes ipcperf.h, links and calls the library"
	head -n 5 "$T/cxx.err" | sed 's/^/# /'
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip no C++ compiler or no library"
fi

# Only ipc_* is exported (scripts/exports.sh prints what is not).
if [ -f "$lib" ]; then
	sh "$root/scripts/exports.sh" "$lib" >"$T/exports.out" 2>&1
	ok $? "libipcperf exports only ipc_* symbols"
	sed 's/^/# /' "$T/exports.out" | head -n 20
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
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip no library at $lib"
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

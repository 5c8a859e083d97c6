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
	make -C "$root" -s -n -B V=1 CFLAGS=-O0 \
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

done_testing

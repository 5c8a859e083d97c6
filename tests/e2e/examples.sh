# SPDX-License-Identifier: MIT
# The example programs (examples/) build against the INSTALLED library,
# found by pkg-config, as strict ISO C (-std=c11 -pedantic -Wall -Werror),
# and run: the rr example prints its table, the stream example writes a
# JSON document that ipcperf itself reads back.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
command -v make >/dev/null && command -v pkg-config >/dev/null &&
	command -v cc >/dev/null ||
	{ echo "1..0 # skip needs make, pkg-config and cc"; exit 77; }

dest="$T/root"
env -u MAKEFLAGS -u MAKELEVEL make -C "$root" -s DESTDIR="$dest" PREFIX=/usr \
	"SAN=${SAN:-}" install >"$T/install.out" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr"
sed 's/^/# /' "$T/install.out" | head -n 5

# pkg-config finds the installed ipcperf.pc first, and prefixes its paths
# with the root it was installed into.
export PKG_CONFIG_SYSROOT_DIR="$dest"
export PKG_CONFIG_PATH="$dest/usr/lib/pkgconfig"
cflags=$(pkg-config --cflags ipcperf 2>"$T/pc.err")
libs=$(pkg-config --libs ipcperf 2>>"$T/pc.err")
case "$cflags $libs" in
*"$dest/usr/include"*"$dest/usr/lib"*-lipcperf*) r=0 ;;
*) r=1 ;;
esac
ok $r "pkg-config --cflags --libs ipcperf names the installed library"
[ $r = 0 ] || diag "got '$cflags $libs': $(head -n 2 "$T/pc.err")"

san=""
[ "${SAN:-}" = 1 ] && san="-fsanitize=address,undefined"
for ex in rr_table stream_json; do
	# shellcheck disable=SC2086
	cc -std=c11 -pedantic -Wall -Wextra -Werror $san $cflags \
		-o "$T/$ex" "$root/examples/$ex.c" $libs >"$T/$ex.cc" 2>&1
	ok $? "examples/$ex.c builds with -std=c11 -pedantic -Wall -Werror"
	head -n 5 "$T/$ex.cc" | sed 's/^/# /'
done

# They run on the installed shared library, not on anything in the tree.
LD_LIBRARY_PATH="$dest/usr/lib" ldd "$T/rr_table" 2>/dev/null |
	grep -q "libipcperf.so.1 => $dest/usr/lib/libipcperf.so.1"
ok $? "rr_table is linked with the installed libipcperf.so.1"

LD_LIBRARY_PATH="$dest/usr/lib" "$T/rr_table" >"$T/rr.out" 2>"$T/rr.err"
ok $? "rr_table runs and exits 0"
sed 's/^/# /' "$T/rr.out" "$T/rr.err" | head -n 8
head -n 1 "$T/rr.out" | grep -q '^channel *p50_ns *p99_ns *max_ns *runs$' &&
	grep -Eq '^pipe +[0-9]+ +[0-9]+ +[0-9]+ +3$' "$T/rr.out" &&
	grep -Eq '^unix +[0-9]+ +[0-9]+ +[0-9]+ +3$' "$T/rr.out"
ok $? "its table: a header, then pipe and unix, each from 3 runs"

LD_LIBRARY_PATH="$dest/usr/lib" "$T/stream_json" >"$T/stream.json" \
	2>"$T/stream.err"
ok $? "stream_json runs and exits 0"
head -n 3 "$T/stream.err" | sed 's/^/# /'
jq -e '.ipcperf.schema == 1 and (.results | length) == 1 and
	.results[0].status == "ok" and .results[0].summary.bytes_per_s > 0' \
	"$T/stream.json" >/dev/null 2>&1
ok $? "its JSON: one stream result, ok, with a throughput"
run report -f table "$T/stream.json"
is_rc 0 "ipcperf report reads the example's document"
grep -q unix "$out"
ok $? "... and shows its unix case"

done_testing

# SPDX-License-Identifier: MIT
# The Debian packages, as a user gets them: built from a clean clone of
# the committed tree (dpkg-buildpackage -us -uc -b), checked by lintian
# (no error), installed on this machine with apt-get install ./*.deb (apt
# resolves their dependencies), tried (the installed program's --version
# and one short rr, an example compiled against libipcperf-dev with
# pkg-config), then purged, leaving nothing of them behind.
# Changes the machine's packages while it runs, so make check leaves it
# out: make check-deb runs it (IPCPERF_DEB_TEST=1), as root.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
[ "${IPCPERF_DEB_TEST:-}" = 1 ] ||
	{ echo "1..0 # skip installs packages: make check-deb runs it"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "1..0 # skip needs root (apt-get install)"; exit 77; }
for c in git dpkg-buildpackage lintian apt-get; do
	command -v "$c" >/dev/null ||
		{ echo "1..0 # skip $c is missing (make check-deb installs it)"; exit 77; }
done
# Never replace or purge an ipcperf someone installed for real.
if dpkg-query -W -f '${Status}\n' ipcperf libipcperf1 libipcperf-dev \
	2>/dev/null | grep -q 'installed'; then
	echo "1..0 # skip ipcperf packages are installed already: not touching them"
	exit 77
fi
apt=(apt-get -o DPkg::Lock::Timeout=600 -y -q)
export DEBIAN_FRONTEND=noninteractive
purge() {
	"${apt[@]}" purge ipcperf libipcperf1 libipcperf-dev >"$T/purge.out" 2>&1
}
trap 'purge; pkill -KILL -f "$TAG" 2>/dev/null; rm -rf "$T"' EXIT

# A clean clone: what is committed, nothing the tree has built.
git clone -q "$root" "$T/src/ipcperf" 2>"$T/clone.err"
ok $? "a clean clone of the committed tree"
[ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ] &&
	diag "uncommitted changes in $root are not in the packages"

# -J: the package's build on every CPU (what DEB_BUILD_OPTIONS=parallel=N
# does), as a builder would; the compile is most of this test's time.
(cd "$T/src/ipcperf" && timeout 600 dpkg-buildpackage -us -uc -b -J"$(nproc)") \
	>"$T/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b"
tail -n 5 "$T/build.log" | sed 's/^/# /'
debs=()
for p in ipcperf libipcperf1 libipcperf-dev; do
	f=$(ls "$T"/src/${p}_*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] && debs+=("$f")
done
[ ${#debs[@]} = 3 ]
ok $? "three packages: ipcperf, libipcperf1, libipcperf-dev"

lintian --allow-root "$T"/src/ipcperf_*.changes >"$T/lintian.out" 2>&1
! grep -q '^E:' "$T/lintian.out"
ok $? "lintian: no error"
sed 's/^/# /' "$T/lintian.out" | head -n 20

"${apt[@]}" install "${debs[@]}" >"$T/install.out" 2>&1
ok $? "apt-get install ./ipcperf*.deb ./libipcperf*.deb"
tail -n 3 "$T/install.out" | sed 's/^/# /'

/usr/bin/ipcperf --version >"$T/version" 2>&1
grep -Eq '^ipcperf [0-9]+\.[0-9]+\.[0-9]+' "$T/version"
ok $? "the installed ipcperf --version prints the release"
diag "$(cat "$T/version")"
/usr/bin/ipcperf rr -t pipe -n 200 -w 10 -r 1 --pin none -f json \
	>"$T/rr.json" 2>"$T/rr.err"
ok $? "the installed program measures one short rr"
jq -e '.results[0].status == "ok"' "$T/rr.json" >/dev/null 2>&1
ok $? "... and its result is ok"
test -f /usr/share/man/man1/ipcperf.1.gz
ok $? "the manual page is installed"
test -f /usr/share/bash-completion/completions/ipcperf
ok $? "the bash completion is installed"
test -f /usr/share/zsh/vendor-completions/_ipcperf
ok $? "the zsh completion is installed"

unit=/lib/systemd/system/ipcperf.service
test -f "$unit" &&
	! test -e /etc/systemd/system/multi-user.target.wants/ipcperf.service
ok $? "the server's systemd unit is installed, not enabled"
# Its command line works: run with a key and pidfile of our own, on
# loopback, then stopped as systemd would (SIGTERM to the PIDFile's pid).
head -c 32 /dev/urandom >"$T/server.key" && chmod 600 "$T/server.key"
cmd=$(sed -n 's/^ExecStart=//p' "$unit" 2>/dev/null |
	sed "s#/run/ipcperf/server.pid#$T/server.pid#g; s#/etc/ipcperf/server.key#$T/server.key#g")
[ -n "$cmd" ] && $cmd --listen 127.0.0.1:0 >"$T/unit.out" 2>&1 &&
	kill -0 "$(cat "$T/server.pid" 2>/dev/null)" 2>/dev/null
ok $? "the unit's ExecStart starts a daemon that writes its pidfile"
sed 's/^/# /' "$T/unit.out" | head -n 3
upid=$(cat "$T/server.pid" 2>/dev/null)
[ -n "$upid" ] && kill -TERM "$upid"
for _ in $(seq 100); do kill -0 "$upid" 2>/dev/null || break; sleep 0.05; done
! kill -0 "$upid" 2>/dev/null && test ! -e "$T/server.pid"
ok $? "SIGTERM stops it and removes the pidfile"

# The -dev package: an example built with pkg-config alone, then run.
cc -std=c11 -pedantic -Wall -Werror -o "$T/rr_table" \
	"$root/examples/rr_table.c" $(pkg-config --cflags --libs ipcperf) \
	>"$T/cc.out" 2>&1
ok $? "examples/rr_table.c builds against libipcperf-dev (pkg-config)"
head -n 5 "$T/cc.out" | sed 's/^/# /'
ldd "$T/rr_table" 2>/dev/null | grep -Eq 'libipcperf.so.1 => (/usr)?/lib/'
ok $? "it links the installed libipcperf.so.1"
"$T/rr_table" >"$T/table.out" 2>&1 && grep -Eq '^pipe +[0-9]+' "$T/table.out"
ok $? "and runs"

purge
ok $? "apt-get purge of the three packages"
! dpkg-query -W -f '${Status}\n' ipcperf libipcperf1 libipcperf-dev \
	2>/dev/null | grep -q installed && test ! -e /usr/bin/ipcperf &&
	test ! -e /usr/include/ipcperf
ok $? "nothing of them is left"

done_testing

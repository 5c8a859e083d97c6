#!/bin/sh
# SPDX-License-Identifier: MIT
# Make sure the Debian packages a step needs are installed: as root, install
# the missing ones with apt-get; otherwise print the exact command and fail.
# With --check it never installs: it fails naming what is missing (what
# every build runs, so that make and make install change nothing).
# Usage: deps.sh [--check] build|test|valgrind|bench|lint|fuzz|browser|markdown|fleet|deb
# Quiet and fast when everything is there.
set -u

install=1
if [ "${1:-}" = --check ]; then
	install=0
	shift
fi
step=${1:-build}

# package:probe pairs; a probe is "cmd NAME", "pc NAME" (pkg-config),
# "hdr PATH" (a header under /usr/include), "file PATH" (any file) or
# "fuzzer CC" (CC links a libFuzzer program).
case $step in
build)   need="gcc:cmd:gcc make:cmd:make pkg-config:cmd:pkg-config
	libjansson-dev:pc:jansson libsodium-dev:pc:libsodium
	libhttp-parser-dev:hdr:http_parser.h libssl-dev:pc:openssl
	libnghttp2-dev:pc:libnghttp2"
	 want="liburing-dev:pc:liburing libbpf-dev:pc:libbpf
	bpftool:file:/usr/sbin/bpftool clang:cmd:clang" ;;
test)    need="jq:cmd:jq procps:cmd:pgrep psmisc:cmd:fuser"
	 want="gdbserver:cmd:gdbserver curl:cmd:curl apache2-utils:cmd:ab
	wrk:cmd:wrk gdb:cmd:gdb zsh:cmd:zsh openssl:cmd:openssl nginx-light:cmd:nginx
	nghttp2-client:cmd:h2load" ;;
valgrind) need="valgrind:cmd:valgrind"; want="" ;;
bench)   need="sockperf:cmd:sockperf iperf3:cmd:iperf3"; want="" ;;
lint)    need="cppcheck:cmd:cppcheck clang-format:cmd:clang-format"
	 want="" ;;
fuzz)    need="clang:cmd:clang libclang-rt-14-dev:fuzzer:clang"
	 want="" ;;
# The HTML report's test: headless Chromium driven by a Python script, and
# a font so that screenshots show text.
browser) need="chromium:cmd:chromium python3:cmd:python3
	fonts-dejavu-core:file:/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
	 want="" ;;
# The fleet test: Ansible over SSH to sshd in network namespaces.
fleet)   need="ansible:cmd:ansible-playbook openssh-server:file:/usr/sbin/sshd
	openssh-client:cmd:ssh-keygen util-linux:cmd:unshare"; want="" ;;
# make check-deb: build the Debian packages, lint them.
deb)     need="dpkg-dev:cmd:dpkg-buildpackage debhelper:cmd:dh
	lintian:cmd:lintian fakeroot:cmd:fakeroot git:cmd:git"; want="" ;;
# The Markdown report's test renders it with GitHub's own renderer.
markdown) need="cmark-gfm:cmd:cmark-gfm"; want="" ;;
*) echo "deps.sh: unknown step '$step' (build, test, valgrind, bench, lint, fuzz, browser, markdown, fleet, deb)" >&2
   exit 2 ;;
esac

have() {
	kind=${1%%:*}
	name=${1#*:}
	case $kind in
	cmd) command -v "$name" >/dev/null 2>&1 ;;
	pc) pkg-config --exists "$name" 2>/dev/null ;;
	hdr) [ -e "/usr/include/$name" ] ;;
	file) [ -e "$name" ] ;;
	fuzzer) echo 'int LLVMFuzzerTestOneInput(const char *d, long n)
		{ return d && n < 0; }' | "$name" -x c -fsanitize=fuzzer \
		-o /dev/null - >/dev/null 2>&1 ;;
	esac
}

missing() {
	out=""
	for item in $1; do
		pkg=${item%%:*}
		have "${item#*:}" || out="$out $pkg"
	done
	echo "$out"
}

miss_need=$(missing "$need")
miss_want=$(missing "$want")
all="$miss_need$miss_want"
[ -z "$all" ] && exit 0

if [ $install = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "ipcperf: installing missing packages:$all" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends $all >/dev/null 2>&1
	then
		apt-get update -q >/dev/null 2>&1
		apt-get install -y -q --no-install-recommends $all >&2 ||
			echo "ipcperf: apt-get could not install:$all" >&2
	fi
	miss_need=$(missing "$need")
	miss_want=$(missing "$want")
fi

if [ -n "$miss_want" ]; then
	echo "ipcperf: note: optional packages missing, features left out:$miss_want" >&2
	echo "  to add them: sudo apt-get install$miss_want" >&2
fi
if [ -n "$miss_need" ]; then
	echo "ipcperf: missing packages for '$step':$miss_need" >&2
	if [ $install = 0 ]; then
		echo "  install them with: make deps (as root), or sudo apt-get install$miss_need" >&2
	else
		echo "  install them with: sudo apt-get install$miss_need" >&2
	fi
	exit 1
fi
exit 0

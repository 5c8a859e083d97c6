#!/bin/sh
# SPDX-License-Identifier: MIT
# Record the conversations in this folder again with Debian's gdb and
# gdbserver over TCP on loopback (see README.md for what each one is).
#
#   traces/record.sh [OUTDIR]      (default: this folder)
#
# Needs gdb, gdbserver and cc.  Each log is GDB's `set remotelogfile`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/ipcperf-record.XXXXXX")
trap 'rm -rf "$work"' EXIT
port=$((20000 + $$ % 20000))

cc -g -O0 -static -o "$work/target" "$here/target.c"

# record NAME GDBSERVER-ARGS -- GDB-ARGS...: one session into OUT/NAME.log.
record() {
	name=$1
	shift
	gs=""
	while [ "$1" != "--" ]; do gs="$gs $1"; shift; done
	shift
	# shellcheck disable=SC2086
	gdbserver --once $gs >"$work/$name.gdbserver" 2>&1 &
	sleep 0.5
	gdb -nx -batch -ex 'set sysroot /' \
		-ex "set remotelogfile $work/$name.log" "$@" >"$work/$name.gdb" 2>&1
	wait
	cp "$work/$name.log" "$out/$name.log"
	echo "$name.log: $(wc -c <"$out/$name.log") bytes"
}

# A stub with no program: extended-remote to gdbserver --multi, then exit.
record stub-multi --multi "127.0.0.1:$port" -- \
	-ex "target extended-remote 127.0.0.1:$port" -ex 'monitor exit'
port=$((port + 1))

# The hosted handshake: gdbserver runs /bin/true, gdb connects and kills it.
# The executable is given locally and the remote exec-file query is off, so
# the log holds the protocol's handshake, not a copy of /bin/true.
record gdbserver-true "127.0.0.1:$port" /bin/true -- /bin/true \
	-ex 'set remote pid-to-exec-file-packet off' \
	-ex "target remote 127.0.0.1:$port" -ex 'kill'
port=$((port + 1))

# A debugging session: stop at a breakpoint, look around, kill.
record breakpoint "127.0.0.1:$port" "$work/target" -- "$work/target" \
	-ex 'set remote pid-to-exec-file-packet off' \
	-ex "target remote 127.0.0.1:$port" -ex 'break work' \
	-ex 'continue' -ex 'bt' -ex 'print i' \
	-ex 'kill'

# SPDX-License-Identifier: MIT
# Shared helpers for the end-to-end tests: TAP output, running the built
# binary under a name of its own (so leftovers can be found by name), and a
# private TMPDIR that must be empty again after every run.
# shellcheck shell=bash

set -u
IPCPERF_BIN=${IPCPERF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/ipcperf}
[ -x "$IPCPERF_BIN" ] || { echo "1..0 # skip no binary at $IPCPERF_BIN"; exit 77; }
command -v jq >/dev/null || { echo "1..0 # skip jq is not installed"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/ipcperf-e2e.XXXXXX")
TAG="ipcperf-e2e-$$"
ln -s "$IPCPERF_BIN" "$T/$TAG"
IPCPERF="$T/$TAG"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
trap 'pkill -KILL -f "$TAG" 2>/dev/null; rm -rf "$T"' EXIT

tap_n=0
tap_fail=0

ok() { # ok COND-STATUS "description"
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
	fi
}

check() { # check "description" command...
	local d=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$d"
}

diag() { echo "# $*"; }

done_testing() {
	echo "1..$tap_n"
	[ $tap_fail = 0 ]
}

# run ARGS...: run ipcperf, leaving rc, out (stdout file) and err (stderr).
# A measuring command (rr, stream, ..., or the suite) that does not say
# --pin runs with --pin none: the scheduler's choice, one result per case,
# what most tests count on; by default ipcperf measures each case twice,
# on one CPU and on two, which placement.sh tests (with run_default).
out="$T/out"
err="$T/err"
run() {
	local a
	case ${1:-} in
	rr | stream | bulk | crr | load | replay | -*)
		for a in "$@"; do
			case $a in --pin | --pin=* | --help | -h | --version | -V)
				run_default "$@"
				return
				;;
			esac
		done
		if [ "${1#-}" != "$1" ]; then
			run_default --pin none "$@"
		else
			run_default "$1" --pin none "${@:2}"
		fi
		;;
	*) run_default "$@" ;;
	esac
}

# run_default ARGS...: run ipcperf with exactly these arguments.
run_default() {
	"$IPCPERF" "$@" >"$out" 2>"$err"
	rc=$?
}

# is_rc WANT "description": check the last run's exit status.
is_rc() {
	if [ "$rc" = "$1" ]; then
		ok 0 "$2"
	else
		ok 1 "$2"
		diag "exit status $rc, want $1; stderr:"
		sed 's/^/#   /' "$err" | head -n 10
	fi
}

# The private TMPDIR holds nothing, and no process runs under our name.
# Exiting children are given up to 3 s to be reaped (a loaded machine can
# take longer than a moment to reap one); a leftover stays past that.
no_leftovers() {
	local left procs i
	for i in $(seq 30); do
		sleep 0.1
		left=$(find "$TMPDIR" -mindepth 1 2>/dev/null | head -n 5)
		procs=$(pgrep -f "$TAG" 2>/dev/null | head -n 5)
		[ -z "$left" ] && [ -z "$procs" ] && break
	done
	if [ -z "$left" ] && [ -z "$procs" ]; then
		ok 0 "$1: no file or process left behind"
	else
		ok 1 "$1: no file or process left behind"
		[ -n "$left" ] && diag "left files: $left"
		[ -n "$procs" ] && diag "left processes: $(ps -o pid,args -p "$(echo $procs | tr ' ' ,)" 2>/dev/null | tail -n +2)"
		pkill -KILL -f "$TAG" 2>/dev/null
		rm -rf "${TMPDIR:?}"/*
	fi
}

# What every jqt filter sees first.  all(GEN; COND) is false when GEN
# yields nothing: a check over "every result" must fail when there are no
# results, and jq's own all/2 is true on an empty array.  Where an empty set
# is a pass (a result may have no flags), write `[GEN] | map(COND) | all`
# (jq's all/0 keeps its meaning) or `any(GEN; COND | not) | not`.
JQ_DEFS='def all(gen; cond):
	reduce (gen | cond) as $c (null;
		if . == false then false elif $c then true else false end)
	| . == true;'

# jq_true FILTER FILE: status 0 when the filter (with JQ_DEFS) is true.
jq_true() {
	jq -e "$JQ_DEFS $1" "$2" >/dev/null 2>&1
}

# jqt "description" FILTER [FILE]: the jq filter is true of the JSON.
jqt() {
	local d=$1 f=$2 file=${3:-$out}
	if jq_true "$f" "$file"; then
		ok 0 "$d"
	else
		ok 1 "$d"
		diag "jq filter failed: $f"
	fi
}

# peer_of PID: print the peer process that ipcperf PID forked (waits up
# to 5 s for it); fails when there is none.
peer_of() {
	local i c
	for i in $(seq 50); do
		c=$(pgrep -P "$1" -f "$TAG" | head -n 1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

# start_server OUT CMD...: a test server (tests/servers/) in the
# background (bad_pid), its output in OUT; waits up to 5 s for the
# "port P" line it prints, sets port, fails without one.  OUT goes first,
# so that an old server's port is not read before the new one's
# redirection empties the file.
start_server() {
	local out=$1 i
	shift
	rm -f "$out"
	"$@" >"$out" 2>&1 &
	bad_pid=$!
	for i in $(seq 50); do
		port=$(sed -n 's/^port //p' "$out" 2>/dev/null)
		[ -n "$port" ] && return 0
		sleep 0.1
	done
	return 1
}

# ends_within PID SECONDS "description": ok when PID exits within SECONDS
# (killed otherwise); then rc is its exit status.
ends_within() {
	local pid=$1 secs=$2 i
	for i in $(seq $((secs * 10))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		ok 1 "$3"
		kill -KILL "$pid"
	else
		ok 0 "$3"
	fi
	wait "$pid"
	rc=$?
}

# Every transport this machine can run (from `ipcperf list`).
transports_ok() {
	"$IPCPERF" list | awk '/^transports:/{t=1;next} /^[a-z]/{t=0} t && $2=="ok"{print $1}'
}

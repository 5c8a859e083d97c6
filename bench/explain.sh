#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What --explain costs what it measures: `ipcperf rr` with 1-byte messages
# with and without --explain, alternating in the same run, on pipe, unix,
# tcp and udp, both sides on one CPU, then on two (pinned alike).  Prints
# each variant's median p50 over XP_ROUNDS invocations, its range, and
# the ratio to plain; the target is <= 1.05.  Needs root and BPF (the
# explained side says why when it could not run, and the bench stops).
#
# XP_VARIANTS names the columns, plain first; besides plain and explain
# (what --explain attaches), the ways of attaching that bound the cost:
#   calls-raw   the system calls seen by an untyped raw tracepoint
#               program (explain's are BTF-typed ones on the same hook)
#   calls-tp    the system calls seen by the classic raw_syscalls
#               tracepoints, which fill a trace record for the program
#   calls-none  no system call seen (a call's time is its thread's user
#               time): the scheduler, idle and interrupt programs only
#   no-events   no event counted (no histogram, no p99): the sums only
#   empty       every program of explain attached, each returning at once:
#               what attaching alone costs
#   none-empty  the same without the system calls' tracepoints
#
#   bench/run explain        XP_ROUNDS=7 N=20000 W=2000 XP_TP="pipe unix
#                            tcp udp" XP_CPUS="one two"
#                            XP_VARIANTS="plain explain"
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
IPCPERF=${IPCPERF:-$BUILD/ipcperf}
ROUNDS=${XP_ROUNDS:-7}
N=${N:-20000}
W=${W:-2000}
TPS=${XP_TP:-pipe unix tcp udp}
CPUS=${XP_CPUS:-one two}
read -r -a VARIANTS <<<"${XP_VARIANTS:-plain explain}"
[ -x "$IPCPERF" ] || { echo "bench: $IPCPERF is not built" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench: needs jq" >&2; exit 2; }
[ "${VARIANTS[0]}" = plain ] || { echo "bench: XP_VARIANTS starts with plain" >&2; exit 2; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
range() { sort -n | sed -n '1p;$p' | paste -sd- -; }

# p50 of one invocation: TRANSPORT PINS VARIANT
p50() {
	local env=() xp=--explain
	case $3 in
	plain) xp= ;;
	explain) ;;
	calls-raw) env=(IPCPERF_EXPLAIN_CALLS=raw) ;;
	calls-tp) env=(IPCPERF_EXPLAIN_CALLS=tracepoints) ;;
	calls-none) env=(IPCPERF_EXPLAIN_CALLS=none) ;;
	no-events) env=(IPCPERF_EXPLAIN_EVENTS=0) ;;
	empty) env=(IPCPERF_EXPLAIN_EMPTY=1) ;;
	none-empty) env=(IPCPERF_EXPLAIN_CALLS=none IPCPERF_EXPLAIN_EMPTY=1) ;;
	*) echo "bench: no variant '$3'" >&2; return 1 ;;
	esac
	env "${env[@]}" "$IPCPERF" rr -q -t "$1" --req 1 --resp 1 -n "$N" \
		-w "$W" -r 1 --pin "$2" $xp -f json >"$tmp/doc" || return 1
	if [ -n "$xp" ] &&
		[ "$(jq -r '.results[0].explain.available' "$tmp/doc")" != true ]; then
		echo "bench: explain unavailable: $(jq -r '.results[0].explain.why' "$tmp/doc")" >&2
		return 1
	fi
	jq '.results[0].runs[0].latency_ns.p50' "$tmp/doc"
}

[ "$(nproc)" -ge 2 ] || { echo "bench: needs two CPUs" >&2; exit 2; }
printf 'explain: ipcperf rr 1 B with and without --explain, %d x %d round trips,\n' "$ROUNDS" "$N"
printf 'alternating; p50 in ns, median of the invocations (fastest-slowest), ratio to plain\n'
printf '%-9s %-4s' transport cpus
for v in "${VARIANTS[@]}"; do
	printf ' %21s' "$v"
	[ "$v" = plain ] || printf ' %6s' ratio
done
printf '\n'
for tp in $TPS; do
	for cpus in $CPUS; do
		pins=0,0
		[ "$cpus" = one ] || pins=0,1
		for v in "${VARIANTS[@]}"; do : >"$tmp/$v"; done
		for _ in $(seq "$ROUNDS"); do
			for v in "${VARIANTS[@]}"; do
				p50 "$tp" "$pins" "$v" >>"$tmp/$v" || exit 1
			done
		done
		printf '%-9s %-4s' "$tp" "$cpus"
		a=$(median <"$tmp/plain")
		for v in "${VARIANTS[@]}"; do
			b=$(median <"$tmp/$v")
			printf ' %7s %-13s' "$b" "($(range <"$tmp/$v"))"
			[ "$v" = plain ] ||
				printf ' %6s' "$(awk -v a="$b" -v b="$a" 'BEGIN {printf "%.3f", a / b}')"
		done
		printf '\n'
	done
done

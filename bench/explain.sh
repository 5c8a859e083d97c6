#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What --explain costs what it measures: `ipcperf rr` with 1-byte messages
# with and without --explain, alternating in the same run, on pipe, unix,
# tcp and udp, both sides on one CPU, then on two (pinned alike).  Prints
# each side's median p50 over XP_ROUNDS invocations, its range, and the
# ratio explain / plain; the target is <= 1.05.  Needs root and BPF (the
# explained side says why when it could not run, and the bench stops).
#
#   bench/run explain        XP_ROUNDS=7 N=20000 W=2000
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
IPCPERF=${IPCPERF:-$BUILD/ipcperf}
ROUNDS=${XP_ROUNDS:-7}
N=${N:-20000}
W=${W:-2000}
[ -x "$IPCPERF" ] || { echo "bench: $IPCPERF is not built" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench: needs jq" >&2; exit 2; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
range() { sort -n | sed -n '1p;$p' | paste -sd- -; }

# p50 of one invocation: TRANSPORT PINS [--explain]
p50() {
	"$IPCPERF" rr -q -t "$1" --req 1 --resp 1 -n "$N" -w "$W" -r 1 \
		--pin "$2" ${3:+"$3"} -f json >"$tmp/doc" || return 1
	if [ -n "${3:-}" ] &&
		[ "$(jq -r '.results[0].explain.available' "$tmp/doc")" != true ]; then
		echo "bench: explain unavailable: $(jq -r '.results[0].explain.why' "$tmp/doc")" >&2
		return 1
	fi
	jq '.results[0].runs[0].latency_ns.p50' "$tmp/doc"
}

c1=1
[ "$(nproc)" -ge 2 ] || { echo "bench: needs two CPUs" >&2; exit 2; }
printf 'explain: ipcperf rr 1 B with and without --explain, %d x %d round trips,\n' "$ROUNDS" "$N"
printf 'alternating; p50 in ns, median of the invocations (fastest-slowest)\n'
printf '%-9s %-4s %21s %21s %6s\n' transport cpus plain explain ratio
for tp in pipe unix tcp udp; do
	for pins in 0,0 0,$c1; do
		: >"$tmp/plain" && : >"$tmp/xp"
		for _ in $(seq "$ROUNDS"); do
			p50 "$tp" "$pins" >>"$tmp/plain" || exit 1
			p50 "$tp" "$pins" --explain >>"$tmp/xp" || exit 1
		done
		a=$(median <"$tmp/plain")
		b=$(median <"$tmp/xp")
		printf '%-9s %-4s %7s %-13s %7s %-13s %6s\n' "$tp" \
			"$([ "$pins" = 0,0 ] && echo one || echo two)" \
			"$a" "($(range <"$tmp/plain"))" "$b" "($(range <"$tmp/xp"))" \
			"$(awk -v a="$b" -v b="$a" 'BEGIN {printf "%.3f", a / b}')"
	done
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark (not a test): remote mode across two network namespaces joined
# by a veth pair, next to the tools network engineers use, in the same run,
# alternating.  The servers (sockperf server, iperf3 -s, ipcperf server)
# run in one namespace, the clients in the other.
#
#   ping-pong: sockperf ping-pong --full-rtt against `ipcperf rr --remote`
#              (udp and tcp, 14-byte messages): median p50 and p99 of
#              RM_ROUNDS rounds, and ipcperf / sockperf (target p50 <= 1.0)
#   stream:    iperf3 (tcp, 128 KiB writes) against `ipcperf stream
#              --remote -t tcp --size 128k`: bytes per second, ipcperf /
#              iperf3 (target >= 1.0)
#
#   bench/run remote        RM_ROUNDS=5 RM_TIME=2 (seconds per run); root
#
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
IPCPERF=${IPCPERF:-$BUILD/ipcperf}
RM_ROUNDS=${RM_ROUNDS:-5}
RM_TIME=${RM_TIME:-2}

[ "$(id -u)" = 0 ] || { echo "bench remote: needs root (network namespaces)" >&2; exit 2; }
for t in sockperf iperf3 jq ip; do
	command -v $t >/dev/null || { echo "bench remote: needs $t" >&2; exit 2; }
done
[ -x "$IPCPERF" ] || { echo "bench remote: $IPCPERF is not built" >&2; exit 2; }

NS=rm-bs$$ NC=rm-bc$$
SRV=10.78.0.1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-remote.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	# Whatever still runs in our namespaces (they are ours alone): a
	# server left here would also hold the benchmark's machine lock.
	for n in "$NS" "$NC"; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	done
	ip netns del "$NS" 2>/dev/null
	ip netns del "$NC" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$NS" && ip netns add "$NC" || exit 1
ip link add rm-bvs$$ netns "$NS" type veth peer name rm-bvc$$ netns "$NC" || exit 1
ip -n "$NS" addr add $SRV/24 dev rm-bvs$$
ip -n "$NC" addr add 10.78.0.2/24 dev rm-bvc$$
for n in "$NS" "$NC"; do ip -n "$n" link set lo up; done
ip -n "$NS" link set rm-bvs$$ up
ip -n "$NC" link set rm-bvc$$ up
in_s() { ip netns exec "$NS" "$@"; }
in_c() { ip netns exec "$NC" "$@"; }

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a != "" && b > 0) printf "%.3f", a / b; else print "-"}'; }
sp_pct() {
	awk -v p="$1" '$0 ~ "percentile " p " =" {v = $NF} END {printf "%.0f", v * 1000}' "$2"
}

# The servers, each once for the whole benchmark.
# Started by ip(8) itself, not through in_s: $! must be the server (ip
# netns exec execs it), not a subshell whose end would leave it running.
ip netns exec "$NS" sockperf server -i $SRV -p 11111 >"$tmp/spu" 2>&1 &
pids+=($!)
ip netns exec "$NS" sockperf server -i $SRV -p 11112 --tcp >"$tmp/spt" 2>&1 &
pids+=($!)
ip netns exec "$NS" iperf3 -s -B $SRV -p 5202 >"$tmp/ip3" 2>&1 &
pids+=($!)
have_remote=0
if "$IPCPERF" rr --help 2>/dev/null | grep -q -- '--remote'; then
	have_remote=1
	ip netns exec "$NS" "$IPCPERF" server --listen $SRV:5301 -f json \
		>"$tmp/ipc" 2>&1 &
	pids+=($!)
fi
sleep 1

echo "remote: server namespace $NS ($SRV), client namespace $NC, veth; $RM_ROUNDS alternating rounds of ${RM_TIME}s, medians"
[ $have_remote = 1 ] || echo "ipcperf: this build has no --remote yet; the reference tools alone are measured"
printf 'ping-pong, 14 bytes: round trip in ns (sockperf --full-rtt; ipcperf rr --remote -e blocking)\n'
printf '%-5s %10s %10s %7s %10s %10s %7s\n' proto "sp p50" "ipc p50" ratio "sp p99" "ipc p99" ratio
for proto in udp tcp; do
	: >"$tmp/a50"; : >"$tmp/a99"; : >"$tmp/b50"; : >"$tmp/b99"
	for r in $(seq "$RM_ROUNDS"); do
		port=11111
		[ $proto = tcp ] && port=11112
		in_c sockperf ping-pong -i $SRV -p $port -m 14 -t "$RM_TIME" \
			--full-rtt $([ $proto = tcp ] && echo --tcp) >"$tmp/pp" 2>&1
		sp_pct 50.000 "$tmp/pp" >>"$tmp/a50"; echo >>"$tmp/a50"
		sp_pct 99.000 "$tmp/pp" >>"$tmp/a99"; echo >>"$tmp/a99"
		if [ $have_remote = 1 ]; then
			in_c "$IPCPERF" rr -q --remote $SRV:5301 -t $proto --req 14 \
				--resp 14 -d "$RM_TIME" -w 2000 -r 1 -f json >"$tmp/rr" &&
				jq '.results[0].summary.latency_ns.p50' "$tmp/rr" >>"$tmp/b50" &&
				jq '.results[0].summary.latency_ns.p99' "$tmp/rr" >>"$tmp/b99"
		fi
	done
	a50=$(median <"$tmp/a50"); a99=$(median <"$tmp/a99")
	b50=$(median <"$tmp/b50"); b99=$(median <"$tmp/b99")
	printf '%-5s %10s %10s %7s %10s %10s %7s\n' $proto "$a50" "${b50:--}" \
		"$(ratio "$b50" "$a50")" "$a99" "${b99:--}" "$(ratio "$b99" "$a99")"	# Every round, so that a bimodal machine (idle CPUs waking up) shows.
	printf '      rounds p50: sockperf %s; ipcperf %s\n' \
		"$(tr '\n' ' ' <"$tmp/a50" | tr -s ' ')" "$(tr '\n' ' ' <"$tmp/b50")"
done

printf '\nstream over tcp, 128 KiB writes: bytes per second (iperf3; ipcperf stream --remote)\n'
printf '%14s %14s %7s\n' iperf3 ipcperf ratio
: >"$tmp/a"; : >"$tmp/b"
for r in $(seq "$RM_ROUNDS"); do
	in_c iperf3 -c $SRV -p 5202 -t "$RM_TIME" -l 128K -J >"$tmp/i3" 2>&1 &&
		jq '.end.sum_received.bits_per_second / 8 | floor' "$tmp/i3" >>"$tmp/a"
	if [ $have_remote = 1 ]; then
		in_c "$IPCPERF" stream -q --remote $SRV:5301 -t tcp --size 128k \
			--count 1000 -d "$RM_TIME" -r 1 -f json >"$tmp/st" &&
			jq '.results[0].summary.bytes_per_s | floor' "$tmp/st" >>"$tmp/b"
	fi
done
a=$(median <"$tmp/a"); b=$(median <"$tmp/b")
printf '%14s %14s %7s\n' "$a" "${b:--}" "$(ratio "$b" "$a")"

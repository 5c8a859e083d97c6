# SPDX-License-Identifier: MIT
# rr --under-load N: each case is measured without and with N streams
# beside it over the same transport; the loaded one says what the streams
# moved while its round trips ran (so the load did run), both keep their
# latency, and what cannot carry streams beside is refused in one line.
. "$(dirname "$0")/lib.bash"

run rr -t tcp,tcp6,unix -d 200ms -r 2 --under-load 2 -f json
is_rc 0 "rr over tcp, tcp6 and unix under 2 streams"
jqt "each transport twice: without and with the load" \
	'[.results[] | .under_load // 0] | sort == [0, 0, 0, 2, 2, 2]'
jqt "both have their latency" \
	'all(.results[]; .status == "ok" and .summary.latency_ns.p50 > 0 and .summary.iterations > 0)'
jqt "the loaded runs moved bytes beside the round trips" \
	'all(.results[] | select(.under_load == 2) | .runs[]; .load_bytes > 0 and .load_bytes_per_s > 0)'
jqt "the summary's load rate is the runs' mean" \
	'all(.results[] | select(.under_load == 2); (.summary.load_bytes_per_s - ([.runs[].load_bytes_per_s] | add / 2) | fabs) < 1)'
jqt "the unloaded ones have none" \
	'all(.results[] | select(has("under_load") | not) | .runs[]; has("load_bytes") | not)'
diag "$(jq -r '.results[] | "\(.transport) load=\(.under_load // 0): p50 \(.summary.latency_ns.p50) ns, p99 \(.summary.latency_ns.p99) ns, streams \(.summary.load_bytes_per_s // 0 | floor) B/s"' "$out")"

run rr -t tcp -n 200 -r 1 --under-load 4 --placement thread -w 0
is_rc 0 "peer in a thread, no warm-up asked, 4 streams"
ok "$(grep -q 'load streams' "$out" && grep -q 'load rate' "$out"; echo $?)" \
	"the table shows the streams and their rate"
ok "$(grep -Eq 'load=4.*: pooled p50 .* against .* without the load \([+-][0-9]+%\), p99 .*; the streams moved' "$out"; echo $?)" \
	"a line under the table sets the latency beside the unloaded case's"

for v in 0 65 100000 abc -1; do
	run rr -t tcp -n 10 --under-load "$v"
	is_rc 2 "--under-load $v refused"
	ok "$(head -n 1 "$err" | grep -q -- "--under-load.*'$v'"; echo $?)" \
		"... in a line naming '$v'"
done
for t in pipe udp shm; do
	run rr -t "$t" -n 10 --under-load 1
	is_rc 2 "--under-load over $t refused"
	ok "$(head -n 1 "$err" | grep -q ": $t has none"; echo $?)" "... naming $t"
done
run rr -t tcp -n 10 --under-load 1 --link lan-100m
is_rc 2 "--under-load with --link refused"
run rr -t tcp -n 10 --under-load 1 --framing len
is_rc 2 "--under-load with --framing refused"
run stream -t tcp -n 10 --under-load 1
is_rc 2 "--under-load on stream refused"

no_leftovers "under load"
done_testing

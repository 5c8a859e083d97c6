# SPDX-License-Identifier: MIT
# rr end to end: every transport, both placements, the LLDB size matrix
# shape, size 0, and the invariants every result must keep.
. "$(dirname "$0")/lib.bash"

tps=$(transports_ok | paste -sd, -)
ntp=$(transports_ok | wc -l)
diag "transports here: $tps"

run rr -t all -n 300 -w 20 -r 2 -f json
is_rc 0 "rr on every transport"
jqt "one result per usable transport" ".results | length == $ntp"
jqt "every result ok" 'all(.results[]; .status == "ok")'
jqt "each run did exactly 300 round trips" 'all(.results[].runs[]; .iterations == 300)'
jqt "two runs per result" 'all(.results[]; (.runs | length) == 2)'
jqt "summary iterations = 600" 'all(.results[]; .summary.iterations == 600)'
jqt "min <= p50 <= p90 <= p99 <= p999 <= max" \
	'all(.results[].summary.latency_ns; .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .p999 and .p999 <= .max)'
jqt "latencies are positive integers" \
	'all(.results[].summary.latency_ns | to_entries[]; (.value | type) == "number" and .value == (.value | floor) and .value > 0)'
jqt "msgs_per_s = iterations / elapsed" \
	'all(.results[].runs[]; ((.msgs_per_s - .iterations * 1e9 / .elapsed_ns) | fabs) <= 0.01 * .msgs_per_s)'
jqt "bytes = 2 bytes per round trip" 'all(.results[].runs[]; .bytes == 600)'
jqt "timer cost recorded" 'all(.results[].runs[]; .timer_ns > 0)'
no_leftovers "rr on every transport"

run rr -t all -n 200 -w 10 -r 1 --placement thread -f json
is_rc 0 "rr with the peer as a thread"
jqt "thread placement: every result ok" 'all(.results[]; .status == "ok")'
jqt "thread placement recorded" '.config.placement == "thread"'
no_leftovers "thread placement"

# The LLDB speed-test shape, smaller: sizes 0..64 both ways.
run rr -t tcp --req 0..64 --resp 0..64 -n 50 -w 5 -r 1 -f json
is_rc 0 "rr size matrix over tcp"
jqt "8 x 8 cases" '.results | length == 64'
jqt "matrix covers req 0 and resp 64" 'any(.results[]; .req_size == 0 and .resp_size == 64)'
jqt "size 0 counts no payload bytes" 'all(.results[] | select(.req_size == 0 and .resp_size == 0); .summary.bytes == 0)'

for t in udp unix-dgram unix-seqpacket pipe; do
	run rr -t $t --req 0 --resp 0,4095 -n 100 -w 5 -r 1 -f json
	is_rc 0 "size 0 on $t"
	jqt "size 0 on $t: all ok" 'all(.results[]; .status == "ok")'
done

run rr -t unix,tcp --req 65536 --resp 1 -n 50 -w 5 -r 1 -f json
is_rc 0 "64 KiB requests on byte streams"
jqt "64 KiB requests: ok" 'all(.results[]; .status == "ok" and .req_size == 65536)'

run rr -t pipe,tcp -d 300ms -r 2 -f json
is_rc 0 "rr by duration"
jqt "by duration: runs last about as long as asked" \
	'all(.results[].runs[]; .elapsed_ns > 100000000 and .iterations > 10)'

run rr -t pipe -e blocking,poll -n 100 -r 1 -f json
is_rc 0 "two engines"
jqt "one result per engine" '[.results[].engine] == ["blocking", "poll"]'

run rr -t pipe -n 100 -r 1
is_rc 0 "table output"
check "table shows p50 and the transport" grep -q "pipe" "$out"
check "table heading names rr" grep -qi "round trip" "$out"
no_leftovers "rr variants"

done_testing

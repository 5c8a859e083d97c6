# SPDX-License-Identifier: MIT
# rr with framed messages: gdb-rsp (with and without acks) and len on
# every transport, sizes whose payload needs escapes and run-length
# encoding, the LLDB speed-test matrix shape as real gdb-remote packets,
# over a link, and the usage errors.
. "$(dirname "$0")/lib.bash"

ntp=$(transports_ok | wc -l)

run rr -t all --framing gdb-rsp --req 0,1,1000 --resp 0,300 -n 50 -w 5 -r 1 -f json
is_rc 0 "gdb-rsp on every transport"
jqt "gdb-rsp: every case ok" 'all(.results[]; .status == "ok")'
jqt "gdb-rsp: 6 cases per transport" ".results | length == $((6 * ntp))"
jqt "gdb-rsp: framing and acks recorded" 'all(.results[]; .framing == "gdb-rsp" and .acks == true)'
jqt "gdb-rsp: bytes count payload only" \
	'all(.results[]; . as $x | all($x.runs[]; .bytes == .iterations * ($x.req_size + $x.resp_size)))'
no_leftovers "gdb-rsp on every transport"

run rr -t tcp,udp,pipe --framing gdb-rsp --no-ack --req 64 --resp 4k -n 50 -w 5 -r 2 --placement thread -f json
is_rc 0 "gdb-rsp without acks, peer as a thread"
jqt "no-ack: ok and recorded" 'all(.results[]; .status == "ok" and .acks == false)'

run rr -t unix,udp --framing len --req 0,7,65000 --resp 1 -e poll -n 50 -w 5 -r 1 -f json
is_rc 0 "len framing with poll"
jqt "len: ok" 'all(.results[]; .status == "ok" and .framing == "len" and (has("acks") | not))'

# The LLDB speed test's shape: every request size by every response size.
run rr -t tcp --framing gdb-rsp --req 0..64 --resp 0..64 -n 20 -w 2 -r 1 -f json
is_rc 0 "the speed-test matrix as gdb-remote packets"
jqt "8 x 8 cases, all ok" '(.results | length) == 64 and all(.results[]; .status == "ok")'

run rr -t tcp --framing gdb-rsp --link delay=1ms -n 20 -w 2 -r 1 -f json
is_rc 0 "gdb-rsp over a link"
jqt "gdb-rsp over delay=1ms: at least 2 ms a round trip" '.results[0].summary.latency_ns.min >= 2000000'

run rr -t pipe --framing gdb-rsp -n 20 -w 2 -r 1
is_rc 0 "table with gdb-rsp"
check "the heading names the framing" grep -q "framing gdb-rsp with acks" "$out"

run rr -t pipe --framing gdb-rsp --req 0 --resp 0 -n 20 -w 2 -r 1
is_rc 0 "gdb-rsp size 0"
check "size 0 is an empty packet, not a 1-byte token" sh -c "! grep -q '1-byte token' '$out'"

run rr -t pipe -n 20 -w 2 -r 1 -f json
jqt "raw is the default, without acks field" '.results[0].framing == "raw" and (.results[0] | has("acks") | not)'

usage() { # usage "description" "first line names" ARGS...
	local d=$1 want=$2
	shift 2
	run "$@"
	is_rc 2 "$d: exit 2"
	if head -n 1 "$err" | grep -qF -- "$want"; then
		ok 0 "$d: first line names '$want'"
	else
		ok 1 "$d: first line names '$want'"
		diag "stderr: $(head -n 2 "$err")"
	fi
	check "$d: a hint follows" grep -q "hint:" "$err"
}
usage "an unknown framing" "'http'" rr -t pipe --framing http
usage "--no-ack without gdb-rsp" "--no-ack" rr -t pipe --no-ack
usage "--no-ack with len" "len framing has no acks" rr -t pipe --framing len --no-ack
usage "--framing on stream" "--framing does not apply to stream" stream -t pipe --framing gdb-rsp
no_leftovers "framing"

done_testing

# SPDX-License-Identifier: MIT
# Link emulation end to end: the emulator against arithmetic (serial line
# time, added delay), every transport through the relay, a byte stream and
# datagrams never reordered, loss, refusals, and no relay left behind after
# a killed peer or Ctrl-C.
#
# The pacing checks are of the emulator, not of the machine: a round trip
# of 480 bytes at 9600 baud must take at least 480 x 10 / 9600 = 0.5 s and
# delay=20ms must add at least 40 ms, each bounded above only loosely (see
# paced below); the accuracy itself (error below 1%, docs/links.md) is
# measured, not asserted.  9600 baud with 480-byte round trips keeps the
# serial check at one second.
. "$(dirname "$0")/lib.bash"

# paced WANT_NS LINK_NS: the p50 of the last JSON result is at least WANT
# less 1% of the link's own time (a link never runs faster than its
# arithmetic) and at most WANT plus half the link's time (it paces at the
# rate asked, not at half or double).  The upper bound is loose on purpose:
# a busy machine adds to every wall time, and speed is bench/'s business.
paced() {
	local want=$1 link=$2 d=$3
	jqt "$d" ".results[0].summary.latency_ns.p50 | . >= $want - 0.01 * $link and . <= $want + 0.5 * $link"
	diag "$d: p50 $(jq '.results[0].summary.latency_ns.p50' "$out") ns, want $want"
}

run rr -t tcp --link baud=9600 --req 240 --resp 240 -n 2 -w 0 -r 1 -f json
is_rc 0 "rr over a 9600-baud link"
paced 500000000 500000000 "480 bytes at 9600 baud take 480 x 10 / 9600 s"
jqt "the link is recorded with its figures" \
	'.results[0].link == "baud=9600" and .results[0].link_params.rate_bps == 9600 and .results[0].link_params.bits_per_byte == 10'

run stream -t unix --link serial-115200 --size 1k --count 10 -n 1 -w 0 -r 1 -f json
is_rc 0 "stream over serial-115200"
paced 888889000 888889000 "10 KiB at 115200 baud take 10240 x 10 / 115200 s"

# delay=20ms adds 2 x 20 ms to the round trip; the relay's own cost (delay=0:
# tens of microseconds, a few milliseconds under a sanitizer on a loaded
# machine) sits well within the loose upper bound.
run rr -t tcp --link delay=0 -n 40 -w 5 -r 1 -f json
is_rc 0 "rr through a relay that adds nothing"
diag "relay alone: p50 $(jq '.results[0].summary.latency_ns.p50' "$out") ns"
run rr -t tcp --link delay=20ms -n 20 -w 2 -r 1 -f json
is_rc 0 "rr over delay=20ms"
paced 40000000 40000000 "delay=20ms adds 40 ms to the round trip"

# rate=0 is no rate limit: the link keeps its delay alone.
run rr -t pipe --link wan,rate=0,delay=1ms,jitter=0 -n 10 -w 2 -r 1 -f json
is_rc 0 "rate=0 lifts the wan preset's rate"
jqt "rate=0 is recorded as 0 with the delay kept" \
	'.results[0].link_params.rate_bps == 0 and .results[0].link_params.delay_ns == 1000000 and .results[0].status == "ok"'
jqt "with rate=0 a round trip still takes the 2 ms of delay" \
	'.results[0].summary.latency_ns.min >= 2000000'

run rr -t all --link delay=1ms -n 20 -w 2 -r 1 -f json
is_rc 0 "every transport through the relay"
jqt "every result ok" 'all(.results[]; .status == "ok")'
jqt "one result per transport the relay can carry, or a reason" \
	"(.results | length) + ([.skipped[] | select(.what | test(\"link\"))] | length) == $(transports_ok | wc -l)"
jqt "no round trip shorter than the 2 ms the link adds (never early)" \
	'all(.results[]; .summary.latency_ns.min >= 2000000)'
no_leftovers "every transport through the relay"

run rr -t pipe,udp --link delay=1ms --placement thread -n 20 -w 2 -r 2 -f json
is_rc 0 "relay with the peer as a thread"
jqt "thread placement: ok" 'all(.results[]; .status == "ok")'

# Jitter far above the spacing of the pieces: order must survive, and the
# payload check (sequence numbers in every message) would see it if not.
run stream -t tcp --link delay=1ms,jitter=2ms,mtu=64 --size 1k --count 300 -n 2 -w 0 -r 1 -f json
is_rc 0 "a byte stream with jitter is never reordered"
jqt "stream with jitter: checked and ok" '.results[0].status == "ok" and .config.verify'
run stream -t udp,unix-dgram --link delay=1ms,jitter=2ms --size 200 --count 100 -n 2 -w 0 -r 1 -f json
is_rc 0 "datagrams with jitter are never reordered"
jqt "datagrams with jitter: ok" 'all(.results[]; .status == "ok")'

# Many times the relay's queue (1 MiB for streams, 8 MiB for datagrams)
# in odd sizes: the queue wraps around, and every payload is checked.
run stream -t unix,pipe,unix-dgram --link rate=2gbit,mtu=1000 --size 60k,777 --count 300 -n 2 -w 1 -r 1 -f json
is_rc 0 "the relay's queue wraps around, bytes intact"
jqt "queue wrap-around: all ok" 'all(.results[]; .status == "ok")'

run rr -t unix --link wan,loss=0% -n 3 -w 0 -r 1 -f json
is_rc 0 "a preset with a parameter changed"
jqt "named after both" '.results[0].link == "wan+loss=0%"'

run rr -t unix --link localhost --link lan-100m,wifi-g -n 10 -w 1 -r 1 -f json
is_rc 0 "links as a case dimension"
jqt "three links, in order" '[.results[].link] == ["localhost", "lan-100m", "wifi-g"]'
jqt "localhost has no relay" '.results[0] | has("link_params") | not'
run rr -t unix --link localhost,lan-100m -n 10 -w 1 -r 1
is_rc 0 "table with two links"
check "the table has a link column" grep -q "^transport  link" "$out"

run rr -t udp --link loss=100% -n 5 -w 0 -r 1 --timeout 200ms -f json
is_rc 1 "100% loss on udp: the case fails"
jqt "it says the datagrams were lost" '.results[0].error | test("lost")'
no_leftovers "100% loss"

run rr -t tcp --link loss=1% -n 5 -r 1
is_rc 2 "loss on tcp only: nothing to run"
check "the reason names the byte stream" grep -q "byte stream" "$err"
run rr -t tcp,udp --link loss=1% -n 5 -w 0 -r 1 --timeout 2s -f json
jqt "loss on tcp is listed as skipped" '.skipped[] | select(.what == "link loss=1% on tcp") | .why | test("byte stream")'

# usage: LINK-SPEC "first line names"
for bad in "wlan:'wlan'" "delay=5parsecs:delay: bad time '5parsecs'" "speed=1:'speed'" "loss=1:loss: bad percentage '1'"; do
	run rr -t pipe --link "${bad%%:*}"
	is_rc 2 "--link ${bad%%:*}: exit 2"
	check "--link ${bad%%:*}: the first line names the bad item" sh -c "head -n 1 '$err' | grep -qF -- \"${bad#*:}\""
	check "--link ${bad%%:*}: a hint follows" grep -q "hint:" "$err"
done
run --help
check "--help describes LINK" grep -q "^LINK " "$out"
run list
check "list shows the link presets" grep -q "^  serial-9600 " "$out"

# A peer killed behind a relay: ipcperf ends, nothing is left.
for tp in tcp udp fifo; do
	"$IPCPERF" rr --pin none -t $tp --link delay=1ms -n 100000000 -w 0 -r 1 -f json >"$out" 2>"$err" &
	pid=$!
	child=""
	child=$(peer_of $pid)
	sleep 0.3
	[ -n "$child" ] && kill -KILL "$child"
	ends_within $pid 10 "$tp: ends within 10 s of its peer's death behind a relay"
	is_rc 1 "$tp: killed peer behind a relay gives exit 1"
	jqt "$tp: result marked partial or error" '.results[0].status != "ok"'
	no_leftovers "$tp: killed peer behind a relay"
done

for pl in process thread; do
	"$IPCPERF" rr --pin none -t unix --link wan -d 60 -w 0 -r 2 --placement $pl -f json >"$out" 2>"$err" &
	pid=$!
	sleep 1.5
	kill -INT $pid
	ends_within $pid 10 "Ctrl-C over wan ($pl): ends within 10 s"
	is_rc 1 "Ctrl-C over wan ($pl): exit 1"
	jqt "Ctrl-C over wan ($pl): partial, with what was measured" \
		'.results[0].status == "partial" and .results[0].summary.iterations > 0'
	no_leftovers "Ctrl-C over wan ($pl)"
done

done_testing

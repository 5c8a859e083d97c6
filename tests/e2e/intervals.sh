# SPDX-License-Identifier: MIT
# -i/--interval: each run's intervals add up to the run exactly, follow
# each other without a gap, end no earlier than planned, survive a read
# back, and survive a peer's death; bad values are refused in one line.
. "$(dirname "$0")/lib.bash"

# Every run has intervals whose counts sum to the run's and that follow
# each other from 0: start of each = end of the one before.
SUMS='all(.results[].runs[];
	(.intervals | length) >= 2
	and ([.intervals[].iterations] | add) == .iterations
	and ([.intervals[].messages] | add) == .messages
	and ([.intervals[].bytes] | add) == .bytes
	and .intervals[0].start_ns == 0
	and ([range(1; .intervals | length) as $i
	      | .intervals[$i].start_ns == .intervals[$i - 1].end_ns] | all))'
# All but the last end at or after their planned end (LEN ns apart).
planned() {
	echo "all(.results[].runs[]; [.intervals[:-1] | to_entries[]
		| .value.end_ns >= (.key + 1) * $1] | all)"
}

run stream -t tcp,unix,udp --size 8k -d 600ms -i 100ms -r 2 -f json
is_rc 0 "stream -i 100ms on tcp, unix, udp"
jqt "stream: intervals add up to each run" "$SUMS"
jqt "stream: intervals end when planned" "$(planned 100000000)"
jqt "stream: at most one interval per 100 ms and one more" \
	'all(.results[].runs[]; (.intervals | length) <= 7)'
jqt "udp stream: each interval counts its loss" \
	'all(.results[] | select(.transport == "udp") | .runs[].intervals[];
	     has("lost"))'
jqt "tcp stream: no loss field" \
	'all(.results[] | select(.transport == "tcp") | .runs[].intervals[];
	     has("lost") | not)'
cp "$out" "$T/stream.json"
run report "$T/stream.json" -f json
is_rc 0 "a document with intervals reads back"
if jq -e --slurpfile a "$T/stream.json" \
	'[.results[].runs[].intervals] == [$a[0].results[].runs[].intervals]' \
	"$out" >/dev/null; then
	ok 0 "read back: the same intervals"
else
	ok 1 "read back: the same intervals"
fi

run rr -t unix -d 500ms -i 100ms -r 1 -f json
is_rc 0 "rr -d 500ms -i 100ms"
jqt "rr: intervals add up to the run" "$SUMS"
jqt "rr: each interval's p50 <= p99, both set" \
	'all(.results[].runs[].intervals[]; .p50_ns > 0 and .p50_ns <= .p99_ns)'

run bulk -t pipe --total 1M -d 400ms -i 100ms -r 1 -f json
is_rc 0 "bulk -i 100ms"
jqt "bulk: intervals add up to the run" "$SUMS"

run crr -t tcp -d 300ms -i 100ms -r 1 -f json
is_rc 0 "crr -i 100ms"
jqt "crr: intervals add up to the run" "$SUMS"

run stream -t unix -d 300ms -r 1 -f json
jqt "without -i no intervals" 'all(.results[].runs[]; has("intervals") | not)'

# A peer that dies part way: the intervals so far stay, adding up.
"$IPCPERF" stream --pin none -t unix -d 30s -i 100ms -w 0 -r 1 -f json \
	>"$out" 2>"$err" &
pid=$!
child=$(peer_of $pid)
sleep 0.6
if [ -n "$child" ]; then
	kill -KILL "$child"
	ends_within $pid 10 "ipcperf ends after its peer's death"
	is_rc 1 "killed peer: exit 1"
	jqt "killed peer: the run is marked partial" \
		'.results[0].status == "partial"'
	jqt "killed peer: its intervals stay and add up" "$SUMS"
else
	ok 1 "found the peer process"
	kill -KILL $pid
fi

# Bad values: one line naming the value, exit 2.
for v in 0 5ms -1 abc; do
	run stream -t unix -d 1s -i "$v"
	is_rc 2 "-i $v refused"
	ok "$(head -n 1 "$err" | grep -q -- "--interval.*'$v'"; echo $?)" \
		"-i $v: the first line names --interval and the value"
done
# Many flows in one client thread: an interval is every flow's replies.
run load -t tcp -c 4 -d 400ms -i 100ms -r 1 -f json
is_rc 0 "load -c 4 -i 100ms"
jqt "load: intervals add up to the run" "$SUMS"
jqt "load: intervals end when planned" "$(planned 100000000)"
jqt "load: each interval's p50 <= p99, both set" \
	'all(.results[].runs[].intervals[]; .p50_ns > 0 and .p50_ns <= .p99_ns)'
run load -t unix -c 3 -n 3000 -i 10ms -r 1 -f json
is_rc 0 "load by count with -i"
jqt "load by count: intervals add up to the run" \
	'all(.results[].runs[]; .iterations == 3000 and ([.intervals[].iterations] | add) == 3000)'
# http: an interval's bytes are the responses' bytes on the wire.
run http -c 3 -d 400ms -i 100ms -r 1 -f json
is_rc 0 "http -i 100ms against the built-in target"
jqt "http: intervals add up to the run, bytes too" "$SUMS"
jqt "http: every interval moved whole pages" \
	'all(.results[].runs[].intervals[]; .iterations > 0 and .bytes >= .iterations * 16294)'
run load -t tcp -c 4 --threads 2 -d 1s -i 1s
is_rc 2 "-i with two client threads refused"
ok "$(head -n 1 "$err" | grep -q -- '--interval with --threads 2'; echo $?)" \
	"-i --threads 2: the line names both"

# A document whose interval ends before it starts is refused, named.
jq '.results[0].runs[0].intervals[0].end_ns = 0 |
    .results[0].runs[0].intervals[0].start_ns = 5' "$T/stream.json" \
	>"$T/bad.json"
run report "$T/bad.json" -f json
is_rc 2 "an interval ending before its start is refused"
ok "$(grep -q 'intervals\[0\].end_ns' "$err"; echo $?)" "the error names the field"

no_leftovers "intervals"
done_testing

# SPDX-License-Identifier: MIT
# -P/--parallel, -R/--reverse and --bidir: N streams whose counts add up
# to the run's, each stream's payload checked on its own channel, their
# fairness in the result; the peer sending with -R and both ways with
# --bidir; intervals still adding up; a stream whose peer dies leaves a
# partial run; remote -P; bad values refused in one line, exit 2.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/remote.bash"

# Every run has N streams whose counts add up to the run's; each stream
# did the run's iterations (by count) and moved its messages' bytes.
streams() {
	echo "all(.results[].runs[];
	(.streams | length) == $1
	and ([.streams[].messages] | add) == .messages
	and ([.streams[].bytes] | add) == .bytes
	and ([.streams[].iterations] | add) == .iterations
	and ([.streams[].stream] == [range($1)])
	and all(.streams[]; .bytes > 0 and (.failed | not))
	and .flows.flows == $1 and .flows.jain > 0 and .flows.jain <= 1
	and .flows.rate_min <= .flows.rate_max)"
}

run stream -t tcp,tcp6,unix,shm --size 8k --count 50 -n 4 -r 2 -f json
is_rc 0 "stream -P absent: one stream, no streams array"
jqt "without -P: no streams array" 'all(.results[].runs[]; has("streams") | not)'

run stream -t tcp,tcp6,unix,shm -P 3 --size 8k --count 50 -n 4 -r 2 -f json
is_rc 0 "stream -P 3 on tcp, tcp6, unix, shm"
jqt "stream -P 3: three streams adding up to each run" "$(streams 3)"
jqt "stream -P 3: each stream did the run's batches" \
	'all(.results[].runs[].streams[]; .iterations == 4 and .messages == 200 and .bytes == 200 * 8192)'
jqt "stream -P 3: payloads checked, streams in the case" \
	'all(.results[]; .config.verify and .streams == 3 and .status == "ok")'
jqt "stream -P 3: the summary's fairness" \
	'all(.results[]; .summary.flows.flows == 3 and .summary.flows.jain > 0)'
cp "$out" "$T/par.json"
run report "$T/par.json" -f json
is_rc 0 "a -P document reads back"
jqt "the streams read back" "$(streams 3)"

run stream -t udp,udp6 -P 2 --size 1k --count 50 -n 4 -r 1 -f json
is_rc 0 "stream -P 2 over udp and udp6"
jqt "udp -P 2: two streams, each counting its loss" \
	'all(.results[].runs[]; (.streams | length) == 2 and ([.streams[].messages] | add) == .messages and ([.streams[].lost] | add) == .loss.lost)'

run bulk -t tcp,unix -P 2 --total 256k --size 16k -n 3 -r 1 -f json
is_rc 0 "bulk -P 2 on tcp and unix"
jqt "bulk -P 2: two streams adding up" "$(streams 2)"
jqt "bulk -P 2: each stream moved its transfers" \
	'all(.results[].runs[].streams[]; .bytes == 3 * 262144)'

run stream -t tcp -P 2 --size 8k --count 20 -d 500ms -i 100ms -r 1 -f json
is_rc 0 "stream -P 2 -i 100ms"
jqt "-P with -i: the run's intervals add up to it and follow each other" \
	'all(.results[].runs[]; (.intervals | length) >= 2
	and ([.intervals[].bytes] | add) == .bytes
	and ([.intervals[].messages] | add) == .messages
	and ([range(1; .intervals | length) as $i
	      | .intervals[$i].start_ns == .intervals[$i - 1].end_ns] | all))'

run stream -t tcp,unix,shm -R --size 8k --count 50 -n 4 -r 2 -f json
is_rc 0 "stream -R on tcp, unix, shm"
jqt "-R: the direction in the case, every message received and checked" \
	'all(.results[]; .direction == "reverse" and .config.verify and .status == "ok" and all(.runs[]; .messages == 200 and .bytes == 200 * 8192))'

run stream -t tcp,shm --bidir --size 8k --count 50 -n 4 -r 1 -f json
is_rc 0 "stream --bidir on tcp and shm"
jqt "--bidir: a stream each way, adding up" "$(streams 2)"
jqt "--bidir: stream 0 sends, stream 1 receives, both moved all" \
	'all(.results[].runs[]; [.streams[].direction] == ["send", "reverse"] and all(.streams[]; .bytes == 200 * 8192))'

run stream -t unix -P 2 --bidir --size 8k --count 50 -n 2 -r 1 -f json
is_rc 0 "stream -P 2 --bidir"
jqt "-P 2 --bidir: four streams, alternating" \
	'all(.results[].runs[]; [.streams[].direction] == ["send", "reverse", "send", "reverse"])'

# A stream whose peer dies part way: what was measured stays, partial;
# the other stream goes on to its end.
"$IPCPERF" stream --pin none -t unix -P 2 -d 3s -w 0 -r 1 -f json \
	>"$out" 2>"$err" &
pid=$!
child=$(peer_of $pid)
sleep 0.8
if [ -n "$child" ]; then
	kill -KILL "$child"
	ends_within $pid 10 "ipcperf ends after one stream's peer died"
	is_rc 1 "killed peer: exit 1"
	jqt "killed peer: the run is partial, naming the stream" \
		'.results[0].status == "partial" and (.results[0].error | test("stream [12] of 2"))'
	jqt "killed peer: both streams kept, one failed, counts add up" \
		'.results[0].runs[0] | (.streams | length) == 2 and ([.streams[] | select(.failed)] | length) >= 1 and ([.streams[].bytes] | add) == .bytes'
else
	ok 1 "found a peer process"
	kill -KILL $pid
fi

# Remote: each stream is a test of its own at the server.
start_server --max-clients 4 --control-timeout 3s
run stream --remote "$addr" -t tcp -P 2 --size 8k --count 50 -n 3 -r 1 -q -f json
is_rc 0 "stream -P 2 --remote"
jqt "remote -P 2: two streams adding up, the peer remote" \
	"$(streams 2) and .results[0].peer.kind == \"remote\""
run stream --remote "$addr" -t tcp -R -P 2 --size 8k --count 50 -n 3 -r 1 -q -f json
is_rc 0 "stream -R -P 2 --remote"
jqt "remote -R -P 2: two streams adding up, both sent by the server" \
	"$(streams 2) and all(.results[0].runs[].streams[]; .direction == \"reverse\")"
kill -TERM $spid
ends_within $spid 5 "the server ends"

# Bad values: one line naming the value, exit 2.
for v in 0 abc 100000; do
	run stream -t tcp -P "$v" -n 2
	is_rc 2 "-P $v refused"
	ok "$(head -n 1 "$err" | grep -q -- "--parallel.*$v"; echo $?)" \
		"-P $v: the first line names --parallel and the value"
done
(ulimit -n 200; "$IPCPERF" stream -t tcp -P 100 -n 2 >"$out" 2>"$err")
rc=$?
is_rc 2 "-P beyond the descriptor limit refused"
ok "$(head -n 1 "$err" | grep -q "this process's 200 descriptors"; echo $?)" \
	"-P beyond the descriptor limit: says the limit"
run stream -t tcp -R --bidir -n 2
is_rc 2 "-R with --bidir refused"
run rr -t tcp -P 2 -n 2
is_rc 2 "-P on rr refused"
run bulk -t tcp -R -n 2
is_rc 2 "-R on bulk refused (bulk's peer sends already)"
# A paced peer: 64 KiB messages at 100 Mbit/s are 5.24 ms apart, so a
# batch of 10 takes 47 ms at the least (the first is sent at once); no
# more than that is asserted about time.
run stream -t tcp -R -b 100M --size 64k --count 10 -n 2 -r 1 -q -f json
is_rc 0 "-R with -b: the peer paces"
jqt "-R -b: every batch at least as long as the pace makes it" \
	'.results[0] | .status == "ok" and .bitrate_bps == 100000000 and .runs[0].latency_ns.min >= 47000000'

no_leftovers "parallel"
done_testing

# SPDX-License-Identifier: MIT
# load end to end: many flows deliver exactly the replies asked for on
# every engine with flow sets; the open loop measures from due times, so a
# stalled server shows in the percentiles; fairness is reported; a
# descriptor limit too low is refused with a reason; nothing is left
# behind, also when the peer is killed.
. "$(dirname "$0")/lib.bash"

engs=$("$IPCPERF" list | awk '/^engines:/{e=1;next} /^[a-z]/{e=0} e && $2=="ok" && $1!="blocking"{print $1}' | paste -sd, -)
diag "engines with flow sets here: $engs"

# 1003 requests over 200 flows: 3 flows do one more than the others.
run load -t tcp,unix,unix-seqpacket -e "$engs" -c 200 --threads 3 -n 1003 -w 200 \
	--req 100 --resp 2000 -r 2 -f json
is_rc 0 "load: 200 flows on 3 threads, every engine"
jqt "load: every result ok" 'all(.results[]; .status == "ok")'
jqt "load: exactly 1003 replies per run" 'all(.results[].runs[]; .iterations == 1003 and .messages == 1003)'
jqt "load: one latency sample per reply" 'all(.results[].runs[]; .latency_ns.p50 > 0)'
jqt "load: bytes = replies x (req + resp)" 'all(.results[].runs[]; .bytes == 1003 * 2100)'
jqt "load: fairness over 200 flows" \
	'all(.results[].runs[].flows; .flows == 200 and .rate_min > 0 and .rate_min <= .rate_median and .rate_median <= .rate_max)'
jqt "load: case records flows, threads, closed loop" \
	'all(.results[]; .flows == 200 and .threads == 3 and .loop == "closed" and .rate == 0)'
no_leftovers "load on every engine"

run load -t tcp -c 64 -n 640 -r 1 --placement thread -f json
is_rc 0 "load with the server as a thread"
jqt "thread placement: 640 replies" '.results[0].summary.iterations == 640'

run load -t tcp6 -c 50 -d 300ms -r 1 -f json
is_rc 0 "load by duration"
jqt "by duration: replies counted, about as long as asked" \
	'.results[0].status == "ok" and .results[0].summary.iterations > 50 and .results[0].runs[0].elapsed_ns > 200000000'

# Open loop, 1000 requests/s over 4 flows for 1000 requests, the server
# stalling 100 ms at its 500th request: the ~100 requests due during the
# stall wait for it, so at least 5% of samples are >= 50 ms and p99 must
# show it.  (A closed loop would hide it: 4 samples of 1000 would see it.)
run load -t tcp -c 4 --rate 1000 -n 1000 -w 4 --peer-stall 500:100ms -r 1 -f json
is_rc 0 "open loop with a stalling server"
jqt "open loop: every request answered" '.results[0].summary.iterations == 1000'
jqt "open loop: p99 shows the stall (>= 50 ms)" '.results[0].summary.latency_ns.p99 >= 50000000'
jqt "open loop: max holds the whole stall (>= 100 ms)" '.results[0].summary.latency_ns.max >= 100000000'
jqt "open loop recorded, with the generator's lag" \
	'.results[0].loop == "open" and .results[0].rate == 1000 and (.results[0].summary.flows | has("lag_max_ns"))'
jqt "open loop: the run lasts as long as the schedule (>= 0.9 s)" '.results[0].runs[0].elapsed_ns >= 900000000'
diag "open loop with stall: $(jq -c '.results[0].summary.latency_ns | {p50, p90, p99, max}' "$out")"

run load -t tcp -c 8 --rate 2000 -n 400 -r 1
is_rc 0 "open loop, table"
check "table names the loop and rate" grep -q "open, 2.00 k/s" "$out"
check "table has fairness columns" grep -q "flow median" "$out"
no_leftovers "open loop"

# More flows than descriptors: refused before anything runs, with the limit.
# (ulimit -n sets the soft and the hard limit.)
sh -c "ulimit -n 300 && exec '$IPCPERF' load -t tcp -c 1000" >"$out" 2>"$err"
rc=$?
is_rc 2 "load beyond the hard descriptor limit is refused"
check "the refusal names RLIMIT_NOFILE" grep -q "RLIMIT_NOFILE allows 300" "$err"
sh -c "ulimit -Sn 300; exec '$IPCPERF' load -t tcp -c 1000 -n 1000 -r 1 -f json" >"$out" 2>"$err"
rc=$?
is_rc 0 "a low soft limit is raised to the hard one"
jqt "1000 flows under a 300 soft limit: 1000 replies" '.results[0].summary.iterations == 1000'

run load -t tcp -c 4 --threads 5
is_rc 2 "more threads than flows is refused"
run load -t pipe -c 4
is_rc 2 "load over a transport without connections is refused"
check "the refusal says why" grep -q "has no connections" "$err"

# A peer killed during a long load: the client ends, reports, cleans up.
"$IPCPERF" load --pin none -t unix -c 50 -d 60 -r 1 -f json >"$out" 2>"$err" &
pid=$!
child=$(peer_of $pid)
sleep 0.5
[ -n "$child" ] && kill -KILL "$child"
ends_within $pid 10 "load ends within 10 s of its peer's death"
is_rc 1 "killed peer during load: exit 1"
jqt "killed peer: marked, with the cause" \
	'(.results[0].status == "partial" or .results[0].status == "error") and (.results[0].error | test("peer"))'
no_leftovers "load with a killed peer"

done_testing

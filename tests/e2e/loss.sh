# SPDX-License-Identifier: MIT
# Loss over udp against a peer that drops a known share on purpose
# (--peer-drop, spread evenly so the counts are exact) or answers late
# (--peer-stall): counted in JSON and table, never a hang, never a crash,
# at 0%, 50% and 100%.
. "$(dirname "$0")/lib.bash"

# Run with an outer limit: a hang is a failed check, not a stuck test.
# One placement, the scheduler's, as run does (lib.bash).
run_limited() {
	timeout -k 5 60 "$IPCPERF" "$1" --pin none "${@:2}" >"$out" 2>"$err"
	rc=$?
}

# The peer's drops are exact; a response the busy machine delays past the
# timeout is lost for real (and usually seen late), so the bounds are:
# dropped <= lost <= dropped + late + 1.
for pct in 0 50; do
	d=$((60 * pct / 100))
	run_limited rr -t udp,udp6 -e blocking,epoll --req 16 --resp 16 -n 60 -w 0 \
		-r 2 --timeout 20ms --peer-drop $pct -f json
	is_rc 0 "rr udp, peer drops $pct%: exit 0"
	jqt "rr $pct%: status ok (loss is data)" 'all(.results[]; .status == "ok")'
	jqt "rr $pct%: 60 requests sent per run" 'all(.results[].runs[]; .loss.sent == 60)'
	jqt "rr $pct%: every dropped request counted lost ($d per run)" \
		"all(.results[].runs[]; .loss.lost >= $d and .loss.lost <= $d + .loss.late + 1)"
	jqt "rr $pct%: received = sent - lost" 'all(.results[].runs[]; .loss.received == .loss.sent - .loss.lost)'
	jqt "rr $pct%: round trips = responses received" 'all(.results[].runs[]; .iterations == .loss.received)'
	jqt "rr $pct%: summary adds the runs" \
		'all(.results[]; .summary.loss.lost == ([.runs[].loss.lost] | add) and .summary.loss.sent == 120)'
	jqt "rr $pct%: lost_pct = 100 lost / sent" \
		'all(.results[].summary.loss; (.lost_pct - 100 * .lost / .sent | fabs) < 1e-9)'
	[ "$(jq '[.results[].runs[].loss.lost] | unique' "$out" | tr -d ' \n')" = "[$d]" ] ||
		diag "loss beyond the drops (timing): $(jq -c '[.results[].runs[].loss | [.lost, .late]]' "$out")"
done
no_leftovers "rr with a dropping peer"

run_limited rr -t udp --req 16 --resp 16 -n 100 -w 0 -r 1 --timeout 20ms \
	--peer-drop 100 -f json
ok $([ "$rc" = 1 ] && echo 0 || echo 1) "rr 100%: ends (exit $rc), no hang"
jqt "rr 100%: JSON still valid, case marked error" '.results[0].status == "error"'
jqt "rr 100%: error says the peer is not answering" '.results[0].error | test("not answering")'
jqt "rr 100%: the lost requests are still counted" \
	'.results[0].summary.loss.sent > 0 and .results[0].summary.loss.lost == .results[0].summary.loss.sent'
jqt "rr 100%: no latency was made up" '.results[0].summary | has("latency_ns") | not'
no_leftovers "rr with a peer that drops everything"

# A peer that stalls 50 ms every 20th request while the client waits 20 ms:
# the stalled request is lost, and the responses that come after it are
# told apart by sequence number and counted late, not taken as current.
run_limited rr -t udp -e blocking,poll,io_uring --req 16 --resp 16 -n 200 -w 0 -r 1 \
	--timeout 20ms --peer-stall 20:50ms -f json
is_rc 0 "rr with a stalling peer"
jqt "stall: status ok" 'all(.results[]; .status == "ok")'
jqt "stall: some requests lost" 'all(.results[]; .summary.loss.lost >= 10)'
jqt "stall: late responses counted" 'all(.results[]; .summary.loss.late > 0)'
jqt "stall: a late response is never a sample (max < 50 ms)" \
	'all(.results[]; .summary.latency_ns.max < 50000000)'
jqt "stall: sent = received + lost" \
	'all(.results[].summary.loss; .sent == .received + .lost)'
no_leftovers "rr with a stalling peer"

# 1-byte responses carry one byte of sequence number: still enough.
run_limited rr -t udp -n 100 -w 0 -r 1 --timeout 20ms --peer-drop 10 -f json
is_rc 0 "rr 1-byte messages with 10% dropped"
jqt "1-byte: the 10 dropped are lost, late ones told apart" \
	'.results[0].summary.loss | .lost >= 10 and .lost <= 10 + .late + 1'

for pct in 0 10 50 100; do
	run_limited stream -t udp,udp6 -e blocking,epoll --size 200 --count 100 -n 4 -w 1 -r 2 \
		--timeout 200ms --peer-drop $pct -f json
	is_rc 0 "stream udp, peer drops $pct%: exit 0"
	jqt "stream $pct%: status ok" 'all(.results[]; .status == "ok")'
	jqt "stream $pct%: 400 sent per run" 'all(.results[].runs[]; .loss.sent == 400)'
	jqt "stream $pct%: exactly $((4 * pct)) lost per run" \
		"all(.results[].runs[]; .loss.lost == $((4 * pct)))"
	jqt "stream $pct%: messages = received" \
		'all(.results[].runs[]; .messages == .loss.received and .loss.received == .loss.sent - .loss.lost)'
	jqt "stream $pct%: reordering counted (none on loopback)" \
		'all(.results[].runs[]; .loss.reordered == 0)'
done
no_leftovers "stream with a dropping peer"

# -R: the peer sends; what it left unsent on purpose (and counted as
# sent) is what the client must find lost, exactly; a batch's END tells
# the client what was sent.
for pct in 0 10 100; do
	run_limited stream -t udp,udp6 -R --size 200 --count 100 -n 4 -w 1 -r 2 \
		--timeout 200ms --peer-drop $pct -f json
	is_rc 0 "stream -R udp, peer drops $pct%: exit 0"
	jqt "stream -R $pct%: status ok, reversed" \
		'all(.results[]; .status == "ok" and .direction == "reverse")'
	jqt "stream -R $pct%: 400 sent per run, exactly $((4 * pct)) lost" \
		"all(.results[].runs[]; .loss.sent == 400 and .loss.lost == $((4 * pct)))"
	jqt "stream -R $pct%: messages = received, nothing reordered" \
		'all(.results[].runs[]; .messages == .loss.received and .loss.received == .loss.sent - .loss.lost and .loss.reordered == 0)'
done
run_limited stream -t udp -R -b 20M --size 1k --count 50 -n 4 -r 2 -i 0.02 -f json
is_rc 0 "stream -R -b over udp: exit 0"
jqt "stream -R -b: the client keeps the paced peer's jitter, per run and interval" \
	'.results[0] | .status == "ok" and all(.runs[]; .jitter_ns >= 0 and .loss.lost == 0 and all(.intervals[]; has("jitter_ns")))'
run_limited stream -t udp --bidir --size 1k --count 100 -n 3 -r 1 -f json
is_rc 0 "stream --bidir over udp: exit 0"
jqt "--bidir over udp: a stream each way, each counted whole" \
	'.results[0] | .status == "ok" and all(.runs[]; ([.streams[].direction] | sort) == ["reverse", "send"] and all(.streams[]; .messages == 300))'
no_leftovers "stream -R with a dropping peer"

run_limited stream -t udp --size 0 --count 50 -n 2 -r 1 --peer-drop 20 -f json
is_rc 0 "stream of empty datagrams with loss"
jqt "empty datagrams: loss counted, reordering not claimed" \
	'.results[0].summary.loss.lost == 20 and (.results[0].summary.loss | has("reordered") | not)'

run_limited rr -t udp,tcp -n 100 -w 0 -r 1 --timeout 20ms --peer-drop 10
is_rc 0 "table output with loss"
check "table has a lost column" grep -q "lost" "$out"
check "table shows the lost share" grep -qE "[0-9]+ \(1[0-9.]*%\)" "$out"
no_leftovers "loss"

done_testing

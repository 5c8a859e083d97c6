# SPDX-License-Identifier: MIT
# Failure paths: a peer killed mid-run, Ctrl-C, and what is left behind
# (nothing: no FIFO, no socket file, no process).
. "$(dirname "$0")/lib.bash"

# kill_peer TRANSPORT: start a long rr, kill -9 its peer, check the report.
kill_peer() {
	local tp=$1 pid child i
	"$IPCPERF" rr --pin none -t "$tp" -n 100000000 -w 0 -r 1 -f json >"$out" 2>"$err" &
	pid=$!
	child=$(peer_of $pid)
	sleep 0.3
	if [ -z "$child" ]; then
		ok 1 "$tp: found the peer process"
		kill -KILL $pid
		return
	fi
	kill -KILL "$child"
	ends_within $pid 10 "$tp: ipcperf ends within 10 s of its peer's death"
	is_rc 1 "$tp: killed peer gives exit 1"
	jqt "$tp: result marked partial or error" '.results[0].status == "partial" or .results[0].status == "error"'
	jqt "$tp: error says how far it got" '.results[0].error | test("after [0-9]+ of 100000000 iterations")'
	jqt "$tp: error names the peer's death" '.results[0].error | test("peer")'
	check "$tp: stderr names the case" grep -q "rr $tp req=1 resp=1" "$err"
	no_leftovers "$tp after a killed peer"
}

for tp in pipe fifo unix tcp udp unix-dgram unix-seqpacket; do
	kill_peer $tp
done

# A peer killed at a random moment: the client's stop must not be lost
# when the signal lands just before it blocks in a receive (unix-dgram has
# no timeout to fall back on).  8 tries, each must end within 5 s.
hung=0
for i in $(seq 8); do
	"$IPCPERF" rr --pin none -t unix-dgram -n 100000000 -w 0 -r 1 -f json >/dev/null 2>&1 &
	pid=$!
	child=
	for k in $(seq 50); do
		child=$(pgrep -P $pid -f "$TAG" | head -n 1)
		[ -n "$child" ] && break
		sleep 0.05
	done
	sleep "0.$((RANDOM % 3 + 1))"
	[ -n "$child" ] && kill -KILL "$child"
	for k in $(seq 50); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		hung=$((hung + 1))
		kill -KILL $pid
	fi
	wait $pid 2>/dev/null
done
ok $hung "unix-dgram peer killed 8 times at random: ipcperf always ends ($hung hung)"
no_leftovers "unix-dgram peers killed at random"

# interrupt SIGNAL TRANSPORT PLACEMENT
interrupt() {
	local sig=$1 tp=$2 pl=$3 pid i
	"$IPCPERF" rr --pin none -t "$tp" -d 60 -r 3 --placement "$pl" -f json >"$out" 2>"$err" &
	pid=$!
	sleep 1.5
	kill -$sig $pid
	ends_within $pid 10 "$sig $tp $pl: ends within 10 s"
	is_rc 1 "$sig $tp $pl: exit 1"
	jqt "$sig $tp $pl: report still valid JSON with the measured part" \
		'.results[0].status == "partial" and .results[0].summary.iterations > 0'
	jqt "$sig $tp $pl: error says interrupted" '.results[0].error | test("interrupted")'
	no_leftovers "$sig $tp $pl"
}

interrupt INT fifo process
interrupt INT unix thread
interrupt TERM udp process
interrupt INT tcp process

# A whole plan interrupted: later cases are listed as not run.
"$IPCPERF" rr --pin none -t pipe,fifo,unix -d 60 -r 1 -f json >"$out" 2>"$err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
is_rc 1 "interrupted plan: exit 1"
jqt "interrupted plan: later cases listed as not run" \
	'[.skipped[] | select(.why | test("interrupted"))] | length == 2'
no_leftovers "interrupted plan"

done_testing

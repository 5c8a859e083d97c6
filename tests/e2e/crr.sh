# SPDX-License-Identifier: MIT
# crr end to end: one connection per transaction on every connection
# transport and engine, exact counts, the stall knob, and refusals.
. "$(dirname "$0")/lib.bash"

engs=$("$IPCPERF" list | awk '/^engines:/{e=1;next} /^[a-z]/{e=0} e && $2=="ok"{print $1}' | paste -sd, -)

run crr -t tcp,tcp6,unix,unix-seqpacket -e "$engs" --req 10 --resp 300 -n 200 -w 5 -r 2 -f json
is_rc 0 "crr on every connection transport and engine"
jqt "crr: every result ok" 'all(.results[]; .status == "ok")'
jqt "crr: exactly 200 transactions per run" 'all(.results[].runs[]; .iterations == 200)'
jqt "crr: sizes recorded" 'all(.results[]; .req_size == 10 and .resp_size == 300)'
jqt "crr: bytes = transactions x (req + resp)" 'all(.results[].runs[]; .bytes == 200 * 310)'
jqt "crr: tcp, tcp6 and unix all ran" '[.results[].transport] | unique | contains(["tcp", "tcp6", "unix"])'
no_leftovers "crr"

run crr -t tcp,unix -n 100 -r 1 --placement thread -f json
is_rc 0 "crr with the server as a thread"
jqt "crr thread: 100 each" 'all(.results[]; .status == "ok" and .summary.iterations == 100)'

run crr -t unix -n 40 -w 0 -r 1 --peer-stall 10:20ms -f json
is_rc 0 "crr with a stalling server"
jqt "crr stall: 4 transactions of 40 took >= 20 ms (p90 >= 20 ms)" \
	'.results[0].summary.latency_ns.p90 >= 20000000 or .results[0].summary.latency_ns.max >= 20000000'

run crr -t tcp -n 100 -r 1
is_rc 0 "crr table"
check "crr table heading" grep -q "connect, request, response, close" "$out"
run crr -t udp
is_rc 2 "crr over udp is refused"
no_leftovers "crr variants"

done_testing

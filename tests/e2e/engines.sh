# SPDX-License-Identifier: MIT
# Every engine on every transport through the command line: rr, stream and
# bulk with every payload checked and exact counts, and the plan-time
# refusal of pairings that cannot work.
. "$(dirname "$0")/lib.bash"

# Every engine this machine can run (from `ipcperf list`).
engines_ok() {
	"$IPCPERF" list | awk '/^engines:/{e=1;next} /^[a-z]/{e=0} e && $2=="ok"{print $1}'
}

tps=$(transports_ok | paste -sd, -)
ntp=$(transports_ok | wc -l)
engs=$(engines_ok | paste -sd, -)
neng=$(engines_ok | wc -l)
diag "engines here: $engs"
check "list shows epoll" sh -c "'$IPCPERF' list | grep -q '^  epoll '"
check "list shows busy" sh -c "'$IPCPERF' list | grep -q '^  busy '"
check "list shows io_uring (ok or why not)" sh -c "'$IPCPERF' list | grep -q '^  io_uring '"

run rr -t all -e "$engs" --req 1,1000 --resp 700 -n 150 -w 10 -r 1 -f json
is_rc 0 "rr: every engine on every transport"
# Pairs that cannot work (shm has no descriptor to wait on; io_uring does
# its own reads and writes) are skipped with a reason, never dropped.
jqt "rr: one result per engine, transport and size, or a reason" \
	"(.results | length) == 2 * ($((ntp * neng)) - ([.skipped[] | select(.what | test(\" on \"))] | length))"
jqt "rr: the blocking engine drives every transport" \
	"[.results[] | select(.engine == \"blocking\")] | length == $((ntp * 2))"
jqt "rr: every result ok" 'all(.results[]; .status == "ok")'
jqt "rr: exactly 150 round trips each" 'all(.results[]; .summary.iterations == 150)'
jqt "rr: payloads were checked" '.config.verify == true'
for e in $(engines_ok); do
	jqt "rr: engine $e ran on every transport it can drive" \
		"([.results[] | select(.engine == \"$e\")] | length) == 2 * ($ntp - ([.skipped[] | select(.what | startswith(\"$e on \"))] | length))"
done
no_leftovers "rr on every engine"

run stream -t all -e "$engs" --size 3000 --count 40 -n 3 -w 1 -r 1 -f json
is_rc 0 "stream: every engine on every transport"
jqt "stream: every result ok" 'all(.results[]; .status == "ok")'
jqt "stream: 120 messages per run on reliable transports" \
	'all(.results[] | select(.transport | test("^udp") | not); .summary.messages == 120)'

run bulk -t all -e "$engs" --total 100000 --size 7000 -n 2 -w 1 -r 1 -f json
is_rc 0 "bulk: every engine on every transport"
jqt "bulk: every result ok" 'all(.results[]; .status == "ok")'
jqt "bulk: bytes = 2 x 100000" 'all(.results[]; .summary.bytes == 200000)'
no_leftovers "stream and bulk on every engine"

run rr -t pipe,udp -e "$engs" -n 100 -w 5 -r 1 --placement thread -f json
is_rc 0 "every engine with the peer as a thread"
jqt "thread placement: every result ok" 'all(.results[]; .status == "ok")'

# The plan refuses what cannot work, with a reason.
run load -t tcp -e blocking -c 4
is_rc 2 "load with the blocking engine is refused"
check "the refusal says why" grep -q "engine blocking waits on one descriptor" "$err"
run crr -t pipe
is_rc 2 "crr over pipe is refused"
check "crr refusal names connections" grep -q "has no connections" "$err"
run rr -t pipe -e nosuch
is_rc 2 "unknown engine"
check "unknown engine lists the known ones" grep -q "epoll" "$err"
no_leftovers "engines"

done_testing

# SPDX-License-Identifier: MIT
# stream --zerocopy: each way moves every payload intact (the server checks
# each message, so a byte the kernel read before or after its time fails
# the run), MSG_ZEROCOPY's completions are counted and match the sends,
# the copying case runs beside the zero-copy one, and a transport or
# engine that cannot is refused in one line naming it.
. "$(dirname "$0")/lib.bash"

# 64k and sizes that are no multiple of a page or shorter than the header.
run stream -t tcp,tcp6 --size 5,64k,100000 --count 50 -n 4 -r 1 -Z -f json
is_rc 0 "MSG_ZEROCOPY over tcp and tcp6"
jqt "each case without and with zero-copy" \
	'[.results[] | .zerocopy // "off"] | (map(select(. == "off")) | length) == 6 and (map(select(. == "msg")) | length) == 6'
jqt "every run checked and ok" 'all(.results[]; .status == "ok")'
jqt "zero-copy sends counted: one a message at least" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_sends >= .messages and .messages == 200)'
jqt "every send's completion came back" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_completed == .zc_sends and .zc_sends > 0)'
jqt "copied ones are some of the completed" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_copied >= 0 and .zc_copied <= .zc_completed)'
jqt "the copying case has no zero-copy counts" \
	'all(.results[] | select(has("zerocopy") | not) | .runs[]; has("zc_sends") | not)'
jqt "the summary adds the runs up" \
	'all(.results[] | select(.zerocopy == "msg"); .summary.zc_sends == ([.runs[].zc_sends] | add))'
copied=$(jq '[.results[] | select(.zerocopy == "msg") | .runs[].zc_copied] | add' "$out")
sent=$(jq '[.results[] | select(.zerocopy == "msg") | .runs[].zc_sends] | add' "$out")
diag "loopback: $copied of $sent zero-copy sends copied by the kernel after all"

# Parallel streams, each its own zero-copy sender: the run's counts are
# their sums (a mean would halve them), every stream checked whole.
run stream -t tcp -P 2 --pin same --size 64k --count 50 -n 3 -r 1 -Z -f json
is_rc 0 "-P 2 with MSG_ZEROCOPY"
jqt "-P 2 -Z: each stream whole, the counts summed over both" \
	'[.results[] | select(.zerocopy == "msg")] | length == 1 and all(.[].runs[]; (.streams | length) == 2 and all(.streams[]; .messages == 150) and .messages == 300 and .zc_sends >= 300 and .zc_completed == .zc_sends)'
jqt "the client's sends have no peer counts" \
	'all(.results[] | .runs[]; has("zc_peer_sends") | not)'

run stream -t pipe,fifo --size 64k,100000 --count 50 -n 4 -r 1 -Z -f json
is_rc 0 "vmsplice over pipe and fifo"
jqt "vmsplice ran, every payload intact" \
	'[.results[] | select(.zerocopy == "vmsplice")] | length == 4 and all(.[]; .status == "ok" and .runs[0].zc_sends >= .runs[0].messages)'
jqt "vmsplice reports no completions" \
	'all(.results[] | select(.zerocopy == "vmsplice") | .runs[]; has("zc_completed") | not)'

run stream -t tcp,unix,socketpair,pipe --size 64k,3000 --count 50 -n 4 -r 1 \
	--zerocopy-via sendfile -f json
is_rc 0 "sendfile from a memfd over tcp, unix, socketpair and pipe"
jqt "sendfile ran, every payload intact" \
	'[.results[] | select(.zerocopy == "sendfile")] | length == 8 and all(.[]; .status == "ok" and .runs[0].messages == 200)'

run stream -t tcp --size 64k --count 20 -n 3 -r 1 -Z --placement thread -f json
is_rc 0 "zero-copy with the peer in a thread"
jqt "its completions too" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_completed == .zc_sends and .zc_sends > 0)'

run stream -t tcp --size 64k --count 20 -n 2 -r 1 -Z
is_rc 0 "the table"
ok "$(grep -q 'zc sends' "$out" && grep -Eq '^tcp .* msg ' "$out"; echo $?)" \
	"the table names the way and counts the sends"
ok "$(grep -Eq 'zerocopy=msg.*: sender CPU .* per message against .* copying \([+-][0-9]+%\); the kernel copied [0-9]+ of [0-9]+ completed sends' "$out"; echo $?)" \
	"a line under the table sets the sender's CPU beside the copying case's"

run stream -t pipe --zerocopy-via msg -n 1
is_rc 2 "MSG_ZEROCOPY over a pipe refused"
ok "$(head -n 1 "$err" | grep -q "cannot send over pipe"; echo $?)" \
	"... in a line naming the transport"
for t in shm mq udp pty; do
	run stream -t "$t" -Z -n 1
	is_rc 2 "-Z over $t refused"
	ok "$(head -n 1 "$err" | grep -q "over $t"; echo $?)" "... naming $t"
done
run stream -t tcp -e epoll -Z -n 1
is_rc 2 "-Z through engine epoll refused"
ok "$(head -n 1 "$err" | grep -q "engine epoll"; echo $?)" "... naming the engine"
run stream -t tcp --zerocopy-via 'fo"o' -n 1
is_rc 2 "an unknown way refused"
ok "$(head -n 1 "$err" | grep -q -- "--zerocopy-via: unknown way 'fo\"o'"; echo $?)" \
	"... naming it"
if "$IPCPERF" list | grep -Eq '^  io_uring +ok'; then
	run stream -t tcp,tcp6 -e io_uring --size 5,64k,100000 --count 50 -n 4 -r 1 -Z -f json
	is_rc 0 "io_uring SENDMSG_ZC over tcp and tcp6"
	jqt "-Z with -e io_uring takes uring, every payload intact" \
		'[.results[] | select(.zerocopy == "uring")] | length == 6 and all(.[]; .status == "ok")'
	jqt "its notifications counted, one a send" \
		'all(.results[] | select(.zerocopy == "uring") | .runs[]; .zc_completed == .zc_sends and .zc_sends >= .messages and .zc_copied <= .zc_completed)'
	run stream -t tcp --zerocopy-via uring -n 1
	is_rc 2 "uring through the blocking engine refused"
	ok "$(head -n 1 "$err" | grep -q "use -e io_uring"; echo $?)" "... saying which engine"
	run stream -t pipe -e io_uring -Z -n 1
	is_rc 2 "uring over a pipe refused"
else
	diag "io_uring engine not available here: its checks left out"
fi
run rr -t tcp -Z -n 1
is_rc 2 "-Z on rr refused"

no_leftovers "zerocopy"
done_testing

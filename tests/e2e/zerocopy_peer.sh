# SPDX-License-Identifier: MIT
# --zerocopy where the peer sends: stream -R, both ways at once with
# --bidir, and bulk.  The client checks every message it receives (so a
# byte the kernel read before or after its time fails the run), the
# peer's sends and completions come back as zc_peer_* beside the client's
# zc_*, each direction its own, and what cannot be measured is refused in
# one line.
. "$(dirname "$0")/lib.bash"

# Sizes that are no multiple of a page, and one shorter than the header.
run stream -t tcp,tcp6 -R --size 5,64k,100000 --count 50 -n 4 -r 1 -Z -f json
is_rc 0 "-R -Z: MSG_ZEROCOPY from the peer over tcp and tcp6"
jqt "each case without and with zero-copy, every one reverse" \
	'all(.results[]; .direction == "reverse") and ([.results[] | .zerocopy // "off"] | (map(select(. == "off")) | length) == 6 and (map(select(. == "msg")) | length) == 6)'
jqt "every run checked and ok" \
	'.config.verify == true and all(.results[]; .status == "ok")'
jqt "-R -Z: the peer's sends counted, one a message at least" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .messages == 200 and .zc_peer_sends >= .messages)'
jqt "-R -Z: every one of the peer's completions came back" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_peer_completed == .zc_peer_sends and .zc_peer_copied >= 0 and .zc_peer_copied <= .zc_peer_completed)'
jqt "-R -Z: the client sent nothing zero-copy" \
	'all(.results[] | .runs[]; has("zc_sends") | not)'
jqt "the copying case has no peer counts" \
	'all(.results[] | select(has("zerocopy") | not) | .runs[]; has("zc_peer_sends") | not)'
jqt "the summary adds the runs up" \
	'all(.results[] | select(.zerocopy == "msg"); .summary.zc_peer_sends == ([.runs[].zc_peer_sends] | add))'
copied=$(jq '[.results[] | select(.zerocopy == "msg") | .runs[].zc_peer_copied] | add' "$out")
sent=$(jq '[.results[] | select(.zerocopy == "msg") | .runs[].zc_peer_sends] | add' "$out")
diag "loopback: $copied of $sent of the peer's zero-copy sends copied by the kernel after all"

# Both ways: each direction's stream sends zero-copy, its counts its own.
run stream -t tcp --bidir --pin same --size 64k --count 50 -n 3 -r 1 -Z -f json
is_rc 0 "--bidir -Z"
jqt "--bidir -Z: two streams, one each way, each whole" \
	'[.results[] | select(.zerocopy == "msg")] | length == 1 and all(.[].runs[]; ([.streams[].direction] | sort) == ["reverse", "send"] and all(.streams[]; .messages == 150) and .messages == 300)'
jqt "--bidir -Z: the client's sends and the peer's counted apart" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_sends >= 150 and .zc_completed == .zc_sends and .zc_peer_sends >= 150 and .zc_peer_completed == .zc_peer_sends)'

run stream -t pipe,fifo -R --size 64k,100000 --count 50 -n 4 -r 1 -Z -f json
is_rc 0 "-R -Z: vmsplice from the peer over pipe and fifo"
jqt "vmsplice ran at the peer, every payload intact, no completions" \
	'[.results[] | select(.zerocopy == "vmsplice")] | length == 4 and all(.[]; .status == "ok" and .runs[0].zc_peer_sends >= .runs[0].messages and (.runs[0] | has("zc_peer_completed") | not))'

run stream -t tcp,unix,socketpair,pipe -R --size 64k,3000 --count 50 -n 4 -r 1 \
	--zerocopy-via sendfile -f json
is_rc 0 "-R: sendfile from the peer's memfd over tcp, unix, socketpair and pipe"
jqt "sendfile ran at the peer, every payload intact" \
	'[.results[] | select(.zerocopy == "sendfile")] | length == 8 and all(.[]; .status == "ok" and .runs[0].messages == 200 and .runs[0].zc_peer_sends >= 200)'

run stream -t tcp -R --size 64k --count 20 -n 3 -r 1 -Z --placement thread -f json
is_rc 0 "-R -Z with the peer in a thread"
jqt "its completions too" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_peer_completed == .zc_peer_sends and .zc_peer_sends >= 60)'

run stream -t tcp -R --size 64k --count 20 -n 2 -r 1 -Z
is_rc 0 "-R -Z: the table"
ok "$(grep -q 'peer zc sends' "$out" && grep -Eq '^tcp .* msg ' "$out"; echo $?)" \
	"the table names the way and counts the peer's sends"
# The note under the table is of the sender's side: the peer's CPU and
# the peer's completions, not the receiving client's (which has none).
ok "$(grep -Eq 'zerocopy=msg dir=reverse.*: sender \(the peer\) CPU .* per message against .* copying \([+-][0-9]+%\); the kernel copied [0-9]+ of [1-9][0-9]* completed sends' "$out"; echo $?)" \
	"-R -Z: the line under the table is of the peer's sends"

run bulk -t tcp --total 100000 --size 4k -n 2 -r 1 -Z
is_rc 0 "bulk -Z: the table"
ok "$(grep -Eq 'zerocopy=msg.*: sender \(the peer\) CPU .* per message against .* copying \([+-][0-9]+%\); the kernel copied [0-9]+ of [1-9][0-9]* completed sends' "$out"; echo $?)" \
	"bulk -Z: the line under the table is of the peer's sends"

run stream -t tcp --bidir --size 64k --count 20 -n 2 -r 1 -Z
is_rc 0 "--bidir -Z: the table"
ok "$(grep -Eq 'zerocopy=msg dir=bidir.*: both senders. CPU .* per message against .* copying \([+-][0-9]+%\); the kernel copied [0-9]+ of [1-9][0-9]* completed sends' "$out"; echo $?)" \
	"--bidir -Z: the line under the table is of both sides' sends"

# bulk: the peer is the sender; the last chunk of 100000 is a short one.
run bulk -t tcp,tcp6 --total 100000 --size 3,4k,64k -n 3 -r 1 -Z -f json
is_rc 0 "bulk -Z: MSG_ZEROCOPY over tcp and tcp6"
jqt "bulk -Z: each case with and without, every transfer checked" \
	'([.results[] | select(.zerocopy == "msg")] | length) == 6 and ([.results[] | select(has("zerocopy") | not)] | length) == 6 and all(.results[]; .status == "ok")'
jqt "bulk -Z: a send a chunk at least, each completion back" \
	'all(.results[] | select(.zerocopy == "msg") | .runs[]; .zc_peer_sends >= .messages and .messages > 0 and .zc_peer_completed == .zc_peer_sends and .zc_peer_copied <= .zc_peer_completed)'
jqt "bulk without -Z has no counts" \
	'all(.results[] | select(has("zerocopy") | not) | .runs[]; has("zc_peer_sends") | not)'
run bulk -t pipe,unix,socketpair -n 3 -r 1 -Z -f json
is_rc 0 "bulk -Z: vmsplice on a pipe, sendfile on unix and socketpair"
jqt "bulk -Z: the way that fits each, every transfer checked" \
	'([.results[] | select(.zerocopy) | "\(.transport)=\(.zerocopy)"] | sort) == ["pipe=vmsplice", "socketpair=sendfile", "unix=sendfile"] and all(.results[]; .status == "ok") and all(.results[] | select(.zerocopy) | .runs[]; .zc_peer_sends >= .messages)'
if "$IPCPERF" list | grep -Eq '^  io_uring +ok'; then
	run stream -t tcp -e io_uring --bidir --size 64k --count 50 -n 3 -r 1 -Z -f json
	is_rc 0 "--bidir -Z -e io_uring: SENDMSG_ZC both ways"
	jqt "uring ran both ways, its notifications counted" \
		'[.results[] | select(.zerocopy == "uring")] | length == 1 and all(.[] | .runs[]; .zc_completed == .zc_sends and .zc_sends >= 150 and .zc_peer_completed == .zc_peer_sends and .zc_peer_sends >= 150)'
	run bulk -t tcp -e io_uring -n 3 -r 1 -Z -f json
	is_rc 0 "bulk -Z -e io_uring"
	jqt "bulk: uring's notifications counted" \
		'all(.results[] | select(.zerocopy == "uring") | .runs[]; .zc_peer_completed == .zc_peer_sends and .zc_peer_sends > 0)'
else
	diag "io_uring engine not available here: its checks left out"
fi

# Refused: one line naming what cannot be.
run bulk -t shm -Z -n 1
is_rc 2 "bulk -Z over shm refused"
ok "$(head -n 1 "$err" | grep -q "cannot send over shm"; echo $?)" "... naming shm"
run stream -t pipe -R --zerocopy-via msg -n 1
is_rc 2 "-R: MSG_ZEROCOPY over a pipe refused"
ok "$(head -n 1 "$err" | grep -q "cannot send over pipe"; echo $?)" "... naming pipe"
run bulk -t tcp -e epoll -Z -n 1
is_rc 2 "bulk -Z through engine epoll refused"
ok "$(head -n 1 "$err" | grep -q "engine epoll"; echo $?)" "... naming the engine"
run bulk -t tcp --zerocopy-via 'b"ad' -n 1
is_rc 2 "bulk: an unknown way refused"
ok "$(head -n 1 "$err" | grep -q -- "--zerocopy-via: unknown way 'b\"ad'"; echo $?)" \
	"... naming it"
for o in -R --bidir; do
	run stream -t tcp "$o" -Z --remote 127.0.0.1:9 -n 1
	is_rc 2 "$o -Z with --remote refused"
	ok "$(head -n 1 "$err" | grep -q -- "--remote 127.0.0.1:9: the remote server's sends ($o) are not measured yet"; echo $?)" \
		"... in one line saying why"
done
run bulk -t tcp -Z --remote 127.0.0.1:9 -n 1
is_rc 2 "bulk -Z with --remote refused"
ok "$(head -n 1 "$err" | grep -q "server's sends (bulk)"; echo $?)" "... saying so"

no_leftovers "zerocopy_peer"
done_testing

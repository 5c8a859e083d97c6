# SPDX-License-Identifier: MIT
# The client side of remote mode (--remote) against an ipcperf server on
# this host: every pattern measures with payloads checked and the server's
# side reported; local transports and bad addresses are refused; a wrong
# key or protocol version ends with one line naming it; the server killed
# mid-run leaves a partial result and exit 1, promptly, over tcp and udp.
# Across two network namespaces: remote_netns.sh.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/remote.bash"

start_server --max-clients 4 --control-timeout 3s
[ -n "$addr" ]; ok $? "a server listens ($addr)"

# Every pattern, short runs, payloads checked (the default).
for p in rr stream bulk crr load; do
	case $p in
	rr | crr) args=(-n 200 -w 10) ;;
	stream) args=(--size 1k -n 3 -w 1) ;;
	bulk) args=(--total 256k -n 3 -w 1) ;;
	load) args=(-c 4 -n 400 -w 10) ;;
	esac
	run $p --remote "$addr" -t tcp -r 2 -q -f json "${args[@]}"
	is_rc 0 "$p over tcp: exit 0"
	jqt "$p: measured, the peer named remote at the server" \
		".results | length == 1 and all(.[]; .status == \"ok\" and (.runs | length) == 2 and .peer.kind == \"remote\" and .peer.target == \"$addr\")"
	jqt "$p: the server's host and its side's CPU time came back" \
		'all(.results[]; (.peer.host.hostname | type) == "string" and .peer.host.cpus > 0 and (.summary.cpu.server.user_ns + .summary.cpu.server.sys_ns) > 0)'
done

for tp in udp; do
	run rr --remote "$addr" -t $tp -n 200 -r 2 -q -f json
	is_rc 0 "rr over $tp: exit 0"
	jqt "rr over $tp: every round trip counted" \
		'.results[0] | .status == "ok" and all(.runs[]; .iterations + .loss.lost == 200)'
	run stream --remote "$addr" -t $tp --size 1k -n 3 -r 2 -q -f json
	is_rc 0 "stream over $tp: exit 0"
	jqt "stream over $tp: what the server received is counted" \
		'.results[0] | .status == "ok" and .summary.loss.sent > 0 and .summary.loss.received > 0'
done

# The direction: with -R the server sends and the client checks what it
# receives (payloads are checked by default); --bidir is a test each way.
run stream --remote "$addr" -t tcp -R --size 4k -n 3 -r 2 -q -f json
is_rc 0 "stream -R over tcp: exit 0"
jqt "stream -R: measured as reverse, every batch received" \
	'.results[0] | .status == "ok" and .direction == "reverse" and .config.verify and all(.runs[]; .messages == 3000 and .bytes == 3000 * 4096)'
run stream --remote "$addr" -t tcp --bidir --size 4k -n 3 -r 2 -q -f json
is_rc 0 "stream --bidir over tcp: exit 0"
jqt "stream --bidir: a stream each way in every run, both whole" \
	'.results[0] | .status == "ok" and all(.runs[]; ([.streams[].direction] | sort) == ["reverse", "send"] and all(.streams[]; .messages == 3000))'
run stream --remote "$addr" -t tcp -R --size 4k -n 3 -r 1
check "stream -R: the table's heading says the peer sent" grep -q "peer remote at $addr, the peer sending (-R)" "$out"
jql "stream -R: the server's log says it sent" \
	'.event == "test" and .pattern == "stream" and .reverse == true' '.status == "ok"'
jql "a forward test: no reverse in the server's log" \
	'.event == "test" and .pattern == "rr"' 'has("reverse") | not'
# The table log says the same in words.
"$IPCPERF" server --listen 127.0.0.1:0 --once >"$T/tlog" 2>/dev/null &
tpid=$!
taddr=$(listening_addr "$T/tlog")
run stream --remote "$taddr" -t tcp -R -b 50M --size 4k -n 3 -r 1 -q
is_rc 0 "stream -R -b against a server with a table log: exit 0"
ends_within $tpid 5 "the --once server ends after its test"
check "the table log: the server sent, paced" grep -q "^test 1 from .*: stream tcp .*, the server sending (-R), paced at 50000000 bit/s" "$T/tlog"
# A paced udp stream: the server keeps the jitter of the send times its
# datagrams carry, and sends it back with its counts.
run stream --remote "$addr" -t udp -b 20M --size 1k --count 100 -n 4 -r 2 -i 0.05 -q -f json
is_rc 0 "stream -b over udp: exit 0"
jqt "stream -b over udp: paced, jitter per run from the server, nothing lost" \
	'.results[0] | .status == "ok" and .bitrate_bps == 20000000 and all(.runs[]; .jitter_ns >= 0 and .loss.lost == 0)'
jql "stream -b: the server's log has the pace" \
	'.event == "test" and .transport == "udp" and has("bitrate_bps")' '.bitrate_bps == 20000000'
# Zero-copy sends are the client's: the server reads the stream as ever.
run stream --remote "$addr" -t tcp -Z --zerocopy-via sendfile --size 64k --count 50 -n 3 -r 1 -q -f json
is_rc 0 "stream -Z over tcp: exit 0"
jqt "stream -Z: sent by sendfile, every batch whole at the server" \
	'[.results[] | select(.zerocopy == "sendfile")] | length == 1 and all(.[]; .status == "ok" and all(.runs[]; .messages == 150))'
jqt "stream -Z: the remote server's counts are not claimed" \
	'all(.results[] | .runs[]; has("zc_peer_sends") | not)'
run stream --remote "$addr" -t udp -R --size 1k --count 100 -n 3 -r 2 -q -f json
is_rc 0 "stream -R over udp: exit 0"
jqt "stream -R over udp: the server sent, the client counted every datagram" \
	'.results[0] | .status == "ok" and .direction == "reverse" and all(.runs[]; .loss.sent == 300 and .loss.received + .loss.lost == 300)'

# Framed: gdb-rsp with and without its '+' acks (the server must drop
# them too: it used to answer '+' a client without acks did not expect).
for ack in "" --no-ack; do
	run rr --remote "$addr" --framing gdb-rsp $ack -n 200 -r 2 -q -f json
	is_rc 0 "rr --framing gdb-rsp ${ack:-(acks)}: exit 0"
	jqt "gdb-rsp ${ack:-(acks)}: every round trip checked" \
		'.results[0] | .status == "ok" and all(.runs[]; .iterations == 200)'
done

# An emulated link in front of the network: the relay on the client's
# host, the cookie through it; every round trip crosses the 2 ms delay
# twice (a lower bound the link guarantees, not a speed).
for tp in tcp udp; do
	run rr --remote "$addr" -t $tp --link delay=2ms -n 50 -w 5 -r 2 -q -f json
	is_rc 0 "rr over $tp through --link delay=2ms: exit 0"
	jqt "... every round trip answered, the link recorded" \
		'.results[0] | .status == "ok" and .link == "delay=2ms" and all(.runs[]; .iterations == 50)'
	jqt "... none faster than the link's 4 ms" \
		'.results[0].summary.latency_ns.min >= 4000000'
done

rf=traces/breakpoint.log
if [ -r "$rf" ]; then
	run replay --remote "$addr" -r 2 -q -f json "$rf"
	is_rc 0 "replay of $rf: exit 0"
	jqt "replay: every exchange of the trace went across" \
		'.results[0] | .status == "ok" and .peer.kind == "remote"'
fi

# Two clients at once: a test held open by one, ipcperf measures beside
# it; both are served, and ipcperf's result says it was not alone.
hold_test -- "$addr" tcp "$T/hold"
ok $? "a first client holds a test"
run rr --remote "$addr" -n 200 -r 2 -q -f json
is_rc 0 "a second client measures meanwhile: exit 0"
jqt "the second client's result is flagged shared" \
	'.results[0] | .status == "ok" and .peer.other_tests >= 1 and any(.flags[]; .flag == "shared")'
kill -KILL $cpid 2>/dev/null
wait $cpid 2>/dev/null
# Its test ends on the server once the server sees the client gone: the
# log line first, the server's count of running tests a moment later (its
# parent reaps the test process), so a measure that still finds it shared
# is made again, up to 5 times a second apart.
for _ in $(seq 100); do
	grep -q '"status":"aborted"' "$T/log" && break
	sleep 0.1
done
for _ in 1 2 3 4 5; do
	run rr --remote "$addr" -n 200 -r 2 -q -f json
	jq -e '.results[0].peer.other_tests == 0' "$out" >/dev/null 2>&1 && break
	sleep 1
done
jqt "alone again: not flagged shared" \
	'.results[0] | .status == "ok" and .peer.other_tests == 0 and ([.flags[] | select(.flag == "shared")] | length) == 0'

# The table names where the peer was.
run rr --remote "$addr" -n 100 -r 1 -q
check "the table's heading names the server" grep -q "peer remote at $addr" "$out"

# Local-only transports: skipped with the reason, nothing measured.
run rr --remote "$addr" -t pipe -n 100 -r 1 -q -f json
jqt "pipe: skipped, the reason names the remote transports" \
	'.results == [] and (.skipped[0].why | test("tcp, tcp6, udp or udp6"))'
run rr --remote "" -n 10
is_rc 2 "--remote '': exit 2"
run rr --remote "[::1" -n 10
is_rc 2 "--remote '[::1': exit 2"
check "--remote '[::1': named" grep -q "\[::1" "$err"
# inet_aton's old forms (loopback spellings only): refused, named.
for a in 0177.1 127.1 2130706433; do
	run rr --remote "$a" -n 10
	is_rc 2 "--remote $a: exit 2"
	check "--remote $a: named, as not an IPv4 address" \
		grep -q "'$a:5301' is not an IPv4 address" "$err"
done
# The server's side, load on an engine without flow sets: refused there
# with the check's reason, as the command line refuses it here.
run load --remote "$addr" -e epoll --server-engine blocking -c 2 -d 200ms -r 1 -q
is_rc 1 "load --server-engine blocking: exit 1"
check "load --server-engine blocking: the server's reason" \
	grep -q "refused.*engine blocking waits on one descriptor" "$err"
run rr --server-engine epoll -n 10
is_rc 2 "--server-engine without --remote: exit 2"
run rr --remote "$addr" --server-engine bogus -n 10
is_rc 2 "--server-engine bogus: exit 2"

# Nobody listening: the run fails with the reason, promptly.
port=${addr##*:}
dead=127.0.0.1:$((port == 65535 ? 1 : port + 1))
run rr --remote "$dead" -n 10 -r 1 -q
is_rc 1 "no server at $dead: exit 1"
check "no server: the reason says connect" grep -q "cannot connect" "$err"

# A wrong key, no key: refused with one line that says so.
key=$T/key
head -c 32 /dev/urandom >"$key"
chmod 600 "$key"
head -c 32 /dev/urandom >"$T/other"
chmod 600 "$T/other"
kill -TERM $spid
ends_within $spid 5 "the first server ends"
start_server --key "$key" --control-timeout 3s
run rr --remote "$addr" --key "$T/other" -n 10 -r 1 -q
is_rc 1 "a wrong key: exit 1"
n=$(grep -c '^ipcperf:' "$err")
[ "$n" = 1 ]; ok $? "a wrong key: one line ($n)"
check "a wrong key: it says authentication" grep -qi "auth" "$err"
run rr --remote "$addr" -n 10 -r 1 -q
is_rc 1 "no key for a keyed server: exit 1"
check "no key: it says a key is needed" grep -qi "key" "$err"
jql "no key: the server's log has it refused, for authentication" \
	'.event == "refused" and (.reason | test("no key"))' '.code == "auth"'
run rr --remote "$addr" --key "$key" -n 100 -r 1 -q -f json
is_rc 0 "the right key: exit 0"
kill -TERM $spid
ends_within $spid 5 "the keyed server ends"

# A server from the future: the client names both versions.
python3 - "$T/fut" <<'EOF' &
import json, socket, struct, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
c, _ = s.accept()
c.settimeout(5)
n = struct.unpack(">I", c.recv(4))[0]
c.recv(n)
body = json.dumps({"type": "welcome", "proto": 3, "software": "future",
                   "auth": False}).encode()
c.sendall(struct.pack(">I", len(body)) + body)
c.close()
EOF
fpid=$!
for _ in $(seq 50); do [ -s "$T/fut" ] && break; sleep 0.1; done
run rr --remote "127.0.0.1:$(cat "$T/fut")" -n 10 -r 1 -q
is_rc 1 "a server of protocol version 3: exit 1"
check "version 3: both versions named" grep -q "version 3, this client version 2" "$err"
wait $fpid 2>/dev/null

# A client of the version before: the server refuses its hello, naming
# both, since a udp stream's counts would be read as data.
start_server --control-timeout 3s
python3 - "${addr##*:}" >"$T/old" 2>&1 <<'EOF'
import json, socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
body = json.dumps({"type": "hello", "proto": 1, "software": "old"}).encode()
s.sendall(struct.pack(">I", len(body)) + body)
n = struct.unpack(">I", s.recv(4))[0]
m = b""
while len(m) < n:
    m += s.recv(n - len(m))
print(json.loads(m))
EOF
check "a version 1 hello: refused as version, both named" \
	grep -q "'code': 'version'.*protocol version 1 is not supported: this server speaks version 2" "$T/old"
kill -TERM $spid
ends_within $spid 5 "that server ends"

# The server killed mid-run: what was measured stays (partial), exit 1,
# well within the control timeout; over tcp (end of stream) and udp (no
# end of stream: the control connection's end stops the client).
for tp in tcp udp; do
	start_server --control-timeout 3s
	"$IPCPERF" rr --remote "$addr" -t $tp -d 20s -w 10 -r 1 -q -f json \
		-o "$T/k.json" 2>"$T/k.err" &
	cpid=$!
	# The run is on once the server has a test process.
	for _ in $(seq 50); do
		pgrep -P $spid >/dev/null && break
		sleep 0.1
	done
	sleep 1
	pkill -KILL -P $spid
	kill -KILL $spid
	wait $spid 2>/dev/null
	ends_within $cpid 10 "$tp: the client ends after the server is killed"
	is_rc 1 "$tp: server killed: exit 1"
	jqt "$tp: the result is partial and says the server went" \
		'.results[0] | .status == "partial" and .summary.iterations > 0 and (.error | test("server"))' "$T/k.json"
	diag "$tp: $(jq -r '.results[0].error' "$T/k.json" 2>/dev/null)"
done

no_leftovers "remote"
done_testing

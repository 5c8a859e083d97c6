# SPDX-License-Identifier: MIT
# Two hosts on this machine: two network namespaces joined by a veth pair,
# the server in one and the client in the other, over IPv4 and IPv6, for
# every remote transport, and every pattern over tcp; then the link cut
# mid-test.  Needs root (skipped
# with the reason otherwise).  Names start with rm- and carry the PID, and
# everything is removed on exit.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/remote.bash"
[ "$(id -u)" = 0 ] || { echo "1..0 # skip network namespaces need root"; exit 77; }
command -v ip >/dev/null || { echo "1..0 # skip no ip(8) (iproute2)"; exit 77; }

NA=rm-a$$ NB=rm-b$$ VA=rm-va$$ VB=rm-vb$$
cleanup() {
	pkill -KILL -f "$TAG" 2>/dev/null
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$NA" 2>"$err" || ! ip netns add "$NB" 2>>"$err"; then
	echo "1..0 # skip cannot make network namespaces: $(head -c 200 "$err")"
	exit 77
fi
ip link add "$VA" netns "$NA" type veth peer name "$VB" netns "$NB"
ok $? "a veth pair between $NA and $NB"
ip -n "$NA" addr add 10.77.0.1/24 dev "$VA"
ip -n "$NB" addr add 10.77.0.2/24 dev "$VB"
# nodad: the addresses work at once instead of after duplicate detection.
ip -n "$NA" addr add fd77::1/64 dev "$VA" nodad
ip -n "$NB" addr add fd77::2/64 dev "$VB" nodad
for ns in "$NA" "$NB"; do
	ip -n "$ns" link set lo up
done
ip -n "$NA" link set "$VA" up
ip -n "$NB" link set "$VB" up

log=$T/log
ip netns exec "$NA" "$IPCPERF" server --listen :0 -f json \
	--control-timeout 2s >"$log" 2>"$err" &
spid=$!
port=$(listening_addr "$log" | sed -n 's/.*:\([0-9]*\)$/\1/p')
[ -n "$port" ]; ok $? "the server listens in $NA (port $port, IPv4 and IPv6)"

# Control over IPv4 for tcp and udp, over IPv6 for tcp6 and udp6.
for tp in tcp udp tcp6 udp6; do
	case $tp in *6) ctl="[fd77::1]" ;; *) ctl=10.77.0.1 ;; esac
	r=$(ip netns exec "$NB" "$HELPER" --client "$ctl:$port" $tp 2>&1)
	[ "$r" = ok ]; ok $? "from $NB to $ctl: a test over $tp ($r)"
done
# A data family the control address cannot give: told, not hung.
r=$(ip netns exec "$NB" "$HELPER" --client "10.77.0.1:$port" tcp6 2>&1)
case $r in *"cannot resolve"*) ok 0 "tcp6 data to an IPv4 literal: refused with a reason" ;;
*) ok 1 "tcp6 data to an IPv4 literal: refused with a reason ($r)" ;; esac
n=$(jq -s '[.[] | select(.event == "test" and .status == "ok")] | length' "$log")
[ "$n" = 4 ]; ok $? "the server logged 4 tests ok ($n)"
clients=$(jq -rs '[.[] | select(.event == "test") | .client] | map(sub(":[0-9]+$"; "")) | unique | join(" ")' "$log")
[ "$clients" = "10.77.0.2 [fd77::2]" ]
ok $? "the clients came from the other namespace ($clients)"

# ipcperf itself across the namespaces: rr and stream with --remote over
# every remote transport, payloads checked, every round trip counted, the
# server's host and CPU time reported.
for tp in tcp udp tcp6 udp6; do
	case $tp in *6) ctl="[fd77::1]" ;; *) ctl=10.77.0.1 ;; esac
	ip netns exec "$NB" "$IPCPERF" rr --remote "$ctl:$port" -t $tp \
		-n 300 -w 10 -r 2 -q -f json >"$T/rr.json" 2>"$err"
	ok $? "rr --remote $ctl over $tp: exit 0"
	jqt "rr over $tp: every round trip counted, the server's side reported" \
		'.results[0] | .status == "ok" and all(.runs[]; .iterations + (.loss.lost // 0) == 300) and .peer.host.cpus > 0 and .summary.cpu.server.user_ns + .summary.cpu.server.sys_ns > 0' \
		"$T/rr.json"
	ip netns exec "$NB" "$IPCPERF" stream --remote "$ctl:$port" -t $tp \
		--size 1k -n 3 -w 1 -r 2 -q -f json >"$T/st.json" 2>"$err"
	ok $? "stream --remote $ctl over $tp: exit 0"
	jqt "stream over $tp: measured" \
		'.results[0] | .status == "ok" and .summary.bytes_per_s > 0' \
		"$T/st.json"
done

# The other patterns across the namespaces over tcp: every pattern measures
# the other host, not only rr and stream.
for p in bulk crr load replay; do
	case $p in
	bulk) args=(--total 256k -n 3 -w 1) ;;
	crr) args=(-n 100 -w 5) ;;
	load) args=(-c 4 -n 400 -w 10) ;;
	replay) args=(traces/breakpoint.log) ;;
	esac
	ip netns exec "$NB" "$IPCPERF" $p --remote "10.77.0.1:$port" -t tcp \
		-r 2 -q -f json "${args[@]}" >"$T/p.json" 2>"$err"
	ok $? "$p --remote across the namespaces: exit 0"
	jqt "$p across the namespaces: measured against the server there" \
		'.results | length == 1 and all(.[]; .status == "ok" and .peer.kind == "remote" and (.runs | length) == 2)' \
		"$T/p.json"
done

# The link cut mid-test: the server's side notices within its deadlines
# (keep-alive and TCP_USER_TIMEOUT on the control connection, 2 s here).
hold_test ip netns exec "$NB" -- "10.77.0.1:$port" tcp "$T/hold"
ok $? "a test is running across the link"
ip -n "$NB" link set "$VB" down
found=1
for _ in $(seq 150); do
	if jq -se '[.[] | select(.event == "test" and .status != "ok") | select(.error | test("unreachable"))] | length == 1' "$log" >/dev/null 2>&1; then
		found=0
		break
	fi
	sleep 0.1
done
ok $found "link down: the server ends the test within 15 s"
diag "$(jq -c 'select(.event == "test" and (.error // "" | test("unreachable"))) | {status, error, duration_ns}' "$log" 2>/dev/null)"
kill -KILL $cpid 2>/dev/null
wait $cpid 2>/dev/null || true
ip -n "$NB" link set "$VB" up
# The link cut under ipcperf itself, over udp where the data shows
# nothing: the client notices through its control connection's keep-alive
# and ends with what it measured.
for _ in $(seq 50); do
	ip netns exec "$NB" ping -c 1 -W 1 10.77.0.1 >/dev/null 2>&1 && break
	sleep 0.1
done
ip netns exec "$NB" "$IPCPERF" rr --remote "10.77.0.1:$port" -t udp -d 30s \
	-w 10 -r 1 -q -f json --control-timeout 2s -o "$T/cut.json" \
	2>"$T/cut.err" &
cpid=$!
sleep 1.5
ip -n "$NB" link set "$VB" down
ends_within $cpid 15 "link down under rr --remote: the client ends within 15 s"
is_rc 1 "link down under rr --remote: exit 1"
jqt "link down: partial, what was measured is kept" \
	'.results[0] | .status == "partial" and .summary.iterations > 0' \
	"$T/cut.json"
diag "$(jq -r '.results[0].error' "$T/cut.json" 2>/dev/null)"
ip -n "$NB" link set "$VB" up

kill -TERM $spid
ends_within $spid 10 "the server ends on SIGTERM"
is_rc 0 "exit 0"
no_leftovers "across namespaces"
done_testing

# SPDX-License-Identifier: MIT
# ipcperf server from the command line: bad options, stopping by itself
# (--idle-timeout, --max-duration, --once), Ctrl-C and SIGTERM with a test
# in flight, and the JSON log.  The hostile-client suite is in
# tests/unit/test_remote_server.c; across hosts in remote_netns.sh.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/remote.bash"

run server --bogus
is_rc 2 "unknown option: exit 2"
run server --listen 999.1.1.1:5301
is_rc 2 "bad address: exit 2"
check "bad address: named" grep -q "999.1.1.1" "$err"
run server --listen 127.0.0.1:99999
is_rc 2 "bad port: exit 2"
check "bad port: named" grep -q "99999" "$err"
run server -f csv
is_rc 2 "csv is not a server format: exit 2"
run server --max-clients 0
is_rc 2 "--max-clients 0: exit 2"
run server --control-timeout 0
is_rc 2 "--control-timeout 0: exit 2"
run rr --listen :1
is_rc 2 "--listen belongs to the server only"

key=$T/key
head -c 32 /dev/urandom >"$key"
chmod 644 "$key"
run server --key "$key"
is_rc 2 "a key others may read: exit 2"
check "the key's mode is explained" grep -q "chmod 600" "$err"
chmod 600 "$key"
printf short >"$T/short"
chmod 600 "$T/short"
run server --key "$T/short"
is_rc 2 "a 5-byte key: exit 2"
run server --key "$T/nonexistent"
is_rc 2 "a missing key file: exit 2"

start_server --listen "[::1]:0"
n=$(jq -s '[.[] | select(.event == "listening")] | length' "$T/log")
[ "$n" = 2 ]; ok $? "listening on both addresses ($n)"
grep -q '"address":"\[::1\]:' "$T/log"; ok $? "the IPv6 one is [::1]:PORT"
run server --listen "$addr"
is_rc 2 "an address in use: exit 2"
check "an address in use: said so" grep -qi "in use" "$err"
kill -INT $spid
ends_within $spid 5 "Ctrl-C with no test: ends within 5 s"
is_rc 0 "Ctrl-C: exit 0"
jql "Ctrl-C: a stopped line says why" \
	'.event == "stopped"' \
	'.reason == "interrupted"'

start_server --idle-timeout 1
ends_within $spid 5 "--idle-timeout 1: ends by itself"
is_rc 0 "--idle-timeout: exit 0"
jql "--idle-timeout: the reason" \
	'.event == "stopped"' \
	'.reason | test("idle")'

start_server --max-duration 1
ends_within $spid 5 "--max-duration 1: ends by itself"
is_rc 0 "--max-duration: exit 0"
jql "--max-duration: the reason" \
	'.event == "stopped"' \
	'.reason | test("max-duration")'

start_server --once
r=$("$HELPER" --client "$addr" tcp)
[ "$r" = ok ]; ok $? "--once: one exchange succeeds ($r)"
ends_within $spid 5 "--once: ends after its test"
is_rc 0 "--once: exit 0"
jql "--once: the test line" \
	'.event == "test"' \
	'.status == "ok" and .runs == 1 and .pattern == "rr" and .transport == "tcp" and .shared == false'
jql "--once: the reason" \
	'.event == "stopped"' \
	'.reason | test("once")'

# A test in flight when the server is told to stop: aborted, reported,
# exit 0, the client told.
for sig in INT TERM; do
	start_server --control-timeout 2s
	hold_test -- "$addr" tcp "$T/client"
	kill -$sig $spid
	ends_within $spid 10 "SIG$sig with a test in flight: ends within 10 s"
	is_rc 0 "SIG$sig with a test in flight: exit 0"
	jql "SIG$sig: the test is reported aborted" '.event == "test"' \
		'.status == "aborted" and (.error | test("stopping"))'
	ends_within $cpid 5 "SIG$sig: the client sees the end"
done

# Two tests at once: both served, each line flags the other as shared.
start_server --control-timeout 2s
hold_test -- "$addr" tcp "$T/c1"
c1=$cpid
r=$("$HELPER" --client "$addr" udp)
[ "$r" = ok ]; ok $? "a second client runs a test while the first holds one ($r)"
kill -KILL $c1
wait $c1 2>/dev/null || true
sleep 0.5
kill -TERM $spid
ends_within $spid 10 "two clients: the server ends"
jql "two clients: the second test saw the first (shared)" \
	'.event == "test" and .transport == "udp"' \
	'.status == "ok" and .shared == true and .others_max == 1'
jql "two clients: the killed one reported aborted" \
	'.event == "test" and .transport == "tcp"' \
	'.status == "aborted"'

# One test right after another from the same client: neither is shared.
start_server
for i in 1 2 3; do "$HELPER" --client "$addr" tcp >/dev/null; done
kill -TERM $spid
ends_within $spid 5 "back to back: the server ends"
jql "back to back: three tests, none flagged shared" '.event == "test"' \
	'.status == "ok" and .shared == false and .others_max == 0'

# --max-test: a run held past it is ended by the server, which goes on.
start_server --control-timeout 1s --max-test 1s
"$HELPER" --client "$addr" tcp --hold >"$T/c1" 2>&1 &
c1=$!
ends_within $c1 6 "--max-test 1s: the held test is ended by the server"
jql "--max-test: the test line says why" '.event == "test"' \
	'.status == "error" and (.error | test("max-test"))'
r=$("$HELPER" --client "$addr" tcp)
[ "$r" = ok ]; ok $? "--max-test: the server serves the next client ($r)"
kill -TERM $spid
ends_within $spid 5 "--max-test: the server ends on SIGTERM"

# Its log on a full disk: said at once, on stderr, with the reason; the
# server goes on; the lost lines counted at the end.
"$IPCPERF" server --listen 127.0.0.1:0 -f json >/dev/full 2>"$T/full.err" &
fpid=$!
for _ in $(seq 40); do
	grep -q "event log" "$T/full.err" && break
	sleep 0.05
done
grep -q "cannot write the event log to standard output: No space left on device" "$T/full.err"
ok $? "stdout full: the server says so at once, with ENOSPC"
kill -0 $fpid 2>/dev/null; ok $? "stdout full: the server goes on"
kill -TERM $fpid
ends_within $fpid 5 "stdout full: the server ends on SIGTERM"
grep -q "event lines* could not be written" "$T/full.err"
ok $? "stdout full: the lost lines counted at the end"

no_leftovers "server"
done_testing

# SPDX-License-Identifier: MIT
# The built-in HTTP target end to end, as other clients see it: curl (GET,
# HEAD, a reused connection, HTTP/1.0, a 2 MB upload behind 100 Continue,
# chunked), ab -k (every request kept alive, none failed), wrk, a
# malformed request; how --serve ends (Ctrl-C, --max-duration,
# --idle-timeout) and what it refuses; nothing left behind.
. "$(dirname "$0")/lib.bash"

srv_pid=
url=

# serve ARGS...: start `ipcperf http --serve 127.0.0.1:0 ARGS` and set
# url from the line it prints.
serve() {
	local i
	rm -f "$T/serve.out" # not to read the last server's address
	"$IPCPERF" http --serve 127.0.0.1:0 "$@" >"$T/serve.out" 2>"$T/serve.err" &
	srv_pid=$!
	url=
	for i in $(seq 50); do
		url=$(sed -n 's|^serving \(http://[^ ]*/\) .*|\1|p' "$T/serve.out" 2>/dev/null)
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	diag "the server printed: $(cat "$T/serve.out" "$T/serve.err")"
	return 1
}

# unserve: Ctrl-C, then the exit status in rc.
unserve() {
	kill -INT "$srv_pid"
	ends_within "$srv_pid" 5 "$1: Ctrl-C ends the server"
}

have() { command -v "$1" >/dev/null 2>&1; }

serve
ok $? "--serve 127.0.0.1:0 prints the address it serves"
diag "serving at $url"
port=${url##*:}
port=${port%/}

if have curl; then
	curl -s -o "$T/page" "${url}any/path?q=1"
	ok $? "curl GET any path"
	check "the page is 16294 bytes" test "$(wc -c <"$T/page")" = 16294
	check "... an HTML page" grep -q '^<!DOCTYPE html>' "$T/page"
	curl -sI "$url" >"$T/head"
	check "curl HEAD: 200 and Content-Length 16294" \
		grep -q 'Content-Length: 16294' "$T/head"
	n=$(curl -s -o /dev/null -o /dev/null -w '%{num_connects}\n' "$url" "$url" | paste -sd' ')
	check "curl reuses the connection for a second request (new connects: $n)" \
		test "$n" = "1 0"
	curl -s --http1.0 -H 'Connection: keep-alive' -D "$T/h10" -o "$T/p10" "$url"
	check "HTTP/1.0 with keep-alive: Connection: keep-alive answered" \
		grep -qi 'Connection: keep-alive' "$T/h10"
	check "... and the same page" cmp -s "$T/page" "$T/p10"
	head -c $((2 << 20)) /dev/zero >"$T/upload"
	curl -s -D "$T/hup" -o "$T/pup" --data-binary @"$T/upload" "$url"
	check "a 2 MB POST (curl sends Expect: 100-continue) gets 100 then 200" \
		grep -q '^HTTP/1.1 200' "$T/hup"
	check "... with the page" cmp -s "$T/page" "$T/pup"
else
	for i in $(seq 10); do ok 0 "# skip curl is not installed (apt-get install curl)"; done
fi

# A malformed request over bash's /dev/tcp: 400, then the server closes.
if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
	printf 'GARBAGE\r\n\r\n' >&3
	status=$(timeout 5 head -n 1 <&3 | tr -d '\r')
	check "a malformed request gets 400 Bad Request ($status)" \
		test "$status" = "HTTP/1.1 400 Bad Request"
	timeout 5 cat <&3 >/dev/null
	ok $? "... and the connection closes"
	exec 3<&-
fi

if have ab; then
	ab -k -c 10 -n 2000 "$url" >"$T/ab" 2>&1
	ok $? "ab -k -c 10 -n 2000 completes"
	check "ab: 2000 complete" grep -Eq '^Complete requests: +2000$' "$T/ab"
	check "ab: 0 failed" grep -Eq '^Failed requests: +0$' "$T/ab"
	check "ab: keep-alive on every request" grep -Eq '^Keep-Alive requests: +2000$' "$T/ab"
	check "ab: document length 16294" grep -Eq '^Document Length: +16294 bytes$' "$T/ab"
	check "ab: no non-2xx" sh -c "! grep -q Non-2xx '$T/ab'"
else
	for i in $(seq 5); do ok 0 "# skip ab is not installed (apt-get install apache2-utils)"; done
fi

if have wrk; then
	wrk -t 1 -c 10 -d 1 "$url" >"$T/wrk" 2>&1
	ok $? "wrk -t1 -c10 -d1 completes"
	check "wrk: requests answered" grep -Eq '^ +[0-9]+ requests in' "$T/wrk"
	check "wrk: no socket errors, no non-2xx" \
		sh -c "! grep -Eq 'Socket errors|Non-2xx' '$T/wrk'"
else
	for i in $(seq 3); do ok 0 "# skip wrk is not installed (apt-get install wrk)"; done
fi

unserve "default page"
is_rc 0 "... exit status 0"
check "... it says what it served" grep -Eq '^served [1-9][0-9]* requests .* stopped$' "$T/serve.out"
diag "$(tail -n 1 "$T/serve.out")"
no_leftovers "--serve, Ctrl-C"

if have curl; then
	serve --chunked --chunk 1000
	curl -s -D "$T/hc" -o "$T/pc" "$url"
	check "--chunked: Transfer-Encoding: chunked" grep -qi 'Transfer-Encoding: chunked' "$T/hc"
	check "--chunked --chunk 1000: curl decodes the same page" cmp -s "$T/page" "$T/pc"
	unserve "chunked"
	serve --chunk 0 --page 100k
	curl -s -o "$T/pbig" "$url"
	check "--page 100k --chunk 0: 102400 bytes" test "$(wc -c <"$T/pbig")" = 102400
	check "... the same first 16 KB as the default page but its end" \
		cmp -s -n 16000 "$T/page" "$T/pbig"
	unserve "100k page"
fi

# Out of descriptors: 12 allowed, 6 taken by the server itself, 8 idle
# connections held open.  The next client waits (no busy loop meanwhile)
# and is served once some of the idle ones go.
if have curl; then
	rm -f "$T/serve.out"
	(ulimit -n 12 && exec "$IPCPERF" http --serve 127.0.0.1:0) >"$T/serve.out" 2>"$T/serve.err" &
	srv_pid=$!
	for i in $(seq 50); do
		url=$(sed -n 's|^serving \(http://[^ ]*/\) .*|\1|p' "$T/serve.out" 2>/dev/null)
		[ -n "$url" ] && break
		sleep 0.1
	done
	port=${url##*:}
	port=${port%/}
	for fd in 3 4 5 6 7 8 9 10; do eval "exec $fd<>/dev/tcp/127.0.0.1/$port"; done
	cpu0=$(awk '{print $14 + $15}' "/proc/$srv_pid/stat")
	# curl must not inherit the idle connections: they would stay open
	# in it after the shell closes its copies, until the server's own
	# client timeout, and the test would wait on that instead.
	curl -s -o "$T/pfd" --max-time 20 "$url" 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&- 10<&- &
	curl_pid=$!
	sleep 1
	cpu1=$(awk '{print $14 + $15}' "/proc/$srv_pid/stat")
	check "out of descriptors: the server waits without spinning ($((cpu1 - cpu0)) ticks in 1 s)" \
		test $((cpu1 - cpu0)) -lt 30
	for fd in 3 4 5 6 7 8 9 10; do eval "exec $fd<&-"; done
	wait $curl_pid
	ok $? "... and serves the waiting client once connections close"
	check "... the whole page" cmp -s "$T/page" "$T/pfd"
	unserve "out of descriptors"
fi

"$IPCPERF" http --serve 127.0.0.1:0 --max-duration 500ms >"$out" 2>"$err" &
ends_within $! 5 "--max-duration 500ms ends the server by itself"
is_rc 0 "... exit status 0"
check "... and says why" grep -q 'max-duration reached' "$out"

"$IPCPERF" http --serve '[::1]:0' --idle-timeout 300ms >"$out" 2>"$err" &
ends_within $! 5 "--idle-timeout 300ms ends an idle server"
check "... serving IPv6 [::1] (or refusing it where there is none)" \
	sh -c "grep -q 'http://\[::1\]:' '$out' || grep -q 'cannot listen' '$err'"

run http --serve nonsense
is_rc 2 "--serve nonsense: bad input"
check "... one line naming it" grep -q "'nonsense' is not ADDR:PORT" "$err"
run http --serve 127.0.0.1:99999
is_rc 2 "--serve with port 99999: bad input"
run http --serve 127.0.0.1:0 http://127.0.0.1/
is_rc 2 "--serve and a URL: refused"
run http --serve 127.0.0.1:0 --chunk 1x
is_rc 2 "--chunk 1x: bad input"
check "... naming the option" grep -q -- '--chunk' "$err"
serve
port=${url##*:}
port=${port%/}
run http --serve "127.0.0.1:$port"
is_rc 1 "--serve on a port in use: fails (exit 1)"
check "... saying so" grep -q 'Address already in use' "$err"
kill -TERM "$srv_pid"
ends_within "$srv_pid" 5 "SIGTERM ends the server too"
is_rc 0 "... exit status 0"
no_leftovers "http --serve"

# -e: how the server waits.  poll and busy serve ab -k as epoll does; the
# engines it cannot wait as are refused by name.
for e in poll busy; do
	if have ab; then
		serve -e $e
		ab -k -c 4 -n 400 "$url" >"$T/ab" 2>&1
		check "--serve -e $e: ab -k -c 4 -n 400, 0 failed" \
			grep -Eq '^Failed requests: +0$' "$T/ab"
		check "... keep-alive on every request" \
			grep -Eq '^Keep-Alive requests: +400$' "$T/ab"
		unserve "-e $e"
	else
		for i in 1 2 3; do ok 0 "# skip ab is not installed (apt-get install apache2-utils)"; done
	fi
done
for e in io_uring blocking; do
	run http --serve 127.0.0.1:0 -e $e
	is_rc 2 "--serve -e $e: refused (exit 2)"
	check "... one line naming it" grep -q -- "-e $e: the built-in target" "$err"
	run http -e $e -n 20
	is_rc 2 "http -e $e on the built-in target: refused (exit 2)"
	check "... naming it" grep -q "not $e\|engine $e" "$err"
done
run http -e poll,busy,epoll --pin none -c 4 -n 400 -r 1 -f json
is_rc 0 "http -e poll,busy,epoll: the built-in target with each"
check "... three results, each ok with 400 requests and none failed" \
	jq -e '[.results[] | select(.status == "ok" and .summary.iterations == 400 and .runs[0].failed == 0)] | length == 3' "$out"
check "... the engines named in the results" \
	jq -e '[.results[].engine] == ["poll", "busy", "epoll"]' "$out"
no_leftovers "http -e"

# The built-in target serves any client; what another process sends it
# during a run is counted and flags the result (none: no flag).
check "a run alone: no stranger counted" \
	jq -e '[.results[] | select((.refused_connections // 0) == 0)] | length == 3' "$out"
"$IPCPERF" http -d 3s -r 1 --pin none -q -f json >"$T/strangers.json" 2>"$err" &
hpid=$!
port=""
for _ in $(seq 50); do
	port=$(ss -Hltnp 2>/dev/null | grep "pid=$hpid," | awk '{print $4}' | sed 's/.*://' | head -n 1)
	[ -n "$port" ] && break
	sleep 0.05
done
for i in 1 2 3; do
	if [ -n "$port" ] && exec 3<>"/dev/tcp/127.0.0.1/$port"; then
		printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' >&3
		head -c 12 <&3 >/dev/null
		exec 3>&-
	fi
done
wait $hpid
check "three strangers' connections during the run: counted, flagged" \
	jq -e '.results[0].refused_connections == 3 and ([.results[0].flags[].flag] | index("refused"))' "$T/strangers.json"
rm -f "$T/strangers.json"

# --serve --token: the load's own requests go to /TOKEN/..., the others
# are counted as strangers' when it stops.
if have curl; then
	serve --token run-7f3a
	check "--serve --token prints the address with the token" \
		test "${url%/run-7f3a/}" != "$url"
	base=${url%run-7f3a/}
	curl -s -o /dev/null "${url}page" "${url}"
	curl -s -o /dev/null "${base}page" "${base}run-7f3a" "${base}run-7f3ab/x"
	unserve "--token"
	check "... 2 requests with the token, 3 strangers' (a prefix alone is not it)" \
		grep -q "served 5 requests.* 3 without the token (strangers')" "$T/serve.out"
fi
run http --token abc -n 10
is_rc 2 "--token without --serve: refused"
run http --serve 127.0.0.1:0 --token 'a/b'
is_rc 2 "--token with a slash: refused"

done_testing

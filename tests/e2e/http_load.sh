# SPDX-License-Identifier: MIT
# ipcperf http end to end: the built-in target (process and thread), a
# URL's server as the external peer (IPv4 and IPv6, one that is not there),
# pipelining, a connection per request, failures counted by reason against
# the misbehaving server (tests/servers/http_bad.c, every 5th request
# faulty: exactly 20 of 100), the open loop against a stalling server
# (coordinated omission must show in p99), Ctrl-C, bad input; nothing left
# behind.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
BAD=$root/${BUILD:-build}/tests/servers/http_bad
PAGE=16294

run http -c 10 -n 2000 -r 2 -f json
is_rc 0 "http on the built-in target"
# (One case, or one per placement of the two sides: one CPU, two.)
jqt "built-in: ok, 2 runs of 2000 responses" \
	'.results | length >= 1 and all(.[]; .status == "ok" and (.runs | length) == 2 and all(.runs[]; .iterations == 2000))'
jqt "built-in: every request kept alive, none failed" \
	'.results[0].runs | length > 0 and all(.[]; .keepalive_requests == 2000 and .failed == 0 and .non_2xx == 0)'
jqt "built-in: the page's bytes, every one" \
	".results[0].runs | length > 0 and all(.[]; .body_bytes == 2000 * $PAGE and .bytes > .body_bytes)"
jqt "built-in: p50 <= p99 <= max, rates > 0" \
	'.results[0].summary | .latency_ns.p50 <= .latency_ns.p99 and .latency_ns.p99 <= .latency_ns.max and .msgs_per_s > 0 and .bytes_per_s > 0'
jqt "built-in: the case says what was asked" \
	'.results[0] | .pattern == "http" and .flows == 10 and .method == "GET" and .page_size == 16294 and .keepalive == "yes" and .pipeline == 1 and .write_size == 4096'
cp "$out" "$T/two.json"
no_leftovers "http, built-in target"

# ab's figures in the table: the mean time per request, the complete
# requests and the body bytes transferred, as the document holds them.
run report "$T/two.json"
is_rc 0 "report renders the http result"
n=$(jq '.results[0].summary.iterations' "$T/two.json")
mib=$(awk -v n="$n" -v p=$PAGE 'BEGIN {printf "%.1f", n * p / 1048576}')
check "http's table has ab's mean, requests and body columns" \
	grep -Eq '^transport .* requests/s +mean +requests +body +transfer ' "$out"
check "... a mean in time, the $n complete requests, $mib MiB of body" \
	grep -Eq "^tcp .* [0-9.]+ (ns|µs|ms) +$n +$mib MiB " "$out"

# An IPv6 URL goes over tcp6: the built-in target serving on [::1].
if "$IPCPERF" http --serve '[::1]:0' --max-duration 20 >"$T/serve6.out" 2>&1 &
then
	s6=$!
	for i in $(seq 50); do
		url6=$(sed -n 's|^serving \(http://[^ ]*/\) .*|\1|p' "$T/serve6.out")
		[ -n "$url6" ] && break
		sleep 0.1
	done
	if [ -n "$url6" ]; then
		run http -c 2 -n 100 -r 1 -f json "$url6"
		is_rc 0 "an IPv6 URL ($url6)"
		jqt "... over tcp6, 100 responses of the page" \
			".results[0].transport == \"tcp6\" and .results[0].runs[0].iterations == 100 and .results[0].runs[0].body_bytes == 100 * $PAGE"
	else
		ok 0 "# skip no IPv6 loopback here: $(head -c 200 "$T/serve6.out")"
		ok 0 "# skip no IPv6 loopback here"
	fi
	kill -INT $s6
	wait $s6 2>/dev/null
fi

run http -c 4 -n 1000 -r 1 --placement thread --page 1000 --chunk 0 -f json
is_rc 0 "the built-in target as a thread"
jqt "thread: 1000 responses of 1000 bytes" \
	'.results[0].runs[0] | .iterations == 1000 and .body_bytes == 1000000'

# cpu/req counts the client threads, not only the thread that waits for
# them: a request is at least a send and a receive (0.5 us of CPU is far
# below what they cost anywhere; the thread that waits alone used ~0.03).
run http -c 4 --threads 2 -n 4000 -r 1 --placement thread -f json
jqt "client CPU includes its 2 threads (>= 0.5 us per request)" \
	'.results[0].runs[0] | .iterations == 4000 and (.client.user_ns + .client.sys_ns) >= 0.5 * 1000 * 4000'
diag "client CPU: $(jq -c '.results[0].runs[0].client | {user_ns, sys_ns}' "$out")"

run http -c 4 -n 1000 -r 1 --pipeline 8 -f json
is_rc 0 "--pipeline 8"
jqt "pipeline: 1000 responses (125 batches of 8 per run), none failed" \
	'.results[0].runs[0] | .iterations == 1000 and .failed == 0 and .keepalive_requests == 1000'

run http -c 2 -n 200 -r 1 --no-keepalive -f json
is_rc 0 "--no-keepalive"
jqt "no keep-alive: 200 responses, none kept alive, a connection each" \
	'.results[0].runs[0] | .iterations == 200 and .keepalive_requests == 0 and .reconnects >= 190'

run http -c 2 -n 100 -r 1 --method HEAD -f json
is_rc 0 "--method HEAD"
jqt "HEAD: 100 responses, no body" '.results[0].runs[0] | .iterations == 100 and .body_bytes == 0'

run http -c 2 -n 100 -r 1 --method POST --body 100k -H 'X-Test: 1' --chunked -f csv
is_rc 0 "POST with a 100 KiB body, a header, chunked answers, CSV"
check "csv: a header line and one row" test "$(wc -l <"$out")" -ge 2
check "csv: the row is http" grep -q "^1,http,tcp," "$out"
# csv_col NAME: the row's field under header NAME (fields without commas).
csv_col() { awk -F, -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 && c { print $c }' "$out"; }
check "csv: http's own columns: method POST, encoding chunked, body 100 KiB" \
	test "$(csv_col method),$(csv_col encoding),$(csv_col body_size)" = "POST,chunked,102400"
check "csv: ... and its counts: 100 kept alive, 0 timeouts" \
	test "$(csv_col keepalive_requests),$(csv_col failed_timeout)" = "100,0"
no_leftovers "http variants"

if [ -x "$BAD" ]; then
	ln -s "$BAD" "$T/$TAG-bad"
	# bad MODE [N] -> url of a misbehaving server (bad_pid)
	bad() {
		start_server "$T/bad.out" "$T/$TAG-bad" "$@" || return 1
		url="http://127.0.0.1:$port/"
	}
	unbad() { kill "$bad_pid"; wait "$bad_pid" 2>/dev/null; }
	# counts MODE FILTER "description": 100 requests on 2 connections.
	counts() {
		bad $1 5
		run http -c 2 -n 100 -w 0 -r 1 -f json "$url"
		unbad
		jqt "$1 every 5th: $3" ".results[0].status == \"ok\" and (.results[0].runs[0] | $2)"
		diag "$1: $(jq -c '.results[0].runs[0] | {iterations, failed, failed_read, failed_length, failed_protocol, non_2xx, status_3xx, status_4xx, status_5xx, keepalive_requests, reconnects}' "$out")"
		[ "$(jq -r '.results[0].status' "$out")" = ok ] || diag "stderr: $(head -c 300 "$err")"
	}
	counts status=503 '.iterations == 100 and .failed == 20 and .non_2xx == 20 and .status_5xx == 20' \
		"20 non-2xx (5xx), counted as failed"
	counts status=404 '.non_2xx == 20 and .status_4xx == 20 and .status_5xx == 0' "20 4xx"
	counts status=301 '.non_2xx == 20 and .status_3xx == 20' "20 3xx"
	counts cut '.failed == 20 and .failed_length == 20 and .iterations == 80' \
		"20 bodies cut by the close: length"
	counts garbage '.failed == 20 and .failed_protocol == 20' "20 not HTTP: protocol"
	counts long '.failed == 20 and .failed_protocol == 20 and .iterations == 80' \
		"20 lying Content-Lengths (10 bytes said, 20 sent): protocol"
	counts bigheader '.failed == 20 and .failed_protocol == 20' "20 1 MB header lines: protocol"
	counts reset '.failed == 20 and .failed_read == 20' "20 resets: read"
	counts silent '.failed == 20 and .failed_read == 20' "20 closes without an answer: read"
	counts close '.failed == 0 and .iterations == 100 and .keepalive_requests == 80 and .reconnects >= 18' \
		"20 Connection: close, reconnected (but after a flow's last), not failures"
	counts interim '.failed == 0 and .iterations == 100' "100 Continue first: skipped"
	# No answer to every 10th request, the connection left open: each
	# fails after --request-timeout, and the flow goes on on a new one.
	# (2 s: long enough that no answered request of a loaded machine
	# times out too.)
	bad hang 10
	run http -c 4 -n 40 -w 0 -r 1 --request-timeout 2s -f json "$url"
	unbad
	jqt "hang every 10th, --request-timeout 2s: 4 timeouts, 36 answers" \
		'.results[0].status == "ok" and (.results[0].runs[0] | .iterations == 36 and .failed == 4 and .failed_timeout == 4) and .results[0].request_timeout_ns == 2000000000'
	diag "hang: $(jq -c '.results[0].runs[0] | {iterations, failed, failed_timeout, reconnects}' "$out")"
	run http --request-timeout 1x
	is_rc 2 "--request-timeout 1x: bad input"
	bad http10
	run http -c 2 -n 50 -w 0 -r 1 -f json "$url"
	jqt "HTTP/1.0 to the close: 50 whole, none kept alive" \
		'.results[0].runs[0] | .iterations == 50 and .failed == 0 and .keepalive_requests == 0 and .body_bytes == 50000'
	# A URL's server is the external peer: nothing of ours serves, so
	# there is no server cost to report, and the heading says where it is.
	jqt "a URL: tcp, and no server side of ours (no server cost)" \
		'.results[0].transport == "tcp" and (.results[0].runs | length == 1 and all(.[]; .client != null and .server == null))'
	run http -c 2 -n 50 -w 0 -r 1 "$url"
	hp=${url#http://}
	check "a URL: the heading says where the server was already running" \
		grep -q "peer external at ${hp%/}[,;]" "$out"
	# --pin pins ipcperf's client; the URL's server is where it is.
	if [ "$(nproc)" -ge 2 ]; then
		run http -c 2 -n 50 -w 0 -r 1 --pin 0,1 -f json "$url"
		jqt "a URL with --pin 0,1: the client pinned, the server recorded as not placed" \
			'.results[0] | .cpus == null and .pin == null and .config.pin_client == 0 and .config.pin_server == null and .runs[0].client.allowed == "0"'
		jqt "... and no built-in target's page or chunk" \
			'.results[0] | has("page_size") == false and has("write_size") == false'
		run http -c 2 -n 50 -w 0 -r 1 --pin 0,1 "$url"
		check "... the heading: the client's CPU, no server's" \
			sh -c "grep -q 'client on CPU 0' '$out' && ! grep -q 'server on CPU' '$out'"
	fi
	run http --page 1k -n 50 -r 1 "$url"
	is_rc 2 "a URL with --page: refused"
	unbad
	run http -c 2 -n 50 -w 0 -r 1 -f json "$url"
	is_rc 1 "a URL where nothing listens: the measurement failed"
	jqt "... and says so in the result" '.results[0].status == "error"'
	jqt "... naming the refusal, not a vanished peer" \
		'.results[0].error | test("connection refused")'
	bad chunked
	run http -c 2 -n 50 -w 0 -r 1 -f json "$url"
	unbad
	jqt "chunked with extensions and trailers: 11 bytes each" \
		'.results[0].runs[0] | .iterations == 50 and .failed == 0 and .body_bytes == 550'
	# Every response a lie: none may pass as a success.
	bad long
	run http -c 2 -n 50 -w 0 -r 1 -f json "$url"
	unbad
	is_rc 1 "every Content-Length a lie: no response passes, the case fails (exit 1)"
	jqt "... and says so" '.results[0].status == "error"'
	jqt "... with the count by reason" \
		'.results[0].error | test("all [0-9]+ requests failed \\([0-9]+ protocol\\)")'
	bad bigbody
	run http -c 1 -n 2 -w 0 -r 1 -f json "$url"
	unbad
	jqt "two 100 MB bodies: whole, every byte counted" \
		'.results[0].runs[0] | .iterations == 2 and .failed == 0 and .body_bytes == 2 * 104857600'

	# Open loop at 1000/s over 4 connections for 1000 requests; the
	# server stops the world for 200 ms at every 500th request.  The ~200
	# requests due meanwhile wait for it: p99 must show it.  A closed
	# loop at the same server sees one slow request per connection.
	bad stall=200 500
	run http -c 4 --rate 1000 -n 1000 -w 0 -r 1 -f json "$url"
	is_rc 0 "open loop against a stalling server"
	jqt "open loop: every request answered" '.results[0].runs[0].iterations == 1000'
	jqt "open loop: p99 shows the stall (>= 50 ms)" '.results[0].summary.latency_ns.p99 >= 50000000'
	diag "open loop: $(jq -c '.results[0].summary.latency_ns | {p50, p90, p99, max}' "$out")"
	run http -c 4 -n 1000 -w 0 -r 1 -f json "$url"
	jqt "closed loop, same server: p99 hides it (< 50 ms: coordinated omission)" \
		'.results[0].summary.latency_ns.p99 < 50000000 and .results[0].summary.latency_ns.max >= 150000000'
	diag "closed loop: $(jq -c '.results[0].summary.latency_ns | {p50, p90, p99, max}' "$out")"
	unbad
else
	ok 0 "# skip $BAD is not built (make check builds it)"
fi

# Ctrl-C in the middle: what was measured is reported, exit 1, nothing left.
"$IPCPERF" http -c 10 -d 30 -r 1 -f json >"$out" 2>"$err" &
pid=$!
sleep 1.5
kill -INT $pid
ends_within $pid 10 "Ctrl-C ends ipcperf http"
is_rc 1 "... exit status 1"
jqt "... the JSON is whole and says so" '.results[0].status == "partial" or .results[0].status == "error"'
no_leftovers "http, Ctrl-C"

run http --pipeline 0
is_rc 2 "--pipeline 0: bad input"
run http -H 'Bad Header'
is_rc 2 "-H without a colon: bad input"
check "... naming it" grep -q "'Bad Header' is not a header" "$err"
run http ftp://127.0.0.1/
is_rc 2 "an ftp URL: refused"
run http --no-keepalive --pipeline 2
is_rc 2 "--no-keepalive with --pipeline: refused"
run http -c 4 --rate 100 --pipeline 2 -n 10
is_rc 2 "--rate with --pipeline: refused"

done_testing

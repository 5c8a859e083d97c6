# SPDX-License-Identifier: MIT
# ipcperf http --http2: h2c with prior knowledge and h2 by ALPN, streams
# per connection (-m), against a misbehaving HTTP/2 server
# (tests/servers/h2_bad.c: GOAWAY and RST_STREAM mid-response, a SETTINGS
# flood, a HEADERS frame larger than allowed, an HTTP/1.1 answer to h2c),
# a TLS server that does not choose h2, the built-in target's h2c and h2
# (ALPN), nginx (h2c and h2 over TLS, with a
# certificate made here) when it is installed, and bad input.  Each fault
# ends as failed requests of its kind; nothing hangs, memory stays
# bounded, nothing is left behind.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/nginx.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
BAD=$root/${BUILD:-build}/tests/servers/h2_bad
[ -x "$BAD" ] || { echo "1..0 # skip $BAD is not built (make check builds it)"; exit 77; }
ln -s "$BAD" "$T/$TAG-h2-bad"

bad_pid=
# bad MODE [N]: start the server; sets port.
bad() { start_server "$T/bad.out" "$T/$TAG-h2-bad" "$@"; }
unbad() { kill "$bad_pid"; wait "$bad_pid" 2>/dev/null; }

# h2 URL ARGS...: a short --http2 measurement as JSON into $out, rc set;
# a run that takes a minute has hung.
h2() {
	local u=$1
	shift
	timeout 60 "$IPCPERF" http --http2 "$u" --pin none --runs 1 -n 200 -c 2 \
		--request-timeout 5s -f json "$@" >"$out" 2>"$err"
	rc=$?
}

# ---- a good server, then each fault ---------------------------------------
bad ok
h2 "http://127.0.0.1:$port/"
is_rc 0 "h2c, prior knowledge: measured"
jqt "... every request whole: 200 bodies of 1000 bytes, http2 said" \
	'.results[0] | .status == "ok" and .http2 == "yes" and .summary.failed == 0 and .summary.messages == 200 and .summary.body_bytes == 200000'
h2 "http://127.0.0.1:$port/" -m 8 -c 3
is_rc 0 "-m 8: eight streams at once on each connection"
jqt "... every request whole, the streams said" \
	'.results[0] | .streams == 8 and .summary.failed == 0 and .summary.messages == 200 and .summary.body_bytes == 200000 and .summary.reconnects == 0'
h2 "http://127.0.0.1:$port/" -m 4 --method POST --body 40000
is_rc 0 "a POST body of 40000 bytes on each stream"
jqt "... answered, every one" '.results[0].summary | .failed == 0 and .messages == 200'
unbad

for m in goaway:goaway reset:reset settings:h2 bighead:h2; do
	bad "${m%:*}" 10
	h2 "http://127.0.0.1:$port/"
	ok $((rc > 1)) "h2_bad ${m%:*}: ends (exit $rc)"
	jqt "... a tenth of the requests failed as ${m#*:}, the others whole" \
		".results[0].summary | .failed_${m#*:} >= 15 and .failed == .failed_${m#*:} and .messages + .failed == 200 and .body_bytes == .messages * 1000"
	h2 "http://127.0.0.1:$port/" -m 4
	ok $((rc > 1)) "... with -m 4: ends (exit $rc)"
	jqt "... failed as ${m#*:} only" \
		".results[0].summary | .failed_${m#*:} > 0 and .failed == .failed_${m#*:} and .messages + .failed == 200"
	unbad
done

bad http1
h2 "http://127.0.0.1:$port/"
is_rc 1 "an HTTP/1.1 server answering h2c: exit 1"
jqt "... every request failed as h2" \
	'.results[0] | .status == "error" and (.error | test("all 200 requests failed \\(200 h2\\)"))'
unbad

# A SETTINGS flood on every connection: what the client keeps is bounded.
# (Under SAN=1 the sanitizer's quarantine keeps what was freed: no bound.)
if [ -x /usr/bin/time ] && [ "${SAN:-}" != 1 ]; then
	bad ok
	/usr/bin/time -f %M -o "$T/rss.ok" "$IPCPERF" http --http2 "http://127.0.0.1:$port/" \
		--pin none --runs 1 -n 400 -c 20 -f json >"$out" 2>"$err"
	unbad
	bad settings 1
	/usr/bin/time -f %M -o "$T/rss.flood" timeout 60 "$IPCPERF" http --http2 \
		"http://127.0.0.1:$port/" --pin none --runs 1 -n 400 -c 20 -f json >"$out" 2>"$err"
	unbad
	rss_ok=$(tail -n 1 "$T/rss.ok")
	rss_flood=$(tail -n 1 "$T/rss.flood")
	# Kept without a bound, 20 floods of 120000 acknowledgements would
	# hold hundreds of megabytes.
	ok $((rss_flood > rss_ok + 50000)) "a SETTINGS flood on 20 connections: ${rss_flood} KB at most, ${rss_ok} KB without it"
	jqt "... every request failed as h2" \
		'.results[0] | .status == "error" and (.error | test("\\(400 h2\\)"))'
fi

# ---- TLS: h2 only when the server chooses it -------------------------------
# serve ARGS...: ipcperf http --serve in the background (srv_pid), its
# URL in $url once it says it.
serve() {
	rm -f "$T/serve.out"
	"$IPCPERF" http --serve 127.0.0.1:0 "$@" >"$T/serve.out" 2>&1 &
	srv_pid=$!
	for i in $(seq 50); do
		url=$(sed -n 's|^serving \(https*://[^ ]*/\) .*|\1|p' "$T/serve.out" 2>/dev/null)
		[ -n "$url" ] && break
		sleep 0.1
	done
}
# A TLS server that chooses no protocol by ALPN (tests/servers/tls_bad).
TLSBAD=$root/${BUILD:-build}/tests/servers/tls_bad
if [ -x "$TLSBAD" ] && command -v openssl >/dev/null; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 1 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
		-keyout "$T/h1.key" -out "$T/h1.pem" 2>/dev/null
	ln -s "$TLSBAD" "$T/$TAG-tls-bad"
	start_server "$T/bad.out" "$T/$TAG-tls-bad" "$T/h1.pem" "$T/h1.key" ok
	h2 "https://127.0.0.1:$port/" --insecure -n 100
	is_rc 1 "https to a server that chooses no h2: exit 1"
	jqt "... every request failed as alpn, none sent" \
		'.results[0] | .status == "error" and (.error | test("all 100 requests failed \\(100 alpn\\)"))'
	unbad
else
	echo "# tls_bad or openssl missing: the no-h2 TLS server is not tried"
fi

# The built-in target over TLS: h2 to a client that offers it by ALPN.
serve --tls
h2 "$url" --insecure -m 4
is_rc 0 "--serve --tls: h2 chosen by ALPN, measured"
jqt "... every page whole, the session says h2" \
	'.results[0] | .status == "ok" and (.tls_session | test(" h2(;|$)")) and .summary.failed == 0 and .summary.messages == 200 and .summary.body_bytes == 200 * 16294'
h2 "$url" --insecure --no-keepalive -n 40
is_rc 0 "... a connection per request, h2 each time"
jqt "... 40 handshakes, resumed after the first" \
	'.results[0] | .status == "ok" and .summary.failed == 0 and .summary.tls_handshakes == 40 and .summary.tls_resumed >= 39'
h2 "$url" --insecure -m 4 -n 100 --method POST --body 40000
jqt "... a POST body of 40000 bytes on each stream, answered" \
	'.results[0] | .status == "ok" and .summary.failed == 0 and .summary.messages == 100'
if curl -V 2>/dev/null | grep -q HTTP2; then
	v=$(curl -sk --http2 -o "$T/page" -w '%{http_version} %{http_code}' "$url")
	check "... curl offering h2 gets it ($v)" test "$v" = "2 200"
	check "... the page whole" test "$(wc -c <"$T/page")" = 16294
	v=$(curl -sk --http1.1 -o /dev/null -w '%{http_version} %{http_code}' "$url")
	check "... curl offering http/1.1 alone gets HTTP/1.1 ($v)" test "$v" = "1.1 200"
fi
if command -v h2load >/dev/null; then
	timeout 60 h2load -n 1000 -c 4 -m 8 "$url" >"$T/h2load.out" 2>&1
	check "... h2load over TLS: 1000 requests, none failed" \
		grep -q "1000 total, 1000 started, 1000 done, 1000 succeeded, 0 failed, 0 errored" "$T/h2load.out"
	check "... by h2" grep -q "Application protocol: h2" "$T/h2load.out"
fi
# Clients that open h2, say GOAWAY and reset the connection at once: the
# target's last writes (its SETTINGS, close_notify) meet a closed socket.
# That must cost the connection, not the process.
hp=${url#https://}
hp=${hp%/}
if command -v python3 >/dev/null; then
	python3 - "${hp%:*}" "${hp##*:}" <<'PY' 2>/dev/null
import socket, ssl, sys
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.set_alpn_protocols(["h2"])
goaway = b"\x00\x00\x08\x07\x00\x00\x00\x00\x00" + b"\x00" * 8
for _ in range(20):
    try:
        s = ctx.wrap_socket(socket.create_connection((sys.argv[1], int(sys.argv[2]))))
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" +
                  b"\x00\x00\x00\x04\x00\x00\x00\x00\x00" + goaway)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01" + b"\x00" * 7)
        s.close()
    except OSError:
        pass
PY
	sleep 0.2
	check "... 20 clients that reset after their GOAWAY: the target lives on" kill -0 "$srv_pid"
	h2 "$url" --insecure -n 20
	jqt "... and serves the next one" '.results[0] | .status == "ok" and .summary.failed == 0'
fi
kill -INT "$srv_pid"
ends_within "$srv_pid" 5 "... the server ends"
check "... it counts its h2 connections as h2, not h2c" \
	grep -Eq "^served [0-9]+ requests .* \([1-9][0-9]* h2\);.* 0 TLS handshakes failed" "$T/serve.out"

# ---- nginx ---------------------------------------------------------------
if command -v nginx >/dev/null && command -v openssl >/dev/null &&
	nginx -V 2>&1 | grep -q with-http_v2_module; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 1 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
		-keyout "$T/good.key" -out "$T/good.pem" 2>/dev/null
	mkdir -p "$T/www"
	head -c 16294 /dev/zero | tr '\0' x >"$T/www/fast"
	# h2c, h2 over TLS, then the same without http2.
	servers() {
		echo "ssl_certificate $T/good.pem; ssl_certificate_key $T/good.key;"
		echo "root $T/www;"
		echo "server { listen 127.0.0.1:$p0 http2; }"
		echo "server { listen 127.0.0.1:$((p0 + 1)) ssl http2; }"
		echo "server { listen 127.0.0.1:$((p0 + 2)); }"
		echo "server { listen 127.0.0.1:$((p0 + 3)) ssl; }"
	}
	nginx_start servers 4
	h2 "http://127.0.0.1:$p0/fast" -c 10 -n 2000
	is_rc 0 "nginx, h2c"
	jqt "... every request whole: 2000 bodies of 16294 bytes" \
		'.results[0].summary | .failed == 0 and .messages == 2000 and .body_bytes == 2000 * 16294'
	h2 "https://127.0.0.1:$((p0 + 1))/fast" --cacert "$T/good.pem" -c 10 -n 2000 -m 4
	is_rc 0 "nginx, h2 over TLS with -m 4, verified with --cacert"
	jqt "... every request whole, and the session says h2" \
		'.results[0] | (.tls_session | test(" h2(;|$)")) and .summary.failed == 0 and .summary.messages == 2000 and .summary.body_bytes == 2000 * 16294'
	h2 "https://127.0.0.1:$((p0 + 1))/fast" --cacert "$T/good.pem" --no-keepalive
	is_rc 0 "nginx, h2 over TLS, a connection per request"
	jqt "... sessions resumed, every request whole" \
		'.results[0].summary | .tls_resumed > 0 and .failed == 0 and .body_bytes == 200 * 16294'
	h2 "http://127.0.0.1:$((p0 + 2))/fast"
	is_rc 1 "nginx without http2: h2c fails, exit 1"
	jqt "... as h2" '.results[0].error | test("\\(200 h2\\)")'
	h2 "https://127.0.0.1:$((p0 + 3))/fast" --cacert "$T/good.pem"
	is_rc 1 "nginx over TLS without http2: exit 1"
	jqt "... as alpn" '.results[0].error | test("\\(200 alpn\\)")'
	nginx_stop
	rm -rf "$T/www"
else
	echo "# nginx with http2 is not installed: its part is skipped"
fi

# ---- bad input ----------------------------------------------------------
run http http://127.0.0.1:1/ -m 4
is_rc 2 "-m without --http2: refused"
check "... naming it" grep -q -- "--max-concurrent-streams 4 without --http2" "$err"
run http http://127.0.0.1:1/ --http2 -m 0
is_rc 2 "-m 0: refused"
run http http://127.0.0.1:1/ --http2 --pipeline 2
is_rc 2 "--http2 with --pipeline: refused"
run http http://127.0.0.1:1/ --http2 -m 2 --rate 100
is_rc 2 "--http2 -m 2 with --rate: refused"
run http --http2 --tls -m 4 -n 200 -c 2 -w 4 -r 1 -f json
is_rc 0 "--http2 --tls against the built-in target: measured"
jqt "... every page whole over h2, chosen by ALPN" \
	'.results[0] | .status == "ok" and .http2 == "yes" and (.tls_session | test(" h2(;|$)")) and .summary.failed == 0 and .summary.messages == 200 and .summary.body_bytes == 200 * .page_size'

# ---- the built-in target: h2c to a client that opens with its preface ----
run http --http2 -n 200 -c 2 -w 4 -r 1 -f json
is_rc 0 "--http2 against the built-in target: measured"
jqt "... every request whole over h2c: 200 pages, the streams said" \
	'.results[0] | .status == "ok" and .http2 == "yes" and .summary.failed == 0 and .summary.messages == 200 and .summary.body_bytes == 200 * .page_size and .summary.reconnects == 0'
run http --http2 -m 8 -n 400 -c 3 -w 8 -r 1 -f json
is_rc 0 "... -m 8: eight streams at once on each connection"
jqt "... every one answered whole" \
	'.results[0] | .status == "ok" and .summary.failed == 0 and .summary.messages == 400 and .summary.body_bytes == 400 * .page_size'
run http --http2 -m 4 --method HEAD -n 100 -c 2 -w 4 -r 1 -f json
jqt "... HEAD: answered without a body" \
	'.results[0] | .status == "ok" and .summary.failed == 0 and .summary.messages == 100 and .summary.body_bytes == 0'
run http --http2 -m 4 --method POST --body 40000 -n 100 -c 2 -w 4 -r 1 -f json
jqt "... a POST body of 40000 bytes on each stream, answered" \
	'.results[0] | .status == "ok" and .summary.failed == 0 and .summary.messages == 100'

serve --token tk
base=${url%tk/}
h2 "${url}page" -m 4 -n 100
is_rc 0 "--serve: h2c from ipcperf's client, with the token"
jqt "... answered whole" '.results[0] | .status == "ok" and .summary.failed == 0 and .summary.messages == 100'
if curl -V 2>/dev/null | grep -q HTTP2; then
	v=$(curl -s --http2-prior-knowledge -o "$T/page" -w '%{http_version} %{http_code}' "${base}x")
	check "--serve: curl's h2c without the token: HTTP/2 200 ($v)" test "$v" = "2 200"
	check "... the page whole" test "$(wc -c <"$T/page")" = 16294
	v=$(curl -s -o /dev/null -w '%{http_version} %{http_code}' "${url}")
	check "... and HTTP/1.1 still ($v)" test "$v" = "1.1 200"
fi
# Not HTTP/2 after the preface: a GOAWAY, closed; the others still served.
hp=${base#http://}
hp=${hp%/}
exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}"
# (The preface in two writes: its first part waits for the rest.)
printf 'PRI * HTTP/2' >&3
sleep 0.2
printf '.0\r\n\r\nSM\r\n\r\nnot a frame of HTTP/2 at all' >&3
timeout 10 cat <&3 >"$T/probe"
probe_rc=$?
exec 3<&-
# The target's SETTINGS (one setting: 15 bytes), then a frame of type 7.
check "a broken h2c client gets SETTINGS, a GOAWAY, and the end (rc $probe_rc)" \
	test "$probe_rc" = 0 -a "$(od -An -tx1 -j18 -N1 "$T/probe" | tr -d ' ')" = 07
# A SETTINGS flood, never reading the acknowledgements: nghttp2's limit
# ends it with a GOAWAY (PROTOCOL_ERROR), what is queued stays bounded.
printf '\x00\x00\x00\x04\x00\x00\x00\x00\x00' >"$T/flood"
for i in $(seq 17); do
	cat "$T/flood" "$T/flood" >"$T/flood2"
	mv "$T/flood2" "$T/flood"
done
exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}"
printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' | cat - "$T/flood" >&3 2>/dev/null
timeout 20 cat <&3 >"$T/probe"
probe_rc=$?
exec 3<&-
check "131072 SETTINGS unread: its connection ends (rc $probe_rc), under a megabyte back" \
	test "$probe_rc" = 0 -a "$(wc -c <"$T/probe")" -lt 1000000
# Its last frame: a GOAWAY of 8 bytes on stream 0, PROTOCOL_ERROR (1).
last=$(tail -c 17 "$T/probe" | od -An -tx1 | tr -d ' \n')
check "... the last frame a GOAWAY, PROTOCOL_ERROR ($last)" \
	test "${last:0:18}" = 000008070000000000 -a "${last:26:8}" = 00000001
h2 "$url" -n 20
jqt "... the target serves the next one" '.results[0] | .status == "ok" and .summary.failed == 0'
kill -INT "$srv_pid"
ends_within "$srv_pid" 5 "... the server ends"
check "... it counts its h2c connections and the request without the token" \
	grep -Eq "^served [0-9]+ requests .* \([0-9]+ h2c\);.* 1 without the token" "$T/serve.out"
run http --serve 127.0.0.1:0 --http2
is_rc 2 "--serve --http2: refused (the target answers h2c by itself)"

no_leftovers "http --http2"
done_testing

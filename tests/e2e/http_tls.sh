# SPDX-License-Identifier: MIT
# ipcperf http over TLS: the built-in target's own certificate (http
# --tls), one given to --serve and verified with --cacert, one that does
# not verify (exit 1, the reason named), --insecure said in the result,
# TLS 1.2 and 1.3, sessions resumed with --no-keepalive, a plain HTTP
# server behind https://, a server that breaks TLS mid-body
# (tests/servers/tls_bad.c), bad input, and nginx when it is installed.
# Nothing hangs, nothing is left behind.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/nginx.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
BAD=$root/${BUILD:-build}/tests/servers/tls_bad
command -v openssl >/dev/null || { echo "1..0 # skip openssl is not installed"; exit 77; }

# A CA-less certificate for 127.0.0.1, and a second one nobody trusts.
mkcert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 1 -subj "/CN=$2" -addext "subjectAltName=$3" \
		-keyout "$T/$1.key" -out "$T/$1.pem" 2>/dev/null
}
mkcert good 127.0.0.1 "IP:127.0.0.1"
ok $? "a certificate for 127.0.0.1 made by openssl"
mkcert other elsewhere.invalid "DNS:elsewhere.invalid"

srv_pid=
url=
# serve ARGS...: `ipcperf http --serve 127.0.0.1:0 ARGS`, url from its line.
serve() {
	local i
	rm -f "$T/serve.out"
	"$IPCPERF" http --serve 127.0.0.1:0 "$@" >"$T/serve.out" 2>"$T/serve.err" &
	srv_pid=$!
	url=
	for i in $(seq 50); do
		url=$(sed -n 's|^serving \(https*://[^ ]*/\) .*|\1|p' "$T/serve.out" 2>/dev/null)
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	diag "the server printed: $(cat "$T/serve.out" "$T/serve.err")"
	return 1
}
unserve() {
	kill -INT "$srv_pid"
	ends_within "$srv_pid" 5 "$1: Ctrl-C ends the server"
}
# fetch URL ARGS...: a short measurement as JSON into $out.
fetch() {
	local u=$1
	shift
	run http "$u" --pin none --runs 1 -n 200 -c 2 -f json "$@"
}

# ---- the built-in target ------------------------------------------------
run http --tls --pin none --runs 1 -n 400 -c 2 -f json
is_rc 0 "http --tls: the built-in target serves TLS"
jqt "... every request whole, none failed, tls yes" \
	'.results[0] | .status == "ok" and .tls == "yes" and .summary.failed == 0 and .summary.messages == 400'
jqt "... the session in words, with the certificate said unverified" \
	'.results[0].tls_session | test("^TLSv1\\.[23] .* http/1\\.1; certificate not verified \\(made for the run\\)$")'

run http --tls --no-keepalive --pin none --runs 1 -n 300 -c 2 -f json
is_rc 0 "http --tls --no-keepalive: a handshake per request"
jqt "... each measured request had its handshake, timed apart" \
	'.results[0].summary | .tls_handshakes == 300 and .tls_handshake_p50_ns > 0 and .tls_handshake_p99_ns >= .tls_handshake_p50_ns'
jqt "... and resumed its flow's session (after the first)" \
	'.results[0].summary | .tls_resumed > 0 and .tls_resumed <= .tls_handshakes'
run http --tls --pin none --runs 1 -n 100 -c 2
is_rc 0 "http --tls, the table"
check "... has the handshake and the session" grep -q 'tls=yes.*TLSv1' "$out"

# ---- --serve with a certificate ------------------------------------------
serve --cert "$T/good.pem" --key "$T/good.key"
ok $? "--serve --cert --key serves https"
fetch "$url" --cacert "$T/good.pem"
is_rc 0 "--cacert: the certificate verifies"
jqt "... and the result does not say unverified" \
	'.results[0] | .status == "ok" and .verify == null and (.tls_session | test("not verified") | not)'
for v in 1.2 1.3; do
	fetch "$url" --cacert "$T/good.pem" --tls-version $v --no-keepalive
	is_rc 0 "--tls-version $v"
	jqt "... the session is TLSv$v, every reconnection resumed" \
		".results[0] | (.tls_session | startswith(\"TLSv$v \")) and .summary.tls_resumed > 0 and .summary.failed == 0"
done
fetch "$url"
is_rc 1 "a certificate the system does not trust: exit 1"
check "... the reason named" grep -q "certificate does not verify: self-signed certificate" "$err"
fetch "$url" --cacert "$T/other.pem"
is_rc 1 "a CA file that does not hold it: exit 1"
fetch "$url" --insecure
is_rc 0 "--insecure measures anyway"
jqt "... and says so" \
	'.results[0] | .verify == "no" and (.tls_session | test("not verified \\(--insecure\\)"))'
unserve "--serve --cert"
check "... it counted the handshakes of the clients that did not trust it" \
	grep -q " [1-9][0-9]* TLS handshakes failed" "$T/serve.out"

serve --cert "$T/other.pem" --key "$T/other.key"
fetch "$url" --cacert "$T/other.pem"
is_rc 1 "a certificate for another name: exit 1"
check "... the reason named" grep -q "does not verify: .*mismatch" "$err"
unserve "--serve, another name"

# ---- plain HTTP behind https:// -----------------------------------------
serve
plain=${url#http://}
fetch "https://$plain" --insecure
is_rc 1 "a plain HTTP server behind https://: exit 1"
jqt "... every request failed as tls" '.results[0] | .status == "error" and (.error | test("all 200 requests failed \\(200 tls\\)"))'
unserve "plain --serve"

# ---- a server that breaks TLS mid-body ----------------------------------
if [ -x "$BAD" ]; then
	ln -s "$BAD" "$T/$TAG-tls-bad"
	bad() {
		start_server "$T/bad.out" "$T/$TAG-tls-bad" "$T/good.pem" "$T/good.key" "$@"
	}
	for m in alert:tls garbage:tls notify:length; do
		bad "${m%:*}" 4
		timeout 60 "$IPCPERF" http "https://127.0.0.1:$port/" --cacert "$T/good.pem" \
			--pin none --runs 1 -n 400 -c 2 -f json >"$out" 2>"$err"
		rc=$?
		ok $((rc > 1)) "tls_bad ${m%:*}: ends (exit $rc)"
		jqt "... a quarter of the requests failed as ${m#*:}, the others whole" \
			".results[0].summary | .failed_${m#*:} > 0 and .failed == .failed_${m#*:} and .messages + .failed == 400"
		kill "$bad_pid"
		wait "$bad_pid" 2>/dev/null
	done
else
	echo "# tls_bad is not built (make check builds it)"
fi

# ---- bad input ----------------------------------------------------------
run http --cert "$T/good.pem"
is_rc 2 "--cert without --key: refused"
run http --tls --cacert "$T/nonexistent.pem"
is_rc 2 "--cacert of a missing file: refused"
check "... naming it" grep -q "nonexistent.pem" "$err"
run http https://127.0.0.1:1/ --tls-version 1.1
is_rc 2 "--tls-version 1.1: refused"
run http http://127.0.0.1:1/ --insecure
is_rc 2 "--insecure on an http:// URL: refused"
run http --serve 127.0.0.1:0 --cert "$T/good.pem" --key "$T/other.key" --max-duration 1
is_rc 2 "--serve with a key not of its certificate: refused"

# ---- nginx --------------------------------------------------------------
if command -v nginx >/dev/null && nginx -V 2>&1 | grep -q with-http_ssl_module; then
	mkdir -p "$T/www"
	head -c 16294 /dev/zero | tr '\0' x >"$T/www/fast"
	servers() {
		echo "server { listen 127.0.0.1:$p0 ssl; root $T/www;"
		echo "	ssl_certificate $T/good.pem; ssl_certificate_key $T/good.key; }"
	}
	nginx_start servers
	nport=$p0
	fetch "https://127.0.0.1:$nport/fast" --cacert "$T/good.pem" -c 10 -n 2000
	is_rc 0 "nginx over TLS, verified with --cacert"
	jqt "... every request whole: 2000 bodies of 16294 bytes" \
		'.results[0].summary | .failed == 0 and .messages == 2000 and .body_bytes == 2000 * 16294'
	fetch "https://127.0.0.1:$nport/fast" --cacert "$T/good.pem" --no-keepalive
	is_rc 0 "nginx, a connection per request"
	jqt "... sessions resumed" '.results[0].summary.tls_resumed > 0'
	nginx_stop
	rm -rf "$T/www"
else
	echo "# nginx with ssl is not installed: its part is skipped"
fi

no_leftovers "http over TLS"
done_testing

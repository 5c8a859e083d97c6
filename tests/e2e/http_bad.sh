# SPDX-License-Identifier: MIT
# The misbehaving HTTP server the http tests count failures against
# (tests/servers/http_bad.c) does what it says, checked with curl: the
# failure counts of ipcperf http are only as good as this server's
# faults are real.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
BAD=$root/${BUILD:-build}/tests/servers/http_bad
[ -x "$BAD" ] || { echo "1..0 # skip $BAD is not built (make check builds it)"; exit 77; }
command -v curl >/dev/null || { echo "1..0 # skip curl is not installed (apt-get install curl)"; exit 77; }
ln -s "$BAD" "$T/$TAG-bad"

bad_pid=
# bad MODE [N]: start the server; sets url.
bad() {
	start_server "$T/bad.out" "$T/$TAG-bad" "$@" || return 1
	url="http://127.0.0.1:$port/"
}
unbad() { kill "$bad_pid"; wait "$bad_pid" 2>/dev/null; }

# fetch [CURL OPTIONS]: curl's exit status in rc, body in $T/body.
fetch() {
	curl -s -o "$T/body" -w '%{http_code} %{time_total}' "$@" "$url" >"$T/w" 2>/dev/null
	rc=$?
}

bad ok; fetch
ok $((rc || $(wc -c <"$T/body") != 1000)) "ok: 200 with 1000 bytes"
unbad
bad status=503; fetch
check "status=503: curl sees 503" grep -q '^503 ' "$T/w"
unbad
bad status=500 3
codes=$(curl -s -o /dev/null -o /dev/null -o /dev/null -w '%{http_code} ' "$url" "$url" "$url")
check "status=500 3: only every third request fails ($codes)" test "$codes" = "200 200 500 "
unbad
bad cut; fetch
check "cut: the body ends early (curl exit 18, got $rc)" test "$rc" = 18
unbad
bad long; fetch
ok $((rc != 0 || $(wc -c <"$T/body") != 10)) "long: Content-Length 10 read as 10 bytes, the rest is extra"
unbad
bad garbage; fetch
check "garbage: curl fails (exit $rc)" test "$rc" != 0
unbad
bad reset; fetch
check "reset: curl fails to receive (exit $rc)" test "$rc" = 56 -o "$rc" = 52
unbad
bad silent; fetch
check "silent: an empty reply (curl exit 52, got $rc)" test "$rc" = 52
unbad
bad stall=300; fetch
ok $((rc)) "stall=300: answered"
check "stall=300: after 300 ms at least ($(cut -d' ' -f2 "$T/w") s)" \
	awk -v t="$(cut -d' ' -f2 "$T/w")" 'BEGIN {exit !(t >= 0.3)}'
unbad
bad http10; fetch
ok $((rc || $(wc -c <"$T/body") != 1000)) "http10: a 1000-byte body ended by the close"
unbad
bad chunked; fetch
check "chunked: hello world through extensions and trailers" test "$(cat "$T/body")" = "hello world"
unbad
bad interim; fetch
ok $((rc || $(wc -c <"$T/body") != 1000)) "interim: 100 Continue, then 200 with the body"
unbad
bad bigheader; fetch
check "bigheader: curl refuses a 1 MB header line (exit $rc)" test "$rc" != 0
unbad
bad bigbody; fetch
ok $((rc || $(wc -c <"$T/body") != 104857600)) "bigbody: 100 MB arrive"
unbad
rm -f "$T/body"
no_leftovers "the misbehaving server"
done_testing

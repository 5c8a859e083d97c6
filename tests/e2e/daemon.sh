# SPDX-License-Identifier: MIT
# ipcperf server --daemon: it returns once listening with exit 0, runs
# detached (its own session, no terminal on its stdio) with its pid in
# --pidfile, logs its events to --log FILE or syslog, refuses a second
# server on a pidfile in use, and on SIGTERM stops cleanly and removes the
# pidfile; an error while starting still reaches the terminal.
. "$(dirname "$0")/lib.bash"

pidf="$T/run/server.pid"
log="$T/server.log"
mkdir -p "$T/run"

# wait_gone PID SECONDS: status 0 once PID has exited.
wait_gone() {
	local i
	for i in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# Started from another directory with a relative pidfile: the daemon
# changes to /, and must still find the file to remove.
(cd "$T/run" && timeout 10 "$IPCPERF" server --daemon --pidfile server.pid \
	--log "$log" -f json --listen 127.0.0.1:0 >"$out" 2>"$err")
rc=$?
is_rc 0 "--daemon: returns once listening, exit 0"
pid=$(cat "$pidf" 2>/dev/null)
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
ok $? "the pidfile names a running process ($pid)"
[ -s "$out" ] && diag "stdout: $(head -c 200 "$out")"
test ! -s "$out"
ok $? "nothing printed to the terminal"
sid=$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')
tty=$(ps -o tty= -p "$pid" 2>/dev/null | tr -d ' ')
[ "$sid" = "$pid" ] && [ "$tty" = "?" ]
ok $? "it leads its own session, with no terminal (sid $sid, tty $tty)"
[ "$(readlink "/proc/$pid/fd/0")" = /dev/null ] &&
	[ "$(readlink "/proc/$pid/fd/1")" = /dev/null ] &&
	[ "$(readlink "/proc/$pid/cwd")" = / ]
ok $? "its stdin and stdout are /dev/null, its directory /"
addr=$(jq -r 'select(.event == "listening") | .address' "$log" 2>/dev/null | head -n 1)
[ -n "$addr" ]
ok $? "the log file has its listening line ($addr)"

run rr --remote "$addr" -n 100 -w 10 -r 1 -f json
is_rc 0 "a client measures against the daemon"
jq -e 'select(.event == "test") | .status == "ok"' "$log" >/dev/null 2>&1
ok $? "the test is in the daemon's log"

run server --daemon --pidfile "$pidf" --listen 127.0.0.1:0
is_rc 2 "a second server on the same pidfile: exit 2"
grep -q "a server runs as pid $pid" "$err"
ok $? "... naming the running pid"
[ "$(cat "$pidf")" = "$pid" ]
ok $? "... and the pidfile still names the first"

kill -TERM "$pid"
wait_gone "$pid" 5
ok $? "SIGTERM: the daemon ends within 5 s"
test ! -e "$pidf"
ok $? "SIGTERM: the pidfile is removed"
jq -e 'select(.event == "stopped")' "$log" >/dev/null 2>&1
ok $? "SIGTERM: a stopped line in the log"
ls "$T/run" | grep -q . && diag "left in run/: $(ls "$T/run")"
test -z "$(ls "$T/run")"
ok $? "nothing left beside the pidfile"

# A stale pidfile (no such process) is taken over.
echo 999999999 >"$pidf"
run server --daemon --pidfile "$pidf" --log "$log" --listen 127.0.0.1:0
is_rc 0 "a stale pidfile: started anyway"
pid=$(cat "$pidf" 2>/dev/null)
[ -n "$pid" ] && [ "$pid" != 999999999 ] && kill -0 "$pid" 2>/dev/null
ok $? "... and the pidfile names it"
kill -TERM "$pid" 2>/dev/null
wait_gone "$pid" 5 && test ! -e "$pidf"
ok $? "... stopped, pidfile removed"

# Errors before it listens reach the caller, with exit 2 and no pidfile.
run server --daemon --pidfile "$pidf" --log "$log" --listen 999.1.1.1:5301
is_rc 2 "--daemon with a bad address: exit 2"
grep -q 999.1.1.1 "$err"
ok $? "... named on stderr"
test ! -e "$pidf"
ok $? "... no pidfile"
run server --daemon --log "$T/no/such/dir/log" --listen 127.0.0.1:0
is_rc 2 "--log in a missing directory: exit 2"
grep -q -- "--log '$T/no/such/dir/log'" "$err"
ok $? "... named"
run server --pidfile "$T/no/such/dir/pid" --listen 127.0.0.1:0 --once
is_rc 2 "--pidfile in a missing directory: exit 2"
run server --pidfile "" --listen 127.0.0.1:0
is_rc 2 "--pidfile '': exit 2"

# In the foreground, --pidfile too: written while it runs, removed after.
"$IPCPERF" server --pidfile "$pidf" --listen 127.0.0.1:0 -f json \
	>"$T/fg.log" 2>"$err" &
fg=$!
for _ in $(seq 100); do [ -s "$pidf" ] && break; sleep 0.05; done
[ "$(cat "$pidf" 2>/dev/null)" = "$fg" ]
ok $? "foreground --pidfile: names the server"
kill -TERM "$fg"
wait "$fg"
rc=$?
is_rc 0 "foreground: SIGTERM, exit 0"
test ! -e "$pidf"
ok $? "foreground: pidfile removed"

# syslog: in a mount namespace whose /dev holds a /dev/log we read.
if command -v unshare >/dev/null && command -v python3 >/dev/null &&
	[ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	cat >"$T/syslog.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(65536) + b"\n")
PY
	cat >"$T/syslog.sh" <<'SH'
set -u
mount -t tmpfs tmpfs /dev || exit 1
mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/urandom c 1 9 || exit 1
python3 "$T/syslog.py" "$T/syslog.out" &
py=$!
for _ in $(seq 100); do [ -e "$T/syslog.out.ready" ] && break; sleep 0.05; done
"$IPCPERF" server --daemon --pidfile "$T/sys.pid" --listen 127.0.0.1:0 \
	--pm-qos off || exit 1
pid=$(cat "$T/sys.pid")
for _ in $(seq 100); do grep -q listening "$T/syslog.out" && break; sleep 0.05; done
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
sleep 0.2
kill "$py"
SH
	T="$T" IPCPERF="$IPCPERF" timeout 30 unshare -m --propagation private \
		bash "$T/syslog.sh" >"$T/syslog.err" 2>&1
	ok $? "--daemon without --log: started and stopped (syslog in a namespace)"
	sed 's/^/# /' "$T/syslog.err" | head -n 5
	grep -Eq '^<30>.*ipcperf\[[0-9]+\]: listening on 127\.0\.0\.1:' "$T/syslog.out" 2>/dev/null
	ok $? "its listening line went to syslog (daemon facility, info)"
	grep -q 'ipcperf\[[0-9]*\]: stopping' "$T/syslog.out" 2>/dev/null
	ok $? "and its stopping line"
	head -n 3 "$T/syslog.out" 2>/dev/null | sed 's/^/# /'
	test ! -e "$T/sys.pid"
	ok $? "pidfile removed"
else
	for i in 1 2 3 4; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip needs root, unshare -m and python3 for a private /dev/log"
	done
fi

no_leftovers "daemon"
done_testing

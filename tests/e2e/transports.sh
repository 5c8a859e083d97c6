# SPDX-License-Identifier: MIT
# The transports beyond sockets and pipes (shm, mq, pty, serial) and the
# socket options, end to end: every pattern, the engines that can and
# cannot drive them, limits and errors with exit 2, a killed peer and
# Ctrl-C, and nothing left behind: no file, no process, no message queue
# (a private mqueue mount shows them), nothing in /dev/shm.
#
# The mqueue file system is mounted in a mount namespace of this test's
# own when /dev/mqueue is not mounted and we may (root, unshare(1)).
if [ -z "${IPCPERF_MQ_NS:-}" ] && ! mountpoint -q /dev/mqueue 2>/dev/null &&
	[ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m --propagation private true 2>/dev/null; then
	IPCPERF_MQ_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.bash"

MQ=""
if mountpoint -q /dev/mqueue 2>/dev/null; then
	MQ=/dev/mqueue
elif [ -n "${IPCPERF_MQ_NS:-}" ] && mkdir -p "$T/mq" &&
	mount -t mqueue none "$T/mq" 2>/dev/null; then
	MQ=$T/mq
	trap 'umount "$MQ"; pkill -KILL -f "$TAG" 2>/dev/null; rm -rf "$T"' EXIT
fi
[ -n "$MQ" ] && diag "message queues seen in $MQ" ||
	diag "no mqueue mount: queue leftovers are not checked"

# No queue and no /dev/shm entry of ours, besides no_leftovers' checks.
nothing_left() {
	local q s
	q=$( [ -n "$MQ" ] && ls -A "$MQ" | grep ipcperf | head -n 3)
	s=$(ls -A /dev/shm 2>/dev/null | grep ipcperf | head -n 3)
	[ -z "$q" ] && [ -z "$s" ]
	ok $? "$1: no message queue or /dev/shm entry left${q:+ (queues: $q)}${s:+ (shm: $s)}"
	no_leftovers "$1"
}

# The "Done when" commands.
run rr -t shm,mq,pty,pipe -n 2000 -w 100 -r 2 -f json
is_rc 0 "rr on shm, mq, pty, pipe"
jqt "four results, all ok" '[.results[] | select(.status == "ok") | .transport] == ["shm", "mq", "pty", "pipe"]'
jqt "2000 round trips per run" 'all(.results[].runs[]; .iterations == 2000)'
nothing_left "rr shm,mq,pty,pipe"
run stream -t shm -n 3 -r 2 -f json
is_rc 0 "stream on shm"
jqt "stream shm: 64 KiB x 1000 per batch, every byte counted" \
	'.results[0].status == "ok" and all(.results[0].runs[]; .bytes == 3 * 1000 * 65536)'
nothing_left "stream shm"

# Every pattern on each new transport, both placements, payloads checked.
for tp in shm mq pty; do
	for pl in process thread; do
		run rr -t $tp --req 0,1,100 --resp 1,4k -n 200 -w 10 -r 1 --placement $pl -f json
		is_rc 0 "rr $tp $pl: sizes 0..4k"
		jqt "rr $tp $pl: six ok results" '[.results[] | select(.status == "ok")] | length == 6'
		run stream -t $tp --size 1,8k --count 50 -n 3 -r 1 --placement $pl -f json
		is_rc 0 "stream $tp $pl"
		jqt "stream $tp $pl: all ok" 'all(.results[]; .status == "ok")'
		run bulk -t $tp --total 256k --size 1k,8k -n 3 -r 1 --placement $pl -f json
		is_rc 0 "bulk $tp $pl"
		jqt "bulk $tp $pl: all ok" 'all(.results[]; .status == "ok")'
	done
	nothing_left "patterns on $tp"
done

# shm's two ways of waiting, and a small ring that messages wrap around.
# Spinning wants a CPU per side; on one CPU it still ends, yielding.
SPLIT=""
[ "$(nproc)" -ge 2 ] && SPLIT="--pin split"
run rr -t shm --shm-wait spin $SPLIT -n 2000 -r 2 -f json
is_rc 0 "shm spin ${SPLIT:-on one CPU}"
jqt "shm spin recorded" '.results[0].config.shm_wait == "spin" and .results[0].status == "ok"'
run stream -t shm --shm-size 4k --size 1000 --count 100 -n 3 -r 1 -f json
is_rc 0 "shm with a 4 KiB ring"
jqt "ring size recorded" '.results[0].config.shm_bytes == 4096 and .results[0].status == "ok"'
run stream -t shm --shm-size 4k --size 4k -n 1 -r 1
is_rc 2 "a message larger than the ring: nothing to run"
check "the reason names shm's limit" grep -q "shm can carry (4088 bytes)" "$err"
nothing_left "shm modes"

# Engines: mq and pty have descriptors to poll, shm has none.
run rr -t mq,pty -e blocking,poll -n 200 -r 1 -f json
is_rc 0 "mq and pty under poll"
jqt "four ok results" '[.results[] | select(.status == "ok")] | length == 4'
run rr -t shm,pipe -e poll -n 100 -r 1 -f json
is_rc 0 "poll on shm,pipe: pipe runs"
jqt "shm skipped with a reason" '.skipped[] | select(.what == "poll on shm") | .why | test("file descriptors")'

# mq limits: /proc/sys/fs/mqueue/msgsize_max.
max=$(cat /proc/sys/fs/mqueue/msgsize_max 2>/dev/null || echo 8192)
run rr -t mq,pipe --req $((max + 1)) -n 100 -r 1 -f json
is_rc 0 "an oversized mq request: the others still run"
jqt "mq skipped, naming its limit" ".skipped[0].why | test(\"mq can carry \\\\($max bytes\\\\)\")"
run rr -t mq --req $max --resp $max -n 100 -r 1 -f json
is_rc 0 "mq at msgsize_max ($max)"
run stream -t mq --size $((max * 2)) -n 1
is_rc 2 "mq alone with a size over the limit: exit 2"
check "and says why" grep -q "larger than the largest mq can carry" "$err"
nothing_left "mq limits"

# Serial: no ports here, so the errors (tests/unit/test_serial.c runs it
# over two joined ptys).
run rr -t serial
is_rc 2 "serial without --device: nothing to run"
check "serial without --device says it needs one" grep -q "needs --device" "$err"
run rr -t serial --device /nonexistent/ttyUSB0,/dev/null
is_rc 2 "a missing port: exit 2"
check "names the missing port" grep -q "'/nonexistent/ttyUSB0' does not exist" "$err"
run rr -t serial --device /dev/ptmx,/dev/null
is_rc 2 "/dev/null as a port: exit 2"
check "says it is not a terminal" grep -q "'/dev/null' is not a terminal" "$err"
echo x >"$T/plain"
run rr -t serial --device "$T/plain,/dev/ptmx"
is_rc 2 "a plain file as a port: exit 2"
check "says it is not a terminal" grep -q "plain' is not a terminal" "$err"
run rr -t serial --device /dev/ttyS0
is_rc 2 "one port only: exit 2"
check "asks for two" grep -q "is not two ports" "$err"
run rr -t serial --device /dev/ptmx,/dev/ptmx --baud 12345
is_rc 2 "a non-standard speed: exit 2"
check "names the speed" grep -q "12345 baud" "$err"
run rr -t pipe --device /dev/ptmx,/dev/ptmx
is_rc 2 "--device without -t serial: exit 2"
run rr -q -f json -n 10 -r 1
jqt "the default plan lists serial as skipped" '.skipped[] | select(.what == "transport serial") | .why | test("--device")'
nothing_left "serial errors"

# Socket options: applied, recorded, refused when bad.
run rr -t tcp,unix,udp --sndbuf 64k --rcvbuf 128k --no-nodelay --busy-poll 20 -n 200 -r 1 -f json
if grep -q "refuses SO_BUSY_POLL" "$err"; then
	skip_reason="the kernel refuses SO_BUSY_POLL here"
	run rr -t tcp,unix,udp --sndbuf 64k --rcvbuf 128k --no-nodelay -n 200 -r 1 -f json
fi
is_rc 0 "socket options on tcp, unix, udp"
jqt "sizes recorded" 'all(.results[]; .config.sndbuf == 65536 and .config.rcvbuf == 131072)'
jqt "nodelay off recorded" 'all(.results[]; .config.nodelay == false)'
jqt "what the kernel granted: at least the buffers asked for" \
	'all(.results[]; .socket.sndbuf >= 65536 and .socket.rcvbuf >= 131072)'
jqt "granted TCP_NODELAY off on tcp, null elsewhere" \
	'all(.results[]; if .transport == "tcp" then .socket.nodelay == false else .socket.nodelay == null end)'
[ -z "${skip_reason:-}" ] && jqt "busy poll recorded and granted" \
	'all(.results[]; .config.busy_poll_us == 20 and .socket.busy_poll_us == 20)'
run rr -t pipe,shm -n 10 -r 1 -f json
jqt "no socket, no socket object" 'all(.results[]; has("socket") | not)'
run rr -t tcp --sndbuf 0 -n 10
is_rc 2 "--sndbuf 0: exit 2"
run rr -t tcp --busy-poll -5 -n 10
is_rc 2 "--busy-poll -5: exit 2"
run rr -t shm --shm-wait nap -n 10
is_rc 2 "--shm-wait nap: exit 2"
run rr -t shm --shm-size 3000 -n 10
is_rc 2 "--shm-size 3000: exit 2"
check "says power of two" grep -q "power of two" "$err"
nothing_left "socket options"

# A killed peer and Ctrl-C end the run, report it, and leave nothing.
kill_peer() { # kill_peer TRANSPORT [OPTIONS...]
	local tp=$1 pid child i
	shift
	"$IPCPERF" rr --pin none -t "$tp" "$@" -n 100000000 -w 0 -r 1 -f json >"$out" 2>"$err" &
	pid=$!
	child=$(peer_of $pid)
	sleep 0.3
	if [ -z "$child" ]; then
		ok 1 "$tp $*: found the peer process"
		kill -KILL $pid
		wait $pid
		return
	fi
	kill -KILL "$child"
	for i in $(seq 100); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	kill -0 $pid 2>/dev/null && kill -KILL $pid
	wait $pid
	rc=$?
	is_rc 1 "$tp $*: killed peer gives exit 1 within 10 s"
	jqt "$tp $*: partial, saying how far and that the peer died" \
		'.results[0].status == "partial" and (.results[0].error | test("after [0-9]+ of 100000000 iterations.*peer"))'
	nothing_left "$tp $* after a killed peer"
}

interrupt() { # interrupt SIGNAL TRANSPORT PLACEMENT [OPTIONS...]
	local sig=$1 tp=$2 pl=$3 pid i
	shift 3
	"$IPCPERF" rr --pin none -t "$tp" "$@" -d 60 -r 3 --placement "$pl" -f json >"$out" 2>"$err" &
	pid=$!
	sleep 1.2
	kill -$sig $pid
	for i in $(seq 100); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	kill -0 $pid 2>/dev/null && kill -KILL $pid
	wait $pid
	rc=$?
	is_rc 1 "$sig $tp $pl $*: exit 1 within 10 s"
	jqt "$sig $tp $pl $*: partial, interrupted" \
		'.results[0].status == "partial" and (.results[0].error | test("interrupted"))'
	nothing_left "$sig $tp $pl $*"
}

kill_peer shm
kill_peer shm --shm-wait spin $SPLIT
kill_peer mq
kill_peer pty
interrupt INT shm process
interrupt INT shm thread --shm-wait spin $SPLIT
interrupt TERM mq process
interrupt INT pty thread

done_testing

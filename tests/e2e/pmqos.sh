# SPDX-License-Identifier: MIT
# The CPU latency request (--pm-qos): held while measuring by default and
# recorded in JSON and the table; with off nothing is opened; not held
# (no permission, no device) is recorded, never a failure; after the
# process ends nobody holds it.  A file named by IPCPERF_PM_QOS_DEVICE
# stands in for /dev/cpu_dma_latency where the test must see what was
# written, or who holds it, without depending on what others hold: its
# path is this run's own.  No timing is asserted.
. "$(dirname "$0")/lib.bash"

DEV="$T/cpu_dma_latency.$$"
short=(rr -t pipe -n 200 -w 20 -r 1 -q)

# holders PATH: PIDs of the processes that have PATH open (any process).
holders() {
	local l
	for l in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$l" 2>/dev/null)" = "$1" ] && { l=${l#/proc/}; echo "${l%%/*}"; }
	done | sort -u
}

# watch_fd PID PATH: 0 as soon as PID has PATH open, 1 if PID ends first.
watch_fd() {
	local l
	while kill -0 "$1" 2>/dev/null; do
		for l in /proc/"$1"/fd/*; do
			[ "$(readlink "$l" 2>/dev/null)" = "$2" ] && return 0
		done
		sleep 0.02
	done
	return 1
}

# The default: asked for 0 us, and the outcome recorded.
run "${short[@]}" -f json
is_rc 0 "rr by default"
jqt "host.pm_qos: a request of 0 us, held or why not" \
	'.host.pm_qos.request_us == 0 and (.host.pm_qos.state | IN("held", "denied", "absent", "failed")) and ((.host.pm_qos.state == "held") == (.host.pm_qos | has("error") | not))'
if [ "$(id -u)" = 0 ] && [ -c /dev/cpu_dma_latency ]; then
	jqt "as root with the device: held, the value before it known" \
		'.host.pm_qos.state == "held" and .host.pm_qos.before_us >= 0 and .host.pm_qos.before_us <= 2000000000'
else
	jqt "without root or the device: not held, and why" \
		'(.host.pm_qos.state | IN("denied", "absent")) and (.host.pm_qos.error | length) > 0'
fi

if [ -r /sys/devices/system/cpu/cpuidle/current_driver ]; then
	drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver)
	check "the kernel's cpuidle driver is recorded ($drv)" \
		jq -e --arg d "$drv" '.host.pm_qos.idle_driver == $d' "$out"
fi

# The stand-ins: what is written, and the table's line.  No driver file
# unless a test names one: the line then depends on the request alone.
export IPCPERF_CPUIDLE_DRIVER_FILE="$T/no-such-driver-file"
: >"$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" -f json
is_rc 0 "rr with the stand-in device"
jqt "stand-in: held at 0 us" '.host.pm_qos == {"state": "held", "request_us": 0}'
check "stand-in: a 32-bit 0 was written" sh -c "[ \"\$(od -An -tx1 '$DEV' | tr -d ' \n')\" = 00000000 ]"
: >"$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" --pm-qos 25us
check "--pm-qos 25: the value written is 25, 32-bit" sh -c "[ \"\$(od -An -tu4 '$DEV' | tr -d ' \n')\" = 25 ]"
check "table: the idle line says the request was held" grep -q "^idle: the CPUs were kept out of idle states slower than 25 µs" "$out"
: >"$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}"
check "table: at 0 the CPUs polled" grep -q "^idle: the CPUs polled instead of halting while measuring" "$out"

# A cpuidle driver reads the request; without one ("none") a held request
# changes nothing, and the line says so rather than claim the CPUs polled.
printf 'haltpoll\n' >"$T/driver"
: >"$DEV"
IPCPERF_CPUIDLE_DRIVER_FILE=$T/driver IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" -f json -o "$T/drv.json"
jqt "a driver: recorded beside the request" '.host.pm_qos == {"state": "held", "request_us": 0, "idle_driver": "haltpoll"}'
run_default report "$T/drv.json"
check "a driver: the idle line as before" grep -q "^idle: the CPUs polled instead of halting while measuring" "$out"
printf 'none\n' >"$T/driver"
: >"$DEV"
IPCPERF_CPUIDLE_DRIVER_FILE=$T/driver IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" -f json -o "$T/drv.json"
jqt "no driver: recorded as none" '.host.pm_qos.idle_driver == "none" and .host.pm_qos.state == "held"'
run_default report "$T/drv.json"
check "no driver: the idle line says the request changed nothing" grep -q "^idle: the PM QoS request (0 µs on /dev/cpu_dma_latency) was held, but this kernel has no cpuidle driver to read it" "$out"
check "no driver: and does not claim the CPUs polled" sh -c "! grep -q 'polled instead of halting' '$out'"
run_default report -f json "$T/drv.json"
jqt "no driver: read back" '.host.pm_qos.idle_driver == "none"'
printf 'a\033[2Jb\n' >"$T/driver"
: >"$DEV"
IPCPERF_CPUIDLE_DRIVER_FILE=$T/driver IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" -f json
jqt "a driver name with control bytes is not recorded" '.host.pm_qos | has("idle_driver") | not'

# Read back: report keeps it, in JSON and under the table.
: >"$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" --pm-qos 7 -f json -o "$T/doc.json"
run_default report -f json "$T/doc.json"
jqt "report -f json: host.pm_qos read back" '.host.pm_qos == {"state": "held", "request_us": 7}'
run_default report "$T/doc.json"
check "report: the idle line from the document" grep -q "^idle: the CPUs were kept out of idle states slower than 7 µs" "$out"
run_default report -f html "$T/doc.json"
check "report -f html: the idle states among the host's facts" grep -q "<th>idle states</th><td>the CPUs were kept out of idle states slower than 7 µs" "$out"
jq 'del(.host.pm_qos)' "$T/doc.json" >"$T/old.json"
run_default report -f html "$T/old.json"
check "report -f html: a document without it has no idle row" bash -c '! grep -q "idle states</th>" "$1"' _ "$out"
jq '.host.pm_qos.state = "sometimes"' "$T/doc.json" >"$T/bad.json"
run_default report "$T/bad.json"
is_rc 2 "report: an unknown pm_qos state is refused"
rm -f "$T/doc.json" "$T/bad.json"

# off: nothing opened, nothing written, recorded as off.
: >"$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" --pm-qos off -f json
is_rc 0 "--pm-qos off"
jqt "off: recorded as off, no request" '.host.pm_qos == {"state": "off", "request_us": null}'
check "off: nothing written to the device" test ! -s "$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV run "${short[@]}" --pm-qos off
check "table: off says the machine's own policy" grep -q "^idle: the machine's own idle policy (--pm-qos off)" "$out"

# Held while measuring, by ipcperf, and by nobody once it has ended (a
# peer that kept the inherited descriptor would keep the request).
: >"$DEV"
IPCPERF_PM_QOS_DEVICE=$DEV "$IPCPERF" rr -t pipe -d 200ms -w 10 -r 1 -q \
	>"$out" 2>"$err" &
pid=$!
watch_fd $pid "$DEV"
ok $? "held: ipcperf has the device open while it measures"
wait $pid
rc=$?
is_rc 0 "held: the measurement ends well"
left=$(holders "$DEV")
[ -z "$left" ]
ok $? "released: no process holds the device after ipcperf ended${left:+ (held by $left)}"
IPCPERF_PM_QOS_DEVICE=$DEV "$IPCPERF" rr -t pipe -d 200ms -w 10 -r 1 -q \
	--pm-qos off >"$out" 2>"$err" &
pid=$!
! watch_fd $pid "$DEV"
ok $? "off: ipcperf never opens the device"
wait $pid
if [ "$(id -u)" = 0 ] && [ -c /dev/cpu_dma_latency ]; then
	"$IPCPERF" rr -t pipe -d 200ms -w 10 -r 1 -q >"$out" 2>"$err" &
	pid=$!
	watch_fd $pid /dev/cpu_dma_latency
	ok $? "as root: ipcperf holds /dev/cpu_dma_latency while it measures"
	wait $pid
	# Others may hold it too: only our own processes are checked.
	left=$(for p in $(holders /dev/cpu_dma_latency); do
		grep -qa "$TAG" /proc/"$p"/cmdline 2>/dev/null && echo "$p"; done)
	[ -z "$left" ]
	ok $? "as root: none of ours holds it after the end${left:+ ($left)}"
fi

# Neither the device nor an empty file of ours: not written, not waited
# on (a FIFO has no writer), recorded as failed.
printf keep >"$T/full"
IPCPERF_PM_QOS_DEVICE=$T/full run "${short[@]}" -f json
is_rc 0 "a file with content for the device: exit 0"
jqt "a file with content: failed, measured" '.host.pm_qos.state == "failed" and .results[0].status == "ok"'
[ "$(cat "$T/full")" = keep ]; ok $? "and its content is left as it was"
mkfifo "$T/fifo"
IPCPERF_PM_QOS_DEVICE=$T/fifo timeout 20 "$IPCPERF" "${short[@]}" -f json >"$out" 2>"$err"
rc=$?
is_rc 0 "a FIFO for the device: no hang, exit 0"
jqt "a FIFO: failed, measured" '.host.pm_qos.state == "failed" and .results[0].status == "ok"'
rm -f "$T/full" "$T/fifo"

# Not held: recorded with the reason, measured anyway, exit 0.
IPCPERF_PM_QOS_DEVICE=$T/no-such-device run "${short[@]}" -f json
is_rc 0 "no device: exit 0"
jqt "no device: absent, measured" '.host.pm_qos.state == "absent" and .host.pm_qos.request_us == 0 and .results[0].status == "ok"'
IPCPERF_PM_QOS_DEVICE=$T/no-such-device run "${short[@]}"
check "table: no device said" grep -q "^idle: the machine's own idle policy: the PM QoS request (0 µs) was not held, this system has no" "$out"
if [ "$(id -u)" = 0 ] && [ -c /dev/cpu_dma_latency ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	# As nobody: a TMPDIR nobody may write, the real device.
	nb=$(mktemp -d "$T/nobody.XXXXXX")
	chmod 1777 "$nb" "$T"
	TMPDIR=$nb setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IPCPERF" "${short[@]}" -f json >"$out" 2>"$err"
	rc=$?
	is_rc 0 "unprivileged: exit 0"
	jqt "unprivileged: denied, with the reason, measured" \
		'.host.pm_qos.state == "denied" and (.host.pm_qos.error | test("ermission")) and .results[0].status == "ok"'
	rm -rf "$nb"
	chmod 700 "$T"
else
	echo "ok $((tap_n += 1)) # skip unprivileged run: needs root, the device and setpriv"
fi

# Remote mode: the server's test process holds its own request, and its
# fingerprint says so; server --pm-qos off does not.
for sv in 0 off; do
	: >"$DEV"
	: >"$T/log"
	IPCPERF_PM_QOS_DEVICE=$DEV "$IPCPERF" server --listen 127.0.0.1:0 --once \
		--pm-qos $sv -f json >"$T/log" 2>"$T/serr" &
	spid=$!
	addr=
	for _ in $(seq 100); do
		addr=$(jq -r 'select(.event == "listening") | .address' "$T/log" 2>/dev/null | head -n 1)
		[ -n "$addr" ] && break
		sleep 0.05
	done
	IPCPERF_PM_QOS_DEVICE=$T/no-such-device run rr --remote "$addr" -t tcp \
		-n 200 -w 10 -r 1 -q -f json
	is_rc 0 "remote, server --pm-qos $sv: exit 0"
	if [ $sv = 0 ]; then
		jqt "remote: the server held 0 us, the client could not" \
			'.results[0].peer.host.pm_qos == "held" and .results[0].peer.host.pm_qos_request_us == 0 and .host.pm_qos.state == "absent"'
		check "remote: the server wrote its request" sh -c "[ \"\$(od -An -tx1 '$DEV' | tr -d ' \n')\" = 00000000 ]"
	else
		jqt "remote: server --pm-qos off said" \
			'.results[0].peer.host.pm_qos == "off" and (.results[0].peer.host | has("pm_qos_request_us") | not)'
		check "remote: server --pm-qos off wrote nothing" test ! -s "$DEV"
	fi
	ends_within $spid 5 "remote: the --once server ends"
done
left=$(holders "$DEV")
[ -z "$left" ]
ok $? "remote: no process holds the device after the server ended${left:+ ($left)}"

# Bad values: one line naming the value, exit 2.
for v in x -1 3000000000 5ms 1.5; do
	run "${short[@]}" --pm-qos "$v"
	is_rc 2 "--pm-qos $v: exit 2"
	check "--pm-qos $v: named" grep -q -- "--pm-qos: .*$v" "$err"
done
run_default rr --help
check "--help describes --pm-qos" grep -q -- "--pm-qos US|off" "$out"
run_default server --help
check "server --help has --pm-qos" grep -q -- "--pm-qos US|off" "$out"
run compare --pm-qos 0
is_rc 2 "--pm-qos does not apply to compare"

no_leftovers "pm-qos"
done_testing

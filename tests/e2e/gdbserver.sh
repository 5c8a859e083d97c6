# SPDX-License-Identifier: MIT
# rr and replay against a live gdbserver (Debian's, installed by
# scripts/deps.sh; the test is skipped, saying so, only without it),
# debugging a program the test compiles: the matrix 0..1024 x 0..1024 with
# every reply checked, its buffer given or found below the stack pointer,
# ipcperf's own stub side by side, a gdbserver killed mid-run (the case
# partial, exit 1), a replay of each trace in traces/ against gdbserver
# running the traced program, and no gdbserver or target left behind.
. "$(dirname "$0")/lib.bash"

if ! command -v gdbserver >/dev/null; then
	sh scripts/deps.sh test >/dev/null 2>&1
	command -v gdbserver >/dev/null || {
		echo "1..0 # skip gdbserver is not installed and could not be (scripts/deps.sh test, as root)"
		exit 77
	}
fi
command -v cc >/dev/null && command -v nm >/dev/null || {
	echo "1..0 # skip no cc or nm to build the target"
	exit 77
}

# gs [--OPTION...] [PROGRAM ARGS...]: start gdbserver on a loopback port
# the kernel chooses (its options before the address, as it wants them),
# under the command in gs_wrap if any (taskset -c 0); sets gs (its pid)
# and port.
gs=
gs_wrap=()
gs() {
	local opts=()
	while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
		opts+=("$1")
		shift
	done
	: >"$T/gs.log"
	"${gs_wrap[@]}" gdbserver "${opts[@]}" 127.0.0.1:0 "$@" >"$T/gs.log" 2>&1 &
	gs=$!
	port=
	for _ in $(seq 100); do
		port=$(sed -n 's/^Listening on port \([0-9]*\)$/\1/p' "$T/gs.log")
		[ -n "$port" ] && return 0
		sleep 0.05
	done
	return 1
}

# gs_end: gdbserver (and its target) gone, one way or another.
gs_end() {
	kill "$gs" 2>/dev/null
	wait "$gs" 2>/dev/null
}

# A test that fails half-way still leaves no gdbserver (nor its target,
# which dies with it) behind; then lib.bash's own cleanup.
trap '[ -n "$gs" ] && kill -KILL "$gs" 2>/dev/null; pkill -KILL -f "$TAG" 2>/dev/null; rm -rf "$T"' EXIT

cc -O0 -no-pie -o "$T/stub_target" tests/target/stub_target.c
ok $? "the target compiles"
addr=$(nm "$T/stub_target" | awk '$3 == "ipcperf_target_buf" {print $1}')
[ -n "$addr" ]
ok $? "nm finds its buffer ($addr)"

gs "$T/stub_target"
ok $? "gdbserver listens (port $port)"
url="gdb://127.0.0.1:$port"

run rr --target "$url" --req 0..1024 --resp 0..1024 -n 20 -w 2 -r 1 -f json
is_rc 0 "the seed's matrix against gdbserver"
jqt "12 x 12 cases, all ok" \
	'(.results | length) == 144 and ([.results[] | select(.status == "ok" and .pattern == "rr-stub")] | length) == 144'
jqt "every reply checked, nothing wrong" \
	'[.results[].summary | select(.stub_errors == 0 and .bad_frames == 0 and .noise_bytes == 0 and .timeouts == 0 and .mismatches == 0)] | length == 144'
jqt "no-ack mode by default, as gdb negotiates" \
	'[.results[] | select(.summary.stub_noack == 1 and .acks == false)] | length == 144'
jqt "gdbserver's packet size recorded" \
	'[.results[] | select(.summary.stub_packet_size > 1024)] | length == 144'
jqt "replies of the asked size (m: even sizes)" \
	'[.results[] | select(.resp_size >= 2) | select(.summary.read_payload == .resp_size)] | length == 120'

run rr --target "$url?addr=0x$addr" --ack --req 1k --resp 1k -n 50 -r 2 -f json
is_rc 0 "the program's own buffer, with acks, on the same gdbserver"
jqt "ok, acks recorded" '.results[0].status == "ok" and .results[0].acks == true'
jqt "the features the session used: acks, X, multiprocess" \
	'.results[0].summary | .stub_noack == 0 and .stub_binary_write == 1 and .stub_multiprocess == 1 and (.stub_binary_read == 0 or .stub_binary_read == 1)'

run rr --target "ipcperf,$url" --req 0,1k --resp 1k -n 100 -w 10 -r 3
is_rc 0 "ipcperf's own stub and gdbserver side by side"
check "the side-by-side names both" grep -q "^side by side: ipcperf (A) and $url (B)" "$out"
check "the difference per packet" grep -q "B-A per packet" "$out"
check "the stub's packet size in the table" grep -q "pkt size.*18.0 KiB" <(tr '\n' ' ' <"$out")
check "the heading says one end was already running" grep -q "peer in a separate process or already running" "$out"

# By default ipcperf measures its own cases on one CPU and on two; a stub
# it did not start it cannot place, so its own stub is then measured as
# that one is, and every case pairs.
run_default rr --target "ipcperf,$url" --req 0,1k --resp 1k -n 100 -w 10 -r 3 -f json
is_rc 0 "the side by side with ipcperf's default placement"
jqt "... both stubs' cases at the scheduler's choice, two each" \
	'(.results | length) == 4 and all(.results[]; .cpus == null)'
run_default rr --target "ipcperf,$url" --req 0,1k --resp 1k -n 100 -w 10 -r 3
is_rc 0 "... in the table"
check "... every case paired" grep -q "B-A per packet" "$out"
check "... none left unpaired" bash -c "! grep -q 'no case measured against both' '$out'"
check "... two cells, each with its B-A" test "$(grep -c '^rr-stub tcp req=[01]k* resp=1k framing=gdb-rsp .*[+-][0-9.]* µs' "$out")" = 2
check "... the placement said" grep -q "^placement: both stubs at the scheduler's choice" "$out"

# With the stub pinned (taskset) and --stub-cpu, both on one CPU and on two.
if command -v taskset >/dev/null; then
	gs_end
	gs_wrap=(taskset -c 0)
	gs "$T/stub_target"
	gs_wrap=()
	url="gdb://127.0.0.1:$port"
	run_default rr --target "ipcperf,$url" --stub-cpu 0 --req 1k --resp 1k -n 100 -w 10 -r 3 -f json
	is_rc 0 "--stub-cpu 0 with gdbserver pinned to CPU 0"
	if [ "$(nproc)" -ge 2 ]; then
		jqt "... each stub on one CPU and on two, the stub's CPU 0" \
			'(.results | length) == 4 and ([.results[] | select(.cpus == 1 and .pin.client == 0 and .pin.server == 0)] | length) == 2 and ([.results[] | select(.cpus == 2 and .pin.client != 0 and .pin.server == 0)] | length) == 2'
	else
		jqt "... each stub on its one CPU" \
			'(.results | length) == 2 and all(.results[]; .cpus == 1 or .cpus == null)'
	fi
	run_default rr --target "ipcperf,$url" --stub-cpu 0 --req 1k --resp 1k -n 100 -w 10 -r 3
	check "... paired per placement, the stub's CPU checked" grep -q "^placement: the stub on CPU 0 as --stub-cpu says (its affinity checked)" "$out"
	if [ "$(nproc)" -ge 2 ]; then
		pinned=$gs
		gs "$T/stub_target"
		run_default rr --target "gdb://127.0.0.1:$port" --stub-cpu 0 -n 10
		is_rc 2 "--stub-cpu 0 for a gdbserver that may run on any CPU: refused"
		check "... naming its pid" grep -q "(pid $gs) may run on [0-9]* CPUs, not CPU 0 alone" "$err"
		gs_end
		gs=$pinned
	fi
fi
run rr --target "$url" --stub-cpu 0 --pin none -n 10
is_rc 2 "--stub-cpu with --pin none: refused"
run_default rr --target ipcperf --stub-cpu 0 -n 10
is_rc 2 "--stub-cpu without a stub elsewhere: refused"
check "... saying so" grep -q "no stub elsewhere" "$err"
run_default rr --target "$url" --stub-cpu 4096 -n 10
is_rc 2 "--stub-cpu of no CPU: refused"
check "... naming it" grep -q "4096" "$err"
run_default rr --target "$url" --stub-cpu 0 --pin 0,1 -n 10
is_rc 2 "--stub-cpu 0 and --pin 0,1 disagree: refused"
check "... saying so" grep -q "disagree\|not CPU 0 alone" "$err"

run rr --target "$url?addr=0x10" -n 10 -r 1 -f json
is_rc 1 "a buffer gdbserver cannot read: the case fails"
jqt "... saying where" '.results[0].status == "error" and (.results[0].error | test("0x10"))'
kill -0 "$gs" 2>/dev/null
ok $? "gdbserver is still there after all that"

# Killed in the middle of a run: the runs before it stand.
"$IPCPERF" rr --target "$url" --req 64 --resp 64 -n 5000 -w 10 -r 40 -f json \
	>"$out" 2>"$err" &
cl=$!
sleep 1.5
kill -KILL "$gs"
wait "$gs" 2>/dev/null
ends_within "$cl" 20 "a client whose gdbserver died ends"
is_rc 1 "... with exit 1"
jqt "the case is partial" '.results[0].status == "partial" and (.results[0].runs | length) >= 1'
check "the error names the stub" grep -q "stub\|connection\|closed" "$err"

# A stub that dies while the replay waits out a recorded pause: the wait
# sees the connection close and the case fails at once, not 30 s later.
cat >"$T/pause.trace" <<'EOF'
> @0 "+$?#3f"
< "+"
< "$T05#b9"
> @0.001 "+"
> @30 "$qC#b4"
< "$QCp1.1#94"
EOF
gs "$T/stub_target"
"$IPCPERF" replay --target "gdb://127.0.0.1:$port" -r 1 "$T/pause.trace" -f json \
	>"$out" 2>"$err" &
cl=$!
# Killed once the replay is connected (a slow build may take a while to
# get there) and has had time to reach the pause.
for _ in $(seq 200); do
	grep -q "^Remote debugging from" "$T/gs.log" && break
	sleep 0.05
done
sleep 0.5
kill -KILL "$gs"
wait "$gs" 2>/dev/null
ends_within "$cl" 10 "a replay whose gdbserver died during a 30 s pause ends"
is_rc 1 "... with exit 1"
jqt "... the case failed, saying the stub closed the connection" \
	'.results[0].pattern == "replay" and .results[0].status == "error" and (.results[0].error | test("closed"))'

# Each trace against gdbserver running the program it was recorded with.
cc -g -O0 -static -o "$T/target" traces/target.c
ok $? "traces/target.c compiles statically"
replay_one() { # replay_one TRACE GDBSERVER-ARGS...
	local trace=$1
	shift
	gs "$@" || { ok 1 "$trace: gdbserver listens"; return; }
	run replay --target "gdb://127.0.0.1:$port" -r 1 "$trace" -f json
	is_rc 0 "$trace against gdbserver"
	jqt "$trace: replayed, every reply answered" \
		'.results[0].status == "ok" and .results[0].summary.replies_matched + .results[0].summary.replies_mismatched > 0'
	jqt "$trace: nine in ten replies or more of the recorded shape" \
		'.results[0].summary | .replies_matched >= 0.9 * (.replies_matched + .replies_mismatched)'
	gs_end
}
replay_one traces/stub-multi.log --multi
replay_one traces/gdbserver-true.log /bin/true
replay_one traces/breakpoint.log "$T/target"

# Several replays against one gdbserver: each trace kills its process at
# the end, and ipcperf starts the program again (extended mode, vRun)
# before the next, untimed, and once more after the last.
cp traces/breakpoint.log "$T/again.log"
gs "$T/target"
run replay --target "gdb://127.0.0.1:$port" -r 3 traces/breakpoint.log "$T/again.log" -f json
is_rc 0 "replay -r 3 of two traces against one gdbserver"
jqt "... every run of both replayed" \
	'(.results | length) == 2 and all(.results[]; .status == "ok" and (.runs | length) == 3)'
jqt "... the same bytes to the stub in every run (the restart is not counted)" \
	'all(.results[]; [.runs[].bytes_to_stub] | unique | length == 1)'
jqt "... breakpoint.log's 161 replies answered every time, nine in ten or more of their shape" \
	'.results[0].summary | .replies_matched + .replies_mismatched + .replies_cpu_dependent == 3 * 161 and .replies_matched >= 0.9 * 3 * 161'
kill -0 "$gs" 2>/dev/null
ok $? "... gdbserver still there"
pgrep -P "$gs" >/dev/null
ok $? "... with a process stopped for the next client, as it was found"
run rr --target "gdb://127.0.0.1:$port" --req 64 --resp 64 -n 20 -r 1 -f json
is_rc 0 "rr on the same gdbserver after the replays"
gs_end

# A trace of another program (gdbserver-true.log reads /bin/true's
# memory, at addresses the target does not have): more than one reply in
# ten unlike the trace's is no longer its conversation.
gs "$T/target"
run replay --target "gdb://127.0.0.1:$port" -r 3 traces/gdbserver-true.log -f json
is_rc 1 "a trace of another program against gdbserver: exit 1"
jqt "... partial after its first run, saying it diverged" \
	'.results[0].status == "partial" and (.results[0].runs | length) == 1 and (.results[0].error | test("diverged: [0-9]+ of [0-9]+ replies"))'
jqt "... and which reply first" \
	'.results[0].first_mismatch | test("^line [0-9]+: m[0-9a-f]+,[0-9a-f]+: the stub answered error")'
gs_end

# breakpoint.log was recorded on a CPU with AVX-512: on one without it the
# target description is shorter, and its last reads come back short or
# as E01.  Those replies (qXfer:features:read, g, G, p, P) are counted
# apart as the CPU's doing, so this holds on any x86-64 or arm64 CPU.
gs "$T/target"
run replay --target "gdb://127.0.0.1:$port" -r 1 --max-packet 256 traces/breakpoint.log -f json
is_rc 0 "a replay with a smaller max packet"
jqt "more requests, the replies still of their shape" \
	'.results[0].summary.pieces_added > 0 and .results[0].summary.replies_mismatched == 0'
gs_end

# rsp_sum PAYLOAD: its checksum, two hex digits.
rsp_sum() {
	local s=0 c k
	for ((k = 0; k < ${#1}; k++)); do
		printf -v c %d "'${1:k:1}"
		s=$(((s + c) % 256))
	done
	printf %02x "$s"
}
# The same trace as a CPU without AVX-512 would answer it (its description
# read past its end: E01 where the trace has the last piece), and one
# request gdbserver does not know (qTfZ: empty where the trace has data).
xml='qXfer:features:read:target.xml:9000,1000'
sed -e "s/^w \$qXfer:features:read:target.xml:3000,1000#9f\$/w \$$xml#$(rsp_sum "$xml")/" \
	-e "s/^w \$qTfV#81\$/w \$qTfZ#$(rsp_sum qTfZ)/" \
	traces/breakpoint.log >"$T/other-cpu.log"
[ "$(diff traces/breakpoint.log "$T/other-cpu.log" | grep -c '^>')" = 2 ]
ok $? "a trace with two requests changed"
gs "$T/target"
run replay --target "gdb://127.0.0.1:$port" -r 1 "$T/other-cpu.log" -f json
is_rc 0 "its replay: two replies unlike the trace's, still ok"
jqt "... the description's read counted apart, qTfZ as a mismatch" \
	'.results[0].status == "ok" and (.results[0].summary | .replies_cpu_dependent == 1 and .replies_mismatched == 1)'
jqt "... first_mismatch names the request, what came and what was recorded" \
	'.results[0].first_mismatch | test("^line [0-9]+: qTfZ: the stub answered empty \\(0 bytes.*where the trace has other \\([0-9]+ bytes\\)$")'
gs_end
gs "$T/target"
run replay --target "gdb://127.0.0.1:$port" -r 1 "$T/other-cpu.log"
is_rc 0 "... and in the table"
check "... under it, the first mismatch" grep -q "^replay tcp other-cpu .*: first mismatch: line [0-9]*: qTfZ: the stub answered empty" "$out"
gs_end
gs "$T/target"
run replay --target "gdb://127.0.0.1:$port" -r 1 "$T/other-cpu.log" -f json -o "$T/other-cpu.json"
run report "$T/other-cpu.json"
is_rc 0 "... its JSON rendered again"
check "... with the first mismatch under the table" grep -q "^replay tcp other-cpu .*: first mismatch: line [0-9]*: qTfZ:" "$out"
gs_end

# Over an emulated line, a live stub whose replies are not the recorded
# bytes (qTfZ answered empty, 36 bytes fewer than the trace's qTfV): the
# bytes each way and the link's own time are those that crossed.
sed -e "s/^w \$qTfV#81\$/w \$qTfZ#$(rsp_sum qTfZ)/" traces/stub-multi.log >"$T/multi-z.log"
gs --multi
run replay --target "gdb://127.0.0.1:$port" --link serial-115200 -r 1 "$T/multi-z.log" -f json
is_rc 0 "a live replay over serial-115200"
jqt "... c2s and s2c as they crossed, not the recording's" \
	'.results[0] | .wire_bytes_c2s == .summary.bytes_to_stub and .wire_bytes_s2c == .summary.bytes_from_stub and .wire_bytes_s2c == .bytes_s2c - 36 and .wire_bytes_c2s == .bytes_c2s'
jqt "... the link time from those bytes: (c2s + s2c) x 10 / 115200" \
	'.results[0] | .link_ns == (((.wire_bytes_c2s + .wire_bytes_s2c) * 10 * 1e9 / 115200) | round)'
jqt "... which the replay took longer than" \
	'.results[0] | .summary.elapsed_ns > .link_ns'
gs_end

# A real gdb's log, made now with gdb's own defaults (sysroot "target:",
# so gdb reads the program through vFile with a setfs of the traced
# process), replayed against a fresh gdbserver: every process-specific
# field made the live one (docs/replay.md lists them), every reply of
# its shape.
if command -v gdb >/dev/null; then
	gs "$T/target"
	timeout 60 gdb -nx -batch -ex "set remotelogfile $T/real.log" \
		-ex "target remote 127.0.0.1:$port" -ex 'break work' \
		-ex 'continue' -ex 'bt' -ex 'print i' -ex 'kill' \
		"$T/target" >"$T/gdb.out" 2>&1
	ok $? "gdb debugs the target through gdbserver, logging"
	gs_end
	grep -q '^w \$vFile:setfs:[1-9a-f][0-9a-f]*#' "$T/real.log"
	ok $? "... its log names the traced process in vFile:setfs"
	gs "$T/target"
	run replay --target "gdb://127.0.0.1:$port" -r 1 "$T/real.log" -f json
	is_rc 0 "that log replayed against a fresh gdbserver"
	jqt "... ok, every reply of its shape, the ids made the live ones" \
		'.results[0].status == "ok" and (.results[0].summary | .replies_matched > 100 and .replies_mismatched == 0 and .packets_rewritten >= 3)'
	jqt "... the program's file read through vFile as gdb read it" \
		'.results[0].summary.bytes_from_stub > 0.9 * .results[0].bytes_s2c'
	gs_end
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip gdb is not installed: no real log made here"
fi

sleep 0.3
left=$(pgrep -f "$T/" | head -n 3)
[ -z "$left" ]
ok $? "no gdbserver or target process left"
no_leftovers "gdbserver"
done_testing

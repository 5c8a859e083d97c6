# SPDX-License-Identifier: MIT
# --explain: where explain cannot run (simulated by IPCPERF_EXPLAIN_OFF),
# one line says why and the result is as without it, exit status too.
# As root with BPF: the phases of a round trip add up to the measured mean
# within a tolerance, the JSON follows its contract, a known cost shows up
# where it belongs (the peer's 5 us sleep in the server's time, a CPU hog
# on the server's CPU as the task it waited behind, --pm-qos off in the
# wake-ups' IPI and idle exit), and SIGKILL leaves no BPF program behind.  No speed is asserted.
. "$(dirname "$0")/lib.bash"

short=(rr -t pipe -n 2000 -w 200 -r 3)

# The unavailable path, the same everywhere.
IPCPERF_EXPLAIN_OFF=1 run "${short[@]}" --explain
is_rc 0 "rr --explain where explain is off exits 0"
check "one line says why" test "$(grep -c '^explain: unavailable: disabled by IPCPERF_EXPLAIN_OFF$' "$out")" = 1
check "and the table is printed" grep -q '^pipe ' "$out"
check "nothing on stderr" test ! -s "$err"
IPCPERF_EXPLAIN_OFF=1 run "${short[@]}" --explain -f json
is_rc 0 "... with -f json too"
jqt "explain: available false and why, in every result" \
	'(.results | length) > 0 and all(.results[]; .explain.available == false and (.explain.why | test("IPCPERF_EXPLAIN_OFF")))'
run "${short[@]}" --no-explain-flagged -f json
jqt "without --explain or its second pass, no explain object" \
	'(.results | length) > 0 and all(.results[]; has("explain") | not)'

# --explain-flagged where explain cannot run: the result as without it.
IPCPERF_EXPLAIN_OFF=1 run rr -t pipe --pin same -n 2000 -w 200 -r 6 --ci 95,0.001 --explain-flagged -f json
is_rc 0 "--explain-flagged where explain is off exits 0"
jqt "... flagged unstable, no explain object, no second pass said" \
	'(.results | length) > 0 and all(.results[]; (has("explain") | not) and any(.flags[]; .flag == "unstable" and (.why | test("second pass") | not)))'
run rr -t pipe -n 20 -w 2 -r 1 --no-explain-flagged
is_rc 0 "rr takes --no-explain-flagged (its default has the pass)"
run stream -t pipe -n 2 -r 1 --no-explain-flagged
is_rc 2 "--no-explain-flagged is the quick suite's and rr's alone"

# A saved explanation is read back: re-rendered, as JSON it is the same
# object, and as a table its phases are printed; a bad one is named.
# Made with jq, so that this holds where BPF is not available too.
run "${short[@]}" -r 1 -f json
jq '.results[0].explain = {available: true, measured_ns: 5000, sum_ns: 5100,
	window_ns: 5050, cause: "the slower 2 of 6 runs took 1 µs more",
	phases: [{name: "user", side: "client", ns: 3000,
	share: 0.6}, {name: "wake-up: run queue", side: "server", ns: 2100,
	share: 0.42, p99_ns: 9000, behind: "hog (pid 42)"}, {name:
	"unexplained", side: "kernel", ns: -100, share: -0.02}], others:
	[{comm: "hog", pid: 42, ns: 1500}], migrations: {client: 1, server: 2}}' \
	"$out" >"$T/x.json"
run report -f json "$T/x.json"
is_rc 0 "report reads a saved explanation"
jq -S '.results[0].explain' "$T/x.json" >"$T/x.want"
jq -S '.results[0].explain' "$out" >"$T/x.got" 2>/dev/null
check "... and writes the same explain object back" cmp -s "$T/x.want" "$T/x.got"
run report "$T/x.json"
check "... and the table prints its phases, the residue and the others" \
	sh -c "grep -q 'server  wake-up: run queue .*behind hog (pid 42)' '$out' &&
		grep -q 'kernel  unexplained' '$out' && grep -q 'hog (pid 42)' '$out'"
check "... and the cause of the runs' spread" \
	grep -q "^  the runs' spread: the slower 2 of 6 runs took 1 µs more$" "$out"
jq '.results[0].explain.phases[0].side = "bogus"' "$T/x.json" >"$T/bad.json"
run report "$T/bad.json"
is_rc 2 "a phase of an unknown side is refused"
check "... naming the field" grep -q "explain.phases\[0\].side: 'bogus'" "$err"
jq '.results[0].explain.second_pass = 1000000000' "$T/x.json" >"$T/bad.json"
run report "$T/bad.json"
is_rc 2 "a second pass of more runs than --max-runs allows is refused"
check "... naming the field" grep -q "explain.second_pass: more runs than --max-runs allows" "$err"

# Is BPF here?  The program loads or says why not.
run rr -t pipe -n 200 -w 20 -r 1 --explain -f json
why=$(jq -r '.results[0].explain.why // empty' "$out" 2>/dev/null)
if [ "$(jq -r '.results[0].explain.available' "$out" 2>/dev/null)" != true ]; then
	is_rc 0 "--explain where BPF is not available exits 0"
	check "it says why" test -n "$why"
	echo "# explain is not available here: $why"
	for what in "phases add up" "second pass" "peer stall" "CPU hog" "SIGKILL"; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip $what: explain unavailable ($why)"
	done
	done_testing
	exit
fi

# The phases add up to the measured mean: |unexplained| within 10% of it
# (or 1 us): the kernel's window also holds the few instructions between
# two timed round trips, and a preemption there.
for tp in pipe unix tcp udp; do
	run rr -t "$tp" -n 3000 -w 300 -r 3 --explain -f json
	is_rc 0 "rr -t $tp --explain"
	jqt "$tp: explain follows the contract" \
		'(.results | length) > 0 and all(.results[]; .explain.available == true and (.explain.measured_ns > 0) and (.explain.phases | length) > 1 and all(.explain.phases[]; (.name | type) == "string" and (.side | IN("client", "server", "kernel")) and (.ns | type) == "number" and (.share | type) == "number") and (.explain.others | type) == "array")'
	jqt "$tp: phases, unexplained included, add up to measured_ns" \
		'all(.results[].explain; ((([.phases[].ns] | add) - .measured_ns) | fabs) <= 2 + (.phases | length))'
	jqt "$tp: unexplained within 10% of the mean (or 1 us)" \
		'all(.results[].explain; ([.phases[] | select(.name == "unexplained") | .ns][0] | fabs) <= ([.measured_ns * 0.10, 1000] | max))'
	jqt "$tp: the client's system calls are seen" \
		'all(.results[].explain; any(.phases[]; .side == "client" and (.name | IN("send", "receive"))))'
done

# --explain-flagged: a case whose runs' spread is flagged (a target of
# 0.001% that 6 runs cannot meet) is run again, explained; its runs and
# figures stay the measured ones, its flags say what the pass found.
run rr -t pipe --pin same -n 2000 -w 200 -r 6 --ci 95,0.001 --explain-flagged -f json
is_rc 0 "rr --explain-flagged, flagged unstable"
jqt "... explained by a second pass of 6 runs, said in the flag" \
	'(.results | length) == 1 and all(.results[]; .explain.available == true and .explain.second_pass == 6 and (.runs | length) == 6 and any(.flags[]; .flag == "unstable" and (.why | test("; a second pass (of 6 runs )?with --explain: "))))'
jqt "... the pass's phases add up to its own mean" \
	'all(.results[].explain; ((([.phases[].ns] | add) - .measured_ns) | fabs) <= 2 + (.phases | length))'
cp "$out" "$T/pass.json"
run report "$T/pass.json" -f json
jqt "... read back with its second pass" '.results[0].explain.second_pass == 6'
run report "$T/pass.json"
check "... as text, the cause in a line under the table" \
	grep -q "^  rr pipe req=1 resp=1 cpus=1: \(the slower [0-9]* of 6 runs\|its runs did not differ\)" "$out"
check "... said to come from a second pass" \
	grep -q "^why the flagged cases' runs differ, from a second pass of 6 runs each with --explain" "$out"
run report -f markdown "$T/pass.json"
check "... in Markdown, the breakdown says its figures were measured without it" \
	grep -q "a second pass of 6 runs, the figures above measured without it" "$out"
run rr -t pipe,unix --pin same -n 2000 -w 200 -r 6 --ci 95,100 --explain-flagged -f json
is_rc 0 "rr --explain-flagged, a target any 6 runs meet"
jqt "... an explanation exactly where the spread was flagged" \
	'(.results | length) == 2 and all(.results[]; has("explain") == any(.flags[]; .flag | IN("unstable", "bimodal", "outliers")))'
run -t pipe -r 6 --ci 95,0.001 -f json
is_rc 0 "the quick suite on pipe, flagged unstable"
jqt "... explains its flagged rows by default" \
	'(.results | length) > 0 and all(.results[]; .explain.second_pass == 6)'
run rr -t pipe --pin same -n 2000 -w 200 -r 6 --ci 95,0.001 -f json
is_rc 0 "rr by default, flagged unstable"
jqt "... explained by a second pass by default too" \
	'(.results | length) == 1 and all(.results[]; .explain.second_pass == 6 and (.runs | length) == 6)'
run rr -t pipe --pin same -n 2000 -w 200 -r 6 --ci 95,0.001 --no-explain-flagged -f json
jqt "... and not with --no-explain-flagged" \
	'(.results | length) == 1 and all(.results[]; has("explain") | not)'
run -t pipe -r 6 --ci 95,0.001 --no-explain-flagged -f json
jqt "... not with --no-explain-flagged" \
	'(.results | length) > 0 and all(.results[]; has("explain") | not)'

# replay: a replay of the conversation is what is explained, both sides.
run replay "$(dirname "$0")/../../traces/breakpoint.log" -r 2 --explain -f json
is_rc 0 "replay --explain"
jqt "replay: phases add up, unexplained within 10% (or 1 us), both sides seen" \
	'(.results | length) > 0 and all(.results[].explain; .available == true and ((([.phases[].ns] | add) - .measured_ns) | fabs) <= 2 + (.phases | length) and ([.phases[] | select(.name == "unexplained") | .ns][0] | fabs) <= ([.measured_ns * 0.10, 1000] | max) and any(.phases[]; .side == "server") and any(.phases[]; .side == "client" and .name == "send"))'

# load and http: one client thread drives the flows, the unit is one
# request over all of them; the phases add up to its mean the same way.
for cmd in "load -t tcp -c 4" "load -t unix -c 4 --rate 20k" "http -c 4"; do
	# shellcheck disable=SC2086
	run $cmd -n 4000 -w 4 -r 3 --pin 0,0 --explain -f json
	is_rc 0 "$cmd --explain"
	jqt "$cmd: phases add up, unexplained within 10% (or 1 us), both sides seen" \
		'(.results | length) > 0 and all(.results[].explain; .available == true and ((([.phases[].ns] | add) - .measured_ns) | fabs) <= 2 + (.phases | length) and ([.phases[] | select(.name == "unexplained") | .ns][0] | fabs) <= ([.measured_ns * 0.10, 1000] | max) and any(.phases[]; .side == "server" and .name == "receive") and any(.phases[]; .side == "client" and (.name | IN("send", "wait: epoll"))))'
	jqt "$cmd: measured_ns is a run's elapsed time over its requests" \
		'all(.results[]; .explain.measured_ns as $m | any(.runs[]; (.elapsed_ns / .iterations - $m | fabs) <= 1 + $m * 0.01))'
done
run load -t tcp -c 4 --threads 2 -n 2000 -w 4 -r 1 --explain -f json
is_rc 0 "load --threads 2 --explain"
jqt "... says explain follows one client thread" \
	'all(.results[].explain; .available == false and (.why | test("several client threads")))'

# shm: the sides wait by spinning, then in futex; the sum holds too.
run rr -t shm -n 3000 -w 300 -r 3 --explain -f json
is_rc 0 "rr -t shm --explain"
jqt "shm: phases add up, unexplained within 10% (or 1 us)" \
	'(.results | length) > 0 and all(.results[].explain; .available == true and ((([.phases[].ns] | add) - .measured_ns) | fabs) <= 2 + (.phases | length) and ([.phases[] | select(.name == "unexplained") | .ns][0] | fabs) <= ([.measured_ns * 0.10, 1000] | max))'
jqt "shm: no send or receive call: the ring is not a system call" \
	'all(.results[].explain; all(.phases[]; .name | IN("send", "receive") | not))'

# A known cost: the peer sleeps 5 us before every answer.  The server's
# time off CPU and in its system calls holds at least those 5 us per
# round trip (a lower bound: timer slack makes the sleep longer), and no
# more than the round trip.
run rr -t pipe -n 1000 -w 100 -r 3 --explain --peer-stall 1:5us -f json
is_rc 0 "rr --peer-stall 1:5us --explain"
jqt "peer stall: the server's blocked + wake-up + calls >= 4.5 us" \
	'all(.results[].explain; ([.phases[] | select(.side == "server" and (.name | IN("blocked", "wake-up: run queue", "wake-up: idle exit", "preempted", "other system calls", "user"))) | .ns] | add) >= 4500)'
jqt "peer stall: and no more than the round trip" \
	'all(.results[].explain; ([.phases[] | select(.side == "server") | .ns] | add) <= .measured_ns)'
jqt "peer stall: the sleep shows as the server blocked" \
	'all(.results[].explain; any(.phases[]; .side == "server" and .name == "blocked" and .ns >= 4000))'

# A CPU hog on the server's CPU: the server waits behind it, by name.  A
# little above the default priority, so that on a shared machine the hog,
# not another load that lands on that CPU, is what the server waits for
# most.
hog_cpu=1
[ "$(nproc)" -ge 2 ] || hog_cpu=0
cp "$(command -v yes)" "$T/explainhog"
nice -n -5 taskset -c "$hog_cpu" "$T/explainhog" >/dev/null &
hog=$!
run_default rr -t pipe -n 1000 -w 100 -r 3 --pin "0,$hog_cpu" --explain -f json
kill "$hog"
wait "$hog" 2>/dev/null
is_rc 0 "rr --explain beside a CPU hog"
jqt "hog: the hog is among the tasks on a measured CPU" \
	'any(.results[].explain.others[]; .comm == "explainhog")'
jqt "hog: the server's run-queue wait names it" \
	'any(.results[].explain.phases[]; .side == "server" and (.name | IN("wake-up: run queue", "preempted")) and ((.behind // "") | test("(^|, )explainhog \\(pid ")))'
diag "waited behind: $(jq -c '[.results[].explain.phases[] | select(.behind) | [.side, .name, .ns, .behind]]' "$out")"

# Idle: with the CPU latency request held (the default) the CPUs poll
# while idle and a wake-up needs no IPI; with --pm-qos off a halted vCPU
# must be interrupted to run the woken thread.  On two CPUs the wake-ups'
# IPI and idle-exit time, both sides, grows with --pm-qos off, where the
# request could be held at all (root, /dev/cpu_dma_latency) and a CPU was
# idle at all (not on a machine kept busy by other load); no speed is
# asserted, only which of the two has more of it.
wake_idle='[.results[].explain.phases[] | select(.name | IN("wake-up: IPI", "wake-up: idle exit")) | .ns] | add // 0'
if [ "$(nproc)" -ge 2 ] && [ -c /dev/cpu_dma_latency ]; then
	run rr -t pipe -n 2000 -w 200 -r 3 --pin 0,1 --explain -f json
	is_rc 0 "rr --explain on two CPUs, the latency request held"
	held=$(jq -r '.host.pm_qos.state' "$out")
	driver=$(jq -r '.host.pm_qos.idle_driver // ""' "$out")
	on=$(jq "$wake_idle" "$out")
	run rr -t pipe -n 2000 -w 200 -r 3 --pin 0,1 --explain --pm-qos off -f json
	is_rc 0 "... and with --pm-qos off"
	off=$(jq "$wake_idle" "$out")
	diag "IPI + idle exit per round trip: request $held $on ns, off $off ns"
	if [ "$driver" = none ]; then
		# No cpuidle driver: nothing reads the request, held or not.
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip --pm-qos: no cpuidle driver, the request changes nothing here"
	elif [ "$held" = held ] && awk -v a="$off" 'BEGIN {exit !(a < 1000)}'; then
		# Other load kept both CPUs busy: hardly a wake-up found one
		# idle (a halted vCPU's IPI alone takes microseconds).
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip --pm-qos: hardly a CPU was idle at a wake-up (other load): $off ns"
	elif [ "$held" = held ]; then
		ok "$(awk -v a="$off" -v b="$on" 'BEGIN {exit !(a > b)}'; echo $?)" \
			"--pm-qos off: more of the wake-ups is IPI and idle exit ($on -> $off ns)"
		jqt "--pm-qos off: the IPI is a phase of its own" \
			'any(.results[].explain.phases[]; .name == "wake-up: IPI" and .ns > 0 and .p99_ns > 0)'
	else
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip --pm-qos: the latency request was not held ($held)"
	fi
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip --pm-qos: needs two CPUs and /dev/cpu_dma_latency"
fi

# --remote on loopback: the server explains its side only when asked
# and allowed, sends it back in run_stats, and the phases still add up.
rserver() {
	: >"$T/slog"
	env "$@" "$IPCPERF" server --listen 127.0.0.1:0 -f json >"$T/slog" 2>"$T/serr" &
	spid=$!
	saddr=
	for _ in $(seq 100); do
		saddr=$(jq -r 'select(.event == "listening") | .address' "$T/slog" 2>/dev/null | head -n 1)
		[ -n "$saddr" ] && break
		sleep 0.05
	done
}
rserver IPCPERF_EXPLAIN_OFF=
run rr --remote "$saddr" -t tcp -n 2000 -w 200 -r 3 --explain -f json
is_rc 0 "rr --remote --explain"
jqt "remote: the server's side is in the phases, and they add up" \
	'(.results | length) > 0 and all(.results[].explain; .available == true and any(.phases[]; .side == "server" and .name == "receive") and ((([.phases[].ns] | add) - .measured_ns) | fabs) <= 2 + (.phases | length) and ([.phases[] | select(.name == "unexplained") | .ns][0] | fabs) <= ([.measured_ns * 0.10, 1000] | max))'
jqt "remote: the server's calls have their p99 (sent with the sums)" \
	'all(.results[].explain; any(.phases[]; .side == "server" and .name == "receive" and .p99_ns > 0) and all(.phases[] | select(.side == "server" and .name == "send"); .p99_ns > 0) and (has("server_why") | not))'
# A client that does not ask: the server loads nothing (counted while
# such a run is held open).
hold=${BUILD:-build}/tests/test_remote_server
if command -v bpftool >/dev/null && [ -x "$hold" ]; then
	xprogs() { bpftool prog show 2>/dev/null | grep -c ' name xa_'; }
	for _ in $(seq 100); do
		[ "$(xprogs)" = 0 ] && break
		sleep 0.05
	done
	before=$(xprogs)
	"$hold" --client "$saddr" tcp --hold >"$T/hold" 2>&1 &
	hpid=$!
	for _ in $(seq 50); do
		grep -q ready "$T/hold" && break
		sleep 0.1
	done
	during=$(xprogs)
	kill "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null
	ok "$([ "$during" = "$before" ] && grep -q ready "$T/hold"; echo $?)" \
		"remote: a test without explain loads no BPF program on the server ($before, then $during)"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip remote without explain: no bpftool or $hold"
fi
kill "$spid"
wait "$spid" 2>/dev/null
# A server that may not load BPF: the client's side alone, whole, and
# the server's reason.
rserver IPCPERF_EXPLAIN_OFF=1
run rr --remote "$saddr" -t tcp -n 2000 -w 200 -r 2 --explain -f json
is_rc 0 "rr --remote --explain, the server not allowed"
jqt "... the client's phases only, its wait for the server blocked" \
	'all(.results[].explain; .available == true and all(.phases[]; .side != "server") and any(.phases[]; .side == "client" and .name == "blocked"))'
jqt "... and the server's reason, in its words" \
	'all(.results[].explain; .server_why == "disabled by IPCPERF_EXPLAIN_OFF")'
cp "$out" "$T/rwhy.json"
run report "$T/rwhy.json"
check "... which the table prints under the breakdown's first line" \
	grep -q "^  the server could not explain its side: disabled by IPCPERF_EXPLAIN_OFF" "$out"
kill "$spid"
wait "$spid" 2>/dev/null

# SIGKILL mid-run: the programs and maps go with the process.
progs() { bpftool prog show 2>/dev/null | grep -c ' name xa_'; }
if command -v bpftool >/dev/null; then
	# A program is freed a moment after its last descriptor closes: let
	# the earlier cases' go first.
	for _ in $(seq 100); do
		[ "$(progs)" = 0 ] && break
		sleep 0.05
	done
	before=$(progs)
	"$IPCPERF" rr -t pipe -d 20 -r 1 --explain >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ "$(progs)" -ge $((before + 12)) ] && break
		sleep 0.05
	done
	during=$(progs)
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	for _ in $(seq 100); do
		[ "$(progs)" -le "$before" ] && break
		sleep 0.05
	done
	ok "$([ "$during" -ge $((before + 12)) ]; echo $?)" "SIGKILL: the twelve programs were attached ($before, then $during)"
	ok "$([ "$(progs)" -le "$before" ]; echo $?)" "SIGKILL: none left after ($(progs))"
	check "SIGKILL: nothing pinned" test -z "$(ls -A /sys/fs/bpf 2>/dev/null | grep -i xa_)"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip SIGKILL: no bpftool to list programs"
fi

done_testing

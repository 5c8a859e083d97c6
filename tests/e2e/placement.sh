# SPDX-License-Identifier: MIT
# Placement as a parameter of the case: by default each local case is
# measured with both sides on one CPU and on a CPU each, pinned, labelled
# in every format; --pin none keeps the scheduler's choice; --pin CPUs are
# the user's.  Behaviour only: no speed is asserted.
. "$(dirname "$0")/lib.bash"

if [ "$(nproc)" -lt 2 ]; then
	echo "1..0 # skip placement needs two CPUs (this machine has one)"
	exit 77
fi

# The default: every case twice, side by side, pinned by ipcperf.
run_default rr -t pipe,unix -n 200 -w 20 -r 2 -f json
is_rc 0 "rr by default"
jqt "two results per case: one CPU, then two" '[.results[] | "\(.transport) \(.cpus)"] == ["pipe 1", "pipe 2", "unix 1", "unix 2"]'
jqt "one CPU: client and server on the same CPU, chosen by ipcperf" 'all(.results[] | select(.cpus == 1); .pin.client == .pin.server and .pin.by == "ipcperf" and (has("smt_siblings") | not))'
jqt "two CPUs: different CPUs, whether SMT siblings said" 'all(.results[] | select(.cpus == 2); .pin.client != .pin.server and .pin.by == "ipcperf" and (.pin.smt_siblings == null or (.pin.smt_siblings | type) == "boolean"))'
jqt "not SMT siblings where the host has SMT off or unknown" '.host.smt == true or all(.results[] | select(.cpus == 2); .pin.smt_siblings != true)'
jqt "the sides ran where pinned, in every run" 'all(.results[]; . as $r | all(.runs[]; .client.cpu_end == $r.pin.client and .server.cpu_end == $r.pin.server and .client.allowed == "\($r.pin.client)" and .server.allowed == "\($r.pin.server)"))'
jqt "the summary counts the runs by placement" 'all(.results[]; if .cpus == 1 then .summary.placement.split_cpu_runs == 0 else .summary.placement.same_cpu_runs == 0 end)'
jqt "config records each case's pins" 'all(.results[]; .config.pin_client == .pin.client and .config.pin_server == .pin.server)'
jqt "each placement has its own headline" 'all(.results[]; .summary.headline.value > 0)'
no_leftovers "rr by default"

run_default rr -t pipe -n 200 -w 20 -r 2
is_rc 0 "table by default"
check "table: a cpus column" grep -qE "^transport +cpus " "$out"
check "table: one CPU and two, with the CPUs" sh -c "grep -qE '^pipe +1 \\(CPU [0-9]+\\) ' $out && grep -qE '^pipe +2 \\(CPUs [0-9]+,[0-9]+(SMT)?\\) ' $out"
check "table: what the column means" grep -q "^cpus: the client and the server pinned to one CPU (1) or a CPU each (2" "$out"

run_default rr -t pipe -n 200 -w 20 -r 2 -f csv
is_rc 0 "csv by default"
check "csv: the cpus columns end the fixed ones (the patterns' own follow)" sh -c "head -n 1 $out | grep -q ',loadavg_1m,cpus,client_cpu,server_cpu\(,\|\$\)'"
check "csv: a row each, 1 then 2" sh -c "tail -n +2 $out | cut -d, -f44 | paste -sd' ' - | grep -qx '1 2'"

run_default rr -t pipe -n 200 -w 20 -r 2 -f markdown
is_rc 0 "markdown by default"
check "markdown: a cpus column" grep -qE "^\| transport +\| cpus +\|" "$out"
check "markdown: what the column means" grep -q "^cpus: the client and the server pinned" "$out"
run_default rr -t pipe,unix --req 1,64 -n 100 -w 5 -r 2 -q -f html -o "$T/pl.html"
is_rc 0 "html by default"
check "html: the sweep's series split by placement" sh -c "grep -q 'class=\"legend\">pipe, cpus=1<' '$T/pl.html' && grep -q 'class=\"legend\">pipe, cpus=2<' '$T/pl.html'"

# A side that spins is not put on one CPU unless the user asks.
run_default rr -t shm --shm-wait spin -n 200 -w 20 -r 2 -f json
is_rc 0 "shm --shm-wait spin by default"
jqt "shm spin: two CPUs only, one CPU skipped with the reason" '[.results[].cpus] == [2] and (.skipped | length) == 1 and (.skipped[0].why | test("spin"))'

# The scheduler's choice, and the user's CPUs.
run_default rr -t pipe -n 200 -w 20 -r 2 --pin none -f json
is_rc 0 "--pin none"
jqt "--pin none: one result, not pinned" '(.results | length) == 1 and .results[0].cpus == null and .results[0].pin == null and .config.pin_client == null'
run_default rr -t pipe -n 200 -w 20 -r 2 --pin none
check "--pin none: no cpus column" sh -c "! grep -q '^transport +cpus' $out"
run_default rr -t pipe -n 200 -w 20 -r 2 --pin same -f json
jqt "--pin same: one result on one CPU, the user's" '(.results | length) == 1 and .results[0].cpus == 1 and .results[0].pin.by == "user"'
run_default rr -t pipe -n 200 -w 20 -r 2 --pin same
check "--pin same: the footnote says one CPU, as asked" grep -q "^cpus: the client and the server pinned to one CPU (1), as --pin asked$" "$out"
check "--pin same: ... and not two placements" sh -c "! grep -q 'two placements' '$out'"
run_default rr -t pipe -n 200 -w 20 -r 2 --pin split -f json
jqt "--pin split: one result on two CPUs, the user's" '(.results | length) == 1 and .results[0].cpus == 2 and .results[0].pin.by == "user" and .results[0].pin.client != .results[0].pin.server'
run_default rr -t pipe --pin nowhere
is_rc 2 "--pin with a bad value: exit 2"
check "--pin's hint names none" grep -q "pin none" "$err"

# The peer as a thread is placed the same way.
run_default rr -t pipe,unix -n 200 -w 20 -r 2 --placement thread -f json
is_rc 0 "thread placement"
jqt "thread placement: one CPU and two" '[.results[].cpus] == [1, 2, 1, 2] and .config.placement == "thread"'
jqt "thread placement: the peer thread ran where pinned" 'all(.results[]; . as $r | all(.runs[]; .server.cpu_end == $r.pin.server and .client.cpu_end == $r.pin.client))'
no_leftovers "thread placement"

# stream and the suite too; load with several client threads keeps the
# scheduler's choice (pinning them all to one CPU would measure that).
run_default stream -t fifo --size 4k --count 100 -n 3 -r 2 -f json
jqt "stream: one CPU and two" '[.results[].cpus] == [1, 2]'
run_default -q -t pipe -f json --budget 1
is_rc 0 "the suite"
jqt "the suite: rr and stream each on one CPU and two" '[.results[] | "\(.pattern) \(.cpus)"] | sort == ["rr 1", "rr 2", "stream 1", "stream 2"]'
run_default -q -t pipe --budget 1
check "the suite's table: a row per placement" sh -c "grep -cE '^pipe +[12] \\(CPU' $out | grep -qx 2"
if "$IPCPERF" list | grep -qE "^ +epoll +ok"; then
	run_default load -t unix -c 4 --threads 2 -n 100 -r 1 -f json
	jqt "load with 2 client threads: the scheduler's choice" '(.results | length) == 1 and .results[0].cpus == null'
	run_default load -t unix -c 4 --threads 1 -n 100 -r 1 -f json
	jqt "load with 1 client thread: one CPU and two" '[.results[].cpus] == [1, 2]'
fi

# Words name the placement: compare matches one CPU with one CPU.
run_default rr -t pipe -n 200 -w 20 -r 6 -f json -o "$T/a.json"
run_default rr -t pipe -n 200 -w 20 -r 6 -f json -o "$T/b.json"
run_default compare "$T/a.json" "$T/b.json" -f json
is_rc 0 "compare two default runs"
jqt "compare: a pair per placement, named by it" '[.cases[].case] == ["rr pipe req=1 resp=1 cpus=1", "rr pipe req=1 resp=1 cpus=2"]'
run_default rr -t pipe -n 200 -w 20 -r 6 --pin none -f json -o "$T/any.json"
run_default compare "$T/a.json" "$T/any.json"
is_rc 2 "compare placed with the scheduler's choice: no case in common"
no_leftovers "placement"

done_testing

# SPDX-License-Identifier: MIT
# Runs to a confidence target: --runs auto and its bounds, the summary's
# estimate, target and flags, interleaving in plan order, placement and CPU
# cost recorded per run, the host fingerprint, CSV and table additions, and
# the options' usage errors.  Behaviour only: no speed is asserted.
. "$(dirname "$0")/lib.bash"

# --runs auto is the default: between 5 and 30 runs, a target, a reason.
run rr -t pipe -n 200 -w 20 -f json
is_rc 0 "auto runs by default"
jqt "config says auto" '.config.runs_auto == true and .config.runs == 0 and .config.min_runs == 5 and .config.max_runs == 30 and .config.ci_level == 0.95 and .config.ci_pct == 1 and .config.interleave == true'
jqt "between 5 and 30 runs" '.results[0].summary.runs >= 5 and .results[0].summary.runs <= 30 and (.results[0].runs | length) == .results[0].summary.runs'
jqt "target recorded" '.results[0].summary.target | .level == 0.95 and .pct == 1 and (.met | type) == "boolean" and (.stop | IN("target", "max-runs", "budget", "out-of-reach"))'
jqt "met exactly when stopped by the target" '.results[0].summary.target | (.stop == "target") == .met'
jqt "not met means flagged unstable" '.results[0] | (.summary.target.met or ([.flags[].flag] | index("unstable") != null))'
jqt "estimate is the median of the runs' p50" \
	'.results[0] | ([.runs[].latency_ns.p50] | sort) as $p | ($p | length) as $n | (if $n % 2 == 1 then $p[($n - 1) / 2] else ($p[$n / 2 - 1] + $p[$n / 2]) / 2 end) as $m | (.summary.estimate - $m | fabs) <= 1'
jqt "metric named" '.results[0].summary.metric == "p50_ns"'
jqt "headline: the estimate of the metric over every run" \
	'.results[0].summary | .headline.value == .estimate and .headline.metric == .metric and .headline.runs == .runs'
jqt "headline: the interval of the estimate, containing it" \
	'.results[0].summary | (has("ci") | not) or (.headline.low == .ci.low and .headline.high == .ci.high and .headline.level == .ci.level and .headline.low <= .headline.value and .headline.value <= .headline.high)'
jqt "flags is an array of {flag, why, hint}" 'all(.results[]; (.flags | type) == "array" and (.flags | map((.flag | type) == "string" and (.why | length) > 0 and (.hint | length) > 0) | all))'
jqt "half-width recorded with an interval" '.results[0].summary | (has("ci") | not) or (.target.half_width_pct >= 0)'
no_leftovers "auto runs"

# A loose target is met at once.  At 50% confidence (t = 0.74 for 4 degrees
# of freedom) five positive runs cannot have a half-width above 100% of
# their mean (their sd is at most 2.24 times the mean), however noisy the
# machine: the check is of the stopping rule, not of the machine's calm.
run rr -t pipe -n 200 -w 20 --pin same --ci 50,100 -f json
is_rc 0 "--ci 50,100"
jqt "a loose target stops at the minimum of 5" '.results[0].summary.runs == 5 and .results[0].summary.target.stop == "target" and .results[0].summary.target.met'
jqt "no unstable flag when met" '[.results[0].flags[].flag] | index("unstable") == null'

# An impossible target runs to --max-runs and says so.
run rr -t pipe -n 100 -w 10 --ci 95,0.0001 --max-runs 6 -f json
is_rc 0 "--max-runs 6 with an impossible target"
jqt "six runs, stopped by max-runs" '.results[0].summary.runs == 6 and .results[0].summary.target.stop == "max-runs" and (.results[0].summary.target.met | not)'
jqt "flagged unstable with a why and a hint" '.results[0].flags[] | select(.flag == "unstable") | (.why | test("after 6 runs")) and (.hint | test("--pin"))'

# A budget too small for more than the minimum: each case still gets the
# runs that give a 95% interval (6; 5 give none).
run rr -t pipe,unix -n 100 -w 10 --ci 95,0.0001 --budget 1ms -f json
is_rc 0 "--budget 1ms"
jqt "the budget never cuts below the 6 runs of an interval" '(.results | length) >= 2 and all(.results[]; .summary.runs == 6 and .summary.target.stop == "budget" and (.summary | has("ci")))'

# -r N is exact and stops for that reason.
run rr -t pipe -n 100 -w 10 -r 3 -f json
is_rc 0 "-r 3"
jqt "-r 3: three runs, config runs 3, stop runs" '.config.runs == 3 and .config.runs_auto == false and .results[0].summary.runs == 3 and .results[0].summary.target.stop == "runs"'
jqt "-r 3: no interval, not called unstable" '[.results[0].flags[].flag] | index("unstable") == null'

# Interleaved runs still report in plan order; so does --no-interleave.
for il in "" --no-interleave; do
	run rr -t pipe,unix --req 1,64 -n 50 -w 5 -r 3 $il -f json
	is_rc 0 "plan order ${il:-interleaved}"
	jqt "plan order ${il:-interleaved}: pipe 1, pipe 64, unix 1, unix 64" \
		'[.results[] | [.transport, .req_size]] == [["pipe", 1], ["pipe", 64], ["unix", 1], ["unix", 64]]'
	jqt "plan order ${il:-interleaved}: three runs each" 'all(.results[]; .summary.runs == 3)'
done
jqt "--no-interleave recorded" '.config.interleave == false'

# Placement: the CPU each side ran on, per run.
ncpu=$(nproc)
run rr -t pipe -n 100 -w 10 -r 3 --pin same -f json
is_rc 0 "--pin same"
jqt "--pin same: both sides on the pinned CPU in every run" \
	'.config.pin_client as $c | all(.results[0].runs[]; .client.cpu_end == $c and .server.cpu_end == $c and .client.allowed == ($c | tostring) and .server.allowed == ($c | tostring))'
jqt "--pin same: every run counted as one CPU" '.results[0].summary.placement.same_cpu_runs == 3'
if [ "$ncpu" -ge 2 ]; then
	run rr -t pipe -n 100 -w 10 -r 3 --pin split -f json
	is_rc 0 "--pin split"
	jqt "--pin split: client and server on their two CPUs" \
		'.config as $c | all(.results[0].runs[]; .client.cpu_end == $c.pin_client and .server.cpu_end == $c.pin_server and $c.pin_client != $c.pin_server)'
	jqt "--pin split: every run counted as two CPUs" '.results[0].summary.placement.split_cpu_runs == 3'
else
	skip_n=2
	for i in $(seq $skip_n); do tap_n=$((tap_n + 1)); echo "ok $tap_n # skip one CPU"; done
fi
run rr -t unix -n 100 -w 10 -r 2 --placement thread -f json
is_rc 0 "thread placement"
jqt "thread placement: both sides report their cost" 'all(.results[0].runs[]; (.client.user_ns + .client.sys_ns) > 0 and (.server.user_ns + .server.sys_ns) > 0)'

# CPU cost per message and per run.
run stream -t pipe --size 1k --count 100 -n 3 -w 1 -r 2 -f json
is_rc 0 "stream cost"
jqt "per-run cost fields" 'all(.results[0].runs[]; (.client | has("user_ns") and has("sys_ns") and has("vcsw") and has("ivcsw") and has("cpu_start") and has("cpu_end")) and .loop_messages == 400 and .wall_ns > 0)'
jqt "summary cost per message" '.results[0].summary.cpu | .per == "message" and (.client.user_ns + .client.sys_ns) > 0 and (.server.vcsw >= 0)'
jqt "cycles only where counted" '.host.perf.cycles or all(.results[0].runs[]; (.client | has("cycles")) | not)'
jqt "load seen per run" 'all(.results[0].runs[]; .load.busy_ns >= 0 and .load.ours_ns > 0)'
jqt "summary load" '.results[0].summary.load | (.other_cpus >= 0) and (.loadavg_1m >= 0)'
jqt "load source named, the runs' own" '.results[0] | .summary.load.source as $s | ($s | IN("cpuacct", "cgroup2", "cpuidle", "proc-stat", "mixed")) and all(.runs[]; .load.source | IN("cpuacct", "cgroup2", "cpuidle", "proc-stat")) and ($s == "mixed" or all(.runs[]; .load.source == $s))'
jqt "idle stays only from cpuidle" 'all(.results[0].runs[]; (.load | has("idle_stays")) == false or .load.source == "cpuidle")'
# Where cpuidle and cpuacct cannot be had (or are passed by), /proc/stat.
IPCPERF_LOAD_SOURCE=proc-stat run stream -t pipe --size 1k --count 100 -n 3 -w 1 -r 2 -f json
is_rc 0 "load from /proc/stat alone"
jqt "fallback: proc-stat, per run and in the summary" '.results[0] | .summary.load.source == "proc-stat" and all(.runs[]; .load.source == "proc-stat" and (.load | has("idle_stays") or has("kernel_ns") | not))'
jqt "fallback: its error is /proc/stat's ticks" '.results[0].summary.load.resolution_cpus > 0.25'

# Migrations come from the scheduler's own counts; cycles only with --perf.
jqt "migrations counted without perf events" '.host.perf.migrations == false or all(.results[0].runs[]; .client.migrations >= 0 and .server.migrations >= 0)'
jqt "no cycles without --perf" '.config.perf == false and all(.results[0].runs[]; (.client | has("cycles")) | not)'
run rr -t pipe -n 100 -w 10 -r 2 --perf
is_rc 0 "--perf"
if grep -q "cycles/rt" "$out"; then
	ok 0 "--perf: cycles and instructions counted here"
else
	check "--perf: says why cycles are not counted" grep -q "^cycles and instructions: not counted" "$out"
fi
run rr -t pipe -n 100 -w 10 -r 2 --perf -f json
jqt "--perf: recorded; cycles in the runs exactly where countable" '.config.perf == true and (.host.perf.cycles == (.results[0].runs[0].client | has("cycles")))'

# The host fingerprint.
jqt "host: cores, smt, memory" '.host | (.cores == null or .cores >= 1) and (.smt == null or (.smt | type) == "boolean") and .mem_bytes > 0'
jqt "host: virtualization" '.host | (.hypervisor | type) == "boolean" and (.virtualization == null or (.virtualization | type) == "string")'
jqt "host: clock source and load average" '.host | ((has("clocksource") | not) or (.clocksource | length) > 0) and (.loadavg | length) == 3'
jqt "host: perf availability" '.host.perf | (.cycles | type) == "boolean" and (.migrations | type) == "boolean"'
jqt "host: start and end, UTC" '.host.started | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")'
jqt "host: end not before start" '.host.ended >= .host.started'
jqt "build flags" '(.ipcperf.build | type) == "string" and (.ipcperf.build | length) > 0'

# CSV: the new columns after the original ones, every row as wide.
run rr -t pipe,unix -n 50 -w 5 -r 2 -f csv
is_rc 0 "csv"
check "csv: the new columns follow error" sh -c "head -n 1 $out | grep -q ',error,metric,estimate,target_met,half_width_pct,stop,flags,.*,loadavg_1m,cpus,client_cpu,server_cpu\(,\|\$\)'"
ncol=$(head -n 1 "$out" | awk -F, '{print NF}')
check "csv: rows as wide as the header" sh -c "tail -n +2 $out | awk -F, -v n=$ncol 'NF != n {exit 1}'"

# The table: the interval with its ±, cost columns, flags with reasons.
run rr -t pipe -n 100 -w 10 --ci 95,0.0001 --max-runs 6
is_rc 0 "table with a flag"
check "table: heading says how runs end" grep -q "until the 95% CI is within ±0.0001%" "$out"
check "table: the CI column with its half-width" grep -qE "95% CI" "$out"
check "table: cpu per round trip" grep -q "cpu/rt" "$out"
check "table: flags column" grep -qE "^transport .* flags " "$out"
check "table: why the case is unstable" grep -q "^rr pipe req=1 resp=1: unstable: 95% CI ±.* after 6 runs (--max-runs); the target is ±0.0001%" "$out"
check "table: the hint" grep -q "^hint for unstable: " "$out"
no_leftovers "trust variants"

# Usage errors: one line naming the value, then a hint; exit 2.
bad() { # bad "description" ARGS...
	local d=$1
	shift
	run "$@"
	is_rc 2 "$d: exit 2"
	if head -n 1 "$err" | grep -q "^ipcperf: " && sed -n 2p "$err" | grep -q "hint:"; then
		ok 0 "$d: one line and a hint"
	else
		ok 1 "$d: one line and a hint"
		sed 's/^/# /' "$err"
	fi
}
bad "--max-runs below 5" rr -t pipe --max-runs 3
bad "-r N with --max-runs" rr -t pipe -r 5 --max-runs 10
bad "-r N with --budget" rr -t pipe -r 5 --budget 10
bad "--ci target 0" rr -t pipe --ci 95,0
bad "--ci level 100" rr -t pipe --ci 100,1
bad "--ci not a number" rr -t pipe --ci high
bad "--budget not a time" rr -t pipe --budget soon
run rr -t pipe -r auto -n 50 -w 5 --max-runs 5 -f json
is_rc 0 "-r auto is accepted"
jqt "-r auto with --max-runs 5: five runs" '.results[0].summary.runs == 5'

done_testing

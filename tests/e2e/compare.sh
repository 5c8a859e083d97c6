# SPDX-License-Identifier: MIT
# ipcperf compare: verdicts on constructed results (a real run's document
# with its per-run values replaced, so that the answers do not depend on
# this machine's noise), one file a side (drift not measured) and several
# (two levels), matching by parameters, the regression gate, and bad
# input: one line, a hint, exit 2.
. "$(dirname "$0")/lib.bash"

d="$T/cmp"
mkdir -p "$d"

# A real document to shape: rr on pipe and unix, two request sizes, 8 runs.
"$IPCPERF" rr --pin none -t pipe,unix --req 1,64 -n 50 -w 5 -r 8 --no-explain-flagged -f json -o "$d/real.json" 2>/dev/null
ok $? "a real rr document to shape"

# set_p50 IN OUT FACTOR: per-run p50s of 5000 ns (+ a little spread),
# times FACTOR; the other latencies follow; throughput the other way.  The
# figures stay consistent with each other (percentiles in order, rates
# their counts over elapsed_ns), or the reader refuses the file.
set_p50() {
	jq --argjson f "$3" '
	  .results |= map(.runs |= [ range(0; length) as $i | .[$i] |
	    (5000 + 13 * (($i * 7) % 8)) as $b | ($b * $f | floor) as $v |
	    .latency_ns = {min: ($v * 0.8 | floor), p50: $v,
	      p90: ($v * 1.5 | floor), p99: (2 * $v), p999: (3 * $v),
	      max: (4 * $v), mean: ($v * 1.1 | floor),
	      stddev: ($v * 0.3 | floor)} |
	    .elapsed_ns = .messages * $v |
	    .msgs_per_s = .messages / (.elapsed_ns / 1e9) |
	    .bytes_per_s = .bytes / (.elapsed_ns / 1e9) ])' "$1" >"$2"
}
set_p50 "$d/real.json" "$d/a.json" 1
set_p50 "$d/real.json" "$d/a2.json" 1
set_p50 "$d/real.json" "$d/slow.json" 1.10
set_p50 "$d/real.json" "$d/fast.json" 0.90

cmp() { # cmp ARGS...: ipcperf compare, JSON to $out
	run compare "$@"
}

cmp "$d/a.json" "$d/a2.json" -f json
is_rc 0 "identical runs: exit 0"
jqt "identical runs: 4 cases matched" '.cases | length == 4'
jqt "identical runs: no significant difference everywhere" 'all(.cases[]; .verdict == "no significant difference")'
jqt "identical runs: ratio 1 and p 1" 'all(.cases[]; .ratio == 1 and .p == 1 and .ci.low <= 1 and .ci.high >= 1)'
jqt "identical runs: the test named" '.test == "mann-whitney-u" and all(.cases[]; .exact)'

# One file a side: the drift between invocations is not measured, so the
# verdict allows a default for it; a 10% difference of the runs is within
# that allowance: undecided, and it says why.
cmp "$d/a.json" "$d/slow.json" -f json
is_rc 0 "one file a side, 10% slower: exit 0"
jqt "one file a side: undecided, drift not measured but allowed for" 'all(.cases[]; .verdict == "undecided" and .basis == "runs, allowing for drift" and .drift.measured == false and .drift.default and .drift.allowance_pct > 10 and (.note | test("drift between invocations was not measured")))'
jqt "one file a side: the ratio and interval of the runs still given" 'all(.cases[]; (.ratio - 1.1 | fabs) < 0.01 and .ci_unwidened.low > 1 and .ci.low < 1 and .p < 0.001)'
cmp "$d/a.json" "$d/slow.json"
check "one file a side (table): undecided with the change" grep -qE "undecided \(\+10\.[0-9]%\)" "$out"
check "one file a side (table): states the allowance" grep -qE "^drift: with one file a side the drift between invocations was not measured: allowing ±[0-9]+% for drift between invocations" "$out"
cmp "$d/a.json" "$d/slow.json" --fail-if-slower 5
is_rc 0 "one file a side: an undecided case does not trip the gate"
# ... and a difference beyond any drift is called, with its sign.
set_p50 "$d/real.json" "$d/slow2.json" 2.2
cmp "$d/a.json" "$d/slow2.json" -f json
jqt "one file a side, 2.2x: slower, allowing for drift" 'all(.cases[]; .verdict == "slower" and .basis == "runs, allowing for drift")'
cmp "$d/slow2.json" "$d/a.json" --fail-if-slower 5
is_rc 0 "one file a side, 2.2x faster: the gate passes"
cmp "$d/a.json" "$d/slow2.json" --fail-if-slower 50
is_rc 1 "one file a side, 2.2x slower: the gate trips on one baseline file"

# --drift 0: the runs alone are trusted, as when invocations do not drift.
cmp "$d/a.json" "$d/slow.json" --drift 0 -f json
is_rc 0 "10% slower: exit 0 without a gate"
jqt "10% slower: verdict slower" 'all(.cases[]; .verdict == "slower")'
jqt "10% slower: ratio 1.10, interval above 1" 'all(.cases[]; (.ratio - 1.1 | fabs) < 0.01 and .ci.low > 1 and .ci.low <= 1.1 and .ci.high >= 1.09)'
jqt "10% slower: change +10%" 'all(.cases[]; (.change_pct - 10 | fabs) < 1)'
jqt "10% slower: p small" 'all(.cases[]; .p < 0.001)'

cmp "$d/a.json" "$d/fast.json" --drift 0
is_rc 0 "10% faster (table)"
check "table: verdict faster with the change" grep -qE "faster \(-10\.[0-9]%\)" "$out"
check "table: a header with B/A and the interval" grep -qE "^case .* B/A .* 95% CI .* p .* verdict" "$out"
check "table: names both files" grep -q "A: $d/a.json" "$out"

cmp "$d/a.json" "$d/slow.json" --metric throughput --drift 0 -f json
is_rc 0 "throughput of 10% slower"
jqt "throughput: lower throughput is slower, ratio about 0.91" 'all(.cases[]; .verdict == "slower" and .metric == "throughput" and (.ratio - 1 / 1.1 | fabs) < 0.01 and .lower_is_better == false)'

cmp "$d/a.json" "$d/slow.json" --threshold 15 --drift 0 -f json
is_rc 0 "--threshold 15"
jqt "--threshold 15: a 10% change is no difference, with a note" 'all(.cases[]; .verdict == "no significant difference" and (.note | test("threshold")))'

cmp "$d/a.json" "$d/slow.json" --fail-if-slower 5 --drift 0
is_rc 1 "--fail-if-slower 5 on 10% slower: exit 1"
check "gate failed in words" grep -q "^gate: 4 cases of B slower than A by 5% or more: failed" "$out"
cmp "$d/a.json" "$d/slow.json" --fail-if-slower 20 --drift 0
is_rc 0 "--fail-if-slower 20 on 10% slower: exit 0"
cmp "$d/a.json" "$d/fast.json" --fail-if-slower 1 -f json
is_rc 0 "--fail-if-slower on faster: exit 0"
jqt "gate recorded as passed" '.gate_failed == false and .fail_if_slower_pct == 1'

# Documents written before the diagnosis (no metric, estimate or flags).
jq 'del(.results[].flags, .results[].summary.metric, .results[].summary.estimate, .results[].summary.target, .host.started)' "$d/a.json" >"$d/old.json"
cmp "$d/old.json" "$d/slow.json" --drift 0 -f json
is_rc 0 "an older document"
jqt "an older document: compared by its pattern's metric" 'all(.cases[]; .metric == "p50" and .verdict == "slower")'

# Too few runs to tell anything apart: said, not hidden.
jq '.results |= map(.runs |= .[0:3])' "$d/a.json" >"$d/a3.json"
jq '.results |= map(.runs |= .[0:3])' "$d/slow.json" >"$d/slow3.json"
cmp "$d/a3.json" "$d/slow3.json" -f json
is_rc 0 "3 runs each"
jqt "3 runs each: undecided, too few runs, said" 'all(.cases[]; .verdict == "undecided" and (.note | test("too few runs to tell \\(3 and 3: p is at least 0.1, never below 0.05\\)")))'
cmp "$d/a3.json" "$d/slow3.json"
check "3 runs each (table): undecided, not no difference" sh -c "grep -q 'undecided' $out && ! grep -q 'no significant difference' $out"

# Files that differ as a whole in one parameter: that is what is compared.
jq '.results |= map(select(.transport == "pipe"))' "$d/a.json" >"$d/pipe.json"
jq '.results |= map(select(.transport == "unix"))' "$d/slow.json" >"$d/unix.json"
cmp "$d/pipe.json" "$d/unix.json" --drift 0 -f json
is_rc 0 "pipe vs unix"
jqt "pipe vs unix: matched by size, transport is the difference" '(.differ == [{"field": "transport", "a": "pipe", "b": "unix"}]) and ([.cases[].case] == ["rr req=1 resp=1", "rr req=64 resp=1"]) and all(.cases[]; .verdict == "slower")'
cmp "$d/pipe.json" "$d/unix.json"
check "pipe vs unix table: says what differs" grep -q "A and B differ in transport: pipe in A, unix in B" "$out"

# Cases in one file only are listed.
jq '.results |= map(select(.req_size == 1))' "$d/slow.json" >"$d/req1.json"
cmp "$d/a.json" "$d/req1.json" -f json
is_rc 0 "a case in A only"
jqt "only in A listed" '.only_in_a == ["rr pipe req=64 resp=1", "rr unix req=64 resp=1"] and .only_in_b == [] and (.cases | length) == 2'
cmp "$d/a.json" "$d/req1.json"
check "only in A in the table" grep -q "^only in A: rr pipe req=64 resp=1" "$out"

# A run without the figure compared is said, not silently left out.
jq 'del(.results[0].runs[2].msgs_per_s)' "$d/slow.json" >"$d/norate.json"
cmp "$d/a.json" "$d/norate.json" --metric throughput -f json
is_rc 0 "a run without its rate"
jqt "a run without its rate: the note says so, the others are compared" '.cases[0].runs_b == 7 and (.cases[0].note | test("1 of 8 runs in B have no msgs_per_s")) and ([.cases[1:][] | .note // "" | test("have no")] | any | not)'

# Two levels: each file an invocation whose runs agree closely (13 ns
# apart) while the invocations drift by a few percent, as a shared machine
# does from one minute to the next.
i=0
for f in 1.00 1.06 0.97 1.03 1.02 0.96 1.05 0.99; do
	i=$((i + 1))
	set_p50 "$d/real.json" "$d/inv$i.json" $f
done
for f in 1.20 1.27 1.16 1.24; do
	i=$((i + 1))
	set_p50 "$d/real.json" "$d/inv$i.json" $f
done
cmp "$d/inv1.json" "$d/inv5.json" --drift 0 -f json
jqt "A/A, one file a side trusting the runs: a false difference" 'all(.cases[]; .verdict != "no significant difference")'
cmp "$d/inv1.json" "$d/inv2.json" "$d/inv3.json" "$d/inv4.json" -- "$d/inv5.json" "$d/inv6.json" "$d/inv7.json" "$d/inv8.json" -f json
is_rc 0 "A/A, 4 files a side"
jqt "A/A, 4 files a side: no significant difference, tested between invocations" 'all(.cases[]; .verdict == "no significant difference" and .basis == "invocations" and .invocations_a == 4 and .invocations_b == 4 and .runs_a == 32 and .p > 0.05)'
jqt "A/A, 4 files a side: the drift measured on both sides" 'all(.cases[]; .drift.measured and .drift.a_pct > 1 and .drift.b_pct > 1)'
jqt "A/A, 4 files a side: the runs' own p recorded too" 'all(.cases[]; .p_runs > 0 and .p_runs <= 1)'
jqt "A/A, 4 files a side: every file named" '(.a.files | length) == 4 and (.b.files | length) == 4 and .a.file == .a.files[0]'
cmp "$d/inv1.json" "$d/inv2.json" "$d/inv3.json" "$d/inv4.json" -- "$d/inv9.json" "$d/inv10.json" "$d/inv11.json" "$d/inv12.json" -f json
is_rc 0 "a 20% shift, 4 files a side"
jqt "a 20% shift, 4 files a side: slower, between invocations" 'all(.cases[]; .verdict == "slower" and .basis == "invocations" and .ratio > 1.1 and .ci.low > 1 and (.p - 2 / 70 | fabs) < 1e-9)'
cmp "$d/inv9.json" "$d/inv10.json" "$d/inv11.json" "$d/inv12.json" -- "$d/inv1.json" "$d/inv2.json" "$d/inv3.json" "$d/inv4.json"
is_rc 0 "a 20% shift the other way (table)"
check "the other way: faster in the table, with the files column" sh -c "grep -q 'files A/B' $out && grep -qE 'faster \(-1[0-9]\.[0-9]%\)' $out"
check "the table says what two levels mean" grep -q "^two levels: each file is an invocation" "$out"
cmp "$d/inv1.json" "$d/inv2.json" "$d/inv3.json" -- "$d/inv9.json" "$d/inv10.json" "$d/inv11.json" -f json
jqt "3 files a side: undecided, too few invocations, said" 'all(.cases[]; .verdict == "undecided" and (.note | test("too few invocations")))'
cmp "$d/inv1.json" "$d/inv2.json" "$d/inv3.json" -- "$d/inv9.json" "$d/inv10.json" "$d/inv11.json" --fail-if-slower 5 -f json
is_rc 0 "3 files a side, undecided: --fail-if-slower does not trip"

cmp "$d/inv1.json" "$d/inv2.json" "$d/inv3.json" "$d/inv4.json" -- "$d/inv9.json" -f json
is_rc 0 "4 files against 1"
jqt "4 files against 1: the runs, widened by A's drift" 'all(.cases[]; .basis == "runs, widened by drift" and .drift.assumed == false and .drift.widened_by_pct > 1 and .ci.low < .ci_unwidened.low and .ci.high > .ci_unwidened.high)'
cmp "$d/inv1.json" -- "$d/inv5.json" --drift 10 -f json
jqt "--drift 10 on a 2% change: no significant difference, interval widened" 'all(.cases[]; .verdict == "no significant difference" and .drift.assumed and (.drift.widened_by_pct - 10 | fabs) < 1e-6 and .ci.low < 1)'
jqt "--drift recorded" '.drift_pct == 10'
cmp "$d/inv1.json" -- "$d/inv9.json" --drift 5 -f json
jqt "--drift 5 on a 20% change: slower" 'all(.cases[]; .verdict == "slower")'

# -o writes the comparison to a file.
run compare "$d/a.json" "$d/slow.json" -f json -o "$d/out.json"
is_rc 0 "compare -o"
jqt "compare -o: a whole document" '.command == "compare" and (.cases | length) == 4' "$d/out.json"

# Bad input: one line naming the file, a hint, exit 2, nothing on stdout.
bad() { # bad "description" "what the first line says" ARGS...
	local desc=$1 want=$2
	shift 2
	run "$@"
	is_rc 2 "$desc: exit 2"
	if head -n 1 "$err" | grep -q -- "$want" && sed -n 2p "$err" | grep -q "hint:" &&
		[ "$(wc -l <"$err")" -le 2 ] && [ ! -s "$out" ]; then
		ok 0 "$desc: one clear line and a hint"
	else
		ok 1 "$desc: one clear line and a hint"
		sed 's/^/# /' "$err"
	fi
}
head -c 300 "$d/a.json" >"$d/truncated.json"
echo '{"results": []}' >"$d/foreign.json"
echo '[1, 2, 3]' >"$d/array.json"
jq '.ipcperf.schema = 2' "$d/a.json" >"$d/schema2.json"
jq '.results = {}' "$d/a.json" >"$d/noresults.json"
jq '.results[0] |= del(.pattern)' "$d/a.json" >"$d/nopattern.json"
: >"$d/empty.json"
"$IPCPERF" stream --pin none -t pipe -n 2 -w 1 -r 1 --count 10 -f json -o "$d/stream.json" 2>/dev/null
bad "missing file" "cannot read" compare "$d/none.json" "$d/a.json"
bad "truncated JSON" "not valid JSON" compare "$d/a.json" "$d/truncated.json"
bad "empty file" "not valid JSON" compare "$d/empty.json" "$d/a.json"
bad "foreign JSON" "not an ipcperf result" compare "$d/foreign.json" "$d/a.json"
bad "a JSON array" "not an ipcperf result" compare "$d/array.json" "$d/a.json"
bad "newer schema" "schema 2" compare "$d/a.json" "$d/schema2.json"
bad "results not an array" "no results array" compare "$d/noresults.json" "$d/a.json"
bad "a result without pattern" "results\[0\].pattern: missing" compare "$d/a.json" "$d/nopattern.json"
jq '.results[1].runs[3].latency_ns.p50 = "fast"' "$d/a.json" >"$d/p50text.json"
jq 'del(.results[1].runs[3].latency_ns.p50)' "$d/a.json" >"$d/nop50.json"
bad "a p50 that is not a number" "p50text.json: results\[1\].runs\[3\].latency_ns.p50: not an integer" compare "$d/a.json" "$d/p50text.json"
bad "a run without its p50" "nop50.json: results\[1\].runs\[3\].latency_ns.p50: missing" compare "$d/nop50.json" "$d/a.json"
bad "nothing in common" "no measured case" compare "$d/a.json" "$d/stream.json"
bad "one file" "two result files" compare "$d/a.json"
bad "three files" "two result files" compare "$d/a.json" "$d/a.json" "$d/a.json"
bad "-- twice" "-- given twice" compare "$d/a.json" -- "$d/a.json" -- "$d/a.json"
bad "nothing before --" "no file before --" compare -- "$d/a.json" "$d/a.json"
bad "nothing after --" "no file after --" compare "$d/a.json" "$d/a.json" --
bad "a bad file among several" "truncated.json" compare "$d/a.json" "$d/a2.json" -- "$d/a.json" "$d/truncated.json"
bad "bad drift" "--drift" compare "$d/a.json" "$d/a.json" --drift 100
bad "unknown metric" "unknown metric" compare "$d/a.json" "$d/a.json" --metric p95
bad "csv" "csv is not available" compare "$d/a.json" "$d/a.json" -f csv
bad "bad threshold" "--threshold" compare "$d/a.json" "$d/a.json" --threshold lots
bad "measurement option" "does not apply to compare" compare "$d/a.json" "$d/a.json" -t pipe

# compare by phase: an explanation added to every result (receive R ns,
# user 4 us per round trip), A's receive 3 us, B's 2 us.
explain() { # explain IN OUT RECEIVE_NS
	jq --argjson r "$3" '.results |= map(.explain = {available: true,
	  measured_ns: 9000, sum_ns: 7100, window_ns: 9000, phases: [
	  {name: "receive", side: "server", ns: $r, share: 0.3},
	  {name: "user", side: "client", ns: 4000, share: 0.4},
	  {name: "unexplained", side: "kernel", ns: 100, share: 0.01}],
	  others: [], migrations: {client: 0, server: 0}})' "$1" >"$2"
}
for i in 1 2 3 4; do
	explain "$d/a.json" "$d/xa$i.json" $((3000 + 10 * i))
	explain "$d/a.json" "$d/xb$i.json" $((2000 + 10 * i))
done
cmp "$d/xa1.json" "$d/xb1.json" -f json
jqt "by phase, one file a side: B - A of each phase" \
	'all(.cases[]; any(.phases[]; .phase == "server receive" and .diff_ns == -1000) and any(.phases[]; .phase == "client user" and .diff_ns == 0))'
jqt "by phase, one file a side: shown, said not judged" \
	'all(.cases[]; (.phases | map(has("verdict") | not) | all) and (.phases_note | test("not judged")))'
cmp "$d/xa1.json" "$d/xa2.json" "$d/xa3.json" "$d/xa4.json" -- "$d/xb1.json" "$d/xb2.json" "$d/xb3.json" "$d/xb4.json" -f json
jqt "by phase, four files a side: the shorter receive judged faster" \
	'all(.cases[]; any(.phases[]; .phase == "server receive" and .verdict == "faster"))'
jqt "by phase, four files a side: the unchanged phase is not" \
	'all(.cases[]; any(.phases[]; .phase == "client user" and .verdict != "faster" and .verdict != "slower"))'
cmp "$d/xa1.json" "$d/xb1.json"
check "by phase, the table: the phase and its difference" grep -q "server receive .* -1.00 µs" "$out"
cmp "$d/xa1.json" "$d/a.json" -f json
jqt "by phase, B not explained: said, nothing compared" \
	'all(.cases[]; (has("phases") | not) and (.phases_note | test("B was not explained")))'
cmp "$d/a.json" "$d/a2.json" -f json
jqt "by phase: neither explained, nothing said" 'all(.cases[]; has("phases_note") | not)'

run compare --help
is_rc 0 "compare --help"
check "compare --help: usage with the files" grep -q "usage: ipcperf compare .*A.json B.json" "$out"
check "compare --help: the options" grep -q -- "--fail-if-slower" "$out"

done_testing

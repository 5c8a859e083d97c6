# SPDX-License-Identifier: MIT
# ipcperf report --matrix without a fleet: result files made to look as
# if measured between hosts a, b and c (their host names and peers set
# with jq), merged into one matrix.  The merged percentiles must be what
# docs/json.md's bucket formula gives from the files' own histograms,
# computed here in jq; a server that never answered is a failed cell with
# the reason, named through --names; and the formats render it.
. "$(dirname "$0")/lib.bash"

run rr -t tcp -n 400 -w 10 -r 6 -f json -o "$T/r1.json"
is_rc 0 "a first result"
run rr -t tcp -n 300 -w 10 -r 6 -f json -o "$T/r2.json"
is_rc 0 "a second result"
# A server that is not there: a real failed result with its peer.
run rr --remote 127.0.0.1:1 -t tcp -n 10 -r 1 -f json -o "$T/r3.json"
is_rc 1 "rr --remote to a closed port: exit 1"
jqt "the failed result names its peer's address and no fingerprint" \
	'.results[0] | .status == "error" and .peer.target == "127.0.0.1:1" and .peer.host == null' \
	"$T/r3.json"

# as FILE HOST PEER-ADDRESS PEER-NAME OUT: FILE as if HOST measured it
# against the server PEER-NAME at PEER-ADDRESS.
as() {
	jq --arg h "$2" --arg t "$3" --arg p "$4" \
		'.host.hostname = $h | .results |= map(.peer = {kind: "remote", target: $t, host: (if $p == "" then null else {hostname: $p} end), other_tests: 0})' \
		"$1" >"$5"
}
as "$T/r1.json" a 10.9.0.2:5301 b "$T/a-b-1.json"
as "$T/r2.json" a 10.9.0.2:5301 b "$T/a-b-2.json"
as "$T/r2.json" b 10.9.0.1:5301 a "$T/b-a.json"
jq '.host.hostname = "c"' "$T/r3.json" >"$T/c-x.json"
printf '# test names\n127.0.0.1 x\n' >"$T/names.txt"
files="$T/a-b-1.json $T/a-b-2.json $T/b-a.json $T/c-x.json"

run report --matrix p50 --names "$T/names.txt" $files -f json -o "$T/m50.json"
is_rc 0 "report --matrix p50: exit 0 (failed cells are data)"
jqt "four hosts by their names, one matrix" \
	'.hosts == ["a", "b", "c", "x"] and (.matrices | length) == 1 and .metric == "p50"' \
	"$T/m50.json"
jqt "a -> b merges both files: 2 results, 12 runs, an interval" \
	'.matrices[0].cells[] | select(.from == "a" and .to == "b") | .results == 2 and .runs == 12 and .status == "ok" and .ci.low <= .ci.high and .basis == "merged histogram"' \
	"$T/m50.json"
jqt "c -> x failed, with the reason" \
	'.matrices[0].cells[] | select(.from == "c" and .to == "x") | .status == "failed" and (.error | test("127.0.0.1:1")) and (has("value") | not)' \
	"$T/m50.json"
jqt "three cells, none on the diagonal" \
	'.matrices[0].cells | length == 3 and all(.[]; .from != .to)' "$T/m50.json"

# The percentile of merged buckets by docs/json.md's formula, in jq:
# q, then the result files whose summary histograms are merged.
pct() {
	local q=$1
	shift
	jq -n --argjson q "$q" '
	def low(i): if i < 256 then i else ((i % 128) + 128) * pow(2; (i / 128 | floor) - 1) end;
	def width(i): if i < 256 then 1 else pow(2; (i / 128 | floor) - 1) end;
	[inputs | .results[0].summary.histogram] as $h
	| ($h | map(.buckets | split(" ") | map(split(":") | map(tonumber))) | add
	   | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)])) as $b
	| ($h | map(.total) | add) as $n
	| ($h | map(.min) | min) as $mn | ($h | map(.max) | max) as $mx
	| ($q * $n | ceil) as $r
	| first(foreach $b[] as $x (0; . + $x[1]; if . >= $r then $x[0] else empty end)) as $i
	| [[low($i) + ((width($i) - 1) / 2 | floor), $mn] | max, $mx] | min' "$@"
}
for q in 50 99; do
	[ $q = 99 ] && run report --matrix p99 $files -f json -o "$T/m99.json"
	want=$(pct 0.$q "$T/r1.json" "$T/r2.json")
	got=$(jq '.matrices[0].cells[] | select(.from == "a" and .to == "b") | .value' "$T/m$q.json")
	[ -n "$want" ] && [ "$(printf %.0f "$got")" = "$(printf %.0f "$want")" ]
	ok $? "a -> b p$q is the merged buckets' by the documented formula ($got, jq $want)"
	one=$(jq ".results[0].summary.latency_ns.p$q" "$T/r1.json")
	diag "p$q: r1 alone $one ns, merged $got ns"
done
samples=$(jq '[.results[0].summary.histogram.total] | add' "$T/r1.json" "$T/r2.json" | jq -s add)
jqt "the merged histogram holds every sample of both files ($samples)" \
	".matrices[0].cells[] | select(.from == \"a\" and .to == \"b\") | .histogram.total == $samples" \
	"$T/m50.json"

run report --matrix throughput $files -f csv
is_rc 0 "report --matrix throughput -f csv: exit 0"
n=$(grep -c '^"rr tcp' "$out")
[ "$n" = 3 ]; ok $? "csv: a row per cell ($n)"
grep -q '^"rr tcp req=1 resp=1",throughput,msgs_per_s,"a","b",ok,' "$out"
ok $? "csv: a -> b in messages per second"
run report --matrix p50 --names "$T/names.txt" $files
is_rc 0 "report --matrix as a table: exit 0"
grep -q "^  c -> x: failed: .*127.0.0.1:1" "$out"
ok $? "table: the failed pair with its reason under the matrix"
for f in markdown html; do
	run report --matrix p99 $files -f $f
	is_rc 0 "report --matrix -f $f: exit 0"
done
grep -q "<table" "$out"; ok $? "html: the matrix is a table"

# compare of two matrices: after, a -> b measured through an emulated
# 100 Mb/s LAN (50 us each way; its link words dropped so that the case
# is the same), and b -> a failing.
run rr -t tcp -n 100 -w 5 -r 6 --link lan-100m -f json -o "$T/r4.json"
is_rc 0 "a result through an emulated LAN"
jq '.results |= map(.link = "none" | del(.link_params))' "$T/r4.json" >"$T/r4n.json"
as "$T/r4n.json" a 10.9.0.2:5301 b "$T/after-a-b.json"
as "$T/r3.json" b 10.9.0.1:5301 a "$T/after-b-a.json"
run report --matrix p50 "$T/after-a-b.json" "$T/after-b-a.json" -f json -o "$T/after.json"
is_rc 0 "the matrix after"
run report --matrix p50 $files -f json -o "$T/before.json"
run compare "$T/before.json" "$T/after.json" -f json
is_rc 0 "compare of two matrices: exit 0"
jqt "a -> b is slower, with its ratio's interval above 1" \
	'.pairs[] | select(.from == "a" and .to == "b") | .verdict == "slower" and .ci.low > 1 and .ratio > 1' "$out"
jqt "b -> a failed in B, with the reason" \
	'.pairs[] | select(.from == "b" and .to == "a") | .verdict == "failed in B" and (.error_b | test("127.0.0.1:1"))' "$out"
jqt "both listed, and nothing else" \
	'[.slower_or_failed[] | .from + ">" + .to] | sort == ["a>b", "b>a"]' "$out"
run compare "$T/before.json" "$T/after.json" --fail-if-slower 10
is_rc 1 "compare --fail-if-slower 10: exit 1"
grep -q "^  slower: a -> b" "$out"; ok $? "the table lists a -> b as slower"
run compare "$T/before.json" "$T/before.json"
is_rc 0 "a matrix against itself: exit 0"
grep -q "0 slower, 0 failed in B" "$out"; ok $? "against itself: nothing slower"
run report --matrix p99 $files -f json -o "$T/p99.json"
run compare "$T/before.json" "$T/p99.json"
is_rc 2 "matrices of p50 and p99: exit 2"

run report --matrix p75 $files
is_rc 2 "--matrix p75: exit 2"
printf 'only-one-word\n' >"$T/bad.txt"
run report --matrix p50 --names "$T/bad.txt" $files
is_rc 2 "--names with a line that is not ADDRESS NAME: exit 2"
grep -q "line 1" "$err"; ok $? "and it names the line"
run report --names "$T/names.txt" $files
is_rc 2 "--names without --matrix: exit 2, not silently ignored"
grep -q -- "--names: only with --matrix" "$err"; ok $? "and it says why"
rm -f "$T"/*.json "$T"/*.txt
no_leftovers "matrix"
done_testing

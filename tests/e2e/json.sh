# SPDX-License-Identifier: MIT
# Output contracts: the JSON document (docs/json.md, schema 1), CSV, and -o
# writing a whole file or none.
. "$(dirname "$0")/lib.bash"

run rr -t pipe,udp --req 1,64 --resp 8 -n 100 -w 5 -r 2 -f json
is_rc 0 "json run"
jqt "parses, schema 1" '.ipcperf.schema == 1 and (.ipcperf.version | type) == "string"'
jqt "host facts" '(.host.kernel | type) == "string" and (.host.cpus | type) == "number" and .host.cpus >= 1 and (.host.cpu_model | type) == "string"'
jqt "command and argv" '.command == "rr" and (.argv | type) == "array" and (.argv | index(["-f","json"]) != null)'
jqt "results array of 4" '(.results | type) == "array" and (.results | length) == 4'
jqt "result identity fields" 'all(.results[]; (.pattern == "rr") and (.transport | type) == "string" and .engine == "blocking" and .status == "ok")'
jqt "rr sizes are integers" 'all(.results[]; (.req_size | type) == "number" and (.resp_size == 8))'
jqt "no error field on ok results" 'all(.results[]; has("error") | not)'
jqt "runs carry the contract fields" \
	'all(.results[].runs[]; has("iterations") and has("elapsed_ns") and has("msgs_per_s") and has("bytes_per_s") and (.latency_ns | has("min") and has("mean") and has("stddev") and has("p50") and has("p90") and has("p99") and has("p999") and has("max")))'
jqt "summary carries the contract fields" \
	'all(.results[].summary; has("iterations") and has("msgs_per_s") and has("bytes_per_s") and has("latency_ns") and has("cv"))'
jqt "no ci with 2 runs" 'all(.results[].summary; has("ci") | not)'
jqt "config recorded" '.config.iterations == 100 and .config.runs == 2 and .config.warmup == 5 and .config.verify == true'

run rr -t pipe -n 50 -w 1 -r 6 -f json
is_rc 0 "six runs"
jqt "ci with 6 runs, around p50s" \
	'all(.results[].summary; .ci.level == 0.95 and .ci.low <= .ci.high and .ci.metric == "p50_ns")'

run stream -t pipe --size 1k --count 10 -n 2 -r 1 -f csv
is_rc 0 "csv run"
check "csv header first" sh -c "head -n 1 $out | grep -q '^schema,pattern,transport,engine,status'"
check "csv has one row per result" test "$(wc -l <"$out")" -eq 2
ncol=$(head -n 1 "$out" | awk -F, '{print NF}')
check "csv rows have as many fields as the header" sh -c "tail -n +2 $out | awk -F, -v n=$ncol 'NF != n {exit 1}'"

dest="$T/res/out.json"
mkdir -p "$T/res"
run rr -t pipe -n 50 -r 1 -f json -o "$dest"
is_rc 0 "-o FILE"
check "-o writes nothing to stdout" test ! -s "$out"
jqt "-o file is whole JSON" '.results | length == 1' "$dest"
check "-o leaves no temporary file" test "$(ls -A "$T/res" | wc -l)" -eq 1

# Interrupted before the report is written: the target keeps its old
# content (the new report goes to a temporary file renamed at the end).
echo '{"old": true}' >"$dest"
"$IPCPERF" rr --pin none -t pipe -d 30 -r 1 -f json -o "$dest" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
jqt "a killed run leaves the old file untouched" '.old == true' "$dest"
pkill -KILL -f "$TAG" 2>/dev/null
rm -f "$T"/res/.out.json.* "$TMPDIR"/ipcperf.*/* 2>/dev/null
rmdir "$TMPDIR"/ipcperf.* 2>/dev/null

# The checks above cannot pass on a document without results: jqt's all()
# needs at least one element.
echo '{"results": []}' >"$T/empty.json"
echo '{"results": [{"status": "ok", "runs": []}]}' >"$T/norun.json"
! jq_true 'all(.results[]; .status == "ok")' "$T/empty.json"
ok $? "all() over an empty results array is false"
! jq_true 'all(.results[].runs[]; .iterations > 0)' "$T/norun.json"
ok $? "all() over a result without runs is false"
jq_true 'all(.results[]; .status == "ok")' "$T/norun.json"
ok $? "all() over one ok result is true"

done_testing

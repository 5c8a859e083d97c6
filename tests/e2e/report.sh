# SPDX-License-Identifier: MIT
# ipcperf report: saved results rendered again without measuring (JSON back
# as it was, CSV, the table, Markdown that GitHub's renderer turns into
# tables, HTML), several files as one report, -f markdown and -f html on a
# measuring command, and bad input: one line, a hint, exit 2.
. "$(dirname "$0")/lib.bash"

d="$T/rep"
mkdir -p "$d"
"$IPCPERF" rr --pin none -t pipe,unix --req 1,64 -n 50 -w 5 -r 3 -q -f json -o "$d/rr.json"
ok $? "an rr document to render"
"$IPCPERF" stream --pin none -t pipe --size 64,1k --count 10 -n 2 -w 1 -r 2 -q -f json -o "$d/stream.json"
ok $? "a stream document to render"

run report "$d/rr.json" -f json
is_rc 0 "report -f json: exit 0"
if jq -e --slurpfile a "$d/rr.json" '.results == $a[0].results and .argv == $a[0].argv and .host == $a[0].host' "$out" >/dev/null; then
	ok 0 "report -f json: results, command line and host as measured"
else
	ok 1 "report -f json: results, command line and host as measured"
fi

run report "$d/rr.json"
is_rc 0 "report (table): exit 0"
check "report (table): a row per case" test "$(grep -cE '^(pipe|unix) ' "$out")" = 4
check "report (table): the heading of rr" grep -q '^rr: request/response' "$out"

run report "$d/rr.json" -f csv
check "report -f csv: a header and a row per case" test "$(wc -l <"$out")" = 5

run report "$d/rr.json" "$d/stream.json" -f json
is_rc 0 "two files: exit 0"
jqt "two files: every result of both" '.results | length == 6'
jqt "two files: the command line is report's" '.argv[1] == "report" and .command == "report"'
run report "$d/rr.json" "$d/stream.json"
check "two files (table): a section per pattern" grep -q '^stream: ' "$out"

# Markdown, rendered by GitHub's own renderer when it can be had.
run report "$d/rr.json" -f markdown
is_rc 0 "report -f markdown: exit 0"
check "markdown: a heading" grep -q '^### rr: request/response' "$out"
check "markdown: an alignment row" grep -qE '^\| :-+ \| -+: \|' "$out"
if sh scripts/deps.sh markdown >/dev/null 2>&1; then
	cmark-gfm -e table "$out" >"$T/md.html"
	check "markdown renders as one table" test "$(grep -c '<table>' "$T/md.html")" = 1
	check "... with a row per case" test "$(grep -c '<tr>' "$T/md.html")" = 5
	cols=$(grep -m1 '^| transport' "$out" | tr -cd '|' | wc -c)
	check "... and every column of the text" test "$(grep -c '<th ' "$T/md.html")" = $((cols - 1))
else
	for i in 1 2 3; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip cmark-gfm cannot be installed here"
	done
fi

run report "$d/rr.json" -f html
is_rc 0 "report -f html: exit 0"
check "html: a page" grep -q '^<!DOCTYPE html>' "$out"
check "html: charts in it" grep -q '<svg [^>]*class="chart strip"' "$out"
check "html: the command line that measured" grep -q 'rr --pin none -t pipe,unix --req 1,64' "$out"
check "html: no script" sh -c "! grep -qi '<script' '$out'"

# -f markdown and -f html straight from a measuring command.
run rr -t pipe -n 50 -w 5 -r 2 -q -f markdown
is_rc 0 "rr -f markdown: exit 0"
check "rr -f markdown: a table row for pipe" grep -qE '^\| pipe +\|' "$out"
run rr -t pipe -n 50 -w 5 -r 2 -q -f html -o "$d/rr.html"
is_rc 0 "rr -f html -o: exit 0"
check "rr -f html -o: a page with charts" grep -q 'class="chart spectrum"' "$d/rr.html"

# A saved comparison is made again from the two files it names, also
# when the three have moved together.
"$IPCPERF" rr --pin none -t pipe,unix --req 1,64 -n 50 -w 5 -r 3 -q -f json -o "$d/rr2.json"
(cd "$d" && "$IPCPERF" compare rr.json rr2.json -f json -o cmp.json)
ok $? "a saved comparison"
run report "$d/cmp.json"
is_rc 0 "report of a comparison: exit 0"
check "report of a comparison: its table" grep -q '^compare  A: ' "$out"
"$IPCPERF" compare "$d/rr.json" "$d/rr2.json" >"$T/direct.txt"
# The same table but for the two heading lines naming the files.
check "... the same table as compare made" bash -c "diff <(sed 1,2d '$out') <(sed 1,2d '$T/direct.txt')"
mkdir -p "$d/moved" && cp "$d/rr.json" "$d/rr2.json" "$d/cmp.json" "$d/moved/"
run report "$d/moved/cmp.json" -f markdown
is_rc 0 "a comparison moved with its files: found next to it"
# Several files a side (two levels) and --drift: made again with them all.
(cd "$d" && "$IPCPERF" compare rr.json rr2.json -- rr2.json rr.json --drift 7 -f json -o cmp2.json)
ok $? "a saved comparison of two files a side"
run report "$d/cmp2.json"
is_rc 0 "report of it: exit 0"
check "... both files of A named" grep -q '^compare  A: 2 files: .*rr.json .*rr2.json' "$out"
check "... and of B" grep -q '^         B: 2 files: .*rr2.json .*rr.json' "$out"
run report "$d/cmp2.json" -f json
jqt "... --drift kept" '.drift_pct == 7 and (.a.files | length) == 2 and (.b.files | length) == 2'
run report "$d/cmp.json" "$d/rr.json"
is_rc 2 "a comparison among results to merge: exit 2"
run report "$d/cmp.json" -f csv
is_rc 2 "a comparison as csv: exit 2"

# Bad input: one line and a hint, exit 2.
run report
is_rc 2 "report without a file: exit 2"
check "report without a file: says so" grep -q 'at least one result file' "$err"
run report "$d/missing.json"
is_rc 2 "a missing file: exit 2"
check "a missing file: named" grep -q 'missing.json' "$err"
echo '{"hello": 1}' >"$d/other.json"
run report "$d/other.json"
is_rc 2 "a JSON file that is not a result: exit 2"
check "... named, with the reason" grep -q 'other.json.*not an ipcperf result' "$err"
run report "$d/rr.json" -f yaml
is_rc 2 "an unknown format: exit 2"
check "... the formats named in the hint" grep -q 'markdown or html' "$err"
run report "$d/rr.json" -n 5
is_rc 2 "a measuring option: exit 2"

# What a file may hold besides its size: refused before parsing, in one
# line that names the file and the limit (report parses a saved comparison
# first, compare a saved matrix: neither gets to parse it either).
awk 'BEGIN { printf "{\"ipcperf\": {\"schema\": 1}, \"results\": [0";
	for (i = 0; i < 50000; i++) printf ",0"; print "]}" }' >"$d/many.json"
run report "$d/many.json"
is_rc 2 "50,001 results: exit 2"
check "... named, with the limit" grep -q '^ipcperf: .*many.json: more than 50000 results$' "$err"
{ printf '['; yes 0, | head -n 8388608 | tr -d '\n'; printf '0]'; } >"$d/values.json"
for cmd in report compare; do
	if [ $cmd = compare ]; then run compare "$d/values.json" "$d/rr.json"; else run report "$d/values.json"; fi
	is_rc 2 "$cmd: 8,388,609 JSON values: exit 2"
	check "... named, with the limit" grep -q '^ipcperf: .*values.json: more than 8388608 JSON values$' "$err"
done
rm -f "$d/many.json" "$d/values.json"

no_leftovers report
done_testing

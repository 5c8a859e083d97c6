# SPDX-License-Identifier: MIT
# HTML reports in a real browser: headless Chromium loads each page (a
# gallery of every chart kind, and the reports of the seeds' shapes), and
# the checks below read what it saw (tests/e2e/browser.py): every chart
# rendered with the marks its data calls for, no console error, no request
# or element pointing outside the file, no script, a screenshot per chart
# kind and a PDF print (kept under $BUILD/artifacts/html, not in git).
. "$(dirname "$0")/lib.bash"

BUILD=${BUILD:-build}
if ! reason=$(sh scripts/deps.sh browser 2>&1); then
	echo "1..0 # skip headless Chromium cannot be had: $(echo "$reason" | tr '\n' ' ')"
	exit 77
fi
art="$BUILD/artifacts/html"
rm -rf "$art"
mkdir -p "$art"

# browse FILE:PREFIX...: load the pages, JSON of what was seen into $T/seen.
browse() {
	python3 tests/e2e/browser.py --out "$art" "$@" >"$T/seen.json" 2>"$T/browser.err"
	brc=$?
	if [ $brc != 0 ]; then
		diag "browser.py failed: $(head -c 400 "$T/browser.err")"
	fi
	return $brc
}

# page_ok N WHAT: the checks every page must pass, on page N of seen.json.
page_ok() {
	local n=$1 w=$2 s="$T/seen.json"
	jqt "$w: charts found" ".[$n].charts | length > 0" "$s"
	jqt "$w: every mark has a box of its own inside its chart" \
		"[.[$n].charts[] | select(.marks != .visible or .marks != .inside or .width <= 0)] | length == 0" "$s"
	jqt "$w: no console message, exception or log error" ".[$n].console == []" "$s"
	jqt "$w: no request outside the file" ".[$n].requests == []" "$s"
	jqt "$w: no element or style pointing outside the file" ".[$n].externals == []" "$s"
	jqt "$w: no script" ".[$n].scripts == 0" "$s"
	jqt "$w: prints to PDF" ".[$n].pdf.pages >= 1" "$s"
	if ! jq -e ".[$n].console == []" "$s" >/dev/null; then
		jq -r ".[$n].console[] | \"#   \" + .level + \": \" + .text" "$s" | head -n 10
	fi
}

# marks N KIND COUNT: the first chart of KIND on page N has COUNT marks.
marks() {
	jqt "page $1: a $2 chart with $3 marks" \
		"[.[$1].charts[] | select(.kind == \"$2\")][0].marks == $3" "$T/seen.json"
}

# shot_ok PATH: a PNG file was written there.
shot_ok() {
	if [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
		ok 0 "screenshot ${1##*/}"
	else
		ok 1 "screenshot ${1##*/}"
	fi
}

# The gallery: every chart kind from made-up arrays, hostile strings in
# titles and labels (tests/unit/test_svg.c).
"$BUILD/tests/test_svg" --gallery "$T/gallery.html"
ok $? "the chart gallery is written"
browse "$T/gallery.html:gallery"
ok $? "Chromium loads the gallery"
page_ok 0 gallery
marks 0 spectrum 6
marks 0 strip 20
marks 0 lines 35
marks 0 heatmap 144
marks 0 bars 18
marks 0 forest 4
# Each escaped "<script" in the file is one element's text in the page.
nesc=$(grep -o '&lt;script' "$T/gallery.html" | wc -l)
jqt "gallery: the $nesc hostile strings are shown as text, not run as markup" \
	".[0].scriptAsText == $nesc and $nesc > 0 and .[0].scripts == 0" "$T/seen.json"
jqt "gallery: a table" '.[0].tables == 1' "$T/seen.json"
jqt "gallery: a print stylesheet" '.[0].printCss' "$T/seen.json"
for k in spectrum strip lines heatmap bars forest; do
	shot_ok "$art/gallery-$k.png"
done

# The seeds' shapes, measured small, saved as JSON and turned into HTML by
# ipcperf report (and compare): the LLDB matrix, the FreeBSD table, a
# replay across links, a comparison.
d="$T/seeds"
mkdir -p "$d"
"$IPCPERF" rr --pin none -t tcp --req 0..1024 --resp 0..1024 -n 20 -w 2 -r 2 -q -f json -o "$d/lldb.json"
ok $? "the LLDB matrix measured (144 cases)"
"$IPCPERF" stream --pin none -t fifo --size 64..4096 --count 100,1000,5000 -n 2 -w 1 -r 2 -q -f json -o "$d/fifo.json"
ok $? "the FreeBSD table measured (7 sizes x 3 counts)"
"$IPCPERF" replay --pin none traces/stub-multi.log traces/gdbserver-true.log --link localhost,lan-100m -r 2 -q -f json -o "$d/replay.json"
ok $? "a replay measured (2 traces x 2 links)"
"$IPCPERF" rr --pin none -t pipe,unix --req 1,64 -n 50 -w 5 -r 6 -q -f json -o "$d/a.json" &&
	"$IPCPERF" rr --pin none -t pipe,unix --req 1,64 -n 50 -w 5 -r 6 -q -f json -o "$d/b.json"
ok $? "two rr results to compare"
for k in lldb fifo replay; do
	"$IPCPERF" report "$d/$k.json" -f html -o "$d/$k.html"
	ok $? "ipcperf report $k.json -f html"
done
"$IPCPERF" compare "$d/a.json" "$d/b.json" -f json -o "$d/compare.json" &&
	"$IPCPERF" report "$d/compare.json" -f html -o "$d/compare.html"
ok $? "ipcperf report compare.json -f html"
"$IPCPERF" compare "$d/a.json" "$d/b.json" -f html -o "$d/compare2.html"
ok $? "ipcperf compare -f html"
check "compare -f html and report of the saved comparison: one page" \
	cmp "$d/compare.html" "$d/compare2.html"
browse "$d/lldb.html:lldb" "$d/fifo.html:fifo" "$d/replay.html:replay" "$d/compare.html:compare"
ok $? "Chromium loads the four reports"
n=0
for k in lldb fifo replay compare; do
	page_ok $n "$k"
	n=$((n + 1))
done
s="$T/seen.json"
# Marks the data call for: a cell per case, a dot per run, a point per
# size and count, a bar per trace and link, a square per compared case.
runs() { jq '[.results[].runs | length] | add' "$1"; }
marks 0 heatmap 144
jqt "lldb: the strips hold a dot per run ($(runs "$d/lldb.json"))" \
	"[.[0].charts[] | select(.kind == \"strip\") | .marks] | add == $(runs "$d/lldb.json")" "$s"
jqt "lldb: a spectrum for every case (144 lines in charts of 6)" \
	'[.[0].charts[] | select(.kind == "spectrum")] | length == 24' "$s"
marks 1 lines 21
jqt "fifo: the strips hold a dot per run ($(runs "$d/fifo.json"))" \
	"[.[1].charts[] | select(.kind == \"strip\") | .marks] | add == $(runs "$d/fifo.json")" "$s"
marks 2 bars 4
jqt "replay: a spectrum and a strip" \
	'[.[2].charts[] | select(.kind == "spectrum" or .kind == "strip")] | length == 2' "$s"
npairs=$("$IPCPERF" compare "$d/a.json" "$d/b.json" -f json | jq '.cases | length')
marks 3 forest "$npairs"
jqt "every report names its host and command line" \
	'[.[0,1,2].tables] | all(. >= 3)' "$s"
for k in heatmap strip spectrum; do shot_ok "$art/lldb-$k.png"; done
shot_ok "$art/fifo-lines.png"
shot_ok "$art/replay-bars.png"
shot_ok "$art/compare-forest.png"

# The browser check itself fails on a broken page, so that a pass above
# means something: a bad attribute, a script error, an outside image.
cat >"$T/bad.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head>
<body><svg class="chart bad" width="100" height="100">
<rect class="mark" width="-5" height="10"/></svg>
<img src="http://ipcperf-test.invalid/x.png">
<script>console.error("boom"); undefinedFn();</script></body></html>
EOF
browse "$T/bad.html:bad"
ok $? "Chromium loads a broken page"
s="$T/seen.json"
jqt "broken page: the bad SVG attribute is reported" '[.[0].console[] | select(.text | test("attribute width"))] | length == 1' "$s"
jqt "broken page: console.error is reported" '[.[0].console[] | select(.text == "boom")] | length == 1' "$s"
jqt "broken page: the exception is reported" '[.[0].console[] | select(.level == "exception")] | length == 1' "$s"
jqt "broken page: the outside request is reported" '.[0].requests == ["http://ipcperf-test.invalid/x.png"]' "$s"
jqt "broken page: the mark without a box is seen" '.[0].charts[0].marks == 1 and .[0].charts[0].visible == 0' "$s"
jqt "broken page: the script is seen" '.[0].scripts == 1' "$s"

sleep 0.2
left=$(pgrep -f "user-data-dir=$TMPDIR" | head -n 3)
ok "$([ -z "$left" ]; echo $?)" "no Chromium process left running"
[ -n "$left" ] && kill -KILL $left
no_leftovers html
done_testing

# HTML reports in a real browser: headless Chromium loads each page, and
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

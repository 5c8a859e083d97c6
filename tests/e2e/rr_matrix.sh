# SPDX-License-Identifier: MIT
# rr --matrix: LLDB's speed-test grid (req down, resp across, p50 ±half
# its interval over trans/s), live and from a saved result; each cell is
# the result's own figure, a case not measured prints "-", and the view
# is refused where it has no meaning.
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "1..0 # skip python3 is not installed"; exit 77; }

# grid FILE: the first matrix of a table as "ROW COL VALUE|RATE" lines,
# after a "cols A B ..." line.
grid() {
	python3 - "$1" <<'EOF'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
i = next(k for k, l in enumerate(lines) if l.startswith("req \\ resp"))
cols = re.split(r"\s{2,}", lines[i].strip())[1:]
print("cols", *cols)
row = None
for l in lines[i + 1:]:
    if not l.strip() or l.startswith("each cell"):
        break
    cells = re.split(r"\s{2,}", l.strip())
    if l.startswith("  "):  # the rate line under a row
        rates = re.split(r"\s{2,}", l[len(l) - len(l.lstrip()):].strip())[1:]
        # a missing case has no rate: align the rates to the cells
        # that hold a value
        it = iter(rates)
        for c, v in zip(cols, vals):
            print(row, c, "rate", next(it) if v != "-" else "")
        continue
    row, vals = cells[0], cells[1:]
    for c, v in zip(cols, vals):
        print(row, c, "cell", v)
EOF
}

# same FILE.json GRIDLINES: every cell equals its case's estimate, the
# half-width and trans/s at the precision printed; "-" where the JSON
# has no such case.  Prints the first disagreement.
same() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
res = {(r["req_size"], r["resp_size"]): r for r in doc["results"]}
scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9, "/s": 1, "k/s": 1e3,
         "M/s": 1e6, "G/s": 1e9}
def at3(v, s):  # v shown with three significant digits in unit s
    return float("%.3g" % (v / s))
bad = []
n = 0
for l in open(sys.argv[2], encoding="utf-8"):
    f = l.split(" ", 3)
    if f[0] == "cols":
        continue
    key, what, text = (int(f[0]), int(f[1])), f[2], f[3].strip()
    r = res.get(key)
    if r is None:
        if text not in ("-", ""):
            bad.append("%s %s: %r where nothing was measured" % (key, what, text))
        continue
    n += 1
    s = r["summary"]
    if what == "cell":
        num, unit, *pm = text.split()
        want = at3(s["estimate"], scale[unit])
        if float(num) != want:
            bad.append("%s: cell %s, estimate %s" % (key, text, s["estimate"]))
        h = s["headline"].get("half_width_pct")
        if h is not None and (not pm or abs(float(pm[0].strip("±%")) - h) > 0.051 * max(h, 1)):
            bad.append("%s: cell %s, half-width %.3g%%" % (key, text, h))
    else:
        num, unit = text.split()
        if float(num) != at3(s["msgs_per_s"], scale[unit]):
            bad.append("%s: rate %s, msgs_per_s %s" % (key, text, s["msgs_per_s"]))
if bad or not n:
    print(bad[0] if bad else "no cell compared")
    sys.exit(1)
EOF
}

# The live grid: three rows, two columns, a rate under every row.
run rr -t pipe --req 0,4,8 --resp 0,16 -n 200 -r 6 --pin 0,0 --matrix
is_rc 0 "rr --matrix"
grid "$out" >"$T/g"
check "columns are the resp sizes" grep -qx "cols 0 16" "$T/g"
check "rows are the req sizes" test "$(awk '$3 == "cell" {print $1}' "$T/g" | uniq | paste -sd,)" = "0,4,8"
check "six cells, each p50 ±half-width" test "$(grep -cE ' cell [0-9.]+ (ns|µs|ms) ±[0-9.]+%$' "$T/g")" = 6
check "six rates in trans/s" test "$(grep -cE ' rate [0-9.]+ [kMG]?/s$' "$T/g")" = 6
check "the cell is said once, under the grid" grep -q "^each cell: p50, the median of the runs' p50, ±half the width of its 95% interval; under it trans/s" "$out"
check "no one-row-per-case table" test "$(grep -c 'pipe  .*ok$' "$out")" = 0

# The same measurement saved, then shown as a grid: the figures are the
# JSON's own.
run rr -t pipe --req 0,4,8 --resp 0,16 -n 200 -r 6 --pin 0,0 -f json -o "$T/mx.json"
is_rc 0 "rr saved as JSON"
run report --matrix sizes "$T/mx.json"
is_rc 0 "report --matrix sizes"
grid "$out" >"$T/g"
same "$T/mx.json" "$T/g" >"$T/why"
ok $? "each cell is its case's estimate, half-width and msgs_per_s"
[ -s "$T/why" ] && diag "$(cat "$T/why")"

# One case left out of the file: its cell is "-", the others stay.
jq 'del(.results[] | select(.req_size == 4 and .resp_size == 16))' "$T/mx.json" >"$T/hole.json"
run report --matrix sizes "$T/hole.json"
is_rc 0 "report --matrix of a file with a case missing"
grid "$out" >"$T/g"
check "the missing case prints -" grep -qx "4 16 cell -" "$T/g"
check "the others print figures" test "$(grep -cE ' cell [0-9.]+ ' "$T/g")" = 5
same "$T/hole.json" "$T/g" >"$T/why"
ok $? "the cells around the hole are still their cases'"

# The same file twice: a cell measured again shows the first, and says so.
run report --matrix sizes "$T/mx.json" "$T/mx.json"
is_rc 0 "report --matrix of one file twice"
check "one grid, and the repeats said" grep -q "^6 cases measured a cell again" "$out"
same "$T/mx.json" <(grid "$out") >"$T/why"
ok $? "the repeated cells show the first file's figures"

# More resp sizes than a grid has columns: the rest are said, not lost.
jq '.results |= [range(0; 65) as $k | (.[0] | .resp_size = $k)]' "$T/mx.json" >"$T/wide.json"
run report --matrix sizes "$T/wide.json"
is_rc 0 "report --matrix of 65 resp sizes"
check "the two past the last column are said" grep -q "^2 cases not shown: more than 63 values of resp" "$out"

run report --matrix sizes -f markdown "$T/mx.json"
is_rc 0 "report --matrix sizes -f markdown"
check "a Markdown grid" grep -qE '^\| req \\\\ resp +\| +0 \| +16 \|$' "$out"

# Against a stub (--target): a grid per target, its rate the pattern's.
run rr --target ipcperf --req 0,4 --resp 0,8 -n 20 -r 1 --pin 0,0 --matrix
is_rc 0 "rr --target ipcperf --matrix"
check "the target's grid is named by its target" grep -q "target=ipcperf, cpus 1 (CPU 0):$" "$out"
grid "$out" >"$T/g"
check "its grid is req 0,4 by resp 0,8" test "$(grep -c ' cell [0-9.]* [nµm]*s$' "$T/g"),$(grep -x 'cols 0 8' "$T/g")" = "4,cols 0 8"
check "its rate is samples/s" grep -q "^  samples/s " "$out"

# Refused: one error line and exit 2.
one_error() { # one_error "description" ARGS...
	local d=$1
	shift
	run_default "$@"
	is_rc 2 "$d: exit 2"
	check "$d: one error line naming --matrix" test "$(grep -c '^ipcperf: .*--matrix' "$err")" = 1
}
one_error "rr --matrix -f json" rr -t pipe -n 10 -r 1 --matrix -f json
one_error "stream --matrix" stream -t pipe --matrix
one_error "report --matrix with an unknown view" report --matrix bogus "$T/mx.json"
run_default rr --help
check "rr --help lists --matrix" grep -q -- "--matrix  *grids as LLDB's speed-test" "$out"
no_leftovers "rr --matrix"

done_testing

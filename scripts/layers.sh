#!/bin/sh
# SPDX-License-Identifier: MIT
# Fail on an #include that points up or sideways in the layer order of
# docs/architecture.md, and print that order:
#
#   cli -> report -> doc -> run -> pattern -> framing/link -> engine
#   -> transport, remote beside doc, stats and base below all (used by
#   all, using none)
#
# A file may include its own layer and any layer below it; layers beside
# each other (doc and remote, framing and link, stats and base) may not
# include each other.
#
# Files checked: src/LAYER/*.[ch] and include/ipcperf/LAYER.h.  A folder
# under src/ or a public header whose layer is not in the table below
# fails too, so a new layer is placed before it is used.  Tests and
# benchmarks may include anything.
#
# Usage: layers.sh [ROOT]   (ROOT: the source tree, default .)
set -u
root=${1:-.}
cd "$root" || exit 2

# layer:rank.  Higher ranks may include lower ones.  The umbrella header
# ipcperf.h pulls in every layer, so only the CLI may include it.
ranks="cli:14 ipcperf:13 report:12 doc:10 remote:10 run:8 explain:7 pattern:6
framing:4 link:4 engine:2 transport:0 stats:-2 base:-2"

order="cli -> report -> doc -> run -> explain -> pattern -> framing/link \
-> engine -> transport (remote beside doc; stats and base below all)"

files=$(find src include/ipcperf -type f \( -name '*.c' -o -name '*.h' \) \
	2>/dev/null | LC_ALL=C sort)
[ -n "$files" ] || { echo "layers: no sources under $root" >&2; exit 2; }

# shellcheck disable=SC2086
awk -v ranks="$ranks" -v order="$order" '
BEGIN {
	n = split(ranks, kv, /[ \n]+/)
	for (i = 1; i <= n; i++) {
		split(kv[i], p, ":")
		rank[p[1]] = p[2] + 0
	}
	bad = 0; incs = 0; nfiles = 0
}
# The layer of a path: src/LAYER/... or include/ipcperf/LAYER.h.
function layer_of(path,   a, m) {
	m = split(path, a, "/")
	if (a[1] == "src" && m >= 3)
		return a[2]
	if (a[1] == "include" && a[2] == "ipcperf" && m == 3) {
		sub(/\.h$/, "", a[3])
		return a[3]
	}
	return ""
}
# Where a quoted include of file @f resolves: ipcperf/X.h is the public
# header X; LAYER/x.h is under src/; a bare name is next to the file.
function target_of(f, inc,   a, m, dir) {
	m = split(inc, a, "/")
	if (a[1] == "ipcperf" && m == 2)
		return "include/ipcperf/" a[2]
	if (m >= 2 && a[1] != "..")
		return "src/" inc
	dir = f
	sub(/\/[^\/]*$/, "", dir)
	return dir "/" inc
}
FNR == 1 {
	nfiles++
	me = layer_of(FILENAME)
	if (!(me in rank)) {
		printf "%s: layer \"%s\" is not in scripts/layers.sh " \
		       "(place it in the layer order)\n", FILENAME, me
		bad++
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*$/, "", inc)
	incs++
	t = target_of(FILENAME, inc)
	them = layer_of(t)
	if (them == "" || !(them in rank)) {
		printf "%s:%d: \"%s\" is in no known layer\n", FILENAME, FNR, inc
		bad++
		next
	}
	if (!(me in rank) || them == me)
		next
	if (rank[them] > rank[me]) {
		printf "%s:%d: %s includes \"%s\" (%s), a layer above it\n",
		       FILENAME, FNR, me, inc, them
		bad++
	} else if (rank[them] == rank[me]) {
		printf "%s:%d: %s includes \"%s\" (%s), a layer beside it\n",
		       FILENAME, FNR, me, inc, them
		bad++
	}
}
END {
	if (bad) {
		printf "layers: %d include(s) against the layer order " \
		       "(%s)\n", bad, order
		exit 1
	}
	printf "layers: %s\n", order
	printf "layers: %d files, %d includes, every one pointing down\n",
	       nfiles, incs
}' $files

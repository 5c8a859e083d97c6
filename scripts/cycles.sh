#!/bin/sh
# SPDX-License-Identifier: MIT
# Fail on a cycle between .c files: file A calls or reads a name defined
# in B, and B (perhaps through others) one defined in A.  Such files are
# one piece of code in several files: neither can be read, tested or
# replaced without the other.  The graph comes from the objects' symbol
# tables (nm): what each object leaves undefined against what the others
# define, so inline functions and macros in headers do not count.
#
# Cycles listed in scripts/cycles.known (one a line: its files, sorted,
# space separated) are reported and allowed, so that a cycle in files
# being worked on elsewhere does not hold back every other change; a new
# cycle, or a known one that grew, fails.  A known one that is gone is
# said, to be struck from the list.
#
# Usage: cycles.sh [OBJDIR]   (default build/obj: objects under
# OBJDIR/src/LAYER/*.o, as make builds them)
set -u
obj=${1:-build/obj}
known=$(dirname "$0")/cycles.known

objs=$(find "$obj/src" -name '*.o' 2>/dev/null | LC_ALL=C sort)
[ -n "$objs" ] || { echo "cycles: no objects under $obj/src (run make)" >&2; exit 2; }

# One line per symbol: "D file sym" (defined) or "U file sym" (used).
# shellcheck disable=SC2086
for o in $objs; do
	f=${o#"$obj"/}
	f=${f%.o}.c
	nm "$o" | awk -v f="$f" '
		NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", f, $3 }
		NF == 2 && $1 == "U" { print "U", f, $2 }'
done | awk -v known="$known" '
$1 == "D" { def[$3] = $2; files[$2] = 1; next }
{ use[NR] = $2 " " $3; files[$2] = 1 }
END {
	for (k in use) {
		split(use[k], p, " ")
		if ((p[2] in def) && def[p[2]] != p[1] &&
		    !((p[1] SUBSEP def[p[2]]) in edge)) {
			edge[p[1], def[p[2]]] = 1
			adj[p[1]] = adj[p[1]] " " def[p[2]]
		}
	}
	while ((getline line < known) > 0)
		if (line !~ /^#/ && line != "")
			allowed[line] = 1
	idx = 0; sp = 0; bad = 0
	for (v in files)
		if (!(v in index_of))
			scc(v)
	for (c in allowed)
		if (!(c in seen))
			print "cycles: no longer a cycle, strike it from " \
				"scripts/cycles.known: " c
	printf "cycles: %d files, %d known cycle(s)%s\n", length(files), \
		nknown + 0, bad ? ", " bad " new" : ", no new one"
	exit bad ? 1 : 0
}
function scc(v,    n, i, w, m, list, nl, s) {
	index_of[v] = low[v] = ++idx
	stack[++sp] = v; on[v] = 1
	n = split(adj[v], m, " ")
	for (i = 1; i <= n; i++) {
		w = m[i]
		if (!(w in index_of)) {
			scc(w)
			if (low[w] < low[v]) low[v] = low[w]
		} else if ((w in on) && index_of[w] < low[v])
			low[v] = index_of[w]
	}
	if (low[v] != index_of[v])
		return
	nl = 0
	do {
		w = stack[sp--]; delete on[w]; list[++nl] = w
	} while (w != v)
	if (nl < 2)
		return
	sortl(list, nl)
	s = list[1]
	for (i = 2; i <= nl; i++) s = s " " list[i]
	seen[s] = 1
	if (s in allowed) {
		nknown++
		print "cycles: known: " s
	} else {
		bad++
		print "cycles: a cycle between " s
	}
}
function sortl(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}'

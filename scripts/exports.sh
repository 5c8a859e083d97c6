#!/bin/sh
# SPDX-License-Identifier: MIT
# Check what the library exports.  Every global symbol an archive (.a)
# defines must be ipc_*, and there must be some (an empty or broken archive
# is no pass).  With --map MAP (the version script, src/libipcperf.map),
# the names each library exports (an archive's globals, a shared object's
# dynamic symbols) must be exactly the names MAP lists: a name added,
# removed or renamed is printed as a diff line ("+ name": exported, not
# listed; "- name": listed, not exported) and fails the check, so that any
# change to the interface shows up in the version script's history.
# Usage: exports.sh [--map MAP] LIBRARY...
set -u
map=""
if [ "${1:-}" = --map ]; then
	map=${2:?usage: exports.sh [--map MAP] LIBRARY...}
	shift 2
fi
[ $# -ge 1 ] || { echo "usage: exports.sh [--map MAP] LIBRARY..." >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/exports.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if [ -n "$map" ]; then
	[ -f "$map" ] || { echo "exports: no version script '$map'" >&2; exit 2; }
	# The names between "global:" and "local:", one "name;" a line.
	sed -n '/^global:/,/^local:/p' "$map" |
		sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' |
		LC_ALL=C sort -u >"$tmp/listed"
	[ -s "$tmp/listed" ] || {
		echo "exports: $map lists no name" >&2
		exit 2
	}
fi

status=0
for lib in "$@"; do
	[ -f "$lib" ] || { echo "exports: no library '$lib'" >&2; exit 2; }
	case $lib in
	*.a) nmflags="-g --defined-only" ;;
	*) nmflags="-D --defined-only" ;;
	esac
	# nm prints "VALUE TYPE NAME" for each defined symbol; a shared
	# object's version nodes (IPCPERF_1) are absolute symbols, not names.
	syms=$(nm $nmflags "$lib") || {
		echo "exports: nm cannot read '$lib'" >&2
		exit 2
	}
	printf '%s\n' "$syms" | awk 'NF == 3 && $2 != "A" { print $3 }' |
		sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/names"
	public=$(grep -c '^ipc_' "$tmp/names")
	other=$(grep -v '^ipc_' "$tmp/names")

	if [ "$public" -eq 0 ]; then
		echo "exports: $lib defines no ipc_ symbol at all" >&2
		status=1
		continue
	fi
	if [ -n "$other" ]; then
		echo "exports: $lib exports $(printf '%s\n' "$other" | wc -l)" \
			"symbols without the ipc_ prefix:" >&2
		printf '%s\n' "$other" | sed 's/^/  /' >&2
		status=1
		continue
	fi
	if [ -n "$map" ]; then
		LC_ALL=C comm -13 "$tmp/listed" "$tmp/names" | sed 's/^/+ /' \
			>"$tmp/diff"
		LC_ALL=C comm -23 "$tmp/listed" "$tmp/names" | sed 's/^/- /' \
			>>"$tmp/diff"
		if [ -s "$tmp/diff" ]; then
			echo "exports: $lib differs from $map (+ exported, not" \
				"listed; - listed, not exported):" >&2
			sed 's/^/  /' "$tmp/diff" >&2
			status=1
			continue
		fi
		echo "exports: $lib exports $public symbols, all ipc_*, as $map lists"
	else
		echo "exports: $lib exports $public symbols, all ipc_*"
	fi
done
exit $status

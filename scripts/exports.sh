#!/bin/sh
# SPDX-License-Identifier: MIT
# Fail when the library exports a symbol outside its public prefix ipc_:
# every global symbol an archive member defines must be ipc_*, and there
# must be some (an empty or broken archive is no pass).
# Usage: exports.sh LIBRARY.a
set -u
lib=${1:?usage: exports.sh LIBRARY.a}

[ -f "$lib" ] || { echo "exports: no library '$lib'" >&2; exit 2; }
syms=$(nm -g --defined-only "$lib") || {
	echo "exports: nm cannot read '$lib'" >&2
	exit 2
}
# nm prints "VALUE TYPE NAME" for each defined symbol (and member headers).
names=$(printf '%s\n' "$syms" | awk 'NF == 3 { print $3 }')
public=$(printf '%s\n' "$names" | grep -c '^ipc_')
other=$(printf '%s\n' "$names" | grep -v '^ipc_' | grep -v '^$')

if [ "$public" -eq 0 ]; then
	echo "exports: $lib defines no ipc_ symbol at all" >&2
	exit 1
fi
if [ -n "$other" ]; then
	echo "exports: $lib exports $(printf '%s\n' "$other" | wc -l) symbols" \
		"without the ipc_ prefix:" >&2
	printf '%s\n' "$other" | sed 's/^/  /' >&2
	exit 1
fi
echo "exports: $lib exports $public symbols, all ipc_*"

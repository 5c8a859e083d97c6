# SPDX-License-Identifier: MIT
# Helpers of the remote-mode end-to-end tests, sourced after lib.bash.
# shellcheck shell=bash

HELPER=${BUILD:-build}/tests/test_remote_server
[ -x "$HELPER" ] || { echo "1..0 # skip no $HELPER (make it first)"; exit 77; }

# listening_addr LOG: the first address a server's log (JSON, or the
# table's "listening on ADDR (...)") says it listens on (waits up to 5 s);
# fails when there is none.
listening_addr() {
	local a
	for _ in $(seq 100); do
		a=$({ jq -r 'select(.event == "listening") | .address' "$1" 2>/dev/null ||
			sed -n 's/^listening on \([^ ]*\) (.*/\1/p' "$1"; } | head -n 1)
		[ -n "$a" ] && { echo "$a"; return 0; }
		sleep 0.05
	done
	return 1
}

# start_server ARGS...: ipcperf server on 127.0.0.1:0 in the background,
# its JSON log in $T/log; sets spid and addr (127.0.0.1:PORT).
start_server() {
	: >"$T/log"
	"$IPCPERF" server --listen 127.0.0.1:0 -f json "$@" >"$T/log" 2>"$err" &
	spid=$!
	addr=$(listening_addr "$T/log")
}

# jql "description" SELECT COND: the log has lines matching SELECT, and
# COND holds for every one of them.
jql() {
	if jq -se "[.[] | select($2)] | length > 0 and all(.[]; $3)" \
		"$T/log" >/dev/null 2>&1; then
		ok 0 "$1"
	else
		ok 1 "$1"
		diag "log lines: $(tr '\n' ' ' <"$T/log" | head -c 800)"
	fi
}

# hold_test [ip netns exec NS] -- ADDR TRANSPORT OUT: a client that starts
# a run and holds it (tests/unit/test_remote_server.c --client --hold), in
# the background, its output in OUT; waits until the run is ready (5 s at
# most).  Sets cpid.
hold_test() {
	local pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	"${pre[@]}" "$HELPER" --client "$1" "$2" --hold >"$3" 2>&1 &
	cpid=$!
	for _ in $(seq 50); do
		grep -q ready "$3" && return 0
		sleep 0.1
	done
	return 1
}

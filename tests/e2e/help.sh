# SPDX-License-Identifier: MIT
# ipcperf COMMAND --help: only the options that command takes, each with
# that command's own default, and only the value forms it uses.
. "$(dirname "$0")/lib.bash"

# opts CMD: the long options CMD --help lists, one per line.
opts() {
	"$IPCPERF" "$@" --help | sed -n 's/^  \(-., \)\{0,1\} *--\([a-z0-9-]*\).*/\2/p' | sort
}

for c in rr stream bulk crr load replay compare report list; do
	"$IPCPERF" $c --help >"$out" 2>"$err"
	ok $? "$c --help: exit 0"
done

# Listing and accepting use one predicate (the option's command bits), so
# what is checked here is which options each command has.
check "report --help: -f, -o, the matrix and nothing to measure with" \
	test "$(opts report | tr '\n' ' ')" = "format help matrix names output version "
check "list --help: no option but help and version" \
	test "$(opts list | tr '\n' ' ')" = "help version "
check "rr --help: rr's options" sh -c "$(printf %q "$IPCPERF") rr --help | grep -q -- '--req SIZES'"
check "compare --help: no measuring option" sh -c "! $(printf %q "$IPCPERF") compare --help | grep -q -- '--transport'"
check "rr --help: no stream option" sh -c "! $(printf %q "$IPCPERF") rr --help | grep -q -- '--count'"
check "rr --help: rr's own default for -n" sh -c "$(printf %q "$IPCPERF") rr --help | grep -q 'measured round trips per run \[10000\]'"
check "replay --help: replay's default transport" sh -c "$(printf %q "$IPCPERF") replay --help | grep -q 'comma separated \[tcp\]'"
check "list --help: no SIZES footer" sh -c "! $(printf %q "$IPCPERF") list --help | grep -q '^SIZES'"
check "report --help: its exit status" sh -c "$(printf %q "$IPCPERF") report --help | grep -q '0 rendered'"
# http --help's defaults are those an http run takes, and its engines
# those it accepts.
help_dflt() { # help_dflt CMD OPTION: the [default] CMD --help gives it
	"$IPCPERF" "$1" --help | sed -n "s/^  -., --$2 .*\[\([a-z0-9_]*\)\]\$/\1/p"
}
tp=$(help_dflt http transport)
eng=$(help_dflt http engine)
run http -n 50 -r 1 -w 1 -c 2 -f json
is_rc 0 "http with the built-in target, no -t or -e"
jqt "http --help's default transport and engine ($tp, $eng) are those it ran with" \
	".results[0].transport == \"$tp\" and .results[0].engine == \"$eng\""
check "http --help does not offer -e blocking" sh -c "! $(printf %q "$IPCPERF") http --help | grep -q -- '--engine LIST.*blocking'"
run http -e blocking -n 50 -r 1
is_rc 2 "... which http refuses"

check "the global --help still says each option's commands" sh -c "$(printf %q "$IPCPERF") --help | grep -q -- '--count COUNTS.*(stream)'"
done_testing

# SPDX-License-Identifier: MIT
# replay end to end: the shipped GDB traces with byte counts checked
# against the logs themselves, every transport, engines and placements,
# the native format with think time, the cut to a smaller packet size, the
# pivoted table, malformed logs (one line naming file and line, exit 2),
# and Ctrl-C in the middle of a slow replay.
. "$(dirname "$0")/lib.bash"

TR=$(cd "$(dirname "$0")/../../traces" && pwd)
DATA="$T/data"
mkdir -p "$DATA"

# gdb_bytes LOG w|r: bytes one direction of a GDB remote log holds, counted
# here with perl (each escape is one byte, markers none) independently of
# ipcperf's parser.
gdb_bytes() {
	perl -ne 'BEGIN { $n = 0 } chomp; s/\r$//;
		next unless /^'"$2"' (.*)$/; $s = $1;
		$s =~ s/<Timeout: \d+ seconds>|<Eof>|<Break>//g;
		$s =~ s/\\(x[0-9a-fA-F]{2}|.)/X/g; $n += length($s);
		END { print $n }' "$1"
}

run replay "$TR"/*.log -r 2 -f json
is_rc 0 "replay of the shipped traces"
jqt "one result per trace, all ok" '(.results | length) == 3 and all(.results[]; .status == "ok")'
for f in "$TR"/*.log; do
	name=$(basename "$f" .log)
	w=$(gdb_bytes "$f" w)
	r=$(gdb_bytes "$f" r)
	jqt "$name: bytes_c2s is what the log's w lines hold ($w)" \
		".results[] | select(.trace_name == \"$name\") | .bytes_c2s == $w"
	jqt "$name: bytes_s2c is what the log's r lines hold ($r)" \
		".results[] | select(.trace_name == \"$name\") | .bytes_s2c == $r"
	# The tables of the traces in the docs say the same.
	for doc in "$TR/README.md" "$TR/../docs/replay.md"; do
		row=$(grep -E "^\| \`$name(\.log)?\` \|" "$doc" | awk -F'|' '{print $(NF-3) $(NF-2) $(NF-1)}' | tr -s ' ')
		x=$(jq -r ".results[] | select(.trace_name == \"$name\") | \" \(.exchanges) \(.bytes_c2s) \(.bytes_s2c) \"" "$out")
		[ "$row" = "$x" ]
		ok $? "$name: $(basename "$doc") gives its exchanges and bytes (${x# }, it has${row% })"
	done
done
jqt "every run moved exactly the trace's bytes per replay" \
	'all(.results[]; . as $x | all($x.runs[]; .bytes == .iterations * ($x.bytes_c2s + $x.bytes_s2c)))'
jqt "messages are the exchanges of every replay" \
	'all(.results[]; . as $x | all($x.runs[]; .messages == .iterations * $x.exchanges))'
jqt "summary.elapsed_ns is the wall time of one replay (the median)" \
	'all(.results[]; .summary.elapsed_ns == .summary.latency_ns.p50)'
jqt "per-exchange latency is reported, each shorter than a replay" \
	'all(.results[]; .summary.exchange_latency_ns.max <= .summary.latency_ns.max and .summary.exchange_latency_ns.min > 0)'
jqt "trace, link and counts are in every result" \
	'all(.results[]; has("trace") and .link == "none" and .exchanges > 0 and .trace_format == "gdb")'
jqt "the default is tcp, one replay per run, no warm-up" \
	'all(.results[]; .transport == "tcp") and .config.iterations == 1 and .config.warmup == 0'
no_leftovers "replay of the shipped traces"

run replay "$TR/stub-multi.log" -t all -r 1 -f json
is_rc 0 "replay over every transport"
jqt "replay over every transport: all ok" 'all(.results[]; .status == "ok")'
jqt "one result per usable transport" ".results | length == $(transports_ok | wc -l)"
run replay "$TR/stub-multi.log" -t unix,udp -e poll --placement thread -n 3 -w 1 -r 2 -f json
is_rc 0 "replay with poll and a thread"
jqt "three replays per run" 'all(.results[].runs[]; .iterations == 3)'

# The native format: think time is waited out, datagrams carry each write.
cat >"$DATA/think.trace" <<'EOF'
# client asks, stub acks and answers separately, client thinks 0.2 s
> @0 "+$qC#b4"
< @0.001 "+"
< @0.002 "$QCp1.1#67"
> @0.202 "+$g#67"
< "+"
< "$\x00\x01\"\\#00"
EOF
run replay "$DATA/think.trace" -t tcp,udp,unix-seqpacket -r 1 -f json
is_rc 0 "a native trace"
jqt "native: counts" 'all(.results[]; .trace_format == "native" and .bytes_c2s == 13 and .bytes_s2c == 20 and .exchanges == 2 and .writes == 6)'
jqt "native: think time recorded" 'all(.results[]; .think_ns == 202000000)'
jqt "native: a replay takes at least its think time" \
	'all(.results[]; .summary.latency_ns.min >= 202000000)'

run replay "$TR/gdbserver-true.log" --max-packet 0,256 -r 1 -f json
is_rc 0 "a trace cut to 256-byte packets"
jqt "two variants" '[.results[] | .max_packet // 0] == [0, 256]'
jqt "the cut one has more exchanges and more client bytes" \
	'.results[1].exchanges > .results[0].exchanges and .results[1].bytes_c2s > .results[0].bytes_c2s'

# Serial: the wall time is the byte arithmetic plus little.
run replay "$TR/stub-multi.log" --link serial-115200 -r 1 -f json
is_rc 0 "replay over serial-115200"
jqt "link_ns is (c2s + s2c) x 10 / 115200" \
	'.results[0] | .link_ns == (((.bytes_c2s + .bytes_s2c) * 10 * 1e9 / 115200) | round)'
# The emulated link may make a replay slower than its byte arithmetic (a
# busy machine adds to it) but never faster: that would be a link that does
# not pace.  No upper bound on the overhead: that is speed, for bench/.
jqt "the replay takes at least its link time" \
	'.results[0] | .summary.elapsed_ns >= 0.99 * .link_ns'
diag "serial-115200: $(jq '.results[0] | "\(.summary.elapsed_ns) ns for a link time of \(.link_ns) ns"' "$out")"

run replay "$TR/stub-multi.log" "$DATA/think.trace" --link localhost,lan-100m -r 1
is_rc 0 "the replay table"
check "pivot: links across" grep -q "^trace  *localhost  *lan-100m$" "$out"
check "pivot: conversations down" grep -q "^stub-multi " "$out"
check "pivot: native trace row" grep -q "^think " "$out"
check "details: link time and exchange latency" grep -q "link time.*exchange p50" "$out"

# Malformed input: one line naming the file and line, a hint, exit 2.
printf 'w +$qSupported#37\nr +$OK#9a\nw $m0,4\\q#00\n' >"$DATA/bad-escape.log"
printf '> "+$qC#b4"\n< "+\n' >"$DATA/bad-quote.trace"
printf 'r +$OK#9a\nw +\n' >"$DATA/stub-first.log"
bad_input() { # bad_input "description" "first line names" FILE...
	local d=$1 want=$2
	shift 2
	run replay "$@"
	is_rc 2 "$d: exit 2"
	if head -n 1 "$err" | grep -qF -- "$want"; then
		ok 0 "$d: first line names '$want'"
	else
		ok 1 "$d: first line names '$want'"
		diag "stderr: $(head -n 2 "$err")"
	fi
	check "$d: a hint follows" grep -q "hint:" "$err"
	[ ! -s "$out" ]
	ok $? "$d: nothing on stdout"
}
bad_input "an unknown escape" "$DATA/bad-escape.log:3: unknown escape '\\q'" "$DATA/bad-escape.log"
bad_input "an unterminated string" "$DATA/bad-quote.trace:2: the closing" "$TR/stub-multi.log" "$DATA/bad-quote.trace"
bad_input "the stub speaks first" "$DATA/stub-first.log:1: the conversation starts with the server" "$DATA/stub-first.log"
bad_input "a missing file" "$DATA/nope.log: cannot read: No such file" "$DATA/nope.log"
bad_input "a directory" "Is a directory" "$DATA"
bad_input "no file" "no trace file" -r 1
bad_input "a packet limit too small" "--max-packet" "$TR/stub-multi.log" --max-packet 8
bad_input "rr's framing" "--framing does not apply" "$TR/stub-multi.log" --framing gdb-rsp
no_leftovers "malformed input"

# Ctrl-C in the middle of a replay over the wan preset (several seconds).
"$IPCPERF" replay --pin none "$TR/breakpoint.log" --link wan -r 3 -f json >"$out" 2>"$err" &
pid=$!
sleep 1.5
kill -INT $pid
ends_within $pid 10 "Ctrl-C during a replay: ends within 10 s"
is_rc 1 "Ctrl-C during a replay: exit 1"
jqt "Ctrl-C during a replay: says interrupted" '.results[0].error | test("interrupted")'
no_leftovers "Ctrl-C during a replay"

# Ctrl-C during a long recorded pause: the think time waits on the stop,
# so the replay ends at once, not after the minute the trace asks for.
cat >"$DATA/pause.trace" <<'EOF'
> @0 "+$qC#b4"
< @0.001 "+"
< @0.002 "$QCp1.1#67"
> @60 "+$g#67"
< "+"
< "$00#60"
EOF
"$IPCPERF" replay "$DATA/pause.trace" -r 1 -f json >"$out" 2>"$err" &
pid=$!
sleep 1
kill -INT $pid
ends_within $pid 10 "Ctrl-C during a minute of think time: ends within 10 s"
is_rc 1 "... exit 1"
jqt "... says interrupted" '.results[0].error | test("interrupted")'
no_leftovers "Ctrl-C during think time"

done_testing

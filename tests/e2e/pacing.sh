# SPDX-License-Identifier: MIT
# -b/--bitrate: a paced sender never runs ahead of its rate, a paced udp
# stream through a link of a little more loses nothing, its jitter is
# kept per run and per interval and grows with the link's, and bad rates
# are refused in one line naming them.
. "$(dirname "$0")/lib.bash"

run stream -t tcp,unix --size 8k --count 100 -b 200M -d 500ms -r 1 -f json
is_rc 0 "tcp and unix paced at 200 Mbit/s"
jqt "paced: never above the rate (and its 1 ms burst)" \
	'all(.results[].runs[]; .bytes * 8 <= 200e6 * (.elapsed_ns + 1e6) / 1e9 + 8 * 8192)'
jqt "the rate is in the case" 'all(.results[]; .bitrate_bps == 200000000)'
jqt "no jitter over a byte stream" 'all(.results[].runs[]; has("jitter_ns") | not)'

run stream -t udp --size 1k --count 200 -b 45M -d 1s -i 250ms -r 1 \
	--link rate=50mbit -f json
is_rc 0 "udp paced at 45 Mbit/s through a 50 Mbit/s link"
jqt "45M through 50mbit: nothing lost" \
	'all(.results[].runs[]; .loss.lost == 0 and .loss.sent > 0)'
jqt "jitter per run" 'all(.results[].runs[]; .jitter_ns >= 0)'
jqt "jitter and loss per interval" \
	'all(.results[].runs[].intervals[]; has("jitter_ns") and .lost == 0)'
cp "$out" "$T/paced.json"
run report "$T/paced.json" -f json
jqt "jitter reads back" \
	'all(.results[].runs[]; .jitter_ns >= 0 and all(.intervals[]; has("jitter_ns")))'

run stream -t udp --size 1k --count 200 -b 20M -d 600ms -r 1 -f json
is_rc 0 "a local constant-rate udp stream"
cp "$out" "$T/plain.json"
run stream -t udp --size 1k --count 200 -b 20M -d 600ms -r 1 \
	--link delay=2ms,jitter=1ms -f json
is_rc 0 "the same through a link with 1 ms of jitter"
plain=$(jq '.results[0].runs[0].jitter_ns' "$T/plain.json")
jit=$(jq '.results[0].runs[0].jitter_ns' "$out")
diag "jitter: local $plain ns, with --link jitter=1ms $jit ns"
# Above 100 us and above the local figure, not a multiple of it: a busy
# machine (a parallel build) gives the local stream a jitter of its own
# of a few hundred us, which the link's run has as well.
ok "$([ "$jit" -gt 100000 ] && [ "$jit" -gt "$plain" ]; echo $?)" \
	"the link's jitter shows: above 100 us and above the local one"

for v in 0 -5M abc 5X 1000G; do
	run stream -t udp --size 1k -d 1s -b "$v"
	is_rc 2 "-b $v refused"
	ok "$(head -n 1 "$err" | grep -q -- "--bitrate.*'$v'"; echo $?)" \
		"-b $v: the first line names --bitrate and the value"
done
run stream -t udp --size 1k -d 1s -b 60M --link rate=50mbit
is_rc 2 "-b beyond the link refused"
ok "$(head -n 1 "$err" | grep -q -- "--bitrate 60000000 bit/s is beyond"; echo $?)" \
	"-b beyond the link: says so"
run rr -t tcp -b 1M
is_rc 2 "-b on rr refused"

no_leftovers "pacing"
done_testing

# SPDX-License-Identifier: MIT
# --time: the cases of one command share its time; each gets the runs of
# an interval, sized to fit; too little time is said, conflicts refused.
. "$(dirname "$0")/lib.bash"

start=$(date +%s%N)
run stream -t tcp,unix,pipe --size 8k --time 3s -f json
end=$(date +%s%N)
is_rc 0 "stream on three transports within --time 3s"
wall_ms=$(((end - start) / 1000000))
diag "took $wall_ms ms"
# The bound is the behaviour under test; the slack is for set-up and
# teardown on a loaded machine, not a speed claim.
ok "$([ "$wall_ms" -le 6000 ]; echo $?)" "--time 3s: done well within twice its time"
jqt "each case got the runs of an interval (6 at 95%)" \
	'all(.results[]; .summary.runs >= 6)'
jqt "each run measured for its share, not by count" \
	'all(.results[].runs[]; .elapsed_ns > 0 and .elapsed_ns < 1000000000)'

run stream -t tcp,unix,pipe --size 8k --time 100ms -r 1 -f json
is_rc 0 "a time too short still measures"
ok "$(grep -q -- "--time 0.1 s: 3 cases need at least" "$err"; echo $?)" \
	"a time too short for the cases is said"

run rr -t unix --time 1s -d 1s
is_rc 2 "--time with -d refused"
ok "$(head -n 1 "$err" | grep -q -- "--time and --duration"; echo $?)" "names both"
run rr -t unix --time 1s -n 100
is_rc 2 "--time with -n refused"
run rr -t unix --time 10ms
is_rc 2 "--time below 100ms refused"
ok "$(head -n 1 "$err" | grep -q -- "--time.*'10ms'"; echo $?)" "names the value"

no_leftovers "timelimit"
done_testing

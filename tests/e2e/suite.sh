# SPDX-License-Identifier: MIT
# The quick suite (ipcperf with no command): one table, every transport,
# within its time budget.
. "$(dirname "$0")/lib.bash"

start=$(date +%s)
run -q
secs=$(($(date +%s) - start))
is_rc 0 "the quick suite exits 0"
diag "quick suite took ${secs}s (its budget is 20 s once every case has 6 runs)"
for t in $(transports_ok); do
	check "suite table has a row for $t" grep -qE "^ *$t " "$out"
done
check "suite says why udp skips 64 KiB" grep -qi "skipped.*udp" "$out"
no_leftovers "quick suite"

# Six runs give a 95% interval, printed as ± and explained under the
# table; five give none: no row prints a ±, nor does the legend.
run -q -t pipe -r 6
is_rc 0 "the quick suite with -r 6"
check "suite with 6 runs prints a ± in its rows" grep -qE " ±[0-9.]+%" "$out"
check "suite legend explains the ±" grep -q "± the half-width of its 95% interval" "$out"
run -q -t pipe -r 5
is_rc 0 "the quick suite with -r 5"
check "suite with 5 runs prints the legend" grep -q "the median over the runs of each run's figure" "$out"
ok "$(! grep -q "±" "$out"; echo $?)" "suite with 5 runs prints no ± and does not explain one"

# A short budget keeps this second run quick; every case still gets the 6
# runs of a 95% interval.
run -q -f json --budget 1
is_rc 0 "the quick suite as JSON"
jqt "suite JSON has rr and stream results" '([.results[].pattern] | unique) == ["rr", "stream"]'
jqt "suite rr uses 1-byte messages" 'all(.results[] | select(.pattern == "rr"); .req_size == 1 and .resp_size == 1)'
jqt "suite stream uses 64 KiB messages" 'all(.results[] | select(.pattern == "stream"); .msg_size == 65536)'
jqt "suite runs to a target, at least 6 runs each" 'all(.results[]; .summary.runs >= 6 and (.summary.target.stop | IN("target", "max-runs", "budget", "out-of-reach")))'
jqt "suite runs sized by time: rr 10 ms, stream 20 ms" 'all(.results[]; .config.duration_ns == (if .pattern == "rr" then 10000000 else 20000000 end))'
jqt "suite budget as given" '.config.budget_ns == 1000000000'
no_leftovers "quick suite JSON"

done_testing

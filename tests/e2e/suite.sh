# The quick suite (ipcperf with no command): one table, every transport,
# within its time budget.
. "$(dirname "$0")/lib.bash"

start=$(date +%s)
run -q
secs=$(($(date +%s) - start))
is_rc 0 "the quick suite exits 0"
diag "quick suite took ${secs}s"
for t in $(transports_ok); do
	check "suite table has a row for $t" grep -qE "^ *$t " "$out"
done
check "suite says why udp skips 64 KiB" grep -qi "skipped.*udp" "$out"
no_leftovers "quick suite"

run -q -f json
is_rc 0 "the quick suite as JSON"
jqt "suite JSON has rr and stream results" '([.results[].pattern] | unique) == ["rr", "stream"]'
jqt "suite rr uses 1-byte messages" 'all(.results[] | select(.pattern == "rr"); .req_size == 1 and .resp_size == 1)'
jqt "suite stream uses 64 KiB messages" 'all(.results[] | select(.pattern == "stream"); .msg_size == 65536)'
no_leftovers "quick suite JSON"

done_testing

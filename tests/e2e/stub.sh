# SPDX-License-Identifier: MIT
# rr --target: the request x response matrix as memory packets against a
# GDB stub, here ipcperf's own (the live gdbserver cases are in
# gdbserver.sh): every sample checked, the wire sizes the cells ask for,
# the counts of a stub's faults, the side-by-side of two stubs, and the
# usage errors.
. "$(dirname "$0")/lib.bash"

run rr --target ipcperf --req 0..64 --resp 0..64 -n 20 -w 2 -r 1 -f json
is_rc 0 "the matrix against ipcperf's own stub"
jqt "8 x 8 cases, all ok" \
	'(.results | length) == 64 and ([.results[] | select(.status == "ok")] | length) == 64'
jqt "rr-stub, gdb-rsp without acks, the target recorded" \
	'[.results[] | select(.pattern == "rr-stub" and .framing == "gdb-rsp" and .acks == false and .target == "ipcperf")] | length == 64'
jqt "nothing counted as wrong" \
	'[.results[].summary | select(.stub_errors == 0 and .bad_frames == 0 and .noise_bytes == 0 and .naks == 0 and .timeouts == 0 and .mismatches == 0)] | length == 64'
jqt "a write and a read per sample when both sizes are there" \
	'[.results[] | select((.req_size > 0 and .resp_size > 0 and .summary.packets_per_sample == 2) or ((.req_size == 0 or .resp_size == 0) and .summary.packets_per_sample == 1))] | length == 64'
jqt "reads of the asked size (x, 2 bytes and more)" \
	'[.results[] | select(.resp_size >= 2) | select(.summary.read_payload == .resp_size)] | length == 48'
jqt "writes of the asked size, or one byte short at a length digit" \
	'[.results[] | select(.req_size >= 16) | select(.summary.write_payload <= .req_size and .summary.write_payload >= .req_size - 1)] | length == 24'
jqt "the stub's packet size recorded" \
	'[.results[] | select(.summary.stub_packet_size == 18431)] | length == 64'
jqt "p50 per packet is the p50 over the packets" \
	'[.results[] | select(.p50_per_packet_ns == ((.summary.latency_ns.p50 / .summary.packets_per_sample) | round))] | length == 64'
jqt "the features the session used: no-ack, binary X and x" \
	'[.results[] | select(.summary.stub_noack == 1 and .summary.stub_binary_write == 1 and .summary.stub_binary_read == 1)] | length == 64'
no_leftovers "the matrix against ipcperf's own stub"

run rr --target ipcperf --req 64 --resp 64 -n 20 -w 2 -r 1
is_rc 0 "the table"
check "... with the stub's packet size" grep -q "pkt size" "$out"
check "... and a note on where the features are" grep -q "the features the session used .* are in -f json" "$out"

run rr --target ipcperf --ack --req 1k --resp 1k -n 50 -r 2 --placement thread -f json
is_rc 0 "with acks, the stub in a thread"
jqt "acks recorded, ok" '.results[0].acks == true and .results[0].status == "ok"'

run rr --target ipcperf,ipcperf --req 64 --resp 0,1k -n 50 -w 5 -r 3
is_rc 0 "two stubs side by side"
check "the side-by-side is printed" grep -q "^side by side: ipcperf (A) and ipcperf (B)" "$out"
check "with the difference per packet" grep -q "B-A per packet" "$out"
check "for both cells" grep -c "^rr-stub tcp req=64 resp=" "$out"

run rr --target ipcperf --req 64 --resp 64 -n 20 -r 1 -t unix
is_rc 0 "the own stub on another byte stream"
run rr --target ipcperf -t udp -n 20 -r 1
is_rc 2 "a datagram transport is refused"

for bad in "foo" "gdb://localhost" "gdb://:1234" "gdb://h:0" "gdb://h:1?addr=zz" "gdb://h:1?bogus=1" ""; do
	run rr --target "$bad"
	is_rc 2 "--target '$bad' is refused"
	check "... in one line naming it" grep -q "^ipcperf: --target" "$err"
done
run rr --target gdb://127.0.0.1:1 -t unix
is_rc 2 "a stub elsewhere over a transport that cannot reach it is refused"
check "... in one line naming it" grep -q "^ipcperf: --target gdb://...: .*-t unix" "$err"

# Nobody listens on port 1 of loopback: the case fails, it does not hang.
run rr --target gdb://127.0.0.1:1 --req 64 --resp 64 -n 10 -r 1 -f json
is_rc 1 "a stub that is not there: exit 1"
jqt "... the case failed, saying the connection was refused" \
	'.results[0].status == "error" and (.results[0].error | test("refused"))'
if "$IPCPERF" rr -t tcp6 -n 1 -w 0 -r 1 >/dev/null 2>&1; then
	run rr --target "gdb://[::1]:1" --req 64 --resp 64 -n 10 -r 1 -f json
	is_rc 1 "gdb://[::1]:PORT is tried over tcp6"
	jqt "... which the case names" '.results[0].transport == "tcp6"'
else
	for _ in 1 2; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n # skip no IPv6 loopback here"
	done
fi

run rr --target ipcperf --framing len
is_rc 2 "--target with another framing is refused"
run rr --ack
is_rc 2 "--ack without --target is refused"
run rr --target ipcperf --ack --no-ack
is_rc 2 "--ack and --no-ack together are refused"
run replay --target ipcperf traces/stub-multi.log
is_rc 2 "replay against ipcperf's own stub is refused"
no_leftovers "the usage errors"
done_testing

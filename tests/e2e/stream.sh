# SPDX-License-Identifier: MIT
# stream and bulk end to end: message and byte counts are exact, payloads
# arrive intact, and the FIFO table shape works.
. "$(dirname "$0")/lib.bash"

run stream -t all --size 100 --count 37 -n 3 -w 1 -r 2 -f json
is_rc 0 "stream on every transport"
jqt "every stream result ok" 'all(.results[]; .status == "ok")'
jqt "messages per run = batches x count" 'all(.results[].runs[]; .messages == 3 * 37)'
jqt "bytes per run = messages x size" 'all(.results[].runs[]; .bytes == 3 * 37 * 100)'
jqt "stream results carry msg_size and count" 'all(.results[]; .msg_size == 100 and .count == 37)'
no_leftovers "stream"

run stream -t fifo --size 64..4096 --count 100,1000 -n 2 -w 1 -r 1 -f json
is_rc 0 "FIFO table shape (sizes x counts)"
jqt "7 sizes x 2 counts" '.results | length == 14'
jqt "sizes 64..4096 by doubling" '[.results[].msg_size] | unique == [64,128,256,512,1024,2048,4096]'

run stream -t pipe,unix,udp --size 0 --count 50 -n 2 -r 1 -f json
is_rc 0 "stream of size 0"
jqt "size 0: no payload bytes counted" 'all(.results[].runs[]; .bytes == 0 and .messages == 100)'

# Over udp the sender runs ahead of the receiver by a window its buffer
# holds: batches of 1000 datagrams of 200 bytes are five times what a
# 200000-byte buffer holds (each costs more than its payload there), so a
# sender that ignored the buffer would overflow it; none may be lost.
run stream -t udp,udp6 -e blocking,epoll --size 200 --count 1000 -n 5 -w 1 -r 2 \
	--rcvbuf 100000 -f json
is_rc 0 "udp stream with a small receive buffer"
jqt "small buffer: the receiver's buffer as asked (doubled)" \
	'all(.results[].runs[]; .receiver_rcvbuf == 200000)'
jqt "small buffer: a window smaller than a batch, under the buffer" \
	'all(.results[].runs[]; .window > 1 and .window < 1000 and .window * 200 < .receiver_rcvbuf)'
jqt "small buffer: every datagram arrived" \
	'all(.results[].runs[]; .loss.sent == 5000 and .loss.lost == 0 and .messages == 5000)'
# Asked for 4 MiB, doubled rmem_max at most, never lowered.
want=$(jq -n "[([4194304, 2 * $(cat /proc/sys/net/core/rmem_max)] | min), $(cat /proc/sys/net/core/rmem_default)] | max")
# Without --size a udp stream sends one Ethernet frame's payload, as
# iperf3 -u does (64 KiB would not fit a datagram); tcp keeps 64k, and a
# size given is the size measured, or refused.
run stream -t udp,tcp --count 50 -n 2 -r 1 --pin 0,0 -f json
is_rc 0 "stream -t udp without --size: exit 0"
jqt "without --size: udp 1472 bytes, tcp 64 KiB, both measured" \
	'[.results[] | [.transport, .msg_size, .status]] == [["udp", 1472, "ok"], ["tcp", 65536, "ok"]]'
if transports_ok | grep -qx udp6; then
	run stream -t udp6 --count 50 -n 2 -r 1 --pin 0,0 -f json
	jqt "without --size: udp6 1452 bytes" '.results[0].msg_size == 1452 and .results[0].status == "ok"'
fi
run stream -t udp --size 64k --count 50 -n 2 -r 1 --pin 0,0
is_rc 2 "stream -t udp --size 64k: refused, the size given is kept"
check "--size 64k over udp: the reason names the largest datagram" grep -q "larger than the largest udp can carry (65507 bytes)" "$err"
run stream -t udp --size 14 --count 100 -n 3 -r 1 -f json
jqt "default buffer: the receiver raised it to $want" \
	"all(.results[].runs[]; .receiver_rcvbuf == $want and .window > 100)"
run stream -t pipe --size 14 --count 100 -n 3 -r 1 -f json
jqt "no window over a transport that loses nothing" \
	'all(.results[].runs[]; has("window") | not)'
no_leftovers "udp stream window"

run bulk -t all --total 10000 --size 333 -n 4 -w 1 -r 1 -f json
is_rc 0 "bulk on every transport"
jqt "every bulk result ok" 'all(.results[]; .status == "ok")'
jqt "bulk bytes = transfers x total" 'all(.results[].runs[]; .bytes == 4 * 10000)'
jqt "bulk messages = transfers x ceil(total / chunk)" 'all(.results[].runs[]; .messages == 4 * 31)'
jqt "bulk results carry total and chunk_size" 'all(.results[]; .total == 10000 and .chunk_size == 333)'

run bulk -t tcp --total 64k --size 32..1024 -n 2 -r 1 -f json
is_rc 0 "LLDB bulk shape (chunks 32..1024)"
jqt "6 chunk sizes" '[.results[].chunk_size] == [32,64,128,256,512,1024]'
no_leftovers "bulk"

done_testing

# SPDX-License-Identifier: MIT
# The shm ring's size: chosen from the CPUs' caches and recorded with the
# reason, or taken from --shm-size, and the ring carries the stream either
# way.  (The choice itself is tested on made-up sysfs trees in
# tests/unit/test_shm_choose.c.)
. "$(dirname "$0")/lib.bash"

run stream -t shm --size 4k --count 20 -n 2 -r 1 --pin 0,0 -f json
is_rc 0 "shm stream, ring chosen"
jqt "the ring is a power of two from 1 MiB to 64 MiB" \
	'.config.shm_bytes >= 1048576 and .config.shm_bytes <= 67108864 and
	 (.config.shm_bytes as $n | [range(20; 27)] | map(pow(2; .)) | index($n) != null)'
jqt "the reason is recorded" '.config.shm_choice | length > 0 and . != "--shm-size"'
jqt "one CPU: the default ring, said so" \
	'.config.shm_bytes == 8388608 and (.config.shm_choice | test("CPU 0"))'
jqt "and the messages arrived" 'all(.results[].runs[]; .messages == 40)'

run stream -t shm --size 4k --count 20 -n 2 -r 1 --shm-size 64k -f json
is_rc 0 "shm stream, --shm-size 64k"
jqt "the ring asked for" '.config.shm_bytes == 65536'
jqt "and why: the option" '.config.shm_choice == "--shm-size"'
no_leftovers "shm choice"

done_testing

# SPDX-License-Identifier: MIT
# A hostile review's inputs, as tests: bad numbers, bad files, bad
# output targets, a full disk, low limits, signals and a closed stdout.
# Each case asserts the exit status, the message and that nothing is left
# behind; each numbered defect of the issue has its cases here (the unit
# tests check the same code from inside).  Cases that need root (a device
# node, another user, a private mount namespace) or a build without ASan
# (ulimit -v) are skipped with the reason when they cannot run.
. "$(dirname "$0")/lib.bash"

root=$(id -u)
san=${SAN:-}

# bad "description" "text on the first line" ARGS...: exit 2, one line
# naming it, a hint, nothing on stdout, nothing left.
bad() {
	local d=$1 want=$2
	shift 2
	# (timeout: a value wrongly taken must not run for long either)
	timeout 20 "$IPCPERF" "$@" >"$out" 2>"$err"
	rc=$?
	is_rc 2 "$d: exit 2"
	if head -n 1 "$err" | grep -qF -- "$want"; then
		ok 0 "$d: names '$want'"
	else
		ok 1 "$d: names '$want'"
		diag "stderr: $(head -n 2 "$err")"
	fi
	[ ! -s "$out" ] && grep -q "hint:" "$err"
	ok $? "$d: a hint, nothing on stdout"
}

## Option values and names from files quoted in errors: escaped, and the
## one-line error stays one line.
esc=$(printf '\033')
run rr -t "$(printf 'tcp\n\033[2J\342\200\256')" -n 10
is_rc 2 "a transport with a newline, ESC and U+202E: exit 2"
[ "$(grep -c . "$err")" = 2 ] && ! grep -q "$esc" "$err" &&
	! grep -q "$(printf '\342\200\256')" "$err" &&
	grep -qF "unknown transport 'tcp\n\x1b[2J\u202e'" "$err"
ok $? "the error is one line and a hint, its value escaped: $(head -n 1 "$err")"

## compare's percentages and --ci: the syntax of every number option.
"$IPCPERF" rr -t pipe -n 100 -r 2 --pin none -q -f json -o "$T/cmp.json" 2>"$err"
for v in 0x10 +5 "$(printf '\t5')" 5e1 1000; do
	bad "compare --threshold '$v'" "--threshold: bad value" compare --threshold "$v" "$T/cmp.json" "$T/cmp.json"
done
bad "compare --fail-if-slower hex" "--fail-if-slower: bad value" compare --fail-if-slower 0x5 "$T/cmp.json" "$T/cmp.json"
bad "compare --drift signed" "--drift: bad value" compare --drift +10 "$T/cmp.json" "$T/cmp.json"
bad "--ci hex" "--ci: bad value" rr -t pipe -n 10 -r 1 --ci 0x5f,1
bad "--ci a tab" "--ci: bad value" rr -t pipe -n 10 -r 1 --ci "$(printf '\t95')"
run_default compare --threshold 2.5% "$T/cmp.json" "$T/cmp.json"
is_rc 0 "compare --threshold 2.5%: taken"
rm -f "$T/cmp.json"

## Bad numbers (defects 2 and 4; the rest of the review's table).
bad "--link jitter after a space" "' -1ms'" rr -t pipe -n 10 --link 'delay=1ms,jitter= -1ms' -r 1
bad "--link negative delay" "' -5ms'" rr -t pipe -n 10 --link 'delay= -5ms' -r 1
bad "--link hex time" "hexadecimal" rr -t pipe -n 10 --link 'delay=0x10' -r 1
bad "--link a key twice" "'delay' given twice" rr -t pipe -n 10 --link 'delay=1ms,delay=2ms' -r 1
bad "--link empty item" "empty item" rr -t pipe -n 10 --link 'wan,,lan-100m' -r 1
bad "range step negative" "negative" stream -t pipe --size '0..1024:x-2' -r 1 -n 10
bad "range step spaced" "space" stream -t pipe --size '0..1024:x 2' -r 1 -n 10
bad "range too long" "more than 4096 values" stream -t pipe --size '0..1G:+1' -r 1 -n 10
bad "--sndbuf abc" "bad size 'abc': not a number" rr -t tcp --sndbuf abc -r 1 -n 10
bad "--rcvbuf empty" "empty" rr -t tcp --rcvbuf '' -r 1 -n 10
bad "--sndbuf past 1G" "at most 1G" rr -t tcp --sndbuf 3G -r 1 -n 10
bad "-n with a sign" "sign" rr -t pipe -n +5 -r 1
bad "-d in hex" "hexadecimal" rr -t pipe -d 0x10 -r 1
bad "-d 0" "more than 0" rr -t pipe -d 0 -r 1
bad "--timeout nan" "not a number" rr -t udp --timeout nan -r 1 -n 10
bad "--max-packet too small" "too small" replay traces/stub-multi.log --max-packet 7

# Defect 4: the value was read uninitialised; valgrind saw the jump.
if [ -z "$san" ] && command -v valgrind >/dev/null; then
	valgrind -q --error-exitcode=99 "$IPCPERF" rr -t tcp --sndbuf abc \
		>/dev/null 2>"$T/vg"
	rc=$?
	is_rc 2 "--sndbuf abc under valgrind: exit 2, no memory error"
	check "--sndbuf abc under valgrind: the same message" \
		grep -q "bad size 'abc': not a number" "$T/vg"
else
	echo "ok $((tap_n + 1)) # skip valgrind: ${san:+not under ASan}${san:-not installed}"
	tap_n=$((tap_n + 1))
fi

## Bad input files (defects 5 and 6, and compare's of defect 3).
"$IPCPERF" rr -t pipe -n 200 -w 10 -r 3 -f json -o "$T/a0.json" 2>/dev/null
ok $? "a document to compare with"
# (timeout: they used to hang in open; 124 is a failure, not a hang)
mkfifo "$T/fifo"
timeout 10 "$IPCPERF" replay "$T/fifo" -n 1 >"$out" 2>"$err"
rc=$?
is_rc 2 "replay of a FIFO without a writer: exit 2 at once"
check "replay of a FIFO: says why" grep -q "nothing was writing to" "$err"
timeout 10 "$IPCPERF" compare "$T/a0.json" "$T/fifo" >"$out" 2>"$err"
rc=$?
is_rc 2 "compare of a FIFO without a writer: exit 2 at once"
check "compare of a FIFO: says why" grep -q "nothing was writing to" "$err"
run replay /dev/zero -n 1
is_rc 2 "replay of /dev/zero: refused"
check "/dev/zero: not a regular file or a pipe" grep -q "not a regular file or a pipe" "$err"
timeout 20 "$IPCPERF" replay /dev/stdin -t unix -n 1 -r 1 -f json <traces/stub-multi.log >"$out" 2>"$err"
rc=$?
is_rc 0 "replay /dev/stdin from a pipe"
jqt "replay /dev/stdin: the 13 exchanges of stub-multi" '.results[0].exchanges == 13 and .results[0].status == "ok"'
no_leftovers "bad input files"

# A 200 KB trace (100 KB request, 100 KB reply) cut at 16 bytes took
# 614 MB: under a 256 MB address space it must now run.
python3 - "$T/big.log" <<'EOF'
import sys
def cs(s): return "%02x" % (sum(s.encode()) & 0xff)
req = "X1000,0:" + "a" * 100000
rep = "b" * 100000
open(sys.argv[1], "w").write("w +$%s#%s\nr +$%s#%s\nw +$k#6b\nr +\n" %
                             (req, cs(req), rep, cs(rep)))
EOF
if [ -z "$san" ]; then
	(ulimit -v 262144; "$IPCPERF" replay "$T/big.log" --max-packet 16 -t socketpair -n 1 -r 1 -f json >"$out" 2>"$err")
	rc=$?
	is_rc 0 "--max-packet 16 on a 200 KB trace within 256 MB"
	jqt "--max-packet 16: 6,251 exchanges, each piece asked for" '.results[0].exchanges == 6251 and .results[0].status == "ok"'
else
	echo "ok $((tap_n + 1)) # skip ulimit -v: ASan reserves terabytes of address space"
	tap_n=$((tap_n + 1))
fi

# compare: figures that contradict the run, a gate without data, escapes.
cp "$T/a0.json" "$T/a.json"
for v in 1e308 0 -5 '"fast"'; do
	jq ".results[0].runs[1].msgs_per_s = $v" "$T/a.json" >"$T/m.json"
	bad "compare: msgs_per_s $v" "m.json: results[0].runs[1].msgs_per_s" compare "$T/a.json" "$T/m.json"
done
jq '.results[0].runs[0].latency_ns.mean = 1e308' "$T/a.json" >"$T/m.json"
bad "compare: a mean of 1e308" "latency_ns.mean: 1e+308 is outside" compare "$T/a.json" "$T/m.json"
jq '.results[0].runs |= map(del(.msgs_per_s))' "$T/a.json" >"$T/m.json"
run compare "$T/a.json" "$T/m.json" --metric throughput --fail-if-slower 5
is_rc 1 "compare gate: B without the figure fails it"
check "compare gate: says it could not compare" grep -q "^gate: 1 case of A could not be compared" "$out"
jq '.results[0].transport = "pipe\u001b]0;owned\u0007\u001b[2J"' "$T/a.json" >"$T/m.json"
run compare "$T/a.json" "$T/m.json"
is_rc 0 "compare: a transport name with escape sequences"
if grep -q "$(printf '\033')" "$out" "$err"; then ok 1 "compare: no ESC reaches the terminal"; else ok 0 "compare: no ESC reaches the terminal"; fi
check "compare: the escapes are shown written out" grep -qF 'pipe\x1b]0;owned\x07\x1b[2J' "$out"

## Output targets (defect 1).
mkdir -p "$T/o"
if [ "$root" = 0 ] && mknod "$T/o/null" c 1 3 2>/dev/null; then
	run rr -t pipe -n 50 -r 1 -f csv -o "$T/o/null"
	is_rc 0 "-o a null device"
	[ -c "$T/o/null" ]
	ok $? "-o a null device: still a device, not replaced"
else
	echo "ok $((tap_n + 1)) # skip -o a device node: mknod needs root"
	tap_n=$((tap_n + 1))
fi
echo keep >"$T/o/real.csv"
ln -s real.csv "$T/o/link.csv"
run rr -t pipe -n 50 -r 1 -f csv -o "$T/o/link.csv"
is_rc 0 "-o a symbolic link"
[ -L "$T/o/link.csv" ] && grep -q '^schema,' "$T/o/real.csv"
ok $? "-o a link: still a link, the file it names has the report"
chmod 444 "$T/o/real.csv"
bad "-o a write-protected file" "Permission denied" rr -t pipe -n 50 -r 1 -o "$T/o/real.csv"
grep -q '^schema,' "$T/o/real.csv"
ok $? "-o a write-protected file: left as it was"
echo x >"$T/o/suid.csv"
chmod 4755 "$T/o/suid.csv"
run rr -t pipe -n 50 -r 1 -f csv -o "$T/o/suid.csv"
[ "$rc" = 0 ] && [ "$(stat -c %a "$T/o/suid.csv")" = 755 ]
ok $? "-o a setuid file: replaced without the setuid bit"
long=$T/o/$(printf 'n%.0s' $(seq 250)).csv
run rr -t pipe -n 50 -r 1 -f csv -o "$long"
[ "$rc" = 0 ] && [ -s "$long" ]
ok $? "-o a 250-byte name: written"
mkfifo "$T/o/pipe"
timeout 20 cat "$T/o/pipe" >"$T/o/from-pipe" &
reader=$!
run rr -t pipe -n 50 -r 1 -f csv -o "$T/o/pipe"
wait $reader
[ "$rc" = 0 ] && [ -p "$T/o/pipe" ] && grep -q '^schema,' "$T/o/from-pipe"
ok $? "-o a FIFO: written into, still a FIFO"
if [ "$root" = 0 ] && mknod "$T/o/full" c 1 7 2>/dev/null; then
	# Our own full device: main's -o once replaced the system's.
	run rr -t pipe -n 50 -r 1 -o "$T/o/full"
	is_rc 1 "-o a full device: exit 1"
	check "-o a full device: no space left" grep -q "No space left on device" "$err"
	[ -c "$T/o/full" ]
	ok $? "-o a full device: still a device"
else
	echo "ok $((tap_n + 1)) # skip -o a full device: mknod needs root"
	tap_n=$((tap_n + 1))
fi
rm -f "$T/o/"*
# Killed in the middle: no temporary file is made before the end.
TMPDIR=$T/ktmp
mkdir -p "$TMPDIR"
"$IPCPERF" rr -t unix -d 2s -r 1 -q -o "$T/o/killed.json" >/dev/null 2>&1 &
pid=$!
sleep 0.7
{
	kill -KILL $pid
	wait $pid
} 2>/dev/null
[ -z "$(ls -A "$T/o")" ]
ok $? "-o, killed mid-run: no file and no .NAME.XXXXXX left"
# Its peer dies with it (PR_SET_PDEATHSIG); init reaps it in a moment.
for i in $(seq 50); do
	pgrep -f "$TAG" >/dev/null || break
	sleep 0.1
done
# Defect 12: what a SIGKILLed run cannot remove, the next start does, and
# only that: not a live run's directory, not one it cannot prove stale.
killed=$(ls -d "$TMPDIR"/ipcperf.??????)
[ -S "$(ls "$killed"/*.sock)" ]
ok $? "SIGKILLed: its directory and socket are left"
mkdir -m 700 "$TMPDIR/ipcperf.nomark"
"$IPCPERF" rr -t unix -d 2s -r 1 -q >/dev/null 2>&1 &
live=$!
sleep 0.5
livedir=$(ls -d "$TMPDIR"/ipcperf.?????? | grep -v -e "$killed" -e nomark)
"$IPCPERF" rr -t pipe -n 10 -r 1 -q >/dev/null 2>&1
[ ! -e "$killed" ]
ok $? "SIGKILLed: the next start removes its directory"
[ -d "$TMPDIR/ipcperf.nomark" ] && [ -n "$livedir" ] && [ -d "$livedir" ]
ok $? "... not a live run's, nor one without the lock's mark"
wait $live
rc=$?
is_rc 0 "... and the live run went on"
[ "$(ls -A "$TMPDIR")" = ipcperf.nomark ]
ok $? "... which removed its own at its end"
rm -rf "$T/ktmp"
TMPDIR=$T/tmp
if [ "$root" = 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$T"
	mkdir -m 1777 "$T/sticky"
	echo theirs >"$T/sticky/r.json"
	chown 1:1 "$T/sticky/r.json"
	start=$(date +%s)
	TMPDIR=$T/sticky setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IPCPERF_BIN" rr -t pipe -d 3s -r 1 -o "$T/sticky/r.json" \
		>"$out" 2>"$err"
	rc=$?
	is_rc 2 "-o another user's file in a sticky directory: exit 2"
	[ $(($(date +%s) - start)) -lt 3 ]
	ok $? "... before the 3 s run, not after it"
	[ "$(cat "$T/sticky/r.json")" = theirs ]
	ok $? "... and their file is left alone"
	rm -rf "$T/sticky"
	chmod 700 "$T"
else
	echo "ok $((tap_n + 1)) # skip another user's file: needs root and setpriv"
	tap_n=$((tap_n + 1))
fi

## Another local user and the mq names (defect 7): the probe's queue was
## "/ipcperf.PID.TID.probe", opened without O_EXCL, so another user who
## made it first (0600) turned mq off for us.  The shell's PID is the one
## ipcperf runs under (setpriv execs), so the other user can make exactly
## the old name before it starts.
py=/usr/bin/python3
if [ "$root" = 0 ] && command -v setpriv >/dev/null && [ -x $py ]; then
	chmod 711 "$T"
	cat >"$T/mkq.py" <<'PY'
import ctypes, os, sys
rt = ctypes.CDLL("librt.so.1", use_errno=True)
name = sys.argv[2].encode()
if sys.argv[1] == "make":
    q = rt.mq_open(name, os.O_RDWR | os.O_CREAT, ctypes.c_uint(0o600), None)
    sys.exit(0 if q >= 0 else 1)
sys.exit(0 if rt.mq_unlink(name) == 0 else 1)
PY
	chmod 644 "$T/mkq.py"
	mkdir -m 1777 "$T/mqtmp"
	# shellcheck disable=SC2016
	TMPDIR=$T/mqtmp sh -c 'setpriv --reuid=65533 --regid=65533 --clear-groups "$1" "$2" \
		make "/ipcperf.$$.$$.probe" && echo "$$" >"$3.pid" &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$4" rr -t mq -n 50 -r 1 -q' sh $py "$T/mkq.py" "$T/mq" \
		"$IPCPERF_BIN" >"$out" 2>"$err"
	rc=$?
	is_rc 0 "mq with another user's queue under the old probe name: exit 0"
	check "... mq is measured, not skipped" grep -q "^mq .* ok$" "$out"
	$py "$T/mkq.py" rm "/ipcperf.$(cat "$T/mq.pid").$(cat "$T/mq.pid").probe"
	ok $? "... the other user's queue was there all along"
	rmdir "$T/mqtmp"
	ok $? "... and nothing was left in TMPDIR"
	chmod 700 "$T"
else
	echo "ok $((tap_n + 1)) # skip mq names: needs root, setpriv and $py"
	tap_n=$((tap_n + 1))
fi

## A full disk, in a private mount namespace with a 64 KiB tmpfs.
if [ "$root" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir -p "$T/full"
	unshare -m sh -c '
		mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
		dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null
		"$2" rr -t pipe -n 200 -r 2 -f json -o "$1/r.json"
		echo "rc=$?"
		ls -A "$1"' sh "$T/full" "$IPCPERF" >"$T/full.out" 2>&1
	check "full disk: exit 1" grep -q "^rc=1$" "$T/full.out"
	check "full disk: says so" grep -q "cannot write the report to .*: No space left on device" "$T/full.out"
	[ "$(grep -vc '^rc=\|^ipcperf:\|^fill$' "$T/full.out")" = 0 ]
	ok $? "full disk: no temporary or partial file left"
	[ "$(grep -c '^fill$' "$T/full.out")" = 1 ]
	ok $? "full disk: the filesystem was there and full"
else
	echo "ok $((tap_n + 1)) # skip full disk: needs root and unshare -m"
	tap_n=$((tap_n + 1))
fi

## Low limits (defect 9).
(ulimit -n 16; "$IPCPERF" load -t tcp -c 64 -n 1000 -r 1 >"$out" 2>"$err")
rc=$?
is_rc 2 "ulimit -n 16, load of 64 flows: refused before running"
check "ulimit -n 16: names the limit" grep -q "RLIMIT_NOFILE allows 16" "$err"
if [ -z "$san" ]; then
	# The first client thread that cannot get a stack: its error, not
	# "no iteration completed".  The limit where that happens depends on
	# the build, so several are tried; at least one must hit a thread.
	hit=0 vague=0
	for kb in 8000 10000 12000 14000 16000 20000; do
		(ulimit -v $kb; "$IPCPERF" load -t tcp -c 4 --threads 2 -n 1000 -r 1 -q >/dev/null 2>"$err")
		grep -q "start client thread [12] of 2: Resource temporarily unavailable (no memory or thread left" "$err" && hit=1
		grep -q "no iteration completed" "$err" && vague=1
	done
	[ $hit = 1 ] && [ $vague = 0 ]
	ok $? "ulimit -v: a thread that cannot start is named with its error"
else
	echo "ok $((tap_n + 1)) # skip ulimit -v: ASan reserves terabytes of address space"
	tap_n=$((tap_n + 1))
fi
no_leftovers "low limits"

## A TMPDIR where the run's directory cannot be made (defect 9): named.
TMPDIR=$T/nonexistent bad "TMPDIR missing" "TMPDIR '$T/nonexistent': cannot make a directory in it: No such file" rr -t unix -n 10 -r 1
long=$T/$(printf 'x%.0s' $(seq 230))
TMPDIR=$long bad "TMPDIR over-long" "TMPDIR '$long' is too long" rr -t pipe -n 10 -r 1
mid=$T/$(printf 'y%.0s' $(seq 90))
mkdir -p "$mid"
TMPDIR=$mid "$IPCPERF" rr -t unix -n 10 -r 1 -q >"$out" 2>"$err"
rc=$?
is_rc 1 "TMPDIR too long for a socket path: the case fails"
check "TMPDIR too long for a socket path: says to shorten TMPDIR" \
	grep -q "use a shorter TMPDIR" "$out"
rm -rf "$mid"

## A closed or full stdout (defect 9).
for args in "list" "--help" "rr --help" "--version"; do
	# shellcheck disable=SC2086
	"$IPCPERF" $args >/dev/full 2>"$err"
	rc=$?
	is_rc 1 "$args >/dev/full: exit 1"
	check "$args >/dev/full: says so" grep -q "cannot write to standard output" "$err"
done
"$IPCPERF" rr -t pipe -n 50 -r 1 >/dev/full 2>"$err"
rc=$?
is_rc 1 "a report >/dev/full: exit 1"
[ "$(grep -c "^ipcperf:" "$err")" = 1 ]
ok $? "a report >/dev/full: said once"

## The load figure on short runs (defect 11): never more CPUs than there
## are, and never "load" from a figure the ticks cannot resolve.
cpus=$(nproc)
for i in 1 2 3 4 5; do
	"$IPCPERF" rr -t pipe -n 50 -w 0 -r 1 -f json -o "$T/short$i.json" 2>/dev/null
done
jq -s --argjson n "$cpus" '
	[.[].results[0]] | length == 5 and
	all(.summary.load.other_cpus <= $n and .summary.load.resolution_cpus > 0) and
	all(([.flags[].flag] | index("load")) == null or .summary.load.resolution_cpus <= 0.25)' \
	"$T"/short?.json | grep -q true
ok $? "five 50-iteration runs: no figure above $cpus CPUs, no load from ticks"

## Signals: what was measured is reported, nothing is left.
"$IPCPERF" rr -t unix -d 3s -r 3 -q -f json -o "$T/int.json" >/dev/null 2>"$err" &
pid=$!
sleep 1.5
kill -INT $pid
ends_within $pid 5 "SIGINT: ends within 5 s"
is_rc 1 "SIGINT: exit 1"
jqt "SIGINT: the result is there, interrupted" '.results[0].status != "ok" or .results[0].summary.stop == "interrupted"' "$T/int.json"
no_leftovers "signals"

## A stopped peer (defect 10): a deadline is a deadline.  The run by
## duration ends a grace after it (2 s and a quarter of -d here), says the
## peer stalled, keeps what it measured and leaves nothing.
## One case (--pin none): the peer is stopped in its measured part.
"$IPCPERF" rr -t pipe -d 2s -r 1 --pin none -q -f json -o "$T/stall.json" \
	>/dev/null 2>"$err" &
pid=$!
if peer=$(peer_of $pid); then
	sleep 0.5
	kill -STOP "$peer"
	ends_within $pid 30 "SIGSTOPped peer, -d 2s: the run ends (it never did)"
	is_rc 1 "SIGSTOPped peer: exit 1"
	check "SIGSTOPped peer: says the peer stalled" grep -q "the peer stalled" "$err"
	jqt "SIGSTOPped peer: partial, with the iterations measured" \
		'.results[0].status == "partial" and .results[0].runs[0].iterations > 0' "$T/stall.json"
	kill -CONT "$peer" 2>/dev/null
else
	ok 1 "SIGSTOPped peer: ipcperf started a peer"
	kill $pid
fi
no_leftovers "a stopped peer"

## Two cases (one CPU and two): the peer stopped may be the second case's,
## before its measured part began; the warm-up has a deadline too (10 s,
## the duration and its grace here), so the run still ends, says so and
## keeps the other case.
"$IPCPERF" rr -t pipe -d 2s -r 1 -q -f json -o "$T/stall2.json" \
	>/dev/null 2>"$err" &
pid=$!
if peer=$(peer_of $pid); then
	sleep 0.5
	kill -STOP "$peer"
	ends_within $pid 40 "SIGSTOPped peer, two placements: the run ends"
	is_rc 1 "SIGSTOPped peer, two placements: exit 1"
	check "SIGSTOPped peer, two placements: says the peer stalled" \
		grep -q "the peer stalled" "$err"
	kill -CONT "$peer" 2>/dev/null
else
	ok 1 "SIGSTOPped peer, two placements: ipcperf started a peer"
	kill $pid
fi
no_leftovers "a stopped peer, two placements"

done_testing

# SPDX-License-Identifier: MIT
# The command line: help, version, list, and every usage error path, each
# with one line that names the bad value, a hint, and exit status 2.
. "$(dirname "$0")/lib.bash"

run --help
is_rc 0 "--help exits 0"
check "--help names the commands" grep -q "stream" "$out"
run rr --help
is_rc 0 "rr --help exits 0"
check "rr --help shows --req" grep -q -- "--req" "$out"
check "rr --help does not show stream's --count" sh -c "! grep -q -- '--count' $out"
run --version
is_rc 0 "--version exits 0"
check "--version prints a version" grep -q "^ipcperf " "$out"
run list
is_rc 0 "list exits 0"
for t in pipe fifo socketpair unix unix-dgram unix-seqpacket tcp tcp6 udp udp6 shm mq pty serial; do
	check "list shows $t" grep -q "^  $t " "$out"
done

# usage_case "description" "text the first line must contain" ARGS...
usage_case() {
	local d=$1 want=$2
	shift 2
	run "$@"
	is_rc 2 "$d: exit 2"
	if head -n 1 "$err" | grep -qF -- "$want"; then
		ok 0 "$d: first line names '$want'"
	else
		ok 1 "$d: first line names '$want'"
		diag "stderr: $(head -n 2 "$err")"
	fi
	if grep -q "hint:" "$err"; then ok 0 "$d: a hint follows"; else ok 1 "$d: a hint follows"; fi
	[ ! -s "$out" ]
	ok $? "$d: nothing on stdout"
}

usage_case "unknown command" "'frobnicate'" frobnicate
usage_case "unknown transport" "'tpc'" rr -t tpc
usage_case "unknown engine" "'epol'" rr -t pipe -e epol
usage_case "bad size suffix" "'12x'" rr -t pipe --req 12x
usage_case "backwards range" "'1024..64'" rr -t pipe --resp 1024..64
usage_case "bad range step" "'1' in '64..4096:x1'" stream -t pipe --size 64..4096:x1
usage_case "zero count" "'0'" stream -t pipe --count 0
usage_case "bad duration" "'5parsecs'" rr -t pipe -d 5parsecs
usage_case "conflicting -n and -d" "--duration" rr -t pipe -n 100 -d 1
usage_case "option of another command" "--req" stream -t pipe --req 64
usage_case "unknown option" "--frob" rr --frob
usage_case "missing value" "--req" rr --req
usage_case "bad format" "'xml'" rr -t pipe -f xml
usage_case "bad placement" "'fiber'" rr -t pipe --placement fiber
usage_case "bad pin" "'0;1'" rr -t pipe --pin '0;1'
usage_case "pin to a missing CPU" "4096" rr -t pipe --pin 0,4096
usage_case "bulk chunk 0" "chunk size 0" bulk -t pipe --size 0
usage_case "zero runs" "'0'" rr -t pipe -r 0
usage_case "message too big for udp" "65536" stream -t udp --size 64k
# Numbers with units: one parser, one set of rules for every option and
# --link item; a sign, a space, hex or a step that wraps is refused.
usage_case "negative jitter after a space" "' -1ms'" rr -t pipe -n 10 --link 'delay=1ms,jitter= -1ms'
usage_case "negative delay after a space" "' -5ms'" rr -t pipe -n 10 --link 'delay= -5ms'
usage_case "negative delay" "'-5ms'" rr -t pipe -n 10 --link 'delay=-5ms'
usage_case "hex delay" "'0x10'" rr -t pipe -n 10 --link delay=0x10
usage_case "hex duration" "'0x10'" rr -t pipe -d 0x10
usage_case "hex size" "'0x10'" rr -t pipe --req 0x10
usage_case "negative range factor" "'-2' in '0..1024:x-2'" rr -t pipe --req '0..1024:x-2'
usage_case "spaced range step" "' x2'" rr -t pipe --req '0..1024: x2'
usage_case "spaced range factor" "' 2'" rr -t pipe --req '0..1024:x 2'
usage_case "negative range step" "'-64'" rr -t pipe --req '0..1024:+-64'
usage_case "leading space in a size" "' 64'" rr -t pipe --req ' 64'
usage_case "leading space in a count" "' 100'" rr -t pipe -n ' 100'
usage_case "negative warmup after a space" "' -5'" rr -t pipe -w ' -5'
usage_case "sndbuf not a number" "'abc'" rr -t pipe --sndbuf abc
usage_case "a link rate that rounds to 0" "'0.4'" rr -t pipe -n 10 --link rate=0.4
usage_case "a duration of 0" "'0'" rr -t pipe -d 0
usage_case "a fraction of a size" "'1.5k'" rr -t pipe --req 1.5k
usage_case "unwritable output" "/nonexistent/dir/r.json" rr -t pipe -n 10 -r 1 -o /nonexistent/dir/r.json
[ ! -e /nonexistent/dir/r.json ]
ok $? "unwritable output: no file made"
no_leftovers "usage errors"

done_testing

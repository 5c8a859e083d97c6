# SPDX-License-Identifier: MIT
# The progress line: on a terminal (a pty from script(1)) it shows the
# case and run k of N, redrawn with \r and erased at the end; with -q, or
# when stderr is a file or a pipe, not a byte of it.
. "$(dirname "$0")/lib.bash"

command -v script >/dev/null || { echo "1..0 # skip script(1) is not installed (bsdutils)"; exit 77; }

esc=$(printf '\033')
tty_out="$T/tty.out"

# on_tty ARGS...: run ipcperf with a pty as its terminal, output to tty_out.
# The shell inside keeps the pty open a moment after ipcperf exits: script(1)
# can lose the last bytes a child wrote just before the pty closed.  The pty
# is 200 columns wide: at 80 the line is cut (as it should be) before its
# last words, "at most 12s left" on a loaded machine, "<1s left" on an idle
# one, which made the check for them depend on the machine's speed.
on_tty() {
	script -qec "stty cols 200 2>/dev/null; $(printf '%q ' "$IPCPERF" "$@"); r=\$?; sleep 0.3; exit \$r" \
		/dev/null >"$tty_out" 2>&1
	rc=$?
}

# --pin none: one case (by default each is measured on one CPU and on two).
on_tty rr --pin none -t pipe -n 500 -w 10 -r 3 -o /dev/null
is_rc 0 "rr on a terminal: exit 0"
check "the case and run 1 of 3" grep -qF "[1/1] rr pipe req=1 resp=1: run 1 of 3" "$tty_out"
check "... up to run 3 of 3" grep -qF "run 3 of 3" "$tty_out"
check "redrawn in place: \\r then clear-to-end" grep -qF "$(printf '\r\033[K[1/1] rr pipe')" "$tty_out"
# The last \r ESC[K is followed by no progress frame: the line was erased
# (whatever is printed after it, such as a warning, starts on a clean line).
check "erased at the end" perl -0777 -ne \
	'my @p = split /\r\e\[K/, $_, -1; exit !(@p > 1 && $p[-1] !~ /^\[\d+\/\d+\]/)' "$tty_out"

on_tty rr --pin none -t pipe,unix -n 500 -w 10 -r auto --max-runs 7 --ci 95,0.001 -o /dev/null
check "auto runs: at most N, and the target" grep -qF "run 1 of at most 7, target" "$tty_out"
check "auto runs: the interval once there is one" grep -qE "run 7 of at most 7, .*% \(target 0.001%\)" "$tty_out"
check "auto runs: how long at most" grep -qF "left" "$tty_out"

if [ "$(nproc)" -ge 2 ]; then
	on_tty rr -t pipe -n 500 -w 10 -r 2 -o /dev/null
	check "by default: the case on one CPU and on two" sh -c "grep -qF '[1/2] rr pipe req=1 resp=1 cpus=1: run' '$tty_out' && grep -qF '[2/2] rr pipe req=1 resp=1 cpus=2: run' '$tty_out'"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip one CPU: each case is measured once"
fi

# "at most ... left" holds: a short plan run on a pty, each drawn line
# timed by script(1), and the time the command still took after each line
# set against what it said.  Not a speed test: whatever the machine's
# speed, a bound is a bound.  The slack is the line's rounding to the
# second and the end of the command after its last run.  Two cases of
# very different runs (a replay over loopback, about a millisecond, and
# over a 19200-baud line, about a second), one after the other: from the
# first case's runs alone the second's time cannot be told.
if script --help 2>&1 | grep -q -- '--log-timing'; then
	script -q -T "$T/timing" -O "$T/typescript" -c \
		"stty cols 250 2>/dev/null; $(printf '%q ' "$IPCPERF") replay --pin none --link localhost --link baud=19200 --no-interleave --budget 1s traces/stub-multi.log -o /dev/null" \
		>/dev/null 2>&1
	rc=$?
	is_rc 0 "a short plan with a budget, on a pty"
	perl -e '
		my ($timing, $log) = @ARGV;
		open my $t, "<", $timing or die;
		open my $l, "<", $log or die;
		binmode $l;
		local $/;
		my $text = <$l>;
		$text =~ s/\A[^\n]*\n// if $text =~ /\AScript started/;
		my @tv = split " ", <$t>;
		my ($now, $pos, $line, @lines) = (0, 0, "");
		while (@tv) {
			my ($d, $n) = splice @tv, 0, 2;
			$now += $d;
			for my $c (split //, substr($text, $pos, $n)) {
				if ($c eq "\r") {
					push @lines, [$now, $line] if $line =~ /\S/;
					$line = "";
				} else {
					$line .= $c;
				}
			}
			$pos += $n;
		}
		my ($said, $bad) = (0, 0);
		for (@lines) {
			my ($at, $l) = @$_;
			next unless $l =~ /at most (\S+) left/;
			my $w = $1;
			my $s = $w eq "<1s" ? 1 : 0;
			$s += $1 * 3600 if $w =~ /(\d+)h/;
			$s += $1 * 60 if $w =~ /(\d+)m/;
			$s += $1 if $w =~ /(\d+)s/;
			my $left = $now - $at;
			$said++;
			if ($left > $s + 1.5) {
				$bad++;
				printf "# at %.2f s it said %s, %.2f s were left\n", $at, $w, $left;
			}
		}
		print "# $said estimates, $bad below what was left\n";
		exit !($said >= 3 && !$bad);
	' "$T/timing" "$T/typescript"
	ok $? "... every 'at most ... left' at least the time that was left"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip script(1) without --log-timing"
fi

# The heading's time: the runs each case gets at least (the scheduler's
# floor, 6 at 95%), and what the command took, which a budget smaller
# than those runs cannot bound.
run rr -t pipe -n 300 -w 10 --budget 1ms
is_rc 0 "rr with a budget of 1 ms"
check "the heading: 6 to 30 runs, what it took, and why past the budget" \
	grep -qE "\(6 to 30 runs, budget 1.00 ms; took [0-9.]+ (ms|s), each case's 6 runs first\)" "$out"
jqt_runs=$("$IPCPERF" rr -t pipe -n 300 -w 10 --pin none --budget 1ms -f json | jq '.results[0].runs | length')
[ "$jqt_runs" -ge 6 ] 2>/dev/null
ok $? "... and it had its 6 runs ($jqt_runs)"

on_tty rr -t pipe -n 500 -w 10 -r 3 -q -o /dev/null
is_rc 0 "-q on a terminal: exit 0"
check "-q: no progress line" sh -c "! grep -q 'run 1 of' '$tty_out' && ! grep -q '$esc' '$tty_out'"

run rr -t pipe -n 500 -w 10 -r 3 -o /dev/null
is_rc 0 "stderr to a file: exit 0"
check "stderr to a file: nothing on it" test ! -s "$err"
"$IPCPERF" rr -t pipe -n 500 -w 10 -r 3 -o /dev/null 2>&1 | cat >"$T/pipe.out"
check "stderr to a pipe: nothing on it" test ! -s "$T/pipe.out"

no_leftovers progress
done_testing

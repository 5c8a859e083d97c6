# The libFuzzer targets (make fuzz) for a few seconds each, from their seed
# corpora: a crash or a broken promise of a parser fails the check.  Long
# runs are `make fuzz FUZZ_TIME=...`.
. "$(dirname "$0")/lib.bash"

secs=${FUZZ_SMOKE_SECS:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
n=0
for f in "$root"/build/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=${f##*/fuzz_}
	n=$((n + 1))
	mkdir -p "$T/corpus-$name"
	"$f" -max_total_time="$secs" -max_len=65536 -artifact_prefix="$T/" \
		"$T/corpus-$name" "$root/tests/fuzz/corpus/$name" >"$T/fuzz.log" 2>&1
	rc=$?
	ok $rc "fuzz_$name: ${secs}s from its seed corpus without a crash"
	[ $rc = 0 ] || tail -n 20 "$T/fuzz.log" | sed 's/^/# /'
	check "fuzz_$name: ran its corpus" grep -q 'Done [0-9]* runs' "$T/fuzz.log"
done
if [ $n = 0 ]; then
	echo "ok 1 # skip no fuzz target built: needs clang and libFuzzer (libclang-rt-14-dev); make fuzz"
	tap_n=1
fi
rm -rf "${TMPDIR:?}"/*
done_testing

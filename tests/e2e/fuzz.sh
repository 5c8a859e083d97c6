# SPDX-License-Identifier: MIT
# Every libFuzzer target (tests/fuzz/fuzz_NAME.c) replays its seed corpus
# (tests/fuzz/corpus/fuzz_NAME, or corpus/NAME) and then runs a fixed
# number of mutated inputs from one fixed seed, without a crash, a leak, a
# sanitizer report or a broken promise of its parser.  A count, not a
# time: the smoke does the same work on a loaded machine as on an idle one
# (a few seconds in all); `make fuzz` runs the targets for longer.  make
# check builds the targets where clang's fuzzer runtime is installed
# (scripts/deps.sh fuzz); without it the test says so and is skipped.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${FUZZ_SMOKE_RUNS:-500}
if ! sh "$root/scripts/deps.sh" fuzz >"$T/deps" 2>&1; then
	echo "1..0 # skip no libFuzzer here (clang, libclang-rt-14-dev): $(head -n 1 "$T/deps")"
	exit 77
fi
n=0
for src in "$root"/tests/fuzz/fuzz_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	bin=$root/build/fuzz/fuzz_$name
	n=$((n + 1))
	if [ ! -x "$bin" ]; then
		ok 1 "fuzz_$name is built (make check builds it)"
		continue
	fi
	seeds=tests/fuzz/corpus/fuzz_$name
	[ -d "$root/$seeds" ] || seeds=tests/fuzz/corpus/$name
	nseeds=$(find "$root/$seeds" -type f 2>/dev/null | wc -l)
	[ "$nseeds" -gt 0 ]
	ok $? "fuzz_$name has a seed corpus ($seeds: $nseeds inputs)"
	# Each seed once.  (libFuzzer writes what it finds into the first
	# folder it is given: a scratch one, never the seeds.)
	mkdir -p "$T/corpus-$name"
	(cd "$root" && "$bin" -runs=0 -timeout=30 -artifact_prefix="$T/" \
		"$T/corpus-$name" "$seeds") >"$T/fuzz.log" 2>&1
	rc=$?
	ok $rc "fuzz_$name: its $nseeds seeds, no crash"
	[ $rc = 0 ] || grep -v '^#' "$T/fuzz.log" | tail -n 25 | sed 's/^/#   /'
	# Then mutations from a fixed seed.
	(cd "$root" && "$bin" -seed=1 -runs="$runs" -timeout=30 \
		-artifact_prefix="$T/" "$T/corpus-$name" "$seeds") \
		>"$T/fuzz.log" 2>&1
	rc=$?
	ok $rc "fuzz_$name: $runs inputs from seed 1, no crash"
	[ $rc = 0 ] || grep -v '^#' "$T/fuzz.log" | tail -n 25 | sed 's/^/#   /'
	check "fuzz_$name: ran $runs inputs" grep -qE "^Done $runs runs" "$T/fuzz.log"
	rm -rf "$T/corpus-$name"
done
[ $n -gt 0 ]
ok $? "at least one fuzz target in tests/fuzz"
rm -rf "${TMPDIR:?}"/*
done_testing

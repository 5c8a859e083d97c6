# Every libFuzzer target (tests/fuzz/fuzz_NAME.c) runs a few seconds from
# its seed corpus (tests/fuzz/corpus/NAME) without a crash, a leak, a
# sanitizer report or a broken promise of its parser; `make fuzz` runs them
# for longer.  make check builds the targets where clang's fuzzer runtime
# is installed (scripts/deps.sh fuzz); without it the test says so and is
# skipped.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SMOKE_SECONDS:-3}
if ! sh "$root/scripts/deps.sh" fuzz >"$T/deps" 2>&1; then
	echo "1..0 # skip no libFuzzer here (clang, libclang-rt-14-dev): $(head -n 1 "$T/deps")"
	exit 77
fi
n=0
for src in "$root"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	bin=$root/build/fuzz/fuzz_$name
	n=$((n + 1))
	if [ ! -x "$bin" ]; then
		ok 1 "fuzz_$name is built (make check builds it)"
		continue
	fi
	check "fuzz_$name has a seed corpus" \
		test -n "$(ls -A "$root/tests/fuzz/corpus/$name" 2>/dev/null)"
	mkdir -p "$T/corpus-$name"
	(cd "$root" && "$bin" -max_total_time="$secs" -timeout=10 \
		-artifact_prefix="$T/" "$T/corpus-$name" \
		"tests/fuzz/corpus/$name") >"$T/fuzz.log" 2>&1
	rc=$?
	ok $rc "fuzz_$name: ${secs} s from its seed corpus, no crash"
	[ $rc = 0 ] || grep -v '^#' "$T/fuzz.log" | tail -n 25 | sed 's/^/#   /'
	check "fuzz_$name: ran inputs" grep -qE '^Done [1-9][0-9]* runs' "$T/fuzz.log"
	rm -rf "$T/corpus-$name"
done
[ $n -gt 0 ] || ok 1 "at least one fuzz target in tests/fuzz"
rm -rf "${TMPDIR:?}"/*
done_testing

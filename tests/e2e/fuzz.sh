# Every libFuzzer target in tests/fuzz runs a few seconds from its seed
# corpus without a crash, a leak or a hang (make fuzz runs them longer).
# Needs clang and its fuzzer runtime: scripts/deps.sh installs them as
# root; without them the test is skipped and says so.
. "$(dirname "$0")/lib.bash"

if ! sh scripts/deps.sh fuzz >"$T/deps" 2>&1; then
	echo "1..0 # skip no libFuzzer here: $(head -n 1 "$T/deps")"
	exit 77
fi
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	make --no-print-directory -s "build/fuzz/$name" >"$T/build" 2>&1
	ok $? "$name builds"
	mkdir -p "$T/corpus"
	build/fuzz/"$name" -max_total_time=3 -timeout=10 "$T/corpus" \
		"tests/fuzz/corpus/$name" >"$T/log" 2>&1
	rc=$?
	ok $rc "$name: 3 s from its seed corpus, no crash"
	[ $rc = 0 ] || sed 's/^/#   /' "$T/log" | grep -v '^#   #' | tail -n 20
	rm -rf "$T/corpus"
done
[ $tap_n -gt 0 ] || ok 1 "at least one fuzz target in tests/fuzz"
done_testing

/* SPDX-License-Identifier: MIT */
/*
 * Numbers with units: every kind's syntax on good input and on every kind
 * of bad input (signs, spaces, hex, fractions where none is taken, values
 * that round to 0, limits), lists with ranges and steps, and the table's
 * human formatting.
 */
#include <errno.h>
#include <math.h>

#include "../tap.h"
#include "ipcperf/base.h"

#define NS_S 1000000000ull
#define DAY_NS (86400ull * NS_S)

static char err[256];

/* @s parses as @kind within [min, max] to @want. */
static void parses(enum ipc_unit_kind kind, const char *s, uint64_t min,
		   uint64_t max, uint64_t want)
{
	uint64_t v = 12345;
	int e = ipc_units_parse(kind, s, min, max, &v, err, sizeof(err));

	ok(e == 0 && v == want, "'%s' is %llu", s, (unsigned long long)want);
	if (e)
		diag("refused: %s", err);
	else if (v != want)
		diag("got %llu", (unsigned long long)v);
}

/*
 * @s is refused, the value left untouched, and the one-line message
 * quotes the value and contains @why.
 */
static void refused(enum ipc_unit_kind kind, const char *s, uint64_t min,
		    uint64_t max, const char *why)
{
	char quoted[96];
	uint64_t v = 777;
	int e;

	err[0] = '\0';
	e = ipc_units_parse(kind, s, min, max, &v, err, sizeof(err));
	snprintf(quoted, sizeof(quoted), "'%s'", s);
	ok(e == -EINVAL && v == 777, "'%s' is refused", s);
	ok(strstr(err, quoted) && strstr(err, why) && !strchr(err, '\n'),
	   "'%s': one line with the value and '%s': %s", s, why, err);
}

static void test_sizes(void)
{
	const uint64_t G = 1ull << 30;

	parses(IPC_UNIT_SIZE, "0", 0, G, 0);
	parses(IPC_UNIT_SIZE, "64", 0, G, 64);
	parses(IPC_UNIT_SIZE, "64B", 0, G, 64);
	parses(IPC_UNIT_SIZE, "4k", 0, G, 4096);
	parses(IPC_UNIT_SIZE, "4K", 0, G, 4096);
	parses(IPC_UNIT_SIZE, "4kB", 0, G, 4096);
	parses(IPC_UNIT_SIZE, "4KiB", 0, G, 4096);
	parses(IPC_UNIT_SIZE, "1M", 0, G, 1048576);
	parses(IPC_UNIT_SIZE, "1mib", 0, G, 1048576);
	parses(IPC_UNIT_SIZE, "1G", 0, G, G);
	parses(IPC_UNIT_SIZE, "007", 0, G, 7);
	refused(IPC_UNIT_SIZE, "2G", 0, G, "must be at most 1G");
	refused(IPC_UNIT_SIZE, "1025M", 0, G, "must be at most 1G");
	refused(IPC_UNIT_SIZE, "99999999999999999999999", 0, G,
		"must be at most 1G");
	refused(IPC_UNIT_SIZE, "18446744073709551616", 0, UINT64_MAX,
		"must be at most");
	refused(IPC_UNIT_SIZE, "17179869184G", 0, UINT64_MAX,
		"must be at most");
	refused(IPC_UNIT_SIZE, "-1", 0, G, "negative");
	refused(IPC_UNIT_SIZE, "+1", 0, G, "sign");
	refused(IPC_UNIT_SIZE, " 1", 0, G, "space");
	refused(IPC_UNIT_SIZE, "1 ", 0, G, "space");
	refused(IPC_UNIT_SIZE, "4 k", 0, G, "space");
	refused(IPC_UNIT_SIZE, "\t4k", 0, G, "space");
	refused(IPC_UNIT_SIZE, "0x10", 0, G, "hexadecimal");
	refused(IPC_UNIT_SIZE, "0X10", 0, G, "hexadecimal");
	refused(IPC_UNIT_SIZE, "1.5k", 0, G, "whole number");
	refused(IPC_UNIT_SIZE, "1e3", 0, G, "unknown unit 'e3'");
	refused(IPC_UNIT_SIZE, "4q", 0, G, "unknown unit 'q'");
	refused(IPC_UNIT_SIZE, "inf", 0, G, "not a number");
	refused(IPC_UNIT_SIZE, "nan", 0, G, "not a number");
	refused(IPC_UNIT_SIZE, ".5", 0, G, "not a number");
	refused(IPC_UNIT_SIZE, "k", 0, G, "not a number");
	refused(IPC_UNIT_SIZE, "0", 1, G, "must be more than 0");
	refused(IPC_UNIT_SIZE, "8", 16, G, "must be at least 16");
	refused(IPC_UNIT_SIZE, "", 0, G, "empty");
	ok(strstr(err, "''") != NULL, "an empty value is quoted: %s", err);
}

static void test_counts(void)
{
	parses(IPC_UNIT_COUNT, "1000", 1, UINT64_MAX, 1000);
	parses(IPC_UNIT_COUNT, "100k", 1, UINT64_MAX, 100000);
	parses(IPC_UNIT_COUNT, "2M", 1, UINT64_MAX, 2000000);
	parses(IPC_UNIT_COUNT, "3g", 1, UINT64_MAX, 3000000000ull);
	parses(IPC_UNIT_COUNT, "0", 0, 10, 0);
	refused(IPC_UNIT_COUNT, "0", 1, UINT64_MAX, "must be more than 0");
	refused(IPC_UNIT_COUNT, "4", 5, UINT64_MAX, "must be at least 5");
	refused(IPC_UNIT_COUNT, "100001", 1, 100000, "must be at most 100k");
	refused(IPC_UNIT_COUNT, "1kB", 1, UINT64_MAX, "unknown unit 'kB'");
	refused(IPC_UNIT_COUNT, "2.5k", 1, UINT64_MAX, "whole number");
	refused(IPC_UNIT_COUNT, " -5", 0, UINT64_MAX, "space");
	refused(IPC_UNIT_COUNT, "-5", 0, UINT64_MAX, "negative");
	refused(IPC_UNIT_COUNT, "0x10", 0, UINT64_MAX, "hexadecimal");
}

static void test_times(void)
{
	parses(IPC_UNIT_TIME, "5", 1, DAY_NS, 5 * NS_S);
	parses(IPC_UNIT_TIME, "5s", 1, DAY_NS, 5 * NS_S);
	parses(IPC_UNIT_TIME, "1.5s", 1, DAY_NS, 1500000000);
	parses(IPC_UNIT_TIME, "1.5", 1, DAY_NS, 1500000000);
	parses(IPC_UNIT_TIME, "500ms", 1, DAY_NS, 500000000);
	parses(IPC_UNIT_TIME, "500MS", 1, DAY_NS, 500000000);
	parses(IPC_UNIT_TIME, "2.5ms", 1, DAY_NS, 2500000);
	parses(IPC_UNIT_TIME, "100us", 1, DAY_NS, 100000);
	parses(IPC_UNIT_TIME, "100\u00b5s", 1, DAY_NS, 100000);
	parses(IPC_UNIT_TIME, "100\u03bcs", 1, DAY_NS, 100000);
	parses(IPC_UNIT_TIME, "100ns", 1, DAY_NS, 100);
	parses(IPC_UNIT_TIME, "1.4ns", 1, DAY_NS, 1);
	parses(IPC_UNIT_TIME, "2m", 1, DAY_NS, 120 * NS_S);
	parses(IPC_UNIT_TIME, "2min", 1, DAY_NS, 120 * NS_S);
	parses(IPC_UNIT_TIME, "24h", 1, DAY_NS, DAY_NS);
	parses(IPC_UNIT_TIME, "0", 0, 60 * NS_S, 0);
	parses(IPC_UNIT_TIME, "0ms", 0, 60 * NS_S, 0);
	parses(IPC_UNIT_TIME, "1m", 0, 60 * NS_S, 60 * NS_S);
	refused(IPC_UNIT_TIME, "0", 1, DAY_NS, "must be more than 0");
	refused(IPC_UNIT_TIME, "0.1ns", 0, DAY_NS, "resolution of 1ns");
	refused(IPC_UNIT_TIME, "25h", 1, DAY_NS, "must be at most 24h");
	refused(IPC_UNIT_TIME, "61s", 0, 60 * NS_S, "must be at most 60s");
	refused(IPC_UNIT_TIME, "1e300s", 0, DAY_NS, "unknown unit");
	refused(IPC_UNIT_TIME,
		"99999999999999999999999999999999999999999999999h", 0, DAY_NS,
		"must be at most 24h");
	refused(IPC_UNIT_TIME, "5parsecs", 1, DAY_NS,
		"unknown unit 'parsecs' (use ns, us, ms, s, m or h)");
	refused(IPC_UNIT_TIME, "-1s", 1, DAY_NS, "negative");
	refused(IPC_UNIT_TIME, "-1ms", 0, DAY_NS, "negative");
	refused(IPC_UNIT_TIME, " -1ms", 0, DAY_NS, "space");
	refused(IPC_UNIT_TIME, " 5", 1, DAY_NS, "space");
	refused(IPC_UNIT_TIME, "5 ms", 1, DAY_NS, "space");
	refused(IPC_UNIT_TIME, "0x10", 1, DAY_NS, "hexadecimal");
	refused(IPC_UNIT_TIME, "0x1p3", 1, DAY_NS, "hexadecimal");
	refused(IPC_UNIT_TIME, "nan", 1, DAY_NS, "not a number");
	refused(IPC_UNIT_TIME, "inf", 1, DAY_NS, "not a number");
	refused(IPC_UNIT_TIME, ".5s", 1, DAY_NS, "not a number");
	refused(IPC_UNIT_TIME, "5.s", 1, DAY_NS, "not a number");
	refused(IPC_UNIT_TIME, "1.5.5s", 1, DAY_NS, "unknown unit");
}

static void test_rates_percent(void)
{
	const uint64_t T = 1000000000000ull;

	parses(IPC_UNIT_BITRATE, "9600", 0, T, 9600);
	parses(IPC_UNIT_BITRATE, "100mbit", 0, T, 100000000);
	parses(IPC_UNIT_BITRATE, "100Mbit", 0, T, 100000000);
	parses(IPC_UNIT_BITRATE, "1.5mbit", 0, T, 1500000);
	parses(IPC_UNIT_BITRATE, "64kbit", 0, T, 64000);
	parses(IPC_UNIT_BITRATE, "1gbit", 0, T, 1000000000);
	parses(IPC_UNIT_BITRATE, "0", 0, T, 0);
	refused(IPC_UNIT_BITRATE, "0.4", 0, T, "resolution of 1bit");
	refused(IPC_UNIT_BITRATE, "2000gbit", 0, T, "at most 1000gbit");
	refused(IPC_UNIT_BITRATE, "10mbps", 0, T, "unknown unit 'mbps'");
	refused(IPC_UNIT_BITRATE, "-1", 0, T, "negative");

	parses(IPC_UNIT_PERCENT, "1%", 0, 1000000, 10000);
	parses(IPC_UNIT_PERCENT, "0.5%", 0, 1000000, 5000);
	parses(IPC_UNIT_PERCENT, "100%", 0, 1000000, 1000000);
	parses(IPC_UNIT_PERCENT, "0%", 0, 1000000, 0);
	refused(IPC_UNIT_PERCENT, "1", 0, 1000000, "a unit is needed");
	/* Options that are percentages: the % may go, the syntax stays. */
	parses(IPC_UNIT_PCT, "2", 0, 1000000, 20000);
	parses(IPC_UNIT_PCT, "2.5%", 0, 1000000, 25000);
	refused(IPC_UNIT_PCT, "0x10", 0, 1000000, "hexadecimal");
	refused(IPC_UNIT_PCT, "+5", 0, 1000000, "sign");
	refused(IPC_UNIT_PCT, "\t5", 0, 1000000, "space");
	refused(IPC_UNIT_PCT, "5e1", 0, 1000000, "unknown unit");
	refused(IPC_UNIT_PERCENT, "101%", 0, 1000000, "at most 100%");
	refused(IPC_UNIT_PERCENT, "0.00001%", 0, 1000000,
		"resolution of 0.0001%");
}

/* The list parsed from @s equals the @n values given. */
static void list_is(enum ipc_unit_kind kind, const char *s,
		    const uint64_t *want, size_t n)
{
	struct ipc_u64_list l;
	bool same;

	if (ipc_units_parse_list(kind, s, 0, 1ull << 30, &l, err,
				 sizeof(err))) {
		ok(0, "list '%s' parses (%s)", s, err);
		return;
	}
	same = l.n == n;
	for (size_t i = 0; same && i < n; i++)
		same = l.v[i] == want[i];
	ok(same, "list '%s' has the expected %zu values", s, n);
	if (!same) {
		printf("#   got");
		for (size_t i = 0; i < l.n; i++)
			printf(" %llu", (unsigned long long)l.v[i]);
		printf("\n");
	}
	ipc_u64_list_free(&l);
}

static void list_bad(enum ipc_unit_kind kind, const char *s, uint64_t min,
		     const char *needle)
{
	struct ipc_u64_list l = {(uint64_t *)&l, 99};
	int e;

	err[0] = '\0';
	e = ipc_units_parse_list(kind, s, min, 1ull << 30, &l, err,
				 sizeof(err));
	ok(e == -EINVAL && l.v == NULL && l.n == 0,
	   "list '%s' is refused, empty", s);
	ok(strstr(err, needle) != NULL && !strchr(err, '\n'),
	   "error for '%s' names '%s': %s", s, needle, err);
}

static void test_lists(void)
{
	const uint64_t a[] = {0, 4, 8};
	const uint64_t b[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
	const uint64_t c[] = {64, 128, 256, 512, 1024, 2048, 4096};
	const uint64_t d[] = {64, 256, 1024, 4096};
	const uint64_t e[] = {0, 10, 20, 30};
	const uint64_t f[] = {100, 200, 400, 800, 1000};
	const uint64_t g[] = {4096, 65536, 1048576};
	const uint64_t h[] = {5};
	const uint64_t i[] = {8, 4, 0, 16};
	const uint64_t j[] = {0, 3, 6, 7};
	const uint64_t k[] = {0, 65536, 131072, 196608};
	const uint64_t m[] = {10, 100, 1000, 10000};
	const uint64_t t[] = {1000000, 2000000, 3000000};

	list_is(IPC_UNIT_SIZE, "0,4,8", a, 3);
	list_is(IPC_UNIT_SIZE, "0..1024", b, 12);
	list_is(IPC_UNIT_SIZE, "64..4096", c, 7);
	list_is(IPC_UNIT_SIZE, "64..4096:x2", c, 7);
	list_is(IPC_UNIT_SIZE, "64..4096:x4", d, 4);
	list_is(IPC_UNIT_SIZE, "0..30:+10", e, 4);
	list_is(IPC_UNIT_SIZE, "100..1000", f, 5);
	list_is(IPC_UNIT_SIZE, "4k,64k,1M", g, 3);
	list_is(IPC_UNIT_SIZE, "5..5", h, 1);
	list_is(IPC_UNIT_SIZE, "8,4,0,4,16,8", i, 4);
	list_is(IPC_UNIT_SIZE, "0..7:+3", j, 4);
	list_is(IPC_UNIT_SIZE, "0..192k:+64k", k, 4);
	list_is(IPC_UNIT_COUNT, "10..10k:x10", m, 4);
	list_is(IPC_UNIT_TIME, "1ms..3ms:+1ms", t, 3);

	list_bad(IPC_UNIT_SIZE, "", 0, "empty size list");
	list_bad(IPC_UNIT_SIZE, "1,,2", 0, "empty");
	list_bad(IPC_UNIT_SIZE, "1,", 0, "empty");
	list_bad(IPC_UNIT_SIZE, "1024..64", 0, "'1024..64': 1024 is above 64");
	list_bad(IPC_UNIT_SIZE, "64..4096:x1", 0, "bad factor '1'");
	list_bad(IPC_UNIT_SIZE, "64..4096:y2", 0, "bad step 'y2'");
	list_bad(IPC_UNIT_SIZE, "64..4096:", 0, "bad step ''");
	list_bad(IPC_UNIT_SIZE, "0..100:+0", 0, "bad step '0'");
	list_bad(IPC_UNIT_SIZE, "0..1024:x-2", 0,
		 "bad factor '-2' in '0..1024:x-2': negative");
	list_bad(IPC_UNIT_SIZE, "0..1024:+-2", 0, "negative");
	list_bad(IPC_UNIT_SIZE, "0..1024:x 2", 0, "space");
	list_bad(IPC_UNIT_SIZE, "0..1024: x2", 0, "bad step ' x2'");
	list_bad(IPC_UNIT_SIZE, "0..1024:x0x2", 0, "hexadecimal");
	list_bad(IPC_UNIT_SIZE, "0..1024:x2.5", 0, "whole number");
	list_bad(IPC_UNIT_SIZE, " 0..1024", 0, "space");
	list_bad(IPC_UNIT_SIZE, "0.. 1024", 0, "space");
	list_bad(IPC_UNIT_SIZE, "-4..8", 0, "negative");
	list_bad(IPC_UNIT_SIZE, "a..b", 0, "'a..b': not a number");
	list_bad(IPC_UNIT_SIZE, "1..2G", 0, "must be at most 1G");
	list_bad(IPC_UNIT_SIZE, "0..1G:+1", 0, "more than 4096 values");
	list_bad(IPC_UNIT_SIZE, "64,4q", 0, "bad size '4q' in '64,4q'");
	list_bad(IPC_UNIT_COUNT, "0,10", 1, "must be more than 0");
	list_bad(IPC_UNIT_COUNT, "0..10", 1, "must be more than 0");
}

static void test_format(void)
{
	char b[32];

	is_str(ipc_fmt_ns(0, b, sizeof(b)), "0 ns", "0 ns");
	is_str(ipc_fmt_ns(812, b, sizeof(b)), "812 ns", "812 ns");
	is_str(ipc_fmt_ns(999, b, sizeof(b)), "999 ns", "999 ns");
	is_str(ipc_fmt_ns(999.4, b, sizeof(b)), "999 ns", "999.4 ns");
	is_str(ipc_fmt_ns(999.5, b, sizeof(b)), "1.00 µs",
	       "999.5 ns rounds up a unit");
	is_str(ipc_fmt_ns(1000, b, sizeof(b)), "1.00 µs", "1000 ns");
	is_str(ipc_fmt_ns(4910, b, sizeof(b)), "4.91 µs", "4.91 µs");
	is_str(ipc_fmt_ns(9996, b, sizeof(b)), "10.0 µs",
	       "9996 ns keeps three digits");
	is_str(ipc_fmt_ns(12.34, b, sizeof(b)), "12.3 ns", "fraction of ns");
	is_str(ipc_fmt_ns(999999, b, sizeof(b)), "1.00 ms", "999999 ns");
	is_str(ipc_fmt_ns(12.3e6, b, sizeof(b)), "12.3 ms", "12.3 ms");
	is_str(ipc_fmt_ns(1.25e9, b, sizeof(b)), "1.25 s", "1.25 s");
	is_str(ipc_fmt_ns(3600e9, b, sizeof(b)), "3600 s", "an hour");
	is_str(ipc_fmt_ns(NAN, b, sizeof(b)), "-", "nan ns");
	is_str(ipc_fmt_ns(INFINITY, b, sizeof(b)), "-", "inf ns");
	is_str(ipc_fmt_ns(-1, b, sizeof(b)), "-", "negative ns");

	is_str(ipc_fmt_bytes(0, b, sizeof(b)), "0 B", "0 B");
	is_str(ipc_fmt_bytes(64, b, sizeof(b)), "64 B", "64 B");
	is_str(ipc_fmt_bytes(1023, b, sizeof(b)), "1023 B", "1023 B");
	is_str(ipc_fmt_bytes(1024, b, sizeof(b)), "1 KiB", "1 KiB");
	is_str(ipc_fmt_bytes(4096, b, sizeof(b)), "4 KiB", "4 KiB");
	is_str(ipc_fmt_bytes(65536, b, sizeof(b)), "64 KiB", "64 KiB");
	is_str(ipc_fmt_bytes(1536 * 1024, b, sizeof(b)), "1.5 MiB", "1.5 MiB");
	is_str(ipc_fmt_bytes(100000, b, sizeof(b)), "97.7 KiB", "100000 B");
	is_str(ipc_fmt_bytes(1048575, b, sizeof(b)), "1.00 MiB",
	       "rounded sizes keep their zeros");
	is_str(ipc_fmt_bytes(1ull << 60, b, sizeof(b)), "1 EiB", "1 EiB");
	is_str(ipc_fmt_bytes(NAN, b, sizeof(b)), "-", "nan B");

	is_str(ipc_fmt_rate(0, b, sizeof(b)), "0/s", "0/s");
	is_str(ipc_fmt_rate(812, b, sizeof(b)), "812/s", "812/s");
	is_str(ipc_fmt_rate(18400, b, sizeof(b)), "18.4 k/s", "18.4 k/s");
	is_str(ipc_fmt_rate(2.1e6, b, sizeof(b)), "2.10 M/s", "2.10 M/s");
	is_str(ipc_fmt_rate(999.9, b, sizeof(b)), "1.00 k/s", "999.9/s");
	is_str(ipc_fmt_rate(-INFINITY, b, sizeof(b)), "-", "-inf/s");

	is_str(ipc_fmt_bps(0, b, sizeof(b)), "0 B/s", "0 B/s");
	is_str(ipc_fmt_bps(812 * 1024.0, b, sizeof(b)), "812 KiB/s",
	       "812 KiB/s");
	is_str(ipc_fmt_bps(1.21 * 1024 * 1024 * 1024, b, sizeof(b)),
	       "1.21 GiB/s", "1.21 GiB/s");
	is_str(ipc_fmt_bps(NAN, b, sizeof(b)), "-", "nan B/s");

	is_str(ipc_fmt_ns(4910, b, 4), "4.9", "a short buffer truncates");
}

/* What the formatter prints, the parser reads back (without the space). */
static void test_round_trip(void)
{
	const uint64_t sizes[] = {0, 64, 4096, 65536, 1048576, 1ull << 30};
	char b[32], typed[32], *sp;
	uint64_t v;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ipc_fmt_bytes((double)sizes[i], b, sizeof(b));
		sp = strchr(b, ' ');
		snprintf(typed, sizeof(typed), "%.*s%s", (int)(sp - b), b,
			 sp + 1);
		ok(!ipc_units_parse(IPC_UNIT_SIZE, typed, 0, UINT64_MAX, &v,
				    err, sizeof(err)) &&
			   v == sizes[i],
		   "%llu B prints as '%s' and '%s' reads back",
		   (unsigned long long)sizes[i], b, typed);
	}
	ipc_fmt_ns(1.25e6, b, sizeof(b));
	sp = strchr(b, ' ');
	snprintf(typed, sizeof(typed), "%.*s%s", (int)(sp - b), b, sp + 1);
	ok(!ipc_units_parse(IPC_UNIT_TIME, typed, 0, UINT64_MAX, &v, err,
			    sizeof(err)) &&
		   v == 1250000,
	   "'%s' reads back as 1250000 ns", typed);
	ipc_fmt_ns(4910, b, sizeof(b));
	sp = strchr(b, ' ');
	snprintf(typed, sizeof(typed), "%.*s%s", (int)(sp - b), b, sp + 1);
	ok(!ipc_units_parse(IPC_UNIT_TIME, typed, 0, UINT64_MAX, &v, err,
			    sizeof(err)) &&
		   v == 4910,
	   "'%s' (with µ) reads back as 4910 ns", typed);
}

int main(void)
{
	test_sizes();
	test_counts();
	test_times();
	test_rates_percent();
	test_lists();
	test_format();
	test_round_trip();
	return done_testing();
}

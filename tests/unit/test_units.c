/*
 * The command line's number parsers: sizes, size lists with ranges, counts
 * and durations, on good input and on every kind of bad input.
 */
#include <errno.h>

#include "../tap.h"
#include "cli/units.h"

static char err[256];

/* The list parsed from @s equals the @n values given. */
static void list_is(const char *s, const uint64_t *want, size_t n)
{
	struct u64_list l;
	bool same;

	if (parse_size_list(s, &l, err, sizeof(err))) {
		ok(0, "size list '%s' parses (%s)", s, err);
		return;
	}
	same = l.n == n;
	for (size_t i = 0; same && i < n; i++)
		same = l.v[i] == want[i];
	ok(same, "size list '%s' has the expected %zu values", s, n);
	if (!same) {
		printf("#   got");
		for (size_t i = 0; i < l.n; i++)
			printf(" %llu", (unsigned long long)l.v[i]);
		printf("\n");
	}
	u64_list_free(&l);
}

static void size_bad(const char *s, const char *needle)
{
	struct u64_list l;
	int e = parse_size_list(s, &l, err, sizeof(err));

	ok(e == -EINVAL, "size list '%s' is refused", s);
	ok(strstr(err, needle) != NULL, "error for '%s' names '%s': %s", s,
	   needle, err);
}

int main(void)
{
	uint64_t v;

	ok(!parse_size("0", &v, err, sizeof(err)) && v == 0, "size 0");
	ok(!parse_size("64", &v, err, sizeof(err)) && v == 64, "size 64");
	ok(!parse_size("4k", &v, err, sizeof(err)) && v == 4096, "size 4k");
	ok(!parse_size("4K", &v, err, sizeof(err)) && v == 4096, "size 4K");
	ok(!parse_size("4KiB", &v, err, sizeof(err)) && v == 4096, "size 4KiB");
	ok(!parse_size("1M", &v, err, sizeof(err)) && v == 1048576, "size 1M");
	ok(!parse_size("1G", &v, err, sizeof(err)) && v == 1073741824,
	   "size 1G (the limit)");
	ok(parse_size("2G", &v, err, sizeof(err)) == -EINVAL,
	   "size 2G is over the limit");
	ok(parse_size("-1", &v, err, sizeof(err)) == -EINVAL, "size -1");
	ok(parse_size("", &v, err, sizeof(err)) == -EINVAL, "empty size");
	ok(parse_size("4q", &v, err, sizeof(err)) == -EINVAL, "size 4q");
	ok(strstr(err, "'4q'") && strstr(err, "suffix"), "bad suffix named: %s",
	   err);
	ok(parse_size("99999999999999999999999", &v, err, sizeof(err)) ==
		   -EINVAL,
	   "size beyond 64 bits");

	{
		const uint64_t a[] = {0, 4, 8};
		const uint64_t b[] = {0,  1,  2,   4,	8,   16,
				      32, 64, 128, 256, 512, 1024};
		const uint64_t c[] = {64, 128, 256, 512, 1024, 2048, 4096};
		const uint64_t d[] = {64, 256, 1024, 4096};
		const uint64_t e[] = {0, 10, 20, 30};
		const uint64_t f[] = {100, 200, 400, 800, 1000};
		const uint64_t g[] = {4096, 65536, 1048576};
		const uint64_t h[] = {5};
		const uint64_t i[] = {8, 4, 0, 16};
		const uint64_t j[] = {0, 3, 6, 7};

		list_is("0,4,8", a, 3);
		list_is("0..1024", b, 12);
		list_is("64..4096", c, 7);
		list_is("64..4096:x2", c, 7);
		list_is("64..4096:x4", d, 4);
		list_is("0..30:+10", e, 4);
		list_is("100..1000", f, 5);
		list_is("4k,64k,1M", g, 3);
		list_is("5..5", h, 1);
		list_is("8,4,0,4,16,8", i, 4);
		list_is("0..7:+3", j, 4);
	}
	size_bad("", "empty");
	size_bad("1,,2", "empty");
	size_bad("1024..64", "'1024..64'");
	size_bad("64..4096:x1", ":x1");
	size_bad("64..4096:y2", ":y2");
	size_bad("0..100:+0", ":+0");
	size_bad("a..b", "'a'");
	size_bad("1..2G", "'2G'");
	size_bad("0..1G:+1", "more than");

	ok(!parse_count("1000", &v, err, sizeof(err)) && v == 1000,
	   "count 1000");
	ok(!parse_count("100k", &v, err, sizeof(err)) && v == 100000,
	   "count 100k is 1000-based");
	ok(!parse_count("2M", &v, err, sizeof(err)) && v == 2000000,
	   "count 2M");
	ok(parse_count("0", &v, err, sizeof(err)) == -EINVAL, "count 0");
	ok(strstr(err, "at least 1") != NULL, "count 0 says why: %s", err);
	{
		struct u64_list l;

		ok(!parse_count_list("100,1000,5000,10000,100000", &l, err,
				     sizeof(err)) &&
			   l.n == 5 && l.v[4] == 100000,
		   "the FreeBSD count list");
		u64_list_free(&l);
		ok(!parse_count_list("10..10k:x10", &l, err, sizeof(err)) &&
			   l.n == 4 && l.v[3] == 10000,
		   "count range with k = 1000");
		u64_list_free(&l);
		ok(parse_count_list("0,10", &l, err, sizeof(err)) == -EINVAL,
		   "count list with 0 is refused");
	}

	ok(!parse_duration("5", &v, err, sizeof(err)) && v == 5000000000ull,
	   "duration 5 = 5 s");
	ok(!parse_duration("500ms", &v, err, sizeof(err)) && v == 500000000,
	   "duration 500ms");
	ok(!parse_duration("1.5s", &v, err, sizeof(err)) && v == 1500000000,
	   "duration 1.5s");
	ok(!parse_duration("100us", &v, err, sizeof(err)) && v == 100000,
	   "duration 100us");
	ok(!parse_duration("2m", &v, err, sizeof(err)) && v == 120000000000ull,
	   "duration 2m");
	ok(parse_duration("0", &v, err, sizeof(err)) == -EINVAL,
	   "duration 0 is refused");
	ok(parse_duration("5 parsecs", &v, err, sizeof(err)) == -EINVAL,
	   "duration with a bad unit");
	ok(strstr(err, "parsecs") != NULL, "bad unit named: %s", err);
	ok(parse_duration("-1s", &v, err, sizeof(err)) == -EINVAL,
	   "negative duration");
	ok(parse_duration("nan", &v, err, sizeof(err)) == -EINVAL,
	   "duration nan");
	ok(parse_duration("25h", &v, err, sizeof(err)) == -EINVAL,
	   "duration over 24 hours");
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/*
 * Tests of the latency histogram: the bucket layout, quantiles against exact
 * order statistics on random and adversarial data, mean and deviation,
 * merge, reset, the empty histogram, and recording without allocation.
 */
#include <malloc.h>
#include <math.h>

#include "ipcperf/stats.h"
#include "../helpers.h"
#include "../tap.h"
#include "stats/lib_internal.h"

#define TOP ((uint64_t)1 << IPC_HIST_TOP_BITS)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Exact nearest rank ceil(num * n / den), in [1, n], in integers. */
static uint64_t exact_rank(uint64_t n, uint64_t num, uint64_t den)
{
	uint64_t r = (uint64_t)(((unsigned __int128)num * n + den - 1) / den);

	return r < 1 ? 1 : r > n ? n : r;
}

/* Is the histogram's answer acceptable for the true order statistic? */
static bool close_enough(uint64_t got, uint64_t want)
{
	if (want < 256)
		return got == want; /* the exact range */
	return fabs((double)got - (double)want) <= 0.01 * (double)want;
}

/*
 * Compare value_at with the exact order statistics of the @n values in
 * @v (sorted here): min, p50, p90, p99, p99.9 and max one check each, then
 * every q = i / 1000 as one check that reports the worst error.
 */
static void check_quantiles(const char *name, uint64_t *v, size_t n)
{
	static const struct {
		const char *label;
		uint64_t num, den;
		double q;
	} qs[] = {
		{"min", 0, 1, 0.0},	     {"p50", 1, 2, 0.5},
		{"p90", 9, 10, 0.9},	     {"p99", 99, 100, 0.99},
		{"p99.9", 999, 1000, 0.999}, {"max", 1, 1, 1.0},
	};
	struct ipc_hist *h = ipc_hist_new();
	uint64_t got, want, worst_got = 0, worst_want = 0;
	double err, worst = 0.0;
	size_t i;
	bool all = true;

	for (i = 0; i < n; i++)
		ipc_hist_record(h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		want = v[exact_rank(n, qs[i].num, qs[i].den) - 1];
		got = ipc_hist_value_at(h, qs[i].q);
		if (want < 256 || i == 0 || i == 5)
			is_uint(got, "==", want, "%s: %s exact", name,
				qs[i].label);
		else
			is_near(got, want, 0.01, "%s: %s within 1%%", name,
				qs[i].label);
	}
	/* Ranks 1 and n, asked for by q just inside (0, 1), are exact. */
	is_uint(ipc_hist_value_at(h, 1e-12), "==", v[0],
		"%s: q = 1e-12 is the min", name);
	is_uint(ipc_hist_value_at(h, 1.0 - 1e-12), "==", v[n - 1],
		"%s: q = 1 - 1e-12 is the max", name);
	for (i = 0; i <= 1000; i++) {
		want = v[exact_rank(n, i, 1000) - 1];
		got = ipc_hist_value_at(h, (double)i / 1000.0);
		err = want ? fabs((double)got - (double)want) / (double)want
			   : (double)got;
		if (!close_enough(got, want))
			all = false;
		if (err > worst) {
			worst = err;
			worst_got = got;
			worst_want = want;
		}
	}
	ok(all, "%s: q = 0, 0.001 .. 1 all within 1%% (exact below 256)", name);
	if (!all || worst > 1.0 / 256 + 1e-12)
		diag("%s: worst %" PRIu64 " for %" PRIu64 " (%.4f%%)", name,
		     worst_got, worst_want, 100.0 * worst);
	ok(worst <= 1.0 / 256 + 1e-12, "%s: worst error %.4f%% <= 0.39%%", name,
	   100.0 * worst);
	ipc_hist_free(h);
}

static void test_layout(void)
{
	uint64_t lo, hi, prev_hi = 0;
	size_t i, bad = 0;

	is_uint(ipc_hist_bucket_low(0), "==", 0, "bucket 0 starts at 0");
	for (i = 0; i < IPC_HIST_BUCKETS; i++) {
		lo = ipc_hist_bucket_low(i);
		hi = ipc_hist_bucket_high(i);
		if (lo > hi || (i > 0 && lo != prev_hi + 1) ||
		    ipc_hist_index(lo) != i || ipc_hist_index(hi) != i ||
		    (lo >= 256 && (hi - lo + 1) * 128 > lo) ||
		    (lo < 256 && lo != hi)) {
			if (bad++ < 5)
				diag("bucket %zu: [%" PRIu64 ", %" PRIu64 "]",
				     i, lo, hi);
		}
		prev_hi = hi;
	}
	is_uint(bad, "==", 0,
		"every bucket contiguous, low <= high, index(low) == "
		"index(high) == i, width <= low / 128");
	is_uint(IPC_HIST_BUCKETS, "==", 4736, "4736 buckets");
	is_uint(ipc_hist_bucket_high(IPC_HIST_BUCKETS - 1), "==", TOP - 1,
		"the last bucket ends at 2^43 - 1");
	is_uint(ipc_hist_index(TOP), "==", IPC_HIST_BUCKETS - 1,
		"2^43 lands in the last bucket");
	is_uint(ipc_hist_index(UINT64_MAX), "==", IPC_HIST_BUCKETS - 1,
		"UINT64_MAX lands in the last bucket");
	is_uint(ipc_hist_index(255), "==", 255, "255 is exact");
	is_uint(ipc_hist_index(256), "==", ipc_hist_index(257),
		"256 and 257 share a bucket");
}

static void test_random(void)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	rng_state = 1;
	for (i = 0; i < N; i++)
		v[i] = rng_next() % 2000000; /* uniform 0 .. 2 ms */
	check_quantiles("uniform", v, N);

	for (i = 0; i < N; i++) /* lognormal around 20 us, long tail */
		v[i] = (uint64_t)exp(log(20000.0) + 1.0 * rng_normal());
	check_quantiles("lognormal", v, N);

	for (i = 0; i < N; i++) /* exponential, mean 5 us */
		v[i] = (uint64_t)(-5000.0 * log(rng_unit()));
	check_quantiles("exponential", v, N);

	for (i = 0; i < N; i++) /* small values: the exact range and above */
		v[i] = rng_next() % 600;
	check_quantiles("uniform 0..599", v, N);
	free(v);
}

static void test_adversarial(void)
{
	uint64_t v[1000], one;
	struct ipc_hist *h;
	size_t i, n;
	int k;

	for (i = 0; i < 1000; i++)
		v[i] = 12345;
	check_quantiles("all equal", v, 1000);
	/*
	 * Clamping to [min, max] makes a single value exact: 12345 lies in
	 * [12288, 12351], midpoint 12319, below it; 12288 is the bucket's
	 * bottom, below the midpoint.
	 */
	h = ipc_hist_new();
	for (i = 0; i < 1000; i++)
		ipc_hist_record(h, 12345);
	is_uint(ipc_hist_value_at(h, 0.5), "==", 12345,
		"all 12345: p50 exact (clamped up to min)");
	ipc_hist_reset(h);
	for (i = 0; i < 1000; i++)
		ipc_hist_record(h, 12288);
	is_uint(ipc_hist_value_at(h, 0.5), "==", 12288,
		"all 12288: p50 exact (clamped down to max)");
	ipc_hist_free(h);

	/* Two spikes: 1 us and 1 s, half each; p50 is the lower one. */
	for (i = 0; i < 1000; i++)
		v[i] = i % 2 ? 1000 : 1000000000;
	check_quantiles("bimodal 1us/1s", v, 1000);
	h = ipc_hist_new();
	for (i = 0; i < 1000; i++)
		ipc_hist_record(h, v[i]);
	is_near(ipc_hist_value_at(h, 0.5), 1000, 0.01,
		"bimodal: rank 500 is the 1 us spike");
	is_near(ipc_hist_value_at(h, 0.501), 1000000000, 0.01,
		"bimodal: rank 501 is the 1 s spike");
	ipc_hist_free(h);

	/* 2^k - 1, 2^k, 2^k + 1 for every octave up to the top. */
	n = 0;
	for (k = 0; k < IPC_HIST_TOP_BITS; k++) {
		v[n++] = ((uint64_t)1 << k) - 1;
		v[n++] = (uint64_t)1 << k;
		v[n++] = ((uint64_t)1 << k) + 1;
	}
	check_quantiles("bucket edges", v, n);

	/* A single sample is reported exactly, wherever it falls. */
	h = ipc_hist_new();
	for (i = 0; i < n; i++) {
		ipc_hist_reset(h);
		ipc_hist_record(h, v[i]);
		if (ipc_hist_value_at(h, 0.5) != v[i] ||
		    ipc_hist_value_at(h, 0.0) != v[i] ||
		    ipc_hist_value_at(h, 1.0) != v[i])
			break;
	}
	ok(i == n, "a single sample at any bucket edge is exact");
	ipc_hist_free(h);

	for (i = 0; i < 1000; i++)
		v[i] = i % 3 == 0; /* a third 1, two thirds 0 */
	check_quantiles("zeros and ones", v, 1000);

	one = 777777;
	check_quantiles("single sample", &one, 1);
}

/* Samples near and beyond 2^43 ns: counted, max exact, no wrong answers. */
static void test_overflow(void)
{
	struct ipc_hist *h = ipc_hist_new();
	static const uint64_t huge[] = {
		TOP - 1, TOP, TOP + 1, TOP * 2, 1ull << 50, 1ull << 60,
	};
	uint64_t big = (uint64_t)1 << 50;
	size_t i;

	for (i = 0; i < 990; i++)
		ipc_hist_record(h, 1000000 + i);
	for (i = 0; i < 10; i++)
		ipc_hist_record(h, huge[i % 6]);
	is_uint(h->overflow, "==", 8, "8 samples at or above 2^43 counted");
	is_uint(ipc_hist_value_at(h, 1.0), "==", (uint64_t)1 << 60,
		"max exact beyond the top");
	is_near(ipc_hist_value_at(h, 0.99), 1000989, 0.01,
		"p99 of the in-range samples within 1%%");
	is_uint(ipc_hist_value_at(h, 0.992), "<", TOP,
		"rank 992 is the in-range 2^43 - 1, below the top");
	is_near(ipc_hist_value_at(h, 0.992), TOP - 1, 0.01,
		"rank 992 within 1%% of 2^43 - 1");
	is_uint(ipc_hist_value_at(h, 0.999), ">=", TOP,
		"a rank among overflow samples reports at least 2^43");
	is_uint(ipc_hist_value_at(h, 0.999), "<=", (uint64_t)1 << 60,
		"... and at most the max");
	ipc_hist_free(h);

	h = ipc_hist_new();
	ipc_hist_record(h, big);
	is_uint(ipc_hist_value_at(h, 0.5), "==", big,
		"a single 2^50 sample is exact");
	is_uint(h->overflow, "==", 1, "and counted as overflow");
	ipc_hist_free(h);
}

/*
 * Mean and population deviation, directly: of v - v[0], which is exact in
 * integers, so that the check does not depend on long double being wider
 * than double (under valgrind it is not).
 */
static void direct_moments(const uint64_t *v, size_t n, double *mean,
			   double *sd)
{
	long double s = 0, ss = 0, m, d;
	size_t i;

	for (i = 0; i < n; i++)
		s += (long double)(int64_t)(v[i] - v[0]);
	m = s / n;
	for (i = 0; i < n; i++) {
		d = (long double)(int64_t)(v[i] - v[0]) - m;
		ss += d * d;
	}
	*mean = (double)(v[0] + m);
	*sd = (double)sqrtl(ss / n);
}

static void check_moments(const char *name, const uint64_t *v, size_t n)
{
	struct ipc_hist *h = ipc_hist_new();
	double mean, sd;
	size_t i;

	for (i = 0; i < n; i++)
		ipc_hist_record(h, v[i]);
	direct_moments(v, n, &mean, &sd);
	is_near(ipc_hist_mean(h), mean, 1e-12, "%s: mean", name);
	is_near(ipc_hist_stddev(h), sd, 1e-9, "%s: stddev", name);
	ok(!isnan(ipc_hist_stddev(h)), "%s: stddev not NaN", name);
	ipc_hist_free(h);
}

static void test_moments(void)
{
	enum { N = 50000 };
	uint64_t *v = malloc(N * sizeof(*v));
	size_t i;

	rng_state = 2;
	for (i = 0; i < N; i++)
		v[i] = (uint64_t)exp(log(50000.0) + 0.7 * rng_normal());
	check_moments("lognormal", v, N);

	/* 1 s plus 0..9 ns: the spread would vanish in sumsq/n - mean^2. */
	for (i = 0; i < N; i++)
		v[i] = 1000000000 + i % 10;
	check_moments("1 s + 0..9 ns", v, N);

	/*
	 * About 16 min plus 0..15 ns: sumsq / n is near 1e24, where long
	 * double rounds by 1e24 * 2^-64 = 5e4 ns^2, against a variance of
	 * 21 ns^2.  Only the exact integer path gets this right.
	 */
	for (i = 0; i < N; i++)
		v[i] = 987654321987ull + rng_next() % 16;
	check_moments("16 min + 0..15 ns", v, N);
	check_moments("single sample", v, 1);

	for (i = 0; i < N; i++)
		v[i] = 4242;
	check_moments("all equal", v, N);
	free(v);
}

static void test_merge(void)
{
	struct ipc_hist *a = ipc_hist_new(), *b = ipc_hist_new();
	struct ipc_hist *all = ipc_hist_new(), *e = ipc_hist_new();
	uint64_t x;
	size_t i;

	rng_state = 3;
	for (i = 0; i < 20000; i++) {
		x = rng_next() >> (21 + rng_next() % 43); /* every octave */
		ipc_hist_record(i % 3 ? a : b, x);
		ipc_hist_record(all, x);
	}
	ipc_hist_record(b, TOP + 5);
	ipc_hist_record(all, TOP + 5);
	ipc_hist_merge(a, b);
	ok(!memcmp(a->counts, all->counts, sizeof(a->counts)),
	   "merge: counts equal recording into one");
	is_uint(a->total, "==", all->total, "merge: total");
	is_uint(a->min, "==", all->min, "merge: min");
	is_uint(a->max, "==", all->max, "merge: max");
	is_uint(a->sum, "==", all->sum, "merge: sum");
	ok(a->sumsq == all->sumsq, "merge: sumsq");
	is_uint(a->overflow, "==", 1, "merge: overflow");
	is_uint(ipc_hist_value_at(a, 0.9), "==", ipc_hist_value_at(all, 0.9),
		"merge: same p90");

	/* Empty into full changes nothing; full into empty copies. */
	ipc_hist_merge(a, e);
	is_uint(a->min, "==", all->min, "merging an empty one keeps min");
	is_uint(a->total, "==", all->total, "... and total");
	ipc_hist_merge(e, all);
	is_uint(e->min, "==", all->min, "merging into an empty one: min");
	is_uint(e->max, "==", all->max, "merging into an empty one: max");
	ipc_hist_free(a);
	ipc_hist_free(b);
	ipc_hist_free(all);
	ipc_hist_free(e);
}

/*
 * The copy of the buckets in use reads, formats and merges as the whole
 * histogram does (under ASan, a read past its last bucket would stop
 * here), and is smaller: @top is the largest sample.
 */
static void check_compact(const char *what, uint64_t top, size_t n)
{
	struct ipc_hist *h = ipc_hist_new(), *c, *m1 = ipc_hist_new();
	struct ipc_hist *m2 = ipc_hist_new();
	struct ipc_lat lh, lc;
	char th[1 << 16], tc[1 << 16];
	bool same = true;
	size_t i;

	rng_state = 11;
	for (i = 0; h && i < n; i++)
		ipc_hist_record(h, 1000 + rng_next() % top);
	if (h && n)
		ipc_hist_record(h, top);
	c = h ? ipc_hist_compact(h) : NULL;
	if (!ok(c && m1 && m2, "compact %s: allocated", what))
		goto out;
	ok(malloc_usable_size(c) < sizeof(*h) ||
		   ipc_hist_index(top) + 1 >= IPC_HIST_BUCKETS,
	   "compact %s: %zu bytes against %zu", what, malloc_usable_size(c),
	   sizeof(*h));
	for (i = 0; i <= 1000; i++)
		same &= ipc_hist_value_at(c, i / 1000.0) ==
			ipc_hist_value_at(h, i / 1000.0);
	ok(same, "compact %s: every quantile as the whole one", what);
	ipc_hist_summary(h, &lh);
	ipc_hist_summary(c, &lc);
	ok(!memcmp(&lh, &lc, sizeof(lh)), "compact %s: the same summary", what);
	ipc_hist_buckets_format(h, th, sizeof(th));
	ipc_hist_buckets_format(c, tc, sizeof(tc));
	is_str(tc, th, "compact %s: the same buckets as text", what);
	ipc_hist_merge(m1, h);
	ipc_hist_merge(m2, c);
	ok(!memcmp(m1, m2, sizeof(*m1)), "compact %s: merges the same", what);
out:
	ipc_hist_free(h);
	ipc_hist_free(c);
	ipc_hist_free(m1);
	ipc_hist_free(m2);
}

static void test_compact(void)
{
	check_compact("empty", 0, 0);
	check_compact("around 10 us", 10000, 5000);
	check_compact("up to 5 ms", 5000000, 5000);
	check_compact("an overflow", TOP + 5, 200);
}

/* What must not crash: free of NULL. */
static void free_null(void)
{
	ipc_hist_free(NULL);
}

static void test_reset_and_empty(void)
{
	struct ipc_hist *h = ipc_hist_new();
	struct ipc_lat lat, zero;
	size_t i, nonzero = 0;

	memset(&zero, 0, sizeof(zero));
	ipc_hist_summary(h, &lat);
	ok(!memcmp(&lat, &zero, sizeof(lat)), "empty summary is all zeros");
	is_uint(lat.min, "==", 0, "empty summary: min is 0, not UINT64_MAX");
	is_uint(ipc_hist_value_at(h, 0.5), "==", 0, "empty: value_at 0");
	ok(ipc_hist_mean(h) == 0.0, "empty: mean 0");
	ok(ipc_hist_stddev(h) == 0.0, "empty: stddev 0");

	for (i = 0; i < 1000; i++)
		ipc_hist_record(h, i * 1000 + TOP * (i == 7));
	ipc_hist_reset(h);
	for (i = 0; i < IPC_HIST_BUCKETS; i++)
		nonzero += h->counts[i] != 0;
	is_uint(nonzero, "==", 0, "reset: every bucket empty");
	is_uint(h->total, "==", 0, "reset: total 0");
	is_uint(h->min, "==", UINT64_MAX, "reset: min back to UINT64_MAX");
	is_uint(h->max, "==", 0, "reset: max 0");
	is_uint(h->overflow, "==", 0, "reset: overflow 0");
	ok(h->sum == 0 && h->sumsq == 0, "reset: sums 0");
	ipc_hist_summary(h, &lat);
	ok(!memcmp(&lat, &zero, sizeof(lat)), "reset: summary all zeros");

	ipc_hist_record(h, 500);
	ipc_hist_summary(h, &lat);
	ok(lat.min == 500 && lat.p50 == 500 && lat.max == 500 &&
		   lat.mean == 500.0 && lat.stddev == 0.0,
	   "reset then record: summary of one sample");
	ipc_hist_free(h);
	ok(returns_normally(free_null), "ipc_hist_free(NULL) is a no-op");
}

/*
 * Recording works on storage the caller provides and leaves the heap as it
 * was: a histogram in static storage, a million samples, and (with glibc
 * 2.33+) the allocator's own count of bytes in use before and after.
 */
static struct ipc_hist static_hist;

static void test_no_alloc(void)
{
	size_t i;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 before, after;

	before = mallinfo2();
#endif
	ipc_hist_reset(&static_hist);
	for (i = 0; i < 1000000; i++)
		ipc_hist_record(&static_hist, i);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	after = mallinfo2();
	is_uint(after.uordblks, "==", before.uordblks,
		"recording 1e6 samples leaves heap use unchanged");
#else
	skip("mallinfo2 needs glibc 2.33");
#endif
	is_uint(static_hist.total, "==", 1000000,
		"a histogram in static storage records");
	is_near(ipc_hist_value_at(&static_hist, 0.5), 499999, 0.01,
		"and reads back");
}

int main(void)
{
	test_layout();
	test_random();
	test_adversarial();
	test_overflow();
	test_moments();
	test_merge();
	test_compact();
	test_reset_and_empty();
	test_no_alloc();
	return done_testing();
}

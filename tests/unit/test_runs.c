/* SPDX-License-Identifier: MIT */
/*
 * Tests of the per-run summary: exact answers on small inputs, the edge
 * cases that must not produce NaN, the order statistics chosen for the
 * median's interval, and a simulation showing that the interval covers the
 * true median at least as often as its level promises.
 */
#include <math.h>

#include "ipcperf/stats.h"
#include "../helpers.h"
#include "../tap.h"
#include "stats/lib_internal.h"

static bool all_finite(const struct ipc_runs_stats *s)
{
	return isfinite(s->mean) && isfinite(s->median) &&
	       isfinite(s->stddev) && isfinite(s->cv) &&
	       isfinite(s->ci_level) && isfinite(s->ci_low) &&
	       isfinite(s->ci_high);
}

static void test_small(void)
{
	const double five[] = {5, 3, 1, 4, 2};
	const double four[] = {4, 1, 3, 2};
	double six[] = {6, 5, 4, 3, 2, 1}, copy[6];
	struct ipc_runs_stats s;

	ipc_runs_summarize(five, 5, 0.95, &s);
	is_uint(s.n, "==", 5, "n = 5: n");
	is_near(s.mean, 3.0, 1e-15, "n = 5: mean");
	is_near(s.median, 3.0, 1e-15, "n = 5: median of odd n is the middle");
	is_near(s.stddev, sqrt(2.5), 1e-15, "n = 5: sample sd sqrt(10 / 4)");
	is_near(s.cv, sqrt(2.5) / 3.0, 1e-15, "n = 5: cv = sd / mean");
	ok(!s.have_ci, "n = 5 at 95%%: no interval (coverage 0.9375)");
	is_near(s.ci_level, 0.95, 0, "level recorded");

	ipc_runs_summarize(four, 4, 0.95, &s);
	is_near(s.median, 2.5, 1e-15, "n = 4: median of even n averages");
	is_near(s.mean, 2.5, 1e-15, "n = 4: mean");
	is_near(s.stddev, sqrt(5.0 / 3.0), 1e-15, "n = 4: sd");

	memcpy(copy, six, sizeof(six));
	ipc_runs_summarize(six, 6, 0.95, &s);
	ok(s.have_ci, "n = 6 at 95%%: an interval (coverage 0.96875)");
	ok(s.ci_low == 1.0 && s.ci_high == 6.0, "n = 6: it is [min, max]");
	ok(!memcmp(copy, six, sizeof(six)), "the input is not modified");
	ipc_runs_summarize(six, 6, 0.99, &s);
	ok(!s.have_ci, "n = 6 at 99%%: no interval");
}

static void test_degenerate(void)
{
	const double one = 42.5, zeros[] = {0, 0, 0};
	const double bad[] = {1, NAN, 2, INFINITY, 3, -INFINITY};
	const double huge[] = {1e308, 1.7e308, 1.5e308, -1e308};
	struct ipc_runs_stats s, zero;
	double many[50];
	size_t i;

	memset(&zero, 0, sizeof(zero));
	ipc_runs_summarize(NULL, 0, 0.95, &s);
	zero.ci_level = 0.95;
	ok(!memcmp(&s, &zero, sizeof(s)), "n = 0: all zero, no interval");

	ipc_runs_summarize(&one, 1, 0.95, &s);
	ok(s.n == 1 && s.mean == 42.5 && s.median == 42.5, "n = 1: the value");
	ok(s.stddev == 0.0 && s.cv == 0.0 && !s.have_ci,
	   "n = 1: sd 0, cv 0, no interval");

	ipc_runs_summarize(zeros, 3, 0.95, &s);
	ok(s.cv == 0.0 && s.mean == 0.0 && all_finite(&s),
	   "mean 0: cv 0, not NaN");

	ipc_runs_summarize(bad, 6, 0.95, &s);
	is_uint(s.n, "==", 3, "non-finite values are left out");
	ok(all_finite(&s) && s.mean == 2.0 && s.median == 2.0,
	   "... and the rest summarized without NaN");

	for (i = 0; i < 50; i++) /* 40 finite: the sorting path */
		many[i] = i % 5 == 0 ? NAN : (double)i;
	ipc_runs_summarize(many, 50, 0.95, &s);
	ok(s.n == 40 && s.median == 25.0 && all_finite(&s),
	   "40 of 50 finite: median of the finite ones");

	ipc_runs_summarize(huge, 4, 0.95, &s);
	ok(all_finite(&s), "values near DBL_MAX: nothing overflows to Inf");

	ipc_runs_summarize(&one, 1, NAN, &s);
	ok(all_finite(&s) && !s.have_ci, "level NaN: no interval, no NaN");
	ipc_runs_summarize(zeros, 3, 1.0, &s);
	ok(!s.have_ci, "level 1: no interval is ever that sure");
}

/*
 * The order statistics chosen, against exact binomial sums (computed with
 * integer arithmetic offline): n = 10 gives x(2)..x(9) at 90% and 95% and
 * x(1)..x(10) at 99%; n = 30 gives x(10)..x(21) at 95%; n = 100,
 * x(40)..x(61); n = 2000, x(956)..x(1045).  On 1..n, x(k) = k.
 */
static void test_order_stats(void)
{
	static const struct {
		size_t n;
		double level;
		size_t k;
	} cases[] = {
		{10, 0.90, 2},	   {10, 0.95, 2},     {10, 0.99, 1},
		{30, 0.90, 11},	   {30, 0.95, 10},    {30, 0.99, 8},
		{100, 0.95, 40},   {2000, 0.90, 963}, {2000, 0.95, 956},
		{2000, 0.99, 942},
	};
	double x[2000];
	struct ipc_runs_stats s;
	size_t i, c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		/* Reversed, so the summary has to sort (or count). */
		for (i = 0; i < cases[c].n; i++)
			x[i] = (double)(cases[c].n - i);
		ipc_runs_summarize(x, cases[c].n, cases[c].level, &s);
		ok(s.have_ci && s.ci_low == (double)cases[c].k &&
			   s.ci_high == (double)(cases[c].n - cases[c].k + 1),
		   "n = %zu at %.0f%%: [x(%zu), x(%zu)]", cases[c].n,
		   100 * cases[c].level, cases[c].k,
		   cases[c].n - cases[c].k + 1);
		if (!s.have_ci || s.ci_low != (double)cases[c].k)
			diag("got have_ci %d [%g, %g]", s.have_ci, s.ci_low,
			     s.ci_high);
	}
	ipc_runs_summarize(x, 2000, 0.95, &s);
	ok(s.median == 1000.5, "n = 2000: median 1000.5");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The k the interval should use, by a different route from the library's:
 * the binomial pmf by products from 2^-n (exact enough for n <= 1000).
 */
static size_t expected_k(size_t n, double level)
{
	double pmf = ldexp(1.0, -(int)n), cdf = 0.0;
	size_t j, k = 0;

	for (j = 0; j + 1 <= (n + 1) / 2; j++) {
		cdf += pmf;
		if (1.0 - 2.0 * cdf < level)
			break;
		k = j + 1;
		pmf = pmf * (double)(n - j) / (double)(j + 1);
	}
	return k;
}

/*
 * Small sets are summarized by counting, large ones by sorting a copy: on
 * both sides of that switch, with many ties, the median and the interval
 * must match a plain sort.
 */
static void test_against_sort(void)
{
	double x[80], sorted[80], med;
	struct ipc_runs_stats s;
	size_t n, i, k, bad = 0;

	rng_state = 7;
	for (n = 1; n <= 80; n++) {
		for (i = 0; i < n; i++)
			x[i] = (double)(rng_next() % 7) + (n % 2 ? 0.25 : 0);
		memcpy(sorted, x, n * sizeof(*x));
		qsort(sorted, n, sizeof(*x), cmp_double);
		med = n % 2 ? sorted[n / 2]
			    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		k = expected_k(n, 0.95);
		ipc_runs_summarize(x, n, 0.95, &s);
		if (s.median != med || s.have_ci != (k > 0) ||
		    (k && (s.ci_low != sorted[k - 1] ||
			   s.ci_high != sorted[n - k]))) {
			if (bad++ < 5)
				diag("n = %zu: median %g want %g, k %zu, "
				     "[%g, %g]",
				     n, s.median, med, k, s.ci_low, s.ci_high);
		}
	}
	is_uint(bad, "==", 0,
		"n = 1 .. 80 with ties: median and interval match a sort");
}

enum dist { NORMAL, LOGNORMAL, BIMODAL };

/* 70% N(10, 1) and 30% N(100, 5): a slow mode, as when the peer migrates. */
static double bimodal_cdf(double v)
{
	return 0.7 * 0.5 * erfc(-(v - 10.0) / M_SQRT2) +
	       0.3 * 0.5 * erfc(-(v - 100.0) / (5.0 * M_SQRT2));
}

static double draw(enum dist d)
{
	switch (d) {
	case NORMAL:
		return 100.0 + 10.0 * rng_normal();
	case LOGNORMAL:
		return exp(log(50.0) + 0.8 * rng_normal());
	case BIMODAL:
		if (rng_unit() < 0.7)
			return 10.0 + rng_normal();
		return 100.0 + 5.0 * rng_normal();
	}
	return 0.0;
}

static double true_median(enum dist d)
{
	double lo = 0.0, hi = 200.0, mid;
	int i;

	if (d == NORMAL)
		return 100.0;
	if (d == LOGNORMAL)
		return 50.0;
	for (i = 0; i < 100; i++) { /* bisection on the mixture's CDF */
		mid = (lo + hi) / 2;
		if (bimodal_cdf(mid) < 0.5)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Over 2000 trials the estimated coverage has a standard error of about
 * 0.005, so "at least level - 0.02" leaves four of them for chance and
 * still catches an interval one order statistic too narrow (n = 30 at 95%:
 * 0.9572 with k = 10, 0.9013 with k = 11).  The exact coverage of the k
 * chosen, 1 - 2 P(B <= k - 1), bounds it from above (+ 0.02), which
 * catches intervals wider than they need be.
 */
static void test_coverage(void)
{
	static const char *const names[] = {"normal", "lognormal", "bimodal"};
	static const struct {
		size_t n;
		double level, exact;
	} cases[] = {
		{10, 0.90, 0.978515625}, /* k = 2; k = 3 gives 0.8906 */
		{10, 0.95, 0.978515625},
		{30, 0.90, 0.901262853}, /* k = 11 */
		{30, 0.95, 0.957226055}, /* k = 10 */
	};
	enum { TRIALS = 2000 };
	struct ipc_runs_stats s;
	double x[30], med, cover;
	size_t t, i, hits, c;
	int d;

	rng_state = 12345;
	for (d = NORMAL; d <= BIMODAL; d++) {
		med = true_median((enum dist)d);
		for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			hits = 0;
			for (t = 0; t < TRIALS; t++) {
				for (i = 0; i < cases[c].n; i++)
					x[i] = draw((enum dist)d);
				ipc_runs_summarize(x, cases[c].n,
						   cases[c].level, &s);
				hits += s.have_ci && s.ci_low <= med &&
					med <= s.ci_high;
			}
			cover = (double)hits / TRIALS;
			ok(cover >= cases[c].level - 0.02 &&
				   cover <= cases[c].exact + 0.02,
			   "%s n = %zu at %.0f%%: coverage %.4f (exact %.4f)",
			   names[d], cases[c].n, 100 * cases[c].level, cover,
			   cases[c].exact);
		}
	}
}

/*
 * The fewest runs with an interval is where ipc_runs_summarize starts to
 * give one: checked against it at each level, and the documented counts.
 */
static void test_min_for_ci(void)
{
	static const double levels[] = {0.5, 0.8, 0.9, 0.95, 0.99, 0.999};
	double x[64];
	struct ipc_runs_stats s;
	size_t i, n, m;

	for (i = 0; i < 64; i++)
		x[i] = (double)i;
	is_uint(ipc_runs_min_for_ci(0.95), "==", 6, "min for CI: 6 at 95%%");
	is_uint(ipc_runs_min_for_ci(0.90), "==", 5, "min for CI: 5 at 90%%");
	is_uint(ipc_runs_min_for_ci(0.99), "==", 8, "min for CI: 8 at 99%%");
	is_uint(ipc_runs_min_for_ci(1.0), "==", 0, "min for CI: none at 100%%");
	is_uint(ipc_runs_min_for_ci(0), "==", 0, "min for CI: none at 0");
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		m = ipc_runs_min_for_ci(levels[i]);
		ipc_runs_summarize(x, m - 1, levels[i], &s);
		n = s.have_ci;
		ipc_runs_summarize(x, m, levels[i], &s);
		ok(m >= 2 && !n && s.have_ci,
		   "min for CI at %g: %zu runs give an interval, %zu do not",
		   levels[i], m, m - 1);
	}
}

int main(void)
{
	test_small();
	test_degenerate();
	test_order_stats();
	test_against_sort();
	test_coverage();
	test_min_for_ci();
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/*
 * Summaries of a set of per-run values: mean, median, spread, and a
 * distribution-free confidence interval for the median built from order
 * statistics, so that no assumption of normality is made about run-to-run
 * noise (which is often skewed or bimodal).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/stats.h"
#include "stats/lib_internal.h"

/*
 * Up to this many runs, order statistics are found by counting, O(n^2)
 * comparisons with no allocation (32 runs: about 1000 comparisons).  Above
 * it the values are copied and sorted; if that copy cannot be allocated,
 * counting is still correct, only slower (3000 runs: 9e6 comparisons).
 */
#define SMALL_RUNS 32

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The k-th smallest (1-based) of the finite values of @x without sorting:
 * the value with fewer than k values below it and at least k at or below.
 */
static double kth_by_count(const double *x, size_t n, size_t k)
{
	size_t i, j, below, upto;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		below = upto = 0;
		for (j = 0; j < n; j++) {
			if (!isfinite(x[j]))
				continue;
			below += x[j] < x[i];
			upto += x[j] <= x[i];
		}
		if (below < k && k <= upto)
			return x[i];
	}
	return 0.0; /* not reached for 1 <= k <= number of finite values */
}

/* Order statistic k (1-based): from @sorted when there is one. */
static double order_stat(const double *x, const double *sorted, size_t n,
			 size_t k)
{
	return sorted ? sorted[k - 1] : kth_by_count(x, n, k);
}

/*
 * The largest k in [1, (n + 1) / 2] such that [x(k), x(n-k+1)] covers the
 * median with probability P(k <= B <= n - k) = 1 - 2 P(B <= k - 1) >= level,
 * B ~ Binomial(n, 1/2); 0 when even k = 1 does not (n = 5: 1 - 2/32 =
 * 0.9375 < 0.95).  The pmf is built in logs from C(n, i) = C(n, i-1) *
 * (n-i+1) / i, because 2^-n underflows a double beyond n = 1074; the
 * leading terms that underflow are far below any level we would use.  (No
 * lgamma: it writes the global signgam, a data race between threads.)
 */
static size_t median_ci_k(size_t n, double level)
{
	const long double ln2 = 0.693147180559945309417232121458176568L;
	long double alpha_half, logc = 0.0L, cdf = 0.0L;
	size_t k = 0, j;

	if (!(level > 0.0 && level < 1.0))
		return 0;
	/* Tolerance: a coverage equal to the level (n = 2, 50%) must pass. */
	alpha_half = (1.0L - level) / 2.0L * (1.0L + 1e-12L);
	for (j = 0; j + 1 <= (n + 1) / 2; j++) {
		if (j > 0)
			logc += logl((long double)(n - j + 1) / (long double)j);
		cdf += expl(logc - (long double)n * ln2);
		if (cdf > alpha_half)
			break;
		k = j + 1; /* P(B <= k - 1) is still small enough */
	}
	return k;
}

size_t ipc_runs_min_for_ci(double level)
{
	size_t n;

	for (n = 1; n <= 64; n++)
		if (median_ci_k(n, level))
			return n;
	return 0;
}

/*
 * Mean, sample deviation and cv of the @m finite values of @x, worked on
 * x / 2^e with 2^e above the largest magnitude.  Scaling by a power of two
 * is exact, and it keeps 1.7e308 + 1.5e308 finite even where long double
 * is no wider than double (valgrind computes it as double, and so do some
 * ABIs).  Two passes: deviations from the mean do not cancel.
 */
static void moments(const double *x, size_t n, size_t m,
		    struct ipc_runs_stats *out)
{
	long double sum = 0.0L, ss = 0.0L, mean, d, sd;
	double big = 0.0, v;
	size_t i;
	int e;

	for (i = 0; i < n; i++)
		if (isfinite(x[i]) && fabs(x[i]) > big)
			big = fabs(x[i]);
	frexp(big, &e);
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			sum += ldexp(x[i], -e);
	mean = sum / (long double)m;
	for (i = 0; i < n; i++) {
		if (isfinite(x[i])) {
			d = (long double)ldexp(x[i], -e) - mean;
			ss += d * d;
		}
	}
	out->mean = (double)ldexpl(mean, e);
	if (m < 2)
		return;
	sd = sqrtl(ss / (long double)(m - 1));
	/* Up to 2 * 1.8e308 apart, the deviation itself may not fit. */
	v = (double)ldexpl(sd, e);
	out->stddev = isfinite(v) ? v : DBL_MAX;
	if (mean != 0.0L) {
		v = (double)(sd / fabsl(mean));
		out->cv = isfinite(v) ? v : 0.0;
	}
}

void ipc_runs_summarize(const double *x, size_t n, double level,
			struct ipc_runs_stats *out)
{
	double *sorted = NULL;
	long double d;
	size_t i, m = 0, k;

	memset(out, 0, sizeof(*out));
	out->ci_level = isfinite(level) ? level : 0.0;

	/* Non-finite values (a failed run's NaN) are left out: no NaN out. */
	for (i = 0; i < n; i++)
		m += isfinite(x[i]) != 0;
	out->n = m;
	if (!m)
		return;
	moments(x, n, m, out);

	if (m > SMALL_RUNS)
		sorted = malloc(m * sizeof(*sorted));
	if (sorted) {
		for (i = 0, m = 0; i < n; i++)
			if (isfinite(x[i]))
				sorted[m++] = x[i];
		qsort(sorted, m, sizeof(*sorted), cmp_double);
	}

	/* Even m: halve the middle two before adding (no overflow). */
	d = order_stat(x, sorted, n, (m + 1) / 2);
	if (m % 2 == 0)
		d = d / 2 +
		    (long double)order_stat(x, sorted, n, m / 2 + 1) / 2;
	out->median = (double)d;

	k = median_ci_k(m, level);
	if (k) {
		out->have_ci = true;
		out->ci_low = order_stat(x, sorted, n, k);
		out->ci_high = order_stat(x, sorted, n, m - k + 1);
	}
	free(sorted);
}

double ipc_jain_index(const double *x, size_t n)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / ((double)n * sq) : 0;
}

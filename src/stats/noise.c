/* SPDX-License-Identifier: MIT */
/*
 * Is a set of runs to be trusted?  The stopping rule's width test, and the
 * two shapes of run-to-run noise worth naming: runs that fall into two
 * groups (typically the peer sharing the client's CPU in some runs and not
 * in others) and single runs far from the rest (another load for a moment).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/stats.h"
#include "stats/lib_internal.h"

bool ipc_runs_target_met(const struct ipc_runs_stats *s, double pct,
			 double *half_pct)
{
	double half;

	if (half_pct)
		*half_pct = -1.0;
	if (!s->have_ci || !isfinite(s->median) || s->median == 0.0 ||
	    !isfinite(s->ci_low) || !isfinite(s->ci_high))
		return false;
	half = (s->ci_high - s->ci_low) / 2 / fabs(s->median) * 100.0;
	if (!isfinite(half))
		return false;
	if (half_pct)
		*half_pct = half;
	return isfinite(pct) && half <= pct;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The finite values of @x, sorted, in a new array; NULL when none or OOM. */
static double *sorted_finite(const double *x, size_t n, size_t *m)
{
	double *s;
	size_t i;

	*m = 0;
	if (!n)
		return NULL;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NULL;
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			s[(*m)++] = x[i];
	qsort(s, *m, sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

/* Sum of squared deviations from the mean of s[0..n). */
static double ssd(const double *s, size_t n)
{
	double mean = 0, d, sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mean += s[i] / (double)n;
	for (i = 0; i < n; i++) {
		d = s[i] - mean;
		sum += d * d;
	}
	return sum;
}

/*
 * Worked example: the p50 of 12 runs of a pipe ping-pong on two CPUs,
 * 5.0 5.0 5.1 5.1 5.1 5.2 5.2 | 10.4 10.9 11.3 11.8 12.5 µs: the widest gap
 * with 3 runs or more on each side is 5.2 -> 10.4; the pooled deviation
 * inside the groups is 0.52, the gap 5.2, 10 times that: bimodal.  Spread
 * the same 12 values evenly between 5 and 12.5 and the widest gap is 0.68,
 * under one pooled deviation: not bimodal.
 *
 * Why 4 pooled deviations: on one-mode data (normal, lognormal, uniform)
 * it calls 1-4% of sets of 10 runs bimodal and almost none of 20 or more
 * (tests/unit/test_noise.c), while two modes as far apart as a pipe's
 * same-CPU and cross-CPU round trips are found 85-90% of the time.
 */
void ipc_runs_modes(const double *x, size_t n, struct ipc_modes *out)
{
	size_t m, j, minside, best = 0;
	double *s, gap, sd, score, best_score = -1.0, med;

	memset(out, 0, sizeof(*out));
	s = sorted_finite(x, n, &m);
	if (!s)
		return;
	if (m < IPC_MODES_MIN_RUNS)
		goto out;
	minside = (m + 4) / 5; /* ceil(m / 5) */
	if (minside < 2)
		minside = 2;
	for (j = minside; j + minside <= m; j++) {
		gap = s[j] - s[j - 1];
		if (gap <= 0)
			continue;
		sd = sqrt((ssd(s, j) + ssd(s + j, m - j)) / (double)(m - 2));
		score = sd > 0 ? gap / sd : INFINITY;
		if (score > best_score) {
			best_score = score;
			best = j;
		}
	}
	if (!best)
		goto out;
	med = median_sorted(s, m);
	out->nlow = best;
	out->nhigh = m - best;
	out->low = median_sorted(s, best);
	out->high = median_sorted(s + best, m - best);
	out->cut = s[best - 1];
	out->score = isfinite(best_score) ? best_score : 1e9;
	out->bimodal =
		best_score >= 4.0 && s[best] - s[best - 1] >= 0.03 * fabs(med);
out:
	free(s);
}

size_t ipc_runs_outliers(const double *x, size_t n, bool *far)
{
	double *s, *dev, med, mad, lim;
	size_t m, i, count = 0;

	if (far)
		for (i = 0; i < n; i++)
			far[i] = false;
	s = sorted_finite(x, n, &m);
	if (!s)
		return 0;
	if (m < 5) {
		free(s);
		return 0;
	}
	med = median_sorted(s, m);
	dev = s; /* reuse: absolute deviations, sorted for their median */
	for (i = 0; i < m; i++)
		dev[i] = fabs(s[i] - med);
	qsort(dev, m, sizeof(*dev), cmp_double);
	mad = median_sorted(dev, m);
	free(s);
	/* 1.4826 MAD estimates the standard deviation of a normal sample. */
	lim = fmax(3.5 * 1.4826 * mad, 0.03 * fabs(med));
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !(fabs(x[i] - med) > lim))
			continue;
		count++;
		if (far)
			far[i] = true;
	}
	return count;
}

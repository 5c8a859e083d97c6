/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of stats and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/stats.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_STATS_LIB_INTERNAL_H
#define IPCPERF_STATS_LIB_INTERNAL_H

#include "ipcperf/stats.h"

/* Lowest and highest value that fall into bucket @i (inclusive). */
uint64_t ipc_hist_bucket_low(size_t i);
uint64_t ipc_hist_bucket_high(size_t i);

/*
 * The buckets that are not empty as text, "index:count" in increasing
 * index order separated by single spaces ("3:1 300:12"; "" when empty),
 * into @buf of @len bytes, always terminated when @len > 0.  Returns the
 * length of the whole text as snprintf does: a result >= @len means @buf
 * was too small.  Bucket i holds ipc_hist_bucket_low(i) ..
 * ipc_hist_bucket_high(i); docs/json.md gives the formula, so that another
 * tool can merge histograms by adding counts of equal indices.
 */
size_t ipc_hist_buckets_format(const struct ipc_hist *h, char *buf, size_t len);

/*
 * A copy of @h with only the buckets up to its max's, which hold every
 * sample (a result read back from a document needs a few hundred of the
 * 4736), or NULL when out of memory.  It reads and formats as @h does,
 * can be merged into another histogram and is freed with ipc_hist_free;
 * it must never be recorded, reset, parsed or merged into.
 */
struct ipc_hist *ipc_hist_compact(const struct ipc_hist *h);

/*
 * Read @text as ipc_hist_buckets_format writes it into @h's counts and
 * total (replaced; min, max, sum, sumsq and overflow are left alone: the
 * caller sets them).  Returns 0, or -EINVAL when the text is not that:
 * an index out of range or not increasing, a count of 0, a total past
 * 2^64, a stray character; *@bad_at (may be NULL) gets the offset where
 * it went wrong, and @h is left with no samples.
 */
int ipc_hist_buckets_parse(struct ipc_hist *h, const char *text,
			   size_t *bad_at);

/*
 * Summarize @n per-run values @x (not modified) with a confidence interval
 * at @level (e.g. 0.95).  The interval is for the median of the runs and
 * distribution-free: the order statistics x(k) and x(n-k+1) with the
 * largest k whose binomial coverage is at least @level.  With too few runs
 * for that (n < 6 at 95%) have_ci is false.
 */
/*
 * The fewest runs whose median has an interval at @level from
 * ipc_runs_summarize: 6 at 95%, 5 at 90%, 8 at 99%.  0 when @level is not
 * between 0 and 1, or needs more than 64 runs (a level above 1 - 2^-63).
 */
size_t ipc_runs_min_for_ci(double level);

/*
 * The stopping rule's test: true when @s has an interval and its
 * half-width, (ci_high - ci_low) / 2, is at most @pct percent of the
 * median.  *half_pct (may be NULL) gets that half-width in percent of the
 * median, or -1 when there is no interval or the median is 0.
 */
bool ipc_runs_target_met(const struct ipc_runs_stats *s, double pct,
			 double *half_pct);

/* Look for two groups in the @n values @x (not modified; NaN ignored). */
void ipc_runs_modes(const double *x, size_t n, struct ipc_modes *out);

/*
 * Runs far from the others: |x - median| > 3.5 * 1.4826 * MAD (a robust
 * z-score above 3.5) and more than 3% of the median away.  Needs at least
 * 5 finite values.  When @far is not NULL, far[i] is set for each outlier
 * (and cleared for the others).  Returns how many there are.
 */
size_t ipc_runs_outliers(const double *x, size_t n, bool *far);

/*
 * Jain's fairness index of @n rates: (sum x)^2 / (n sum x^2), 1 when
 * all are equal, 1/n when one has everything; 0 when @n is 0 or every
 * rate is 0 (nothing to be fair about).
 */
double ipc_jain_index(const double *x, size_t n);

/*
 * Two levels: @a holds the runs of @ka invocations one after another,
 * @na[i] of invocation i (likewise @b); values that are not finite are
 * left out, and an invocation left with none.  Fills everything in @out:
 *
 *   median_a/b, ratio   medians of the invocations' medians (with one
 *                       invocation, of its runs)
 *   ci                  hierarchical percentile bootstrap: resample the
 *                       invocations with replacement, then each one's runs,
 *                       so the interval widens by the spread between
 *                       invocations (with one invocation per side, exactly
 *                       ipc_compare_runs's interval)
 *   u, p, p_min         Mann-Whitney of every run of A against every run
 *                       of B (what one invocation each can tell)
 *   inv_u, inv_p        Mann-Whitney of the invocations' medians: the test
 *                       that accounts for drift, from 4 against 4 able to
 *                       reach p < 0.05 (inv_p_min)
 *   drift_a/b           the spread of the invocations' medians
 *
 * Returns 0, or -ENOMEM.
 */
int ipc_compare_nested(const double *a, const size_t *na, size_t ka,
		       const double *b, const size_t *nb, size_t kb,
		       double level, uint64_t seed, struct ipc_cmp *out);

/*
 * Judge @m (ipc_compare_nested or ipc_compare_runs of A and B), whose
 * metric is better higher when @higher_better, into @out.  The basis is
 * INVOCATIONS with two or more invocations on both sides; otherwise the
 * runs, their interval widened in log terms for each side of one
 * invocation, each half h becoming sqrt(h^2 + (1.96 d)^2), by the drift d:
 * the larger of what was measured (drift_a/b) and @drift_pct (when >= 0:
 * given), else IPC_DRIFT_DEFAULT_PCT.
 *
 * The verdict is SLOWER or FASTER when p < 1 - level, the interval
 * excludes 1 and the change is at least @threshold_pct; UNDECIDED when p
 * could not have reached 1 - level (3 values against 3) or when only the
 * default allowance keeps the interval from excluding 1 (the runs alone
 * differ, but drift could explain it); else SAME.
 */
void ipc_judge(const struct ipc_cmp *m, bool higher_better,
	       double threshold_pct, double drift_pct,
	       struct ipc_judgement *out);

/*
 * The two-sided Mann-Whitney p-value alone, computed as above; -1 when out
 * of memory.  *exact (may be NULL) says which method gave it.
 */
double ipc_mann_whitney_p(const double *a, size_t na, const double *b,
			  size_t nb, bool *exact);

/*
 * Compare @a (@na values) with @b (@nb values), neither modified; values
 * that are not finite are left out.  The interval resamples each side
 * with replacement IPC_CMP_RESAMPLES times using a fixed-seed generator
 * (@seed), so the same input always gives the same interval.  The p-value
 * is exact (permutation distribution of the rank sum, ties as midranks)
 * when na + nb <= IPC_CMP_EXACT_MAX, else the normal approximation with
 * the tie correction and a continuity correction.  Returns 0, or -ENOMEM.
 */
#define IPC_CMP_RESAMPLES 4000
#define IPC_CMP_EXACT_MAX 60
int ipc_compare_runs(const double *a, size_t na, const double *b, size_t nb,
		     double level, uint64_t seed, struct ipc_cmp *out);

#endif

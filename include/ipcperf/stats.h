/* SPDX-License-Identifier: MIT */
/*
 * Statistics: a log-linear latency histogram that records without
 * allocating, and the summaries computed from it and from a set of runs.
 * Nothing here does I/O.
 */
#ifndef IPCPERF_STATS_H
#define IPCPERF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Histogram layout (HDR-style, log-linear):
 *
 *   values 0 .. 255          one bucket per nanosecond (exact)
 *   [2^m, 2^(m+1)), m >= 8   128 buckets, each 2^(m-7) ns wide
 *
 * so a bucket is at most 1/128 of its lowest value wide and the midpoint we
 * report is within 1/256 (0.39%) of any value in it.  The top octave ends at
 * 2^43 ns (about 2.4 hours); larger values land in the last bucket and are
 * counted in `overflow`.  That is 4736 buckets, 37 KiB, allocated once.
 */
#define IPC_HIST_SUB_BITS 8  /* values below 2^8 are exact */
#define IPC_HIST_TOP_BITS 43 /* values below 2^43 ns are bucketed */
#define IPC_HIST_BUCKETS                                                       \
	((IPC_HIST_TOP_BITS - IPC_HIST_SUB_BITS + 2) *                         \
	 (1 << (IPC_HIST_SUB_BITS - 1)))

/*
 * The fields are public only so that recording can be inlined; read them
 * through the functions below.
 */
/*
 * 128-bit sums and products, a GCC and Clang extension: __extension__ keeps
 * a user's -pedantic quiet about it.
 */
__extension__ typedef unsigned __int128 ipc_u128;

struct ipc_hist {
	uint64_t total;	   /* samples recorded */
	uint64_t min;	   /* smallest sample, UINT64_MAX when empty */
	uint64_t max;	   /* largest sample, 0 when empty */
	uint64_t sum;	   /* sum of samples, ns */
	ipc_u128 sumsq;	   /* sum of squared samples, exact */
	uint64_t overflow; /* samples at or above 2^43 ns */
	uint64_t counts[IPC_HIST_BUCKETS];
};

/* Latency summary of a histogram; all in nanoseconds. */
struct ipc_lat {
	uint64_t min, p50, p90, p99, p999, max;
	double mean, stddev; /* population standard deviation */
};

/* Bucket index of @v (pure; exposed for tests). */
static inline size_t ipc_hist_index(uint64_t v)
{
	const unsigned half = 1u << (IPC_HIST_SUB_BITS - 1);
	unsigned m, shift;

	if (v < (1ull << IPC_HIST_SUB_BITS))
		return (size_t)v;
	if (v >= (1ull << IPC_HIST_TOP_BITS))
		return IPC_HIST_BUCKETS - 1;
	m = 63u - (unsigned)__builtin_clzll(v);
	shift = m - IPC_HIST_SUB_BITS + 1;
	return (size_t)shift * half + (size_t)(v >> shift);
}

/*
 * Record one sample of @v_ns.  Never allocates, never fails; constant time.
 * Not thread-safe: give each thread its own histogram and merge afterwards.
 */
static inline void ipc_hist_record(struct ipc_hist *h, uint64_t v_ns)
{
	h->counts[ipc_hist_index(v_ns)]++;
	h->total++;
	h->sum += v_ns;
	h->sumsq += (ipc_u128)v_ns * v_ns;
	if (v_ns < h->min)
		h->min = v_ns;
	if (v_ns > h->max)
		h->max = v_ns;
	if (v_ns >> IPC_HIST_TOP_BITS)
		h->overflow++;
}

/* A new empty histogram, or NULL when out of memory.  Free with _free. */
struct ipc_hist *ipc_hist_new(void);

/* Free @h; NULL is a no-op. */
void ipc_hist_free(struct ipc_hist *h);

/* Forget every sample (after warm-up). */
void ipc_hist_reset(struct ipc_hist *h);

/* Add every sample of @src to @dst. */
void ipc_hist_merge(struct ipc_hist *dst, const struct ipc_hist *src);

/* Lowest and highest value that fall into bucket @i (inclusive). */
uint64_t ipc_hist_bucket_low(size_t i);
uint64_t ipc_hist_bucket_high(size_t i);

/*
 * The value at quantile @q in [0, 1] by nearest rank: the smallest recorded
 * value v such that at least ceil(q * total) samples are <= v (q = 0 gives
 * the minimum).  Reported as the midpoint of v's bucket, clamped to the
 * exact min and max, so within 0.39% of the true order statistic.  0 when
 * the histogram is empty.
 */
uint64_t ipc_hist_value_at(const struct ipc_hist *h, double q);

/* Exact mean and population standard deviation; 0 when empty. */
double ipc_hist_mean(const struct ipc_hist *h);
double ipc_hist_stddev(const struct ipc_hist *h);

/* Fill @out with min, p50, p90, p99, p99.9, max, mean and stddev. */
void ipc_hist_summary(const struct ipc_hist *h, struct ipc_lat *out);

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
 * Summaries of a set of per-run values (one number per run, such as each
 * run's p50 or throughput).
 */
struct ipc_runs_stats {
	size_t n;	 /* runs */
	double mean;	 /* arithmetic mean of the runs */
	double median;	 /* median of the runs */
	double stddev;	 /* sample standard deviation (n - 1), 0 if n < 2 */
	double cv;	 /* stddev / mean, 0 if n < 2 or mean == 0 */
	bool have_ci;	 /* false when n is too small for an interval */
	double ci_level; /* e.g. 0.95 */
	double ci_low;	 /* interval for the estimate (see docs) */
	double ci_high;
};

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

void ipc_runs_summarize(const double *x, size_t n, double level,
			struct ipc_runs_stats *out);

/*
 * The stopping rule's test: true when @s has an interval and its
 * half-width, (ci_high - ci_low) / 2, is at most @pct percent of the
 * median.  *half_pct (may be NULL) gets that half-width in percent of the
 * median, or -1 when there is no interval or the median is 0.
 */
bool ipc_runs_target_met(const struct ipc_runs_stats *s, double pct,
			 double *half_pct);

/*
 * Two groups among per-run values, found at the widest gap between sorted
 * values that leaves at least max(2, n / 5) runs on each side.  Called
 * bimodal when, with at least IPC_MODES_MIN_RUNS finite values, that gap is
 * at least 4 times the groups' pooled standard deviation and at least 3%
 * of the median (so that histogram-quantized values a fraction of a percent
 * apart never qualify).  See docs/methodology.md.
 */
#define IPC_MODES_MIN_RUNS 10

struct ipc_modes {
	bool bimodal;
	size_t nlow, nhigh; /* runs in the lower and the upper group */
	double low, high;   /* median of each group */
	double cut;	    /* values <= cut are in the lower group */
	double score;	    /* gap / pooled sd of the chosen split */
};

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
 * Comparison of two sets of per-run values A and B (results of the same
 * case from two files): the ratio of their medians B / A and their
 * difference B - A, each with a bootstrap interval, and a two-sided
 * Mann-Whitney U test.
 *
 * With two levels (ipc_compare_nested) each side is several invocations
 * (result files), each of several runs: the runs of one invocation vary
 * by the noise within it, and the invocations by that and by the drift of
 * the machine between them, which runs of one invocation cannot show.
 * An invocation's value is the median of its runs; a side's is the median
 * of its invocations' values.
 */
struct ipc_cmp {
	size_t na, nb; /* finite values used from each side */
	double median_a, median_b;
	bool have_ratio;	    /* false when median A is 0 (no ratio) */
	double ratio;		    /* median B / median A */
	bool have_ci;		    /* false without a ratio or with n < 2 */
	double level;		    /* e.g. 0.95 */
	double ci_low, ci_high;	    /* percentile bootstrap interval of ratio */
	double diff;		    /* median B - median A */
	bool have_diff_ci;	    /* false with n < 2 on a side */
	double diff_low, diff_high; /* bootstrap interval of diff, the same
				       resamples */
	double u;		    /* Mann-Whitney U of B (ties count 1/2) */
	double p;		    /* two-sided p-value, 1 when n is 0 */
	bool exact;		    /* p from the exact permutation law */
	double p_min;		    /* smallest p these sizes can give */
	/* The second level: 1 and 1 for ipc_compare_runs. */
	size_t ka, kb;	      /* invocations with a finite value */
	double drift_a;	      /* sd of the log of A's invocation values:
				 noise and drift between invocations; -1
				 with fewer than 2 (not measured) */
	double drift_b;	      /* likewise for B */
	double inv_u, inv_p;  /* Mann-Whitney of the invocations' values */
	bool inv_exact;	      /* inv_p from the exact law */
	double inv_p_min;     /* smallest inv_p these counts can give */
	double mean_within_a; /* a typical invocation's runs: their median
				 CV (sd / mean), -1 with one run each */
	double mean_within_b;
};

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
 * The verdict on a comparison of B against A: one enum and one rule
 * (ipc_judge), used by compare, the matrix compare and the forest plot.
 */
enum ipc_verdict {
	IPC_VERDICT_SAME = 0,  /* no significant difference */
	IPC_VERDICT_FASTER,    /* B better than A */
	IPC_VERDICT_SLOWER,    /* B worse than A */
	IPC_VERDICT_UNDECIDED, /* the data cannot tell */
};

/* "no significant difference", "faster", "slower", "undecided". */
const char *ipc_verdict_name(enum ipc_verdict v);

/*
 * What a verdict rests on.  ALLOWED: one invocation on each side, the
 * drift between invocations neither measured nor given: the runs' test,
 * their interval widened by the default allowance for drift
 * (IPC_DRIFT_DEFAULT_PCT).  WIDENED: the runs' test, the interval widened
 * by the drift measured on a side with several invocations, or given.
 * INVOCATIONS: several invocations on both sides, tested against each
 * other with the hierarchical interval.
 */
enum ipc_basis {
	IPC_BASIS_ALLOWED = 0,
	IPC_BASIS_WIDENED,
	IPC_BASIS_INVOCATIONS,
};

/*
 * The drift between invocations allowed for when none was measured and
 * none given: the standard deviation, in percent of the value, of one
 * invocation's value about the machine's level.  docs/methodology.md
 * measured 2.0% (one CPU) and 11.5% (two CPUs) between back-to-back
 * invocations on a shared VM; the larger is the default, so that an A/A
 * pair is not called different.
 */
#define IPC_DRIFT_DEFAULT_PCT 11.5

/* Where the drift an interval was widened by came from. */
enum ipc_drift_src {
	IPC_DRIFT_NONE = 0, /* not widened (INVOCATIONS) */
	IPC_DRIFT_MEASURED, /* measured on a side's invocations */
	IPC_DRIFT_GIVEN,    /* given by the caller (compare --drift) */
	IPC_DRIFT_DEFAULT,  /* IPC_DRIFT_DEFAULT_PCT */
};

/* How a comparison was judged, and what the verdict rests on. */
struct ipc_judgement {
	enum ipc_basis basis;
	double p, p_min;	/* the test the verdict rests on */
	bool have_ci;		/* the interval it rests on: */
	double lo, hi;		/* of the ratio, widened by drift */
	double dlo, dhi;	/* of the difference, likewise */
	double drift;		/* sd of log it was widened by; -1 none */
	enum ipc_drift_src src; /* ... and where that came from */
	double allow_pct;	/* the change that drift alone could make
				    between the sides (95%), in %; 0 none */
	double change_pct;	/* (ratio - 1) * 100, 0 without a ratio */
	bool few;		/* too few values for p to reach 1 - level */
	bool differ;		/* p < 1 - level, interval excludes 1 */
	bool beyond;		/* the change is at least the threshold */
	bool runs_differ;	/* the runs' own interval would differ:
				    what only an allowance hid */
	enum ipc_verdict verdict;
};

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
 * The one random number generator (splitmix64): small and fast, any seed
 * works (0 too), and a seed gives the same sequence on every machine, so
 * the bootstrap, the shuffle of interleaved runs, the link's jitter and
 * loss, and the tests are reproducible.  Not for anything secret.  The
 * caller owns the state, one per user: nothing is shared between threads.
 */
static inline uint64_t ipc_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * A draw in [0, @n) (0 when @n is 0): the high half of a 128-bit product,
 * so the bias is below n / 2^64 and no draw is thrown away.
 */
static inline uint64_t ipc_rng_below(uint64_t *state, uint64_t n)
{
	return (uint64_t)(((ipc_u128)ipc_rng_next(state) * n) >> 64);
}

/* A draw in (0, 1): 53 random bits, never exactly 0 or 1 (log-safe). */
static inline double ipc_rng_unit(uint64_t *state)
{
	return ((double)(ipc_rng_next(state) >> 11) + 0.5) / 9007199254740992.0;
}

#ifdef __cplusplus
}
#endif

#endif

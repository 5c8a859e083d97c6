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

void ipc_runs_summarize(const double *x, size_t n, double level,
			struct ipc_runs_stats *out);

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

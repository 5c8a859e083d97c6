/* SPDX-License-Identifier: MIT */
/*
 * The log-linear latency histogram: allocation, merge, bucket bounds, and the
 * quantiles, mean and deviation read back from it.  Recording itself is the
 * inline ipc_hist_record() in the header; nothing here runs in the timed loop.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/stats.h"
#include "stats/lib_internal.h"

#define HALF (1u << (IPC_HIST_SUB_BITS - 1)) /* 128 buckets per octave */
#define LAST ((size_t)IPC_HIST_BUCKETS - 1)

/*
 * One past the highest bucket that can hold a sample: no sample is above
 * max.  What reads the buckets stops there, so that a histogram cut down
 * by ipc_hist_compact reads as the whole one did.
 */
static size_t used_end(const struct ipc_hist *h)
{
	return h->total ? ipc_hist_index(h->max) + 1 : 0;
}

struct ipc_hist *ipc_hist_new(void)
{
	struct ipc_hist *h = malloc(sizeof(*h));

	if (h)
		ipc_hist_reset(h);
	return h;
}

void ipc_hist_free(struct ipc_hist *h)
{
	free(h);
}

void ipc_hist_reset(struct ipc_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

struct ipc_hist *ipc_hist_compact(const struct ipc_hist *h)
{
	size_t n = used_end(h);
	/* Never below the first bucket, so that counts[0] always exists. */
	size_t len = offsetof(struct ipc_hist, counts) +
		     (n ? n : 1) * sizeof(h->counts[0]);
	struct ipc_hist *c = malloc(len);

	if (c)
		memcpy(c, h, len);
	return c;
}

void ipc_hist_merge(struct ipc_hist *dst, const struct ipc_hist *src)
{
	size_t i, end = used_end(src);

	for (i = 0; i < end; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	dst->overflow += src->overflow;
	/* An empty source (min UINT64_MAX, max 0) changes neither. */
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/*
 * The inverse of ipc_hist_index(), for @i up to one past LAST (where 2^43
 * would start): above the exact range, index i is (m - 7) * 128 + s where
 * s in [128, 256) is the top 8 bits of the value and m its octave, so the
 * bucket starts at s << (m - 7).  Example: i = 256 is s = 128, shift 1, the
 * values 256 and 257.
 */
static uint64_t bucket_start(size_t i)
{
	if (i < (1u << IPC_HIST_SUB_BITS))
		return (uint64_t)i;
	return (uint64_t)(i % HALF + HALF) << ((unsigned)(i / HALF) - 1);
}

uint64_t ipc_hist_bucket_low(size_t i)
{
	return bucket_start(i < LAST ? i : LAST);
}

/*
 * One below where the next bucket starts.  The last bucket also holds
 * every sample at or above 2^43 ns, but its nominal upper bound stays
 * 2^43 - 1: those samples are counted in `overflow` and only their
 * maximum is known exactly.
 */
uint64_t ipc_hist_bucket_high(size_t i)
{
	return bucket_start((i < LAST ? i : LAST) + 1) - 1;
}

/*
 * The value we report for a bucket: the lower middle, so a bucket of width
 * 2^s at low >= 128 * 2^s is off by at most 2^(s-1), i.e. 1/256 of low.
 */
static uint64_t bucket_mid(size_t i)
{
	uint64_t lo = ipc_hist_bucket_low(i), hi = ipc_hist_bucket_high(i);

	return lo + (hi - lo) / 2;
}

/*
 * The nearest rank ceil(q * total), in [1, total].  q is usually a decimal
 * that a double cannot hold: 0.07 is stored as 0.07000000000000000666, and
 * 0.07 * 100 would round up to rank 8 instead of 7.  A product within a
 * few ulps of q's precision (2^-50 relative) above an integer is taken to
 * be that integer.
 */
static uint64_t nearest_rank(uint64_t total, double q)
{
	long double x = (long double)q * (long double)total;
	long double fl = floorl(x);
	uint64_t r;

	if (x - fl <= x * (long double)(4 * DBL_EPSILON))
		r = (uint64_t)fl;
	else
		r = (uint64_t)fl + 1;
	if (r < 1)
		r = 1;
	if (r > total)
		r = total;
	return r;
}

uint64_t ipc_hist_value_at(const struct ipc_hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	size_t i, end = used_end(h);

	if (!h->total)
		return 0;
	/* NaN and anything below 0 ask for the minimum. */
	if (!(q > 0.0))
		return h->min;
	if (q >= 1.0)
		return h->max;
	rank = nearest_rank(h->total, q);
	/* The extreme ranks are known exactly; no need for a midpoint. */
	if (rank == 1)
		return h->min;
	if (rank == h->total)
		return h->max;
	/* The highest bucket in use holds the rank if no lower one does. */
	for (i = 0; i + 1 < end; i++) {
		if (seen + h->counts[i] >= rank)
			break;
		seen += h->counts[i];
	}
	/*
	 * The last bucket holds its in-range samples first, then the overflow
	 * ones (>= 2^43 ns) in sorted order.  Of the latter only the largest
	 * is known, so a rank among them reports the maximum: an upper bound,
	 * and at least 2^43 like the true value.
	 */
	if (i == LAST && rank > seen + (h->counts[LAST] - h->overflow))
		return h->max;
	v = bucket_mid(i);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double ipc_hist_mean(const struct ipc_hist *h)
{
	if (!h->total)
		return 0.0;
	return (double)((long double)h->sum / (long double)h->total);
}

/*
 * Variance is (n * sumsq - sum^2) / n^2.  Both products are computed in
 * 128-bit integers when they fit, which is exact: samples around 1 s with a
 * 1 ns spread would lose the spread entirely in sumsq / n - mean^2 even in
 * long double (1e18 * 2^-64 = 0.05 ns^2 of rounding on 1 ns^2).  sum^2
 * always fits (sum < 2^64); n * sumsq fits unless n * sumsq >= 2^128, e.g.
 * 2^32 samples of more than 2^48 ns, and then long double has to do.
 */
double ipc_hist_stddev(const struct ipc_hist *h)
{
	unsigned __int128 n = h->total, s2, d;
	long double var, mean;

	if (h->total < 2)
		return 0.0;
	s2 = (unsigned __int128)h->sum * h->sum;
	if (h->sumsq <= ~(unsigned __int128)0 / n) {
		/* n * sumsq >= sum^2 by Cauchy-Schwarz; guard anyway. */
		d = n * h->sumsq;
		d = d > s2 ? d - s2 : 0;
		var = (long double)d / ((long double)n * (long double)n);
	} else {
		mean = (long double)h->sum / (long double)n;
		var = (long double)h->sumsq / (long double)n - mean * mean;
	}
	if (!(var > 0.0L))
		return 0.0;
	return (double)sqrtl(var);
}

void ipc_hist_summary(const struct ipc_hist *h, struct ipc_lat *out)
{
	memset(out, 0, sizeof(*out));
	if (!h->total)
		return;
	out->min = h->min;
	out->p50 = ipc_hist_value_at(h, 0.5);
	out->p90 = ipc_hist_value_at(h, 0.9);
	out->p99 = ipc_hist_value_at(h, 0.99);
	out->p999 = ipc_hist_value_at(h, 0.999);
	out->max = h->max;
	out->mean = ipc_hist_mean(h);
	out->stddev = ipc_hist_stddev(h);
}

/*
 * The sparse text of the buckets, "index:count" for each bucket that is
 * not empty, in index order, separated by one space: "1:3 300:12".  A run
 * of 1000 round trips fills about a hundred buckets, which is a few
 * hundred bytes here against 4736 counters in memory.
 */
size_t ipc_hist_buckets_format(const struct ipc_hist *h, char *buf, size_t len)
{
	size_t at = 0, i, end = used_end(h);
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < end; i++) {
		if (!h->counts[i])
			continue;
		n = snprintf(at < len ? buf + at : NULL,
			     at < len ? len - at : 0, "%s%zu:%llu",
			     at ? " " : "", i,
			     (unsigned long long)h->counts[i]);
		if (n < 0)
			return 0;
		at += (size_t)n;
	}
	return at;
}

/* A decimal number without sign or leading junk; false past UINT64_MAX. */
static bool parse_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*out = v;
	return true;
}

int ipc_hist_buckets_parse(struct ipc_hist *h, const char *text, size_t *bad_at)
{
	const char *p = text;
	uint64_t idx, count, total = 0;
	bool first = true;
	size_t last = 0;

	memset(h->counts, 0, sizeof(h->counts));
	while (*p) {
		if (!first && *p++ != ' ')
			goto bad;
		if (!parse_u64(&p, &idx) || *p++ != ':' ||
		    !parse_u64(&p, &count))
			goto bad;
		/* In increasing order, each once, none empty, no wrap. */
		if (idx >= IPC_HIST_BUCKETS || (!first && idx <= last) ||
		    !count || total + count < total)
			goto bad;
		h->counts[idx] = count;
		total += count;
		last = (size_t)idx;
		first = false;
	}
	h->total = total;
	return 0;
bad:
	if (bad_at)
		*bad_at = (size_t)(p - text);
	memset(h->counts, 0, sizeof(h->counts));
	h->total = 0;
	return -EINVAL;
}

/* SPDX-License-Identifier: MIT */
/*
 * Telling two results apart from their per-run values: the ratio of the
 * medians with a bootstrap interval, and the Mann-Whitney U test, exact for
 * the run counts ipcperf produces and approximated beyond.  Neither assumes
 * a shape for run-to-run noise.  With several invocations per side, both
 * work on two levels: invocations, and the runs within each.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/stats.h"
#include "stats/lib_internal.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

/* The finite values of @x into @dst; returns how many. */
static size_t finite_copy(double *dst, const double *x, size_t n)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			dst[m++] = x[i];
	return m;
}

/* A value and which side it came from, for ranking. */
struct ranked {
	double v;
	int side; /* 0: A, 1: B */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v,
			  &((const struct ranked *)b)->v);
}

/*
 * Doubled midranks (integers: tied values share the mean of their ranks,
 * which is a multiple of 1/2) of the @n pooled values, in sorted order;
 * also the sum of t^3 - t over the groups of ties.
 */
static void midranks2(struct ranked *r, size_t n, long *rank2, double *ties)
{
	size_t i = 0, j, k;

	qsort(r, n, sizeof(*r), cmp_ranked);
	*ties = 0;
	while (i < n) {
		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		/* Ranks i+1 .. j share (i + 1 + j) / 2, doubled: i + 1 + j. */
		for (k = i; k < j; k++)
			rank2[k] = (long)(i + 1 + j);
		*ties += (double)(j - i) * (double)(j - i) * (double)(j - i) -
			 (double)(j - i);
		i = j;
	}
}

/*
 * Exact two-sided p of the rank sum of B (doubled, @w2) among the @n
 * doubled ranks: the share of the C(n, nb) ways to choose nb of them whose
 * sum lies at least as far from its mean nb (n + 1).  The counts reach
 * C(60, 30) = 1.2e17, past the 2^53 a double holds exactly, so they are
 * rounded to 16 digits: nothing that matters in a p-value.  Memory: (nb + 1)
 * x (n (n + 1) + 1) doubles, under 1 MiB at n = 60.
 */
static double exact_p(const long *rank2, size_t n, size_t nb, long w2)
{
	long maxsum = 0, mean2 = (long)nb * (long)(n + 1), s, far;
	size_t i, k;
	double *cnt, total = 0, tail = 0;

	for (i = 0; i < n; i++)
		maxsum += rank2[i];
	cnt = calloc((nb + 1) * (size_t)(maxsum + 1), sizeof(*cnt));
	if (!cnt)
		return -1.0;
#define CNT(kk, ss) cnt[(size_t)(kk) * (size_t)(maxsum + 1) + (size_t)(ss)]
	CNT(0, 0) = 1;
	for (i = 0; i < n; i++)
		for (k = (i + 1 < nb ? i + 1 : nb); k >= 1; k--)
			for (s = maxsum - rank2[i]; s >= 0; s--)
				if (CNT(k - 1, s) != 0)
					CNT(k, s + rank2[i]) += CNT(k - 1, s);
	far = labs(w2 - mean2);
	for (s = 0; s <= maxsum; s++) {
		total += CNT(nb, s);
		if (labs(s - mean2) >= far)
			tail += CNT(nb, s);
	}
#undef CNT
	free(cnt);
	return total > 0 ? fmin(1.0, tail / total) : 1.0;
}

/* 2 / C(na + nb, nb): the p of the most extreme arrangement, no ties. */
static double smallest_p(size_t na, size_t nb)
{
	double logc = 0;
	size_t n = na + nb, i;

	if (!na || !nb)
		return 1.0;
	for (i = 1; i <= nb; i++)
		logc += log((double)(n - nb + i) / (double)i);
	return fmin(1.0, 2.0 * exp(-logc));
}

/* U of B and the two-sided p; fills out->u, p, exact.  0 or -ENOMEM. */
static int mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			struct ipc_cmp *out)
{
	size_t n = na + nb, i;
	struct ranked *r;
	long *rank2, w2 = 0;
	double ties, mean, var, z;

	out->u = 0;
	out->p = 1.0;
	out->exact = true;
	if (!na || !nb)
		return 0;
	r = malloc(n * sizeof(*r));
	rank2 = malloc(n * sizeof(*rank2));
	if (!r || !rank2) {
		free(r);
		free(rank2);
		return -ENOMEM;
	}
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){a[i], 0};
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){b[i], 1};
	midranks2(r, n, rank2, &ties);
	for (i = 0; i < n; i++)
		if (r[i].side)
			w2 += rank2[i];
	out->u = (double)w2 / 2 - (double)nb * (double)(nb + 1) / 2;
	if (n <= IPC_CMP_EXACT_MAX) {
		out->p = exact_p(rank2, n, nb, w2);
		if (out->p < 0) {
			free(r);
			free(rank2);
			return -ENOMEM;
		}
	} else {
		out->exact = false;
		mean = (double)na * (double)nb / 2;
		var = (double)na * (double)nb / 12 *
		      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		if (var > 0) {
			z = (fabs(out->u - mean) - 0.5) / sqrt(var);
			out->p = z > 0 ? fmin(1.0, erfc(z / M_SQRT2)) : 1.0;
		}
	}
	free(r);
	free(rank2);
	return 0;
}

double ipc_mann_whitney_p(const double *a, size_t na, const double *b,
			  size_t nb, bool *exact)
{
	struct ipc_cmp c;
	double *fa, *fb, p = -1.0;

	fa = malloc((na ? na : 1) * sizeof(*fa));
	fb = malloc((nb ? nb : 1) * sizeof(*fb));
	if (fa && fb) {
		na = finite_copy(fa, a, na);
		nb = finite_copy(fb, b, nb);
		memset(&c, 0, sizeof(c));
		if (!mann_whitney(fa, na, fb, nb, &c))
			p = c.p;
		if (exact)
			*exact = c.exact;
	}
	free(fa);
	free(fb);
	return p;
}

/* A standard normal draw (Box-Muller, the second value unused). */
static double normal_draw(uint64_t *state)
{
	double u = ipc_rng_unit(state), v = ipc_rng_unit(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A Gamma(@a, 1) draw for @a >= 1 (Marsaglia and Tsang, 2000). */
static double gamma_draw(double a, uint64_t *state)
{
	double d = a - 1.0 / 3, c = 1 / sqrt(9 * d), x, v;

	for (;;) {
		x = normal_draw(state);
		v = 1 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		if (log(ipc_rng_unit(state)) <
		    x * x / 2 + d - d * v + d * log(v))
			return d * v;
	}
}

/* Where uniform @u falls among @n sorted values drawn with replacement. */
static double at_uniform(const double *src, size_t n, double u)
{
	size_t i = (size_t)(u * (double)n);

	return src[i < n ? i : n - 1];
}

/*
 * Above this many runs a resampled median is drawn from the order
 * statistics instead of by drawing and sorting n values, which cost
 * resamples x n log n: 10,000 runs a side took 3.7 s and 100,000 did not
 * end in 30 s.  Below it the draws stay as they were, so
 * small comparisons give the same intervals as before.
 */
#define RESAMPLE_DIRECT_MAX 256

/*
 * Median of @n draws with replacement from @src, sorted ascending, using
 * @tmp.  A draw is src[floor(n U)] for U uniform, monotone in U, so the
 * k-th smallest of n draws is src[floor(n U(k))] where U(k), the k-th
 * smallest of n uniforms, is Beta(k, n - k + 1); the next one up is
 * U(k) + (1 - U(k)) (1 - V^(1 / (n - k))) for V uniform.  The same
 * distribution as drawing and sorting, at a cost that does not grow
 * with n.
 */
static double resample_median(const double *src, size_t n, double *tmp,
			      uint64_t *state)
{
	size_t i, k = (n + 1) / 2;
	double ga, gb, u, u2;

	if (n <= RESAMPLE_DIRECT_MAX) {
		for (i = 0; i < n; i++)
			tmp[i] = src[ipc_rng_below(state, n)];
		qsort(tmp, n, sizeof(*tmp), cmp_double);
		return median_sorted(tmp, n);
	}
	ga = gamma_draw((double)k, state);
	gb = gamma_draw((double)(n - k + 1), state);
	u = ga / (ga + gb);
	if (n % 2)
		return at_uniform(src, n, u);
	u2 = u + (1 - u) * -expm1(log(ipc_rng_unit(state)) / (double)(n - k));
	return at_uniform(src, n, u) / 2 + at_uniform(src, n, u2) / 2;
}

/*
 * One side of a comparison: its finite runs, invocation after invocation,
 * each invocation's sorted, and each invocation's median.
 */
struct nside {
	double *x;    /* every finite run */
	size_t *off;  /* invocation i's runs start at x[off[i]] ... */
	size_t *n;    /* ... and are n[i] (at least 1) */
	double *med;  /* invocation i's median */
	double *meds; /* scratch for the bootstrap, k long */
	size_t k;     /* invocations with a finite run */
	size_t total; /* finite runs */
	size_t most;  /* runs of the largest invocation */
	double value; /* the side's median: of the invocations' medians */
};

static void nside_free(struct nside *s)
{
	free(s->x);
	free(s->off);
	free(s->n);
	free(s->med);
	free(s->meds);
}

static int nside_init(struct nside *s, const double *x, const size_t *n,
		      size_t k)
{
	size_t i, all = 0, src = 0, m;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < k; i++)
		all += n[i];
	s->x = malloc((all ? all : 1) * sizeof(*s->x));
	s->off = malloc((k ? k : 1) * sizeof(*s->off));
	s->n = malloc((k ? k : 1) * sizeof(*s->n));
	s->med = malloc((k ? k : 1) * sizeof(*s->med));
	s->meds = malloc((k ? k : 1) * sizeof(*s->meds));
	if (!s->x || !s->off || !s->n || !s->med || !s->meds) {
		nside_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < k; src += n[i], i++) {
		m = finite_copy(s->x + s->total, x + src, n[i]);
		if (!m)
			continue;
		qsort(s->x + s->total, m, sizeof(*s->x), cmp_double);
		s->off[s->k] = s->total;
		s->n[s->k] = m;
		s->med[s->k] = median_sorted(s->x + s->total, m);
		if (m > s->most)
			s->most = m;
		s->total += m;
		s->k++;
	}
	if (s->k == 1) {
		s->value = s->med[0];
	} else if (s->k > 1) {
		memcpy(s->meds, s->med, s->k * sizeof(*s->meds));
		qsort(s->meds, s->k, sizeof(*s->meds), cmp_double);
		s->value = median_sorted(s->meds, s->k);
	}
	return 0;
}

/*
 * The spread between invocations: the sample sd of the log of their
 * medians (about the CV for small spreads); -1 with fewer than two or a
 * median that is not positive.
 */
static double drift_of(const struct nside *s)
{
	double sum = 0, ss = 0, l;
	size_t i;

	if (s->k < 2)
		return -1;
	for (i = 0; i < s->k; i++) {
		if (!(s->med[i] > 0))
			return -1;
		sum += log(s->med[i]);
	}
	for (i = 0; i < s->k; i++) {
		l = log(s->med[i]) - sum / (double)s->k;
		ss += l * l;
	}
	return sqrt(ss / (double)(s->k - 1));
}

/* The median CV of the runs within each invocation of two runs or more. */
static double within_of(const struct nside *s)
{
	double cv[s->k ? s->k : 1], mean, ss;
	size_t i, j, m = 0;

	for (i = 0; i < s->k; i++) {
		const double *x = s->x + s->off[i];

		if (s->n[i] < 2)
			continue;
		mean = 0;
		for (j = 0; j < s->n[i]; j++)
			mean += x[j] / (double)s->n[i];
		ss = 0;
		for (j = 0; j < s->n[i]; j++)
			ss += (x[j] - mean) * (x[j] - mean);
		if (mean > 0)
			cv[m++] = sqrt(ss / (double)(s->n[i] - 1)) / mean;
	}
	if (!m)
		return -1;
	qsort(cv, m, sizeof(cv[0]), cmp_double);
	return median_sorted(cv, m);
}

/*
 * One bootstrap draw of a side's value: with one invocation, the median
 * of its runs resampled (what a single file can show); with more, the
 * invocations are resampled first and then each drawn one's runs, and the
 * value is the median of those medians.
 */
static double side_resample(struct nside *s, double *tmp, uint64_t *state)
{
	size_t j, i;

	if (s->k == 1)
		return resample_median(s->x, s->n[0], tmp, state);
	for (j = 0; j < s->k; j++) {
		i = (size_t)ipc_rng_below(state, s->k);
		s->meds[j] =
			resample_median(s->x + s->off[i], s->n[i], tmp, state);
	}
	qsort(s->meds, s->k, sizeof(*s->meds), cmp_double);
	return median_sorted(s->meds, s->k);
}

/* The (1 - level) / 2 and (1 + level) / 2 quantiles of @n values. */
static void interval(double *v, size_t n, double alpha, double *low,
		     double *high)
{
	size_t lo, hi;

	qsort(v, n, sizeof(*v), cmp_double);
	lo = (size_t)floor(alpha / 2 * (double)n);
	hi = (size_t)ceil((1 - alpha / 2) * (double)n);
	if (hi < 1)
		hi = 1;
	if (lo >= n)
		lo = n - 1;
	*low = v[lo];
	*high = v[hi - 1];
}

/*
 * Percentile bootstrap: the ratio and the difference of the two
 * resampled values, R times; each interval is the (1 - level) / 2 and
 * (1 + level) / 2 quantiles of its values (nearest rank).  No ratio
 * interval when more than the lower tail of the resamples has no finite
 * ratio (a resampled median of A of 0).
 */
static int bootstrap(struct nside *a, struct nside *b, uint64_t seed,
		     struct ipc_cmp *out)
{
	const size_t R = IPC_CMP_RESAMPLES;
	double *ratios, *diffs, *tmp, ma, mb, alpha = 1.0 - out->level;
	size_t i, m = 0;
	uint64_t state = seed;

	ratios = malloc(R * sizeof(*ratios));
	diffs = malloc(R * sizeof(*diffs));
	tmp = malloc((a->most > b->most ? a->most : b->most) * sizeof(*tmp));
	if (!ratios || !diffs || !tmp) {
		free(ratios);
		free(diffs);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < R; i++) {
		ma = side_resample(a, tmp, &state);
		mb = side_resample(b, tmp, &state);
		if (ma != 0 && isfinite(mb / ma))
			ratios[m++] = mb / ma;
		diffs[i] = mb - ma;
	}
	if (out->have_ratio && (double)(R - m) <= alpha / 2 * (double)R && m) {
		interval(ratios, m, alpha, &out->ci_low, &out->ci_high);
		out->have_ci = true;
	}
	interval(diffs, R, alpha, &out->diff_low, &out->diff_high);
	out->have_diff_ci = true;
	free(ratios);
	free(diffs);
	free(tmp);
	return 0;
}

/* Mann-Whitney of the invocations' medians into out->inv_*. */
static int between(const struct nside *a, const struct nside *b,
		   struct ipc_cmp *out)
{
	struct ipc_cmp t;
	int err;

	memset(&t, 0, sizeof(t));
	err = mann_whitney(a->med, a->k, b->med, b->k, &t);
	out->inv_u = t.u;
	out->inv_p = t.p;
	out->inv_exact = t.exact;
	out->inv_p_min = smallest_p(a->k, b->k);
	return err;
}

int ipc_compare_nested(const double *a, const size_t *na, size_t ka,
		       const double *b, const size_t *nb, size_t kb,
		       double level, uint64_t seed, struct ipc_cmp *out)
{
	struct nside sa, sb;
	int err;

	memset(out, 0, sizeof(*out));
	out->p = out->p_min = out->inv_p = out->inv_p_min = 1.0;
	out->drift_a = out->drift_b = -1;
	out->mean_within_a = out->mean_within_b = -1;
	out->level = isfinite(level) && level > 0 && level < 1 ? level : 0.95;
	err = nside_init(&sa, a, na, ka);
	if (err)
		return err;
	err = nside_init(&sb, b, nb, kb);
	if (err) {
		nside_free(&sa);
		return err;
	}
	out->na = sa.total;
	out->nb = sb.total;
	out->ka = sa.k;
	out->kb = sb.k;
	if (!sa.k || !sb.k)
		goto out;
	out->median_a = sa.value;
	out->median_b = sb.value;
	out->p_min = smallest_p(sa.total, sb.total);
	out->drift_a = drift_of(&sa);
	out->drift_b = drift_of(&sb);
	out->mean_within_a = within_of(&sa);
	out->mean_within_b = within_of(&sb);
	if (out->median_a != 0 && isfinite(out->median_b / out->median_a)) {
		out->have_ratio = true;
		out->ratio = out->median_b / out->median_a;
	}
	out->diff = out->median_b - out->median_a;
	err = mann_whitney(sa.x, sa.total, sb.x, sb.total, out);
	err = err ?: between(&sa, &sb, out);
	if (!err && sa.total >= 2 && sb.total >= 2)
		err = bootstrap(&sa, &sb, seed, out);
out:
	nside_free(&sa);
	nside_free(&sb);
	return err;
}

int ipc_compare_runs(const double *a, size_t na, const double *b, size_t nb,
		     double level, uint64_t seed, struct ipc_cmp *out)
{
	return ipc_compare_nested(a, &na, 1, b, &nb, 1, level, seed, out);
}

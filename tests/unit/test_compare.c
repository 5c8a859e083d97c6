/* SPDX-License-Identifier: MIT */
/*
 * Tests of the comparison statistics: the exact Mann-Whitney p-value
 * against brute-force enumeration (with ties), the normal approximation
 * for large sets, the bootstrap interval of the ratio of medians, and the
 * verdicts that rest on them: identical data shows no difference, a 10%
 * shift shows one with the right sign.  Then comparing two documents:
 * cases matched by their parameters, what the files differ in, each
 * pattern's metric and throughput, and a run without the figure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ipcperf/report.h"
#include "ipcperf/stats.h"
#include "doc/compare.h"
#include "doc/matrix.h"
#include "../helpers.h"
#include "../tap.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

/*
 * The two-sided permutation p-value of the rank sum by enumerating every
 * way to pick nb of the n pooled values as "B" (bit masks, n <= 20): the
 * share of splits whose statistic U = #{(a, b): b > a} + #{b == a} / 2 is
 * at least as far from na nb / 2 as the observed one.
 */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
	double pool[20], u, u0 = 0, mid = (double)na * (double)nb / 2;
	size_t n = na + nb, i, j, total = 0, far = 0;
	unsigned mask;

	for (i = 0; i < na; i++)
		pool[i] = a[i];
	for (i = 0; i < nb; i++)
		pool[na + i] = b[i];
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			u0 += b[j] > a[i] ? 1 : b[j] == a[i] ? 0.5 : 0;
	for (mask = 0; mask < 1u << n; mask++) {
		if ((size_t)__builtin_popcount(mask) != nb)
			continue;
		u = 0;
		for (i = 0; i < n; i++) {
			if (mask & 1u << i)
				continue; /* i is in "A" */
			for (j = 0; j < n; j++)
				if (mask & 1u << j)
					u += pool[j] > pool[i]	  ? 1
					     : pool[j] == pool[i] ? 0.5
								  : 0;
		}
		total++;
		far += fabs(u - mid) >= fabs(u0 - mid) - 1e-9;
	}
	return (double)far / (double)total;
}

static void test_exact(void)
{
	const double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
	const double a4[] = {1, 2, 3, 4}, b4[] = {5, 6, 7, 8};
	const double same[] = {7, 7, 7, 7};
	double a[10], b[10], p, want;
	size_t t, na, nb, i, bad = 0;
	bool exact;

	p = ipc_mann_whitney_p(a3, 3, b3, 3, &exact);
	is_near(p, 0.1, 1e-12, "mw: 3 vs 3 fully apart: p = 2/20");
	ok(exact, "mw: small sets use the exact law");
	p = ipc_mann_whitney_p(a4, 4, b4, 4, NULL);
	is_near(p, 2.0 / 70, 1e-12, "mw: 4 vs 4 fully apart: p = 2/70");
	p = ipc_mann_whitney_p(b4, 4, a4, 4, NULL);
	is_near(p, 2.0 / 70, 1e-12, "mw: two-sided: same p the other way");
	p = ipc_mann_whitney_p(same, 4, same, 4, NULL);
	is_near(p, 1.0, 1e-12, "mw: all values tied: p = 1");
	p = ipc_mann_whitney_p(a3, 3, a3, 3, NULL);
	is_near(p, 1.0, 1e-12, "mw: identical sets: p = 1");

	/* Random small sets with many ties, against enumeration. */
	rng_state = 4242;
	for (t = 0; t < 200; t++) {
		na = 2 + rng_next() % 7;
		nb = 2 + rng_next() % 7;
		for (i = 0; i < na; i++)
			a[i] = (double)(rng_next() % 6);
		for (i = 0; i < nb; i++)
			b[i] = (double)(rng_next() % 6) + (t % 3 == 0);
		p = ipc_mann_whitney_p(a, na, b, nb, NULL);
		want = brute_p(a, na, b, nb);
		if (fabs(p - want) > 1e-9 && bad++ < 5)
			diag("na %zu nb %zu: p %.12g, enumeration %.12g", na,
			     nb, p, want);
	}
	is_uint(bad, "==", 0,
		"mw: 200 random tied sets: exact p equals enumeration");
}

/*
 * Beyond IPC_CMP_EXACT_MAX values the normal approximation is used.  At
 * 30 + 30 (still exact) the two must agree closely; at 40 + 40
 * (approximated) p must be tiny for a clear shift and uniform, so about
 * 0.5 on average, for the same distribution.
 */
static void test_approx(void)
{
	double a[40], b[40], pe, sum = 0;
	size_t i, t;
	bool exact;

	rng_state = 77;
	for (i = 0; i < 40; i++) {
		a[i] = 100 + rng_normal();
		b[i] = 100.5 + rng_normal();
	}
	pe = ipc_mann_whitney_p(a, 30, b, 30, &exact);
	ok(exact, "mw: 30 + 30 is exact");
	ok(ipc_mann_whitney_p(a, 40, b, 40, &exact) >= 0 && !exact,
	   "mw: 40 + 40 is approximated");
	/* The approximation on the same 30 + 30, computed by hand. */
	{
		double u = 0, mean = 450, var = 30.0 * 30 * 61 / 12, z, pa;
		size_t j;

		for (i = 0; i < 30; i++)
			for (j = 0; j < 30; j++)
				u += b[j] > a[i];
		z = (fabs(u - mean) - 0.5) / sqrt(var);
		pa = erfc(z / M_SQRT2);
		ok(fabs(pe - pa) < 0.01,
		   "mw: exact %.4f and normal approximation %.4f agree at "
		   "30 + 30",
		   pe, pa);
	}
	for (i = 0; i < 40; i++)
		b[i] = a[i] + 3;
	ok(ipc_mann_whitney_p(a, 40, b, 40, NULL) < 1e-6,
	   "mw: a shift of 3 sd over 40 + 40: p tiny");
	for (t = 0; t < 50; t++) {
		for (i = 0; i < 40; i++) {
			a[i] = rng_normal();
			b[i] = rng_normal();
		}
		sum += ipc_mann_whitney_p(a, 40, b, 40, NULL);
	}
	ok(sum / 50 > 0.35 && sum / 50 < 0.65,
	   "mw: same distribution, 40 + 40: mean p %.3f near 0.5", sum / 50);
}

static void test_compare(void)
{
	double a[12], b[12], c[12];
	struct ipc_cmp r, r2;
	size_t i;
	int err;

	rng_state = 5;
	for (i = 0; i < 12; i++) {
		a[i] = 5000 * (1 + 0.01 * rng_normal());
		b[i] = a[i] * 1.10;
		c[i] = a[i];
	}
	err = ipc_compare_runs(a, 12, c, 12, 0.95, 1, &r);
	is_int(err, "==", 0, "compare: identical runs");
	is_near(r.ratio, 1.0, 1e-12, "compare: identical: ratio 1");
	ok(r.have_ci && r.ci_low <= 1 && r.ci_high >= 1,
	   "compare: identical: the interval holds 1 [%g, %g]", r.ci_low,
	   r.ci_high);
	is_near(r.p, 1.0, 1e-12, "compare: identical: p = 1");

	err = ipc_compare_runs(a, 12, b, 12, 0.95, 1, &r);
	is_int(err, "==", 0, "compare: a 10%% shift");
	is_near(r.ratio, 1.10, 1e-9, "compare: ratio of medians 1.10");
	ok(r.have_ci && r.ci_low > 1.0 && r.ci_low <= 1.10 && r.ci_high >= 1.10,
	   "compare: the interval [%g, %g] holds 1.10, not 1", r.ci_low,
	   r.ci_high);
	ok(r.p < 0.001, "compare: p %.3g is tiny", r.p);
	ok(r.u == 144, "compare: every B above every A: U = 12 x 12");
	err = ipc_compare_runs(b, 12, a, 12, 0.95, 1, &r);
	ok(!err && r.ratio < 1 && r.ci_high < 1,
	   "compare: the other way round the ratio is below 1");

	ipc_compare_runs(a, 12, b, 12, 0.95, 1, &r);
	ipc_compare_runs(a, 12, b, 12, 0.95, 1, &r2);
	ok(r.ci_low == r2.ci_low && r.ci_high == r2.ci_high,
	   "compare: the same seed gives the same interval");

	a[3] = NAN;
	b[5] = INFINITY;
	ipc_compare_runs(a, 12, b, 12, 0.95, 1, &r);
	ok(r.na == 11 && r.nb == 11 && isfinite(r.p) && isfinite(r.ci_low),
	   "compare: non-finite runs are left out");

	ipc_compare_runs(a, 0, b, 12, 0.95, 1, &r);
	ok(!r.have_ratio && !r.have_ci && r.p == 1,
	   "compare: nothing in A: no ratio, no interval, p = 1");
	for (i = 0; i < 12; i++)
		c[i] = 0;
	ipc_compare_runs(c, 12, b, 12, 0.95, 1, &r);
	ok(!r.have_ratio && !r.have_ci, "compare: median A of 0: no ratio");
	ipc_compare_runs(a, 3, b, 3, 0.95, 1, &r);
	is_near(r.p_min, 0.1, 1e-12,
		"compare: 3 vs 3 runs can never reach p < 0.1");
}

/*
 * The bootstrap interval's coverage: samples of 10 lognormal runs (sd
 * 3%) with a true ratio of medians of 1.10, 300 times.  The percentile
 * bootstrap of a median is approximate at n = 10; it must still cover
 * the truth in at least 88% of trials at 95%.
 */
static void test_coverage(void)
{
	enum { TRIALS = 300 };
	double a[10], b[10];
	struct ipc_cmp r;
	size_t t, i, hits = 0, signif = 0;

	rng_state = 2024;
	for (t = 0; t < TRIALS; t++) {
		for (i = 0; i < 10; i++) {
			a[i] = 5000 * exp(0.03 * rng_normal());
			b[i] = 5500 * exp(0.03 * rng_normal());
		}
		ipc_compare_runs(a, 10, b, 10, 0.95, t, &r);
		hits += r.have_ci && r.ci_low <= 1.10 && 1.10 <= r.ci_high;
		signif += r.p < 0.05;
	}
	ok(hits >= TRIALS * 88 / 100,
	   "compare: interval covers the true 1.10 in %zu of %d", hits, TRIALS);
	ok(signif == TRIALS,
	   "compare: a 10%% shift at 3%% noise is found in "
	   "%zu of %d",
	   signif, TRIALS);
}

/*
 * Two levels.  Ten invocations of 12 runs each: the runs of an invocation
 * spread by 1% around its level, and the levels drift by 5% (lognormal),
 * as on a shared VM from one minute to the next.
 */
enum { INV = 10, RUNS = 12 };

static void invocations(double x[INV][RUNS], double shift_from5)
{
	for (size_t i = 0; i < INV; i++) {
		double level = 5000 * exp(0.05 * rng_normal()) *
			       (i >= 5 ? shift_from5 : 1.0);

		for (size_t r = 0; r < RUNS; r++)
			x[i][r] = level * exp(0.01 * rng_normal());
	}
}

/* Compare the invocations whose bit in @mask is 0 (A) with the rest. */
static int split(double x[INV][RUNS], unsigned mask, struct ipc_cmp *out)
{
	double a[INV * RUNS], b[INV * RUNS];
	size_t na[INV], nb[INV], ka = 0, kb = 0;

	for (size_t i = 0; i < INV; i++) {
		if (mask & 1u << i) {
			memcpy(b + kb * RUNS, x[i], sizeof(x[i]));
			nb[kb++] = RUNS;
		} else {
			memcpy(a + ka * RUNS, x[i], sizeof(x[i]));
			na[ka++] = RUNS;
		}
	}
	return ipc_compare_nested(a, na, ka, b, nb, kb, 0.95, 7, out);
}

/* The verdict compare gives with several invocations a side. */
static bool differs(const struct ipc_cmp *r)
{
	return r->inv_p < 0.05 && r->have_ci &&
	       (r->ci_low > 1 || r->ci_high < 1);
}

static void test_nested(void)
{
	double x[INV][RUNS], one[3] = {5000, 5010, 4990},
			     nan3[3] = {NAN, NAN, NAN};
	double flat[6] = {5000, 5010, 4990, 5100, 5110, 5090};
	size_t n3[2] = {3, 3};
	struct ipc_cmp r, r1;
	size_t splits = 0, same = 0, runs_wrong = 0;
	int err;

	/* One invocation a side is exactly the comparison of runs. */
	ipc_compare_runs(one, 3, flat + 3, 3, 0.95, 1, &r1);
	ipc_compare_nested(one, n3, 1, flat + 3, n3, 1, 0.95, 1, &r);
	ok(r.ratio == r1.ratio && r.ci_low == r1.ci_low &&
		   r.ci_high == r1.ci_high && r.p == r1.p && r.ka == 1 &&
		   r.kb == 1 && r.drift_a < 0,
	   "nested: one invocation a side is the comparison of the runs");

	/* An invocation without a value is left out. */
	memcpy(x[0], flat, sizeof(flat));
	memcpy(x[0] + 6, nan3, sizeof(nan3));
	{
		size_t n[3] = {3, 3, 3};

		err = ipc_compare_nested(x[0], n, 3, one, n, 1, 0.95, 1, &r);
	}
	ok(!err && r.ka == 2 && r.na == 6 && r.median_a == 5050,
	   "nested: an invocation with no finite run does not count; the "
	   "side's value is the median of its invocations' medians");
	ok(r.drift_a > 0.013 && r.drift_a < 0.015,
	   "nested: drift is the sd of the log of the invocations' values "
	   "(%.4f)",
	   r.drift_a);

	/*
	 * A/A: every split of the ten invocations into 5 and 5 (252).  The
	 * test between invocations is exact, so it calls at most 8 of 252
	 * (3.2%) different whatever the drift; the runs alone, which see
	 * 60 runs a side a few percent apart, call most of them different.
	 */
	rng_state = 99;
	invocations(x, 1.0);
	for (unsigned mask = 0; mask < 1u << INV; mask++) {
		if (__builtin_popcount(mask) != 5)
			continue;
		if (split(x, mask, &r))
			break;
		splits++;
		same += !differs(&r);
		runs_wrong += r.p < 0.05;
	}
	is_int(splits, "==", 252, "nested A/A: every 5-against-5 split");
	ok(same * 100 >= splits * 95,
	   "nested A/A: no significant difference in %zu of %zu splits "
	   "(at least 95%%)",
	   same, splits);
	ok(runs_wrong * 2 > splits,
	   "nested A/A: the runs alone would cry wolf in %zu of %zu",
	   runs_wrong, splits);
	ok(r.drift_a > 0.02 && r.drift_a < 0.10,
	   "nested A/A: the 5%% drift is seen (%.3f)", r.drift_a);

	/* A 20% shift between the two halves: found, with its sign. */
	rng_state = 5;
	invocations(x, 1.20);
	split(x, 0x3e0, &r);
	ok(differs(&r) && r.ratio > 1.1 && r.ci_low > 1 &&
		   fabs(r.inv_p - 2.0 / 252) < 1e-12,
	   "nested: a 20%% shift is found (B/A %.3f, %.3f-%.3f, p %.4f)",
	   r.ratio, r.ci_low, r.ci_high, r.inv_p);
	split(x, 0x1f, &r);
	ok(differs(&r) && r.ratio < 0.9 && r.ci_high < 1,
	   "nested: and the other way round, below 1");
	ok(r.inv_p_min < 0.01 && r.inv_exact,
	   "nested: 5 against 5 can reach p %.4f, exactly", r.inv_p_min);
}

static const struct ipc_transport_ops tp_pipe = {.name = "pipe"};
static const struct ipc_transport_ops tp_tcp = {.name = "tcp"};
static const struct ipc_engine_ops eng_blocking = {.name = "blocking"};

/*
 * A result of @pat on @tp with 8 runs of p50 about @p50 ns (times @f),
 * moving @bytes per iteration, with @req as request size (or count).
 */
static struct ipc_result *mkres(const struct ipc_pattern_ops *pat,
				const struct ipc_transport_ops *tp, size_t req,
				double p50, double f, uint64_t bytes)
{
	struct ipc_case cs = {.pat = pat, .tp = tp, .eng = &eng_blocking};
	struct ipc_result *res;

	cs.req_size = cs.msg_size = req;
	cs.resp_size = cs.count = 1;
	cs.flows = 4;
	cs.threads = 1;
	res = ipc_result_new(&cs);
	if (!res)
		abort();
	res->runs = calloc(8, sizeof(*res->runs));
	if (!res->runs)
		abort();
	res->nruns = res->runs_cap = 8;
	for (size_t i = 0; i < 8; i++) {
		struct ipc_run_stats *s = &res->runs[i];
		double v = (p50 + 13 * (double)((i * 7) % 8)) * f;

		s->iterations = 1000;
		s->bytes = bytes * 1000;
		s->lat.p50 = (uint64_t)v;
		s->lat.p99 = (uint64_t)(2 * v);
		s->msgs_per_s = 1e9 / v;
		s->bytes_per_s = (double)bytes * 1e9 / v;
	}
	return res;
}

static void doc_free_results(struct ipc_doc *d)
{
	for (size_t i = 0; i < d->nresults; i++)
		ipc_result_free(d->results[i]);
}

static void test_documents(void)
{
	struct ipc_result *ra[4], *rb[4];
	struct ipc_doc a = {.path = "a.json", .results = ra, .nresults = 4};
	struct ipc_doc b = {.path = "b.json", .results = rb, .nresults = 4};
	struct ipc_cmp_opts o = {.version = "test"};
	struct ipc_comparison *c = NULL;
	struct ipc_report_ops const *table = ipc_report_find("table");
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	ra[0] = mkres(&ipc_pattern_rr, &tp_pipe, 1, 5000, 1, 2);
	ra[1] = mkres(&ipc_pattern_rr, &tp_pipe, 64, 5000, 1, 65);
	ra[2] = mkres(&ipc_pattern_load, &tp_pipe, 1, 9000, 1, 2);
	ra[3] = mkres(&ipc_pattern_stream, &tp_pipe, 0, 90000, 1, 0);
	rb[0] = mkres(&ipc_pattern_rr, &tp_tcp, 64, 5000, 1.10, 65);
	rb[1] = mkres(&ipc_pattern_rr, &tp_tcp, 1, 5000, 1.10, 2);
	rb[2] = mkres(&ipc_pattern_load, &tp_tcp, 1, 9000, 0.9, 2);
	rb[3] = mkres(&ipc_pattern_stream, &tp_tcp, 0, 90000, 1, 0);
	rb[3]->runs[5].msgs_per_s = NAN; /* left out by the writer */

	/*
	 * One document a side: the drift is not measured, and a 10% change
	 * is within what the default allowance for it could explain.
	 */
	err = ipc_compare(&a, &b, &o, &c);
	is_int(err, "==", 0, "documents: compared");
	if (err)
		goto out;
	ok(c->npairs == 4 && c->pairs[0].v.verdict == IPC_VERDICT_UNDECIDED &&
		   c->pairs[0].v.basis == IPC_BASIS_ALLOWED &&
		   c->pairs[0].v.runs_differ,
	   "documents: one a side, a 10%% change is undecided");
	ipc_comparison_free(c);

	/* With --drift 0 the runs are trusted as they are. */
	o.drift_set = true;
	err = ipc_compare(&a, &b, &o, &c);
	is_int(err, "==", 0, "documents: compared with --drift 0");
	if (err)
		goto out;
	is_int(ipc_comparison_gates(c), "==", 0, "documents: no gate");
	f = open_memstream(&out, &len);
	if (!f)
		abort();
	is_int(table->compare(f, c), "==", 0, "documents: printed");
	fclose(f);
	diag("%s", out);
	ok(strstr(out, "A and B differ in transport: pipe in A, tcp in B\n") !=
		   NULL,
	   "documents: the transport is what the files compare");
	ok(strstr(out, "rr req=1 resp=1 ") && strstr(out, "rr req=64 resp=1 "),
	   "documents: rr matched by its sizes, whatever the order");
	ok(strstr(out, "slower (+10.") != NULL,
	   "documents: 10%% longer p50s are slower");
	ok(strstr(out, "load flows=4 req=1 resp=1 ") &&
		   strstr(out, "faster (-10."),
	   "documents: load named by its flows, faster by its p50");
	ok(strstr(out, "stream size=0 count=1 (throughput)") &&
		   strstr(out, "1 of 8 runs in B have no msgs_per_s"),
	   "documents: stream of 0 bytes by messages/s; the run without it "
	   "is said");
	free(out);
	ipc_comparison_free(c);

	/* Throughput asked for: each pattern's own. */
	o.metric = "throughput";
	err = ipc_compare(&a, &b, &o, &c);
	is_int(err, "==", 0, "throughput: compared");
	if (!err) {
		f = open_memstream(&out, &len);
		ipc_report_find("json")->compare(f, c);
		fclose(f);
		ok(strstr(out, "\"case\": \"load flows=4 req=1 resp=1\",") &&
			   strstr(out, "\"unit\": \"msgs_per_s\""),
		   "throughput: load's is replies/s");
		ok(!strstr(out, "bytes_per_s"),
		   "throughput: no case here is judged in bytes/s (rr, load, "
		   "a stream of 0 bytes)");
		free(out);
		ipc_comparison_free(c);
	}

	/* Nothing in common. */
	b.nresults = 1;
	b.results = &rb[3];
	rb[3]->cs.pat = &ipc_pattern_bulk;
	c = NULL;
	is_int(ipc_compare(&a, &b, &o, &c), "==", -ENOENT,
	       "no case in common: -ENOENT");
	ok(c == NULL, "no case in common: no comparison");
	ok(!ipc_compare_metric_ok("p95") && ipc_compare_metric_ok("mean"),
	   "compare knows p50, p99, mean, throughput, not p95");
	b.nresults = 4;
out:
	doc_free_results(&a);
	doc_free_results(&(struct ipc_doc){.results = rb, .nresults = 4});
}

/* The table of comparison @c, as a string to free. */
static char *table_of(const struct ipc_comparison *c)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		abort();
	ipc_report_find("table")->compare(f, c);
	fclose(f);
	return out;
}

/*
 * --fail-if-slower cannot pass on what it never compared: B without the
 * figure, or without the case at all, was a "passed" gate.
 */
static void test_gate_uncompared(void)
{
	struct ipc_result *ra[2], *rb[2];
	struct ipc_doc a = {.path = "a.json", .results = ra, .nresults = 2};
	struct ipc_doc b = {.path = "b.json", .results = rb, .nresults = 2};
	struct ipc_cmp_opts o = {.version = "test",
				 .metric = "throughput",
				 .fail_set = true,
				 .fail_pct = 5};
	struct ipc_comparison *c = NULL;
	char *out;

	ra[0] = mkres(&ipc_pattern_rr, &tp_pipe, 1, 5000, 1, 2);
	ra[1] = mkres(&ipc_pattern_rr, &tp_pipe, 64, 5000, 1, 65);
	rb[0] = mkres(&ipc_pattern_rr, &tp_tcp, 1, 5000, 1, 2);
	rb[1] = mkres(&ipc_pattern_rr, &tp_tcp, 64, 5000, 1, 65);
	for (size_t i = 0; i < rb[1]->nruns; i++)
		rb[1]->runs[i].msgs_per_s = NAN; /* runs, no figure */
	if (ipc_compare(&a, &b, &o, &c)) {
		ok(0, "gate: compared");
		goto out;
	}
	is_int(ipc_comparison_gates(c), "==", 1,
	       "gate: a case whose runs in B have no throughput trips it");
	out = table_of(c);
	ok(strstr(out, "no throughput in B") &&
		   strstr(out, "gate: 1 case of A could not be compared") &&
		   !strstr(out, "passed"),
	   "gate: says which and why, and not 'passed'");
	free(out);
	ipc_comparison_free(c);

	o.fail_set = false;
	if (!ipc_compare(&a, &b, &o, &c)) {
		is_int(ipc_comparison_gates(c), "==", 0,
		       "no gate asked for: nothing trips");
		ipc_comparison_free(c);
	}

	o.fail_set = true;
	b.nresults = 1; /* B lacks req=64 altogether */
	if (!ipc_compare(&a, &b, &o, &c)) {
		is_int(ipc_comparison_gates(c), "==", 1,
		       "gate: a case of A that B lacks trips it");
		out = table_of(c);
		ok(strstr(out, "only in A: rr pipe req=64") != NULL,
		   "gate: ... and it is named");
		free(out);
		ipc_comparison_free(c);
	}
out:
	doc_free_results(&a);
	doc_free_results(&(struct ipc_doc){.results = rb, .nresults = 2});
}

/* SIGXCPU (which ends the test) after @secs more CPU seconds. */
static void cpu_limit(rlim_t secs)
{
	struct rusage ru;
	struct rlimit rl;

	if (getrusage(RUSAGE_SELF, &ru) || getrlimit(RLIMIT_CPU, &rl))
		return;
	rl.rlim_cur = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + secs;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_CPU, &rl);
}

/*
 * The bootstrap's cost does not grow with the runs:
 * it drew and sorted every run for each of 4,000 resamples, so 10,000
 * runs a side took 3.7 s and 100,000 did not end in 30 s; a million, some
 * 640 CPU seconds.  Now they take about one (the sorts and the rank
 * test; some 50 under valgrind), far from the 300 CPU seconds after which
 * SIGXCPU kills the test whatever else the machine runs; and the interval
 * is still around the true ratio.
 */
static void test_bootstrap_bounded(void)
{
	const size_t n = 1000000;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct ipc_cmp r;

	if (!a || !b)
		abort();
	rng_state = 11;
	for (size_t i = 0; i < n; i++) {
		a[i] = 5000 * (1 + 0.05 * rng_normal());
		b[i] = 5500 * (1 + 0.05 * rng_normal());
	}
	cpu_limit(300);
	ok(!ipc_compare_runs(a, n, b, n, 0.95, 7, &r) && r.have_ci,
	   "bootstrap: a million runs a side");
	ok(r.ci_low <= 1.1 && 1.1 <= r.ci_high && r.ci_high - r.ci_low < 0.01,
	   "bootstrap: a narrow interval around the true 1.10 (%.4f-%.4f)",
	   r.ci_low, r.ci_high);
	free(a);
	free(b);
}

/* The difference of the medians and its interval, from the same resamples. */
static void test_difference(void)
{
	const double a[] = {100, 102, 98, 101, 99, 100, 103, 97};
	const double b[] = {130, 131, 129, 132, 128, 130, 133, 127};
	const double z[] = {0, 0, 0, 0};
	struct ipc_cmp r;

	ok(!ipc_compare_runs(a, 8, b, 8, 0.95, 7, &r), "a and b compared");
	is_near(r.diff, 30, 1e-9, "the difference of the medians");
	ok(r.have_diff_ci && r.diff_low <= r.diff && r.diff <= r.diff_high,
	   "its interval holds it (%g to %g)", r.diff_low, r.diff_high);
	ok(r.diff_low >= 25 && r.diff_high <= 35,
	   "and is about the spread of the runs (%g to %g)", r.diff_low,
	   r.diff_high);
	ok(!ipc_compare_runs(z, 4, a, 8, 0.95, 7, &r) && !r.have_ratio &&
		   r.have_diff_ci && r.diff == 100,
	   "a median of 0: no ratio, still a difference and its interval");
	ok(!ipc_compare_runs(a, 1, b, 8, 0.95, 7, &r) && !r.have_diff_ci,
	   "one run on a side: no interval");
}

/*
 * One file a side, as a user compares one build with another: the
 * verdict allows for the drift between invocations that one file cannot
 * show.  A 2.2x difference (pipe against tcp, as measured: 11 us against
 * 24.4 us) is beyond any drift and called slower; identical files and a
 * 10% change (what drift alone did between two back-to-back invocations)
 * are not called different.
 */
static void test_one_a_side(void)
{
	static const struct {
		double f;
		enum ipc_verdict want;
		const char *what;
	} cases[] = {
		{2.215, IPC_VERDICT_SLOWER, "pipe against tcp, 2.2x: slower"},
		{0.45, IPC_VERDICT_FASTER, "0.45x: faster"},
		{1.0, IPC_VERDICT_SAME, "A/A: no significant difference"},
		{1.107, IPC_VERDICT_UNDECIDED, "A/A drift, +10.7%: undecided"},
		{0.93, IPC_VERDICT_UNDECIDED, "A/A drift, -7%: undecided"},
	};
	struct ipc_cmp_opts o = {.version = "test"};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ipc_result *ra =
			mkres(&ipc_pattern_rr, &tp_pipe, 1, 11000, 1, 2);
		struct ipc_result *rb = mkres(&ipc_pattern_rr, &tp_tcp, 1,
					      11000, cases[k].f, 2);
		struct ipc_doc a = {
			.path = "a.json", .results = &ra, .nresults = 1};
		struct ipc_doc b = {
			.path = "b.json", .results = &rb, .nresults = 1};
		struct ipc_comparison *c = NULL;
		int err = ipc_compare(&a, &b, &o, &c);

		is_int(err, "==", 0, "one a side: compared");
		if (!err) {
			is_str(ipc_verdict_name(c->pairs[0].v.verdict),
			       ipc_verdict_name(cases[k].want), "%s",
			       cases[k].what);
			ok(c->pairs[0].v.basis == IPC_BASIS_ALLOWED &&
				   c->pairs[0].v.src == IPC_DRIFT_DEFAULT &&
				   fabs(expm1(c->pairs[0].v.drift) * 100 -
					IPC_DRIFT_DEFAULT_PCT) < 1e-9,
			   "one a side: allowing the default drift (%s)",
			   cases[k].what);
		}
		ipc_comparison_free(c);
		ipc_result_free(ra);
		ipc_result_free(rb);
	}
}

/* A saved matrix of one case, rr tcp, a -> b, with these runs' p50s. */
static struct ipc_mx_doc *mkmatrix(const struct ipc_result *res)
{
	struct ipc_mx_doc *d = NULL;
	char text[2048], err[256];
	size_t n;

	n = (size_t)snprintf(text, sizeof(text),
			     "{\"command\": \"matrix\", \"metric\": \"p50\", "
			     "\"matrices\": [{\"case\": \"rr req=1 resp=1\", "
			     "\"unit\": \"ns\", \"cells\": [{\"from\": \"a\", "
			     "\"to\": \"b\", \"status\": \"ok\", "
			     "\"run_values\": [");
	for (size_t r = 0; r < res->nruns; r++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%llu",
				      r ? ", " : "",
				      (unsigned long long)res->runs[r].lat.p50);
	snprintf(text + n, sizeof(text) - n, "]}]}]}");
	if (ipc_mx_doc_parse(text, strlen(text), "m.json", &d, err,
			     sizeof(err)))
		diag("%s", err);
	return d;
}

/*
 * The one verdict: compare of two documents and compare of two matrices
 * judge the same runs alike, with the drift allowance and with --drift.
 */
static void test_same_verdict(void)
{
	static const double fs[] = {1.0, 1.05, 1.107, 1.3, 2.215, 0.45, 0.9};

	for (int drift = 0; drift < 2; drift++)
		for (size_t k = 0; k < sizeof(fs) / sizeof(fs[0]); k++) {
			struct ipc_cmp_opts o = {.version = "test",
						 .drift_set = drift,
						 .drift_pct = 0};
			struct ipc_result *ra = mkres(&ipc_pattern_rr, &tp_pipe,
						      1, 11000, 1, 2);
			struct ipc_result *rb = mkres(&ipc_pattern_rr, &tp_tcp,
						      1, 11000, fs[k], 2);
			struct ipc_doc a = {.path = "a.json",
					    .results = &ra,
					    .nresults = 1};
			struct ipc_doc b = {.path = "b.json",
					    .results = &rb,
					    .nresults = 1};
			struct ipc_mx_doc *ma = mkmatrix(ra),
					  *mb = mkmatrix(rb);
			struct ipc_comparison *c = NULL;
			struct mc_pair mp[1];
			size_t n = 0;
			int err = ipc_compare(&a, &b, &o, &c);

			err = err ?: !ma || !mb;
			err = err ?: mx_judge(ma, mb, &o, mp, &n);
			ok(!err && n == 1 && mp[0].compared &&
				   mp[0].v.verdict == c->pairs[0].v.verdict &&
				   mp[0].v.basis == c->pairs[0].v.basis,
			   "one verdict: x%.3f%s: compare says %s, the matrix "
			   "compare %s",
			   fs[k], drift ? " --drift 0" : "",
			   c ? ipc_verdict_name(c->pairs[0].v.verdict) : "-",
			   n ? mx_pair_verdict(&mp[0]) : "-");
			ipc_comparison_free(c);
			ipc_mx_doc_free(ma);
			ipc_mx_doc_free(mb);
			ipc_result_free(ra);
			ipc_result_free(rb);
		}
}

int main(void)
{
	test_difference();
	test_exact();
	test_approx();
	test_compare();
	test_coverage();
	test_nested();
	test_documents();
	test_one_a_side();
	test_same_verdict();
	test_gate_uncompared();
	test_bootstrap_bounded();
	return done_testing();
}

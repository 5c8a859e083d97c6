/* SPDX-License-Identifier: MIT */
/*
 * The figures the document layer works out for the formatters, on
 * made-up results with known answers: a column per message, a share and
 * a change in percent, a drift in percent, a side's CPU time and context
 * switches, the percentiles a count of samples can show, the largest early
 * wake-up, --explain's sums of phases, an interval's rate, a comparison's
 * difference per message and per phase, and a matrix comparison's counts.
 * Each where nothing was measured too: no runs, no messages, NaN.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "doc/compare.h"
#include "doc/explain_json.h"
#include "doc/figures.h"
#include "doc/intervals_json.h"
#include "doc/matrix.h"
#include "../tap.h"

static void test_col_value(void)
{
	static struct ipc_result r;
	struct ipc_column p50 = {.head = "p50", .src = IPC_SRC_P50};
	struct ipc_column per = {.head = "per msg",
				 .src = IPC_SRC_P50,
				 .per_off = offsetof(struct ipc_case, count)};
	struct ipc_column none = {.head = "x", .src = IPC_SRC_EXTRA + 1};

	memset(&r, 0, sizeof(r));
	r.summary.lat.p50 = 9000;
	r.cs.count = 1000;
	ok(ipc_col_value(&p50, &r) == 9000, "a plain column is the figure");
	ok(ipc_col_value(&per, &r) == 9, "per message: 9000 ns / 1000 = 9");
	r.cs.count = 0;
	ok(isnan(ipc_col_value(&per, &r)), "per message of no messages: NaN");
	ok(ipc_col_value(&p50, &r) == 9000, "... the plain column still 9000");
	r.summary.extra[1] = NAN;
	ok(isnan(ipc_col_value(&none, &r)), "an extra not measured: NaN");
}

static void test_pct(void)
{
	ok(ipc_pct_of(38, 400) == 9.5, "38 of 400: 9.5%%");
	ok(ipc_pct_of(0, 400) == 0, "none of 400: 0%%");
	ok(isnan(ipc_pct_of(3, 0)), "of nothing sent: NaN");
	ok(isnan(ipc_pct_of(NAN, 10)), "a count not measured: NaN");
	ok(ipc_pct_over(25.7, 21.4) == 100.0 * (25.7 - 21.4) / 21.4,
	   "over: 100 (v - ref) / ref");
	ok(ipc_pct_over(150, 100) == 50, "150 over 100: +50%%");
	ok(ipc_pct_over(50, 100) == -50, "50 over 100: -50%%");
	ok(isnan(ipc_pct_over(5, 0)), "against 0: NaN");
	ok(isnan(ipc_pct_over(5, -1)), "against a negative: NaN");
	ok(isnan(ipc_pct_over(NAN, 1)) && isnan(ipc_pct_over(1, NAN)),
	   "either side NaN: NaN");
	ok(isnan(ipc_pct_over(INFINITY, 1)), "an infinite value: NaN");
	ok(ipc_drift_pct(0) == 0, "no drift: 0%%");
	is_near(ipc_drift_pct(log(1.115)), 11.5, 1e-12, "log(1.115): 11.5%%");
	ok(ipc_drift_pct(log(1.115)) == expm1(log(1.115)) * 100,
	   "... exactly expm1(drift) * 100");
}

static void test_cost(void)
{
	struct ipc_cost c = {.valid = true,
			     .user_ns = 2100,
			     .sys_ns = 1950,
			     .vcsw = 0.75,
			     .ivcsw = 0.25};

	ok(ipc_cost_cpu_ns(&c) == 4050, "CPU: 2100 user + 1950 system");
	ok(ipc_cost_csw(&c) == 1, "context switches: 0.75 + 0.25");
	c.valid = false;
	ok(isnan(ipc_cost_cpu_ns(&c)) && isnan(ipc_cost_csw(&c)),
	   "a side not measured: NaN both");
}

static void test_spectrum(void)
{
	struct ipc_run_stats s = {.lat = {.min = 1,
					  .p50 = 2,
					  .p90 = 3,
					  .p99 = 4,
					  .p999 = 5,
					  .max = 6}};
	struct ipc_spectrum sp;

	/* 1 - 0.9 is a little under 0.1 in binary: ten do not show p90. */
	static const struct {
		uint64_t n;
		size_t points;
		const char *what;
	} counts[] = {
		{0, 0, "no samples: no points"},
		{1, 0, "one sample: no points"},
		{10, 3, "ten: min p50 max"},
		{11, 4, "eleven: min p50 p90 max"},
		{100, 5, "a hundred: p99 too"},
		{999, 5, "999: not p99.9 yet"},
		{2, 3, "two samples: min p50 max"},
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		s.iterations = counts[i].n;
		is_uint(ipc_spectrum_of(&s, &sp), "==", counts[i].points, "%s",
			counts[i].what);
	}
	ok(sp.q[0] == 0 && sp.q[1] == 0.5 && sp.q[2] == 0.5 && sp.ns[2] == 6,
	   "... the max at 1 - 1/2 = 0.5, its time 6");
	is_str(sp.name[2], "max", "... named max");
	s.iterations = 11;
	ipc_spectrum_of(&s, &sp);
	ok(sp.q[3] == 1 - 1 / 11.0, "eleven: the max at 1 - 1/11");
	s.iterations = 1000;
	is_uint(ipc_spectrum_of(&s, &sp), "==", 6, "a thousand: all six");
	ok(sp.q[4] == 0.999 && sp.ns[4] == 5 && sp.q[5] == 0.999,
	   "... p99.9 at 0.999, the max at 1 - 1/1000");
	is_str(sp.name[4], "p99.9", "... named p99.9");
}

static void test_wake(void)
{
	struct ipc_wake_tally t = {0};
	static struct ipc_result r;

	memset(&r, 0, sizeof(r));
	ok(!ipc_wake_tally_add(&t, &r) && !t.cases, "0: not counted");
	r.diag.early_wake_vcsw = NAN;
	ok(!ipc_wake_tally_add(&t, &r) && !t.cases, "NaN: not counted");
	r.diag.early_wake_vcsw = 1.5;
	ok(ipc_wake_tally_add(&t, &r), "1.5: counted");
	r.diag.early_wake_vcsw = 1.87;
	ipc_wake_tally_add(&t, &r);
	r.diag.early_wake_vcsw = 1.2;
	ipc_wake_tally_add(&t, &r);
	ok(t.cases == 3 && t.most == 1.87, "three cases, the most 1.87");
}

static void phase(struct ipc_explain_result *x, const char *side,
		  const char *name, double ns, double share)
{
	struct ipc_xphase *p = &x->phases[x->nphases++];

	snprintf(p->name, sizeof(p->name), "%s", name);
	p->side = side;
	p->ns = ns;
	p->share = share;
}

static void test_explain(void)
{
	static struct ipc_explain_result x;
	size_t n = 99;

	memset(&x, 0, sizeof(x));
	ok(ipc_xphase_small_sum(&x, &n) == 0 && n == 0,
	   "no phases: nothing small");
	phase(&x, "client", "send", 1000, 0.5);
	phase(&x, "client", "user", 1.5, 0.00075);
	phase(&x, "server", "user", -1, -0.0005);
	phase(&x, "client", "send", 250, 0.125);
	phase(&x, "kernel", "unexplained", 0.5, 0.00025);
	ok(ipc_xphase_total(&x, &x.phases[0]) == 1250,
	   "client send twice: 1000 + 250");
	ok(ipc_xphase_total(&x, &x.phases[2]) == -1,
	   "server user is not client user");
	ok(!ipc_xphase_small(&x, 0) && ipc_xphase_small(&x, 1) &&
		   ipc_xphase_small(&x, 2),
	   "small: under 0.1%% either way");
	ok(!ipc_xphase_small(&x, 4), "the residue never is, however small");
	ok(ipc_xphase_small_sum(&x, &n) == 0.5 && n == 2,
	   "two small phases, 1.5 - 1 = 0.5 ns in all");
	x.phases[1].share = IPC_XSMALL_SHARE;
	ok(!ipc_xphase_small(&x, 1), "at 0.1%%: not small");
}

static void test_interval(void)
{
	static struct ipc_result r;
	struct ipc_interval iv[2] = {
		{.start_ns = 0, .end_ns = 500000000, .messages = 10},
		{.start_ns = 500000000,
		 .end_ns = 750000000,
		 .messages = 5,
		 .bytes = 4096}};
	struct ipc_interval empty = {.start_ns = 7, .end_ns = 7, .bytes = 9};

	memset(&r, 0, sizeof(r));
	ok(!ival_in_bytes(&r), "no intervals: messages per second");
	r.ivals = iv;
	r.nivals = 1;
	ok(!ival_in_bytes(&r), "none moved payload: messages per second");
	r.nivals = 2;
	ok(ival_in_bytes(&r), "one moved payload: bytes per second");
	ok(ival_rate(&iv[0], false) == 20, "10 messages in 0.5 s: 20/s");
	ok(ival_rate(&iv[0], true) == 0, "no bytes: 0 B/s");
	ok(ival_rate(&iv[1], true) == 16384, "4096 B in 0.25 s: 16384 B/s");
	ok(ival_rate(&empty, true) == 0, "an interval of no length: 0");
}

static void test_compare(void)
{
	struct cpair p = {0};
	struct cphase ph = {.a_ns = 1200, .b_ns = 900};
	struct cmp_diff d;

	d = cmp_pair_diff(&p, false);
	ok(!d.have && !d.have_ci, "no runs: no difference");
	p.cmp.na = 6;
	d = cmp_pair_diff(&p, false);
	ok(!d.have, "runs in A only: no difference");
	p.cmp.nb = 6;
	p.cmp.diff = 256;
	d = cmp_pair_diff(&p, false);
	ok(d.have && !d.have_ci && d.diff == 256,
	   "runs on both sides: B - A, no interval");
	p.cmp.have_diff_ci = true;
	p.v.dlo = -7120;
	p.v.dhi = 8020;
	d = cmp_pair_diff(&p, false);
	ok(d.have_ci && d.lo == -7120 && d.hi == 8020, "... and its interval");
	d = cmp_pair_diff(&p, true);
	ok(!d.have, "per message with no message count: none");
	p.per = 2;
	d = cmp_pair_diff(&p, true);
	ok(d.have && d.diff == 128 && d.lo == -3560 && d.hi == 4010,
	   "per message of 2: each halved");
	ok(cmp_phase_diff(&ph) == -300, "a phase: B - A = 900 - 1200");
}

static void test_matrix(void)
{
	struct mc_cell ca[3] = {{.cas = "rr", .from = "a", .to = "b"},
				{.cas = "rr", .from = "b", .to = "a"},
				{.cas = "rr", .from = "a", .to = "c"}};
	struct mc_cell cb[2] = {{.cas = "rr", .from = "a", .to = "b"},
				{.cas = "rr", .from = "c", .to = "a"}};
	struct ipc_mx_doc a = {.cells = ca, .n = 3}, b = {.cells = cb, .n = 2};
	struct mc_pair p[2] = {{.compared = true, .gate = true},
			       {.failed_b = true, .gate = true}};
	struct mc_tally t;

	p[0].v.verdict = IPC_VERDICT_SLOWER;
	mx_tally(&a, &b, p, 0, &t);
	ok(!t.gates && !t.slower && !t.failed && t.only_a == 3 && t.only_b == 1,
	   "nothing judged: every cell of A unpaired, one of B");
	mx_tally(&a, &b, p, 2, &t);
	ok(t.gates == 2 && t.slower == 1 && t.failed == 1 && t.only_a == 1 &&
		   t.only_b == 1,
	   "one slower, one failed in B, both gates; one only in A, one in B");
	p[0].v.verdict = IPC_VERDICT_FASTER;
	p[0].gate = false;
	mx_tally(&a, &b, p, 1, &t);
	ok(!t.gates && !t.slower && !t.failed, "faster: no gate, not slower");
}

int main(void)
{
	test_col_value();
	test_pct();
	test_cost();
	test_spectrum();
	test_wake();
	test_explain();
	test_interval();
	test_compare();
	test_matrix();
	return done_testing();
}

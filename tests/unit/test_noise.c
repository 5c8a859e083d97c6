/* SPDX-License-Identifier: MIT */
/*
 * Tests of the noise diagnosis: the stopping rule's width test, bimodal
 * detection on constructed and random data (and how rarely it fires on
 * one-mode data), outliers, and a result's diagnosis: flags, CPU cost per
 * message, placement and load.
 */
#include <math.h>

#include "ipcperf/explain.h"
#include "ipcperf/run.h"
#include "../helpers.h"
#include "../tap.h"
#include "explain/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

static void test_target(void)
{
	struct ipc_runs_stats s;
	double half;

	memset(&s, 0, sizeof(s));
	s.median = 100;
	ok(!ipc_runs_target_met(&s, 1, &half) && half == -1,
	   "target: no interval, not met, half-width -1");
	s.have_ci = true;
	s.ci_low = 99.5;
	s.ci_high = 100.5;
	ok(ipc_runs_target_met(&s, 1, &half), "target: ±0.5%% meets 1%%");
	is_near(half, 0.5, 1e-12, "target: half-width 0.5%%");
	ok(ipc_runs_target_met(&s, 0.5, NULL), "target: ±0.5%% meets 0.5%%");
	ok(!ipc_runs_target_met(&s, 0.4, NULL), "target: not 0.4%%");
	s.ci_low = 90;
	s.ci_high = 100.5;
	ok(!ipc_runs_target_met(&s, 1, &half) && fabs(half - 5.25) < 1e-12,
	   "target: an asymmetric interval counts (high - low) / 2");
	s.median = 0;
	ok(!ipc_runs_target_met(&s, 1, &half) && half == -1,
	   "target: a median of 0 never meets a relative target");
	s.median = NAN;
	ok(!ipc_runs_target_met(&s, 1, NULL), "target: NaN median: not met");
}

static void test_modes_constructed(void)
{
	/* The worked example in noise.c: a pipe ping-pong on two CPUs. */
	const double two[] = {5.0,  11.8, 5.1,	5.0, 10.4, 5.1,
			      12.5, 5.2,  10.9, 5.1, 5.2,  11.3};
	double even[12], tight[12], few[9];
	struct ipc_modes m;
	size_t i;

	ipc_runs_modes(two, 12, &m);
	ok(m.bimodal, "modes: 7 runs near 5.1 and 5 near 11.3 are bimodal");
	is_uint(m.nlow, "==", 7, "modes: 7 in the lower group");
	is_uint(m.nhigh, "==", 5, "modes: 5 in the upper group");
	is_near(m.low, 5.1, 1e-12, "modes: lower group's median");
	is_near(m.high, 11.3, 1e-12, "modes: upper group's median");
	ok(m.cut == 5.2, "modes: the cut after the lower group's largest");
	ok(m.score > 9 && m.score < 11, "modes: gap about 10 pooled sds (%g)",
	   m.score);

	for (i = 0; i < 12; i++)
		even[i] = 5.0 + 7.5 * (double)i / 11;
	ipc_runs_modes(even, 12, &m);
	ok(!m.bimodal, "modes: the same range spread evenly is not");

	for (i = 0; i < 12; i++)
		tight[i] =
			100.0 + (i % 2 ? 0.9 : 0); /* two values 0.9% apart */
	ipc_runs_modes(tight, 12, &m);
	ok(!m.bimodal, "modes: two values 0.9%% apart (a histogram bucket) "
		       "are not two modes");

	for (i = 0; i < 9; i++)
		few[i] = i < 5 ? 5.0 + 0.01 * (double)i : 11.0;
	ipc_runs_modes(few, 9, &m);
	ok(!m.bimodal, "modes: fewer than %d runs are never called bimodal",
	   IPC_MODES_MIN_RUNS);

	double one_far[12];
	for (i = 0; i < 12; i++)
		one_far[i] = i ? 5.0 + 0.01 * (double)i : 30.0;
	ipc_runs_modes(one_far, 12, &m);
	ok(!m.bimodal, "modes: one run far out is an outlier, not a mode");
	is_uint(ipc_runs_outliers(one_far, 12, NULL), "==", 1,
		"outliers: ... and is counted as one");
}

/*
 * Random data: two well separated modes are found most of the time, one
 * mode (normal, lognormal, uniform) almost never.  Rates over 1000 trials
 * from a fixed seed; the bounds leave room for chance (binomial sd at 2%
 * is 0.45%).
 */
static void test_modes_random(void)
{
	enum { TRIALS = 1000 };
	static const size_t sizes[] = {10, 20, 30};
	double x[30], u;
	struct ipc_modes m;
	size_t t, i, s, hits;
	int d;

	rng_state = 99;
	for (d = 0; d < 3; d++) {
		for (s = 0; s < 3; s++) {
			hits = 0;
			for (t = 0; t < TRIALS; t++) {
				for (i = 0; i < sizes[s]; i++) {
					u = rng_normal();
					x[i] = d == 0	? 100 + 5 * u
					       : d == 1 ? 50 * exp(0.5 * u)
							: 90 + 20 * rng_unit();
				}
				ipc_runs_modes(x, sizes[s], &m);
				hits += m.bimodal;
			}
			ok(hits <= TRIALS * (sizes[s] == 10 ? 5 : 1) / 100,
			   "modes: %s n = %zu called bimodal %zu times in %d",
			   d == 0   ? "normal"
			   : d == 1 ? "lognormal"
				    : "uniform",
			   sizes[s], hits, TRIALS);
		}
	}
	/* 70% near 10 (sd 1), 30% near 100 (sd 5), as in test_runs.c. */
	for (s = 1; s < 3; s++) {
		hits = 0;
		for (t = 0; t < TRIALS; t++) {
			for (i = 0; i < sizes[s]; i++)
				x[i] = rng_unit() < 0.7
					       ? 10 + rng_normal()
					       : 100 + 5 * rng_normal();
			ipc_runs_modes(x, sizes[s], &m);
			hits += m.bimodal;
		}
		ok(hits >= TRIALS * 80 / 100,
		   "modes: 70/30 mixture n = %zu found %zu times in %d",
		   sizes[s], hits, TRIALS);
	}
}

static void test_outliers(void)
{
	double x[10], y[10];
	bool far[10];
	size_t i;

	for (i = 0; i < 10; i++)
		x[i] = 100 + 0.1 * (double)(i % 3);
	x[7] = 150;
	is_uint(ipc_runs_outliers(x, 10, far), "==", 1,
		"outliers: one run 50%% off among tight ones");
	ok(far[7] && !far[0] && !far[9], "outliers: ... marked at its index");

	for (i = 0; i < 10; i++)
		y[i] = 100;
	y[3] = 101; /* MAD 0: only the 3% floor keeps this from counting */
	is_uint(ipc_runs_outliers(y, 10, NULL), "==", 0,
		"outliers: 1%% off with every other run identical is not one");
	y[3] = 104;
	is_uint(ipc_runs_outliers(y, 10, NULL), "==", 1,
		"outliers: 4%% off is");
	is_uint(ipc_runs_outliers(y, 4, NULL), "==", 0,
		"outliers: none called from fewer than 5 runs");
	y[5] = NAN;
	is_uint(ipc_runs_outliers(y, 10, NULL), "==", 1,
		"outliers: NaN is left out, not counted");
}

/* A result of @n rr runs with p50 @p50s[i], costs and placement set. */
static struct ipc_result *mk_result(const double *p50s, size_t n,
				    const int *server_cpu)
{
	struct ipc_case cs = {.pat = &ipc_pattern_rr,
			      .tp = ipc_transport_find("pipe"),
			      .eng = ipc_engine_find("blocking"),
			      .req_size = 1,
			      .resp_size = 1};
	struct ipc_result *res = ipc_result_new(&cs);
	size_t i;

	if (!res)
		abort();
	res->runs = calloc(n, sizeof(*res->runs));
	if (!res->runs)
		abort();
	res->nruns = res->runs_cap = n;
	ipc_runopts_default(&res->ro);
	for (i = 0; i < n; i++) {
		struct ipc_run_stats *r = &res->runs[i];

		r->iterations = r->messages = 1000;
		r->bytes = 2000;
		r->elapsed_ns = (uint64_t)(p50s[i] * 1000);
		r->lat.p50 = (uint64_t)p50s[i];
		r->loop_msgs = 1100;
		r->client = (struct ipc_side_cost){.valid = true,
						   .user_ns = 1100 * 500,
						   .sys_ns = 1100 * 1500,
						   .vcsw = 1100,
						   .ivcsw = 11,
						   .cycles = -1,
						   .instructions = -1,
						   .migrations = -1,
						   .cpu_start = 0,
						   .cpu_end = 0};
		r->server = r->client;
		r->server.sys_ns = 1100 * 2500;
		r->server.cpu_end = server_cpu ? server_cpu[i] : 1;
		r->wall_ns = 10000000;
		r->ours_ns = 8000000;
		r->busy_ns = 8000000;
		r->load_cpus = 2;
		r->have_load = true;
	}
	return res;
}

static void test_diagnose(void)
{
	const double tight[8] = {5000, 5010, 5005, 4995,
				 5000, 5002, 4998, 5001};
	double two[12];
	int cpus[12];
	struct ipc_result *res;
	size_t i;

	res = mk_result(tight, 8, NULL);
	ipc_result_diagnose(res, IPC_STOP_TARGET, 0.5);
	ok(res->diag.target_met && res->diag.flags == 0,
	   "diagnose: tight runs meet the target, no flag");
	is_near(res->diag.estimate, 5000.5, 1e-12,
		"diagnose: the estimate is the median of the runs' p50");
	is_str(ipc_metric_name(res), "p50_ns", "diagnose: rr's metric");
	ok(res->diag.client.valid && res->diag.server.valid,
	   "diagnose: both sides' cost");
	is_near(res->diag.client.user_ns, 500, 1e-12,
		"diagnose: client user ns per message");
	is_near(res->diag.server.sys_ns, 2500, 1e-12,
		"diagnose: server system ns per message");
	is_near(res->diag.client.vcsw, 1.0, 1e-12,
		"diagnose: voluntary switches per message");
	ok(res->diag.client.cycles == -1,
	   "diagnose: no cycles when not counted");
	is_uint(res->diag.split_cpu_runs, "==", 8,
		"diagnose: sides on two CPUs in every run");
	ok(res->diag.have_load && res->diag.other_cpus == 0,
	   "diagnose: no other load when busy == ours");
	ok(res->diag.loadavg_1m == 0.5, "diagnose: load average kept");
	ipc_result_free(res);

	res = mk_result(tight, 8, NULL);
	res->ro.ci_pct = 0.01;
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, -1);
	ok(res->diag.flags == 1u << IPC_FLAG_UNSTABLE,
	   "diagnose: a target too tight to meet: unstable");
	ipc_result_free(res);

	res = mk_result(tight, 3, NULL);
	res->ro.runs_auto = false;
	ipc_result_diagnose(res, IPC_STOP_RUNS, -1);
	ok(!(res->diag.flags & 1u << IPC_FLAG_UNSTABLE),
	   "diagnose: -r 3 gives no interval and is not called unstable");
	ipc_result_free(res);

	/* Two groups that follow placement: one CPU fast, two CPUs slow. */
	for (i = 0; i < 12; i++) {
		two[i] = i % 3 ? 5000 + (double)(i * 7) : 11000 + (double)i;
		cpus[i] = i % 3 ? 0 : 1;
	}
	res = mk_result(two, 12, cpus);
	for (i = 0; i < 12; i += 4)
		res->runs[i].busy_ns = 14000000; /* 3 runs, 6 ms of others */
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	ok(res->diag.flags & 1u << IPC_FLAG_BIMODAL, "diagnose: bimodal");
	ok(res->diag.flags & 1u << IPC_FLAG_UNSTABLE, "diagnose: unstable");
	ok(!(res->diag.flags & 1u << IPC_FLAG_OUTLIERS),
	   "diagnose: the upper group is not called outliers");
	is_uint(res->diag.mode_same[0], "==", 8,
		"diagnose: the fast group ran on one CPU");
	is_uint(res->diag.mode_split[1], "==", 4,
		"diagnose: the slow group on two");
	is_near(res->diag.other_cpus, 0.15, 1e-9,
		"diagnose: others kept 18 ms of 120 busy: 0.15 CPUs");
	ok(!(res->diag.flags & 1u << IPC_FLAG_LOAD),
	   "diagnose: 0.15 CPUs is under the load flag's threshold");
	/*
	 * 0.4 CPUs of others in 12 runs of 10 ms: /proc/stat's 10 ms ticks
	 * cannot tell that, in 12 runs of 1 s they can.
	 */
	for (i = 0; i < 12; i++)
		res->runs[i].busy_ns = 12000000;
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	ok(!(res->diag.flags & 1u << IPC_FLAG_LOAD) &&
		   (res->diag.flags & 1u << IPC_FLAG_SHORT),
	   "diagnose: 0.4 CPUs over 120 ms of runs: too short to tell");
	is_near(res->diag.load_res_cpus, 0.6236, 1e-3,
		"diagnose: 2 CPUs, 12 runs, 120 ms: the figure is +-0.62");
	for (i = 0; i < 12; i++) {
		res->runs[i].wall_ns = 1000000000;
		res->runs[i].ours_ns = 800000000;
		res->runs[i].busy_ns = 1200000000;
	}
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	ok((res->diag.flags & 1u << IPC_FLAG_LOAD) &&
		   !(res->diag.flags & 1u << IPC_FLAG_SHORT),
	   "diagnose: 0.4 CPUs of others over 12 s of runs: load");
	for (i = 0; i < 12; i++)
		res->runs[i].wall_ns = 10000000;
	res->runs[0].client.valid = false;
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	ok(res->diag.client.valid && res->diag.client.user_ns == 500,
	   "diagnose: a run without the client's cost is left out of it");

	/*
	 * The same 0.4 CPUs read from cpuidle: its error is the stays under
	 * way at each end, 625 us at most per CPU and end (a variance of
	 * 2 x 625^2 / 6 us^2 per run of 2 CPUs, and 2 x 10^2 / 6 for the
	 * readings' skew): over 12 runs of 10 ms, +-0.021 CPUs, enough to
	 * call it load.
	 */
	for (i = 0; i < 12; i++) {
		res->runs[i].wall_ns = 10000000;
		res->runs[i].ours_ns = 8000000;
		res->runs[i].busy_ns = 12000000;
		res->runs[i].load_src = IPC_LOAD_SRC_CPUIDLE;
	}
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	is_near(res->diag.load_res_cpus, 0.020836, 1e-4,
		"diagnose: cpuidle, 12 runs of 10 ms: +-0.021 CPUs");
	ok((res->diag.flags & 1u << IPC_FLAG_LOAD) &&
		   !(res->diag.flags & 1u << IPC_FLAG_SHORT) &&
		   res->diag.load_src == IPC_LOAD_SRC_CPUIDLE,
	   "diagnose: cpuidle tells 0.4 CPUs over 10 ms runs: load");
	/*
	 * 1000 idle stays a run cost 0.7 ms of the idle loop's, ours: the
	 * figure drops by 0.07 CPUs, and its error grows by as much.
	 */
	for (i = 0; i < 12; i++)
		res->runs[i].idle_stays = 1000;
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	is_near(res->diag.other_cpus, 0.33, 1e-9,
		"diagnose: cpuidle: the idle stays' cost is ours");
	is_near(res->diag.load_res_cpus, 0.090836, 1e-4,
		"diagnose: cpuidle: and counts whole in the error");
	/* The kernel's workers ran 4 ms of each run: no other load. */
	for (i = 0; i < 12; i++) {
		res->runs[i].idle_stays = 0;
		res->runs[i].kernel_ns = 4000000;
	}
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	ok(res->diag.other_cpus == 0 &&
		   !(res->diag.flags &
		     (1u << IPC_FLAG_LOAD | 1u << IPC_FLAG_SHORT)),
	   "diagnose: the kernel's workers are not another load");
	/*
	 * cpuacct: a task that runs through a reading is charged up to a
	 * tick (4 ms) late, at each end on as many CPUs as others keep
	 * busy: 0.4 CPUs, 12 runs of 10 ms: 2 sqrt(12 x 2 x 0.4 x 4^2 / 3)
	 * ms / 120 ms = +-0.119 (and the readings' skew).
	 */
	for (i = 0; i < 12; i++) {
		res->runs[i].kernel_ns = 0;
		res->runs[i].load_src = IPC_LOAD_SRC_CPUACCT;
	}
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	is_near(res->diag.load_res_cpus, 0.1192574, 1e-4,
		"diagnose: cpuacct, 0.4 CPUs, 12 runs of 10 ms: +-0.12");
	ok((res->diag.flags & 1u << IPC_FLAG_LOAD) &&
		   res->diag.load_src == IPC_LOAD_SRC_CPUACCT,
	   "diagnose: cpuacct tells 0.4 CPUs over 10 ms runs: load");
	/* Each run's error goes either way: none is left out. */
	for (i = 0; i < 12; i++)
		res->runs[i].busy_ns = i % 2 ? 6000000 : 10000000;
	res->runs[0].load_src = IPC_LOAD_SRC_STAT;
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, 2.0);
	ok(res->diag.other_cpus == 0 &&
		   res->diag.load_src == IPC_LOAD_SRC_MIXED,
	   "diagnose: runs under and over ours cancel; the sources mixed");
	ipc_result_free(res);

	/* One run of 3 ms and two ticks of others: never 6.67 of 2 CPUs. */
	res = mk_result(tight, 1, NULL);
	res->runs[0].wall_ns = 3000000;
	res->runs[0].ours_ns = 0;
	res->runs[0].busy_ns = 20000000;
	ipc_result_diagnose(res, IPC_STOP_RUNS, -1);
	is_near(res->diag.other_cpus, 2, 1e-12,
		"diagnose: no more CPUs of others than the machine has");
	ok((res->diag.flags & 1u << IPC_FLAG_SHORT) &&
		   !(res->diag.flags & 1u << IPC_FLAG_LOAD),
	   "diagnose: a 3 ms run is too short to call load");
	ipc_result_free(res);

	res = mk_result(tight, 0, NULL);
	ipc_result_diagnose(res, IPC_STOP_INTERRUPTED, -1);
	ok(res->diag.flags == 0 && !res->diag.client.valid &&
		   !res->diag.have_load,
	   "diagnose: no runs, nothing flagged or made up");
	ipc_result_free(res);
}

/*
 * With --explain, the flags about the runs' spread name what the slower
 * runs spent their extra time on: here the server's wait for a CPU.
 */
static void test_diagnose_cause(void)
{
	double two[12];
	int cpus[12];
	struct ipc_result *res;
	struct ipc_explain_result *x;
	unsigned rq = IPC_XPHASES;
	bool good;
	size_t i;

	for (unsigned ph = 0; ph < IPC_XPHASES; ph++)
		if (ipc_explain_phase_name(ph) &&
		    !strcmp(ipc_explain_phase_name(ph), "wake-up: run queue"))
			rq = ph;
	ok(rq < IPC_XPHASES, "cause: the run-queue phase is known");
	if (rq == IPC_XPHASES)
		return;
	for (i = 0; i < 12; i++) {
		two[i] = i % 3 ? 5000 + (double)(i * 7) : 11000 + (double)i;
		cpus[i] = 0;
	}
	res = mk_result(two, 12, cpus);
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, -1);
	ok(!strstr(res->diag.why[IPC_FLAG_BIMODAL], "--explain"),
	   "cause: none said without --explain");
	x = ipc_explain_result_new();
	x->available = true;
	x->runs = calloc(12, sizeof(*x->runs));
	x->nruns = x->runs_cap = 12;
	for (i = 0; i < 12; i++) {
		x->runs[i].mean_ns = two[i];
		x->runs[i].ns[IPC_XCLIENT][0] = 1000;
		x->runs[i].ns[IPC_XSERVER][rq] = i % 3 ? 200 : 6200;
	}
	x->nphases = 1;
	snprintf(x->phases[0].name, sizeof(x->phases[0].name), "%s",
		 "wake-up: run queue");
	x->phases[0].side = "server";
	snprintf(x->phases[0].behind, sizeof(x->phases[0].behind), "%s",
		 "hog (pid 42)");
	res->explain = x;
	ipc_result_diagnose(res, IPC_STOP_MAX_RUNS, -1);
	ok(res->diag.flags & 1u << IPC_FLAG_BIMODAL, "cause: bimodal");
	good = strstr(res->diag.why[IPC_FLAG_BIMODAL],
		      "; --explain: the slower 4 of 12 runs took 5.96 µs more "
		      "a round trip, 6.00 µs of it server wake-up: run "
		      "queue, behind hog (pid 42)") != NULL;
	ok(good, "cause: bimodal's why names the two groups' difference, "
		 "the server's run-queue wait and whom it waited behind");
	if (!good)
		diag("why: %s", res->diag.why[IPC_FLAG_BIMODAL]);
	is_str(x->cause,
	       "the slower 4 of 12 runs took 5.96 µs more a round trip, 6.00 "
	       "µs of it server wake-up: run queue, behind hog (pid 42)",
	       "cause: kept in the explanation too, for its own line");
	ok(!(res->diag.flags & 1u << IPC_FLAG_UNSTABLE) ||
		   strstr(res->diag.why[IPC_FLAG_UNSTABLE], "server wake-up"),
	   "cause: and so does unstable's, when it is flagged");
	ipc_result_free(res);
}

int main(void)
{
	test_target();
	test_modes_constructed();
	test_modes_random();
	test_outliers();
	test_diagnose();
	test_diagnose_cause();
	return done_testing();
}

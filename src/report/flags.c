/* SPDX-License-Identifier: MIT */
/*
 * The diagnosis in words, shared by every formatter: each flag's name, the
 * hint that says what to do about it, and the sentence that says why this
 * result has it.  Also the metric and cost units in words.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/report.h"

static const struct {
	const char *name, *hint;
} flags[IPC_FLAG_COUNT] = {
	[IPC_FLAG_UNSTABLE] = {"unstable",
			       "more runs (--max-runs, --budget), --pin, or "
			       "a quieter machine"},
	[IPC_FLAG_BIMODAL] = {"bimodal",
			      "unpinned, the scheduler placed the sides "
			      "differently from run to run: --pin split or "
			      "--pin same; pinned, the channel or the machine "
			      "ran at two speeds: rerun, and report both"},
	[IPC_FLAG_OUTLIERS] = {"outliers",
			       "something ran alongside for a while: rerun, "
			       "or find the other load"},
	[IPC_FLAG_LOAD] = {"load",
			   "stop the other load, or expect noise in these "
			   "numbers"},
	[IPC_FLAG_SHORT] = {"short",
			    "measure longer (-d 1s, a larger -n) to let "
			    "ipcperf check the machine's load"},
	[IPC_FLAG_SHARED] = {"shared",
			     "the server measured other clients meanwhile: "
			     "rerun when it is alone, or --max-clients 1 "
			     "there"},
	[IPC_FLAG_REFUSED] = {"refused",
			      "find what connects to ipcperf's ports "
			      "(ss -tnp) and rerun without it"},
};

/*
 * Where a flag's general hint above would be untrue for a result, the
 * hint that is, by id (1, 2, ...; the general one is 0), with a label
 * saying when it applies for a table that prints several of a kind.
 */
enum {
	HINT_FIXED_RUNS = 1, /* unstable after -r N: --max-runs is moot */
	HINT_OUT_OF_REACH,   /* unstable, stopped out of reach */
	HINT_IN_SUITE,	     /* short in the quick suite: -d is moot */
};
_Static_assert(
	HINT_IN_SUITE < IPC_FLAG_HINT_IDS,
	"a table keeps the hint ids it prints in IPC_FLAG_HINT_IDS bits");

static const struct {
	enum ipc_flag_kind kind;
	unsigned id;
	const char *label, *hint;
} variants[] = {
	{IPC_FLAG_UNSTABLE, HINT_FIXED_RUNS, "-r N",
	 "more runs (a larger -r, or -r auto to run to the target), --pin, "
	 "or a quieter machine"},
	/*
	 * Stopped because even --max-runs runs would leave the interval
	 * above twice the target: a larger --max-runs or --budget buys
	 * little; what the runs disagree about does.
	 */
	{IPC_FLAG_UNSTABLE, HINT_OUT_OF_REACH, "out-of-reach",
	 "more runs would not bring it to the target, its runs disagree too "
	 "much: see its bimodal or outliers flag if any, try another --pin, "
	 "or rerun on a quiet machine"},
	/*
	 * The quick suite sizes its runs itself (rr 10 ms, stream 20 ms);
	 * the load figure's resolution grows with the time of all runs.
	 */
	{IPC_FLAG_SHORT, HINT_IN_SUITE, "quick suite",
	 "the suite's runs are short by design: more of them (--max-runs, "
	 "--budget), or measure the case alone with -d 1s"},
};

unsigned ipc_flag_hint_id(const struct ipc_result *res, enum ipc_flag_kind kind,
			  bool suite)
{
	switch (kind) {
	case IPC_FLAG_UNSTABLE:
		if (res->diag.stop == IPC_STOP_OUT_OF_REACH)
			return HINT_OUT_OF_REACH;
		if (res->diag.stop == IPC_STOP_RUNS)
			return HINT_FIXED_RUNS;
		return 0;
	case IPC_FLAG_SHORT:
		return suite ? HINT_IN_SUITE : 0;
	default:
		return 0;
	}
}

const char *ipc_flag_hint_text(enum ipc_flag_kind kind, unsigned id,
			       const char **label)
{
	size_t i;

	if (label)
		*label = "";
	if ((unsigned)kind >= IPC_FLAG_COUNT)
		return NULL;
	if (!id)
		return flags[kind].hint;
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (variants[i].kind == kind && variants[i].id == id) {
			if (label)
				*label = variants[i].label;
			return variants[i].hint;
		}
	return NULL;
}

const char *ipc_flag_hint_for(const struct ipc_result *res,
			      enum ipc_flag_kind kind, bool suite)
{
	const char *h = ipc_flag_hint_text(
		kind, ipc_flag_hint_id(res, kind, suite), NULL);

	return h ? h : ipc_flag_hint(kind);
}

const char *ipc_flag_name(enum ipc_flag_kind kind)
{
	return (unsigned)kind < IPC_FLAG_COUNT ? flags[kind].name : "?";
}

const char *ipc_flag_hint(enum ipc_flag_kind kind)
{
	return (unsigned)kind < IPC_FLAG_COUNT ? flags[kind].hint : "";
}

char *ipc_fmt_metric(const struct ipc_result *res, double v, char *buf,
		     size_t len)
{
	return ipc_fmt_value(ipc_result_metric(res)->fmt, v, buf, len);
}

char *ipc_fmt_value(enum ipc_fmt fmt, double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (fmt) {
	case IPC_FMT_BYTES:
		return ipc_fmt_bytes(v, buf, len);
	case IPC_FMT_NS:
		return ipc_fmt_ns(v, buf, len);
	case IPC_FMT_RATE:
		return ipc_fmt_rate(v, buf, len);
	case IPC_FMT_BPS:
		return ipc_fmt_bps(v, buf, len);
	default:
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
}

/*
 * Voluntary switches (the side blocked) count, not involuntary ones: a
 * preemption by another load is not this, and would trip the threshold
 * on a busy machine.  A blocking round trip blocks once a side; the slow
 * runs of docs/methodology.md blocked 1.35 to 1.5 times, the bare loop's
 * fast ones 1.00 (ipcperf's peer up to 1.24 in rounds of mostly fast
 * runs: the early wake-up was there, and mostly won its race).
 */
bool ipc_result_early_wake(const struct ipc_result *res, double *vcsw)
{
	const struct ipc_case *cs = &res->cs;
	const struct ipc_diag *d = &res->diag;
	double most = -1;
	bool two;

	if (!cs->pat || !cs->tp || !cs->eng || strcmp(cs->pat->name, "rr") ||
	    strcmp(cs->eng->name, "blocking") ||
	    (strcmp(cs->tp->name, "unix") &&
	     strcmp(cs->tp->name, "socketpair")))
		return false;
	two = cs->place.cpus == IPC_CPUS_TWO ||
	      (cs->place.cpus == IPC_CPUS_ANY &&
	       d->split_cpu_runs > d->same_cpu_runs);
	if (!two)
		return false;
	if (d->client.valid)
		most = d->client.vcsw;
	if (d->server.valid && d->server.vcsw > most)
		most = d->server.vcsw;
	if (vcsw)
		*vcsw = most;
	return most > IPC_EARLY_WAKE_VCSW;
}

const char *ipc_cost_unit(const struct ipc_result *res)
{
	return res->cs.pat && res->cs.pat->cost_per ? res->cs.pat->cost_per
						    : "message";
}

/* "95%" without a needless ".0". */
static void pct_word(double frac, char *buf, size_t len)
{
	double v = frac * 100;

	if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, len, "%.0f%%", v);
	else
		snprintf(buf, len, "%g%%", v);
}

/* A half-width in %: "0.53", "2.5", "40". */
static void half_word(double pct, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f", pct < 10 ? 2 - (pct >= 1) : 0, pct);
}

/* What the runs of @res disagree by: their groups, outliers or spread. */
static void disagreement(const struct ipc_result *res, char *buf, size_t len)
{
	const struct ipc_diag *d = &res->diag;
	char a[32], b[32];

	if (d->modes.bimodal)
		snprintf(buf, len, "in two groups, %zu near %s and %zu near %s",
			 d->modes.nlow,
			 ipc_fmt_metric(res, d->modes.low, a, sizeof(a)),
			 d->modes.nhigh,
			 ipc_fmt_metric(res, d->modes.high, b, sizeof(b)));
	else if (d->outliers)
		snprintf(buf, len, "%zu of them far from the median of %s",
			 d->outliers,
			 ipc_fmt_metric(res, d->estimate, a, sizeof(a)));
	else if (isfinite(res->metric.cv) && res->metric.cv > 0)
		snprintf(buf, len, "a run-to-run CV of %.1f%%",
			 res->metric.cv * 100);
	else
		buf[0] = '\0';
}

/*
 * Out of reach: the interval, what --max-runs runs would leave of it (the
 * scheduler's own estimate), and what the runs disagree by.
 */
static void why_out_of_reach(const struct ipc_result *res, const char *lvl,
			     char *buf, size_t len)
{
	const struct ipc_diag *d = &res->diag;
	const struct ipc_runopts *ro = &res->ro;
	double reach = ipc_sched_reach_pct(ro, res->nruns, d->half_pct);
	char half[16], at_max[16], what[128];
	size_t n;

	half_word(d->half_pct, half, sizeof(half));
	half_word(reach, at_max, sizeof(at_max));
	disagreement(res, what, sizeof(what));
	n = (size_t)snprintf(buf, len,
			     "%s CI ±%s%% after %zu runs, about ±%s%% at %u, "
			     "against a target of ±%g%%: the runs disagree too "
			     "much for more runs to reach it",
			     lvl, half, res->nruns, at_max,
			     ipc_sched_max_runs(ro), ro->ci_pct);
	if (what[0] && n < len)
		snprintf(buf + n, len - n, " (%s)", what);
}

static void why_unstable(const struct ipc_result *res, char *buf, size_t len)
{
	const struct ipc_diag *d = &res->diag;
	const struct ipc_runopts *ro = &res->ro;
	char lvl[16], after[64], half[16];
	const char *s = res->nruns == 1 ? "" : "s";

	pct_word(res->metric.ci_level > 0 ? res->metric.ci_level : 0.95, lvl,
		 sizeof(lvl));
	if (d->stop == IPC_STOP_OUT_OF_REACH && d->half_pct >= 0 &&
	    res->nruns) {
		why_out_of_reach(res, lvl, buf, len);
		return;
	}
	switch (d->stop) {
	case IPC_STOP_MAX_RUNS:
		snprintf(after, sizeof(after), "after %zu run%s (--max-runs)",
			 res->nruns, s);
		break;
	case IPC_STOP_BUDGET:
		snprintf(after, sizeof(after),
			 "after %zu run%s, when the budget ran out", res->nruns,
			 s);
		break;
	default:
		snprintf(after, sizeof(after), "from %zu run%s", res->nruns, s);
		break;
	}
	if (d->half_pct >= 0) {
		half_word(d->half_pct, half, sizeof(half));
		snprintf(buf, len, "%s CI ±%s%% %s; the target is ±%g%%", lvl,
			 half, after, ro->ci_pct);
	} else {
		snprintf(buf, len, "no %s interval %s; the target is ±%g%%",
			 lvl, after, ro->ci_pct);
	}
}

static void why_bimodal(const struct ipc_result *res, char *buf, size_t len)
{
	const struct ipc_diag *d = &res->diag;
	char lo[32], hi[32];
	size_t known[2], n;
	int g, one = -1;

	ipc_fmt_metric(res, d->modes.low, lo, sizeof(lo));
	ipc_fmt_metric(res, d->modes.high, hi, sizeof(hi));
	n = (size_t)snprintf(buf, len,
			     "runs in two groups: %zu near %s, %zu "
			     "near %s",
			     d->modes.nlow, lo, d->modes.nhigh, hi);
	/*
	 * Say how the groups ran when placement explains them: at least 80%
	 * of each group's runs with both sides on one CPU in one group and
	 * on two CPUs in the other.
	 */
	for (g = 0; g < 2; g++)
		known[g] = d->mode_same[g] + d->mode_split[g];
	if (!known[0] || !known[1] || n >= len)
		return;
	for (g = 0; g < 2; g++)
		if (d->mode_same[g] * 5 >= known[g] * 4 &&
		    d->mode_split[!g] * 5 >= known[!g] * 4)
			one = g;
	if (one >= 0)
		snprintf(buf + n, len - n,
			 "; the runs near %s had both sides on one CPU, those "
			 "near %s on two",
			 one ? hi : lo, one ? lo : hi);
}

char *ipc_flag_why(const struct ipc_result *res, enum ipc_flag_kind kind,
		   char *buf, size_t len)
{
	const struct ipc_diag *d = &res->diag;
	char med[32];
	size_t n;

	buf[0] = '\0';
	switch (kind) {
	case IPC_FLAG_UNSTABLE:
		why_unstable(res, buf, len);
		break;
	case IPC_FLAG_BIMODAL:
		why_bimodal(res, buf, len);
		break;
	case IPC_FLAG_OUTLIERS:
		snprintf(buf, len,
			 "%zu of %zu runs lie far from the median of %s",
			 d->outliers, res->nruns,
			 ipc_fmt_metric(res, d->estimate, med, sizeof(med)));
		break;
	case IPC_FLAG_LOAD:
		n = (size_t)snprintf(buf, len,
				     "other processes kept %.2f CPUs busy "
				     "during the runs",
				     d->other_cpus);
		if (d->steal_cpus >= IPC_LOAD_STEAL_CPUS && n < len)
			n += (size_t)snprintf(buf + n, len - n,
					      ", the hypervisor took %.2f "
					      "(steal)",
					      d->steal_cpus);
		if (d->loadavg_1m >= 0 && n < len)
			snprintf(buf + n, len - n, "; load average %.2f",
				 d->loadavg_1m);
		break;
	case IPC_FLAG_SHORT:
		snprintf(buf, len,
			 "the runs were too short to tell whether other "
			 "processes used the CPUs: %s, so the figure is "
			 "%.2f ± %.2f CPUs",
			 d->load_src == IPC_LOAD_SRC_CPUIDLE
				 ? "cpuidle cannot tell the idle loop's time "
				   "from others'"
			 : d->load_src == IPC_LOAD_SRC_CPUACCT ||
					 d->load_src == IPC_LOAD_SRC_CGROUP2
				 ? "the scheduler charges a running task up "
				   "to a tick late"
				 : "/proc/stat counts CPU time in ticks",
			 fmax(d->other_cpus, d->steal_cpus), d->load_res_cpus);
		break;
	case IPC_FLAG_SHARED:
		snprintf(buf, len,
			 "the server ran up to %llu other test%s during a run",
			 (unsigned long long)res->peer_others,
			 res->peer_others == 1 ? "" : "s");
		break;
	case IPC_FLAG_REFUSED:
		snprintf(buf, len,
			 "%llu connection%s to the measured port without the "
			 "run's token (another process's) %s refused; the "
			 "server's time on them may show in the figures",
			 (unsigned long long)res->refused,
			 res->refused == 1 ? "" : "s",
			 res->refused == 1 ? "was" : "were");
		break;
	default:
		break;
	}
	return buf;
}

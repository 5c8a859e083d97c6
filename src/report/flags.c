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

static void why_unstable(const struct ipc_result *res, char *buf, size_t len)
{
	const struct ipc_diag *d = &res->diag;
	const struct ipc_runopts *ro = &res->ro;
	char lvl[16], after[64];
	const char *s = res->nruns == 1 ? "" : "s";

	pct_word(res->metric.ci_level > 0 ? res->metric.ci_level : 0.95, lvl,
		 sizeof(lvl));
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
	case IPC_STOP_OUT_OF_REACH:
		snprintf(after, sizeof(after),
			 "after %zu run%s, too wide for %u to narrow",
			 res->nruns, s,
			 ro->max_runs ? ro->max_runs : IPC_MAX_RUNS_DEFAULT);
		break;
	default:
		snprintf(after, sizeof(after), "from %zu run%s", res->nruns, s);
		break;
	}
	if (d->half_pct >= 0)
		snprintf(buf, len, "%s CI ±%.*f%% %s; the target is ±%g%%", lvl,
			 d->half_pct < 10 ? 2 - (d->half_pct >= 1) : 0,
			 d->half_pct, after, ro->ci_pct);
	else
		snprintf(buf, len, "no %s interval %s; the target is ±%g%%",
			 lvl, after, ro->ci_pct);
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

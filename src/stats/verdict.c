/* SPDX-License-Identifier: MIT */
/*
 * The one rule that turns a comparison's test and interval into a verdict,
 * with the drift between invocations allowed for where the data cannot
 * show it.  docs/methodology.md, "Two levels", has the reasons.
 */
#include <math.h>

#include "ipcperf/stats.h"
#include "stats/lib_internal.h"

/* The normal quantile of a two-sided 95% interval. */
#define Z95 1.959963984540054

const char *ipc_verdict_name(enum ipc_verdict v)
{
	switch (v) {
	case IPC_VERDICT_FASTER:
		return "faster";
	case IPC_VERDICT_SLOWER:
		return "slower";
	case IPC_VERDICT_UNDECIDED:
		return "undecided";
	case IPC_VERDICT_SAME:
		break;
	}
	return "no significant difference";
}

/*
 * The drift to widen a comparison of one invocation on a side by (sd of
 * the log of an invocation's value): the larger of what the sides with
 * several invocations measured and what was given, else the default.
 */
static double drift_of(const struct ipc_cmp *m, double given_pct,
		       enum ipc_drift_src *src)
{
	double d = fmax(m->drift_a, m->drift_b);

	*src = IPC_DRIFT_MEASURED;
	if (given_pct >= 0 && log1p(given_pct / 100) >= d) {
		d = log1p(given_pct / 100);
		*src = IPC_DRIFT_GIVEN;
	} else if (d < 0) {
		d = log1p(IPC_DRIFT_DEFAULT_PCT / 100);
		*src = IPC_DRIFT_DEFAULT;
	}
	return d;
}

/*
 * Widen @j's intervals in log terms by the drift of each side that has
 * one invocation: sqrt(h^2 + (z d)^2) for each half h.
 */
static void widen(const struct ipc_cmp *m, struct ipc_judgement *j)
{
	double w = Z95 * j->drift *
		   sqrt((m->ka == 1 ? 1.0 : 0.0) + (m->kb == 1 ? 1.0 : 0.0));
	double h;

	j->allow_pct = expm1(w) * 100;
	if (!m->have_ci || !(m->ci_low > 0) || !(m->ratio > 0))
		return;
	h = log(m->ratio) - log(m->ci_low);
	j->lo = m->ratio * exp(-sqrt(h * h + w * w));
	h = log(m->ci_high) - log(m->ratio);
	j->hi = m->ratio * exp(sqrt(h * h + w * w));
	/* The difference: the same drift, in A's unit. */
	if (m->have_diff_ci) {
		w *= m->median_a;
		h = m->diff - m->diff_low;
		j->dlo = m->diff - sqrt(h * h + w * w);
		h = m->diff_high - m->diff;
		j->dhi = m->diff + sqrt(h * h + w * w);
	}
}

void ipc_judge(const struct ipc_cmp *m, bool higher_better,
	       double threshold_pct, double drift_pct,
	       struct ipc_judgement *out)
{
	struct ipc_judgement *j = out;
	double alpha = 1 - m->level;
	bool both = m->na && m->nb;

	*j = (struct ipc_judgement){
		.have_ci = m->have_ci,
		.lo = m->ci_low,
		.hi = m->ci_high,
		.dlo = m->diff_low,
		.dhi = m->diff_high,
		.drift = -1,
		.change_pct = m->have_ratio ? (m->ratio - 1) * 100 : 0,
	};
	if (m->ka >= 2 && m->kb >= 2) {
		j->basis = IPC_BASIS_INVOCATIONS;
		j->p = m->inv_p;
		j->p_min = m->inv_p_min;
	} else {
		j->p = m->p;
		j->p_min = m->p_min;
		j->drift = drift_of(m, drift_pct, &j->src);
		j->basis = j->src == IPC_DRIFT_DEFAULT ? IPC_BASIS_ALLOWED
						       : IPC_BASIS_WIDENED;
		j->runs_differ = j->p < alpha && m->have_ci &&
				 (m->ci_low > 1 || m->ci_high < 1);
		widen(m, j);
	}
	j->few = both && j->p_min >= alpha;
	j->differ = j->p < alpha && j->have_ci && (j->lo > 1 || j->hi < 1);
	j->beyond = fabs(j->change_pct) >= threshold_pct;
	j->verdict = IPC_VERDICT_SAME;
	/*
	 * A test that could not have found a difference (3 against 3: p is
	 * at least 0.1) found none; that is not "no difference".  Nor is a
	 * difference of the runs that only a drift nobody measured or gave
	 * could explain.
	 */
	if (j->few && m->have_ratio)
		j->verdict = IPC_VERDICT_UNDECIDED;
	else if (j->differ && j->beyond)
		j->verdict = (m->ratio > 1) != higher_better
				     ? IPC_VERDICT_SLOWER
				     : IPC_VERDICT_FASTER;
	else if (j->basis == IPC_BASIS_ALLOWED && j->runs_differ && j->beyond)
		j->verdict = IPC_VERDICT_UNDECIDED;
}

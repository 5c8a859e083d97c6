/* SPDX-License-Identifier: MIT */
/*
 * The figures formatters print that follow from a result's stored ones
 * (figures.h says which and why they are worked out here).
 */
#include <math.h>

#include "figures.h"

double ipc_col_value(const struct ipc_column *c, const struct ipc_result *res)
{
	double v = ipc_result_value(res, &res->summary, c->src);
	uint64_t per;

	if (!c->per_off)
		return v;
	per = *(const uint64_t *)((const char *)&res->cs + c->per_off);
	return per ? v / (double)per : NAN;
}

double ipc_pct_of(double part, uint64_t whole)
{
	return whole && isfinite(part) ? 100.0 * part / (double)whole : NAN;
}

double ipc_pct_over(double v, double ref)
{
	return isfinite(v) && isfinite(ref) && ref > 0 ? 100.0 * (v - ref) / ref
						       : NAN;
}

double ipc_drift_pct(double drift)
{
	return expm1(drift) * 100;
}

double ipc_cost_cpu_ns(const struct ipc_cost *c)
{
	return c->valid ? c->user_ns + c->sys_ns : NAN;
}

double ipc_cost_csw(const struct ipc_cost *c)
{
	return c->valid ? c->vcsw + c->ivcsw : NAN;
}

size_t ipc_spectrum_of(const struct ipc_run_stats *sm, struct ipc_spectrum *sp)
{
	static const char *const names[IPC_SPECTRUM_MAX] = {
		"min", "p50", "p90", "p99", "p99.9", "max"};
	static const double q[IPC_SPECTRUM_MAX] = {0, 0.5, 0.9, 0.99, 0.999, 1};
	const struct ipc_lat *l = &sm->lat;
	const double x[IPC_SPECTRUM_MAX] = {(double)l->min,  (double)l->p50,
					    (double)l->p90,  (double)l->p99,
					    (double)l->p999, (double)l->max};
	double total = (double)sm->iterations;

	sp->n = 0;
	for (size_t k = 0; k < IPC_SPECTRUM_MAX && total >= 2; k++) {
		bool last = k == IPC_SPECTRUM_MAX - 1;

		if (k && !last && total * (1 - q[k]) < 1)
			continue;
		sp->q[sp->n] = last ? 1 - 1 / total : q[k];
		sp->ns[sp->n] = x[k];
		sp->name[sp->n] = names[k];
		sp->n++;
	}
	return sp->n;
}

bool ipc_wake_tally_add(struct ipc_wake_tally *t, const struct ipc_result *r)
{
	double v = r->diag.early_wake_vcsw;

	if (!(v > 0))
		return false;
	t->cases++;
	t->most = v > t->most ? v : t->most;
	return true;
}

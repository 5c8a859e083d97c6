/* SPDX-License-Identifier: MIT */
/*
 * How many runs the scheduler gives a case, as pure functions of the
 * options: the fewest, the most, the floor a budget keeps, and the
 * half-width the most runs could reach.  Apart from schedule.c because
 * the diagnosis (diagnose.c) says why a case stopped with the same
 * numbers, and the scheduler calls the diagnosis.
 */
#include <math.h>

#include "run/lib_internal.h"
#include "stats/lib_internal.h"

unsigned ipc_sched_min_runs(const struct ipc_runopts *ro)
{
	return ro->min_runs ? ro->min_runs : IPC_MIN_RUNS;
}

unsigned ipc_sched_max_runs(const struct ipc_runopts *ro)
{
	unsigned m = ro->max_runs ? ro->max_runs : IPC_MAX_RUNS_DEFAULT;

	return m < ipc_sched_min_runs(ro) ? ipc_sched_min_runs(ro) : m;
}

double ipc_sched_level(const struct ipc_runopts *ro)
{
	return ro->ci_level > 0 && ro->ci_level < 1 ? ro->ci_level : 0.95;
}

/*
 * The runs the budget never cuts a case below: the minimum, and at least
 * as many as give an interval at all (6 at 95%).  Five runs at 95% have
 * none, so a case the budget stopped there was `unstable` whatever its
 * runs said: the quick suite's pty stream, 5 runs of 0.23 GB/s each.
 */
unsigned ipc_sched_floor_runs(const struct ipc_runopts *ro)
{
	size_t ci = ipc_runs_min_for_ci(ipc_sched_level(ro));
	unsigned f = ipc_sched_min_runs(ro), max = ipc_sched_max_runs(ro);

	if (ci > f)
		f = (unsigned)ci;
	return f > max ? max : f;
}

/*
 * Out of reach: from IPC_REACH_RUNS runs on, an interval so wide that even
 * --max-runs runs would leave it at more than IPC_REACH_FACTOR times the
 * target, taking the half-width to shrink as 1 / sqrt(runs) (a median's
 * interval does, for one group of runs).  Such a case stops there and
 * leaves the rest of its share to the others, where several cases share
 * a budget.  The runs of the quick suite that were: tcp streams on two
 * CPUs whose batches run at 2 or at 7 GB/s (±40% to ±75%); unix and
 * socketpair rr on two CPUs, runs near 6.5 or near 19.5 us (±13% to
 * ±110%); their 30 runs cost 0.5 to 0.8 s each.  Not before 15 runs:
 * the interval of 10 is the 2nd and 9th of them, which two runs of a
 * passing disturbance move (rr over unix-seqpacket on one CPU, ±4.4%
 * after 10 runs in one invocation, ±0.9% in the next); that of 15 is
 * the 4th and 12th.  A factor of 2 keeps going every case within ±2.8%
 * by then.
 */
double ipc_sched_reach_pct(const struct ipc_runopts *ro, size_t nruns,
			   double half_pct)
{
	if (!(half_pct >= 0) || !nruns)
		return -1;
	return half_pct * sqrt((double)nruns / (double)ipc_sched_max_runs(ro));
}

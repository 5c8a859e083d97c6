/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: which case runs next, and when each case has run enough.
 * The rules (fixed or auto runs, the target, the budget, interleaving) are
 * apart from what a run is, so that tests can drive them with made-up runs;
 * ipc_run_plan binds them to the runner.
 *
 *   interleaved, 3 cases:  round 1: B A C   round 2: C B A   round 3: A C
 *                          (B met its target after round 2 and left)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

/* What the scheduler keeps of one case. */
struct slot {
	double *vals; /* the metric of each run */
	size_t n, cap;
	uint64_t wall_ns;   /* sum of the runs' times */
	enum ipc_stop stop; /* IPC_STOP_NONE while it still runs */
};

struct sched {
	size_t n;
	const struct ipc_runopts *ro;
	const struct ipc_sched_ops *ops;
	void *arg;
	struct slot *slots;
	size_t emitted; /* cases emitted so far, in plan order */
	uint64_t state; /* the shuffle's generator */
};

/* Fisher-Yates: every order of @a equally likely. */
static void shuffle(size_t *a, size_t n, uint64_t *state)
{
	size_t i, j, t;

	for (i = n; i > 1; i--) {
		j = (size_t)ipc_rng_below(state, i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static bool out_of_reach(const struct sched *s, const struct slot *sl,
			 const struct ipc_runs_stats *st)
{
	double half;

	if (s->n < 2 || !s->ro->budget_ns || sl->n < IPC_REACH_RUNS ||
	    sl->n >= ipc_sched_max_runs(s->ro))
		return false;
	ipc_runs_target_met(st, s->ro->ci_pct, &half);
	if (!(half >= 0))
		return false; /* no interval */
	return ipc_sched_reach_pct(s->ro, sl->n, half) >
	       IPC_REACH_FACTOR * s->ro->ci_pct;
}

/* Emit, in plan order, every case finished up to the first unfinished. */
static int emit_ready(struct sched *s)
{
	int err;

	while (s->emitted < s->n && s->slots[s->emitted].stop) {
		err = s->ops->emit(s->arg, s->emitted);
		s->emitted++;
		if (err)
			return err;
	}
	return 0;
}

static int finish(struct sched *s, size_t i, enum ipc_stop stop)
{
	int err;

	s->slots[i].stop = stop;
	err = s->ops->finish(s->arg, i, stop);
	return err ? err : emit_ready(s);
}

static int push(struct slot *sl, double v)
{
	if (sl->n == sl->cap) {
		size_t cap = sl->cap ? sl->cap * 2 : 16;
		double *nv = realloc(sl->vals, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sl->vals = nv;
		sl->cap = cap;
	}
	sl->vals[sl->n++] = v;
	return 0;
}

/* After a run of case @i: is it done, and why? */
static enum ipc_stop verdict(const struct sched *s, size_t i)
{
	const struct ipc_runopts *ro = s->ro;
	const struct slot *sl = &s->slots[i];
	struct ipc_runs_stats st;

	if (!ro->runs_auto)
		return sl->n >= ro->runs ? IPC_STOP_RUNS : IPC_STOP_NONE;
	if (sl->n < ipc_sched_min_runs(ro))
		return IPC_STOP_NONE;
	ipc_runs_summarize(sl->vals, sl->n, ipc_sched_level(ro), &st);
	if (ipc_runs_target_met(&st, ro->ci_pct, NULL))
		return IPC_STOP_TARGET;
	if (sl->n >= ipc_sched_max_runs(ro))
		return IPC_STOP_MAX_RUNS;
	return out_of_reach(s, sl, &st) ? IPC_STOP_OUT_OF_REACH : IPC_STOP_NONE;
}

/*
 * May case @i start another run before @deadline?  Only in auto mode, and
 * never below floor_runs; its next run is expected to take as long as its
 * runs so far did on average.
 */
static bool over_budget(const struct sched *s, size_t i, uint64_t deadline)
{
	const struct slot *sl = &s->slots[i];
	uint64_t now, est;

	if (!s->ro->runs_auto || !s->ro->budget_ns ||
	    sl->n < ipc_sched_floor_runs(s->ro))
		return false;
	now = s->ops->now_ns(s->arg);
	est = sl->n ? sl->wall_ns / sl->n : 0;
	return now >= deadline || est > deadline - now;
}

/* One run of case @i and what follows from it.  0 or a callback's -errno. */
static int step(struct sched *s, size_t i)
{
	struct slot *sl = &s->slots[i];
	uint64_t wall = 0;
	double v = 0;
	enum ipc_stop stop;
	int err;

	err = s->ops->run(s->arg, i, &v, &wall);
	if (err)
		return finish(s, i, IPC_STOP_FAILED);
	sl->wall_ns += wall;
	err = push(sl, v);
	if (err)
		return err;
	stop = verdict(s, i);
	return stop ? finish(s, i, stop) : 0;
}

/* End every case still running, for @stop. */
static int finish_all(struct sched *s, enum ipc_stop stop)
{
	size_t i;
	int err;

	for (i = 0; i < s->n; i++) {
		if (s->slots[i].stop)
			continue;
		err = finish(s, i, stop);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Interleaved, the budget is split by time: each case may spend an equal
 * share of it on its runs, plus an equal part of what the cases that
 * finished early left of theirs.  A global deadline would let one case of
 * dear runs (a pty stream: 0.5 s a run) spend the budget of all, and
 * every case would stop at the minimum of 5 runs, too few for a 95%
 * interval (the quick suite did: 46 cases, every one unstable).  A case
 * whose floor of runs (6 at 95%) costs more than its share still gets
 * them, from what others left over but never from their own shares; the
 * command then takes longer than its budget.
 */
static bool over_share(const struct sched *s, size_t i, uint64_t budget_ns)
{
	const struct slot *sl = &s->slots[i];
	uint64_t share = budget_ns / s->n, est;
	int64_t pool = 0;
	size_t open = 0, j;

	if (!s->ro->runs_auto || !budget_ns ||
	    sl->n < ipc_sched_floor_runs(s->ro))
		return false;
	/* Left over by the finished cases, less what they took beyond. */
	for (j = 0; j < s->n; j++) {
		if (!s->slots[j].stop)
			open++;
		else
			pool += (int64_t)share - (int64_t)s->slots[j].wall_ns;
	}
	if (open && pool > 0)
		share += (uint64_t)pool / open;
	est = sl->n ? sl->wall_ns / sl->n : 0;
	return sl->wall_ns >= share || est > share - sl->wall_ns;
}

/*
 * Rounds of one run of every case still open, in a new order each round.
 * A case over its share sits the round out instead of stopping: cases that
 * finish later leave it more (the quick suite's pty stream was over its
 * share at its 6th run, when few others had finished, and stopped there
 * while 6 s of the suite's 20 went unspent).  When every open case is
 * over its share, none can get more: they stop for the budget.
 */
static int interleaved(struct sched *s, uint64_t budget_ns)
{
	size_t *order, k, m, i, ran;
	int err = 0;

	order = malloc(s->n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (;;) {
		for (m = 0, i = 0; i < s->n; i++)
			if (!s->slots[i].stop)
				order[m++] = i;
		if (!m)
			break;
		shuffle(order, m, &s->state);
		for (k = 0, ran = 0; k < m && !err; k++) {
			i = order[k];
			if (s->ops->interrupted(s->arg)) {
				err = finish_all(s, IPC_STOP_INTERRUPTED);
				goto out;
			}
			if (s->slots[i].stop || over_share(s, i, budget_ns))
				continue;
			err = step(s, i);
			ran++;
		}
		if (!err && !ran)
			err = finish_all(s, IPC_STOP_BUDGET);
		if (err)
			break;
	}
out:
	free(order);
	return err;
}

/* Case after case; each gets an equal share of the budget left. */
static int sequential(struct sched *s, uint64_t deadline)
{
	uint64_t now, mine;
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && !err; i++) {
		now = s->ops->now_ns(s->arg);
		mine = now < deadline ? now + (deadline - now) / (s->n - i)
				      : now;
		while (!s->slots[i].stop && !err) {
			if (s->ops->interrupted(s->arg))
				return finish_all(s, IPC_STOP_INTERRUPTED);
			if (over_budget(s, i, mine))
				err = finish(s, i, IPC_STOP_BUDGET);
			else
				err = step(s, i);
		}
	}
	return err;
}

int ipc_schedule(size_t n, const struct ipc_runopts *ro, uint64_t seed,
		 const struct ipc_sched_ops *ops, void *arg)
{
	struct sched s = {
		.n = n, .ro = ro, .ops = ops, .arg = arg, .state = seed};
	uint64_t deadline = UINT64_MAX;
	size_t i;
	int err;

	if (!n)
		return 0;
	s.slots = calloc(n, sizeof(*s.slots));
	if (!s.slots)
		return -ENOMEM;
	if (ro->runs_auto && ro->budget_ns)
		deadline = ops->now_ns(arg) + ro->budget_ns;
	if (!ro->runs_auto && !ro->runs)
		err = finish_all(&s, IPC_STOP_RUNS); /* nothing to run */
	else if (ro->interleave && n > 1)
		err = interleaved(&s, ro->runs_auto ? ro->budget_ns : 0);
	else
		err = sequential(&s, deadline);
	for (i = 0; i < n; i++)
		free(s.slots[i].vals);
	free(s.slots);
	return err;
}

/* ipc_run_plan: the scheduler's callbacks over the runner. */
struct plan {
	struct ipc_run *run;
	const struct ipc_case *cases;
	const struct ipc_runopts *ros;
	const struct ipc_plan_hooks *hooks;
	struct ipc_result **res;
	struct ipc_case_state **st;
	bool interleaved; /* other cases run between two runs of one */
	bool failed;
};

static int plan_run(void *arg, size_t i, double *value, uint64_t *wall_ns)
{
	struct plan *p = arg;
	struct ipc_result *res = p->res[i];
	int err;

	if (!p->st[i] && !res->nruns && res->status == IPC_STATUS_OK) {
		err = ipc_case_begin(p->run, &p->cases[i], &p->ros[i], res,
				     &p->st[i]);
		if (err)
			return err;
	}
	if (!p->st[i])
		return -EINVAL;
	if (p->hooks->started)
		p->hooks->started(p->hooks->arg, i, res);
	err = ipc_case_once(p->st[i]);
	if (err)
		return err;
	if (!res->nruns)
		return -ENODATA; /* ipc_case_once fails such a run; be sure */
	if (p->interleaved)
		ipc_case_trim(p->st[i]);
	*value = ipc_run_metric(res, res->nruns - 1);
	*wall_ns = res->runs[res->nruns - 1].wall_ns;
	return 0;
}

static uint64_t plan_now(void *arg)
{
	(void)arg;
	return ipc_now_ns();
}

static bool plan_interrupted(void *arg)
{
	const struct plan *p = arg;

	return ipc_run_stopped(p->run);
}

static int plan_finish(void *arg, size_t i, enum ipc_stop stop)
{
	struct plan *p = arg;
	struct ipc_result *res = p->res[i];
	char words[64];

	if (p->st[i]) {
		/* Its second pass, if any, runs in there: the hook says so. */
		run_hooks_set(p->run, p->hooks, i);
		ipc_case_end(p->st[i], stop);
		run_hooks_set(p->run, NULL, 0);
		p->st[i] = NULL;
	} else {
		/* Never began (interrupted first) or could not begin. */
		res->ro = p->ros[i];
		if (res->status == IPC_STATUS_OK &&
		    stop == IPC_STOP_INTERRUPTED) {
			res->status = IPC_STATUS_ERROR;
			snprintf(res->error, sizeof(res->error), "not run: %s",
				 run_stop_words(p->run, words, sizeof(words)));
		}
		ipc_result_diagnose(res, stop, ipc_loadavg_1m());
	}
	if (res->status != IPC_STATUS_OK && stop != IPC_STOP_INTERRUPTED)
		p->failed = true;
	if (stop == IPC_STOP_INTERRUPTED)
		p->failed = true;
	return 0;
}

static int plan_emit(void *arg, size_t i)
{
	struct plan *p = arg;
	int err = 0;

	if (p->hooks->done)
		err = p->hooks->done(p->hooks->arg, i, p->res[i]);
	ipc_result_free(p->res[i]);
	p->res[i] = NULL;
	return err;
}

/* A seed for the per-round shuffle: different in every invocation. */
static uint64_t fresh_seed(void)
{
	return ipc_now_ns() ^ ((uint64_t)getpid() << 32);
}

int ipc_run_plan(struct ipc_run *run, const struct ipc_case *cases,
		 const struct ipc_runopts *ros, size_t n,
		 const struct ipc_plan_hooks *hooks)
{
	static const struct ipc_sched_ops ops = {
		.run = plan_run,
		.now_ns = plan_now,
		.interrupted = plan_interrupted,
		.finish = plan_finish,
		.emit = plan_emit,
	};
	struct plan p = {
		.run = run, .cases = cases, .ros = ros, .hooks = hooks};
	size_t i;
	int err = 0;

	if (!n)
		return 0;
	p.res = calloc(n, sizeof(*p.res));
	p.st = calloc(n, sizeof(*p.st));
	if (!p.res || !p.st) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		p.res[i] = ipc_result_new(&cases[i]);
		if (!p.res[i]) {
			err = -ENOMEM;
			goto out;
		}
		p.res[i]->ro = ros[i];
	}
	p.interleaved = ros[0].interleave && n > 1;
	err = ipc_schedule(n, &ros[0], fresh_seed(), &ops, &p);
out:
	for (i = 0; p.st && i < n; i++)
		if (p.st[i])
			ipc_case_end(p.st[i], IPC_STOP_FAILED);
	for (i = 0; p.res && i < n; i++)
		ipc_result_free(p.res[i]);
	free(p.res);
	free(p.st);
	if (err)
		return err;
	return p.failed ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * What a case's runs add up to: the summary over all runs, the run-to-run
 * spread of its metric with the interval the stopping rule tests, and the
 * diagnosis — did it meet the target, do the runs fall into two groups or
 * have outliers, did another load share the CPUs, and what each message
 * cost in CPU time on each side.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcperf/explain.h"
#include "ipcperf/run.h"
#include "explain/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "run/run_internal.h"
#include "stats/lib_internal.h"

const char *ipc_stop_name(enum ipc_stop stop)
{
	switch (stop) {
	case IPC_STOP_RUNS:
		return "runs";
	case IPC_STOP_TARGET:
		return "target";
	case IPC_STOP_MAX_RUNS:
		return "max-runs";
	case IPC_STOP_BUDGET:
		return "budget";
	case IPC_STOP_FAILED:
		return "failed";
	case IPC_STOP_INTERRUPTED:
		return "interrupted";
	case IPC_STOP_OUT_OF_REACH:
		return "out-of-reach";
	default:
		return "";
	}
}

void ipc_result_headline(const struct ipc_result *res, struct ipc_headline *h)
{
	const struct ipc_runs_stats *m = &res->metric;

	memset(h, 0, sizeof(*h));
	h->metric = ipc_result_metric(res);
	h->half_pct = -1;
	h->runs = res->nruns;
	h->valid = res->nruns > 0 && isfinite(res->diag.estimate);
	if (!h->valid)
		return;
	h->value = res->diag.estimate;
	/* One run has no spread to bound: an interval needs two at least. */
	h->have_ci = m->have_ci && res->nruns >= 2 && isfinite(m->ci_level) &&
		     isfinite(m->ci_low) && isfinite(m->ci_high) &&
		     m->ci_low >= 0 && m->ci_high >= m->ci_low;
	if (!h->have_ci)
		return;
	h->level = m->ci_level;
	h->low = m->ci_low;
	h->high = m->ci_high;
	if (res->diag.half_pct >= 0)
		h->half_pct = res->diag.half_pct;
	else if (h->value > 0)
		h->half_pct = (h->high - h->low) / 2 / h->value * 100;
}

static void summarize(struct ipc_result *res)
{
	struct ipc_run_stats *s = &res->summary;
	double secs;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < res->nruns; i++) {
		const struct ipc_run_stats *r = &res->runs[i];

		for (size_t k = 0; k < IPC_EXTRA_MAX; k++)
			s->extra[k] += r->extra[k];
		s->iterations += r->iterations;
		s->messages += r->messages;
		s->bytes += r->bytes;
		s->elapsed_ns += r->elapsed_ns;
		if (!s->timer_ns || r->timer_ns < s->timer_ns)
			s->timer_ns = r->timer_ns;
	}
	secs = s->elapsed_ns / 1e9;
	s->msgs_per_s = secs > 0 ? s->messages / secs : 0;
	s->bytes_per_s = secs > 0 ? s->bytes / secs : 0;
	ipc_hist_summary(res->hist, &s->lat);
	res->xcount = res->xhist ? res->xhist->total : 0;
	if (res->xcount)
		ipc_hist_summary(res->xhist, &res->xlat);
}

/* Per-message cost of one side over every run it reported. */
static void cost_of(const struct ipc_result *res, bool server,
		    struct ipc_cost *c)
{
	double msgs = 0, user = 0, sys = 0, vcsw = 0, ivcsw = 0, cyc = 0,
	       ins = 0;
	bool hw = true;
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < res->nruns; i++) {
		const struct ipc_run_stats *r = &res->runs[i];
		const struct ipc_side_cost *sc =
			server ? &r->server : &r->client;

		if (!sc->valid || !r->loop_msgs)
			continue;
		msgs += (double)r->loop_msgs;
		user += (double)sc->user_ns;
		sys += (double)sc->sys_ns;
		vcsw += (double)sc->vcsw;
		ivcsw += (double)sc->ivcsw;
		if (sc->cycles < 0 || sc->instructions < 0)
			hw = false;
		cyc += (double)sc->cycles;
		ins += (double)sc->instructions;
	}
	if (msgs <= 0)
		return;
	c->valid = true;
	c->user_ns = user / msgs;
	c->sys_ns = sys / msgs;
	c->vcsw = vcsw / msgs;
	c->ivcsw = ivcsw / msgs;
	c->cycles = hw ? cyc / msgs : -1;
	c->instructions = hw ? ins / msgs : -1;
}

/*
 * Where the sides ran: on one CPU or on two, as each side last saw itself;
 * and, when the runs fall into two groups, how each group ran.
 */
static void placement(const struct ipc_result *res, const double *vals,
		      struct ipc_diag *d)
{
	size_t i;
	int g;

	for (i = 0; i < res->nruns; i++) {
		const struct ipc_run_stats *r = &res->runs[i];
		bool same;

		if (!r->client.valid || !r->server.valid ||
		    r->client.cpu_end < 0 || r->server.cpu_end < 0)
			continue;
		same = r->client.cpu_end == r->server.cpu_end;
		if (same)
			d->same_cpu_runs++;
		else
			d->split_cpu_runs++;
		if (!d->modes.bimodal || !isfinite(vals[i]))
			continue;
		g = vals[i] > d->modes.cut;
		if (same)
			d->mode_same[g]++;
		else
			d->mode_split[g]++;
	}
}

/*
 * cpuidle: the longest a polling idle stay lasts (cpuidle's poll limit,
 * at most TICK_NSEC / 16: 625 us at HZ=100, 250 us at HZ=250), which
 * bounds how far a stay that spans a reading shifts idle time from one
 * run to the next (src/run/hostload.c).
 */
#define IDLE_STAY_NS 625000.0

/*
 * cpuidle: what each idle stay costs outside the idle state and outside
 * every task's runtime (the idle loop, the context switches to and from
 * the idle task), allowed for as our own.  On the development VM (KVM,
 * haltpoll, 2 vCPUs) 0.69-0.85 us per stay, the same for fifo, unix and
 * tcp round trips on two CPUs: without it, a fifo ping-pong on two CPUs
 * read as 0.35 CPUs of others on an idle machine.  Elsewhere it is not
 * known, so the whole of it is counted in the figure's error.
 */
#define IDLE_STAY_COST_NS 700.0

/*
 * cpuacct: the longest a task that does not sleep runs before the
 * scheduler charges it (a tick: 4 ms at HZ=250; Debian, Ubuntu, Fedora
 * and RHEL build with HZ=250 or 1000).
 */
#define ACCT_LAG_NS 4000000.0

/*
 * cpuacct and cpuidle: the counts and the clock at each end are read some
 * microseconds apart (10 at most on the development VM), while every CPU
 * moves on: a variance of N skew^2 / 12 per end.
 */
#define READ_SKEW_NS 10000.0

/*
 * The variance, in ns^2, of one run's figure of others' CPU time, where
 * others kept @other_cpus busy on average.
 *
 * /proc/stat does not time CPU use, it samples it: at each tick (USER_HZ,
 * 100 a second) a CPU's counter grows by a whole tick if it was busy.
 * Over @wall_ns a CPU sees wall / tick samples whose busy share p has a
 * variance of (wall / tick) p (1 - p) ticks^2, at most wall / (4 tick),
 * and each run's two ends add up to a tick more (a variance of 1/6 per
 * end).  Worked example, 2 CPUs: 30 runs of 50 ms give +-0.13 CPUs, 30 of
 * 10 ms +-0.39; one run of 3 ms gives +-6.0 CPUs, which is how a 2-CPU
 * machine once read as "other processes kept 6.50 CPUs busy".
 *
 * cpuacct (and cgroup v2's cpu.stat, charged alike) charges a task that
 * runs through a reading up to ACCT_LAG_NS late, which happens at each
 * end on as many CPUs as others keep busy:
 * a variance of other_cpus L^2 / 3 per end.  Idle machine: nothing;
 * others on 0.25 CPUs, 2 CPUs, one run of 10 ms: +-0.33 CPUs, 10 runs
 * +-0.10.
 *
 * cpuidle times each idle stay; what is left is the stay under way at
 * each end, counted in the run it ends in: up to IDLE_STAY_NS per CPU and
 * end, a variance of at most L^2 / 12 each.  2 CPUs, one run of 10 ms:
 * +-0.07 CPUs; 30 runs of 10 ms: +-0.013.
 *
 * Both take steal from /proc/stat: a run in which it moved adds the tick
 * ends' variance.
 */
static double run_load_var(const struct ipc_run_stats *r, long ncpus,
			   double tick, double other_cpus)
{
	double n = (double)(r->load_cpus ? (long)r->load_cpus : ncpus);
	double steal = r->steal_ns ? n * tick * tick / 3 : 0;
	double skew = n * READ_SKEW_NS * READ_SKEW_NS / 6;

	switch (r->load_src) {
	case IPC_LOAD_SRC_CPUACCT:
	case IPC_LOAD_SRC_CGROUP2:
		return 2 * fmin(other_cpus, n) * ACCT_LAG_NS * ACCT_LAG_NS / 3 +
		       skew + steal;
	case IPC_LOAD_SRC_CPUIDLE:
		return n * IDLE_STAY_NS * IDLE_STAY_NS / 6 + skew + steal;
	default:
		return n * ((double)r->wall_ns / (4 * tick) + 1.0 / 3) * tick *
		       tick;
	}
}

/*
 * How far the load figures can be off, in CPUs (two standard deviations,
 * plus the whole of the idle stays' cost, which is no random error).
 */
static double load_resolution(const struct ipc_result *res, double wall_ns,
			      long ncpus, double other_cpus)
{
	long hz = sysconf(_SC_CLK_TCK);
	double tick = 1e9 / (double)(hz > 0 ? hz : 100), var = 0, stays = 0;
	size_t i;

	for (i = 0; i < res->nruns; i++) {
		const struct ipc_run_stats *r = &res->runs[i];

		if (!r->have_load || !r->wall_ns)
			continue;
		var += run_load_var(r, ncpus, tick, other_cpus);
		if (r->load_src == IPC_LOAD_SRC_CPUIDLE)
			stays += (double)r->idle_stays;
	}
	return (2 * sqrt(var) + stays * IDLE_STAY_COST_NS) / wall_ns;
}

/*
 * Average CPUs kept busy by others and by the hypervisor.  Each run's
 * busy - ours is added with its sign: its error goes either way, and
 * leaving out the runs that came out below zero would make an idle
 * machine look busy (0.4 CPUs, on /proc/stat's ticks, over 10 ms runs).
 */
static void load(const struct ipc_result *res, struct ipc_diag *d)
{
	long ncpus = 0;
	double wall = 0, other = 0, steal = 0;
	bool first = true;
	size_t i;

	for (i = 0; i < res->nruns; i++) {
		const struct ipc_run_stats *r = &res->runs[i];

		if (!r->have_load || !r->wall_ns)
			continue;
		if ((long)r->load_cpus > ncpus)
			ncpus = (long)r->load_cpus;
		wall += (double)r->wall_ns;
		other += (double)r->busy_ns - (double)r->ours_ns -
			 (double)r->kernel_ns;
		if (r->load_src == IPC_LOAD_SRC_CPUIDLE)
			other -= (double)r->idle_stays * IDLE_STAY_COST_NS;
		steal += (double)r->steal_ns;
		if (first)
			d->load_src = r->load_src;
		else if (d->load_src != r->load_src)
			d->load_src = IPC_LOAD_SRC_MIXED;
		first = false;
	}
	if (wall <= 0)
		return;
	if (ncpus < 1) /* runs read back from an older document */
		ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		ncpus = 1;
	d->have_load = true;
	/* Never more CPUs than the machine has, whatever the samples say. */
	d->other_cpus = fmin(fmax(other, 0) / wall, (double)ncpus);
	d->steal_cpus = fmin(steal / wall, (double)ncpus);
	d->load_res_cpus = load_resolution(res, wall, ncpus, d->other_cpus);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * With --explain, what the slower runs spent their extra time on: the runs
 * above the widest gap between the runs' mean round trips against the
 * others, and
 * the phase (side and name) whose time per round trip grew the most, in
 * words for the flags about the runs' spread ("" when the runs do not tell
 * it: fewer than two, or no phase grew).
 */
static void explain_cause(const struct ipc_result *res, char *buf, size_t len,
			  const char **behind)
{
	const struct ipc_explain_result *x = res->explain;
	double *m, cut, gap = 0, slow = 0, fast = 0, best = 0, grew;
	size_t ns = 0, nf = 0, i;
	unsigned bs = 0, bp = 0;
	char a[32], b[32];

	buf[0] = '\0';
	*behind = "";
	if (!x || !x->available || x->nruns < 2)
		return;
	m = malloc(x->nruns * sizeof(*m));
	if (!m)
		return;
	for (i = 0; i < x->nruns; i++)
		m[i] = x->runs[i].mean_ns;
	qsort(m, x->nruns, sizeof(*m), cmp_double);
	/* Slow and fast apart at the widest gap: two modes, or the outliers. */
	cut = m[0];
	for (i = 1; i < x->nruns; i++)
		if (m[i] - m[i - 1] > gap) {
			gap = m[i] - m[i - 1];
			cut = m[i - 1];
		}
	free(m);
	for (i = 0; i < x->nruns; i++) {
		if (x->runs[i].mean_ns > cut) {
			slow += x->runs[i].mean_ns;
			ns++;
		} else {
			fast += x->runs[i].mean_ns;
			nf++;
		}
	}
	if (!ns || !nf || slow / ns <= fast / nf)
		return;
	for (unsigned sd = 0; sd < IPC_XSIDES; sd++)
		for (unsigned ph = 0; ph < IPC_XPHASES; ph++) {
			double sl = 0, fa = 0;

			for (i = 0; i < x->nruns; i++) {
				if (x->runs[i].mean_ns > cut)
					sl += x->runs[i].ns[sd][ph];
				else
					fa += x->runs[i].ns[sd][ph];
			}
			grew = sl / ns - fa / nf;
			if (grew > best) {
				best = grew;
				bs = sd;
				bp = ph;
			}
		}
	if (best <= 0)
		return;
	snprintf(buf, len,
		 "the slower %zu of %zu runs took %s more a "
		 "%s, %s of it %s %s",
		 ns, x->nruns, ipc_fmt_ns(slow / ns - fast / nf, a, sizeof(a)),
		 res->cs.pat ? res->cs.pat->sample : "round trip",
		 ipc_fmt_ns(best, b, sizeof(b)),
		 ipc_explain_side_name((enum ipc_xside)bs, bp),
		 ipc_explain_phase_name(bp));
	/* Whom that side waited behind, over all runs, where it waited. */
	for (i = 0; i < x->nphases; i++)
		if (!strcmp(x->phases[i].name, ipc_explain_phase_name(bp)) &&
		    x->phases[i].side &&
		    !strcmp(x->phases[i].side,
			    ipc_explain_side_name((enum ipc_xside)bs, bp)))
			*behind = x->phases[i].behind;
}

static const int spread[] = {IPC_FLAG_UNSTABLE, IPC_FLAG_BIMODAL,
			     IPC_FLAG_OUTLIERS};

bool result_spread_flagged(const struct ipc_result *res)
{
	bool flagged = false;

	for (size_t i = 0; i < sizeof(spread) / sizeof(spread[0]); i++)
		flagged |= (res->diag.flags & (1u << spread[i])) != 0;
	return flagged;
}

/*
 * @cause (its first @c bytes the phase, the rest whom it waited behind)
 * after the why of each flag about @res's spread.
 */
static void append_cause(struct ipc_result *res, const char *cause, size_t c)
{
	for (size_t i = 0; i < sizeof(spread) / sizeof(spread[0]); i++) {
		char *w = res->diag.why[spread[i]];
		size_t n = strlen(w);

		if (!(res->diag.flags & (1u << spread[i])))
			continue;
		/* Whom it waited behind goes first when room is short. */
		if (n + strlen(cause) < IPC_WHY_MAX)
			memcpy(w + n, cause, strlen(cause) + 1);
		else if (n + c < IPC_WHY_MAX)
			snprintf(w + n, IPC_WHY_MAX - n, "%.*s", (int)c, cause);
	}
}

/*
 * The cause of @res's spread from the explained runs of @from (itself, or
 * a second pass): into the breakdown's own line without @lead's words,
 * and after the why of each flag about the spread with them.
 */
static void add_cause_from(struct ipc_result *res,
			   const struct ipc_result *from, const char *lead)
{
	char found[IPC_WHY_MAX], cause[IPC_WHY_MAX];
	const char *behind;
	size_t c, len;

	explain_cause(from, found, sizeof(found), &behind);
	if (!found[0])
		return;
	c = (size_t)snprintf(cause, sizeof(cause), "%s%s", lead, found);
	if (c >= sizeof(cause))
		c = sizeof(cause) - 1;
	snprintf(cause + c, sizeof(cause) - c, "%s%s",
		 behind[0] ? ", behind " : "", behind);
	/* Without the lead, for the breakdown's own line. */
	len = strlen(cause + strlen(lead));
	if (len >= sizeof(res->explain->cause))
		len = sizeof(res->explain->cause) - 1;
	memcpy(res->explain->cause, cause + strlen(lead), len);
	res->explain->cause[len] = '\0';
	append_cause(res, cause, c);
}

/* The cause in words after the why of each flag about the runs' spread. */
static void add_cause(struct ipc_result *res)
{
	if (res->explain)
		res->explain->cause[0] = '\0';
	if (result_spread_flagged(res))
		add_cause_from(res, res, "; --explain: ");
}

void result_explained_again(struct ipc_result *res, struct ipc_result *pass)
{
	static const char none[] = "; a second pass with --explain: its runs "
				   "did not differ in any phase";
	char lead[64];

	ipc_explain_result_free(res->explain);
	res->explain = pass->explain; /* pass still reads it: moved below */
	res->explain->second_pass = (unsigned)pass->nruns;
	res->explain->cause[0] = '\0';
	snprintf(lead, sizeof(lead),
		 "; a second pass of %zu runs with --explain: ", pass->nruns);
	add_cause_from(res, pass, lead);
	pass->explain = NULL;
	if (!res->explain->cause[0])
		append_cause(res, none, strlen(none));
}

void ipc_result_diagnose(struct ipc_result *res, enum ipc_stop stop,
			 double loadavg)
{
	const struct ipc_runopts *ro = &res->ro;
	struct ipc_diag *d = &res->diag;
	double level =
		ro->ci_level > 0 && ro->ci_level < 1 ? ro->ci_level : 0.95;
	double *vals, wake;
	bool *far;
	size_t i, n = res->nruns, nfar;

	summarize(res);
	memset(d, 0, sizeof(*d));
	d->metric = ipc_result_metric_as(res, NULL);
	d->stop = stop;
	d->half_pct = -1;
	d->loadavg_1m = isfinite(loadavg) ? loadavg : -1;
	d->load_res_cpus = -1;
	vals = malloc((n ? n : 1) * sizeof(*vals));
	far = calloc(n ? n : 1, sizeof(*far));
	if (!vals || !far) {
		free(vals);
		free(far);
		memset(&res->metric, 0, sizeof(res->metric));
		return;
	}
	for (i = 0; i < n; i++)
		vals[i] = ipc_run_metric(res, i);
	ipc_runs_summarize(vals, n, level, &res->metric);
	d->estimate = res->metric.median;
	d->target_met =
		ipc_runs_target_met(&res->metric, ro->ci_pct, &d->half_pct);
	ipc_runs_modes(vals, n, &d->modes);
	/* Each run's mark is kept for the charts even with two groups,
	   where the count would only repeat the bimodal flag. */
	nfar = ipc_runs_outliers(vals, n, far);
	for (i = 0; i < n; i++)
		res->runs[i].outlier = far[i];
	if (!d->modes.bimodal)
		d->outliers = nfar;
	placement(res, vals, d);
	load(res, d);
	cost_of(res, false, &d->client);
	cost_of(res, true, &d->server);
	if (ipc_result_early_wake(res, &wake))
		d->early_wake_vcsw = wake;
	free(vals);
	free(far);

	/*
	 * Unstable: the interval was to meet the target and did not (with
	 * -r N, only when N runs give an interval at all).  A failed or
	 * interrupted case says so in its status instead.
	 */
	if (n && !d->target_met &&
	    (stop == IPC_STOP_TARGET || stop == IPC_STOP_MAX_RUNS ||
	     stop == IPC_STOP_BUDGET || stop == IPC_STOP_OUT_OF_REACH ||
	     (stop == IPC_STOP_RUNS && (ro->runs_auto || res->metric.have_ci))))
		d->flags |= 1u << IPC_FLAG_UNSTABLE;
	if (d->modes.bimodal)
		d->flags |= 1u << IPC_FLAG_BIMODAL;
	if (d->outliers)
		d->flags |= 1u << IPC_FLAG_OUTLIERS;
	/*
	 * Another load is called only when the figure can tell it: where the
	 * runs were too short for the source's precision (/proc/stat's
	 * ticks, mostly), the figure that would
	 * have been called load is said to be unknown instead.
	 */
	if (d->have_load && (d->other_cpus >= IPC_LOAD_OTHER_CPUS ||
			     d->steal_cpus >= IPC_LOAD_STEAL_CPUS))
		d->flags |= 1u << (d->load_res_cpus <= IPC_LOAD_OTHER_CPUS
					   ? IPC_FLAG_LOAD
					   : IPC_FLAG_SHORT);
	if (res->peer_others)
		d->flags |= 1u << IPC_FLAG_SHARED;
	if (res->refused)
		d->flags |= 1u << IPC_FLAG_REFUSED;
	ipc_result_word_flags(res, d->flags);
	add_cause(res);
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

/* Why @res has flag @kind, by today's rules. */
static void why_of(const struct ipc_result *res, enum ipc_flag_kind kind,
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
			 "%llu connection%s to the measured port came from "
			 "another process (turned away where the run has a "
			 "token, served by the built-in HTTP target, which "
			 "has none); the server's time on them may show in "
			 "the figures",
			 (unsigned long long)res->refused,
			 res->refused == 1 ? "" : "s");
		break;
	default:
		break;
	}
}

void ipc_result_word_flags(struct ipc_result *res, unsigned which)
{
	for (int k = 0; k < IPC_FLAG_COUNT; k++)
		if (which & res->diag.flags & (1u << k))
			why_of(res, k, res->diag.why[k],
			       sizeof(res->diag.why[k]));
}

char *ipc_flag_why(const struct ipc_result *res, enum ipc_flag_kind kind,
		   char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 (unsigned)kind < IPC_FLAG_COUNT ? res->diag.why[kind] : "");
	return buf;
}

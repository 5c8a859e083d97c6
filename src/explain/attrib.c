/* SPDX-License-Identifier: MIT */
/*
 * From the kernel's sums of each run to the phases of one round trip:
 * pure arithmetic on counters, built with or without BPF, so that the
 * rules (the phases add up to the measured mean, the rest is stated as
 * unexplained) are tested on synthetic counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain_abi.h"
#include "ipcperf/explain.h"
#include "explain/lib_internal.h"

_Static_assert(IPC_XPHASES == XA_PHASES, "phase count");
_Static_assert(IPC_XBUCKETS == XA_BUCKETS, "bucket count");
_Static_assert(IPC_XSIDES == XA_SIDES, "side count");

static const char *const phase_names[IPC_XPHASES] = {
	[XA_USER] = "user",
	[XA_SEND] = "send",
	[XA_RECV] = "receive",
	[XA_EPOLL] = "wait: epoll",
	[XA_POLL] = "wait: poll",
	[XA_URING] = "wait: io_uring",
	[XA_FUTEX] = "wait: futex",
	[XA_SYSOTHER] = "other system calls",
	[XA_BLOCKED] = "blocked",
	[XA_RUNQ] = "wake-up: run queue",
	[XA_IDLE] = "wake-up: idle exit",
	[XA_PREEMPT] = "preempted",
	[XA_SOFTIRQ0 + 0] = "softirq HI",
	[XA_SOFTIRQ0 + 1] = "softirq TIMER",
	[XA_SOFTIRQ0 + 2] = "softirq NET_TX",
	[XA_SOFTIRQ0 + 3] = "softirq NET_RX",
	[XA_SOFTIRQ0 + 4] = "softirq BLOCK",
	[XA_SOFTIRQ0 + 5] = "softirq IRQ_POLL",
	[XA_SOFTIRQ0 + 6] = "softirq TASKLET",
	[XA_SOFTIRQ0 + 7] = "softirq SCHED",
	[XA_SOFTIRQ0 + 8] = "softirq HRTIMER",
	[XA_SOFTIRQ0 + 9] = "softirq RCU",
	[XA_HARDIRQ] = "hardirq",
	[XA_IPI] = "wake-up: IPI",
	[XA_MIGRATE] = "migrations",
};

const char *ipc_explain_phase_name(unsigned ph)
{
	return ph < IPC_XPHASES ? phase_names[ph] : "?";
}

/* Interrupts are the kernel's, whichever side they interrupted. */
static bool kernel_phase(unsigned ph)
{
	return ph >= XA_SOFTIRQ0 && ph <= XA_HARDIRQ;
}

const char *ipc_explain_side_name(enum ipc_xside side, unsigned ph)
{
	if (kernel_phase(ph))
		return "kernel";
	return side == IPC_XSERVER ? "server" : "client";
}

uint64_t ipc_explain_bucket_ns(unsigned b)
{
	unsigned msb, sub;

	if (b < 4)
		return b;
	msb = b / 4 + 1;
	sub = b % 4;
	return ((uint64_t)(4 + sub + 1) << (msb - 2)) - 1;
}

struct ipc_explain_result *ipc_explain_result_new(void)
{
	struct ipc_explain_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->available = true;
	return r;
}

void ipc_explain_result_free(struct ipc_explain_result *r)
{
	if (!r)
		return;
	free(r->runs);
	free(r->pooled);
	free(r);
}

void ipc_explain_unavailable(struct ipc_explain_result *r, const char *why)
{
	r->available = false;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

/* Add @o to the pooled others, merged by pid, largest kept. */
static void others_merge(struct ipc_explain_counts *p,
			 const struct ipc_explain_other *o)
{
	size_t i, min = 0;

	for (i = 0; i < p->nothers; i++) {
		if (p->others[i].pid == o->pid) {
			p->others[i].ns += o->ns;
			p->others[i].runq_ns[0] += o->runq_ns[0];
			p->others[i].runq_ns[1] += o->runq_ns[1];
			return;
		}
		if (p->others[i].ns < p->others[min].ns)
			min = i;
	}
	if (p->nothers < IPC_XOTHERS)
		p->others[p->nothers++] = *o;
	else if (o->ns > p->others[min].ns)
		p->others[min] = *o;
}

static void counts_add(struct ipc_explain_counts *p,
		       const struct ipc_explain_counts *c)
{
	size_t s, ph, b;

	p->window_ns += c->window_ns;
	for (s = 0; s < IPC_XSIDES; s++) {
		for (ph = 0; ph < IPC_XPHASES; ph++) {
			p->ns[s][ph] += c->ns[s][ph];
			p->events[s][ph] += c->events[s][ph];
			for (b = 0; b < IPC_XBUCKETS; b++)
				p->bucket[s][ph][b] += c->bucket[s][ph][b];
			if (c->p99_ns[s][ph] > p->p99_ns[s][ph])
				p->p99_ns[s][ph] = c->p99_ns[s][ph];
		}
	}
	for (s = 0; s < c->nothers; s++)
		others_merge(p, &c->others[s]);
}

int ipc_explain_add(struct ipc_explain_result *r,
		    const struct ipc_explain_counts *c, uint64_t round_trips,
		    uint64_t elapsed_ns)
{
	struct ipc_xrun *run;
	size_t s, ph;

	if (!round_trips)
		return 0;
	if (!r->pooled) {
		r->pooled = calloc(1, sizeof(*r->pooled));
		if (!r->pooled)
			return -ENOMEM;
	}
	if (r->nruns == r->runs_cap) {
		size_t cap = r->runs_cap ? 2 * r->runs_cap : 8;
		struct ipc_xrun *n = realloc(r->runs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->runs = n;
		r->runs_cap = cap;
	}
	run = &r->runs[r->nruns++];
	run->mean_ns = (double)elapsed_ns / (double)round_trips;
	for (s = 0; s < IPC_XSIDES; s++)
		for (ph = 0; ph < IPC_XPHASES; ph++)
			run->ns[s][ph] =
				(double)c->ns[s][ph] / (double)round_trips;
	counts_add(r->pooled, c);
	r->pooled_rt += round_trips;
	return 0;
}

/* Where no histogram has @ph's events: the largest p99 a run sent. */
static double known_p99(const struct ipc_explain_counts *p, size_t s,
			unsigned ph)
{
	uint64_t v = p->p99_ns[s][ph];

	if (kernel_phase(ph) && p->p99_ns[IPC_XSERVER][ph] > v)
		v = p->p99_ns[IPC_XSERVER][ph];
	return v ? (double)v : -1;
}

static int cmp_run(const void *a, const void *b)
{
	double x = ((const struct ipc_xrun *)a)->mean_ns;
	double y = ((const struct ipc_xrun *)b)->mean_ns;

	return (x > y) - (x < y);
}

double ipc_explain_p99(const uint64_t *bucket, const uint64_t *bucket2)
{
	uint64_t total = 0, seen = 0, want;
	unsigned b;

	for (b = 0; b < IPC_XBUCKETS; b++)
		total += bucket[b] + (bucket2 ? bucket2[b] : 0);
	if (!total)
		return -1;
	want = total - total / 100; /* the first sample at or past 99% */
	for (b = 0; b < IPC_XBUCKETS; b++) {
		seen += bucket[b] + (bucket2 ? bucket2[b] : 0);
		if (seen >= want)
			return (double)ipc_explain_bucket_ns(b);
	}
	return -1;
}

/* The most waited behind of @p's others for @side, @not excepted. */
static const struct ipc_explain_other *
most_behind(const struct ipc_explain_counts *p, size_t side,
	    const struct ipc_explain_other * not )
{
	const struct ipc_explain_other *best = NULL;
	size_t i;

	for (i = 0; i < p->nothers; i++)
		if (&p->others[i] != not &&p->others[i].runq_ns[side] &&
		    (!best || p->others[i].runq_ns[side] > best->runq_ns[side]))
			best = &p->others[i];
	return best;
}

/*
 * The two tasks @side waited behind the most for a CPU, in words, the
 * most first: on a shared machine the one that matters is not always
 * the first.
 */
static void behind_words(const struct ipc_explain_counts *p, size_t side,
			 char *buf, size_t len)
{
	const struct ipc_explain_other *a = most_behind(p, side, NULL);
	const struct ipc_explain_other *b = a ? most_behind(p, side, a) : NULL;

	buf[0] = '\0';
	if (a && b)
		snprintf(buf, len, "%.15s (pid %d), %.15s (pid %d)", a->comm,
			 a->pid, b->comm, b->pid);
	else if (a)
		snprintf(buf, len, "%.15s (pid %d)", a->comm, a->pid);
}

static struct ipc_xphase *phase_add(struct ipc_explain_result *r,
				    const char *name, const char *side,
				    double ns)
{
	struct ipc_xphase *x = &r->phases[r->nphases++];

	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->side = side;
	x->ns = ns;
	x->share = r->measured_ns > 0 ? ns / r->measured_ns : 0;
	x->p99_ns = -1;
	return x;
}

/* The median run's phases (or the mean of the two middle runs') in @ns. */
static void median_run(struct ipc_explain_result *r,
		       double ns[IPC_XSIDES][IPC_XPHASES])
{
	const struct ipc_xrun *a, *b;
	size_t s, ph;

	qsort(r->runs, r->nruns, sizeof(*r->runs), cmp_run);
	a = &r->runs[(r->nruns - 1) / 2];
	b = &r->runs[r->nruns / 2];
	r->measured_ns = (a->mean_ns + b->mean_ns) / 2;
	for (s = 0; s < IPC_XSIDES; s++)
		for (ph = 0; ph < IPC_XPHASES; ph++)
			ns[s][ph] = (a->ns[s][ph] + b->ns[s][ph]) / 2;
}

static void others_finish(struct ipc_explain_result *r)
{
	const struct ipc_explain_counts *p = r->pooled;
	size_t i, j;

	r->nothers = 0;
	for (i = 0; i < p->nothers; i++) {
		struct ipc_xother *o = &r->others[r->nothers++];

		snprintf(o->comm, sizeof(o->comm), "%.15s", p->others[i].comm);
		o->pid = p->others[i].pid;
		o->ns = (double)p->others[i].ns / (double)r->pooled_rt;
	}
	/* Largest first (a handful: insertion sort). */
	for (i = 1; i < r->nothers; i++)
		for (j = i; j > 0 && r->others[j].ns > r->others[j - 1].ns;
		     j--) {
			struct ipc_xother t = r->others[j];

			r->others[j] = r->others[j - 1];
			r->others[j - 1] = t;
		}
}

void ipc_explain_finish(struct ipc_explain_result *r)
{
	double ns[IPC_XSIDES][IPC_XPHASES];
	const struct ipc_explain_counts *p = r->pooled;
	struct ipc_xphase *x;
	char behind[sizeof(((struct ipc_xphase *)0)->behind)];
	size_t s, ph;

	r->nphases = 0;
	r->sum_ns = 0;
	if (!r->available || !r->nruns || !p)
		return;
	median_run(r, ns);
	r->window_ns = (double)p->window_ns / (double)r->pooled_rt;
	for (s = 0; s < IPC_XSIDES; s++) {
		behind_words(p, s, behind, sizeof(behind));
		for (ph = 0; ph < IPC_XPHASES; ph++) {
			double v = ns[s][ph];

			if (kernel_phase(ph)) {
				if (s == IPC_XSERVER)
					continue; /* added with the client's */
				v += ns[IPC_XSERVER][ph];
			}
			if (ph == XA_MIGRATE || v <= 0)
				continue;
			x = phase_add(r, phase_names[ph],
				      ipc_explain_side_name(s, ph), v);
			x->p99_ns = ipc_explain_p99(
				p->bucket[s][ph],
				kernel_phase(ph) ? p->bucket[IPC_XSERVER][ph]
						 : NULL);
			if (x->p99_ns < 0)
				x->p99_ns = known_p99(p, s, ph);
			if (ph == XA_RUNQ || ph == XA_PREEMPT)
				snprintf(x->behind, sizeof(x->behind), "%s",
					 behind);
			r->sum_ns += v;
		}
		r->migrations[s] = p->events[s][XA_MIGRATE];
	}
	phase_add(r, "unexplained", "kernel", r->measured_ns - r->sum_ns);
	others_finish(r);
}

/* SPDX-License-Identifier: MIT */
/*
 * load: many flows at once.  The client opens -c connections on the
 * channel's listening socket and spreads them over --threads threads; each
 * thread drives its flows through one flow set of the engine.  The server,
 * one peer process or thread, accepts them all and answers every request
 * from one flow set.  A flow is a request/response loop; its samples go
 * into its thread's histogram, merged after the run.
 *
 * Closed loop (the default): a flow sends its next request when the reply
 * to the previous one is in, and a sample runs from the send to the reply.
 *
 * Open loop (--rate R): requests are due on a fixed schedule, whatever the
 * replies do.  Request m of the run (m = 0, 1, ... over all flows) is due at
 * start + m / R; flow g sends requests g, g + N, g + 2N, ... so each flow
 * runs at R / N per second and the total is evenly spaced.  A sample runs
 * from the request's due time, not from when it could be sent: when the
 * server stalls, the requests that fell due meanwhile are sent late and
 * their wait counts, so the stall shows in the percentiles instead of being
 * hidden (no coordinated omission).  One request per flow is in flight, so
 * a flow whose reply is late sends its next request at once on arrival.
 *
 *   flow 0:  |0-----reply|      |N--reply|        due: start + m/R
 *   flow 1:     |1--reply|         |N+1------stall--------reply|
 *   flow 2:        |2--reply|         |N+2···········(late)·····--reply|
 *
 * How late an idle flow's request left after its due time (the generator's
 * own lag, from timer wake-up and a busy thread) is reported as
 * flows.lag_max_ns: if it is large, the generator, not the server, was the
 * bottleneck.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "fault.h"
#include "interval.h"
#include "load.h"
#include "msg.h"
#include "describe.h"
#include "base/lib_internal.h"
#include "pattern/lib_internal.h"
#include "stats/lib_internal.h"

#define BATCH 64	   /* completions taken per wait */
#define IDLE_NS 50000000ll /* longest wait, 50 ms (a stop ends it at once) */
#define SLACK 64 /* receive buffer beyond the message, to see a long one */

static size_t ld_max_msg(const struct ipc_case *cs)
{
	size_t m = cs->req_size > cs->resp_size ? cs->req_size : cs->resp_size;

	return m ? m : 1;
}

static size_t ld_buf_bytes(const struct ipc_case *cs)
{
	return ld_max_msg(cs) + SLACK;
}

/* Descriptors a process needs for @flows flows, with a margin. */
static uint64_t fds_needed(uint64_t flows, bool both_sides)
{
	return (both_sides ? 2 : 1) * flows + 64;
}

static int ld_check(const struct ipc_case *cs, enum ipc_placement placement,
		    char *why, size_t why_len)
{
	bool thread = placement == IPC_PLACE_THREAD;
	uint64_t need = fds_needed(cs->flows, thread), hard;
	uint64_t per = cs->req_size + cs->resp_size + 2 * SLACK;

	if (!cs->flows) {
		snprintf(why, why_len, "load needs at least 1 flow");
		return -EINVAL;
	}
	if (!cs->eng->fs_new) {
		snprintf(why, why_len,
			 "load drives many flows from each thread and engine "
			 "%s waits on one descriptor at a time (use poll, "
			 "epoll, io_uring or busy)",
			 cs->eng->name);
		return -EINVAL;
	}
	if (!(cs->tp->caps & IPC_TP_CONNECT)) {
		snprintf(why, why_len,
			 "load opens its flows as connections and %s has no "
			 "connections (use tcp, tcp6, unix or unix-seqpacket)",
			 cs->tp->name);
		return -EINVAL;
	}
	if (cs->flows > UINT32_MAX / 2 || per * cs->flows > (1ull << 34)) {
		snprintf(why, why_len,
			 "%llu flows of %llu+%llu-byte messages need more than "
			 "16 GiB of buffers",
			 (unsigned long long)cs->flows,
			 (unsigned long long)cs->req_size,
			 (unsigned long long)cs->resp_size);
		return -ENOMEM;
	}
	hard = ipc_nofile_hard();
	if (hard && need > hard) {
		snprintf(why, why_len,
			 "%llu flows need about %llu open descriptors in one "
			 "process%s and RLIMIT_NOFILE allows %llu here (the "
			 "hard limit): use fewer flows%s or raise the limit "
			 "(ulimit -Hn, as root)",
			 (unsigned long long)cs->flows,
			 (unsigned long long)need,
			 thread ? " (both sides, --placement thread)" : "",
			 (unsigned long long)hard,
			 thread ? ", --placement process" : "");
		return -EMFILE;
	}
	return 0;
}

/* "open flow 5001 of 10000: Too many open files (descriptor limit 8192)" */
static int ld_fail(struct ipc_pctx *c, int err, const char *doing, uint64_t g,
		   uint64_t n)
{
	char what[96];
	uint64_t hard = 0, soft;

	if (err == -EMFILE || err == -ENFILE) {
		soft = ipc_nofile_raise(&hard);
		snprintf(what, sizeof(what),
			 "%s flow %llu of %llu (limit %llu "
			 "descriptors)",
			 doing, (unsigned long long)g + 1,
			 (unsigned long long)n, (unsigned long long)soft);
	} else {
		snprintf(what, sizeof(what), "%s flow %llu of %llu", doing,
			 (unsigned long long)g + 1, (unsigned long long)n);
	}
	return msg_fail(c, err, what);
}

/* ---- the client ---------------------------------------------------- */

static void heap_push(struct lthread *th, uint32_t f)
{
	uint32_t i = th->hn++, up;

	while (i) {
		up = (i - 1) / 2;
		if (th->fl[th->heap[up]].due <= th->fl[f].due)
			break;
		th->heap[i] = th->heap[up];
		i = up;
	}
	th->heap[i] = f;
}

static uint32_t heap_pop(struct lthread *th)
{
	uint32_t top = th->heap[0], last = th->heap[--th->hn], i = 0, k;

	for (;;) {
		k = 2 * i + 1;
		if (k >= th->hn)
			break;
		if (k + 1 < th->hn &&
		    th->fl[th->heap[k + 1]].due < th->fl[th->heap[k]].due)
			k++;
		if (th->fl[last].due <= th->fl[th->heap[k]].due)
			break;
		th->heap[i] = th->heap[k];
		i = k;
	}
	if (th->hn)
		th->heap[i] = last;
	return top;
}

/* Due time of request k of flow g: start + (g + k N) / R seconds. */
static uint64_t due_at(const struct ipc_pctx *c, uint64_t start, uint64_t g,
		       uint64_t k)
{
	unsigned __int128 m = (unsigned __int128)k * c->cs->flows + g;

	return start + (uint64_t)(m * 1000000000u / c->cs->rate);
}

/* -i: an interval of the one client thread ends at @t1. */
static __attribute__((noinline)) void ld_ival(struct lthread *th, uint64_t t1)
{
	const struct ipc_case *cs = th->pc.cs;
	uint64_t bytes = th->sh->proto->ival_bytes
				 ? th->sh->proto->ival_bytes(th)
				 : th->replies * (cs->req_size + cs->resp_size);

	ival_close(&th->pc, t1, th->replies, th->replies, bytes, 0);
}

void ld_record(struct lthread *th, struct cflow *x, bool rec, uint64_t t1)
{
	if (rec) {
		ipc_hist_record(th->hist, t1 - x->t0);
		x->count++;
		x->end = t1;
		th->replies++;
		th->end_ns = t1;
		if (__builtin_expect(th->pc.ival_next_ns &&
					     t1 >= th->pc.ival_next_ns,
				     0))
			ld_ival(th, t1);
	} else {
		th->warm_replies++;
	}
}

/* Put flow @f's next request in flight; @t0 is where its sample starts. */
static int raw_start(struct lthread *th, uint32_t f, uint64_t t0)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	const size_t req = msg_wire(th->pc.cs->req_size, th->pc.tp_caps);
	const size_t resp = msg_wire(th->pc.cs->resp_size, th->pc.tp_caps);
	struct cflow *x = &th->fl[f];
	bool stream = th->pc.tp_caps & IPC_TP_STREAM;
	int err;

	msg_stamp(x->sbuf, req, x->seq);
	x->sent = x->got = 0;
	x->busy = true;
	x->t0 = t0;
	err = e->fs_recv(th->fs, f, x->rbuf, stream ? resp : resp + SLACK);
	if (!err)
		err = e->fs_send(th->fs, f, x->sbuf, req);
	return err;
}

/*
 * One completion of flow @f.  When it finished the exchange, records the
 * sample (if @rec) and says so in *fin.  0 or -errno (with pc.out set).
 */
static int raw_done(struct lthread *th, const struct ipc_fdone *d, bool rec,
		    bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	const size_t req = msg_wire(th->pc.cs->req_size, th->pc.tp_caps);
	const size_t resp = msg_wire(th->pc.cs->resp_size, th->pc.tp_caps);
	struct cflow *x = &th->fl[d->flow];
	bool stream = th->pc.tp_caps & IPC_TP_STREAM;
	uint64_t t1;
	int err = 0;

	*fin = false;
	if (d->res < 0)
		return ld_fail(&th->pc, (int)d->res,
			       d->op == IPC_FOP_SEND ? "send on" : "receive on",
			       x->g, th->pc.cs->flows);
	if (d->op == IPC_FOP_SEND) {
		x->sent += (size_t)d->res;
		if (x->sent < req)
			err = e->fs_send(th->fs, d->flow, x->sbuf + x->sent,
					 req - x->sent);
	} else if (!d->res &&
		   (stream || !(th->pc.tp_caps & IPC_TP_EMPTY_MSG))) {
		return ld_fail(&th->pc, MSG_EOF, "receive on", x->g,
			       th->pc.cs->flows);
	} else if (!stream && (size_t)d->res != resp) {
		return ld_fail(&th->pc, -EBADMSG, "receive on", x->g,
			       th->pc.cs->flows);
	} else {
		x->got += (size_t)d->res;
		if (x->got < resp)
			err = e->fs_recv(th->fs, d->flow, x->rbuf + x->got,
					 resp - x->got);
	}
	if (err)
		return ld_fail(&th->pc, err, "start I/O on", x->g,
			       th->pc.cs->flows);
	if (x->sent < req || x->got < resp)
		return 0;
	t1 = ipc_now_ns();
	ld_record(th, x, rec, t1);
	x->busy = false;
	*fin = true;
	if (th->pc.verify) {
		err = msg_check(&th->pc, x->rbuf, resp, x->seq);
		if (err)
			return err;
	}
	x->seq++;
	return 0;
}

/*
 * The flows whose exchange has run the protocol's timeout_ns: the protocol
 * gives each up; those it finished go into th->fins, their number is
 * returned.  Looked at every timeout / 8 (10 ms at most), after a wait,
 * so an exchange is given up at most that, plus one wait (IDLE_NS),
 * after its time: a scan of the thread's flows, not a timer per request.
 */
static uint32_t expired(struct lthread *th, bool rec)
{
	const struct ld_proto *p = th->sh->proto;
	uint64_t now, step;
	uint32_t n = 0;

	if (!p->timeout_ns)
		return 0;
	now = ipc_now_ns();
	if (now < th->expiry_ns)
		return 0;
	step = p->timeout_ns / 8;
	th->expiry_ns = now + (step < 10000000u ? step : 10000000u);
	for (uint32_t f = 0; f < th->n; f++) {
		struct cflow *x = &th->fl[f];
		bool fin = false;

		if (!x->busy || x->t0 > now || now - x->t0 < p->timeout_ns)
			continue;
		p->expire(th, f, rec, &fin);
		if (fin)
			th->fins[n++] = f;
	}
	return n;
}

/*
 * Closed loop: flow @f's exchange is over; start its next one, or retire
 * it (*active goes down) when it has none left or @deadline passed.
 */
static int closed_next(struct lthread *th, uint32_t f, uint64_t deadline,
		       uint32_t *active)
{
	struct cflow *x = &th->fl[f];
	int err;

	if (!x->left || (deadline && th->end_ns >= deadline)) {
		x->left = 0;
		(*active)--;
		return 0;
	}
	x->left--;
	err = th->sh->proto->start(th, f, ipc_now_ns());
	return err ? ld_fail(&th->pc, err, "start I/O on", x->g,
			     th->pc.cs->flows)
		   : 0;
}

/*
 * Wait up to @wait_ns for the flows' I/O to complete, into @done: how many
 * did, or -errno (c->out set) when the wait failed or a stop was asked for.
 */
static inline int wait_done(struct lthread *th, struct ipc_fdone *done,
			    int64_t wait_ns)
{
	int n = th->pc.io.eng->fs_wait(th->fs, done, BATCH, wait_ns);

	if (n < 0)
		return ld_fail(&th->pc, n, "wait for", th->base,
			       th->pc.cs->flows);
	if (ipc_cancelled(th->pc.io.cancel))
		return msg_fail(&th->pc, -ECANCELED, "between requests");
	return n;
}

/*
 * A closed-loop phase: every flow runs its x->left requests back to back,
 * or until @deadline (no new request after it).  @rec: record samples.
 */
static int closed_phase(struct lthread *th, uint64_t deadline, bool rec)
{
	struct ipc_fdone done[BATCH];
	uint32_t active = 0, f;
	bool fin;
	int n, err = 0;

	for (f = 0; f < th->n && !err; f++) {
		if (!th->fl[f].left)
			continue;
		th->fl[f].left--;
		active++;
		err = th->sh->proto->start(th, f, ipc_now_ns());
		if (err)
			return ld_fail(&th->pc, err, "start I/O on",
				       th->fl[f].g, th->pc.cs->flows);
	}
	while (active) {
		n = wait_done(th, done, IDLE_NS);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			err = th->sh->proto->done(th, &done[i], rec, &fin);
			if (!err && fin)
				err = closed_next(th, done[i].flow, deadline,
						  &active);
			if (err)
				return err;
		}
		n = (int)expired(th, rec);
		for (int i = 0; i < n && !err; i++)
			err = closed_next(th, th->fins[i], deadline, &active);
		if (err)
			return err;
	}
	return 0;
}

/* Open loop: the next request of flow @f, now or when it falls due. */
static int open_next(struct lthread *th, uint32_t f, uint64_t start,
		     uint64_t end)
{
	struct cflow *x = &th->fl[f];

	if (!x->left)
		return 0;
	x->due = due_at(&th->pc, start, x->g, x->k);
	if (end && x->due >= end) {
		x->left = 0;
		return 0;
	}
	x->k++;
	x->left--;
	if (x->due <= ipc_now_ns())
		return th->sh->proto->start(th, f,
					    x->due); /* late: its wait counts */
	heap_push(th, f);
	return 0;
}

/*
 * The open-loop phase: requests leave at their due times (or as soon as
 * their flow is free), each sample runs from its due time.  @end: no
 * request due at or after it (by duration), 0: by count.
 */
static int open_phase(struct lthread *th, uint64_t start, uint64_t end)
{
	struct ipc_fdone done[BATCH];
	uint64_t now;
	int64_t wait;
	uint32_t f;
	bool fin;
	int n, err = 0;

	for (f = 0; f < th->n && !err; f++)
		err = open_next(th, f, start, end);
	for (;;) {
		if (err)
			return ld_fail(&th->pc, err, "start I/O on", th->base,
				       th->pc.cs->flows);
		now = ipc_now_ns();
		while (th->hn && th->fl[th->heap[0]].due <= now) {
			f = heap_pop(th);
			if (now - th->fl[f].due > th->lag_max)
				th->lag_max = now - th->fl[f].due;
			err = th->sh->proto->start(th, f, th->fl[f].due);
			if (err)
				return ld_fail(&th->pc, err, "start I/O on",
					       th->fl[f].g, th->pc.cs->flows);
		}
		for (f = 0; f < th->n && !th->fl[f].busy && !th->hn; f++)
			;
		if (f == th->n && !th->hn)
			return 0; /* nothing in flight, nothing due */
		wait = IDLE_NS;
		if (th->hn && (int64_t)(th->fl[th->heap[0]].due - now) < wait)
			wait = (int64_t)(th->fl[th->heap[0]].due - now);
		n = wait_done(th, done, wait);
		if (n < 0)
			return n;
		for (int i = 0; i < n && !err; i++) {
			err = th->sh->proto->done(th, &done[i], true, &fin);
			if (err)
				return err;
			if (fin)
				err = open_next(th, done[i].flow, start, end);
		}
		n = err ? 0 : (int)expired(th, true);
		for (int i = 0; i < n && !err; i++)
			err = open_next(th, th->fins[i], start, end);
	}
}

/* Split @total requests over @nflows flows: flow g's share. */
static uint64_t share(uint64_t total, uint64_t nflows, uint64_t g)
{
	return total / nflows + (g < total % nflows ? 1 : 0);
}

static void client_body(struct lthread *th);

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull +
	       (uint64_t)tv->tv_usec * 1000ull;
}

/* A client thread: its flows, and the CPU it used (for cpu/req). */
static void *client_thread(void *arg)
{
	struct lthread *th = arg;
	struct rusage a, b;
	bool ok = !getrusage(RUSAGE_THREAD, &a);

	client_body(th);
	if (ok && !getrusage(RUSAGE_THREAD, &b)) {
		th->cpu.user_ns = tv_ns(&b.ru_utime) - tv_ns(&a.ru_utime);
		th->cpu.sys_ns = tv_ns(&b.ru_stime) - tv_ns(&a.ru_stime);
		th->cpu.vcsw = (uint64_t)(b.ru_nvcsw - a.ru_nvcsw);
		th->cpu.ivcsw = (uint64_t)(b.ru_nivcsw - a.ru_nivcsw);
	}
	return NULL;
}

static void client_body(struct lthread *th)
{
	struct shared *sh = th->sh;
	const struct ipc_pctx *c = &th->pc;
	const struct ipc_engine_ops *e = c->io.eng;
	uint64_t start, end = 0;
	uint32_t f;
	int err;

	pthread_mutex_lock(&sh->mu);
	while (!sh->open)
		pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
	if (sh->abort)
		return;
	prctl(PR_SET_TIMERSLACK, 1UL); /* wake at due times, not 50 us late */
	if (c->watch_self && sh->nth == 1)
		c->watch_self(c->watch_arg); /* --explain: this is the client */
	err = e->fs_new(&th->fs, th->n, c->io.cancel);
	for (f = 0; !err && f < th->n; f++)
		err = e->fs_add(th->fs, f, &th->fl[f].ep);
	if (err)
		ld_fail(&th->pc, err, "add to the flow set", th->base + f,
			c->cs->flows);
	for (f = 0; !err && f < th->n; f++)
		th->fl[f].left = share(c->warmup, c->cs->flows, th->fl[f].g);
	if (!err)
		err = closed_phase(th, 0, false);

	/* The last to arrive checks everyone and sets the common start. */
	if (pthread_barrier_wait(&sh->warm) == PTHREAD_BARRIER_SERIAL_THREAD) {
		for (unsigned i = 0; i < sh->nth; i++)
			if (sh->th[i].pc.out.err)
				sh->abort = true;
		sh->start_ns = ipc_now_ns();
		ipc_pctx_measuring(&th->pc, sh->start_ns);
	}
	pthread_barrier_wait(&sh->go);
	if (err || sh->abort)
		goto out;
	start = sh->start_ns;
	if (c->duration_ns)
		end = start + c->duration_ns;
	for (f = 0; f < th->n; f++) {
		th->fl[f].left = c->duration_ns
					 ? UINT64_MAX
					 : share(c->iterations, c->cs->flows,
						 th->fl[f].g);
		th->fl[f].k = 0;
	}
	th->end_ns = start;
	ival_begin(&th->pc, start);
	if (sh->nth == 1)
		ipc_pctx_window(&th->pc, false, start);
	if (c->cs->rate)
		open_phase(th, start, end);
	else
		closed_phase(th, end, true);
	if (sh->nth == 1)
		ipc_pctx_window(&th->pc, true, ipc_now_ns());
	/* The run's time is up to its last reply; so are its intervals. */
	if (th->pc.ivals)
		th->pc.ivals->end_ns = th->end_ns;
out:
	e->fs_free(th->fs);
	th->fs = NULL;
}

static int cmp_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Each flow's replies per second, over its own time from the start to its
 * last reply (with -n every flow does the same count; a slighted flow
 * takes longer), then the slowest, the median and the fastest.  A flow
 * that got no reply at all runs at 0.
 */
static void fairness(struct ipc_pctx *c, const struct cflow *fl, uint64_t n,
		     uint64_t start, double *rates)
{
	for (uint64_t g = 0; g < n; g++)
		rates[g] = fl[g].count && fl[g].end > start
				   ? fl[g].count / ((fl[g].end - start) / 1e9)
				   : 0;
	c->out.flows.jain = ipc_jain_index(rates, n);
	qsort(rates, n, sizeof(*rates), cmp_rate);
	c->out.flows.flows = n;
	c->out.flows.rate_min = rates[0];
	c->out.flows.rate_max = rates[n - 1];
	c->out.flows.rate_median =
		n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
}

/* After the threads: merge what they measured into c->out and c->hist. */
static void gather(struct ipc_pctx *c, struct shared *sh, double *rates,
		   const struct cflow *fl)
{
	const struct ipc_pout *first = NULL;
	uint64_t end = 0;

	ipc_hist_reset(c->hist);
	for (unsigned i = 0; i < sh->nth; i++) {
		struct lthread *th = &sh->th[i];

		if (!th->started)
			continue;
		ipc_hist_merge(c->hist, th->hist);
		c->out.helpers.user_ns += th->cpu.user_ns;
		c->out.helpers.sys_ns += th->cpu.sys_ns;
		c->out.helpers.vcsw += th->cpu.vcsw;
		c->out.helpers.ivcsw += th->cpu.ivcsw;
		c->out.done += th->replies;
		c->out.warmup_done += th->warm_replies;
		if (th->replies && th->end_ns > end)
			end = th->end_ns;
		if (th->lag_max > c->out.flows.lag_max_ns)
			c->out.flows.lag_max_ns = th->lag_max;
		/* A real cause beats the cancellations it led to. */
		if (th->pc.out.err &&
		    (!first || (first->err == -ECANCELED &&
				th->pc.out.err != -ECANCELED)))
			first = &th->pc.out;
	}
	if (end > sh->start_ns)
		c->out.elapsed_ns = end - sh->start_ns;
	c->out.messages = c->out.done;
	c->out.bytes = c->out.done * (c->cs->req_size + c->cs->resp_size);
	if (sh->proto->gather)
		sh->proto->gather(c, sh);
	if (c->out.done)
		fairness(c, fl, c->cs->flows, sh->start_ns, rates);
	if (sh->start_err && !c->out.err) {
		/*
		 * glibc says EAGAIN for a stack it could not map as well as
		 * for a thread limit (ulimit -v, ulimit -u).
		 */
		c->out.err = sh->start_err;
		snprintf(c->out.what, sizeof(c->out.what),
			 "start client thread %u of %u: %s%s", sh->start_failed,
			 sh->nth, strerror(-sh->start_err),
			 sh->start_err == -EAGAIN
				 ? " (no memory or thread left for it: see "
				   "ulimit -v and -u)"
				 : "");
	} else if (first && !c->out.err) {
		c->out.err = first->err;
		snprintf(c->out.what, sizeof(c->out.what), "%s", first->what);
	}
}

/*
 * Start the threads as helpers (ipc_thread_start: the user's signals stay
 * with the caller); their waits end on the side's cancel descriptor.
 */
static void start_threads(struct shared *sh)
{
	unsigned i;
	int rc = 0;

	for (i = 0; i < sh->nth; i++) {
		rc = ipc_thread_start(&sh->th[i].t, client_thread, &sh->th[i]);
		if (rc)
			break;
		sh->th[i].started = true;
	}
	pthread_mutex_lock(&sh->mu);
	if (i < sh->nth) {
		/* Told by gather(): thread 0 may be the one missing. */
		sh->abort = true;
		sh->start_err = rc; /* -errno */
		sh->start_failed = i + 1;
	}
	sh->open = true;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
	for (i = 0; i < sh->nth; i++)
		if (sh->th[i].started)
			pthread_join(sh->th[i].t, NULL);
}

/* Round @n up to 16 bytes, to keep each flow's buffers apart. */
static size_t al16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static void raw_init_flow(const struct ld_proto *p, struct ipc_pctx *c,
			  struct cflow *x)
{
	(void)p;
	memcpy(x->sbuf, c->expect, msg_wire(c->cs->req_size, c->tp_caps));
}

int ld_run(struct ipc_pctx *c, const struct ld_proto *proto)
{
	const uint64_t nfl = c->cs->flows;
	const unsigned nth = c->cs->threads ? c->cs->threads : 1;
	const size_t ss = al16(proto->sbuf_bytes), rs = al16(proto->rbuf_bytes);
	const struct ipc_transport_ops *tp = c->cs->tp;
	struct cflow *fl = calloc(nfl, sizeof(*fl));
	uint8_t *bufs = malloc(nfl * (ss + rs));
	uint32_t *heaps = calloc(nfl, sizeof(*heaps));
	uint32_t *fins = calloc(nfl, sizeof(*fins));
	double *rates = calloc(nfl, sizeof(*rates));
	struct shared sh = {.nth = nth, .proto = proto, .arg = proto->arg};
	uint64_t g = 0, opened = 0;
	bool barriers = false;
	int err = 0;

	c->out.loss.counted = false;
	sh.th = calloc(nth, sizeof(*sh.th));
	if (!fl || !bufs || !heaps || !fins || !rates || !sh.th) {
		err = msg_fail(c, -ENOMEM, "allocate the flows");
		goto out_free;
	}
	ipc_nofile_raise(NULL);
	for (g = 0; g < nfl; g++) {
		fl[g].ep = (struct ipc_ep){
			.rfd = -1, .wfd = -1, .cancel = c->io.cancel};
		fl[g].g = g;
		fl[g].sbuf = bufs + g * (ss + rs);
		fl[g].rbuf = fl[g].sbuf + ss;
		memset(fl[g].rbuf, 0, rs);
		if (proto->init_flow)
			proto->init_flow(proto, c, &fl[g]);
	}
	for (g = 0; g < nfl; g++, opened++) {
		if (ipc_cancelled(c->io.cancel)) {
			err = msg_fail(c, -ECANCELED, "while connecting");
			goto out_close;
		}
		err = proto->open_flow ? proto->open_flow(proto, c, &fl[g])
				       : tp->open(c->ch, IPC_CLIENT, &fl[g].ep);
		if (err == -EINTR && ipc_cancelled(c->io.cancel))
			err = -ECANCELED; /* a signal asked us to stop */
		if (err) {
			ld_fail(c, err, "open", g, nfl);
			goto out_close;
		}
	}
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	pthread_barrier_init(&sh.warm, NULL, nth);
	pthread_barrier_init(&sh.go, NULL, nth);
	barriers = true;
	for (unsigned i = 0; i < nth; i++) {
		struct lthread *th = &sh.th[i];
		uint64_t lo = nfl * i / nth, hi = nfl * (i + 1) / nth;

		th->sh = &sh;
		th->pc = *c;
		memset(&th->pc.out, 0, sizeof(th->pc.out));
		th->fl = fl + lo;
		th->n = (uint32_t)(hi - lo);
		th->base = lo;
		th->heap = heaps + lo;
		th->fins = fins + lo;
		th->hist = ipc_hist_new();
		th->pc.hist = th->hist;
		/*
		 * Intervals are one thread's: its clock reads and its
		 * histogram (the CLI refuses -i with several threads).
		 */
		if (nth > 1)
			th->pc.ivals = NULL;
		if (!th->hist) {
			err = msg_fail(c, -ENOMEM, "allocate the histograms");
			goto out_close;
		}
	}
	start_threads(&sh);
	gather(c, &sh, rates, fl);
	err = c->out.err;
out_close:
	for (g = 0; g < opened; g++)
		tp->close(&fl[g].ep);
	if (barriers) {
		pthread_barrier_destroy(&sh.warm);
		pthread_barrier_destroy(&sh.go);
		pthread_cond_destroy(&sh.cv);
		pthread_mutex_destroy(&sh.mu);
	}
out_free:
	for (unsigned i = 0; sh.th && i < nth; i++)
		ipc_hist_free(sh.th[i].hist);
	free(sh.th);
	free(rates);
	free(heaps);
	free(fins);
	free(bufs);
	free(fl);
	return err;
}

static const struct ld_proto raw_proto = {
	.start = raw_start,
	.done = raw_done,
	.init_flow = raw_init_flow,
};

static int ld_client(struct ipc_pctx *c)
{
	struct ld_proto p = raw_proto;

	p.sbuf_bytes = msg_wire(c->cs->req_size, c->tp_caps);
	p.rbuf_bytes = msg_wire(c->cs->resp_size, c->tp_caps) + SLACK;
	return ld_run(c, &p);
}

/* ---- the server ---------------------------------------------------- */

struct sflow {
	struct ipc_ep ep;
	uint8_t *rbuf, *sbuf;
	uint64_t seq;	  /* requests answered on this flow */
	size_t got, sent; /* progress of the current request, response */
	bool closed;
};

struct server {
	struct ipc_pctx *c;
	struct ipc_fset *fs;
	struct sflow *fl;
	uint64_t nfl, open, served;
	size_t req, resp;
	bool stream;
};

/* A whole request arrived on flow @f: check it, answer, wait for the next. */
static int answer(struct server *sv, uint32_t f)
{
	const struct ipc_engine_ops *e = sv->c->io.eng;
	struct sflow *x = &sv->fl[f];
	int err;

	if (sv->c->verify) {
		err = msg_check(sv->c, x->rbuf, sv->req, x->seq);
		if (err)
			return err;
	}
	fault_stall(sv->c->faults, sv->served);
	msg_stamp(x->sbuf, sv->resp, x->seq);
	x->sent = x->got = 0;
	x->seq++;
	sv->served++;
	sv->c->out.done++;
	err = e->fs_send(sv->fs, f, x->sbuf, sv->resp);
	if (!err)
		err = e->fs_recv(sv->fs, f, x->rbuf,
				 sv->stream ? sv->req : sv->req + SLACK);
	return err ? ld_fail(sv->c, err, "answer on", f, sv->nfl) : 0;
}

static int srv_done(struct server *sv, const struct ipc_fdone *d)
{
	const struct ipc_engine_ops *e = sv->c->io.eng;
	struct sflow *x = &sv->fl[d->flow];
	int err = 0;

	if (x->closed)
		return 0;
	if (d->op == IPC_FOP_SEND) {
		if (d->res < 0)
			return ld_fail(sv->c, (int)d->res, "send on", d->flow,
				       sv->nfl);
		x->sent += (size_t)d->res;
		if (x->sent < sv->resp)
			err = e->fs_send(sv->fs, d->flow, x->sbuf + x->sent,
					 sv->resp - x->sent);
		return err ? ld_fail(sv->c, err, "send on", d->flow, sv->nfl)
			   : 0;
	}
	if (d->res == 0 &&
	    (sv->stream || !(sv->c->tp_caps & IPC_TP_EMPTY_MSG))) {
		x->closed = true; /* the client is done with this flow */
		sv->open--;
		return 0;
	}
	if (d->res < 0)
		return ld_fail(sv->c, (int)d->res, "receive on", d->flow,
			       sv->nfl);
	if (!sv->stream) {
		if ((size_t)d->res != sv->req)
			return ld_fail(sv->c, -EBADMSG, "receive on", d->flow,
				       sv->nfl);
		return answer(sv, d->flow);
	}
	x->got += (size_t)d->res;
	if (x->got < sv->req) {
		err = e->fs_recv(sv->fs, d->flow, x->rbuf + x->got,
				 sv->req - x->got);
		return err ? ld_fail(sv->c, err, "receive on", d->flow, sv->nfl)
			   : 0;
	}
	return answer(sv, d->flow);
}

/*
 * Accept every flow, then answer requests from one flow set until every
 * flow is closed by the client or the runner asks to stop.
 */
static int ld_server(struct ipc_pctx *c)
{
	const struct ipc_engine_ops *e = c->io.eng;
	const struct ipc_transport_ops *tp = c->cs->tp;
	struct server sv = {.c = c, .nfl = c->cs->flows};
	struct ipc_fdone done[BATCH];
	uint64_t i, opened = 0;
	size_t ss, rs;
	uint8_t *bufs = NULL;
	int n, err = 0;

	sv.req = msg_wire(c->cs->req_size, c->tp_caps);
	sv.resp = msg_wire(c->cs->resp_size, c->tp_caps);
	sv.stream = c->tp_caps & IPC_TP_STREAM;
	ss = al16(sv.resp);
	rs = al16(sv.req + SLACK);
	sv.fl = calloc(sv.nfl, sizeof(*sv.fl));
	bufs = malloc(sv.nfl * (ss + rs));
	if (!sv.fl || !bufs) {
		err = msg_fail(c, -ENOMEM, "allocate the flows");
		goto out;
	}
	ipc_nofile_raise(NULL);
	err = e->fs_new(&sv.fs, (uint32_t)sv.nfl, c->io.cancel);
	if (err) {
		msg_fail(c, err, "make the flow set");
		goto out;
	}
	for (i = 0; i < sv.nfl; i++) {
		sv.fl[i].ep = (struct ipc_ep){
			.rfd = -1, .wfd = -1, .cancel = c->io.cancel};
		sv.fl[i].sbuf = bufs + i * (ss + rs);
		sv.fl[i].rbuf = sv.fl[i].sbuf + ss;
		memcpy(sv.fl[i].sbuf, c->expect, sv.resp);
	}
	for (i = 0; i < sv.nfl; opened = ++i) {
		do {
			if (ipc_cancelled(c->io.cancel))
				goto out; /* the client gave up */
			err = tp->open(c->ch, IPC_SERVER, &sv.fl[i].ep);
		} while (err == -EINTR || err == -ECONNABORTED);
		if (!err)
			err = e->fs_add(sv.fs, (uint32_t)i, &sv.fl[i].ep);
		if (!err)
			err = e->fs_recv(sv.fs, (uint32_t)i, sv.fl[i].rbuf,
					 sv.stream ? sv.req : sv.req + SLACK);
		if (err) {
			ld_fail(c, err, "accept", i, sv.nfl);
			opened = i + (sv.fl[i].ep.rfd >= 0);
			goto out;
		}
	}
	sv.open = sv.nfl;
	while (sv.open) {
		n = e->fs_wait(sv.fs, done, BATCH, IDLE_NS);
		if (n == -ECANCELED || ipc_cancelled(c->io.cancel))
			break;
		if (n < 0) {
			err = msg_fail(c, n, "wait for requests");
			break;
		}
		for (int k = 0; k < n && !err; k++)
			err = srv_done(&sv, &done[k]);
		if (err)
			break;
	}
out:
	e->fs_free(sv.fs);
	for (i = 0; i < opened; i++)
		tp->close(&sv.fl[i].ep);
	free(bufs);
	free(sv.fl);
	return err;
}

/* flows, threads and rate come from single options, set in every case. */
static const struct ipc_param ld_params[] = {
	{.key = "flows",
	 .word = "flows",
	 .head = "flows",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, flows),
	 .fmt = IPC_FMT_COUNT},
	PARAMS_LOAD_LOOP,
	PARAM_REQ,
	PARAM_RESP,
	{0},
};

static const struct ipc_column ld_cols[] = {
	COLS_PERCENTILES,
	{.head = "replies/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "flow min", .src = IPC_SRC_FLOW_MIN, .fmt = IPC_FMT_RATE},
	{.head = "flow median",
	 .src = IPC_SRC_FLOW_MEDIAN,
	 .fmt = IPC_FMT_RATE},
	{.head = "flow max", .src = IPC_SRC_FLOW_MAX, .fmt = IPC_FMT_RATE},
	{.head = "send lag",
	 .src = IPC_SRC_LAG,
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_COL_IF_ANY},
	{0},
};

const struct ipc_pattern_ops ipc_pattern_load = {
	.name = "load",
	.help = "many flows, closed loop or open loop at a rate: rate, "
		"latency, fairness",
	.flags = IPC_PAT_OWN_EP,
	.sample = "request",
	.samples = "requests over all flows",
	.cost_per = "message",
	.cost_abbr = "msg",
	.title = "many flows at once; latency per request from its send "
		 "(closed loop) or its due time (open loop)",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = ld_params,
	.cols = ld_cols,
	.check = ld_check,
	.buf_bytes = ld_buf_bytes,
	.max_msg = ld_max_msg,
	.client = ld_client,
	.server = ld_server,
};

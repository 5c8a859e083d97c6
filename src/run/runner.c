/*
 * The runner: each run of a case on a freshly set-up channel with a fresh
 * peer (a forked process or a thread), the client's loop in this thread,
 * then everything closed and reaped, whatever happened.
 *
 *   setup channel ── start peer ──┬── client: open, attach, pattern loop
 *                                 └── peer:   open, attach, pattern loop
 *   client closes ── peer sees end of stream (or SIGUSR1) ── reap ── teardown
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"

/* Written by the peer, read by the runner after the peer ended. */
struct peer_ctl {
	struct ipc_pout out;	   /* the server's loop result */
	int failed;		   /* nonzero: out.err/out.what say why */
	struct ipc_side_cost cost; /* the server's CPU cost and placement */
};

/* Buffers of one case, allocated and touched once, reused by every run. */
struct case_bufs {
	size_t len;
	uint8_t *expect; /* the payload pattern, shared read-only */
	uint8_t *c_send, *c_recv, *s_send, *s_recv;
	struct ipc_hist *run_hist;  /* the client's samples of one run */
	struct ipc_hist *run_xhist; /* replay: its exchanges of one run */
};

struct peer {
	const struct ipc_case *cs;
	const struct ipc_runopts *ro;
	struct ipc_chan *ch;
	struct case_bufs *b;
	struct peer_ctl *ctl; /* MAP_SHARED: visible across fork */
	pid_t pid;
	pthread_t thread;
	pthread_t client;
	bool thread_started;
	bool killed;		    /* we had to SIGKILL it */
	volatile sig_atomic_t stop; /* thread placement's stop flag */
	int status;		    /* waitpid status of a process peer */
};

static void pctx_init(struct ipc_pctx *pc, const struct peer *p,
		      enum ipc_side side, struct ipc_ep *ep,
		      const volatile sig_atomic_t *stop)
{
	const struct ipc_case *cs = p->cs;
	const struct ipc_runopts *ro = p->ro;

	memset(pc, 0, sizeof(*pc));
	pc->io.eng = cs->eng;
	pc->io.ep = ep;
	pc->io.stop = stop;
	pc->io.timeout_ns = (cs->tp->caps & IPC_TP_LOSSY) ? ro->timeout_ns : 0;
	pc->cs = cs;
	pc->side = side;
	pc->tp_caps = cs->tp->caps;
	pc->warmup = ro->warmup;
	pc->iterations = ro->duration_ns ? UINT64_MAX : ro->iterations;
	pc->duration_ns = ro->duration_ns;
	pc->verify = ro->verify;
	pc->expect = p->b->expect;
	pc->buf_bytes = p->b->len;
	pc->ch = p->ch;
	pc->faults = &ro->faults;
	if (side == IPC_CLIENT) {
		pc->sbuf = p->b->c_send;
		pc->rbuf = p->b->c_recv;
		pc->hist = p->b->run_hist;
		pc->xhist = p->b->run_xhist;
	} else {
		pc->sbuf = p->b->s_send;
		pc->rbuf = p->b->s_recv;
	}
}

static int pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * The peer of a pattern that opens its own endpoints (crr, load): it gets
 * the channel and does the rest.
 */
static void serve_own(struct peer *p, const volatile sig_atomic_t *stop)
{
	struct peer_ctl *ctl = p->ctl;
	struct ipc_pctx pc;
	struct cost_meter cm;
	int err;

	pctx_init(&pc, p, IPC_SERVER, NULL, stop);
	cost_begin(&cm, p->ro->perf);
	err = p->cs->pat->server(&pc);
	cost_end(&cm, &ctl->cost);
	ctl->out = pc.out;
	if (err)
		ctl->out.err = err;
	ctl->failed = err != 0;
}

/* The peer's whole life: open, answer, close; result into p->ctl. */
static void serve(struct peer *p, const volatile sig_atomic_t *stop)
{
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	struct peer_ctl *ctl = p->ctl;
	struct ipc_pctx pc;
	struct cost_meter cm;
	int err;

	err = pin_self(p->ro->pin_server);
	if (err) {
		snprintf(ctl->out.what, sizeof(ctl->out.what),
			 "pin the server to CPU %d: %s", p->ro->pin_server,
			 strerror(-err));
		goto fail;
	}
	if (p->cs->pat->flags & IPC_PAT_OWN_EP) {
		serve_own(p, stop);
		return;
	}
	err = p->cs->tp->open(p->ch, IPC_SERVER, &ep);
	if (err) {
		snprintf(ctl->out.what, sizeof(ctl->out.what),
			 "open the server side: %s", strerror(-err));
		goto fail;
	}
	pctx_init(&pc, p, IPC_SERVER, &ep, stop);
	err = p->cs->eng->attach(&pc.io);
	if (err) {
		snprintf(ctl->out.what, sizeof(ctl->out.what),
			 "attach engine %s: %s", p->cs->eng->name,
			 strerror(-err));
		goto fail_close;
	}
	cost_begin(&cm, p->ro->perf);
	err = p->cs->pat->server(&pc);
	cost_end(&cm, &ctl->cost);
	p->cs->eng->detach(&pc.io);
	ctl->out = pc.out;
	if (err)
		ctl->out.err = err;
	ctl->failed = err != 0;
	p->cs->tp->close(&ep);
	return;
fail_close:
	p->cs->tp->close(&ep);
fail:
	ctl->out.err = err;
	ctl->failed = 1;
}

static void *peer_thread(void *arg)
{
	struct peer *p = arg;

	serve(p, &p->stop);
	if (p->ctl->failed)
		pthread_kill(p->client, SIGUSR2); /* wake a blocked client */
	return NULL;
}

static int peer_start(struct peer *p)
{
	sigset_t block, old;
	pid_t parent = getpid();
	int err;

	if (p->ro->placement == IPC_PLACE_THREAD) {
		/* The peer thread must not take the user's Ctrl-C. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigaddset(&block, SIGCHLD);
		sigaddset(&block, SIGUSR2);
		sigaddset(&block, SIGALRM); /* the client's wake-up */
		pthread_sigmask(SIG_BLOCK, &block, &old);
		p->client = pthread_self();
		err = -pthread_create(&p->thread, NULL, peer_thread, p);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		p->thread_started = !err;
		return err;
	}
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		/* Die with the parent, even if it is killed. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		run_signals_peer_process();
		ipc_chan_drop_other(p->ch, IPC_SERVER);
		serve(p, &peer_stop);
		_exit(p->ctl->failed ? 1 : 0);
	}
	ipc_chan_drop_other(p->ch, IPC_CLIENT);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		; /* a signal (SIGCHLD) may cut it short */
}

/*
 * End the peer: it normally leaves on end of stream once the client closed;
 * a datagram peer cannot see that, so it is also asked with SIGUSR1 (again
 * every 10 ms, since a signal that lands just before it blocks is lost),
 * and killed after 2 s.
 */
static void peer_stop_wait(struct peer *p)
{
	int i;

	if (p->ro->placement == IPC_PLACE_THREAD) {
		if (!p->thread_started)
			return;
		p->stop = 1;
		for (i = 0; i < 200; i++) {
			if (pthread_tryjoin_np(p->thread, NULL) == 0)
				return;
			pthread_kill(p->thread, SIGUSR1);
			sleep_ms(10);
		}
		/*
		 * A thread cannot be killed; 2 s without an answer means it
		 * is stuck in a call no signal interrupts.  Wait for it.
		 */
		pthread_join(p->thread, NULL);
		return;
	}
	if (p->pid <= 0)
		return;
	for (i = 0; i < 200; i++) {
		if (waitpid(p->pid, &p->status, WNOHANG) == p->pid)
			goto reaped;
		if (i > 0)
			kill(p->pid, SIGUSR1);
		sleep_ms(i ? 10 : 1);
	}
	kill(p->pid, SIGKILL);
	p->killed = true;
	while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
		;
reaped:
	p->pid = 0;
}

/* How the peer ended, in words, or "" if it ended well. */
static void peer_story(const struct peer *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (p->killed) {
		snprintf(buf, len,
			 "peer did not stop within 2 s and was "
			 "killed");
		return;
	}
	if (p->ro->placement == IPC_PLACE_PROCESS && WIFSIGNALED(p->status)) {
		snprintf(buf, len, "peer killed by signal %d (%s)",
			 WTERMSIG(p->status), strsignal(WTERMSIG(p->status)));
		return;
	}
	if (p->ctl->failed && p->ctl->out.what[0]) {
		snprintf(buf, len, "peer: %s", p->ctl->out.what);
		return;
	}
	if (p->ro->placement == IPC_PLACE_PROCESS && WIFEXITED(p->status) &&
	    WEXITSTATUS(p->status) != 0)
		snprintf(buf, len, "peer exited with status %d",
			 WEXITSTATUS(p->status));
}

static void run_stats(struct ipc_run_stats *st, const struct ipc_pout *o,
		      const struct ipc_hist *h, uint64_t timer_ns)
{
	double s = o->elapsed_ns / 1e9;

	memset(st, 0, sizeof(*st));
	st->iterations = o->done;
	st->messages = o->messages;
	st->bytes = o->bytes;
	st->elapsed_ns = o->elapsed_ns;
	st->msgs_per_s = s > 0 ? o->messages / s : 0;
	st->bytes_per_s = s > 0 ? o->bytes / s : 0;
	ipc_hist_summary(h, &st->lat);
	st->timer_ns = timer_ns;
	st->loss = o->loss;
	st->flows = o->flows;
	memcpy(st->extra, o->extra, sizeof(st->extra));
	/* Cost is measured over the whole loop, warm-up included. */
	if (o->done)
		st->loop_msgs = (uint64_t)((double)o->messages *
					   (double)(o->warmup_done + o->done) /
					   (double)o->done);
}

/*
 * One run.  Returns 0 or -errno; on failure @err describes it.  @st holds
 * what was measured, even on failure (st->iterations may be 0).
 */
/* Why a run failed: the client's words, the peer's, how far warm-up got. */
struct run_fail {
	char what[200];
	char story[176]; /* "peer: " and a pattern's 160-byte what */
	uint64_t warm_done;
};

static int run_once(const struct ipc_case *cs, const struct ipc_runopts *ro,
		    struct case_bufs *b, struct peer_ctl *ctl,
		    struct ipc_run_stats *st, struct run_fail *f)
{
	char *err_buf = f->what;
	const size_t err_len = sizeof(f->what);
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	struct ipc_sock_info sock;
	struct ipc_tp_opts tpo = ro->tp;
	struct peer p = {.cs = cs, .ro = ro, .b = b, .ctl = ctl};
	struct ipc_relay *relay = NULL; /* an emulated link's, or none */
	struct ipc_chan ch, *cch = &ch; /* the channel the client opens */
	struct ipc_pctx pc;
	struct cost_meter cm;
	struct ipc_side_cost client_cost;
	cpu_set_t saved;
	bool pinned = false, attached = false;
	uint64_t timer_ns;
	int err;

	memset(st, 0, sizeof(*st));
	memset(ctl, 0, sizeof(*ctl));
	memset(&pc, 0, sizeof(pc));
	memset(f, 0, sizeof(*f));
	run_stop = ipc_interrupted ? 1 : 0;
	tpo.dir = ipc_tmpdir();
	tpo.max_msg = cs->pat->max_msg(cs);
	tpo.timeout_ns = ro->timeout_ns;
	ipc_chan_init(&ch, cs->tp, &tpo);
	p.ch = &ch;
	err = cs->tp->setup(&ch);
	if (err) {
		snprintf(err_buf, err_len, "set up the channel: %s",
			 strerror(-err));
		return err;
	}
	if (ro->pin_client >= 0) {
		sched_getaffinity(0, sizeof(saved), &saved);
		err = pin_self(ro->pin_client);
		if (err) {
			snprintf(err_buf, err_len,
				 "pin the client to CPU %d: %s", ro->pin_client,
				 strerror(-err));
			goto out_teardown;
		}
		pinned = true;
	}
	err = peer_start(&p);
	if (err) {
		snprintf(err_buf, err_len, "start the peer: %s",
			 strerror(-err));
		goto out_teardown;
	}
	/* From here a stop is repeated until seen (sys.c), opens included. */
	run_wake_begin();
	if (cs->pat->flags & IPC_PAT_OWN_EP) {
		pctx_init(&pc, &p, IPC_CLIENT, NULL, &run_stop);
		timer_ns = ipc_timer_cost_ns();
		cost_begin(&cm, ro->perf);
		err = cs->pat->client(&pc);
		cost_end(&cm, &client_cost);
		run_stats(st, &pc.out, b->run_hist, timer_ns);
		st->client = client_cost;
		f->warm_done = pc.out.warmup_done;
		if (err)
			snprintf(err_buf, err_len, "%s", pc.out.what);
		goto out_peer;
	}
	if (cs->link && cs->link->relay) {
		/* After the fork: the peer must inherit none of the relay. */
		err = ipc_relay_start(&relay, cs->link, cs->tp, &tpo, &ch,
				      &cch);
		if (err) {
			snprintf(err_buf, err_len, "start the link relay: %s",
				 strerror(-err));
			goto out_peer;
		}
	}
	err = cs->tp->open(cch, IPC_CLIENT, &ep);
	if (err) {
		snprintf(err_buf, err_len, "open the client side: %s",
			 strerror(-err));
		goto out_peer;
	}
	ipc_ep_sock_info(&ep, &sock); /* before an engine changes flags */
	pctx_init(&pc, &p, IPC_CLIENT, &ep, &run_stop);
	err = cs->eng->attach(&pc.io);
	if (err) {
		snprintf(err_buf, err_len, "attach engine %s: %s",
			 cs->eng->name, strerror(-err));
		goto out_close;
	}
	attached = true;
	timer_ns = ipc_timer_cost_ns();
	cost_begin(&cm, ro->perf);
	err = cs->pat->client(&pc);
	cost_end(&cm, &client_cost);
	run_stats(st, &pc.out, b->run_hist, timer_ns);
	st->client = client_cost;
	st->sock = sock;
	f->warm_done = pc.out.warmup_done;
	if (err)
		snprintf(err_buf, err_len, "%s", pc.out.what);
out_close:
	if (attached)
		cs->eng->detach(&pc.io);
	cs->tp->close(&ep);
out_peer:
	run_wake_end();
	peer_stop_wait(&p);
	st->server = ctl->cost; /* the peer has ended: nothing writes it now */
	peer_story(&p, f->story, sizeof(f->story));
	if (ipc_relay_stop(relay) && err && !f->story[0])
		snprintf(f->story, sizeof(f->story), "link relay: %s",
			 ipc_relay_error(relay));
	ipc_relay_free(relay);
	if (!err && f->story[0]) {
		/* The client finished but the peer did not end well. */
		err = ctl->out.err ? ctl->out.err : -EPIPE;
		snprintf(err_buf, err_len, "%s", f->story);
		f->story[0] = '\0';
	}
	if (err == -ECANCELED && ipc_interrupted) {
		/* What the peer did after that is only a consequence. */
		snprintf(err_buf, err_len, "interrupted by SIG%s",
			 sigabbrev_np(ipc_interrupted));
		f->story[0] = '\0';
	}
out_teardown:
	cs->tp->teardown(&ch);
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	return err;
}

static void *touch(size_t len)
{
	void *p = malloc(len);

	if (p)
		memset(p, 0, len); /* fault the pages in before timing */
	return p;
}

static void bufs_free(struct case_bufs *b)
{
	free(b->expect);
	free(b->c_send);
	free(b->c_recv);
	free(b->s_send);
	free(b->s_recv);
	ipc_hist_free(b->run_hist);
	ipc_hist_free(b->run_xhist);
}

static int bufs_alloc(struct case_bufs *b, const struct ipc_case *cs)
{
	memset(b, 0, sizeof(*b));
	b->len = cs->pat->buf_bytes(cs);
	b->expect = touch(b->len);
	b->c_send = touch(b->len);
	b->c_recv = touch(b->len);
	b->s_send = touch(b->len);
	b->s_recv = touch(b->len);
	b->run_hist = ipc_hist_new();
	b->run_xhist = ipc_hist_new();
	if (!b->expect || !b->c_send || !b->c_recv || !b->s_send ||
	    !b->s_recv || !b->run_hist || !b->run_xhist) {
		bufs_free(b);
		return -ENOMEM;
	}
	ipc_payload_fill(b->expect, b->len);
	memcpy(b->c_send, b->expect, b->len);
	memcpy(b->s_send, b->expect, b->len);
	return 0;
}

static int result_add_run(struct ipc_result *res,
			  const struct ipc_run_stats *st)
{
	if (res->nruns == res->runs_cap) {
		size_t cap = res->runs_cap ? 2 * res->runs_cap : 8;
		void *n = realloc(res->runs, cap * sizeof(*res->runs));

		if (!n)
			return -ENOMEM;
		res->runs = n;
		res->runs_cap = cap;
	}
	res->runs[res->nruns++] = *st;
	return 0;
}

/* "after 512 of 1000 iterations (run 2 of 3)" and the like. */
static void where_failed(const struct ipc_runopts *ro,
			 const struct ipc_run_stats *st, uint64_t warm_done,
			 unsigned run, char *buf, size_t len)
{
	char runs[40] = "";

	if (ro->runs_auto)
		snprintf(runs, sizeof(runs), " (run %u)", run + 1);
	else if (ro->runs > 1)
		snprintf(runs, sizeof(runs), " (run %u of %u)", run + 1,
			 ro->runs);
	if (!warm_done && !st->iterations)
		snprintf(buf, len, "before the first iteration%s", runs);
	else if (ro->warmup && warm_done < ro->warmup && !st->iterations)
		snprintf(buf, len,
			 "during warm-up, after %llu of %llu "
			 "iterations%s",
			 (unsigned long long)warm_done,
			 (unsigned long long)ro->warmup, runs);
	else if (ro->duration_ns)
		snprintf(buf, len, "after %llu iterations%s",
			 (unsigned long long)st->iterations, runs);
	else
		snprintf(buf, len, "after %llu of %llu iterations%s",
			 (unsigned long long)st->iterations,
			 (unsigned long long)ro->iterations, runs);
}

/* Add the loss counts of one run (completed or not) to @sum. */
static void loss_add(struct ipc_loss *sum, const struct ipc_loss *l)
{
	if (!l->counted)
		return;
	sum->counted = true;
	sum->reorder_known |= l->reorder_known;
	sum->sent += l->sent;
	sum->received += l->received;
	sum->lost += l->lost;
	sum->late += l->late;
	sum->reordered += l->reordered;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Fairness over all runs: the slowest flow of any run, the median of the
 * runs' median flows, the fastest flow of any run.
 */
static void flows_summarize(struct ipc_result *res, struct ipc_flows *out)
{
	double med[res->nruns ? res->nruns : 1];
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < res->nruns; i++) {
		const struct ipc_flows *f = &res->runs[i].flows;

		if (!f->flows)
			continue;
		if (!n || f->rate_min < out->rate_min)
			out->rate_min = f->rate_min;
		if (f->rate_max > out->rate_max)
			out->rate_max = f->rate_max;
		if (f->lag_max_ns > out->lag_max_ns)
			out->lag_max_ns = f->lag_max_ns;
		out->flows = f->flows;
		med[n++] = f->rate_median;
	}
	if (!n)
		return;
	qsort(med, n, sizeof(med[0]), cmp_double);
	out->rate_median =
		n % 2 ? med[n / 2] : (med[n / 2 - 1] + med[n / 2]) / 2;
}

/* One case between its runs: buffers and the peer's control block. */
struct ipc_case_state {
	const struct ipc_case *cs;
	struct ipc_runopts ro;
	struct ipc_result *res;
	struct case_bufs b;
	struct peer_ctl *ctl; /* MAP_SHARED, one page */
	int err;	      /* the failure that ended the case, or 0 */
	struct run_fail f;    /* its words */
	char where[128];
	struct ipc_loss loss; /* every run's losses, failed ones too */
};

int ipc_case_begin(const struct ipc_case *cs, const struct ipc_runopts *ro,
		   struct ipc_result *res, struct ipc_case_state **out)
{
	struct ipc_case_state *st;
	int err;

	*out = NULL;
	res->ro = *ro;
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(res->error, sizeof(res->error), "out of memory");
		res->status = IPC_STATUS_ERROR;
		return -ENOMEM;
	}
	st->cs = cs;
	st->ro = *ro;
	st->res = res;
	err = bufs_alloc(&st->b, cs);
	if (err) {
		snprintf(res->error, sizeof(res->error),
			 "cannot allocate %zu-byte buffers",
			 cs->pat->buf_bytes(cs));
		res->status = IPC_STATUS_ERROR;
		free(st);
		return err;
	}
	st->ctl = mmap(NULL, sizeof(*st->ctl), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->ctl == MAP_FAILED) {
		err = -errno;
		snprintf(res->error, sizeof(res->error), "mmap: %s",
			 strerror(-err));
		res->status = IPC_STATUS_ERROR;
		bufs_free(&st->b);
		free(st);
		return err;
	}
	*out = st;
	return 0;
}

int ipc_case_once(struct ipc_case_state *st)
{
	struct ipc_result *res = st->res;
	unsigned r = (unsigned)res->nruns;
	struct ipc_run_stats run;
	struct load_snap a, b;
	int err;

	if (st->err)
		return st->err;
	if (!st->b.expect) {
		/* Released by ipc_case_trim between two runs. */
		err = bufs_alloc(&st->b, st->cs);
		if (err) {
			st->err = err;
			snprintf(st->f.what, sizeof(st->f.what),
				 "cannot allocate %zu-byte buffers",
				 st->cs->pat->buf_bytes(st->cs));
			snprintf(st->where, sizeof(st->where), "before run %u",
				 r + 1);
			return err;
		}
	}
	if (ipc_interrupted) {
		st->err = -ECANCELED;
		snprintf(st->f.what, sizeof(st->f.what), "interrupted by SIG%s",
			 sigabbrev_np(ipc_interrupted));
		st->f.story[0] = '\0';
		if (st->ro.runs_auto)
			snprintf(st->where, sizeof(st->where), "before run %u",
				 r + 1);
		else
			snprintf(st->where, sizeof(st->where),
				 "before run %u of %u", r + 1, st->ro.runs);
		return st->err;
	}
	res->runs_begun++;
	load_snap(&a);
	err = run_once(st->cs, &st->ro, &st->b, st->ctl, &run, &st->f);
	load_snap(&b);
	load_diff(&a, &b, &run);
	loss_add(&st->loss, &run.loss);
	if (run.iterations) {
		ipc_hist_merge(res->hist, st->b.run_hist);
		if (res->xhist)
			ipc_hist_merge(res->xhist, st->b.run_xhist);
		if (result_add_run(res, &run) && !err)
			err = -ENOMEM;
	} else if (!err) {
		/*
		 * A run that ended well but measured nothing (every datagram
		 * of a short run lost) has no number to give: a failure.
		 */
		err = -ENODATA;
		if (run.loss.counted && run.loss.sent)
			snprintf(st->f.what, sizeof(st->f.what),
				 "no iteration completed: all %llu datagrams "
				 "lost",
				 (unsigned long long)run.loss.sent);
		else
			snprintf(st->f.what, sizeof(st->f.what),
				 "no iteration completed");
	}
	if (err == -ENODATA)
		snprintf(st->where, sizeof(st->where), "in run %u", r + 1);
	else if (err)
		where_failed(&st->ro, &run, st->f.warm_done, r, st->where,
			     sizeof(st->where));
	if (err)
		st->err = err;
	return err;
}

/*
 * Above this, a case's buffers are freed between runs when other cases run
 * in between: five 1 GiB messages' buffers per case, for every case of an
 * interleaved plan at once, would be too much.  Below it, keeping them
 * saves the page faults of a fresh allocation.
 */
#define TRIM_BYTES (16u << 20)

void ipc_case_trim(struct ipc_case_state *st)
{
	if (st && st->b.expect && st->b.len > TRIM_BYTES / 5) {
		bufs_free(&st->b);
		memset(&st->b, 0, sizeof(st->b));
	}
}

void ipc_case_end(struct ipc_case_state *st, enum ipc_stop stop)
{
	struct ipc_result *res;

	if (!st)
		return;
	res = st->res;
	if (st->err && st->err == -ECANCELED && ipc_interrupted)
		stop = IPC_STOP_INTERRUPTED;
	else if (st->err)
		stop = IPC_STOP_FAILED;
	ipc_result_diagnose(res, stop, ipc_loadavg_1m());
	res->summary.loss = st->loss;
	flows_summarize(res, &res->summary.flows);
	if (res->xhist)
		ipc_hist_summary(res->xhist, &res->xlat);
	ipc_result_pattern_summary(res);
	if (st->err) {
		res->status =
			res->nruns ? IPC_STATUS_PARTIAL : IPC_STATUS_ERROR;
		snprintf(res->error, sizeof(res->error), "%s %s%s%s",
			 st->f.what, st->where, st->f.story[0] ? "; " : "",
			 st->f.story);
	} else if (stop == IPC_STOP_INTERRUPTED && res->nruns) {
		/* Interrupted while another case ran: what it has stands. */
		res->status = IPC_STATUS_PARTIAL;
		snprintf(res->error, sizeof(res->error),
			 "interrupted by SIG%s after %zu run%s",
			 sigabbrev_np(ipc_interrupted ? ipc_interrupted
						      : SIGINT),
			 res->nruns, res->nruns == 1 ? "" : "s");
	} else if (stop == IPC_STOP_INTERRUPTED) {
		res->status = IPC_STATUS_ERROR;
		snprintf(res->error, sizeof(res->error),
			 "not run: interrupted by SIG%s",
			 sigabbrev_np(ipc_interrupted ? ipc_interrupted
						      : SIGINT));
	} else {
		res->status = IPC_STATUS_OK;
		res->error[0] = '\0';
	}
	munmap(st->ctl, sizeof(*st->ctl));
	bufs_free(&st->b);
	free(st);
}

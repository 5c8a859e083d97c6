/* SPDX-License-Identifier: MIT */
/*
 * The runner: each run of a case on a freshly set-up channel with a fresh
 * peer (a forked process, a thread, or a server that is already there),
 * the client's loop in the calling thread, then everything closed and
 * reaped, whatever happened.
 *
 *   setup channel ── peer start ──┬── client: open, attach, pattern loop
 *                                 └── peer:   open, attach, pattern loop
 *   client closes ── peer stop (end of stream, or its stop fired) ──
 *   teardown
 *
 * The calling thread watches the run's stop while it measures: a stop,
 * whoever fires it, interrupts whatever it blocks in.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"
#include "base/lib_internal.h"
#include "explain/lib_internal.h"
#include "link/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "transport/lib_internal.h"
#include "pattern/interval.h"

/* Buffers of one case, allocated and touched once, reused by every run. */
struct case_bufs {
	size_t len;
	uint8_t *expect; /* the payload pattern, shared read-only */
	uint8_t *c_send, *c_recv, *s_send, *s_recv;
	struct ipc_hist *run_hist;  /* the client's samples of one run */
	struct ipc_hist *run_xhist; /* replay: its exchanges of one run */
	struct ipc_ivals ivals;	    /* -i: the client's intervals of one run */
	const struct ipc_runopts *ro; /* ... told to ro->on_interval */
	const struct ipc_case *cs;
	unsigned run;
	uint32_t stream; /* -P: its stream, 1-based; 0: the whole run */
	void (*ready)(void *arg); /* the client's ipc_pctx.ready */
	void *ready_arg;
};

static void pctx_init(struct ipc_pctx *pc, const struct ipc_peer *p,
		      enum ipc_side side, struct ipc_ep *ep,
		      const struct ipc_cancel *stop)
{
	const struct ipc_case *cs = p->cs;
	const struct ipc_runopts *ro = p->ro;
	const struct case_bufs *b = p->serve_arg;

	memset(pc, 0, sizeof(*pc));
	pc->io.eng = cs->eng;
	pc->io.ep = ep;
	pc->io.cancel = stop;
	pc->io.timeout_ns = (cs->tp->caps & IPC_TP_LOSSY) ? ro->timeout_ns : 0;
	pc->cs = cs;
	pc->side = side;
	pc->tp_caps = cs->tp->caps;
	pc->warmup = ro->warmup;
	pc->iterations = ro->duration_ns ? UINT64_MAX : ro->iterations;
	pc->duration_ns = ro->duration_ns;
	pc->verify = ro->verify;
	pc->expect = b->expect;
	pc->buf_bytes = b->len;
	pc->ch = p->ch;
	pc->faults = &ro->faults;
	if (side == IPC_CLIENT) {
		pc->sbuf = b->c_send;
		pc->rbuf = b->c_recv;
		pc->hist = b->run_hist;
		pc->xhist = b->run_xhist;
		pc->ivals = b->ivals.v ? (struct ipc_ivals *)&b->ivals : NULL;
		pc->ready = b->ready;
		pc->ready_arg = b->ready_arg;
	} else {
		pc->sbuf = b->s_send;
		pc->rbuf = b->s_recv;
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
 * The server side of a run (struct ipc_peer.serve), in the peer's thread
 * or process: open, attach, loop, close; the result into p->out and
 * p->cost.  A pattern that opens its own endpoints (crr, load) gets the
 * channel and does the rest.
 */
static void serve(struct ipc_peer *p, const struct ipc_cancel *stop)
{
	struct ipc_ep ep = {.rfd = -1, .wfd = -1, .cancel = stop};
	const struct ipc_case *cs = p->cs;
	struct ipc_pctx pc;
	struct cost_meter cm;
	bool own = cs->pat->flags & IPC_PAT_OWN_EP;
	int err;

	memset(&p->out, 0, sizeof(p->out));
	memset(&p->cost, 0, sizeof(p->cost));
	err = pin_self(p->ro->pin_server);
	if (err) {
		snprintf(p->out.what, sizeof(p->out.what),
			 "pin the server to CPU %d: %s", p->ro->pin_server,
			 strerror(-err));
		goto fail;
	}
	if (p->explain)
		ipc_explain_watch(p->explain, 0, IPC_XSERVER); /* or unseen */
	if (!own) {
		err = cs->tp->open(p->ch, IPC_SERVER, &ep);
		if (err) {
			snprintf(p->out.what, sizeof(p->out.what),
				 "open the server side: %s", strerror(-err));
			goto fail;
		}
	}
	pctx_init(&pc, p, IPC_SERVER, own ? NULL : &ep, stop);
	err = own ? 0 : cs->eng->attach(&pc.io);
	if (err) {
		snprintf(p->out.what, sizeof(p->out.what),
			 "attach engine %s: %s", cs->eng->name, strerror(-err));
		goto fail_close;
	}
	cost_begin(&cm, p->ro->perf);
	err = cs->pat->server(&pc);
	cost_end(&cm, &p->cost);
	cost_add_helpers(&p->cost, &pc.out.helpers);
	if (!own)
		cs->eng->detach(&pc.io);
	p->out = pc.out;
	p->out.err = err; /* what it returned: a stop seen on the way is not
			     a failure (out.what may say what it saw) */
	if (!own)
		cs->tp->close(&ep);
	return;
fail_close:
	cs->tp->close(&ep);
fail:
	p->out.err = err;
}

/*
 * The calling thread while it measures: SIGPIPE blocked (a write to a
 * pipe whose reader died returns EPIPE; the signal is taken back before
 * the caller's mask returns), the wake signal open, and the run's stop
 * watched, so that a stop from any thread or handler interrupts it.
 */
struct client_thread {
	sigset_t old;
	int watch;
};

static int client_begin(struct client_thread *ct, struct ipc_cancel *stop)
{
	sigset_t set;

	ipc_sigpipe_hold(&ct->old);
	sigemptyset(&set);
	sigaddset(&set, ipc_wake_signal());
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	ct->watch = ipc_cancel_watch(stop);
	return ct->watch < 0 ? ct->watch : 0;
}

static void client_end(struct client_thread *ct, struct ipc_cancel *stop)
{
	ipc_cancel_unwatch(stop, ct->watch);
	ipc_sigpipe_release(&ct->old);
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

/* Why a run failed: the client's words, the peer's, how far warm-up got. */
struct run_fail {
	char what[200];
	char story[176]; /* "peer: " and a pattern's 160-byte what */
	uint64_t warm_done;
	bool stalled; /* the deadline's watchdog ended the client's wait */
	char mismatch[300]; /* the pattern's out.mismatch of this run */
	char session[160];  /* ... and its out.session */
};

/*
 * The client's side of one run, on the set-up channel @ch with the peer
 * started: open (through the link's relay if there is one), attach, the
 * pattern's loop, close.  Returns 0 or -errno with f->what saying why;
 * @st and *@relay as far as they got.
 */
static int client_side(struct ipc_peer *p, struct ipc_tp_opts *tpo,
		       struct ipc_relay **relay, struct ipc_run_stats *st,
		       struct run_fail *f)
{
	const struct ipc_case *cs = p->cs;
	const struct case_bufs *b = p->serve_arg;
	struct ipc_ep ep = {.rfd = -1, .wfd = -1, .cancel = p->client};
	struct ipc_chan *cch = p->ch; /* the channel the client opens */
	bool own = cs->pat->flags & IPC_PAT_OWN_EP;
	struct ipc_sock_info sock;
	struct ipc_pctx pc;
	struct cost_meter cm;
	struct ipc_side_cost cost;
	struct watchdog wd = {.fd = -1};
	uint64_t timer_ns;
	int err;

	memset(&sock, 0, sizeof(sock));
	if (!own && cs->link && cs->link->relay) {
		/* After the fork: the peer must inherit none of the relay. */
		err = ipc_relay_start(relay, cs->link, cs->tp, tpo, p->ch,
				      &cch);
		if (err) {
			snprintf(f->what, sizeof(f->what),
				 "start the link relay: %s", strerror(-err));
			return err;
		}
	}
	if (!own) {
		err = cs->tp->open(cch, IPC_CLIENT, &ep);
		if (err == -EINTR && ipc_cancelled(p->client))
			err = -ECANCELED; /* a FIFO's open, a connect */
		if (err) {
			snprintf(f->what, sizeof(f->what),
				 "open the client side: %s", strerror(-err));
			return err;
		}
		ipc_ep_sock_info(&ep, &sock); /* before an engine's flags */
	}
	pctx_init(&pc, p, IPC_CLIENT, own ? NULL : &ep, p->client);
	pc.window_ns = p->explain ? ipc_explain_window(p->explain) : NULL;
	if (p->explain) {
		pc.watch_self = xrun_watch_self;
		pc.watch_arg = p->explain;
	}
	err = own ? 0 : cs->eng->attach(&pc.io);
	if (err) {
		snprintf(f->what, sizeof(f->what), "attach engine %s: %s",
			 cs->eng->name, strerror(-err));
		cs->tp->close(&ep);
		return err;
	}
	if (p->ro->duration_ns) {
		err = watchdog_start(&wd, p->client, p->ro->duration_ns,
				     watchdog_grace_ns(cs, p->ro, tpo->max_msg),
				     watchdog_warm_ns(cs, p->ro, tpo->max_msg));
		if (err) {
			snprintf(f->what, sizeof(f->what),
				 "start the deadline's watchdog: %s",
				 strerror(-err));
			goto out;
		}
		pc.measuring_ns = &wd.start_ns;
	}
	timer_ns = ipc_timer_cost_ns();
	cost_begin(&cm, p->ro->perf);
	err = cs->pat->client(&pc);
	cost_end(&cm, &cost);
	ival_finish(&pc);
	snprintf(f->mismatch, sizeof(f->mismatch), "%s", pc.out.mismatch);
	snprintf(f->session, sizeof(f->session), "%s", pc.out.session);
	cost_add_helpers(&cost, &pc.out.helpers);
	if (watchdog_stop(&wd) && err && !wd.start_ns) {
		snprintf(f->what, sizeof(f->what),
			 "the peer stalled: the warm-up did not end within "
			 "%.1f s (peer stopped or hung)",
			 (double)wd.warm_ns / 1e9);
		f->stalled = true;
	} else if (wd.fired && err) {
		snprintf(f->what, sizeof(f->what),
			 "the peer stalled: the client still waited %.1f s "
			 "past the %.1f s deadline (peer stopped or hung)",
			 (double)wd.grace_ns / 1e9,
			 (double)p->ro->duration_ns / 1e9);
		f->stalled = true;
	}
	run_stats(st, &pc.out, b->run_hist, timer_ns);
	st->client = cost;
	st->sock = sock;
	f->warm_done = pc.out.warmup_done;
	if (err && !f->stalled)
		snprintf(f->what, sizeof(f->what), "%s", pc.out.what);
out:
	if (!own) {
		cs->eng->detach(&pc.io);
		cs->tp->close(&ep);
	}
	return err;
}

/*
 * Any local process can connect to a loopback port, and a server that
 * took the first connection would serve a stranger as its peer.  So
 * every connection of a local run over tcp or tcp6 starts with a token
 * of that run, 16 random bytes, and the server takes only those that show
 * it (the transport's preamble, remote mode's cookie
 * mechanism); the others are counted where the forked peer can add too.
 * Not http's: its server is for any client, ab and wrk too.
 * The token is sent outside the timed part except in crr and load, where
 * a connection is what is measured: there it is one more small send.
 */
#define RUN_TOKEN_BYTES 16
#define RUN_TOKEN_WAIT_NS 10000000000ull /* a silent stranger's slot */

struct run_token {
	uint8_t bytes[RUN_TOKEN_BYTES];
	uint64_t *refused; /* MAP_SHARED with a forked peer, NULL: none */
};

/* Give @tpo the token if the case's connections need one. */
static int token_arm(struct run_token *t, const struct ipc_case *cs,
		     const struct ipc_peer_ops *kind, struct ipc_tp_opts *tpo)
{
	const unsigned need = IPC_TP_CONNECT | IPC_TP_NET;
	void *m;

	t->refused = NULL;
	/* A server elsewhere has its own rules. */
	if ((cs->tp->caps & need) != need || (kind->flags & IPC_PEER_ELSEWHERE))
		return 0;
	m = mmap(NULL, sizeof(*t->refused), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	t->refused = m;
	tpo->preamble_refused = t->refused;
	/* One for any client takes no token: the pattern counts strangers. */
	if (cs->pat->flags & IPC_PAT_ANY_CLIENT)
		return 0;
	ipc_random_bytes(t->bytes, sizeof(t->bytes));
	tpo->preamble = t->bytes;
	tpo->preamble_len = sizeof(t->bytes);
	tpo->preamble_wait_ns = RUN_TOKEN_WAIT_NS;
	return 0;
}

/* After the teardown: the count into @res, the token forgotten. */
static void token_disarm(struct run_token *t, struct ipc_result *res)
{
	int64_t n;

	if (!t->refused)
		return;
	/* Below 0: an any-client pattern's own connections not all seen. */
	n = (int64_t)__atomic_load_n(t->refused, __ATOMIC_RELAXED);
	res->refused += n > 0 ? (uint64_t)n : 0;
	munmap(t->refused, sizeof(*t->refused));
	t->refused = NULL;
	memset(t->bytes, 0, sizeof(t->bytes));
}

/*
 * The figures the server counts (IPC_EXTRA_PEER) from its @out, when it
 * ran in this process or a child of it; not a number from elsewhere.
 */
static void peer_extras(struct ipc_run_stats *st, const struct ipc_pout *out,
			const struct ipc_peer_ops *kind,
			const struct ipc_extra *extras)
{
	const bool here = !(kind->flags & IPC_PEER_ELSEWHERE);

	for (size_t k = 0; extras && extras[k].key && k < IPC_EXTRA_MAX; k++)
		if (extras[k].flags & IPC_EXTRA_PEER)
			st->extra[k] = here ? out->extra[k] : NAN;
}

/*
 * One run.  Returns 0 or -errno; on failure @f describes it.  @st holds
 * what was measured, even on failure (st->iterations may be 0).
 */
static int run_once(struct ipc_run *run, struct ipc_cancel *stop,
		    const struct ipc_case *cs, const struct ipc_runopts *ro,
		    struct case_bufs *b, struct ipc_run_stats *st,
		    struct run_fail *f, struct ipc_result *res)
{
	const struct ipc_peer_ops *kind = ipc_peer_of(cs, ro);
	struct ipc_tp_opts tpo = ro->tp;
	struct ipc_peer p = {.cs = cs,
			     .ro = ro,
			     .client = stop,
			     .serve = serve,
			     .serve_arg = b};
	struct ipc_relay *relay = NULL; /* an emulated link's, or none */
	struct client_thread ct;
	struct run_token token;
	struct ipc_chan ch;
	cpu_set_t saved;
	char name[24], words[64];
	bool pinned = false;
	int err;

	memset(st, 0, sizeof(*st));
	memset(f, 0, sizeof(*f));
	run_chan_name(run, name, sizeof(name));
	tpo.dir = ipc_run_dir(run);
	tpo.name = name;
	tpo.target = (kind->flags & IPC_PEER_ELSEWHERE) ? cs->target : NULL;
	tpo.max_msg = cs->pat->max_msg(cs);
	tpo.timeout_ns = ro->timeout_ns;
	err = token_arm(&token, cs, kind, &tpo);
	if (err) {
		snprintf(f->what, sizeof(f->what), "map the token's count: %s",
			 strerror(-err));
		return err;
	}
	ipc_chan_init(&ch, cs->tp, &tpo);
	p.ch = &ch;
	p.explain = xrun_before(run, res);
	err = cs->tp->setup(&ch);
	if (err) {
		token_disarm(&token, res);
		snprintf(f->what, sizeof(f->what), "set up the channel: %s%s",
			 strerror(-err),
			 err == -ENAMETOOLONG
				 ? " (a socket file's path in $TMPDIR passes "
				   "108 bytes: use a shorter TMPDIR)"
				 : "");
		return err;
	}
	if (ro->pin_client >= 0) {
		sched_getaffinity(0, sizeof(saved), &saved);
		err = pin_self(ro->pin_client);
		if (err) {
			snprintf(f->what, sizeof(f->what),
				 "pin the client to CPU %d: %s", ro->pin_client,
				 strerror(-err));
			goto out_teardown;
		}
		pinned = true;
	}
	/* From here a stop interrupts this thread, opens included. */
	err = client_begin(&ct, stop);
	if (err) {
		snprintf(f->what, sizeof(f->what), "watch the run's stop: %s",
			 strerror(-err));
		goto out_thread;
	}
	err = kind->start(&p);
	if (err) {
		snprintf(f->what, sizeof(f->what), "%s", p.story);
		p.story[0] = '\0';
		goto out_thread;
	}
	err = client_side(&p, &tpo, &relay, st, f);
	kind->stop(&p);
	st->server = p.cost; /* the peer has ended: nothing writes it now */
	peer_extras(st, &p.out, kind, cs->pat->extras);
	if (!err)
		xrun_after(p.explain, res, st, &p);
	if (p.remote_host[0])
		memcpy(res->peer_host, p.remote_host, sizeof(res->peer_host));
	if (p.remote_others > res->peer_others)
		res->peer_others = p.remote_others;
	snprintf(f->story, sizeof(f->story), "%s", p.story);
	if (ipc_relay_stop(relay) && err && !f->story[0])
		snprintf(f->story, sizeof(f->story), "link relay: %s",
			 ipc_relay_error(relay));
	ipc_relay_free(relay);
	if (!err && f->story[0]) {
		/* The client finished but the peer did not end well. */
		err = p.out.err ? p.out.err : -EPIPE;
		snprintf(f->what, sizeof(f->what), "%s", f->story);
		f->story[0] = '\0';
	}
	if (err == -ECANCELED && ipc_run_stopped(run)) {
		/* What the peer did after that is only a consequence. */
		snprintf(f->what, sizeof(f->what), "%s",
			 run_stop_words(run, words, sizeof(words)));
		f->story[0] = '\0';
	}
out_thread:
	client_end(&ct, stop);
out_teardown:
	cs->tp->teardown(&ch);
	token_disarm(&token, res);
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	return err;
}

/*
 * A message buffer, faulted in, on a page boundary (as iperf3's, which it
 * maps from a file).  malloc gives 16-byte alignment (a page plus 16 above
 * 128 KiB), so every 64-byte line of a message straddled two: the kernel's
 * copy into a misaligned buffer and the check's 64-byte loads over it cost
 * more (one CPU, 64 KiB over a pipe: 6.97 GB/s checked, 7.72 aligned;
 * 8.24 and 8.54 unchecked, medians of 9 invocations).
 */
static void *touch(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

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
	ipc_hist_free(b->ivals.seen);
	ipc_hist_free(b->ivals.tmp);
	free(b->ivals.v);
}

/* The buffers of struct case_bufs: expect, and a send and a receive a side. */
#define CASE_BUFS 5

size_t ipc_case_buf_total(const struct ipc_case *cs)
{
	return CASE_BUFS * cs->pat->buf_bytes(cs);
}

/*
 * A closed interval to whoever asked (the CLI's line); the run it is in
 * is the one that will be added next.
 */
static void ival_told(void *arg, const struct ipc_interval *iv)
{
	/* Parallel streams close theirs from their own threads. */
	static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER;
	const struct case_bufs *b = arg;
	struct ipc_interval v = *iv;

	v.stream = b->stream;
	pthread_mutex_lock(&one);
	b->ro->on_interval(b->ro->on_interval_arg, b->cs, b->run, &v);
	pthread_mutex_unlock(&one);
}

/*
 * Storage for a run's intervals (-i): one per interval of a run by time
 * and one for the rest; a run by count gets IVAL_CAP_COUNT, after which
 * the last interval grows.
 */
#define IVAL_CAP_COUNT 3600
#define IVAL_CAP_MAX 100000

static int ivals_alloc(struct case_bufs *b, const struct ipc_case *cs,
		       const struct ipc_runopts *ro)
{
	struct ipc_ivals *iv = &b->ivals;
	uint64_t cap = IVAL_CAP_COUNT;

	memset(iv, 0, sizeof(*iv));
	if (!ro || !ro->interval_ns)
		return 0;
	if (ro->duration_ns)
		cap = ro->duration_ns / ro->interval_ns + 2;
	if (cap > IVAL_CAP_MAX)
		cap = IVAL_CAP_MAX;
	iv->len_ns = ro->interval_ns;
	iv->cap = (size_t)cap;
	iv->v = calloc(iv->cap, sizeof(*iv->v));
	iv->seen = ipc_hist_new();
	iv->tmp = ipc_hist_new();
	b->ro = ro;
	b->cs = cs;
	if (ro->on_interval) {
		iv->on_close = ival_told;
		iv->arg = b;
	}
	return iv->v && iv->seen && iv->tmp ? 0 : -ENOMEM;
}

static int bufs_alloc(struct case_bufs *b, const struct ipc_case *cs,
		      const struct ipc_runopts *ro)
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
	if (ivals_alloc(b, cs, ro) || !b->expect || !b->c_send || !b->c_recv ||
	    !b->s_send || !b->s_recv || !b->run_hist || !b->run_xhist) {
		bufs_free(b);
		return -ENOMEM;
	}
	ipc_payload_fill(b->expect, b->len);
	memcpy(b->c_send, b->expect, b->len);
	memcpy(b->s_send, b->expect, b->len);
	return 0;
}

/*
 * Make room in *@p, an array of @cap items of @size bytes, for @need of
 * them: @first at the least, doubling.  0 or -ENOMEM (*@p unchanged).
 */
static int grow(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? 2 * *cap : first;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*p, ncap * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}

/* The intervals of the run about to be added as run @run into @res. */
static int result_add_ivals(struct ipc_result *res, const struct ipc_ivals *iv,
			    unsigned run)
{
	if (grow((void **)&res->ivals, &res->ivals_cap, res->nivals + iv->n,
		 sizeof(*res->ivals), 64))
		return -ENOMEM;
	for (size_t i = 0; i < iv->n; i++) {
		res->ivals[res->nivals] = iv->v[i];
		res->ivals[res->nivals++].run = run;
	}
	return 0;
}

static int result_add_run(struct ipc_result *res,
			  const struct ipc_run_stats *st)
{
	if (grow((void **)&res->runs, &res->runs_cap, res->nruns + 1,
		 sizeof(*res->runs), 8))
		return -ENOMEM;
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Fairness over all runs: the slowest flow of any run, the median of the
 * runs' median flows, the fastest flow of any run, the median of the
 * runs' fairness indexes.
 */
static void flows_summarize(struct ipc_result *res, struct ipc_flows *out)
{
	double med[res->nruns ? res->nruns : 1],
		jain[res->nruns ? res->nruns : 1];
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
		jain[n] = f->jain;
		med[n++] = f->rate_median;
	}
	if (!n)
		return;
	qsort(med, n, sizeof(med[0]), cmp_double);
	qsort(jain, n, sizeof(jain[0]), cmp_double);
	out->rate_median =
		n % 2 ? med[n / 2] : (med[n / 2 - 1] + med[n / 2]) / 2;
	out->jain = n % 2 ? jain[n / 2] : (jain[n / 2 - 1] + jain[n / 2]) / 2;
}

/* One case between its runs: its run and buffers, how it failed. */
struct ipc_case_state {
	struct ipc_run *run;
	const struct ipc_case *cs;
	struct ipc_runopts ro;
	struct ipc_result *res;
	struct case_bufs b;
	int err;	   /* the failure that ended the case, or 0 */
	struct run_fail f; /* its words */
	char where[128];
	struct ipc_loss loss;	   /* every run's losses, failed ones too */
	struct load_probe load;	   /* where the load figure is read */
	struct stream_slot *slots; /* -P, --bidir: one per stream, or NULL */
	size_t nslots;
};

/*
 * How a run's parallel streams start.  They set up one at a time (each
 * holds turn from its thread's start until its setup is over): a peer
 * forked while another thread is inside the allocator would inherit
 * that allocator's lock held for ever (AddressSanitizer's has no fork
 * handler; glibc's does).  Then each waits until all are set up, so that
 * no fork comes once one has begun, and so that they measure at the
 * same time, as iperf3's do.
 */
struct stream_gate {
	pthread_mutex_t turn;
	pthread_mutex_t m;
	pthread_cond_t all;
	size_t want;	/* the streams started */
	size_t arrived; /* ... that are set up (or failed) */
};

/*
 * One of a run's parallel streams (-P, --bidir): its own case (its
 * direction), buffers, channel, peer and thread.  It has a stop of its
 * own, since only a few threads can watch one stop: the case's thread
 * passes the run's stop on to every stream.
 */
struct stream_slot {
	struct ipc_case cs;
	struct case_bufs b;
	struct ipc_cancel stop;
	bool stop_ok; /* stop was initialised */
	struct ipc_run_stats st;
	struct run_fail f;
	struct ipc_result res; /* what run_once notes besides the stats */
	struct ipc_case_state *owner;
	int done_fd; /* the case's eventfd: one added when it ends */
	int err;
	pthread_t th;
	struct stream_gate *gate;
	bool passed; /* through the gate */
};

/* Stream @arg is set up (or failed): its turn over, wait for the rest. */
static void gate_pass(void *arg)
{
	struct stream_slot *sl = arg;
	struct stream_gate *g = sl->gate;

	if (sl->passed)
		return;
	sl->passed = true;
	pthread_mutex_unlock(&g->turn);
	pthread_mutex_lock(&g->m);
	if (++g->arrived >= g->want)
		pthread_cond_broadcast(&g->all);
	while (g->arrived < g->want)
		pthread_cond_wait(&g->all, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void *stream_main(void *arg)
{
	struct stream_slot *sl = arg;
	struct ipc_case_state *st = sl->owner;
	uint64_t one = 1;

	pthread_mutex_lock(&sl->gate->turn);
	sl->err = run_once(st->run, &sl->stop, &sl->cs, &st->ro, &sl->b,
			   &sl->st, &sl->f, &sl->res);
	/* Failed before its loop: torn down in its turn, then let go. */
	gate_pass(sl);
	if (write(sl->done_fd, &one, sizeof(one)) != sizeof(one))
		abort(); /* an eventfd below its maximum takes it */
	return NULL;
}

static void slots_free(struct ipc_case_state *st)
{
	for (size_t i = 0; i < st->nslots; i++) {
		bufs_free(&st->slots[i].b);
		if (st->slots[i].stop_ok)
			ipc_cancel_fini(&st->slots[i].stop);
	}
	free(st->slots);
	st->slots = NULL;
	st->nslots = 0;
}

/*
 * The streams of case @cs: -P of them (one without -P), twice as many
 * with --bidir, where every second one goes the other way.
 */
static int slots_alloc(struct ipc_case_state *st, const struct ipc_case *cs)
{
	const bool bidir = cs->direction == IPC_DIR_BIDIR;
	size_t n = (cs->streams > 1 ? cs->streams : 1) * (bidir ? 2 : 1);
	int err;

	if (n < 2)
		return 0;
	st->slots = calloc(n, sizeof(*st->slots));
	if (!st->slots)
		return -ENOMEM;
	st->nslots = n;
	for (size_t i = 0; i < n; i++) {
		struct stream_slot *sl = &st->slots[i];

		sl->cs = *cs;
		sl->cs.streams = 0;
		if (bidir)
			sl->cs.direction =
				i % 2 ? IPC_DIR_REVERSE : IPC_DIR_SEND;
		sl->owner = st;
		err = ipc_cancel_init(&sl->stop);
		if (err)
			goto fail;
		sl->stop_ok = true;
		err = bufs_alloc(&sl->b, &sl->cs, &st->ro);
		if (err)
			goto fail;
		sl->b.stream = (uint32_t)i + 1;
	}
	return 0;
fail:
	slots_free(st);
	return err;
}

/*
 * Wait until every started stream ended, passing the run's stop on to
 * each.  A stream that fails does not stop the others: what they
 * measure stands, and the run is partial.  (A stream's own stop is also
 * fired by its peer's watcher once its run is over, too late to tell
 * from a failure here.)
 */
static void streams_wait(struct ipc_case_state *st, size_t started, int done_fd)
{
	struct pollfd pfd[2] = {{.fd = done_fd, .events = POLLIN},
				{.fd = ipc_cancel_fd(run_client_stop(st->run)),
				 .events = POLLIN}};
	size_t ended = 0;
	bool fired = false;
	uint64_t v;

	while (ended < started) {
		if (poll(pfd, fired ? 1 : 2, -1) < 0 && errno != EINTR)
			pfd[1].revents = POLLIN; /* cannot wait: stop them */
		if (!fired && pfd[1].revents) {
			for (size_t k = 0; k < started; k++)
				ipc_cancel_fire(&st->slots[k].stop);
			fired = true;
		}
		/* Once all are told to stop, only their ends are awaited. */
		if ((fired || pfd[0].revents) &&
		    read(done_fd, &v, sizeof(v)) == sizeof(v))
			ended += (size_t)v;
	}
}

/*
 * One run of parallel streams, each as one run of its own (run_once, in
 * its own thread), at the same time; then their figures summed into @out
 * and the case's buffers (histogram, intervals), and the first failure
 * (other than the stop it caused) into st->f.
 */
static int run_streams(struct ipc_case_state *st, struct ipc_run_stats *out)
{
	const unsigned r = (unsigned)st->res->nruns;
	const struct ipc_run_stats *sts[st->nslots];
	const struct ipc_ivals *ivs[st->nslots];
	struct stream_slot *bad = NULL;
	struct stream_gate gate = {.turn = PTHREAD_MUTEX_INITIALIZER,
				   .m = PTHREAD_MUTEX_INITIALIZER,
				   .all = PTHREAD_COND_INITIALIZER,
				   .want = st->nslots};
	size_t started = 0;
	int done_fd, err = 0;

	done_fd = eventfd(0, EFD_CLOEXEC);
	if (done_fd < 0) {
		err = -errno;
		snprintf(st->f.what, sizeof(st->f.what),
			 "make the streams' eventfd: %s", strerror(-err));
		return err;
	}
	pthread_mutex_lock(&gate.turn);
	for (size_t i = 0; i < st->nslots; i++) {
		struct stream_slot *sl = &st->slots[i];

		ipc_cancel_reset(&sl->stop);
		if (ipc_run_stopped(st->run))
			ipc_cancel_fire(&sl->stop);
		memset(&sl->res, 0, sizeof(sl->res));
		sl->res.ro = st->ro;
		sl->b.run = r;
		sl->b.ivals.n = 0;
		sl->done_fd = done_fd;
		sl->gate = &gate;
		sl->passed = false;
		sl->b.ready = gate_pass;
		sl->b.ready_arg = sl;
		err = -pthread_create(&sl->th, NULL, stream_main, sl);
		if (err) {
			snprintf(st->f.what, sizeof(st->f.what),
				 "start stream %zu of %zu: %s", i + 1,
				 st->nslots, strerror(-err));
			for (size_t k = 0; k < started; k++)
				ipc_cancel_fire(&st->slots[k].stop);
			break;
		}
		started++;
	}
	/* Started with turn held: creating a thread allocates too. */
	pthread_mutex_lock(&gate.m);
	gate.want = started;
	pthread_cond_broadcast(&gate.all);
	pthread_mutex_unlock(&gate.m);
	pthread_mutex_unlock(&gate.turn);
	streams_wait(st, started, done_fd);
	for (size_t i = 0; i < started; i++)
		pthread_join(st->slots[i].th, NULL);
	close(done_fd);
	ipc_hist_reset(st->b.run_hist);
	for (size_t i = 0; i < started; i++) {
		struct stream_slot *sl = &st->slots[i];

		ipc_hist_merge(st->b.run_hist, sl->b.run_hist);
		st->res->refused += sl->res.refused;
		if (sl->res.peer_host[0] && !st->res->peer_host[0])
			memcpy(st->res->peer_host, sl->res.peer_host,
			       sizeof(st->res->peer_host));
		if (sl->res.peer_others > st->res->peer_others)
			st->res->peer_others = sl->res.peer_others;
		if (sl->err &&
		    (!bad || (bad->err == -ECANCELED && sl->err != -ECANCELED)))
			bad = sl;
	}
	for (size_t i = 0; i < started; i++) {
		sts[i] = &st->slots[i].st;
		ivs[i] = &st->slots[i].b.ivals;
	}
	run_streams_sum(out, st->b.run_hist, sts, started,
			st->res->cs.pat ? st->res->cs.pat->extras : NULL);
	if (st->b.ivals.v)
		run_streams_ivals(&st->b.ivals, ivs, started);
	if (err)
		return err;
	if (bad) {
		snprintf(st->f.what, sizeof(st->f.what),
			 "stream %zu of %zu: %.160s",
			 (size_t)(bad - st->slots) + 1, st->nslots,
			 bad->f.what);
		snprintf(st->f.story, sizeof(st->f.story), "%s", bad->f.story);
		snprintf(st->f.mismatch, sizeof(st->f.mismatch), "%s",
			 bad->f.mismatch);
		st->f.warm_done = bad->f.warm_done;
		st->f.stalled = bad->f.stalled;
	}
	return bad ? bad->err : 0;
}

/* The run's streams, as run @r of the result. */
static int streams_add(struct ipc_case_state *st, unsigned r)
{
	struct ipc_result *res = st->res;
	if (grow((void **)&res->streams, &res->streams_cap,
		 res->nstreams + st->nslots, sizeof(*res->streams), 16))
		return -ENOMEM;
	for (size_t i = 0; i < st->nslots; i++) {
		const struct stream_slot *sl = &st->slots[i];

		res->streams[res->nstreams++] = (struct ipc_stream){
			.run = r,
			.index = (uint32_t)i,
			.direction = sl->cs.direction,
			.failed = sl->err != 0,
			.iterations = sl->st.iterations,
			.messages = sl->st.messages,
			.bytes = sl->st.bytes,
			.elapsed_ns = sl->st.elapsed_ns,
			.msgs_per_s = sl->st.msgs_per_s,
			.bytes_per_s = sl->st.bytes_per_s,
			.lost = sl->st.loss.lost,
		};
	}
	return 0;
}

int ipc_case_begin(struct ipc_run *run, const struct ipc_case *cs,
		   const struct ipc_runopts *ro, struct ipc_result *res,
		   struct ipc_case_state **out)
{
	const struct ipc_peer_ops *kind = ipc_peer_of(cs, ro);
	struct ipc_case_state *st;
	char why[256];
	int err;

	*out = NULL;
	res->ro = *ro;
	xrun_case_begin(run, res);
	if (kind->check) {
		err = kind->check(cs, ro, why, sizeof(why));
		if (err) {
			snprintf(res->error, sizeof(res->error), "%s", why);
			res->status = IPC_STATUS_ERROR;
			return err;
		}
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(res->error, sizeof(res->error), "out of memory");
		res->status = IPC_STATUS_ERROR;
		return -ENOMEM;
	}
	st->run = run;
	st->cs = cs;
	st->ro = *ro;
	st->res = res;
	load_probe(&st->load, NULL, ro->pm_qos_held ? ro->pm_qos_us : -1);
	err = bufs_alloc(&st->b, cs, &st->ro);
	if (!err) {
		err = slots_alloc(st, cs);
		if (err)
			bufs_free(&st->b);
	}
	if (err) {
		snprintf(res->error, sizeof(res->error),
			 "cannot allocate %zu-byte buffers",
			 cs->pat->buf_bytes(cs));
		res->status = IPC_STATUS_ERROR;
		free(st);
		return err;
	}
	*out = st;
	return 0;
}

/*
 * "all 100 requests failed (60 read, 40 timeout)" from a pattern's "failed" and
 * "failed_*" figures of @run (http's), into @buf; false when it counts
 * no failure.
 */
static bool failed_words(const struct ipc_pattern_ops *pat,
			 const struct ipc_run_stats *run, char *buf, size_t len)
{
	size_t nx = ipc_pattern_nextras(pat), n = 0, k;
	const char *key;
	double v;

	for (k = 0; k < nx; k++)
		if (!strcmp(pat->extras[k].key, "failed"))
			break;
	if (k == nx || !(run->extra[k] > 0))
		return false;
	n = (size_t)snprintf(buf, len, "all %.0f %ss failed", run->extra[k],
			     pat->sample);
	for (k = 0; k < nx && n < len; k++) {
		key = pat->extras[k].key;
		v = run->extra[k];
		if (strncmp(key, "failed_", 7) || !(v > 0))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%.0f %s",
				      strchr(buf, '(') ? ", " : " (", v,
				      key + 7);
	}
	if (strchr(buf, '(') && n + 1 < len)
		snprintf(buf + n, len - n, ")");
	return true;
}

int ipc_case_once(struct ipc_case_state *st)
{
	struct ipc_result *res = st->res;
	unsigned r = (unsigned)res->nruns;
	struct ipc_run_stats run;
	struct load_snap a, b;
	char why[96];
	int err;

	if (st->err)
		return st->err;
	if (!st->b.expect) {
		/* Released by ipc_case_trim between two runs. */
		err = bufs_alloc(&st->b, st->cs, &st->ro);
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
	if (ipc_run_stopped(st->run)) {
		st->err = -ECANCELED;
		run_stop_words(st->run, st->f.what, sizeof(st->f.what));
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
	st->b.run = r;
	st->b.ivals.n = 0;
	load_snap(&a, &st->load, NULL);
	run_client_fresh(st->run);
	if (st->nslots)
		err = run_streams(st, &run);
	else
		err = run_once(st->run, run_client_stop(st->run), st->cs,
			       &st->ro, &st->b, &run, &st->f, res);
	if (st->f.mismatch[0] && !res->mismatch[0])
		snprintf(res->mismatch, sizeof(res->mismatch), "%s",
			 st->f.mismatch);
	st->f.mismatch[0] = '\0';
	if (st->f.session[0] && !res->session[0])
		snprintf(res->session, sizeof(res->session), "%s",
			 st->f.session);
	st->f.session[0] = '\0';
	load_snap(&b, &st->load, &a);
	load_diff(&a, &b, &run);
	run_loss_add(&st->loss, &run.loss);
	if (run.iterations) {
		ipc_hist_merge(res->hist, st->b.run_hist);
		if (res->xhist)
			ipc_hist_merge(res->xhist, st->b.run_xhist);
		if ((result_add_ivals(res, &st->b.ivals, r) ||
		     (st->nslots && streams_add(st, r)) ||
		     result_add_run(res, &run)) &&
		    !err)
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
		else if (failed_words(st->cs->pat, &run, why, sizeof(why)))
			snprintf(st->f.what, sizeof(st->f.what),
				 "no iteration completed: %s", why);
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

/*
 * --explain-flagged: @res, measured and flagged for its runs' spread, run
 * again with explain (a fixed number of runs, outside the measured
 * figures, which stay as they are), where the program loads.  Where it
 * does not, or the pass fails, the result is left as it was: the
 * second pass only adds words.  A stop during it makes the result
 * partial: its runs stand, the command was interrupted.
 */
static void explain_again(struct ipc_run *run, struct ipc_result *res)
{
	struct ipc_runopts ro = res->ro;
	struct ipc_case_state *st;
	struct ipc_result *pass;
	const char *why;

	if (!run_explain(run, &why))
		return;
	ro.explain = true;
	ro.explain_flagged = false;
	ro.runs_auto = false;
	ro.runs = IPC_EXPLAIN_PASS_RUNS;
	ro.budget_ns = 0;
	ro.on_interval = NULL;
	pass = ipc_result_new(&res->cs);
	if (!pass)
		return;
	pass->ro = ro;
	if (!ipc_case_begin(run, &res->cs, &ro, pass, &st)) {
		for (unsigned i = 0; i < ro.runs && !ipc_run_stopped(run);
		     i++) {
			run_again_hook(run, res, i + 1, ro.runs);
			if (ipc_case_once(st))
				break;
		}
		ipc_case_end(st, IPC_STOP_RUNS);
	}
	if (ipc_run_stopped(run)) {
		/* What was measured stands; the stop is said, and fails. */
		char words[64];

		res->status = IPC_STATUS_PARTIAL;
		snprintf(res->error, sizeof(res->error),
			 "%s during the second pass with --explain, after "
			 "its %zu measured runs",
			 run_stop_words(run, words, sizeof(words)), res->nruns);
	} else if (pass->status == IPC_STATUS_OK && pass->nruns >= 2 &&
		   pass->explain && pass->explain->available) {
		result_explained_again(res, pass);
	}
	ipc_result_free(pass);
}

void ipc_case_end(struct ipc_case_state *st, enum ipc_stop stop)
{
	struct ipc_result *res;
	char words[64];

	if (!st)
		return;
	res = st->res;
	run_stop_words(st->run, words, sizeof(words));
	if (st->err && st->err == -ECANCELED && ipc_run_stopped(st->run))
		stop = IPC_STOP_INTERRUPTED;
	else if (st->err)
		stop = IPC_STOP_FAILED;
	xrun_case_end(res);
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
		snprintf(res->error, sizeof(res->error), "%s after %zu run%s",
			 words, res->nruns, res->nruns == 1 ? "" : "s");
	} else if (stop == IPC_STOP_INTERRUPTED) {
		res->status = IPC_STATUS_ERROR;
		snprintf(res->error, sizeof(res->error), "not run: %s", words);
	} else {
		res->status = IPC_STATUS_OK;
		res->error[0] = '\0';
	}
	bufs_free(&st->b);
	slots_free(st);
	/* One stream at a time is explained (--explain refuses -P). */
	if (res->status == IPC_STATUS_OK && res->ro.explain_flagged &&
	    !res->ro.explain && res->cs.streams <= 1 &&
	    res->cs.direction != IPC_DIR_BIDIR && result_spread_flagged(res) &&
	    !ipc_run_stopped(st->run))
		explain_again(st->run, res);
	free(st);
}

/* ---- the server side alone, for a server whose client is elsewhere ---- */

struct ipc_serve_state {
	const struct ipc_case *cs;
	const struct ipc_runopts *ro;
	struct case_bufs b;
};

int ipc_serve_begin(const struct ipc_case *cs, const struct ipc_runopts *ro,
		    struct ipc_serve_state **out)
{
	struct ipc_serve_state *st = calloc(1, sizeof(*st));
	int err;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->cs = cs;
	st->ro = ro;
	err = bufs_alloc(&st->b, cs, NULL);
	if (err) {
		free(st);
		return err;
	}
	*out = st;
	return 0;
}

void ipc_serve_once(struct ipc_serve_state *st, struct ipc_chan *ch,
		    const struct ipc_cancel *stop, struct ipc_pout *out,
		    struct ipc_side_cost *cost)
{
	struct ipc_peer p = {
		.cs = st->cs, .ro = st->ro, .ch = ch, .serve_arg = &st->b};

	serve(&p, stop);
	*out = p.out;
	*cost = p.cost;
}

void ipc_serve_end(struct ipc_serve_state *st)
{
	if (!st)
		return;
	bufs_free(&st->b);
	free(st);
}

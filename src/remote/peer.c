/* SPDX-License-Identifier: MIT */
/*
 * The remote peer kind (struct ipc_peer_ops, run.h): the other end of
 * every run is an `ipcperf server` on another host.  Each run is one test
 * of the control protocol (docs/protocol.md), so that nothing lives
 * between runs and every run starts from a fresh server process:
 *
 *   start: connect, hello, auth, test -> accept {cookie, data port};
 *          replay: the trace; the channel pointed at the data port (tcp:
 *          the cookie as each connection's preamble; udp: the socket
 *          connected there, the cookie knocked); run -> ready; a watcher
 *          thread on the control connection
 *   ...    the client's loop on the data endpoint only ...
 *   stop:  run_end -> run_stats (the server side's figures and CPU);
 *          done -> bye (the server host's fingerprint)
 *
 * The server says nothing on the control connection while a run is
 * measured, so anything that arrives there meanwhile (an error, end of
 * file: the server died or gave up) makes the watcher fire the client's
 * stop, and stop reads what it was.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipcperf/run.h"
#include "remote/remote_internal.h"
#include "base/lib_internal.h"

struct rpeer {
	struct ipc_rclient *c;
	uint8_t cookie[IPC_REMOTE_COOKIE_BYTES];
	int quit; /* eventfd that ends the watcher */
	pthread_t watcher;
	bool watching;
	bool ctl_event; /* the watcher saw the control connection speak */
	char why[IPC_RM_TEXT_MAX];
};

static const struct ipc_remote_opts *opts_of(const struct ipc_case *cs)
{
	static const struct ipc_remote_opts none = {
		.timeout_ns = IPC_REMOTE_CONTROL_TIMEOUT_NS,
		.software = "ipcperf",
	};

	return cs->peer_arg ? cs->peer_arg : &none;
}

static int rp_check(const struct ipc_case *cs, const struct ipc_runopts *ro,
		    char *why, size_t why_len)
{
	struct ipc_tp_opts o = ro->tp;
	int family, type;

	if (rm_transport_socket(cs->tp->name, &family, &type) ||
	    !(cs->tp->caps & IPC_TP_TARGET)) {
		snprintf(why, why_len,
			 "transport %s stays on this host: --remote takes "
			 "tcp, tcp6, udp or udp6",
			 cs->tp->name);
		return -EINVAL;
	}
	if (!cs->target || !cs->target[0]) {
		snprintf(why, why_len, "a remote peer needs its HOST:PORT");
		return -EINVAL;
	}
	o.target = cs->target;
	return cs->tp->check ? cs->tp->check(&o, why, why_len) : 0;
}

/* What the server side must run for @cs: one run, on its engine. */
static void rtest_of(const struct ipc_peer *p, struct ipc_rtest *t)
{
	const struct ipc_remote_opts *o = opts_of(p->cs);

	rm_test_of(p->cs, p->ro, t);
	if (o->server_engine)
		rm_strlcpy(t->engine, o->server_engine, sizeof(t->engine));
	t->runs = 1;
}

/*
 * The watcher: anything on the control connection during the run (an
 * error message, end of file, a reset) means the server's side is gone;
 * the client, which may be blocked on a datagram that will never come, is
 * stopped.
 */
static void *watch_ctl(void *arg)
{
	struct ipc_peer *p = arg;
	struct rpeer *rp = p->priv;
	struct pollfd pfd[2] = {
		{.fd = rp->quit, .events = POLLIN},
		{.fd = ipc_rclient_fd(rp->c), .events = POLLIN | POLLRDHUP}};
	int n;

	for (;;) {
		n = poll(pfd, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[0].revents)
			return NULL;
		if (pfd[1].revents)
			break;
	}
	rp->ctl_event = true;
	ipc_cancel_fire(p->client);
	return NULL;
}

static void rp_free(struct rpeer *rp)
{
	if (rp->quit >= 0)
		close(rp->quit);
	ipc_rclient_free(rp->c);
	free(rp);
}

static int rp_start(struct ipc_peer *p)
{
	const struct ipc_remote_opts *o = opts_of(p->cs);
	struct ipc_rclient_conf conf = {.server = p->cs->target,
					.key = o->key,
					.timeout_ns = o->timeout_ns,
					.software = o->software};
	struct ipc_chan *ch = p->ch;
	struct ipc_rtest t;
	struct ipc_rmsg *acc = NULL;
	struct rpeer *rp;
	char *text = NULL;
	size_t text_len = 0;
	int udp_fd = -1, err;

	rp = calloc(1, sizeof(*rp));
	acc = malloc(sizeof(*acc));
	if (!rp || !acc) {
		free(rp);
		free(acc);
		snprintf(p->story, sizeof(p->story), "remote: out of memory");
		return -ENOMEM;
	}
	rp->quit = -1;
	rtest_of(p, &t);
	if (p->cs->trace) {
		err = rm_trace_text(p->cs->trace, &text, &text_len);
		if (err) {
			snprintf(rp->why, sizeof(rp->why),
				 "cannot write the trace out: %s",
				 strerror(-err));
			goto fail;
		}
		t.trace_bytes = text_len;
	}
	err = ipc_rclient_open(&conf, &rp->c, rp->why, sizeof(rp->why));
	if (!err)
		err = ipc_rclient_test(rp->c, &t, acc, rp->why,
				       sizeof(rp->why));
	if (!err && text_len)
		err = ipc_rclient_send_trace(rp->c, text, text_len, rp->why,
					     sizeof(rp->why));
	if (err)
		goto fail;
	/* The data port, at the server's address in the transport's family. */
	err = ipc_rclient_data_addr(rp->c, ch->addr.ss_family, &ch->addr,
				    &ch->addr_len, rp->why, sizeof(rp->why));
	if (err)
		goto fail;
	memcpy(rp->cookie, ipc_rclient_cookie(rp->c), sizeof(rp->cookie));
	if (p->cs->tp->caps & IPC_TP_LOSSY)
		udp_fd = ch->fd[IPC_CLIENT];
	else {
		ch->opts.preamble = rp->cookie;
		ch->opts.preamble_len = sizeof(rp->cookie);
	}
	err = ipc_rclient_run_start(rp->c, 0, udp_fd, rp->why, sizeof(rp->why));
	if (err)
		goto fail;
	rp->quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rp->quit < 0) {
		err = -errno;
		snprintf(rp->why, sizeof(rp->why), "eventfd: %s",
			 strerror(-err));
		goto fail;
	}
	p->priv = rp;
	err = ipc_thread_start(&rp->watcher, watch_ctl, p);
	if (err) {
		p->priv = NULL;
		snprintf(rp->why, sizeof(rp->why),
			 "start the control watcher: %s", strerror(-err));
		goto fail;
	}
	rp->watching = true;
	free(text);
	free(acc);
	return 0;
fail:
	snprintf(p->story, sizeof(p->story), "remote: %.160s",
		 rp->why[0] ? rp->why : strerror(-err));
	ch->opts.preamble = NULL;
	ch->opts.preamble_len = 0;
	free(text);
	free(acc);
	rp_free(rp);
	return err;
}

/* The server side's figures of the run into @p. */
static void take_stats(struct ipc_peer *p, const struct ipc_rrun_stats *st)
{
	p->out.messages = st->messages;
	p->out.bytes = st->bytes;
	p->remote_others = st->others;
	memset(&p->cost, 0, sizeof(p->cost));
	p->cost.valid = true;
	p->cost.user_ns = st->user_ns;
	p->cost.sys_ns = st->sys_ns;
	p->cost.vcsw = st->vcsw;
	p->cost.ivcsw = st->ivcsw;
	p->cost.cycles = -1;
	p->cost.instructions = -1;
	p->cost.migrations = -1;
	p->cost.cpu_start = -1;
	p->cost.cpu_end = -1;
	rm_xclient_take(p, st->explain);
	if (st->err) {
		p->out.err = -(int)st->err;
		snprintf(p->story, sizeof(p->story), "remote: %.160s",
			 st->what[0] ? st->what : strerror((int)st->err));
	}
}

static void rp_stop(struct ipc_peer *p)
{
	struct rpeer *rp = p->priv;
	struct ipc_rrun_stats st;
	struct ipc_rmsg *bye;
	const uint64_t one = 1;
	int err;

	if (!rp)
		return;
	if (rp->watching) {
		(void)!write(rp->quit, &one, sizeof(one));
		pthread_join(rp->watcher, NULL);
	}
	p->ch->opts.preamble = NULL;
	p->ch->opts.preamble_len = 0;
	memset(&p->cost, 0, sizeof(p->cost));
	err = ipc_rclient_run_end(rp->c, 0, &st, rp->why, sizeof(rp->why));
	if (err) {
		/* Gone or refusing: what it said, or how it went. */
		snprintf(p->story, sizeof(p->story), "remote: %.150s%s",
			 rp->why, rp->ctl_event ? " (during the run)" : "");
		p->out.err = err;
		goto out;
	}
	take_stats(p, &st);
	bye = calloc(1, sizeof(*bye));
	if (bye && !ipc_rclient_done(rp->c, bye, rp->why, sizeof(rp->why)))
		rm_strlcpy(p->remote_host, bye->host, sizeof(p->remote_host));
	free(bye);
out:
	rp_free(rp);
	p->priv = NULL;
}

const struct ipc_peer_ops ipc_peer_remote = {
	.name = "remote",
	.help = "an ipcperf server on another host (--remote HOST[:PORT])",
	.flags = IPC_PEER_ELSEWHERE,
	.check = rp_check,
	.start = rp_start,
	.stop = rp_stop,
};

/* SPDX-License-Identifier: MIT */
/*
 * http: HTTP/1.1 load, on load's many-flow client (its threads, closed and
 * open loops, histograms).  An exchange is a batch of --pipeline requests,
 * all written at once, and its responses, read through the parser; each
 * response is one sample, from the start of the batch (the first byte of
 * the requests written; the due time in an open loop; the connect with
 * --no-keepalive) to the last byte of that response read.
 *
 * Failures are data, counted by reason as ab counts them, and the flow
 * goes on on a new connection:
 *
 *   connect   the connection could not be made
 *   write     the request could not be sent
 *   read      the connection failed or closed before a response began
 *   length    a body cut short by the close, or not as long as the first
 *             whole body of the run (ab's "Length")
 *   protocol  bytes that are not an HTTP response: a lying Content-Length
 *             shows here, as the response it ends when its extra bytes
 *             come in the same read, else as the next one (the extra
 *             bytes are no response)
 *   non-2xx   whole responses with a status outside 200-299, by class
 *   timeout   no whole response within --request-timeout of the start of
 *             its exchange: the connection is closed
 *
 * A response saying Connection: close (or an HTTP/1.0 one without
 * keep-alive) ends its connection: the next request opens a new one, and
 * the requests of its batch after it fail as "read".  The server side is
 * the built-in target (pattern/http_serve.c); a URL's server is the
 * external peer's (run.h), and the flows connect to it on the channel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "describe.h"
#include "load.h"
#include "msg.h"
#include "ipcperf/framing.h"
#include "framing/lib_internal.h"
#include "pattern/lib_internal.h"

#define RBUF_MAX (64u << 10) /* receive buffer per flow, at most */
#define RBUF_MIN (4u << 10)
#define RBUF_ALL (64u << 20) /* over all flows */

/* The extras, in the order of http_extras[]. */
enum {
	X_KEEPALIVE,
	X_FAILED,
	X_F_CONNECT,
	X_F_WRITE,
	X_F_READ,
	X_F_LENGTH,
	X_F_PROTOCOL,
	X_NON2XX,
	X_S3XX,
	X_S4XX,
	X_S5XX,
	X_BODY,
	X_RECONNECTS,
	X_F_TIMEOUT,
	X_COUNT
};

/* One thread's counts of the measured phase. */
struct hcount {
	double x[X_COUNT];
	uint64_t wire;	    /* response bytes on the wire */
	uint64_t first_len; /* the first whole 2xx body's length, +1 */
};

/* A flow's HTTP state. */
struct hflow {
	struct ipc_http_parser p;
	uint32_t pending; /* responses of the batch still to come */
	bool conn;	  /* connected, in the flow set */
	bool closing;	  /* the server ends the connection after this */
	bool recv_on;	  /* a receive is posted */
};

/* The client's state, shared by its threads (read-only during the run). */
struct hclient {
	const struct ipc_http_cfg *cfg;
	char *req; /* --pipeline copies of the request */
	size_t req_len;
	size_t rbuf;	    /* each flow's receive buffer */
	struct hflow *hf;   /* per flow */
	struct hcount *cnt; /* per thread */
	bool head;	    /* the method is HEAD */
	uint64_t connects;  /* connections opened, all threads (atomic) */
};

static struct hclient *hc_of(struct lthread *th)
{
	return th->sh->arg;
}

static struct hcount *cnt_of(struct lthread *th)
{
	return &hc_of(th)->cnt[th - th->sh->th];
}

/* ---- connections ---------------------------------------------------- */

/*
 * Connect flow @x on the case's channel: to the built-in target, or to
 * the URL's server (the external peer set the channel up toward it).
 */
static int connect_flow(struct ipc_pctx *c, struct cflow *x)
{
	return c->cs->tp->open(c->ch, IPC_CLIENT, &x->ep);
}

static int open_flow(const struct ld_proto *p, struct ipc_pctx *c,
		     struct cflow *x)
{
	struct hclient *hc = p->arg;
	int err = connect_flow(c, x);

	if (!err) {
		__atomic_fetch_add(&hc->connects, 1, __ATOMIC_RELAXED);
		hc->hf[x->g].conn = true;
		ipc_http_parser_init(&hc->hf[x->g].p, false);
	}
	return err;
}

static void init_flow(const struct ld_proto *p, struct ipc_pctx *c,
		      struct cflow *x)
{
	struct hclient *hc = p->arg;

	(void)c;
	x->priv = &hc->hf[x->g];
}

/* Drop flow @f's connection (its pending operations cancelled). */
static void drop(struct lthread *th, uint32_t f)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;

	if (!h->conn)
		return;
	if (x->sent < hc_of(th)->req_len)
		e->fs_cancel(th->fs, f, IPC_FOP_SEND);
	if (h->recv_on)
		e->fs_cancel(th->fs, f, IPC_FOP_RECV);
	h->recv_on = false;
	e->fs_del(th->fs, f);
	if (x->ep.ops)
		x->ep.ops->close(&x->ep);
	else
		close(x->ep.rfd);
	x->ep = (struct ipc_ep){.rfd = -1, .wfd = -1};
	h->conn = false;
}

/* ---- one exchange --------------------------------------------------- */

static int start(struct lthread *th, uint32_t f, uint64_t t0)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	int err;

	x->t0 = t0;
	x->busy = true;
	x->sent = 0;
	if (!h->conn) {
		err = connect_flow(&th->pc, x);
		if (!err)
			err = e->fs_add(th->fs, f, &x->ep);
		if (err)
			return msg_fail(&th->pc, err, "reconnect");
		h->conn = true;
		ipc_http_parser_init(&h->p, false);
		cnt_of(th)->x[X_RECONNECTS]++;
		__atomic_fetch_add(&hc->connects, 1, __ATOMIC_RELAXED);
	}
	h->pending = hc->cfg->pipeline;
	h->closing = false;
	ipc_http_expect_head(&h->p, hc->head);
	err = e->fs_recv(th->fs, f, x->rbuf, hc->rbuf);
	h->recv_on = !err;
	if (!err)
		err = e->fs_send(th->fs, f, hc->req, hc->req_len);
	return err ? msg_fail(&th->pc, err, "start a request") : 0;
}

/* The exchange of flow @f is over: free the flow, close if it must. */
static void finish(struct lthread *th, uint32_t f, bool *fin)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;

	if (h->closing)
		drop(th, f);
	x->busy = false;
	*fin = true;
}

/* The rest of flow @f's batch failed for @why; the connection goes. */
static void fail(struct lthread *th, uint32_t f, bool rec, int why, bool *fin)
{
	struct hflow *h = th->fl[f].priv;
	struct hcount *n = cnt_of(th);

	if (rec && h->pending) {
		n->x[why] += h->pending;
		n->x[X_FAILED] += h->pending;
	}
	h->pending = 0;
	h->closing = true;
	finish(th, f, fin);
}

/* A whole response on flow @f: count it, time it. */
static void response(struct lthread *th, uint32_t f, bool rec)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	const struct ipc_http_msg *m = &h->p.msg;
	struct hcount *n = cnt_of(th);

	h->pending--;
	if (!m->keep_alive)
		h->closing = true;
	ld_record(th, x, rec, ipc_now_ns());
	if (!rec)
		return;
	n->wire += m->wire_bytes;
	n->x[X_BODY] += (double)m->body_bytes;
	if (m->keep_alive)
		n->x[X_KEEPALIVE]++;
	if (m->status < 200 || m->status > 299) {
		n->x[X_NON2XX]++;
		n->x[X_FAILED]++;
		if (m->status >= 300 && m->status < 600)
			n->x[X_S3XX + m->status / 100 - 3]++;
		return;
	}
	if (!n->first_len)
		n->first_len = m->body_bytes + 1;
	else if (!hc_of(th)->head && m->body_bytes + 1 != n->first_len) {
		n->x[X_F_LENGTH]++;
		n->x[X_FAILED]++;
	}
}

/* @len bytes came on flow @f: parse them into responses. */
static int got(struct lthread *th, uint32_t f, size_t len, bool rec, bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	size_t off = 0;
	int err;

	while (off < len) {
		bool done;
		ssize_t r;

		if (!h->pending) {
			/* Bytes beyond the last response: not HTTP. */
			fail(th, f, rec, X_F_PROTOCOL, fin);
			return 0;
		}
		r = ipc_http_feed(&h->p, (const char *)x->rbuf + off, len - off,
				  &done);
		if (r < 0) {
			fail(th, f, rec, X_F_PROTOCOL, fin);
			return 0;
		}
		off += (size_t)r;
		if (!done)
			continue;
		if (h->pending == 1 && off < len) {
			/*
			 * Bytes after the batch's last response, in the same
			 * read: its Content-Length lied (or the server sent
			 * what nobody asked for).  That response fails.
			 */
			fail(th, f, rec, X_F_PROTOCOL, fin);
			return 0;
		}
		response(th, f, rec);
		if (h->closing && h->pending) {
			fail(th, f, rec, X_F_READ, fin);
			return 0;
		}
		ipc_http_expect_head(&h->p, hc->head);
	}
	if (!h->pending) {
		if (x->sent == hc->req_len)
			finish(th, f, fin);
		return 0;
	}
	err = e->fs_recv(th->fs, f, x->rbuf, hc->rbuf);
	h->recv_on = !err;
	return err ? msg_fail(&th->pc, err, "receive") : 0;
}

/* Flow @f's exchange ran out of time: what is pending fails, it closes. */
static void expire(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	struct hflow *h = th->fl[f].priv;

	if (!h->pending) {
		/* Answered, but the request is still being written. */
		h->closing = true;
		finish(th, f, fin);
		return;
	}
	fail(th, f, rec, X_F_TIMEOUT, fin);
}

static int done(struct lthread *th, const struct ipc_fdone *d, bool rec,
		bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[d->flow];
	struct hflow *h = x->priv;
	int end, err;

	*fin = false;
	if (d->op == IPC_FOP_SEND) {
		if (d->res < 0) {
			x->sent = hc->req_len; /* nothing pending any more */
			if (h->pending)
				fail(th, d->flow, rec, X_F_WRITE, fin);
			else
				finish(th, d->flow, fin);
			return 0;
		}
		x->sent += (size_t)d->res;
		if (x->sent < hc->req_len) {
			err = e->fs_send(th->fs, d->flow, hc->req + x->sent,
					 hc->req_len - x->sent);
			return err ? msg_fail(&th->pc, err, "send") : 0;
		}
		if (!h->pending)
			finish(th, d->flow, fin);
		return 0;
	}
	h->recv_on = false;
	if (d->res < 0) {
		fail(th, d->flow, rec, X_F_READ, fin);
		return 0;
	}
	if (d->res > 0)
		return got(th, d->flow, (size_t)d->res, rec, fin);
	/* End of stream: it may end a body that runs to the close. */
	end = ipc_http_eof(&h->p);
	if (end == 1) {
		response(th, d->flow, rec);
		h->closing = true;
	}
	if (!h->pending) {
		x->sent = hc->req_len;
		finish(th, d->flow, fin);
	} else {
		fail(th, d->flow, rec,
		     end < 0 && h->p.msg.head_done ? X_F_LENGTH : X_F_READ,
		     fin);
	}
	return 0;
}

static void gather(struct ipc_pctx *c, struct shared *sh)
{
	struct hclient *hc = sh->arg;
	uint64_t wire = 0;

	memset(c->out.extra, 0, sizeof(c->out.extra));
	for (unsigned i = 0; i < sh->nth; i++) {
		for (int k = 0; k < X_COUNT; k++)
			c->out.extra[k] += hc->cnt[i].x[k];
		wire += hc->cnt[i].wire;
	}
	c->out.bytes = wire;
}

/* ---- the client and the server -------------------------------------- */

/* The request, --pipeline times, with its body; 0 or -errno. */
static int build(struct hclient *hc, struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = hc->cfg;
	struct ipc_http_req_spec s = {.method = cfg->method,
				      .host = cfg->authority,
				      .path = cfg->path,
				      .headers = cfg->headers,
				      .nheaders = cfg->nheaders,
				      .body_bytes = cfg->body,
				      .close = !cfg->keepalive};
	char head[8192], why[160];
	ssize_t n = ipc_http_req_head(head, sizeof(head), &s, why, sizeof(why));
	size_t one;

	if (n < 0)
		return msg_fail(c, (int)n, "build the request");
	one = (size_t)n + cfg->body;
	hc->req_len = one * cfg->pipeline;
	hc->req = malloc(hc->req_len);
	if (!hc->req)
		return msg_fail(c, -ENOMEM, "build the request");
	for (uint32_t i = 0; i < cfg->pipeline; i++) {
		memcpy(hc->req + i * one, head, (size_t)n);
		ipc_payload_fill((uint8_t *)hc->req + i * one + n, cfg->body);
	}
	hc->head = !strcmp(cfg->method, "HEAD");
	return 0;
}

/*
 * The built-in target serves any client (ab and wrk too), so a local run
 * cannot give its connections a token.  Instead it counts: the target
 * adds the connections it accepted and the client takes away those it
 * opened, in the run's counter of refused strangers, so that what
 * another process sent it flags the result.
 */
static void strangers_count(struct ipc_pctx *c, int64_t n)
{
	uint64_t *cnt = c->ch ? c->ch->opts.preamble_refused : NULL;

	if (cnt && !c->cs->peer)
		__atomic_fetch_add(cnt, (uint64_t)n, __ATOMIC_RELAXED);
}

static int http_client(struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = c->cs->cfg;
	const unsigned nth = c->cs->threads ? c->cs->threads : 1;
	struct hclient hc = {.cfg = cfg};
	struct ld_proto p = {.start = start,
			     .done = done,
			     .init_flow = init_flow,
			     .open_flow = open_flow,
			     .gather = gather,
			     .expire = expire,
			     .timeout_ns = cfg->timeout_ns,
			     .arg = &hc};
	struct ipc_pctx pc = *c;
	uint64_t per = RBUF_ALL / (c->cs->flows ? c->cs->flows : 1);
	int err;

	hc.rbuf = per > RBUF_MAX ? RBUF_MAX : per < RBUF_MIN ? RBUF_MIN : per;
	p.rbuf_bytes = hc.rbuf;
	hc.hf = calloc(c->cs->flows, sizeof(*hc.hf));
	hc.cnt = calloc(nth, sizeof(*hc.cnt));
	if (!hc.hf || !hc.cnt) {
		err = msg_fail(c, -ENOMEM, "allocate the flows");
		goto out;
	}
	err = build(&hc, c);
	if (err)
		goto out;
	/* An exchange is a batch of --pipeline requests. */
	if (cfg->pipeline > 1) {
		pc.iterations =
			(c->iterations + cfg->pipeline - 1) / cfg->pipeline;
		pc.warmup = (c->warmup + cfg->pipeline - 1) / cfg->pipeline;
	}
	err = ld_run(&pc, &p);
	c->out = pc.out;
	strangers_count(c, -(int64_t)hc.connects);
out:
	free(hc.req);
	free(hc.hf);
	free(hc.cnt);
	return err;
}

/*
 * The built-in target, until the side's stop.  (A URL's server is the
 * external peer's: no server side runs here then.)
 */
static int http_server(struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = c->cs->cfg;
	struct ipc_http_serve_opts o = {.listen_fd = -1,
					.page_bytes = cfg->page,
					.chunk_bytes = cfg->chunk,
					.chunked = cfg->chunked,
					.stop_fd = ipc_cancel_fd(c->io.cancel),
					.engine = c->io.eng->name};
	struct ipc_http_server *s;
	struct ipc_http_serve_stats st;
	char why[256];
	int err;

	o.listen_fd = dup(c->ch->fd[0]);
	if (o.listen_fd < 0)
		return msg_fail(c, -errno, "take the listening socket");
	err = ipc_http_serve_open(&s, &o, why, sizeof(why));
	if (err)
		return msg_fail(c, err, "start the built-in target");
	err = ipc_http_serve_run(s);
	ipc_http_serve_stats(s, &st);
	ipc_http_serve_free(s);
	strangers_count(c, (int64_t)st.conns);
	c->out.done = st.requests;
	return err < 0 ? msg_fail(c, err, "serve") : 0;
}

static int http_check(const struct ipc_case *cs, enum ipc_placement where,
		      char *why, size_t why_len)
{
	const struct ipc_http_cfg *cfg = cs->cfg;

	(void)where;
	if (!cfg) {
		snprintf(why, why_len, "http needs its options");
		return -EINVAL;
	}
	if (!cs->eng->fs_new) {
		snprintf(why, why_len,
			 "http drives many connections from each thread and "
			 "engine %s waits on one descriptor at a time (use "
			 "poll, epoll, io_uring or busy)",
			 cs->eng->name);
		return -EINVAL;
	}
	if (cfg->url[0] && (!cs->target || !cs->target[0] || !cs->peer)) {
		snprintf(why, why_len,
			 "a URL's server is reached through the external peer, "
			 "at its HOST:PORT");
		return -EINVAL;
	}
	if (!cfg->url[0] && ipc_http_serve_engine(cs->eng->name) < 0) {
		snprintf(why, why_len,
			 "the built-in target waits with epoll, poll or busy, "
			 "not %s (give a URL to drive another server with %s)",
			 cs->eng->name, cs->eng->name);
		return -EINVAL;
	}
	if (strcmp(cs->tp->name, "tcp") && strcmp(cs->tp->name, "tcp6")) {
		snprintf(why, why_len, "http runs over tcp or tcp6");
		return -EINVAL;
	}
	if (cfg->pipeline > 1 && cs->rate) {
		snprintf(why, why_len,
			 "--rate times each request from when it is due; "
			 "with --pipeline a batch would share one due time "
			 "(give one of them)");
		return -EINVAL;
	}
	return 0;
}

static size_t http_buf_bytes(const struct ipc_case *cs)
{
	(void)cs;
	return 64;
}

static size_t http_max_msg(const struct ipc_case *cs)
{
	(void)cs;
	return 1;
}

static const char *const keepalive_names[] = {"no", "yes", NULL};
static const char *const chunked_names[] = {"length", "chunked", NULL};

#define CFG(field) offsetof(struct ipc_http_cfg, field)

static const struct ipc_param http_params[] = {
	{.key = "url",
	 .word = "",
	 .head = "url",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = CFG(url),
	 .len = sizeof(((struct ipc_http_cfg *)0)->url),
	 .fmt = IPC_FMT_TEXT},
	{.key = "flows",
	 .word = "c",
	 .head = "conns",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, flows),
	 .fmt = IPC_FMT_COUNT},
	PARAMS_LOAD_LOOP,
	{.key = "method",
	 .word = "method",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = CFG(method),
	 .len = sizeof(((struct ipc_http_cfg *)0)->method),
	 .fmt = IPC_FMT_TEXT},
	{.key = "keepalive",
	 .word = "keepalive",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(keepalive),
	 .fmt = IPC_FMT_NAME,
	 .names = keepalive_names,
	 .dflt = 1,
	 .flags = IPC_PARAM_WORD_DFLT},
	{.key = "pipeline",
	 .word = "pipeline",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U32,
	 .off = CFG(pipeline),
	 .fmt = IPC_FMT_COUNT,
	 .dflt = 1,
	 .flags = IPC_PARAM_WORD_DFLT},
	{.key = "body_size",
	 .word = "body",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(body),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT},
	{.key = "request_timeout_ns",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(timeout_ns),
	 .fmt = IPC_FMT_NS},
	/* The built-in target's; 0, and left out, for a URL's server. */
	{.key = "page_size",
	 .word = "page",
	 .head = "page",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(page),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "write_size",
	 .word = "chunk",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(chunk),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "encoding",
	 .word = "",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(chunked),
	 .fmt = IPC_FMT_NAME,
	 .names = chunked_names,
	 .flags = IPC_PARAM_WORD_DFLT},
	{0},
};

static const struct ipc_column http_cols[] = {
	COLS_PERCENTILES,
	{.head = "requests/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	/* ab's "Time per request", "Complete requests", "Total transferred". */
	{.head = "mean", .src = IPC_SRC_MEAN, .fmt = IPC_FMT_NS},
	{.head = "requests", .src = IPC_SRC_COUNT, .fmt = IPC_FMT_COUNT},
	{.head = "body", .src = IPC_SRC_EXTRA + X_BODY, .fmt = IPC_FMT_BYTES},
	{.head = "transfer", .src = IPC_SRC_BYTES_PER_S, .fmt = IPC_FMT_BPS},
	{.head = "failed",
	 .src = IPC_SRC_EXTRA + X_FAILED,
	 .fmt = IPC_FMT_COUNT},
	{.head = "keep-alive",
	 .src = IPC_SRC_EXTRA + X_KEEPALIVE,
	 .fmt = IPC_FMT_COUNT},
	{.head = "send lag",
	 .src = IPC_SRC_LAG,
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_COL_IF_ANY},
	{0},
};

#define EXTRA(k)                                                               \
	{                                                                      \
		.key = (k), .fmt = IPC_FMT_COUNT,                              \
		.flags = IPC_EXTRA_RUN | IPC_EXTRA_INT                         \
	}

static const struct ipc_extra http_extras[] = {
	[X_KEEPALIVE] = EXTRA("keepalive_requests"),
	[X_FAILED] = EXTRA("failed"),
	[X_F_CONNECT] = EXTRA("failed_connect"),
	[X_F_WRITE] = EXTRA("failed_write"),
	[X_F_READ] = EXTRA("failed_read"),
	[X_F_LENGTH] = EXTRA("failed_length"),
	[X_F_PROTOCOL] = EXTRA("failed_protocol"),
	[X_NON2XX] = EXTRA("non_2xx"),
	[X_S3XX] = EXTRA("status_3xx"),
	[X_S4XX] = EXTRA("status_4xx"),
	[X_S5XX] = EXTRA("status_5xx"),
	[X_BODY] = {.key = "body_bytes",
		    .fmt = IPC_FMT_BYTES,
		    .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_RECONNECTS] = EXTRA("reconnects"),
	[X_F_TIMEOUT] = EXTRA("failed_timeout"),
	[X_COUNT] = {0},
};

const struct ipc_pattern_ops ipc_pattern_http = {
	.name = "http",
	.help = "HTTP/1.1 load on a URL or the built-in target: requests/s, "
		"latency, failures by reason",
	.flags = IPC_PAT_OWN_EP | IPC_PAT_ANY_CLIENT,
	.sample = "request",
	.samples = "requests over all connections",
	.cost_per = "request",
	.cost_abbr = "req",
	.title = "HTTP/1.1; latency per request from the first byte written "
		 "(closed loop) or its due time (open loop) to the last "
		 "byte of its response",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = http_params,
	.cols = http_cols,
	.extras = http_extras,
	.cfg_size = sizeof(struct ipc_http_cfg),
	.check = http_check,
	.buf_bytes = http_buf_bytes,
	.max_msg = http_max_msg,
	.client = http_client,
	.server = http_server,
};

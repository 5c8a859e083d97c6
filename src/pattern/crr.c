/* SPDX-License-Identifier: MIT */
/*
 * crr: connect, request, response, close — one new connection per
 * transaction, as a client of a short-lived-connection protocol makes it.
 * One transaction is one sample, timed from just before the connect to just
 * after the close, so it holds the handshake, the exchange and the close
 * (whose FIN handling finishes asynchronously in the kernel).
 *
 *   client                          server
 *   t0 ─ connect ─────────────────► accept
 *        request ─────────────────► (checks it)
 *        ◄────────────────────────── response
 *   t1 ─ close ───────────────────► end of stream, close; accept the next
 *
 * The client closes first, so TIME_WAIT is on its side; Linux reuses those
 * ports for new loopback connections (net.ipv4.tcp_tw_reuse = 2, the
 * default).  The engine stays attached across connections where it has a
 * reattach slot (an epoll set or a ring is not rebuilt per transaction).
 */
#include <stdio.h>

#include "fault.h"
#include "msg.h"
#include "describe.h"
#include "pattern/lib_internal.h"
#include "interval.h"

struct crr_io {
	bool attached; /* c->io is attached (to an endpoint or between) */
};

static size_t crr_max_msg(const struct ipc_case *cs)
{
	size_t m = cs->req_size > cs->resp_size ? cs->req_size : cs->resp_size;

	return m ? m : 1;
}

static size_t crr_buf_bytes(const struct ipc_case *cs)
{
	return crr_max_msg(cs) + 64;
}

static int crr_check(const struct ipc_case *cs, enum ipc_placement placement,
		     char *why, size_t why_len)
{
	(void)placement;
	if (!(cs->tp->caps & IPC_TP_CONNECT)) {
		snprintf(why, why_len,
			 "crr makes a new connection per transaction and %s "
			 "has no connections (use tcp, tcp6, unix or "
			 "unix-seqpacket)",
			 cs->tp->name);
		return -EINVAL;
	}
	return 0;
}

/* Drive @ep with the engine: attach, or move the attached io to it. */
static int bind_ep(struct ipc_pctx *c, struct ipc_ep *ep)
{
	const struct ipc_engine_ops *e = c->io.eng;
	struct crr_io *st = c->pat_priv;
	int err;

	if (st->attached)
		return e->reattach(&c->io, ep);
	c->io.ep = ep;
	err = e->attach(&c->io);
	st->attached = !err;
	if (err)
		c->io.ep = NULL;
	return err;
}

/* Let go of the endpoint before it is closed; keep what can be kept. */
static void unbind_ep(struct ipc_pctx *c)
{
	const struct ipc_engine_ops *e = c->io.eng;
	struct crr_io *st = c->pat_priv;

	if (!st->attached)
		return;
	if (e->reattach && !e->reattach(&c->io, NULL))
		return;
	e->detach(&c->io);
	c->io.ep = NULL;
	st->attached = false;
}

static void release(struct ipc_pctx *c)
{
	struct crr_io *st = c->pat_priv;

	if (st->attached)
		c->io.eng->detach(&c->io);
	c->io.ep = NULL;
	st->attached = false;
}

/* One transaction's exchange on an open endpoint; what failed in *doing. */
static int exchange(struct ipc_pctx *c, struct ipc_ep *ep, size_t req,
		    size_t resp, const char **doing)
{
	int err;

	*doing = "attach the engine";
	err = bind_ep(c, ep);
	if (err)
		return err;
	*doing = "send request";
	err = msg_send(c, c->sbuf, req);
	if (err)
		return err;
	*doing = "receive response";
	return msg_recv(c, c->rbuf, resp);
}

static int crr_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		    uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t req = msg_wire(c->cs->req_size, c->tp_caps);
	const size_t resp = msg_wire(c->cs->resp_size, c->tp_caps);
	const struct ipc_transport_ops *tp = c->cs->tp;
	struct ipc_ep ep;
	const char *doing;
	uint64_t i, t0, t1, sum = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		msg_stamp(c->sbuf, req, *seq);
		ep = (struct ipc_ep){
			.rfd = -1, .wfd = -1, .cancel = c->io.cancel};
		t0 = ipc_now_ns();
		err = tp->open(c->ch, IPC_CLIENT, &ep);
		if (err) {
			msg_fail(c, err, "connect");
			break;
		}
		err = exchange(c, &ep, req, resp, &doing);
		unbind_ep(c);
		tp->close(&ep);
		t1 = ipc_now_ns();
		if (err) {
			msg_fail(c, err, doing);
			break;
		}
		err = msg_rt_done(c, resp, seq, t1, *done + i + 1);
		if (err)
			break;
		if (msg_sample_kept(c, t1 - t0, t1, deadline, &sum, &err)) {
			i++;
			break;
		}
	}
	*done += i;
	*elapsed_ns += sum;
	return err;
}

static int crr_client(struct ipc_pctx *c)
{
	struct crr_io st = {0};
	int err;

	/* Reset to NULL before returning. */
	/* cppcheck-suppress autoVariables */
	c->pat_priv = &st;
	err = msg_client_phases(c, crr_loop);
	release(c);
	c->pat_priv = NULL;
	c->out.messages = c->out.done;
	c->out.bytes = c->out.done * (c->cs->req_size + c->cs->resp_size);
	return err;
}

/*
 * Serve one accepted connection: request, response, then the client's
 * close.  Returns 0, 1 when the client closed without a request, or
 * -errno (with c->out saying what).
 */
static int serve_one(struct ipc_pctx *c, struct ipc_ep *ep, uint64_t i,
		     size_t req, size_t resp)
{
	int err;

	err = bind_ep(c, ep);
	if (err)
		return msg_fail(c, err, "attach the engine");
	err = msg_recv(c, c->rbuf, req);
	if (err == MSG_EOF)
		return 1;
	if (err)
		return msg_fail(c, err, "receive request");
	fault_stall(c->faults, i);
	msg_stamp(c->sbuf, resp, i);
	err = msg_send(c, c->sbuf, resp);
	if (err)
		return msg_fail(c, err, "send response");
	if (c->verify) {
		err = msg_check(c, c->rbuf, req, i);
		if (err)
			return err;
	}
	err = msg_recv(c, c->rbuf, 1);
	if (err == MSG_EOF)
		return 0;
	return msg_fail(c, err ? err : -EBADMSG, "wait for the client's close");
}

static int crr_server(struct ipc_pctx *c)
{
	const size_t req = msg_wire(c->cs->req_size, c->tp_caps);
	const size_t resp = msg_wire(c->cs->resp_size, c->tp_caps);
	const struct ipc_transport_ops *tp = c->cs->tp;
	struct crr_io st = {0};
	struct ipc_ep ep;
	uint64_t i = 0;
	int err = 0;

	/* Reset to NULL before returning. */
	/* cppcheck-suppress autoVariables */
	c->pat_priv = &st;
	while (!ipc_cancelled(c->io.cancel)) {
		ep = (struct ipc_ep){
			.rfd = -1, .wfd = -1, .cancel = c->io.cancel};
		err = tp->open(c->ch, IPC_SERVER, &ep);
		if (err == -EINTR || err == -ECONNABORTED) {
			err = 0;
			continue; /* the loop condition looks at stop */
		}
		if (err) {
			msg_fail(c, err, "accept");
			break;
		}
		err = serve_one(c, &ep, i, req, resp);
		unbind_ep(c);
		tp->close(&ep);
		if (err == -ECANCELED) {
			err = 0; /* asked to stop while serving */
			break;
		}
		if (err < 0)
			break;
		if (err == 0) {
			c->out.done++;
			i++;
		}
		err = 0;
	}
	release(c);
	c->pat_priv = NULL;
	return err;
}

static const struct ipc_param crr_params[] = {PARAM_REQ, PARAM_RESP, {0}};

static const struct ipc_column crr_cols[] = {
	COLS_PERCENTILES,
	{.head = "mean", .src = IPC_SRC_MEAN, .fmt = IPC_FMT_NS},
	{.head = "trans/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{0},
};

const struct ipc_pattern_ops ipc_pattern_crr = {
	.name = "crr",
	.help = "connect, request, response, close: time per transaction",
	.flags = IPC_PAT_OWN_EP,
	.sample = "transaction",
	.samples = "transactions",
	.cost_per = "message",
	.cost_abbr = "msg",
	.title = "connect, request, response, close per transaction",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = crr_params,
	.cols = crr_cols,
	.check = crr_check,
	.buf_bytes = crr_buf_bytes,
	.max_msg = crr_max_msg,
	.client = crr_client,
	.server = crr_server,
};

/*
 * rr: request/response ping-pong.  The client sends a request of req_size
 * bytes and waits for a response of resp_size bytes; each round trip is one
 * sample, timed from just before the send to just after the last byte of
 * the response.  Payload checks happen outside that interval: the client
 * checks a response after its timestamp, the server checks a request after
 * it has sent the response.
 */
#include "framed.h"

static size_t rr_max_msg(const struct ipc_case *cs)
{
	size_t m = cs->req_size > cs->resp_size ? cs->req_size : cs->resp_size;

	if (rr_is_framed(cs))
		return rr_framed_max_msg(cs);

	return m ? m : 1;
}

/* Room for the largest message plus slack to catch an over-long one. */
static size_t rr_buf_bytes(const struct ipc_case *cs)
{
	if (rr_is_framed(cs))
		return rr_framed_buf_bytes(cs);
	return rr_max_msg(cs) + 64;
}

/* The round-trip loop, a msg_loop_fn. */
static int rr_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		   uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t req = msg_wire(c->cs->req_size, c->tp_caps);
	const size_t resp = msg_wire(c->cs->resp_size, c->tp_caps);
	struct ipc_hist *h = c->hist;
	uint64_t i, t0, t1, sum = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		msg_stamp(c->sbuf, req, *seq);
		t0 = ipc_now_ns();
		err = msg_send(c, c->sbuf, req);
		if (err) {
			msg_fail(c, err, "send request");
			break;
		}
		err = msg_recv(c, c->rbuf, resp);
		if (err) {
			msg_fail(c, err, "receive response");
			break;
		}
		t1 = ipc_now_ns();
		ipc_hist_record(h, t1 - t0);
		sum += t1 - t0;
		if (c->verify) {
			err = msg_check(c, c->rbuf, resp, *seq);
			if (err)
				break;
		}
		(*seq)++;
		if (msg_sample_end(c, t1, deadline, &err)) {
			i++;
			break;
		}
	}
	*done += i;
	*elapsed_ns += sum;
	return err;
}

static int rr_client(struct ipc_pctx *c)
{
	int err;

	if (rr_is_framed(c->cs))
		return rr_framed_client(c); /* chosen once, outside the loop */
	err = msg_client_phases(c, rr_loop);

	c->out.messages = c->out.done;
	c->out.bytes = c->out.done * (c->cs->req_size + c->cs->resp_size);
	return err;
}

static int rr_server(struct ipc_pctx *c)
{
	const size_t req = msg_wire(c->cs->req_size, c->tp_caps);
	const size_t resp = msg_wire(c->cs->resp_size, c->tp_caps);
	uint64_t seq;
	int err;

	if (rr_is_framed(c->cs))
		return rr_framed_server(c);
	for (seq = 0;; seq++) {
		err = msg_next(c, c->rbuf, req);
		if (err > 0)
			return 0;
		if (err)
			return msg_fail(c, err, "receive request");
		msg_stamp(c->sbuf, resp, seq);
		err = msg_send(c, c->sbuf, resp);
		if (err)
			return msg_fail(c, err, "send response");
		if (c->verify) {
			err = msg_check(c, c->rbuf, req, seq);
			if (err)
				return err;
		}
		c->out.done++;
	}
}

const struct ipc_pattern_ops ipc_pattern_rr = {
	.name = "rr",
	.help = "request/response ping-pong: latency of each round trip",
	.metric = IPC_METRIC_P50,
	.buf_bytes = rr_buf_bytes,
	.max_msg = rr_max_msg,
	.client = rr_client,
	.server = rr_server,
};

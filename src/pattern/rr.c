/* SPDX-License-Identifier: MIT */
/*
 * rr: request/response ping-pong.  The client sends a request of req_size
 * bytes and waits for a response of resp_size bytes; each round trip is one
 * sample, timed from just before the send to just after the last byte of
 * the response.  Payload checks happen outside that interval: the client
 * checks a response after its timestamp, the server checks a request after
 * it has sent the response.
 *
 * On a lossy transport (udp) each request waits at most --timeout for its
 * response.  One that does not come in time is counted lost and the loop
 * goes on with the next request; a response that arrives later is told
 * apart by its sequence number (the server echoes the request's), counted
 * late and discarded.  Loss is data: only a peer that answers nothing at
 * all (RR_GIVE_UP_FIRST requests in a row from the start of a run, or
 * RR_GIVE_UP requests in a row later) ends the run with an error, instead
 * of waiting out every timeout of a long run.
 */
#include <math.h>

#include "fault.h"
#include "msg.h"
#include "framed.h"
#include "describe.h"
#include "pattern/lib_internal.h"
#include "interval.h"
#include "underload.h"

#define RR_GIVE_UP_FIRST 10
#define RR_GIVE_UP 100

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

/* Request @seq stamped and sent, from *@t0 on.  0 or -errno (c->out set). */
static inline int rr_ask(struct ipc_pctx *c, size_t req, uint64_t seq,
			 uint64_t *t0)
{
	int err;

	msg_stamp(c->sbuf, req, seq);
	*t0 = ipc_now_ns();
	err = msg_send(c, c->sbuf, req);
	return err ? msg_fail(c, err, "send request") : 0;
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
		err = rr_ask(c, req, *seq, &t0);
		if (err)
			break;
		err = msg_recv(c, c->rbuf, resp);
		if (err) {
			msg_fail(c, err, "receive response");
			break;
		}
		t1 = ipc_now_ns();
		ipc_hist_record(h, t1 - t0);
		sum += t1 - t0;
		err = msg_rt_done(c, resp, seq, t1, *done + i + 1);
		if (err)
			break;
		if (msg_sample_end(c, t1, deadline, &err)) {
			i++;
			break;
		}
	}
	*done += i;
	*elapsed_ns += sum;
	return err;
}

/*
 * Sequence bytes a request and its response both carry: what the client
 * can match a response to its request by.  0 (an empty request or
 * response) means any response is taken as the current one.
 */
static unsigned rr_seq_bytes(size_t req, size_t resp)
{
	size_t n = req < resp ? req : resp;

	return n < 8 ? (unsigned)n : 8;
}

/*
 * Wait for the response to request @seq sent at @t0: 0 when it came (*t1
 * is when), 1 when none came within the timeout, -errno on failure.  Late
 * responses to earlier requests are counted and skipped; the wait for the
 * current one keeps its original deadline.
 */
static int rr_await(struct ipc_pctx *c, size_t resp, unsigned sb, uint64_t seq,
		    uint64_t t0, uint64_t *t1)
{
	const uint64_t timeout = c->io.timeout_ns;
	int err;

	for (;;) {
		err = msg_recv(c, c->rbuf, resp);
		*t1 = ipc_now_ns();
		if (err == -ETIMEDOUT) {
			err = 1;
			break;
		}
		if (err)
			break;
		if (seq_same(seq_read(c->rbuf, resp), seq, sb))
			break;
		c->out.loss.late++;
		if (!timeout)
			continue;
		if (*t1 >= t0 + timeout) {
			err = 1;
			break;
		}
		c->io.timeout_ns = t0 + timeout - *t1;
	}
	c->io.timeout_ns = timeout;
	return err;
}

/* The round-trip loop over a lossy transport, a msg_loop_fn. */
static int rr_loop_lossy(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
			 uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t req = msg_wire(c->cs->req_size, c->tp_caps);
	const size_t resp = msg_wire(c->cs->resp_size, c->tp_caps);
	const unsigned sb = rr_seq_bytes(req, resp);
	struct ipc_hist *h = c->hist;
	uint64_t i, t0, t1, sum = 0, ok = 0, row = 0;
	bool any = c->out.warmup_done || c->out.done;
	char ms[32];
	int err = 0;

	for (i = 0; i < n; i++) {
		err = rr_ask(c, req, *seq, &t0);
		if (err)
			break;
		c->out.loss.sent++;
		err = rr_await(c, resp, sb, *seq, t0, &t1);
		if (err < 0) {
			msg_fail(c, err, "receive response");
			break;
		}
		if (err == 0) {
			ipc_hist_record(h, t1 - t0);
			sum += t1 - t0;
			ok++;
			any = true;
			row = 0;
			c->out.loss.received++;
			if (c->verify) {
				err = msg_check(c, c->rbuf, resp, *seq);
				if (err)
					break;
			}
		} else {
			err = 0;
			c->out.loss.lost++;
			if (++row >= (any ? RR_GIVE_UP : RR_GIVE_UP_FIRST)) {
				snprintf(ms, sizeof(ms), "%.3g ms",
					 c->io.timeout_ns / 1e6);
				snprintf(c->out.what, sizeof(c->out.what),
					 "peer not answering: %llu requests in "
					 "a row got no response within %s",
					 (unsigned long long)row, ms);
				err = c->out.err = -ETIMEDOUT;
				(*seq)++;
				i++;
				break;
			}
		}
		(*seq)++;
		ival_tick(c, t1, *done + ok, *done + ok,
			  (*done + ok) * (c->cs->req_size + c->cs->resp_size),
			  c->out.loss.lost);
		if (msg_sample_end(c, t1, deadline, &err)) {
			i++;
			break;
		}
	}
	*done += ok;
	*elapsed_ns += sum;
	return err;
}

static int rr_client(struct ipc_pctx *c)
{
	int err;

	c->out.extra[RR_EXTRA_LOAD_BYTES] = NAN; /* --under-load only */
	c->out.extra[RR_EXTRA_LOAD_BPS] = NAN;
	if (rr_is_framed(c->cs))
		return rr_framed_client(c); /* chosen once, outside the loop */
	if (c->tp_caps & IPC_TP_LOSSY) {
		c->out.loss.counted = true;
		err = msg_client_phases(c, rr_loop_lossy);
		c->out.messages = c->out.done;
		c->out.bytes =
			c->out.done * (c->cs->req_size + c->cs->resp_size);
		return err;
	}
	err = c->cs->under_load ? ul_client(c, rr_loop)
				: msg_client_phases(c, rr_loop);

	c->out.messages = c->out.done;
	c->out.bytes = c->out.done * (c->cs->req_size + c->cs->resp_size);
	return err;
}

/*
 * The server answers every request in turn.  On a lossy transport requests
 * may be missing, so it takes each one's sequence number from the request
 * (the full number nearest to the one it expected) and echoes it in the
 * response; --peer-drop leaves some unanswered on purpose.
 */
static int rr_serve(struct ipc_pctx *c, size_t req, size_t resp, bool lossy,
		    unsigned qb)
{
	uint64_t seq = 0, i;
	int err;

	for (i = 0;; i++, seq++) {
		err = msg_next(c, c->rbuf, req);
		if (err > 0)
			return 0;
		if (err)
			return msg_fail(c, err, "receive request");
		if (lossy) {
			seq = seq_full(seq_read(c->rbuf, req), qb, seq);
			if (fault_drop(c->faults, i))
				continue;
		}
		fault_stall(c->faults, i);
		msg_stamp(c->sbuf, resp, seq);
		err = msg_send(c, c->sbuf, resp);
		if (err == -ECONNREFUSED && lossy)
			return 0; /* a late answer to a client that is gone */
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

/*
 * With --under-load the streams' connections are taken and checked beside
 * the loop, in threads of their own (underload.c).
 */
static int rr_server(struct ipc_pctx *c)
{
	const size_t req = msg_wire(c->cs->req_size, c->tp_caps);
	const size_t resp = msg_wire(c->cs->resp_size, c->tp_caps);
	const bool lossy = c->tp_caps & IPC_TP_LOSSY;
	const unsigned qb = req < 8 ? (unsigned)req : 8;
	struct ul *load = NULL;
	int err;

	if (rr_is_framed(c->cs))
		return rr_framed_server(c);
	if (c->cs->under_load) {
		err = ul_serve_start(c, &load);
		if (err)
			return err;
		err = rr_serve(c, req, resp, lossy, qb);
		return ul_serve_end(c, load, err);
	}
	return rr_serve(c, req, resp, lossy, qb);
}

static int rr_check(const struct ipc_case *cs, enum ipc_placement placement,
		    char *why, size_t why_len)
{
	(void)placement;
	return ipc_under_load_check(cs, why, why_len);
}

static const struct ipc_param rr_params[] = {
	PARAM_REQ,
	PARAM_RESP,
	{.key = "under_load",
	 .word = "load",
	 .head = "load streams",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, under_load),
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{0},
};

/* What the streams of --under-load moved while the round trips ran. */
static const struct ipc_extra rr_extras[] = {
	{.key = "load_bytes",
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	{.key = "load_bytes_per_s", .fmt = IPC_FMT_BPS, .flags = IPC_EXTRA_RUN},
	{0},
};

/* The streams' rate over a result: the runs' mean, not their sum. */
static void rr_summarize(const struct ipc_case *cs, struct ipc_psum *ps)
{
	(void)cs;
	if (ps->runs)
		ps->extra[RR_EXTRA_LOAD_BPS] /= (double)ps->runs;
}

static const struct ipc_column rr_cols[] = {
	COLS_PERCENTILES,
	{.head = "mean", .src = IPC_SRC_MEAN, .fmt = IPC_FMT_NS},
	{.head = "sd", .src = IPC_SRC_SD, .fmt = IPC_FMT_NS},
	{.head = "trans/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "lost",
	 .src = IPC_SRC_LOST,
	 .fmt = IPC_FMT_LOSS,
	 .flags = IPC_COL_IF_ANY},
	{.head = "late",
	 .src = IPC_SRC_LATE,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "load rate",
	 .src = IPC_SRC_EXTRA + RR_EXTRA_LOAD_BPS,
	 .fmt = IPC_FMT_BPS,
	 .flags = IPC_COL_IF_ANY},
	{0},
};

static const struct ipc_column rr_suite_cols[] = {
	{.head = "rr p50", .src = IPC_SRC_P50, .fmt = IPC_FMT_NS},
	{.head = "rr p99", .src = IPC_SRC_P99, .fmt = IPC_FMT_NS},
	{.head = "round trips/s",
	 .src = IPC_SRC_MSGS_PER_S,
	 .fmt = IPC_FMT_RATE},
	{0},
};

/*
 * In the suite, runs of 10 ms (after the suite's 200 round trips of
 * warm-up): 25,000 round trips of shm on two CPUs, 900 over a pty.  A
 * fixed 2000 was 0.8 ms of shm, less than the run's own setup, and 20 ms
 * of pty; by time every run costs about the same, and the budget buys
 * as many runs of each case.
 */
static const struct ipc_suite_desc rr_suite = {
	.words = "request/response, {req_size} request, {resp_size} response",
	.words_same = "request/response, {req_size} each way",
	.cols = rr_suite_cols,
	.run_ns = 10000000,
};

const struct ipc_pattern_ops ipc_pattern_rr = {
	.name = "rr",
	.help = "request/response ping-pong: latency of each round trip",
	.flags = IPC_PAT_FRAMED | IPC_PAT_LATE,
	.sample = "round trip",
	.samples = "round trips",
	.cost_per = "round trip",
	.cost_abbr = "rt",
	.title = "request/response round trips",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = rr_params,
	.cols = rr_cols,
	.extras = rr_extras,
	.summarize = rr_summarize,
	.suite = &rr_suite,
	.check = rr_check,
	.buf_bytes = rr_buf_bytes,
	.max_msg = rr_max_msg,
	.client = rr_client,
	.server = rr_server,
};

/* SPDX-License-Identifier: MIT */
/*
 * stream: one-way messages in batches.  The client sends COUNT messages of
 * msg_size bytes and then waits for the server's 1-byte acknowledgement that
 * all of them arrived; one batch, from the first send to the ack, is one
 * sample.  The ack adds one small one-way trip to each batch (what rr with
 * 1-byte messages measures), which is why batches should be long.
 *
 * On lossy transports the loops of stream_dgram.c count loss instead.
 */
#include <math.h>

#include "msg.h"
#include "stream_dgram.h"
#include "describe.h"
#include "pattern/lib_internal.h"
#include "interval.h"
#include "pace.h"
#include "zc.h"

/* -R: the client asks for each batch with this many bytes. */
#define ST_REQ 8

static size_t st_max_msg(const struct ipc_case *cs)
{
	size_t n = cs->msg_size ? cs->msg_size : 1;

	if (cs->tp && (cs->tp->caps & IPC_TP_LOSSY))
		return st_dgram_max_msg(msg_wire(cs->msg_size, cs->tp->caps));
	return cs->direction != IPC_DIR_SEND && n < ST_REQ ? ST_REQ : n;
}

/* Room for every start of a shifted message (msg_stamp_shifted). */
static size_t st_buf_bytes(const struct ipc_case *cs)
{
	return st_max_msg(cs) + 64 + MSG_SHIFT_MAX;
}

/*
 * A batch of either direction ended at @t1, the @batches-th of the
 * measured part: its sample kept, the interval closed if due.  True when
 * the loop must end (msg_sample_end).
 */
static inline bool st_batch_end(struct ipc_pctx *c, uint64_t t0, uint64_t t1,
				uint64_t batches, uint64_t deadline,
				uint64_t *sum, int *err)
{
	const uint64_t msgs = batches * c->cs->count;

	ipc_hist_record(c->hist, t1 - t0);
	*sum += t1 - t0;
	ival_tick(c, t1, batches, msgs, msgs * c->cs->msg_size, 0);
	return msg_sample_end(c, t1, deadline, err);
}

static int st_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		   uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const uint64_t count = c->cs->count;
	struct zc *zc = c->pat_priv; /* --zerocopy, NULL: copied sends */
	uint64_t i, k, t0, t1, sum = 0;
	struct pace pace;
	uint8_t *msg;
	int err = 0;

	pace_init(&pace, c->cs->bitrate_bps, len);
	for (i = 0; i < n; i++) {
		t0 = ipc_now_ns();
		for (k = 0; k < count; k++) {
			err = pace_wait(c, &pace);
			if (err)
				goto out;
			if (zc) {
				err = zc_send(zc, c, len, (*seq)++);
			} else {
				msg = msg_stamp_shifted(c, len, *seq);
				err = msg_send(c, msg, len);
				msg_unstamp(msg, len, (*seq)++);
			}
			if (err)
				goto fail_send;
		}
		err = msg_recv(c, c->rbuf, 1);
		if (err) {
			msg_fail(c, err, "receive acknowledgement of a batch");
			break;
		}
		t1 = ipc_now_ns();
		if (st_batch_end(c, t0, t1, *done + i + 1, deadline, &sum,
				 &err)) {
			i++;
			break;
		}
	}
	goto out;
fail_send:
	msg_fail(c, err, "send message");
out:
	*done += i;
	*elapsed_ns += sum;
	return err;
}

/*
 * -R: the client asks for each batch with the sequence number of its
 * first message (ST_REQ bytes), the peer sends the batch, and the client
 * receives and checks every message (where the transport holds it when it
 * can, as the forward server does).  One sample is one batch, from the
 * request to its last message: the request costs the same small one-way
 * trip as the forward stream's acknowledgement.
 */
static int st_rloop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		    uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const uint64_t count = c->cs->count;
	const bool in_place =
		c->verify && c->io.eng->recv_view && c->io.ep->ops->recv_view;
	uint64_t i, k, t0, t1, sum = 0;
	const uint8_t *msg = c->rbuf;
	int err = 0;

	for (i = 0; i < n; i++) {
		msg_stamp(c->sbuf, ST_REQ, *seq);
		t0 = ipc_now_ns();
		err = msg_send(c, c->sbuf, ST_REQ);
		if (err) {
			msg_fail(c, err, "send a batch's request");
			break;
		}
		for (k = 0; k < count; k++) {
			err = in_place ? msg_recv_view(c, &msg, len)
				       : msg_recv(c, c->rbuf, len);
			if (err) {
				msg_fail(c, err, "receive message");
				goto out;
			}
			if (c->verify) {
				err = msg_check_shifted(c, msg, len, *seq);
				if (err)
					goto out;
			}
			(*seq)++;
		}
		t1 = ipc_now_ns();
		if (st_batch_end(c, t0, t1, *done + i + 1, deadline, &sum,
				 &err)) {
			i++;
			break;
		}
	}
out:
	*done += i;
	*elapsed_ns += sum;
	return err;
}

static int st_client(struct ipc_pctx *c)
{
	int err;

	c->out.extra[ST_EXTRA_ZC_SENDS] = NAN; /* zc_client's counts */
	c->out.extra[ST_EXTRA_ZC_DONE] = NAN;
	c->out.extra[ST_EXTRA_ZC_COPIED] = NAN;
	if (c->tp_caps & IPC_TP_LOSSY)
		return c->cs->direction == IPC_DIR_REVERSE ? st_dgram_rclient(c)
							   : st_dgram_client(c);
	if (c->cs->direction == IPC_DIR_REVERSE)
		err = msg_client_phases(c, st_rloop); /* the peer sends */
	else if (c->cs->zerocopy)
		err = zc_client(c, st_loop);
	else
		err = msg_client_phases(c, st_loop);

	c->out.extra[ST_EXTRA_JITTER] = NAN; /* over udp only */
	c->out.extra[ST_EXTRA_WINDOW] = NAN;
	c->out.extra[ST_EXTRA_RCVBUF] = NAN;
	c->out.messages = c->out.done * c->cs->count;
	c->out.bytes = c->out.messages * c->cs->msg_size;
	return err;
}

/*
 * Receive message @k of a batch; *@msg points at it: in c->rbuf, or where
 * the transport holds it when @in_place.  Between batches (k == 0) the
 * client may be done or idle: 1 when it is done, as msg_next.
 */
static int st_recv(struct ipc_pctx *c, uint64_t k, bool in_place,
		   const uint8_t **msg, size_t len)
{
	int err;

	if (!in_place) {
		*msg = c->rbuf;
		return k ? msg_recv(c, c->rbuf, len)
			 : msg_next(c, c->rbuf, len);
	}
	do
		err = msg_recv_view(c, msg, len);
	while (!k && err == -ETIMEDOUT);
	return k ? err : msg_next_end(c, err);
}

/* A batch of no messages would time acknowledgements alone. */
static int st_check(const struct ipc_case *cs, enum ipc_placement placement,
		    char *why, size_t why_len)
{
	(void)placement;
	if (!cs->count) {
		snprintf(why, why_len,
			 "stream sends batches of at least 1 message");
		return -EINVAL;
	}
	return ipc_zc_check(cs, why, why_len);
}

/* Send message @seq of a batch of -R: through @zc, or a copy. */
static inline int st_rsend(struct ipc_pctx *c, struct zc *zc, size_t len,
			   uint64_t seq)
{
	uint8_t *msg;
	int err;

	if (zc)
		return zc_send(zc, c, len, seq);
	msg = msg_stamp_shifted(c, len, seq);
	err = msg_send(c, msg, len);
	msg_unstamp(msg, len, seq);
	return err;
}

/*
 * -R: the peer sends each batch the client asks for (st_rloop), paced
 * with -b; with --zerocopy through @zc, whose counts begin with the
 * client's measured part, after its c->warmup batches.
 */
static int st_rserve(struct ipc_pctx *c, struct zc *zc)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const uint64_t count = c->cs->count;
	uint64_t seq = 0, k;
	struct pace pace;
	int err;

	pace_init(&pace, c->cs->bitrate_bps, len);
	for (uint64_t batch = 0;; batch++) {
		err = msg_next(c, c->rbuf, ST_REQ);
		if (err > 0)
			return 0;
		if (err)
			return msg_fail(c, err, "receive a batch's request");
		if (c->verify) {
			err = msg_check(c, c->rbuf, ST_REQ, seq);
			if (err)
				return err;
		}
		/* Its sends need not wait: the stop is looked at here. */
		if (ipc_cancelled(c->io.cancel))
			return 0;
		if (zc && batch == c->warmup)
			zc_measure(zc);
		for (k = 0; k < count; k++) {
			if (pace_wait(c, &pace))
				return 0; /* a stop */
			err = st_rsend(c, zc, len, seq++);
			if (err == -ECANCELED)
				return 0;
			if (err)
				return msg_fail(c, err, "send message");
		}
		c->out.done++;
	}
}

static int st_rserver(struct ipc_pctx *c)
{
	struct zc *zc = NULL;
	int err;

	if (c->cs->zerocopy) {
		err = zc_open(c, true, &zc);
		if (err)
			return err;
	}
	err = st_rserve(c, zc);
	return zc_close(zc, c, err, &c->out.extra[ST_EXTRA_ZC_PEER_SENDS]);
}

/*
 * The server checks a message where the transport holds it when it can
 * (shm): one pass over the bytes, instead of a copy out and a second pass
 * over the copy.  Unchecked, it copies them out, as a receiver that keeps
 * them would.
 */
static int st_server(struct ipc_pctx *c)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const uint64_t count = c->cs->count;
	const bool in_place =
		c->verify && c->io.eng->recv_view && c->io.ep->ops->recv_view;
	const uint8_t *msg;
	uint64_t seq = 0, k;
	uint8_t ack;
	int err;

	c->out.extra[ST_EXTRA_ZC_PEER_SENDS] = NAN; /* st_rserver's counts */
	c->out.extra[ST_EXTRA_ZC_PEER_DONE] = NAN;
	c->out.extra[ST_EXTRA_ZC_PEER_COPIED] = NAN;
	if (c->tp_caps & IPC_TP_LOSSY)
		return c->cs->direction == IPC_DIR_REVERSE ? st_dgram_rserver(c)
							   : st_dgram_server(c);
	if (c->cs->direction == IPC_DIR_REVERSE)
		return st_rserver(c);
	for (uint64_t batch = 0;; batch++) {
		for (k = 0; k < count; k++) {
			err = st_recv(c, k, in_place, &msg, len);
			if (err > 0)
				return 0;
			if (err)
				return msg_fail(c, err, "receive message");
			if (c->verify) {
				err = msg_check_shifted(c, msg, len, seq);
				if (err)
					return err;
			}
			seq++;
		}
		ack = (uint8_t)batch;
		err = msg_send(c, &ack, 1);
		if (err)
			return msg_fail(c, err, "send acknowledgement");
		c->out.done++;
	}
}

/* enum ipc_direction in words and JSON. */
static const char *const st_dir_names[] = {"send", "reverse", "bidir", NULL};

static const struct ipc_param st_params[] = {
	{.key = "msg_size",
	 .word = "size",
	 .head = "size",
	 .option = "size",
	 .type = IPC_VT_SIZE,
	 .off = offsetof(struct ipc_case, msg_size),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_PAYLOAD},
	{.key = "count",
	 .word = "count",
	 .head = "count",
	 .option = "count",
	 .vary = "COUNT",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, count),
	 .fmt = IPC_FMT_COUNT},
	{.key = "bitrate_bps",
	 .word = "bitrate",
	 .head = NULL,
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, bitrate_bps),
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	PARAM_ZEROCOPY,
	PARAM_STREAMS,
	{.key = "direction",
	 .word = "dir",
	 .type = IPC_VT_U32,
	 .off = offsetof(struct ipc_case, direction),
	 .fmt = IPC_FMT_NAME,
	 .names = st_dir_names,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{0},
};

static const struct ipc_column st_cols[] = {
	{.head = "batch p50", .src = IPC_SRC_P50, .fmt = IPC_FMT_NS},
	{.head = "per msg",
	 .src = IPC_SRC_P50,
	 .fmt = IPC_FMT_NS,
	 .per_off = offsetof(struct ipc_case, count)},
	{.head = "msgs/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "bandwidth", .src = IPC_SRC_BYTES_PER_S, .fmt = IPC_FMT_BPS},
	{.head = "lost",
	 .src = IPC_SRC_LOST,
	 .fmt = IPC_FMT_LOSS,
	 .flags = IPC_COL_IF_ANY},
	{.head = "reordered",
	 .src = IPC_SRC_REORDERED,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "jitter",
	 .src = IPC_SRC_EXTRA + ST_EXTRA_JITTER,
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_COL_IF_ANY},
	ZC_COL("zc sends", ST_EXTRA_ZC_SENDS),
	ZC_COL("zc copied", ST_EXTRA_ZC_COPIED),
	ZC_COL("peer zc sends", ST_EXTRA_ZC_PEER_SENDS),
	ZC_COL("peer zc copied", ST_EXTRA_ZC_PEER_COPIED),
	COLS_STREAMS,
	{0},
};

/*
 * Over udp: a paced stream's jitter (RFC 3550), as the receiver reported
 * it; the window of datagrams the sender kept in flight and the
 * receiver's buffer it came from (stream_dgram.c).  --zerocopy's sends
 * and the kernel's completions (zc.h), the client's and the peer's.
 */
static const struct ipc_extra st_extras[] = {
	{.key = "jitter_ns", .fmt = IPC_FMT_NS, .flags = IPC_EXTRA_RUN},
	{.key = "window",
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	{.key = "receiver_rcvbuf",
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	ZC_EXTRA("zc_sends", 0),
	ZC_EXTRA("zc_completed", 0),
	ZC_EXTRA("zc_copied", 0),
	EXTRAS_ZC_PEER,
	{0},
};

/* The summary's extras: the runs' mean, not their sum. */
static void st_summarize(const struct ipc_case *cs, struct ipc_psum *ps)
{
	(void)cs;
	if (!ps->runs)
		return;
	ps->extra[ST_EXTRA_JITTER] /= (double)ps->runs;
	ps->extra[ST_EXTRA_WINDOW] /= (double)ps->runs;
	ps->extra[ST_EXTRA_RCVBUF] /= (double)ps->runs;
}

static const struct ipc_column st_suite_cols[] = {
	{.head = "stream bandwidth",
	 .src = IPC_SRC_BYTES_PER_S,
	 .fmt = IPC_FMT_BPS},
	{.head = "stream msgs/s",
	 .src = IPC_SRC_MSGS_PER_S,
	 .fmt = IPC_FMT_RATE},
	{0},
};

/*
 * In the suite, batches of 256 x 64 KiB for 20 ms after one of warm-up:
 * 27 batches of shm on two CPUs, 4 of a pipe on two, 1 of a pty (74 ms a
 * batch).  A fixed 5 batches took 4 ms of shm, too few to average the
 * batches' spread, and 370 ms of pty, a fifth of the suite's budget.
 */
static const struct ipc_suite_desc st_suite = {
	.words = "one-way batches of {count} messages of {msg_size}, timed "
		 "with the receiver's 1-byte ack",
	.cols = st_suite_cols,
	.run_ns = 20000000,
	.warmup = 1,
};

const struct ipc_pattern_ops ipc_pattern_stream = {
	.name = "stream",
	.help = "one-way messages in batches: time per batch and throughput",
	.flags = IPC_PAT_REORDER,
	.sample = "batch",
	.samples = "batches",
	.cost_per = "message",
	.cost_abbr = "msg",
	.title = "one-way batches of {count} messages; time per batch "
		 "includes the receiver's 1-byte ack",
	.loss_note = "over udp the receiver counts what arrives and reports "
		     "it at the end of each batch; msgs/s and bandwidth count "
		     "delivered messages",
	.metric = &ipc_metric_bytes_per_s,
	.rate = &ipc_metric_bytes_per_s,
	.params = st_params,
	.cols = st_cols,
	.extras = st_extras,
	.summarize = st_summarize,
	.suite = &st_suite,
	.check = st_check,
	.buf_bytes = st_buf_bytes,
	.max_msg = st_max_msg,
	.client = st_client,
	.server = st_server,
};

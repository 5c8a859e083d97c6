/* SPDX-License-Identifier: MIT */
/*
 * bulk: one small request, then TOTAL bytes back in messages of chunk_size
 * bytes (the last one shorter when they do not divide).  One transfer, from
 * the request's send to the last byte received, is one sample.  The client
 * checks each chunk as it arrives, so the check is inside the timed
 * interval: one memcmp per chunk, small next to a system call.  With
 * --zerocopy the server sends the chunks without a copy (zc.c).
 */
#include <math.h>

#include "msg.h"
#include "describe.h"
#include "pattern/lib_internal.h"
#include "interval.h"
#include "zc.h"

#define BULK_REQ 8 /* request bytes: the transfer's sequence number */

static size_t bk_max_msg(const struct ipc_case *cs)
{
	return cs->chunk_size > BULK_REQ ? cs->chunk_size : BULK_REQ;
}

static size_t bk_buf_bytes(const struct ipc_case *cs)
{
	return bk_max_msg(cs) + 64;
}

/* Chunks of 0 bytes would never add up to the total: both loops spin. */
static int bk_check(const struct ipc_case *cs, enum ipc_placement placement,
		    char *why, size_t why_len)
{
	(void)placement;
	if (!cs->chunk_size || !cs->total) {
		snprintf(why, why_len,
			 "bulk sends a total of at least 1 byte in chunks of "
			 "at least 1 byte (total %llu, chunk %zu)",
			 (unsigned long long)cs->total, cs->chunk_size);
		return -EINVAL;
	}
	return ipc_zc_check(cs, why, why_len);
}

static int bk_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		   uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const uint64_t total = c->cs->total;
	const size_t chunk = c->cs->chunk_size;
	struct ipc_hist *h = c->hist;
	uint64_t i, left, t0, t1, sum = 0,
				  cseq = *seq * ((total + chunk - 1) / chunk);
	size_t len;
	int err = 0;

	for (i = 0; i < n; i++) {
		msg_stamp(c->sbuf, BULK_REQ, *seq);
		t0 = ipc_now_ns();
		err = msg_send(c, c->sbuf, BULK_REQ);
		if (err) {
			msg_fail(c, err, "send request");
			break;
		}
		for (left = total; left; left -= len) {
			len = left < chunk ? (size_t)left : chunk;
			err = msg_recv(c, c->rbuf, len);
			if (err) {
				msg_fail(c, err, "receive data");
				goto out;
			}
			if (c->verify) {
				err = msg_check(c, c->rbuf, len, cseq);
				if (err)
					goto out;
			}
			cseq++;
		}
		t1 = ipc_now_ns();
		ipc_hist_record(h, t1 - t0);
		sum += t1 - t0;
		(*seq)++;
		ival_tick(c, t1, *done + i + 1,
			  (*done + i + 1) * ((total + chunk - 1) / chunk),
			  (*done + i + 1) * total, 0);
		if (msg_sample_end(c, t1, deadline, &err)) {
			i++;
			break;
		}
	}
out:
	*done += i;
	*elapsed_ns += sum;
	return err;
}

static int bk_client(struct ipc_pctx *c)
{
	const uint64_t chunks =
		(c->cs->total + c->cs->chunk_size - 1) / c->cs->chunk_size;
	int err = msg_client_phases(c, bk_loop);

	c->out.messages = c->out.done * chunks;
	c->out.bytes = c->out.done * c->cs->total;
	return err;
}

/* Chunk @cseq of @len bytes: through @zc, or stamped into c->sbuf. */
static inline int bk_send(struct ipc_pctx *c, struct zc *zc, size_t len,
			  uint64_t cseq)
{
	if (zc)
		return zc_send(zc, c, len, cseq);
	msg_stamp(c->sbuf, len, cseq);
	return msg_send(c, c->sbuf, len);
}

/*
 * Each transfer the client asks for; with --zerocopy through @zc, whose
 * counts begin with the client's measured part, after its c->warmup
 * transfers.
 */
static int bk_serve(struct ipc_pctx *c, struct zc *zc)
{
	const uint64_t total = c->cs->total;
	const size_t chunk = c->cs->chunk_size;
	uint64_t seq, left, cseq = 0;
	size_t len;
	int err;

	for (seq = 0;; seq++) {
		err = msg_next(c, c->rbuf, BULK_REQ);
		if (err > 0)
			return 0;
		if (err)
			return msg_fail(c, err, "receive request");
		if (c->verify) {
			err = msg_check(c, c->rbuf, BULK_REQ, seq);
			if (err)
				return err;
		}
		/* Its sends need not wait: the stop is looked at here. */
		if (ipc_cancelled(c->io.cancel))
			return 0;
		if (zc && seq == c->warmup)
			zc_measure(zc);
		for (left = total; left; left -= len) {
			len = left < chunk ? (size_t)left : chunk;
			err = bk_send(c, zc, len, cseq++);
			if (err == -ECANCELED)
				return 0;
			if (err)
				return msg_fail(c, err, "send data");
		}
		c->out.done++;
	}
}

static int bk_server(struct ipc_pctx *c)
{
	double *counts = &c->out.extra[BK_EXTRA_ZC_PEER_SENDS];
	struct zc *zc = NULL;
	int err;

	counts[0] = counts[1] = counts[2] = NAN;
	if (c->cs->zerocopy) {
		err = zc_open(c, false, &zc);
		if (err)
			return err;
	}
	err = bk_serve(c, zc);
	return zc_close(zc, c, err, counts);
}

static const struct ipc_param bk_params[] = {
	{.key = "total",
	 .word = "total",
	 .head = "total",
	 .option = "total",
	 .vary = "TOTAL bytes",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, total),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_PAYLOAD},
	{.key = "chunk_size",
	 .word = "size",
	 .head = "chunk",
	 .option = "size",
	 .type = IPC_VT_SIZE,
	 .off = offsetof(struct ipc_case, chunk_size),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_PAYLOAD},
	PARAM_ZEROCOPY,
	PARAM_STREAMS,
	{0},
};

static const struct ipc_column bk_cols[] = {
	{.head = "transfer p50", .src = IPC_SRC_P50, .fmt = IPC_FMT_NS},
	{.head = "msgs/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "bandwidth", .src = IPC_SRC_BYTES_PER_S, .fmt = IPC_FMT_BPS},
	ZC_COL("peer zc sends", BK_EXTRA_ZC_PEER_SENDS),
	ZC_COL("peer zc copied", BK_EXTRA_ZC_PEER_COPIED),
	COLS_STREAMS,
	{0},
};

/* --zerocopy: the server's sends and the kernel's completions (zc.h). */
static const struct ipc_extra bk_extras[] = {
	EXTRAS_ZC_PEER,
	{0},
};

const struct ipc_pattern_ops ipc_pattern_bulk = {
	.name = "bulk",
	.help = "one request, then TOTAL bytes back in chunks: transfer rate",
	.sample = "transfer",
	.samples = "transfers",
	.cost_per = "chunk",
	.cost_abbr = "chunk",
	.title = "one request, then {total} back in chunks",
	.metric = &ipc_metric_bytes_per_s,
	.rate = &ipc_metric_bytes_per_s,
	.params = bk_params,
	.cols = bk_cols,
	.extras = bk_extras,
	.check = bk_check,
	.buf_bytes = bk_buf_bytes,
	.max_msg = bk_max_msg,
	.client = bk_client,
	.server = bk_server,
};

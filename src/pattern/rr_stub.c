/* SPDX-License-Identifier: MIT */
/*
 * The request x response matrix against a real GDB stub (rr --framing
 * gdb-rsp --target gdb://HOST:PORT), or against ipcperf's own stub
 * (--target ipcperf) to tell what the real one adds per packet.  A sample
 * is the write and the read of framing's stub client (docs/stubs.md):
 *
 *   t0 ─ $X<buf>,LEN:<M bytes>#xx ──> <── $OK#9a
 *        $x<buf>,LEN#xx (or m)   ──> <── $<N bytes>#xx ─ t1
 *
 * Every run opens a session on a fresh connection (negotiation, the
 * buffer saved and filled: not timed), and closes it by putting the buffer
 * back and disconnecting, so the next run finds the stub as this one did.
 * The bytes read back are checked after t1.  What a stub gets wrong is
 * counted in the run's extras and, past a sample's failure, ends the run.
 */
#include <math.h>

#include "describe.h"
#include "msg.h"
#include "framing/lib_internal.h"
#include "pattern/lib_internal.h"

/* The run's state, in c->pat_priv while the client runs. */
struct st {
	struct ipc_rsp_sess *s;
	struct ipc_rsp_cell cell;
	char why[120];
};

enum {
	X_PACKET_SIZE = 0, /* the stub's PacketSize */
	X_PACKETS,	   /* round trips per sample */
	X_WRITE,	   /* payload bytes of the write packet */
	X_READ,		   /* payload bytes of the read's reply */
	X_NOACK,	   /* 1: no-ack mode on (QStartNoAckMode) */
	X_BIN_WRITE,	   /* 1: writes are binary X, 0: hex M */
	X_BIN_READ,	   /* 1: reads are binary x, 0: hex m */
	X_MULTIPROCESS,	   /* 1: the stub said multiprocess+ */
	X_PER_PACKET,	   /* p50 / packets per sample */
	X_ERRORS,	   /* Exx replies */
	X_BAD_FRAMES,	   /* wrong checksums, bad escapes, wrong shapes */
	X_NOISE,	   /* bytes outside packets */
	X_NAKS,		   /* '-' from the stub */
	X_TIMEOUTS,	   /* replies that did not come in time */
	X_MISMATCHES,	   /* reads that did not return what was written */
	X_COUNT
};

/* Per-run constants are recorded in every run and averaged back. */
#define CONSTANT (IPC_EXTRA_RUN | IPC_EXTRA_INT)

static const struct ipc_extra st_extras[] = {
	[X_PACKET_SIZE] = {.key = "stub_packet_size",
			   .fmt = IPC_FMT_BYTES,
			   .flags = CONSTANT},
	[X_PACKETS] = {.key = "packets_per_sample",
		       .fmt = IPC_FMT_COUNT,
		       .flags = CONSTANT | IPC_EXTRA_PER,
		       .per = "packet"},
	[X_WRITE] = {.key = "write_payload",
		     .fmt = IPC_FMT_BYTES,
		     .flags = CONSTANT},
	[X_READ] = {.key = "read_payload",
		    .fmt = IPC_FMT_BYTES,
		    .flags = CONSTANT},
	[X_NOACK] = {.key = "stub_noack", .flags = CONSTANT},
	[X_BIN_WRITE] = {.key = "stub_binary_write", .flags = CONSTANT},
	[X_BIN_READ] = {.key = "stub_binary_read", .flags = CONSTANT},
	[X_MULTIPROCESS] = {.key = "stub_multiprocess", .flags = CONSTANT},
	[X_PER_PACKET] = {.key = "p50_per_packet_ns",
			  .fmt = IPC_FMT_NS,
			  .flags = IPC_EXTRA_INT},
	[X_ERRORS] = {.key = "stub_errors",
		      .fmt = IPC_FMT_COUNT,
		      .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_BAD_FRAMES] = {.key = "bad_frames",
			  .fmt = IPC_FMT_COUNT,
			  .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_NOISE] = {.key = "noise_bytes",
		     .fmt = IPC_FMT_COUNT,
		     .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_NAKS] = {.key = "naks",
		    .fmt = IPC_FMT_COUNT,
		    .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_TIMEOUTS] = {.key = "timeouts",
			.fmt = IPC_FMT_COUNT,
			.flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_MISMATCHES] = {.key = "mismatches",
			  .fmt = IPC_FMT_COUNT,
			  .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	{0},
};

static int st_send(void *ctx, const void *buf, size_t len)
{
	return msg_send(ctx, buf, len);
}

/*
 * A receive through the side's engine.  The engine waits io.timeout_ns at
 * most (the reply timeout), and nothing starts past the deadline, so a
 * reply that trickles in ends within twice the timeout.
 */
static ssize_t st_recv(void *ctx, void *buf, size_t len, uint64_t deadline)
{
	struct ipc_pctx *c = ctx;
	ssize_t n;

	if (deadline != UINT64_MAX && ipc_now_ns() >= deadline)
		return -ETIMEDOUT;
	n = c->io.eng->recv(&c->io, buf, len);
	return n == 0 && !(c->tp_caps & IPC_TP_STREAM) ? -ECONNRESET : n;
}

static size_t largest(const struct ipc_case *cs)
{
	return cs->req_size > cs->resp_size ? cs->req_size : cs->resp_size;
}

/* The samples of one phase, a msg_loop_fn. */
static int st_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		   uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	struct st *st = c->pat_priv;
	uint64_t i, t0, t1, sum = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		t0 = ipc_now_ns();
		err = ipc_rsp_cell_run(st->s, &st->cell, *seq);
		t1 = ipc_now_ns();
		if (err)
			break;
		err = ipc_rsp_cell_check(st->s, &st->cell, st->why,
					 sizeof(st->why));
		if (err) {
			snprintf(c->out.what, sizeof(c->out.what),
				 "sample %llu: %.120s",
				 (unsigned long long)*seq, st->why);
			c->out.err = err;
			break;
		}
		(*seq)++;
		if (msg_sample_kept(c, t1 - t0, t1, deadline, &sum, &err)) {
			i++;
			break;
		}
	}
	if (err && !c->out.err) {
		snprintf(c->out.what, sizeof(c->out.what), "sample %llu: %s",
			 (unsigned long long)*seq,
			 err == -EIO ? "the stub answered with an error"
			 : err == -EPROTO
				 ? "a reply of the wrong kind or length"
			 : err == -EBADMSG   ? "a reply with a bad checksum or "
					       "escape"
			 : err == -ETIMEDOUT ? "no reply in time"
			 : err == -ECONNRESET ? "the stub closed the connection"
					      : strerror(-err));
		c->out.err = err;
	}
	*done += i;
	*elapsed_ns += sum;
	return err;
}

/* The session's counts and the cell's sizes into the run's extras. */
static void st_extras_out(struct ipc_pctx *c, const struct st *st)
{
	const struct ipc_rsp_counts *n = ipc_rsp_sess_counts(st->s);
	const struct ipc_rsp_stub_info *in = ipc_rsp_sess_info(st->s);
	double *x = c->out.extra;

	x[X_PACKET_SIZE] = in->packet_size;
	x[X_PACKETS] = st->cell.packets;
	x[X_WRITE] = st->cell.write ? (double)st->cell.req_wire : 0;
	x[X_READ] = st->cell.read ? (double)st->cell.resp_wire : 0;
	x[X_NOACK] = in->noack;
	x[X_BIN_WRITE] = in->binary_write;
	x[X_BIN_READ] = in->binary_read;
	x[X_MULTIPROCESS] = in->multiprocess;
	x[X_ERRORS] = (double)n->errors;
	x[X_BAD_FRAMES] = (double)(n->bad_checksum + n->malformed);
	x[X_NOISE] = (double)n->garbage;
	x[X_NAKS] = (double)n->naks;
	x[X_TIMEOUTS] = (double)n->timeouts;
	x[X_MISMATCHES] = (double)n->mismatches;
}

static int st_client(struct ipc_pctx *c)
{
	const struct ipc_stub_cfg *cfg = c->cs->cfg;
	struct ipc_rsp_io io = {.ctx = c, .send = st_send, .recv = st_recv};
	struct ipc_rsp_sess_opts o = {
		.ack = !c->cs->framing_noack, /* --ack: gdb-rsp's acks */
		.timeout_ns = cfg && cfg->timeout_ns ? cfg->timeout_ns
						     : 5000000000ull,
		.max_payload = largest(c->cs) + 64,
		.buf_addr = cfg ? cfg->buf_addr : 0,
	};
	struct st st = {0};
	char err[200] = "";
	int rc, crc;

	for (size_t k = 0; k < X_COUNT; k++)
		c->out.extra[k] = NAN;
	c->io.timeout_ns = o.timeout_ns;
	rc = ipc_rsp_sess_new(&st.s, &io, &o);
	if (rc)
		return msg_fail(c, rc, "a stub session");
	c->pat_priv = &st;
	rc = ipc_rsp_sess_open(st.s, err, sizeof(err));
	if (!rc)
		rc = ipc_rsp_cell_plan(st.s, c->cs->req_size, c->cs->resp_size,
				       &st.cell, err, sizeof(err));
	if (rc) {
		snprintf(c->out.what, sizeof(c->out.what), "stub: %.150s", err);
		c->out.err = rc;
	} else {
		rc = msg_client_phases(c, st_loop);
	}
	st_extras_out(c, &st);
	c->out.messages = c->out.done * st.cell.packets;
	c->out.bytes =
		c->out.done * (uint64_t)(st.cell.req_wire + st.cell.resp_wire);
	/* Put the buffer back, unless the stub is gone or broken. */
	if (!rc || rc == -EBADMSG || rc == -EIO || rc == -ECANCELED) {
		crc = ipc_rsp_sess_close(st.s, false);
		if (crc && !rc) {
			rc = msg_fail(c, crc, "put the stub's buffer back");
		}
	}
	c->pat_priv = NULL;
	ipc_rsp_sess_free(st.s);
	return rc;
}

/* ipcperf's own stub, the yardstick (--target ipcperf). */
static int st_server(struct ipc_pctx *c)
{
	struct ipc_rsp_io io = {.ctx = c, .send = st_send, .recv = st_recv};
	struct ipc_rsp_stub stub;
	int rc = ipc_rsp_stub_init(&stub, 2 * largest(c->cs) + 16384);

	if (rc)
		return msg_fail(c, rc, "ipcperf's stub");
	rc = ipc_rsp_stub_serve(&stub, &io);
	c->out.done = stub.served;
	ipc_rsp_stub_fini(&stub);
	if (rc == -ECANCELED || rc == MSG_EOF || rc == -EPIPE)
		return 0;
	return rc ? msg_fail(c, rc, "serve the stub's packets") : 0;
}

static size_t st_buf_bytes(const struct ipc_case *cs)
{
	(void)cs;
	return 64; /* the session keeps its own buffers */
}

static size_t st_max_msg(const struct ipc_case *cs)
{
	return ipc_framing_rsp.frame_max(2 * largest(cs) + 64);
}

/* The per-run constants were added up over the runs: average them. */
static void st_summarize(const struct ipc_case *cs, struct ipc_psum *ps)
{
	(void)cs;
	for (size_t k = X_PACKET_SIZE; k <= X_MULTIPROCESS; k++)
		ps->extra[k] = ps->runs ? ps->extra[k] / (double)ps->runs : NAN;
	ps->extra[X_PER_PACKET] =
		ps->runs && ps->extra[X_PACKETS] > 0
			? round((double)ps->lat.p50 / ps->extra[X_PACKETS])
			: NAN;
}

static int st_check(const struct ipc_case *cs, enum ipc_placement pl, char *why,
		    size_t why_len)
{
	(void)pl;
	if (!cs->cfg) {
		snprintf(why, why_len, "rr against a stub needs --target");
		return -EINVAL;
	}
	if (!(cs->tp->caps & IPC_TP_STREAM)) {
		snprintf(why, why_len,
			 "the GDB remote protocol needs a byte stream, and %s "
			 "carries messages",
			 cs->tp->name);
		return -EINVAL;
	}
	return 0;
}

static const struct ipc_param st_params[] = {
	PARAM_REQ,
	PARAM_RESP,
	{.key = "target",
	 .word = "target",
	 .head = "target",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = offsetof(struct ipc_stub_cfg, target),
	 .len = sizeof(((struct ipc_stub_cfg *)0)->target),
	 .fmt = IPC_FMT_TEXT},
	{0},
};

static const struct ipc_column st_cols[] = {
	COLS_PERCENTILES,
	{.head = "per packet",
	 .src = IPC_SRC_EXTRA + X_PER_PACKET,
	 .fmt = IPC_FMT_NS},
	{.head = "pkt size",
	 .src = IPC_SRC_EXTRA + X_PACKET_SIZE,
	 .fmt = IPC_FMT_BYTES},
	{.head = "pkts",
	 .src = IPC_SRC_EXTRA + X_PACKETS,
	 .fmt = IPC_FMT_COUNT},
	{.head = "write", .src = IPC_SRC_EXTRA + X_WRITE, .fmt = IPC_FMT_BYTES},
	{.head = "read", .src = IPC_SRC_EXTRA + X_READ, .fmt = IPC_FMT_BYTES},
	{.head = "samples/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	{.head = "errors",
	 .src = IPC_SRC_EXTRA + X_ERRORS,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "bad frames",
	 .src = IPC_SRC_EXTRA + X_BAD_FRAMES,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "timeouts",
	 .src = IPC_SRC_EXTRA + X_TIMEOUTS,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "mismatches",
	 .src = IPC_SRC_EXTRA + X_MISMATCHES,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{0},
};

const struct ipc_pattern_ops ipc_pattern_rr_stub = {
	.name = "rr-stub",
	.help = "rr against a GDB stub (rr --target): a memory write of req "
		"bytes and a read of resp bytes",
	.flags = IPC_PAT_FRAMED,
	.sample = "sample",
	.samples = "samples",
	.cost_per = "sample",
	.cost_abbr = "smp",
	.title = "request/response against a GDB stub: a write of req bytes "
		 "and a read of resp bytes per sample",
	.note = "per packet: p50 / round trips per sample; pkt size: the "
		"stub's PacketSize; write, read: payload bytes on the wire; "
		"the features the session used (no-ack, binary X and x, "
		"multiprocess) are in -f json",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = st_params,
	.cols = st_cols,
	.extras = st_extras,
	.cfg_size = sizeof(struct ipc_stub_cfg),
	.check = st_check,
	.buf_bytes = st_buf_bytes,
	.max_msg = st_max_msg,
	.client = st_client,
	.server = st_server,
	.summarize = st_summarize,
};

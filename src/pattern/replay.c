/* SPDX-License-Identifier: MIT */
/*
 * replay: a recorded conversation played by both sides.  The client sends
 * what the client wrote and waits for exactly the bytes the server wrote
 * back; the server does the mirror image.  Every write in the trace is one
 * write here (an ack and the packet after it go out separately, as a stub
 * sends them), and nothing is sent before the other side's bytes that
 * came first in the recording have arrived.
 *
 *   trace:   > +  > $qTStatus#49  |  < +  < $T0;tnotrun:0#..  |  > + ...
 *            └── client group ──┘    └──── server group ────┘
 *            └─────────────── one exchange ─────────────────┘
 *
 * One iteration is one whole replay, timed from the client's first write
 * to the last byte it reads: that is the sample (and the wall time the
 * seed report measured).  Each exchange is timed as well, from its first
 * client write to the last byte of the answer, into a second histogram.
 * Received bytes are compared with the trace as they arrive (one memcmp
 * per read, small next to a system call).  Recorded think time (native
 * traces with timestamps) is waited out by the writing side.
 */
#include <errno.h>
#include <math.h>

#include "describe.h"
#include "replay.h"
#include "link/lib_internal.h"
#include "pattern/lib_internal.h"

static size_t rp_max_msg(const struct ipc_case *cs)
{
	return cs->trace && cs->trace->max_unit ? cs->trace->max_unit : 1;
}

/* Reads of a byte stream take up to 64 KiB; a datagram needs its size. */
static size_t rp_buf_bytes(const struct ipc_case *cs)
{
	size_t m = rp_max_msg(cs);

	return (m > 65536 ? m : 65536) + 64;
}

/* Send the writes [i, j) of the trace.  0 or -errno (c->out set). */
static int send_group(struct ipc_pctx *c, const struct ipc_trace *t, size_t i,
		      size_t j, uint64_t *first_ns, uint64_t *bytes)
{
	int err;

	for (size_t k = i; k < j; k++) {
		const struct ipc_trace_unit *u = &t->units[k];

		if (u->think_ns) {
			err = rp_think(c, u->think_ns);
			if (err)
				return msg_fail(c, err, "think time");
		}
		if (k == i && first_ns)
			*first_ns = ipc_now_ns();
		err = msg_send(c, t->bytes + u->off, u->len);
		if (err)
			return err;
		*bytes += u->len;
	}
	return 0;
}

/* The received bytes differ from the trace: say where. */
static int diverged(struct ipc_pctx *c, const struct ipc_trace *t,
		    const struct ipc_trace_unit *u, const uint8_t *got,
		    size_t n, size_t at)
{
	const uint8_t *want = t->bytes + u->off;
	size_t k = 0;

	while (k < n && got[k] == want[k])
		k++;
	snprintf(c->out.what, sizeof(c->out.what),
		 "replay diverged: byte %zu of the %zu-byte write from %s:%u "
		 "is 0x%02x, the trace has 0x%02x",
		 at + k, u->len, t->path, u->line, k < n ? got[k] : 0,
		 k < n ? want[k] : 0);
	c->out.err = -EBADMSG;
	return -EBADMSG;
}

/*
 * Receive the writes [i, j) of the trace.  A byte stream reads the group
 * in whatever pieces arrive; a datagram transport reads one message per
 * write.  0, MSG_EOF, or -errno.
 */
static int recv_group(struct ipc_pctx *c, const struct ipc_trace *t, size_t i,
		      size_t j, uint64_t *bytes)
{
	const struct ipc_engine_ops *eng = c->io.eng;
	size_t k = i, at = 0; /* unit k, byte at of it */
	size_t left = 0;      /* bytes of the group still to come */
	ssize_t n;

	/* The writes' bytes need not follow each other in the store. */
	for (size_t m = i; m < j; m++)
		left += t->units[m].len;
	while (k < j) {
		const struct ipc_trace_unit *u = &t->units[k];
		size_t want = u->len - at;

		if (c->tp_caps & IPC_TP_STREAM) {
			/* Up to the end of the group: no more can come. */
			n = eng->recv(&c->io, c->rbuf,
				      left < c->buf_bytes ? left
							  : c->buf_bytes);
		} else {
			n = eng->recv(&c->io, c->rbuf, c->buf_bytes);
			if (n == 0 && !(c->tp_caps & IPC_TP_EMPTY_MSG))
				return MSG_EOF;
			if (n >= 0 && (size_t)n != u->len) {
				snprintf(c->out.what, sizeof(c->out.what),
					 "replay diverged: a %zd-byte datagram "
					 "where the %zu-byte write from %s:%u "
					 "was due",
					 n, u->len, t->path, u->line);
				c->out.err = -EBADMSG;
				return -EBADMSG;
			}
		}
		if (n < 0)
			return (int)n;
		if (n == 0)
			return MSG_EOF;
		*bytes += (uint64_t)n;
		left -= (size_t)n < left ? (size_t)n : left;
		/* Check what came against the writes it covers. */
		for (size_t off = 0; off < (size_t)n;) {
			size_t m =
				(size_t)n - off < want ? (size_t)n - off : want;

			if (c->verify &&
			    memcmp(c->rbuf + off, t->bytes + u->off + at, m))
				return diverged(c, t, u, c->rbuf + off, m, at);
			off += m;
			at += m;
			want -= m;
			if (!want && ++k < j) {
				u = &t->units[k];
				at = 0;
				want = u->len;
			}
		}
	}
	return 0;
}

/*
 * One whole replay by the client: when it started and ended into *t0 and
 * *t1, one sample per exchange into c->xhist.  0 or -errno (c->out set).
 */
static int rp_once(struct ipc_pctx *c, uint64_t *t0, uint64_t *t1,
		   uint64_t *bytes)
{
	const struct ipc_trace *t = c->cs->trace;
	uint64_t start = ipc_now_ns(), first = start;
	bool asked = false;
	int err;

	for (size_t i = 0, j; i < t->nunits; i = j) {
		j = rp_group_end(t, i);
		if (t->units[i].dir == IPC_C2S) {
			err = send_group(c, t, i, j, &first, bytes);
			if (err)
				return msg_fail(c, err, "send");
			asked = true;
			continue;
		}
		err = recv_group(c, t, i, j, bytes);
		if (err)
			return msg_fail(c, err, "receive");
		if (asked)
			ipc_hist_record(c->xhist, ipc_now_ns() - first);
		asked = false;
	}
	*t0 = start;
	*t1 = ipc_now_ns();
	return 0;
}

/* One phase: up to @n replays, or until one ends past @deadline. */
static int rp_phase(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		    uint64_t *done, uint64_t *elapsed_ns, uint64_t *bytes)
{
	uint64_t i, t0 = 0, t1 = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		err = rp_once(c, &t0, &t1, bytes);
		if (err)
			break;
		if (msg_sample_kept(c, t1 - t0, t1, deadline, elapsed_ns,
				    &err)) {
			i++;
			break;
		}
	}
	*done += i;
	return err;
}

static int rp_client(struct ipc_pctx *c)
{
	uint64_t warm_ns = 0, warm_bytes = 0, start;
	int err;

	for (size_t k = RP_MATCHED; k < RP_COUNT; k++)
		c->out.extra[k] = NAN;
	if (c->cs->cfg)
		return rp_stub_client(c);
	ipc_hist_reset(c->xhist);
	err = rp_phase(c, c->warmup, UINT64_MAX, &c->out.warmup_done, &warm_ns,
		       &warm_bytes);
	ipc_hist_reset(c->hist);
	ipc_hist_reset(c->xhist);
	if (!err) {
		start = ipc_now_ns();
		ipc_pctx_measuring(c, start);
		ipc_pctx_window(c, false, start);
		err = rp_phase(c, c->iterations,
			       c->duration_ns ? start + c->duration_ns
					      : UINT64_MAX,
			       &c->out.done, &c->out.elapsed_ns, &c->out.bytes);
		ipc_pctx_window(c, true, ipc_now_ns());
	}
	c->out.messages = c->out.done * c->cs->trace->exchanges;
	return err;
}

/* The end of the conversation (end of stream, asked to stop), or not. */
static bool rp_over(int err)
{
	return err == MSG_EOF || err == -ECANCELED;
}

static int rp_server(struct ipc_pctx *c)
{
	const struct ipc_trace *t = c->cs->trace;
	uint64_t bytes = 0;
	int err;

	for (;;) {
		for (size_t i = 0, j; i < t->nunits; i = j) {
			j = rp_group_end(t, i);
			if (t->units[i].dir == IPC_C2S) {
				do
					err = recv_group(c, t, i, j, &bytes);
				while (err == -ETIMEDOUT && i == 0 && !bytes);
				/* The client decides when it is over. */
				if (rp_over(err))
					return 0;
				if (err)
					return c->out.err ? c->out.err
							  : msg_fail(c, err,
								     "receive");
			} else {
				err = send_group(c, t, i, j, NULL, &bytes);
				if (rp_over(err) || err == -EPIPE ||
				    err == -ECONNRESET)
					return 0;
				if (err)
					return msg_fail(c, err, "send");
			}
		}
		c->out.done++;
		bytes = 0;
	}
}

/* The writes of @t in pieces of @mtu bytes, and its turns. */
static void rp_pieces(const struct ipc_trace *t, uint64_t mtu, uint64_t *pieces,
		      uint64_t *turns)
{
	*pieces = *turns = 0;
	for (size_t i = 0; i < t->nunits; i++) {
		const struct ipc_trace_unit *u = &t->units[i];

		*pieces += (u->len + mtu - 1) / mtu;
		if (i + 1 == t->nunits || t->units[i + 1].dir != u->dir)
			(*turns)++; /* the turn: all of it must arrive first */
	}
}

uint64_t ipc_replay_link_ns(const struct ipc_trace *t, const struct ipc_link *l)
{
	uint64_t turns, pieces;

	if (!t || !l || !l->relay)
		return 0;
	rp_pieces(t, l->mtu ? l->mtu : 1448, &pieces, &turns);
	return ipc_link_wire_ns(l, t->bytes_c2s + t->bytes_s2c, pieces) +
	       turns * l->delay_ns;
}

/*
 * A replay's wall time: the median replay, as the seed report took it.
 * Its bytes each way as they crossed: the trace's, or against a live
 * stub what went to it and came from it, per replay.  And the time the
 * emulated link alone accounts for, from those bytes: a live stub's
 * replies are not the recording's (longer, shorter), and each request
 * --max-packet adds is one more write each way and two more turns.
 */
static void rp_summarize(const struct ipc_case *cs, struct ipc_psum *ps)
{
	const struct ipc_trace *t = cs->trace;
	const struct ipc_link *l = cs->link;
	double n = ps->iterations ? (double)ps->iterations : 1;
	uint64_t turns, pieces, added = 0;

	if (ps->runs || ps->iterations)
		ps->elapsed_ns = ps->lat.p50;
	ps->extra[RP_WIRE_C2S] = t ? (double)t->bytes_c2s : NAN;
	ps->extra[RP_WIRE_S2C] = t ? (double)t->bytes_s2c : NAN;
	if (t && cs->cfg) {
		ps->extra[RP_WIRE_C2S] = round(ps->extra[RP_BYTES_OUT] / n);
		ps->extra[RP_WIRE_S2C] = round(ps->extra[RP_BYTES_IN] / n);
		if (ps->extra[RP_PIECES] > 0)
			added = (uint64_t)round(ps->extra[RP_PIECES] / n);
	}
	ps->extra[RP_LINK_NS] = NAN;
	if (!t || !l || !l->relay || isnan(ps->extra[RP_WIRE_C2S]) ||
	    isnan(ps->extra[RP_WIRE_S2C]))
		return;
	rp_pieces(t, l->mtu ? l->mtu : 1448, &pieces, &turns);
	ps->extra[RP_LINK_NS] =
		(double)(ipc_link_wire_ns(l,
					  (uint64_t)(ps->extra[RP_WIRE_C2S] +
						     ps->extra[RP_WIRE_S2C]),
					  pieces + 2 * added) +
			 (turns + 2 * added) * l->delay_ns);
}

static const char *const trace_formats[] = {"native", "gdb", NULL};

/* The conversation: what it is, and what one replay of it moves. */
static const struct ipc_param rp_params[] = {
	{.key = "trace",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_STR,
	 .off = offsetof(struct ipc_trace, path),
	 .fmt = IPC_FMT_TEXT},
	{.key = "trace_name",
	 .word = "",
	 .head = "trace",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_CHARS,
	 .off = offsetof(struct ipc_trace, name),
	 .len = sizeof(((struct ipc_trace *)0)->name),
	 .fmt = IPC_FMT_TEXT},
	{.key = "trace_format",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_BOOL,
	 .off = offsetof(struct ipc_trace, gdb),
	 .fmt = IPC_FMT_NAME,
	 .names = trace_formats},
	{.key = "max_packet",
	 .word = "max-packet",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_U32,
	 .off = offsetof(struct ipc_trace, max_packet),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "exchanges",
	 .head = "exchanges",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_trace, exchanges),
	 .fmt = IPC_FMT_COUNT},
	{.key = "writes",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_SIZE,
	 .off = offsetof(struct ipc_trace, nunits),
	 .fmt = IPC_FMT_COUNT},
	{.key = "bytes_c2s",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_trace, bytes_c2s),
	 .fmt = IPC_FMT_BYTES},
	{.key = "bytes_s2c",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_trace, bytes_s2c),
	 .fmt = IPC_FMT_BYTES},
	{.key = "think_ns",
	 .in = IPC_IN_TRACE,
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_trace, think_ns),
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_PARAM_JSON_DFLT},
	{.key = "target",
	 .word = "target",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = offsetof(struct ipc_stub_cfg, target),
	 .len = sizeof(((struct ipc_stub_cfg *)0)->target),
	 .fmt = IPC_FMT_TEXT},
	{0},
};

#define RP_RUN (IPC_EXTRA_RUN | IPC_EXTRA_INT)

static const struct ipc_extra rp_extras[] = {
	[RP_LINK_NS] = {.key = "link_ns",
			.fmt = IPC_FMT_NS,
			.flags = IPC_EXTRA_INT},
	[RP_MATCHED] = {.key = "replies_matched",
			.fmt = IPC_FMT_COUNT,
			.flags = RP_RUN},
	[RP_MISMATCHED] = {.key = "replies_mismatched",
			   .fmt = IPC_FMT_COUNT,
			   .flags = RP_RUN},
	[RP_CPU] = {.key = "replies_cpu_dependent",
		    .fmt = IPC_FMT_COUNT,
		    .flags = RP_RUN},
	[RP_ACKS] = {.key = "acks_unlike_trace",
		     .fmt = IPC_FMT_COUNT,
		     .flags = RP_RUN},
	[RP_REWRITTEN] = {.key = "packets_rewritten",
			  .fmt = IPC_FMT_COUNT,
			  .flags = RP_RUN},
	[RP_PIECES] = {.key = "pieces_added",
		       .fmt = IPC_FMT_COUNT,
		       .flags = RP_RUN},
	[RP_BYTES_OUT] = {.key = "bytes_to_stub",
			  .fmt = IPC_FMT_BYTES,
			  .flags = RP_RUN},
	[RP_BYTES_IN] = {.key = "bytes_from_stub",
			 .fmt = IPC_FMT_BYTES,
			 .flags = RP_RUN},
	[RP_WIRE_C2S] = {.key = "wire_bytes_c2s",
			 .fmt = IPC_FMT_BYTES,
			 .flags = IPC_EXTRA_INT},
	[RP_WIRE_S2C] = {.key = "wire_bytes_s2c",
			 .fmt = IPC_FMT_BYTES,
			 .flags = IPC_EXTRA_INT},
	{0},
};

static const struct ipc_column rp_cols[] = {
	{.head = "c2s",
	 .src = IPC_SRC_EXTRA + RP_WIRE_C2S,
	 .fmt = IPC_FMT_BYTES},
	{.head = "s2c",
	 .src = IPC_SRC_EXTRA + RP_WIRE_S2C,
	 .fmt = IPC_FMT_BYTES},
	{.head = "link time",
	 .src = IPC_SRC_EXTRA + RP_LINK_NS,
	 .fmt = IPC_FMT_NS},
	{.head = "replay p50", .src = IPC_SRC_P50, .fmt = IPC_FMT_NS},
	{.head = "over link",
	 .src = IPC_SRC_P50,
	 .fmt = IPC_FMT_OVER,
	 .over = IPC_SRC_EXTRA + RP_LINK_NS},
	{.head = "exchange p50", .src = IPC_SRC_XP50, .fmt = IPC_FMT_NS},
	{.head = "exchange p99", .src = IPC_SRC_XP99, .fmt = IPC_FMT_NS},
	{.head = "matched",
	 .src = IPC_SRC_EXTRA + RP_MATCHED,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "mismatched",
	 .src = IPC_SRC_EXTRA + RP_MISMATCHED,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "CPU-decided",
	 .src = IPC_SRC_EXTRA + RP_CPU,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{0},
};

const struct ipc_pattern_ops ipc_pattern_replay = {
	.name = "replay",
	.help = "a recorded conversation played by both sides: wall time, "
		"per-exchange latency",
	.flags = IPC_PAT_TRACE,
	.sample = "replay",
	.samples = "replays",
	.cost_per = "message",
	.cost_abbr = "msg",
	.title = "wall time of one replay, the median",
	.note = "per case: c2s and s2c are one replay's bytes as they crossed "
		"(against a live\nstub, its own); the link time is what the "
		"emulated link alone takes for them\n(line time of every "
		"write, "
		"one delay per turn); exchanges are timed from the\nclient's "
		"first write to the last byte of the answer",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = rp_params,
	.cols = rp_cols,
	.extras = rp_extras,
	.layout = IPC_LAYOUT_PIVOT,
	.cfg_size = sizeof(struct ipc_stub_cfg), /* replay --target */
	.buf_bytes = rp_buf_bytes,
	.max_msg = rp_max_msg,
	.client = rp_client,
	.server = rp_server,
	.summarize = rp_summarize,
};

/* SPDX-License-Identifier: MIT */
/*
 * stream over a lossy transport (udp): the receiver cannot wait for COUNT
 * messages that may never come, so it counts what arrives and reports, the
 * way iperf3 does, and the sender never waits without a deadline.
 *
 *   sender                                receiver
 *   data #s .. #s+k-1       ─ ─ ─ ─ ─ ─►  counts, notes reordering
 *   END(e)                  ─────────►    REPORT(e, received, reordered,
 *   data, END(e+1) ...      ─ ─ ─ ─ ─ ─►          jitter, window, rcvbuf)
 *   (no REPORT: END(e+2) after 0.1, 0.2, 0.4 ... 5 ms, until --timeout)
 *                           ◄─────────
 *
 * Data messages are msg_size bytes with the sequence number in their first
 * min(size, 8) bytes; END and REPORT are control messages told apart by
 * their length (48 bytes, or 49 when data messages are 48 bytes long):
 * END's number, then five counters, little-endian: received, reordered,
 * the jitter so far (ns), the window and the receiver's SO_RCVBUF.  Every END has a number of its
 * own, a repeated one too, so that a REPORT's counts are matched with
 * exactly the messages sent before the END it answers.  The receiver's
 * counters are cumulative, so a lost REPORT costs nothing but its sample:
 * the next one carries everything.
 *
 * The window: the datagrams (data and END) the sender may have sent past
 * the last END answered.  The receiver has taken everything before that
 * END off its queue, so its queue holds at most the window; the receiver
 * sets it from its SO_RCVBUF and the measured cost of one datagram there
 * (ipc_dgram_room), five eighths of what fits, so the window itself never
 * makes the kernel drop a datagram.  With it the sender keeps sending while
 * a receiver that shares its CPU waits for its turn, instead of stopping
 * at every batch for the REPORT.  A batch larger than a quarter of the
 * window is cut by more ENDs, so that REPORTs come while the window is
 * still open.  Window 0 (the peer is not on loopback, an emulated link in
 * between, or before the first REPORT): the sender waits for each batch's
 * REPORT before the next batch, and a batch longer than the receiver's
 * buffer may overflow it, which is then counted as loss.
 *
 * A paced sender (-b) also stamps each data message with its send time in
 * bytes 8 to 15 (messages of 16 bytes or more), and the receiver keeps
 * RFC 3550's jitter over them: J += (|D| - J) / 16, with D the change in
 * transit time (arrival - send) from one datagram to the next.  Both ends
 * read one clock (a local run), so transit times are comparable; only
 * their changes count.
 *
 * One sample ends at the REPORT that answers a batch's last END; it starts
 * at the batch's first send, or at the previous sample's end when that is
 * later (a batch sent while the one before it was in flight), so samples
 * do not overlap and their sum is the time the batches took.  A batch whose
 * END got no REPORT within --timeout gives no sample.  Rates count the
 * messages the receiver counted (delivered), over the sampled time.
 */
#include <math.h>

#include "fault.h"
#include "interval.h"
#include "msg.h"
#include "pace.h"
#include "stream_dgram.h"
#include "transport/lib_internal.h"

#define CTL_LEN 48
/*
 * Repeat END after 100 us without a REPORT, doubling up to 5 ms.  When the
 * sender outruns the receiver, END is often dropped with the data by the
 * full socket buffer, which the receiver drains in well under a
 * millisecond; a fixed 5 ms would halve the rate of small messages.
 */
#define RETRY_FIRST_NS 100000ull
#define RETRY_MAX_NS 5000000ull
/*
 * The buffer the receiver asks for when the user chose none: 4 MiB holds
 * 5000 small datagrams (832 bytes each), and the window made of it some
 * 14 ms of a sender at full speed, longer than a busy neighbour keeps the
 * receiver off its CPU; the default 425984 bytes make 1.5 ms, too short.
 */
#define RCVBUF_WANT (4 << 20)
/*
 * ENDs the sender keeps track of, and batches it may have sent before the
 * oldest is answered: as many REPORTs may wait in the sender's own queue,
 * which holds 256 of them by default.
 */
#define CK_RING 64
#define BATCH_AHEAD 32
/* A window from the peer is taken up to this many datagrams. */
#define WINDOW_MAX (1ull << 24)

/* What the sender knows from the receiver's last report. */
struct counts {
	uint64_t sent, received, reordered, jitter_ns;
};

/* What was sent before an END, that END included in @wire. */
struct ck {
	uint64_t data, wire;
};

struct dstate {
	uint64_t ck;	    /* next END number */
	uint64_t head;	    /* oldest END not answered yet */
	uint64_t sent;	    /* data messages sent so far */
	uint64_t wire;	    /* datagrams sent so far, ENDs included */
	uint64_t acked;	    /* of these, up to the last END answered */
	uint64_t window;    /* datagrams in flight allowed, 0: none ahead */
	uint64_t in_flight; /* the most in flight so far */
	uint64_t rcvbuf;    /* the receiver's SO_RCVBUF, 0: not told */
	struct counts last; /* as of the last REPORT */
	struct counts base; /* as of the phase's start */
	struct ck ring[CK_RING];
	/* Batches sent and not reported: their last END, their first send. */
	uint64_t bend[BATCH_AHEAD], bt0[BATCH_AHEAD];
	uint64_t bhead, btail;
	/* The phase's samples. */
	uint64_t deadline, t_last, sum, ok;
	bool stop;
	int err; /* why it stopped, 0: the deadline */
};

/* Length of a control message next to data messages of @len bytes. */
static size_t ctl_len(size_t len)
{
	return len == CTL_LEN ? CTL_LEN + 1 : CTL_LEN;
}

size_t st_dgram_max_msg(size_t wire)
{
	return wire > CTL_LEN + 1 ? wire : CTL_LEN + 1;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	return seq_read(p, 8);
}

/* Do data messages of @len bytes carry their send time (a paced sender)? */
static bool dgram_stamped(const struct ipc_case *cs, size_t len)
{
	return cs->bitrate_bps && len >= 16;
}

/* Send the next END, noting what went before it. */
static int send_end(struct ipc_pctx *c, struct dstate *st, size_t cl)
{
	uint8_t end[CTL_LEN + 1] = {0};
	struct ck *e = &st->ring[st->ck % CK_RING];
	int err;

	put64(end, st->ck);
	err = msg_send(c, end, cl);
	if (err)
		return msg_fail(c, err, "send the end of a batch");
	st->wire++;
	e->data = st->sent;
	e->wire = st->wire;
	st->ck++;
	if (st->wire - st->acked > st->in_flight)
		st->in_flight = st->wire - st->acked;
	return 0;
}

/* The batches REPORT @x answered make one sample. */
static void batches_done(struct ipc_pctx *c, struct dstate *st, uint64_t x)
{
	const struct ipc_loss *l = &c->out.loss;
	uint64_t t0, t1;
	int err = 0;

	if (st->bhead == st->btail || st->bend[st->bhead % BATCH_AHEAD] > x)
		return;
	t1 = ipc_now_ns();
	t0 = st->bt0[st->bhead % BATCH_AHEAD];
	if (st->t_last > t0)
		t0 = st->t_last;
	while (st->bhead < st->btail && st->bend[st->bhead % BATCH_AHEAD] <= x)
		st->bhead++;
	st->t_last = t1;
	st->ok++;
	if (msg_sample_kept(c, t1 - t0, t1, st->deadline, &st->sum, &err)) {
		st->stop = true;
		st->err = err;
	}
	ival_tick(c, t1, st->ok, l->received, l->received * c->cs->msg_size,
		  l->lost);
}

/* Take the REPORT in c->rbuf: 1 when it was new, 0 when old, or -errno. */
static int take_report(struct ipc_pctx *c, struct dstate *st)
{
	const uint64_t x = get64(c->rbuf);
	struct ipc_loss *l = &c->out.loss;
	const struct ck *e;
	uint64_t w;

	if (x < st->head)
		return 0; /* answers an END answered already */
	if (x >= st->ck)
		return msg_fail(
			c, -EBADMSG,
			"receive the receiver's report (from the future)");
	e = &st->ring[x % CK_RING];
	st->head = x + 1;
	st->acked = e->wire;
	st->last.sent = e->data;
	st->last.received = get64(c->rbuf + 8);
	st->last.reordered = get64(c->rbuf + 16);
	st->last.jitter_ns = get64(c->rbuf + 24);
	w = get64(c->rbuf + 32);
	st->window = w < WINDOW_MAX ? w : WINDOW_MAX;
	st->rcvbuf = get64(c->rbuf + 40);
	l->sent = st->last.sent - st->base.sent;
	l->received = st->last.received - st->base.received;
	l->reordered = st->last.reordered - st->base.reordered;
	l->lost = l->sent > l->received ? l->sent - l->received : 0;
	if (c->ivals)
		c->ivals->jitter_ns = st->last.jitter_ns;
	batches_done(c, st, x);
	return 1;
}

/*
 * Wait for one new REPORT, asking again with a new END while none comes,
 * until --timeout: 0 when one came, 1 when none did (the ENDs in flight
 * are then given up, their batches give no sample), or -errno.
 */
static int await_report(struct ipc_pctx *c, struct dstate *st, size_t cl)
{
	const uint64_t timeout =
		c->io.timeout_ns ? c->io.timeout_ns : 1000000000ull;
	uint64_t first = ipc_now_ns(), now, retry = RETRY_FIRST_NS;
	int err;

	for (;;) {
		now = ipc_now_ns();
		if (now >= first + timeout) {
			st->head = st->ck;
			st->acked = st->wire;
			st->bhead = st->btail;
			st->t_last = 0;
			return 1;
		}
		c->io.timeout_ns = first + timeout - now < retry
					   ? first + timeout - now
					   : retry;
		err = msg_recv(c, c->rbuf, cl);
		c->io.timeout_ns = timeout;
		if (!err) {
			err = take_report(c, st);
			if (err)
				return err < 0 ? err : 0;
			continue;
		}
		if (err != -ETIMEDOUT)
			return msg_fail(c, err,
					"receive the receiver's report");
		/* Ask again while that cannot overflow the receiver's queue. */
		if (st->ck - st->head < CK_RING &&
		    (!st->window ||
		     st->wire - st->acked < st->window + st->window / 8)) {
			err = send_end(c, st, cl);
			if (err)
				return err;
		}
		retry = retry * 2 < RETRY_MAX_NS ? retry * 2 : RETRY_MAX_NS;
	}
}

/*
 * Wait until @need more datagrams may be sent, a new batch when @batch:
 * without a window, once every END is answered.
 */
static int make_room(struct ipc_pctx *c, struct dstate *st, uint64_t need,
		     bool batch, size_t cl)
{
	int err;

	for (;;) {
		if (st->head == st->ck)
			return 0;
		if (st->window && st->wire + need - st->acked <= st->window &&
		    st->ck - st->head < CK_RING - 1 &&
		    (!batch || st->btail - st->bhead < BATCH_AHEAD))
			return 0;
		err = await_report(c, st, cl);
		if (err < 0)
			return err;
	}
}

static int dgram_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		      uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const size_t cl = ctl_len(len);
	const uint64_t count = c->cs->count;
	struct dstate *st = c->pat_priv;
	const bool stamp = dgram_stamped(c->cs, len);
	uint64_t i, k, j, chunk;
	struct pace pace;
	int err = 0;

	st->base = st->last;
	st->deadline = deadline;
	st->t_last = st->sum = st->ok = 0;
	st->stop = false;
	st->err = 0;
	pace_init(&pace, c->cs->bitrate_bps, len);
	for (i = 0; i < n && !st->stop; i++) {
		for (k = 0; k < count; k += chunk) {
			chunk = count - k;
			if (st->window / 4 > 1 && chunk > st->window / 4 - 1)
				chunk = st->window / 4 - 1;
			err = make_room(c, st, chunk + 1, k == 0, cl);
			if (err)
				goto out;
			if (k == 0) {
				if (st->err) {
					err = st->err;
					goto out;
				}
				if (st->stop)
					goto drain;
				st->bt0[st->btail % BATCH_AHEAD] = ipc_now_ns();
			}
			for (j = 0; j < chunk; j++) {
				err = pace_wait(c, &pace);
				if (err)
					goto out;
				msg_stamp(c->sbuf, len, (*seq)++);
				if (stamp)
					put64(c->sbuf + 8, ipc_now_ns());
				err = msg_send(c, c->sbuf, len);
				if (err) {
					msg_fail(c, err, "send message");
					goto out;
				}
				st->sent++;
			}
			st->wire += chunk;
			err = send_end(c, st, cl);
			if (err)
				goto out;
		}
		st->bend[st->btail++ % BATCH_AHEAD] = st->ck - 1;
	}
drain:
	/* Every batch answered before the phase ends: the counts are exact. */
	while (st->head < st->ck) {
		err = await_report(c, st, cl);
		if (err)
			break;
	}
	err = err > 0 ? 0 : err;
	if (!err)
		err = st->err;
out:
	*done += st->ok;
	*elapsed_ns += st->sum;
	return err;
}

/*
 * Either direction's client: @loop's phases with @state as c->pat_priv;
 * a run in which no batch ended (@none says which end stayed silent)
 * fails.  The counts are what the receiver counted.
 */
static int dgram_phases(struct ipc_pctx *c, msg_loop_fn loop, void *state,
			const char *none)
{
	int err;

	/* Reset to NULL before returning. */
	/* cppcheck-suppress autoVariables */
	c->pat_priv = state;
	c->out.loss.counted = true;
	c->out.loss.reorder_known = msg_wire(c->cs->msg_size, c->tp_caps) > 0;
	err = msg_client_phases(c, loop);
	c->pat_priv = NULL;
	if (!err && !c->out.done && c->iterations) {
		snprintf(c->out.what, sizeof(c->out.what),
			 "%s none of the batches (nothing within %.3g ms)",
			 none, c->io.timeout_ns / 1e6);
		err = c->out.err = -ETIMEDOUT;
	}
	c->out.messages = c->out.loss.received;
	c->out.bytes = c->out.messages * c->cs->msg_size;
	return err;
}

int st_dgram_client(struct ipc_pctx *c)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	struct dstate st = {0};
	int err = dgram_phases(c, dgram_loop, &st, "the receiver reported on");

	c->out.extra[ST_EXTRA_JITTER] = dgram_stamped(c->cs, len) && c->out.done
						? (double)st.last.jitter_ns
						: NAN;
	c->out.extra[ST_EXTRA_WINDOW] = c->out.done ? (double)st.window : NAN;
	c->out.extra[ST_EXTRA_RCVBUF] =
		c->out.done && st.rcvbuf ? (double)st.rcvbuf : NAN;
	return err;
}

/*
 * The window the receiver offers: five eighths of what its queue holds.
 * A quarter goes to datagrams already read: the kernel gives their memory
 * back only once a quarter of SO_RCVBUF is due (udp's forward_threshold),
 * and until then counts it against the buffer; an eighth stays for
 * repeated ENDs.  None (0) when the room is not known (ipc_dgram_room: a
 * peer not on loopback) or a relay sits in between, whose own buffer
 * would take the overflow.  Raises SO_RCVBUF to RCVBUF_WANT unless the
 * user chose one (--rcvbuf).
 */
static void rx_window(struct ipc_pctx *c, size_t len, size_t cl, uint8_t *rep)
{
	const bool chosen = c->ch && c->ch->opts.rcvbuf > 0;
	struct ipc_dgram_room room;

	if (c->io.ep->rfd < 0 ||
	    ipc_dgram_room(c->io.ep->rfd, len, cl, chosen ? 0 : RCVBUF_WANT,
			   &room) < 0)
		return;
	put64(rep + 40, (uint64_t)room.rcvbuf);
	if (!c->cs->link)
		put64(rep + 32, room.datagrams * 5 / 8);
}

/*
 * The receiver: count data messages (--peer-drop leaves some uncounted on
 * purpose) and answer every END with the counters so far.
 */
int st_dgram_server(struct ipc_pctx *c)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const size_t cl = ctl_len(len);
	const bool stamped = dgram_stamped(c->cs, len);
	struct seqtrack t = {.bytes = len < 8 ? (unsigned)len : 8};
	uint8_t rep[CTL_LEN + 1] = {0};
	uint64_t i = 0, now;
	double jitter = 0, transit, last = 0, d;
	ssize_t n;
	int err;

	rx_window(c, len, cl, rep);
	for (;;) {
		n = c->io.eng->recv(&c->io, c->rbuf, c->buf_bytes);
		if (n == -ETIMEDOUT || n == -EINTR)
			continue; /* idle: the sender may be done */
		if (n == -ECANCELED || n == -ECONNREFUSED)
			return 0; /* asked to stop, or the sender is gone */
		if (n < 0)
			return msg_fail(c, (int)n, "receive message");
		if ((size_t)n == cl) {
			put64(rep, get64(c->rbuf));
			put64(rep + 8, t.received);
			put64(rep + 16, t.reordered);
			put64(rep + 24, (uint64_t)jitter);
			err = msg_send(c, rep, cl);
			if (err == -ECONNREFUSED)
				return 0;
			if (err)
				return msg_fail(c, err, "send report");
			c->out.done++;
			continue;
		}
		if ((size_t)n != len)
			return msg_fail(c, -EBADMSG, "receive message");
		if (fault_drop(c->faults, i++))
			continue;
		if (stamped) {
			now = ipc_now_ns();
			transit = (double)now - (double)get64(c->rbuf + 8);
			d = last ? fabs(transit - last) : 0;
			jitter += (d - jitter) / 16;
			last = transit;
			/* The payload check sees the pattern again. */
			memcpy(c->rbuf + 8, c->expect + 8, 8);
		}
		if (c->verify) {
			err = msg_check(c, c->rbuf, len,
					seq_full(seq_read(c->rbuf, len),
						 t.bytes, t.next));
			if (err)
				return err;
		}
		seq_note(&t, c->rbuf);
	}
}

/*
 * -R over udp: the peer sends, the client receives, counts and times.
 *
 *   client                               peer
 *   GO(e)                   ─────────►   a new e: COUNT data messages,
 *                           ◄─ ─ ─ ─ ─   then END(e, sent so far)
 *   (no END: GO(e) again after 0.1, 0.2, 0.4 ... 5 ms, until --timeout;
 *    a repeated e gets its END again, never the data twice)
 *
 * GO and END are control messages as above (their length tells them from
 * data); END carries the peer's count of data messages sent, cumulative,
 * so a lost END costs nothing but its batch's sample.  One sample is one
 * batch, from GO to its END.  A paced peer (-b) stamps its send times as
 * a paced client does, and the client keeps the jitter.  The peer sends
 * a batch at once, with no window: a batch longer than the client's
 * receive buffer may overflow it, which is then counted as loss.
 */
struct rstate {
	struct seqtrack t;
	uint64_t go;	    /* next batch number */
	uint64_t sent;	    /* data messages the peer said it sent */
	struct counts base; /* as of the phase's start */
	double jitter, last;
	bool stamped;
	uint64_t rcvbuf;
};

/* A data message of @len bytes in c->rbuf: counted, timed, checked. */
static int rx_data(struct ipc_pctx *c, struct rstate *rs, size_t len)
{
	double transit, d;

	if (rs->stamped) {
		transit = (double)ipc_now_ns() - (double)get64(c->rbuf + 8);
		d = rs->last ? fabs(transit - rs->last) : 0;
		rs->jitter += (d - rs->jitter) / 16;
		rs->last = transit;
		/* The payload check sees the pattern again. */
		memcpy(c->rbuf + 8, c->expect + 8, 8);
	}
	if (c->verify) {
		int err = msg_check(c, c->rbuf, len,
				    seq_full(seq_read(c->rbuf, len),
					     rs->t.bytes, rs->t.next));
		if (err)
			return err;
	}
	seq_note(&rs->t, c->rbuf);
	return 0;
}

/* The measured part's counts into c->out.loss. */
static void rx_counts(struct ipc_pctx *c, const struct rstate *rs)
{
	struct ipc_loss *l = &c->out.loss;

	l->sent = rs->sent - rs->base.sent;
	l->received = rs->t.received - rs->base.received;
	l->reordered = rs->t.reordered - rs->base.reordered;
	l->lost = l->sent > l->received ? l->sent - l->received : 0;
	if (c->ivals)
		c->ivals->jitter_ns = (uint64_t)rs->jitter;
}

/*
 * Batch @e: ask for it and take what comes until its END: 0 when it came
 * (*@t1 its time), 1 when none did within --timeout, or -errno.
 */
static int rx_batch(struct ipc_pctx *c, struct rstate *rs, uint64_t e,
		    size_t len, size_t cl, uint64_t *t1)
{
	const uint64_t timeout =
		c->io.timeout_ns ? c->io.timeout_ns : 1000000000ull;
	uint8_t go[CTL_LEN + 1] = {0};
	/*
	 * A paced peer is quiet between two messages by design: ask again
	 * only after twice that, lest it answer every gap with an END.
	 */
	const uint64_t gap =
		c->cs->bitrate_bps
			? 2 * (uint64_t)len * 8000000000ull / c->cs->bitrate_bps
			: 0;
	const uint64_t most = gap > RETRY_MAX_NS ? gap : RETRY_MAX_NS;
	uint64_t quiet = ipc_now_ns(), now, x;
	uint64_t retry = gap > RETRY_FIRST_NS ? gap : RETRY_FIRST_NS;
	ssize_t n;
	int err;

	put64(go, e);
	for (;;) {
		err = msg_send(c, go, cl);
		if (err)
			return msg_fail(c, err, "ask for a batch");
		for (;;) {
			now = ipc_now_ns();
			if (now >= quiet + timeout)
				return 1;
			c->io.timeout_ns = quiet + timeout - now < retry
						   ? quiet + timeout - now
						   : retry;
			n = c->io.eng->recv(&c->io, c->rbuf, c->buf_bytes);
			c->io.timeout_ns = timeout;
			if (n == -ETIMEDOUT)
				break; /* ask again */
			if (n < 0)
				return msg_fail(c, (int)n, "receive message");
			quiet = ipc_now_ns();
			if ((size_t)n == cl) {
				x = get64(c->rbuf);
				if (x > e)
					return msg_fail(c, -EBADMSG,
							"receive the end of a "
							"batch (from the "
							"future)");
				if (get64(c->rbuf + 8) > rs->sent)
					rs->sent = get64(c->rbuf + 8);
				if (x == e) {
					*t1 = quiet;
					return 0;
				}
				continue; /* an old batch's END, repeated */
			}
			if ((size_t)n != len)
				return msg_fail(c, -EBADMSG, "receive message");
			err = rx_data(c, rs, len);
			if (err)
				return err;
		}
		retry = retry * 2 < most ? retry * 2 : most;
	}
}

static int rdgram_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		       uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const size_t cl = ctl_len(len);
	struct rstate *rs = c->pat_priv;
	uint64_t i, t0, t1 = 0, sum = 0, ok = 0;
	int err = 0;

	(void)seq; /* the peer numbers its messages */
	rs->base.sent = rs->sent;
	rs->base.received = rs->t.received;
	rs->base.reordered = rs->t.reordered;
	for (i = 0; i < n; i++) {
		t0 = ipc_now_ns();
		err = rx_batch(c, rs, rs->go++, len, cl, &t1);
		if (err < 0)
			break;
		rx_counts(c, rs);
		if (err) {
			err = 0; /* no END: the batch gives no sample */
			continue;
		}
		ok++;
		ival_tick(c, t1, ok, c->out.loss.received,
			  c->out.loss.received * c->cs->msg_size,
			  c->out.loss.lost);
		if (msg_sample_kept(c, t1 - t0, t1, deadline, &sum, &err))
			break;
	}
	*done += ok;
	*elapsed_ns += sum;
	return err;
}

int st_dgram_rclient(struct ipc_pctx *c)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const bool chosen = c->ch && c->ch->opts.rcvbuf > 0;
	struct rstate rs = {.t.bytes = len < 8 ? (unsigned)len : 8};
	struct ipc_dgram_room room;
	int err;

	rs.stamped = dgram_stamped(c->cs, len);
	/* The client receives now: its queue holds the peer's batch. */
	if (c->io.ep->rfd >= 0 &&
	    !ipc_dgram_room(c->io.ep->rfd, len, ctl_len(len),
			    chosen ? 0 : RCVBUF_WANT, &room))
		rs.rcvbuf = (uint64_t)room.rcvbuf;
	err = dgram_phases(c, rdgram_loop, &rs, "the sender ended");
	c->out.extra[ST_EXTRA_JITTER] =
		rs.stamped && c->out.done ? rs.jitter : NAN;
	c->out.extra[ST_EXTRA_WINDOW] = NAN; /* no window: batch by batch */
	c->out.extra[ST_EXTRA_RCVBUF] = rs.rcvbuf ? (double)rs.rcvbuf : NAN;
	return err;
}

/*
 * -R's peer: a batch for each new GO, paced with -b, then its END; a GO
 * repeated gets its END again.  --peer-drop leaves messages unsent on
 * purpose, counted as sent: a loss the client must find.
 */
int st_dgram_rserver(struct ipc_pctx *c)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const size_t cl = ctl_len(len);
	const bool stamp = dgram_stamped(c->cs, len);
	uint8_t end[CTL_LEN + 1] = {0};
	uint64_t next = 0, sent = 0, seq = 0, e, k;
	struct pace pace;
	ssize_t n;
	int err;

	pace_init(&pace, c->cs->bitrate_bps, len);
	for (;;) {
		n = c->io.eng->recv(&c->io, c->rbuf, c->buf_bytes);
		if (n == -ETIMEDOUT || n == -EINTR)
			continue; /* idle: the client may be done */
		if (n == -ECANCELED || n == -ECONNREFUSED)
			return 0;
		if (n < 0)
			return msg_fail(c, (int)n, "receive a batch's request");
		if ((size_t)n != cl)
			return msg_fail(c, -EBADMSG,
					"receive a batch's request");
		e = get64(c->rbuf);
		for (k = 0; e >= next && k < c->cs->count; k++) {
			err = pace_wait(c, &pace);
			if (err)
				return 0; /* a stop */
			if (fault_drop(c->faults, seq)) {
				seq++;
				sent++;
				continue;
			}
			msg_stamp(c->sbuf, len, seq++);
			if (stamp)
				put64(c->sbuf + 8, ipc_now_ns());
			err = msg_send(c, c->sbuf, len);
			if (err == -ECONNREFUSED)
				return 0;
			if (err)
				return msg_fail(c, err, "send message");
			sent++;
		}
		if (e >= next) {
			next = e + 1;
			c->out.done++;
		}
		put64(end, e);
		put64(end + 8, sent);
		err = msg_send(c, end, cl);
		if (err == -ECONNREFUSED)
			return 0;
		if (err)
			return msg_fail(c, err, "send the end of a batch");
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * stream over a lossy transport (udp): the receiver cannot wait for COUNT
 * messages that may never come, so it counts what arrives and reports, the
 * way iperf3 does, and the sender never waits without a deadline.
 *
 *   sender                                receiver
 *   data #s .. #s+COUNT-1   ─ ─ ─ ─ ─ ─►  counts, notes reordering
 *   END(b)                  ─────────►    REPORT(b, received, reordered)
 *   (no REPORT: END again after 0.1, 0.2, 0.4 ... 5 ms, until --timeout)
 *                           ◄─────────
 *
 * Data messages are msg_size bytes with the sequence number in their first
 * min(size, 8) bytes; END and REPORT are control messages told apart by
 * their length (32 bytes, or 33 when data messages are 32 bytes long):
 * batch number, then three counters, little-endian: received, reordered
 * and the jitter so far (ns).
 *
 * A paced sender (-b) also stamps each data message with its send time in
 * bytes 8 to 15 (messages of 16 bytes or more), and the receiver keeps
 * RFC 3550's jitter over them: J += (|D| - J) / 16, with D the change in
 * transit time (arrival - send) from one datagram to the next.  Both ends
 * read one clock (a local run), so transit times are comparable; only
 * their changes count.  The receiver's counters
 * are cumulative, so a lost REPORT costs nothing but its batch's sample: the
 * next one carries everything.  A REPORT for an earlier batch (the answer
 * to a repeated END) is recognized by its batch number and skipped.
 *
 * One sample is one batch from its first send to its REPORT, retries
 * included; a batch that got no REPORT within --timeout gives no sample.
 * Rates count the messages the receiver counted (delivered), over the
 * sampled batches' time.
 */
#include <math.h>

#include "fault.h"
#include "interval.h"
#include "msg.h"
#include "pace.h"
#include "stream_dgram.h"

#define CTL_LEN 32
/*
 * Repeat END after 100 us without a REPORT, doubling up to 5 ms.  When the
 * sender outruns the receiver, END is often dropped with the data by the
 * full socket buffer, which the receiver drains in well under a
 * millisecond; a fixed 5 ms would halve the rate of small messages.
 */
#define RETRY_FIRST_NS 100000ull
#define RETRY_MAX_NS 5000000ull

/* What the sender knows from the receiver's last report. */
struct counts {
	uint64_t sent, received, reordered, jitter_ns;
};

struct dstate {
	uint64_t batch;	    /* next batch number */
	uint64_t sent;	    /* messages sent so far */
	struct counts last; /* as of the last REPORT */
	struct counts base; /* as of the measured phase's start */
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

/*
 * Ask for batch @b's report until it comes or --timeout passed: 0 and the
 * counters in *out, 1 when none came, -errno on failure.
 */
static int await_report(struct ipc_pctx *c, size_t len, uint64_t b,
			struct counts *out)
{
	const uint64_t timeout =
		c->io.timeout_ns ? c->io.timeout_ns : 1000000000ull;
	const size_t cl = ctl_len(len);
	uint64_t first = ipc_now_ns(), now, step, retry = RETRY_FIRST_NS;
	uint8_t end[CTL_LEN + 1] = {0};
	int err;

	put64(end, b);
	for (;;) {
		err = msg_send(c, end, cl);
		if (err)
			break;
		now = ipc_now_ns();
		step = now < first + timeout ? first + timeout - now : 1;
		c->io.timeout_ns = step < retry ? step : retry;
		retry = retry * 2 < RETRY_MAX_NS ? retry * 2 : RETRY_MAX_NS;
		for (;;) {
			err = msg_recv(c, c->rbuf, cl);
			if (err || get64(c->rbuf) >= b)
				break; /* older reports are answers to retries */
		}
		if (err != -ETIMEDOUT)
			break;
		if (ipc_now_ns() >= first + timeout) {
			err = 1;
			break;
		}
	}
	c->io.timeout_ns = timeout;
	if (err == 0) {
		if (get64(c->rbuf) != b)
			return -EBADMSG; /* a report from the future */
		out->received = get64(c->rbuf + 8);
		out->reordered = get64(c->rbuf + 16);
		out->jitter_ns = get64(c->rbuf + 24);
	}
	return err;
}

static int dgram_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		      uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	const uint64_t count = c->cs->count;
	struct dstate *st = c->pat_priv;
	struct ipc_loss *l = &c->out.loss;
	struct ipc_hist *h = c->hist;
	const bool stamp = dgram_stamped(c->cs, len);
	struct counts got;
	uint64_t i, k, t0, t1, sum = 0, ok = 0;
	struct pace pace;
	int err = 0;

	st->base = st->last;
	pace_init(&pace, c->cs->bitrate_bps, len);
	for (i = 0; i < n; i++) {
		t0 = ipc_now_ns();
		for (k = 0; k < count; k++) {
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
		err = await_report(c, len, st->batch++, &got);
		t1 = ipc_now_ns();
		if (err < 0) {
			msg_fail(c, err, "receive the receiver's report");
			break;
		}
		if (err == 0) {
			got.sent = st->sent;
			st->last = got;
			ipc_hist_record(h, t1 - t0);
			sum += t1 - t0;
			ok++;
			l->sent = got.sent - st->base.sent;
			l->received = got.received - st->base.received;
			l->reordered = got.reordered - st->base.reordered;
			l->lost = l->sent > l->received ? l->sent - l->received
							: 0;
			if (c->ivals)
				c->ivals->jitter_ns = got.jitter_ns;
		}
		err = 0;
		ival_tick(c, t1, *done + ok, l->received,
			  l->received * c->cs->msg_size, l->lost);
		if (msg_sample_end(c, t1, deadline, &err)) {
			i++;
			break;
		}
	}
out:
	*done += ok;
	*elapsed_ns += sum;
	return err;
}

int st_dgram_client(struct ipc_pctx *c)
{
	const size_t len = msg_wire(c->cs->msg_size, c->tp_caps);
	struct dstate st = {0};
	int err;

	/* Reset to NULL before returning. */
	/* cppcheck-suppress autoVariables */
	c->pat_priv = &st;
	c->out.loss.counted = true;
	c->out.loss.reorder_known = len > 0;
	err = msg_client_phases(c, dgram_loop);
	c->pat_priv = NULL;
	if (!err && !c->out.done && c->iterations) {
		snprintf(c->out.what, sizeof(c->out.what),
			 "the receiver reported on none of the batches (no "
			 "report within %.3g ms)",
			 c->io.timeout_ns / 1e6);
		err = c->out.err = -ETIMEDOUT;
	}
	c->out.messages = c->out.loss.received;
	c->out.bytes = c->out.messages * c->cs->msg_size;
	c->out.extra[ST_EXTRA_JITTER] = dgram_stamped(c->cs, len) && c->out.done
						? (double)st.last.jitter_ns
						: NAN;
	return err;
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

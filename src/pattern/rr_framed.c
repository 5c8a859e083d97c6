/* SPDX-License-Identifier: MIT */
/*
 * rr with framed messages: each request and response is one frame of the
 * case's framing, and with gdb-rsp each frame is acknowledged the way GDB
 * and a stub do it (unless no-ack):
 *
 *   client                                   server
 *     $request#cs  ───────────────────────>
 *                  <───────────────────────  +            (one write)
 *                  <───────────────────────  $response#cs (another write)
 *     +            ───────────────────────>
 *
 * A round trip is timed from before the client encodes its request to
 * after it decoded the response and sent its '+': encoding, checksums and
 * acks are part of what a protocol costs.  The server run-length encodes
 * its responses as a stub may; the decoded payloads are checked (sequence
 * number and pattern) like raw rr's, outside the timed interval.
 *
 * Buffers (each side's sbuf and rbuf are split in two):
 *   sbuf: [payload: max + 64][frame: frame_max(max) + 64]
 *   rbuf: [decoded: max + 64][received bytes: frame_max(max) + 64]
 */
#include "framed.h"

static const uint8_t ack_byte = '+';

/* A side's framing state, rebuilt from the context before each phase. */
struct fr {
	const struct ipc_framing_ops *fo;
	bool acks;
	uint8_t *payload, *frame; /* in sbuf */
	uint8_t *dec, *rx;	  /* in rbuf */
	size_t dec_cap, rx_cap;
	size_t rx_off, rx_len; /* bytes received, not yet decoded */
	struct ipc_frame_dec d;
};

static size_t max_payload(const struct ipc_case *cs)
{
	return cs->req_size > cs->resp_size ? cs->req_size : cs->resp_size;
}

size_t rr_framed_max_msg(const struct ipc_case *cs)
{
	size_t m = cs->framing->frame_max(max_payload(cs));

	return m ? m : 1;
}

size_t rr_framed_buf_bytes(const struct ipc_case *cs)
{
	return max_payload(cs) + 64 + rr_framed_max_msg(cs) + 64;
}

static void fr_init(struct fr *f, struct ipc_pctx *c)
{
	const size_t split = max_payload(c->cs) + 64;

	memset(f, 0, sizeof(*f));
	f->fo = c->cs->framing;
	f->acks = f->fo->acks && !c->cs->framing_noack;
	f->payload = c->sbuf;
	f->frame = c->sbuf + split;
	f->dec = c->rbuf;
	f->dec_cap = split;
	f->rx = c->rbuf + split;
	f->rx_cap = c->buf_bytes - split;
	f->fo->dec_init(&f->d, f->dec, f->dec_cap);
}

/*
 * The next event on the wire: a whole frame (its payload in f->d), an ack
 * or a nak.  Returns the event (> 0), MSG_EOF, or -errno (-EBADMSG for a
 * frame that breaks the protocol, with c->out saying how).
 */
static int fr_next(struct ipc_pctx *c, struct fr *f)
{
	enum ipc_frame_ev ev;
	ssize_t n;

	for (;;) {
		if (f->rx_len) {
			n = f->fo->dec_feed(&f->d, f->rx + f->rx_off, f->rx_len,
					    &ev);
			if (n < 0)
				return (int)n;
			f->rx_off += (size_t)n;
			f->rx_len -= (size_t)n;
			if (ev != IPC_FRAME_MORE)
				return (int)ev;
		}
		f->rx_off = 0;
		n = c->io.eng->recv(&c->io, f->rx, f->rx_cap);
		if (n < 0)
			return (int)n;
		if (n == 0 && !(c->tp_caps & IPC_TP_EMPTY_MSG))
			return MSG_EOF;
		f->rx_len = (size_t)n;
	}
}

/*
 * Event @ev came where @want was due: say so in c->out and return the
 * error (-EPROTO for the wrong event).
 */
static int fr_unexpected(struct ipc_pctx *c, const struct fr *f, int ev,
			 const char *doing)
{
	if (ev == -EBADMSG)
		snprintf(c->out.what, sizeof(c->out.what),
			 "%s: a %s frame with a bad checksum or escape", doing,
			 f->fo->name);
	else if (ev == -EMSGSIZE)
		snprintf(c->out.what, sizeof(c->out.what),
			 "%s: a %s frame longer than any this case sends",
			 doing, f->fo->name);
	else if (ev < 0)
		return msg_fail(c, ev, doing);
	else
		snprintf(c->out.what, sizeof(c->out.what), "%s: got %s", doing,
			 ev == IPC_FRAME_NAK   ? "'-' (resend asked for)"
			 : ev == IPC_FRAME_ACK ? "an unexpected '+'"
					       : "a packet where '+' was due");
	c->out.err = ev < 0 ? ev : -EPROTO;
	return c->out.err;
}

/* Wait for @want; anything else is a failure, said in c->out. */
static int fr_expect(struct ipc_pctx *c, struct fr *f, int want,
		     const char *doing)
{
	int ev = fr_next(c, f);

	return ev == want ? 0 : fr_unexpected(c, f, ev, doing);
}

/* A decoded payload of the wrong length, described in c->out. */
static int fr_bad_len(struct ipc_pctx *c, const struct fr *f, size_t want)
{
	snprintf(c->out.what, sizeof(c->out.what),
		 "a %s frame carried %zu bytes where %zu were due", f->fo->name,
		 f->d.len, want);
	c->out.err = -EBADMSG;
	return -EBADMSG;
}

/* The round-trip loop, a msg_loop_fn. */
static int fr_loop(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
		   uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns)
{
	const size_t req = c->cs->req_size, resp = c->cs->resp_size;
	struct ipc_hist *h = c->hist;
	uint64_t i, t0, t1, sum = 0;
	size_t flen;
	struct fr f;
	int err = 0;

	fr_init(&f, c);
	for (i = 0; i < n; i++) {
		msg_stamp(f.payload, req, *seq);
		t0 = ipc_now_ns();
		flen = f.fo->encode(f.frame, f.payload, req, 0);
		err = msg_send(c, f.frame, flen);
		if (err) {
			msg_fail(c, err, "send request");
			break;
		}
		if (f.acks) {
			err = fr_expect(c, &f, IPC_FRAME_ACK,
					"receive the request's ack");
			if (err)
				break;
		}
		err = fr_expect(c, &f, IPC_FRAME_PACKET, "receive response");
		if (err)
			break;
		if (f.acks) {
			err = msg_send(c, &ack_byte, 1);
			if (err) {
				msg_fail(c, err, "send ack");
				break;
			}
		}
		t1 = ipc_now_ns();
		ipc_hist_record(h, t1 - t0);
		sum += t1 - t0;
		if (f.d.len != resp) {
			err = fr_bad_len(c, &f, resp);
			break;
		}
		if (c->verify) {
			err = msg_check(c, f.dec, resp, *seq);
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

int rr_framed_client(struct ipc_pctx *c)
{
	int err = msg_client_phases(c, fr_loop);

	c->out.messages = c->out.done;
	c->out.bytes = c->out.done * (c->cs->req_size + c->cs->resp_size);
	return err;
}

/* The end of the conversation (end of stream, asked to stop), or not. */
static bool fr_done(int err)
{
	return err == MSG_EOF || err == -ECANCELED;
}

int rr_framed_server(struct ipc_pctx *c)
{
	const size_t req = c->cs->req_size, resp = c->cs->resp_size;
	size_t flen;
	uint64_t seq;
	struct fr f;
	int err;

	fr_init(&f, c);
	for (seq = 0;; seq++) {
		do
			err = fr_next(c, &f);
		while (err == -ETIMEDOUT);
		if (fr_done(err))
			return 0;
		if (err != IPC_FRAME_PACKET)
			return fr_unexpected(c, &f, err, "receive request");
		if (f.acks) {
			err = msg_send(c, &ack_byte, 1);
			if (err)
				return fr_done(err)
					       ? 0
					       : msg_fail(c, err, "send ack");
		}
		msg_stamp(f.payload, resp, seq);
		flen = f.fo->encode(f.frame, f.payload, resp, IPC_FRAME_RLE);
		err = msg_send(c, f.frame, flen);
		if (err)
			return fr_done(err) ? 0
					    : msg_fail(c, err, "send response");
		if (f.d.len != req)
			return fr_bad_len(c, &f, req);
		if (c->verify) {
			err = msg_check(c, f.dec, req, seq);
			if (err)
				return err;
		}
		if (f.acks) {
			err = fr_next(c, &f);
			if (fr_done(err))
				return 0;
			if (err != IPC_FRAME_ACK)
				return fr_unexpected(c, &f, err,
						     "receive the response's "
						     "ack");
		}
		c->out.done++;
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * Message helpers shared by the pattern loops: send or receive exactly one
 * message whatever the transport's semantics, stamp and check payloads.
 * Inline because they sit inside the timed loops.
 *
 * Wire format of a message of n bytes: the first min(n, 8) bytes carry the
 * message's sequence number (little-endian, truncated), the rest is the
 * payload pattern (ipc_payload_fill).  A message of size 0 is sent as an
 * empty message where the transport carries those (udp, unix-dgram) and as
 * a 1-byte token elsewhere, since a byte stream cannot show a 0-byte
 * message; the token counts as 0 payload bytes.
 *
 * stream's messages (over transports that lose nothing) take the pattern
 * from a point that moves with the sequence number instead: message seq
 * is the pattern from its byte msg_shift(seq) on, its first min(n, 8)
 * bytes again the sequence number.  So the same offset of two messages
 * holds different bytes (every byte differs unless their numbers are
 * equal modulo 251), and a stale or spliced piece of another message is
 * caught wherever it lands, not only in its first 8 bytes.
 */
#ifndef IPCPERF_PATTERN_MSG_H
#define IPCPERF_PATTERN_MSG_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/pattern.h"
#include "interval.h"

/* A receive saw end of stream: the peer closed its side. */
#define MSG_EOF (-ECONNRESET)

/* Bytes on the wire for a payload of @len bytes on a transport with @caps. */
static inline size_t msg_wire(size_t len, unsigned caps)
{
	if (len == 0 && !(caps & IPC_TP_EMPTY_MSG))
		return 1;
	return len;
}

/*
 * Where message @seq of a stream starts in the pattern: a multiple of 256
 * bytes, so that its bytes keep their place in the pattern's 256-byte
 * period and differ from another message's at the same offset by one
 * constant (see msg_payload_ok).  251 steps, a prime, so that no ring or
 * batch of a power-of-two size brings back the same start at the same
 * place.
 */
#define MSG_SHIFT_UNIT 256u
#define MSG_SHIFT_STEPS 251u
#define MSG_SHIFT_MAX ((MSG_SHIFT_STEPS - 1) * MSG_SHIFT_UNIT)

static inline size_t msg_shift(uint64_t seq)
{
	return (size_t)(seq % MSG_SHIFT_STEPS) * MSG_SHIFT_UNIT;
}

/* Byte @n of the payload pattern (ipc_payload_fill); period 64 KiB. */
static inline uint8_t msg_pattern_byte(size_t n)
{
	return (uint8_t)((n * 131u + 7u) ^ (n >> 8) * 29u);
}

/*
 * Are bytes @from to @len - 1 of @buf the pattern from its byte
 * @from + @shift on (@shift a multiple of MSG_SHIFT_UNIT)?  Reads @buf
 * once and no other buffer: the pattern is made on the way.
 */
bool msg_payload_ok(const uint8_t *buf, size_t from, size_t len, size_t shift);

/*
 * The same with vectors of at most @width bytes (16, 32, 64), or the
 * widest below that the CPU has: for the tests of each width.
 */
bool msg_payload_ok_width(const uint8_t *buf, size_t from, size_t len,
			  size_t shift, unsigned width);

/* Write the low min(len, 8) bytes of @seq at the start of @buf. */
static inline void msg_stamp(uint8_t *buf, size_t len, uint64_t seq)
{
	size_t n = len < 8 ? len : 8;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(seq >> (8 * i));
}

/* Send all @len bytes (a stream may take several calls) or one message. */
static inline int msg_send(struct ipc_pctx *c, const uint8_t *buf, size_t len)
{
	const struct ipc_engine_ops *eng = c->io.eng;
	ssize_t n;

	if (!(c->tp_caps & IPC_TP_STREAM)) {
		n = eng->send(&c->io, buf, len);
		if (n < 0)
			return (int)n;
		return (size_t)n == len ? 0 : -EMSGSIZE;
	}
	while (len) {
		n = eng->send(&c->io, buf, len);
		if (n < 0)
			return (int)n;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * What receiving one message (the engine's result @n) means when @len
 * bytes were due: 0, MSG_EOF, -EBADMSG for the wrong length, or -errno.
 */
static inline int msg_got(const struct ipc_pctx *c, ssize_t n, size_t len)
{
	if (n < 0)
		return (int)n;
	if (n == 0 && len != 0 && (c->tp_caps & IPC_TP_EMPTY_MSG))
		return -EBADMSG;
	if (n == 0 && !(c->tp_caps & IPC_TP_EMPTY_MSG))
		return MSG_EOF;
	return (size_t)n == len ? 0 : -EBADMSG;
}

/*
 * Receive one message of exactly @len bytes into @buf (which holds
 * c->buf_bytes, more than @len, so a longer message is caught).  A byte
 * stream is read until @len bytes arrived.  Returns 0, MSG_EOF, -EBADMSG
 * for a message of the wrong length, or -errno.
 */
static inline int msg_recv(struct ipc_pctx *c, uint8_t *buf, size_t len)
{
	const struct ipc_engine_ops *eng = c->io.eng;
	ssize_t n;
	size_t got = 0;

	if (!(c->tp_caps & IPC_TP_STREAM))
		return msg_got(c, eng->recv(&c->io, buf, c->buf_bytes), len);
	while (got < len) {
		n = eng->recv(&c->io, buf + got, len - got);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return MSG_EOF;
		got += (size_t)n;
	}
	return 0;
}

/*
 * As msg_recv on a message transport, but the message stays where the
 * transport holds it (recv_view): *@msg points at it until the next
 * receive.  Only where c->io.eng->recv_view and the transport's are set.
 */
static inline int msg_recv_view(struct ipc_pctx *c, const uint8_t **msg,
				size_t len)
{
	const void *p = c->rbuf;
	int err =
		msg_got(c, c->io.eng->recv_view(&c->io, &p, c->buf_bytes), len);

	*msg = p;
	return err;
}

/*
 * Check a received message of @len wire bytes: its sequence number and
 * payload pattern.  0 if intact, -EBADMSG (with a description in c->out)
 * if not.  Costs one memcmp of the message.  msg_check_slow finds and
 * tells what is wrong, for a message whose pattern starts at @shift.
 */
int msg_check_slow(struct ipc_pctx *c, const uint8_t *buf, size_t len,
		   uint64_t seq, size_t shift);

static inline int msg_check(struct ipc_pctx *c, const uint8_t *buf, size_t len,
			    uint64_t seq)
{
	size_t n = len < 8 ? len : 8;

	for (size_t i = 0; i < n; i++)
		if (buf[i] != (uint8_t)(seq >> (8 * i)))
			return msg_check_slow(c, buf, len, seq, 0);
	if (len > 8 && memcmp(buf + 8, c->expect + 8, len - 8) != 0)
		return msg_check_slow(c, buf, len, seq, 0);
	return 0;
}

/*
 * Stamp stream message @seq of @len bytes into c->sbuf, which holds the
 * pattern over @len + MSG_SHIFT_MAX bytes: returns where the message
 * starts.  msg_unstamp puts the pattern back once it was sent.
 */
static inline uint8_t *msg_stamp_shifted(struct ipc_pctx *c, size_t len,
					 uint64_t seq)
{
	uint8_t *msg = c->sbuf + msg_shift(seq);

	msg_stamp(msg, len, seq);
	return msg;
}

static inline void msg_unstamp(uint8_t *msg, size_t len, uint64_t seq)
{
	size_t n = len < 8 ? len : 8, at = msg_shift(seq);

	for (size_t i = 0; i < n; i++)
		msg[i] = msg_pattern_byte(at + i);
}

/*
 * Check stream message @seq (msg_stamp_shifted) of @len bytes as msg_check
 * does, in one pass over @buf.
 */
static inline int msg_check_shifted(struct ipc_pctx *c, const uint8_t *buf,
				    size_t len, uint64_t seq)
{
	uint64_t got;

	if (len >= 8) {
		memcpy(&got, buf, 8);
		if (le64toh(got) != seq ||
		    !msg_payload_ok(buf, 8, len, msg_shift(seq)))
			return msg_check_slow(c, buf, len, seq, msg_shift(seq));
		return 0;
	}
	for (size_t i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(seq >> (8 * i)))
			return msg_check_slow(c, buf, len, seq, msg_shift(seq));
	return 0;
}

/*
 * Record a failure in c->out: @err and a description such as "receive
 * response: peer closed the channel".  Returns @err.
 */
int msg_fail(struct ipc_pctx *c, int err, const char *doing);

/*
 * After a sample that ended at @t1: true when the loop must end, because
 * the deadline passed or a stop was asked for between two calls (then *err
 * says so).
 */
static inline bool msg_sample_end(struct ipc_pctx *c, uint64_t t1,
				  uint64_t deadline, int *err)
{
	if (t1 >= deadline)
		return true;
	if (ipc_cancelled(c->io.cancel)) {
		*err = msg_fail(c, -ECANCELED, "between iterations");
		return true;
	}
	return false;
}

/*
 * The end of a timed sample the loop keeps: @ns into the histogram and
 * *sum, then msg_sample_end at @t1, the sample's end.  True when the loop
 * must end after it.  Inline, so that the measured loop pays no call.
 */
static inline bool msg_sample_kept(struct ipc_pctx *c, uint64_t ns, uint64_t t1,
				   uint64_t deadline, uint64_t *sum, int *err)
{
	ipc_hist_record(c->hist, ns);
	*sum += ns;
	return msg_sample_end(c, t1, deadline, err);
}

/*
 * Round trip *@seq, the @iters-th measured so far, ended at @t1 with its
 * response of @resp wire bytes in c->rbuf: check the response, move *@seq
 * on and close the interval if its end passed.  0, or -EBADMSG (c->out
 * says what).  Inline, as the rest of the timed loop around it.
 */
static inline int msg_rt_done(struct ipc_pctx *c, size_t resp, uint64_t *seq,
			      uint64_t t1, uint64_t iters)
{
	if (c->verify) {
		int err = msg_check(c, c->rbuf, resp, *seq);

		if (err)
			return err;
	}
	(*seq)++;
	ival_tick(c, t1, iters, iters,
		  iters * (c->cs->req_size + c->cs->resp_size), 0);
	return 0;
}

/*
 * A server's wait for the client's next message: 0 when it arrived, 1 when
 * the client is done (end of stream, or the runner asked the peer to
 * stop), -errno on failure.  A receive timeout on an idle datagram channel
 * is not a failure: the server keeps waiting.  On a lossy transport a
 * refused connection is the client's socket gone after the run (a late
 * answer bounced): the client is done.
 */
static inline int msg_next_end(const struct ipc_pctx *c, int err)
{
	if (err == -ECONNREFUSED && (c->tp_caps & IPC_TP_LOSSY))
		return 1;
	return err == MSG_EOF || err == -ECANCELED ? 1 : err;
}

static inline int msg_next(struct ipc_pctx *c, uint8_t *buf, size_t len)
{
	int err;

	do
		err = msg_recv(c, buf, len);
	while (err == -ETIMEDOUT);
	return msg_next_end(c, err);
}

/*
 * One phase of a client loop: up to @n iterations, or until one ends at or
 * after @deadline; adds what it completed to *done and *elapsed_ns even
 * when it fails.  *seq is the next message's sequence number.
 */
typedef int (*msg_loop_fn)(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
			   uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns);

/*
 * Run a client: c->warmup iterations whose samples are then forgotten,
 * and the measured ones (by count, or for c->duration_ns) into c->out;
 * c->ready (if set) is called first.
 */
int msg_client_phases(struct ipc_pctx *c, msg_loop_fn loop);

/*
 * The same, calling @ready (if not NULL) between the two phases, out of
 * the measured time: what must start once the warm-up went through (the
 * load beside rr --under-load) or be counted from there on (zero-copy
 * completions).  Its error ends the run before the measured phase.
 */
int msg_client_phases_ready(struct ipc_pctx *c, msg_loop_fn loop,
			    int (*ready)(struct ipc_pctx *c));

#endif

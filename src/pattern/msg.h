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
 */
#ifndef IPCPERF_PATTERN_MSG_H
#define IPCPERF_PATTERN_MSG_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/pattern.h"

/* A receive saw end of stream: the peer closed its side. */
#define MSG_EOF (-ECONNRESET)

/* Bytes on the wire for a payload of @len bytes on a transport with @caps. */
static inline size_t msg_wire(size_t len, unsigned caps)
{
	if (len == 0 && !(caps & IPC_TP_EMPTY_MSG))
		return 1;
	return len;
}

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

	if (!(c->tp_caps & IPC_TP_STREAM)) {
		n = eng->recv(&c->io, buf, c->buf_bytes);
		if (n < 0)
			return (int)n;
		if (n == 0 && len != 0 && (c->tp_caps & IPC_TP_EMPTY_MSG))
			return -EBADMSG;
		if (n == 0 && !(c->tp_caps & IPC_TP_EMPTY_MSG))
			return MSG_EOF;
		return (size_t)n == len ? 0 : -EBADMSG;
	}
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
 * Check a received message of @len wire bytes: its sequence number and
 * payload pattern.  0 if intact, -EBADMSG (with a description in c->out)
 * if not.  Costs one memcmp of the message.
 */
int msg_check_slow(struct ipc_pctx *c, const uint8_t *buf, size_t len,
		   uint64_t seq);

static inline int msg_check(struct ipc_pctx *c, const uint8_t *buf, size_t len,
			    uint64_t seq)
{
	size_t n = len < 8 ? len : 8;

	for (size_t i = 0; i < n; i++)
		if (buf[i] != (uint8_t)(seq >> (8 * i)))
			return msg_check_slow(c, buf, len, seq);
	if (len > 8 && memcmp(buf + 8, c->expect + 8, len - 8) != 0)
		return msg_check_slow(c, buf, len, seq);
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
	if (*c->io.stop) {
		*err = msg_fail(c, -ECANCELED, "between iterations");
		return true;
	}
	return false;
}

/*
 * A server's wait for the client's next message: 0 when it arrived, 1 when
 * the client is done (end of stream, or the runner asked the peer to
 * stop), -errno on failure.  A receive timeout on an idle datagram channel
 * is not a failure: the server keeps waiting.  On a lossy transport a
 * refused connection is the client's socket gone after the run (a late
 * answer bounced): the client is done.
 */
static inline int msg_next(struct ipc_pctx *c, uint8_t *buf, size_t len)
{
	int err;

	do
		err = msg_recv(c, buf, len);
	while (err == -ETIMEDOUT);
	if (err == -ECONNREFUSED && (c->tp_caps & IPC_TP_LOSSY))
		return 1;
	return err == MSG_EOF || err == -ECANCELED ? 1 : err;
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
 * and the measured ones (by count, or for c->duration_ns) into c->out.
 */
int msg_client_phases(struct ipc_pctx *c, msg_loop_fn loop);

#endif

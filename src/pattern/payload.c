/*
 * Payload pattern and the failure paths of the message helpers: what the
 * loops call only when something already went wrong.
 */
#include "msg.h"

/*
 * Byte i is a mix of its low and high offset bytes, so the pattern repeats
 * only every 64 KiB: data shifted by a few bytes, or a chunk of one message
 * spliced into another, does not match.
 */
void ipc_payload_fill(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 131u + 7u) ^ (i >> 8) * 29u);
}

int msg_check_slow(struct ipc_pctx *c, const uint8_t *buf, size_t len,
		   uint64_t seq)
{
	size_t n = len < 8 ? len : 8;
	uint64_t got = 0;

	for (size_t i = 0; i < n; i++)
		got |= (uint64_t)buf[i] << (8 * i);
	if (n < 8)
		seq &= (1ull << (8 * n)) - 1;
	if (got != seq) {
		snprintf(c->out.what, sizeof(c->out.what),
			 "message out of order or lost: sequence %llu where "
			 "%llu was due",
			 (unsigned long long)got, (unsigned long long)seq);
		c->out.err = -EBADMSG;
		return -EBADMSG;
	}
	for (size_t i = 8; i < len; i++) {
		if (buf[i] != c->expect[i]) {
			snprintf(c->out.what, sizeof(c->out.what),
				 "payload corrupted in message %llu at byte "
				 "%zu of %zu (0x%02x, expected 0x%02x)",
				 (unsigned long long)seq, i, len, buf[i],
				 c->expect[i]);
			c->out.err = -EBADMSG;
			return -EBADMSG;
		}
	}
	return 0;
}

int msg_fail(struct ipc_pctx *c, int err, const char *doing)
{
	const char *why;

	if (c->out.err)
		return c->out.err; /* the first failure is the one to tell */
	switch (err) {
	case MSG_EOF:
		why = "peer closed the channel";
		break;
	case -EPIPE:
	case -ECONNREFUSED:
		why = "peer is gone";
		break;
	case -ETIMEDOUT:
		why = "no data within the timeout (datagram lost?)";
		break;
	case -ECANCELED:
		why = "wait interrupted";
		break;
	case -EBADMSG:
		why = "message of the wrong length";
		break;
	default:
		why = strerror(-err);
		break;
	}
	snprintf(c->out.what, sizeof(c->out.what), "%s: %s", doing, why);
	c->out.err = err;
	return err;
}

int msg_client_phases(struct ipc_pctx *c, msg_loop_fn loop)
{
	uint64_t seq = 0, warm_ns = 0, start;
	int err;

	err = loop(c, c->warmup, UINT64_MAX, &seq, &c->out.warmup_done,
		   &warm_ns);
	ipc_hist_reset(c->hist);
	if (err)
		return err;
	/* Loss is counted over the measured iterations only. */
	c->out.loss.sent = c->out.loss.received = c->out.loss.lost = 0;
	c->out.loss.late = c->out.loss.reordered = 0;
	start = ipc_now_ns();
	return loop(c, c->iterations,
		    c->duration_ns ? start + c->duration_ns : UINT64_MAX, &seq,
		    &c->out.done, &c->out.elapsed_ns);
}

/* SPDX-License-Identifier: MIT */
/*
 * Payload pattern and the failure paths of the message helpers: what the
 * loops call only when something already went wrong.
 */
#include "msg.h"
#include "pattern/lib_internal.h"
#include "interval.h"

/*
 * Byte i is a mix of its low and high offset bytes, so the pattern repeats
 * only every 64 KiB: data shifted by a few bytes, or a chunk of one message
 * spliced into another, does not match.
 */
void ipc_payload_fill(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = msg_pattern_byte(i);
}

/*
 * The pattern in 256-byte blocks: byte n is P[n % 256] ^ H(n / 256 % 256)
 * with P[j] = 131 j + 7 and H(b) = 29 b (mod 256), since 131 * 256 is 0
 * mod 256.  So a block is the table below with one byte xored into all of
 * it, and the check of a 16- or 32-byte piece is a load, two xors and an
 * or: no second buffer to read, as memcmp against a copy of the pattern
 * would.  H is one-to-one (29 is odd), so blocks of different number differ
 * in every byte.
 */
#define P1(j) (uint8_t)((j)*131u + 7u)
#define P4(j) P1(j), P1((j) + 1), P1((j) + 2), P1((j) + 3)
#define P16(j) P4(j), P4((j) + 4), P4((j) + 8), P4((j) + 12)
#define P64(j) P16(j), P16((j) + 16), P16((j) + 32), P16((j) + 48)
static const uint8_t pat_block[256]
	__attribute__((aligned(64))) = {P64(0), P64(64), P64(128), P64(192)};

/*
 * The check of @n bytes at @p against the pattern from its byte @pos on,
 * for vectors of @width bytes: single bytes up to the first vector's place
 * in the pattern, then vectors, then single bytes.  A 256-byte block of the
 * pattern is the table xor its block's byte, so the table's vectors are
 * loaded once per call and xored with that byte once per block: a whole
 * block costs one load and one xor-or (one vpternlog with AVX-512) per
 * vector.  The differences are or-ed together and tested once at the end:
 * no branch per vector.  Defined once per vector width.
 */
#define PAYLOAD_CHECKER(name, width, attr)                                     \
	typedef uint8_t name##_vec __attribute__((vector_size(width)));        \
	attr static bool name(const uint8_t *p, size_t n, size_t pos)          \
	{                                                                      \
		enum { K = 256 / (width) };                                    \
		name##_vec acc = {0}, h, v, pv[K], q[K];                       \
		const uint8_t *end = p + n;                                    \
		uint8_t diff = 0;                                              \
		size_t k;                                                      \
                                                                               \
		for (; p < end && pos % (width); p++, pos++)                   \
			diff |= *p ^ msg_pattern_byte(pos);                    \
		memcpy(pv, pat_block, sizeof(pv));                             \
		while ((size_t)(end - p) >= (width)) {                         \
			h = (name##_vec){0} + (uint8_t)((pos >> 8) * 29u);     \
			_Pragma("GCC unroll 16") for (k = 0; k < K; k++)       \
				q[k] = pv[k] ^ h;                              \
			if (pos % 256 == 0 && (size_t)(end - p) >= 256) {      \
				_Pragma("GCC unroll 16") for (k = 0; k < K;    \
							      k++)             \
				{                                              \
					memcpy(&v, p + k * (width),            \
					       sizeof(v));                     \
					acc |= v ^ q[k];                       \
				}                                              \
				p += 256;                                      \
				pos += 256;                                    \
				continue;                                      \
			}                                                      \
			/* A block begun or ended part-way. */                 \
			for (k = pos % 256 / (width);                          \
			     k < K && (size_t)(end - p) >= (width); k++) {     \
				memcpy(&v, p, sizeof(v));                      \
				acc |= v ^ q[k];                               \
				p += (width);                                  \
				pos += (width);                                \
			}                                                      \
		}                                                              \
		for (; p < end; p++, pos++)                                    \
			diff |= *p ^ msg_pattern_byte(pos);                    \
		for (k = 0; k < (width); k++)                                  \
			diff |= acc[k];                                        \
		return diff == 0;                                              \
	}

/* SSE2 on x86-64, NEON on arm64, plain words elsewhere. */
PAYLOAD_CHECKER(check16, 16, )

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * Wider where the CPU can.  A 64 KiB message in L2 on the development VM,
 * aligned: 16-byte vectors check it at 43 GB/s, AVX2 at 69, AVX-512 at
 * 79-89 (the loop before this one, with a second load per vector from the
 * table and a branch every four: 29, 57 and 76-85, same runs).  Across
 * two CPUs the transfer of the lines bounds the check, not the width; on
 * one CPU it is the check's whole cost.
 */
PAYLOAD_CHECKER(check32, 32, __attribute__((target("avx2"))))
PAYLOAD_CHECKER(check64, 64, __attribute__((target("avx512bw"))))

static bool pattern_ok(const uint8_t *p, size_t n, size_t pos, unsigned width)
{
	if (width >= 64 && __builtin_cpu_supports("avx512bw"))
		return check64(p, n, pos);
	if (width >= 32 && __builtin_cpu_supports("avx2"))
		return check32(p, n, pos);
	return check16(p, n, pos);
}
#else
static bool pattern_ok(const uint8_t *p, size_t n, size_t pos, unsigned width)
{
	(void)width;
	return check16(p, n, pos);
}
#endif

bool msg_payload_ok_width(const uint8_t *buf, size_t from, size_t len,
			  size_t shift, unsigned width)
{
	if (from >= len)
		return true;
	return pattern_ok(buf + from, len - from, from + shift, width);
}

bool msg_payload_ok(const uint8_t *buf, size_t from, size_t len, size_t shift)
{
	return msg_payload_ok_width(buf, from, len, shift, 64);
}

int msg_check_slow(struct ipc_pctx *c, const uint8_t *buf, size_t len,
		   uint64_t seq, size_t shift)
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
		if (buf[i] != msg_pattern_byte(i + shift)) {
			snprintf(c->out.what, sizeof(c->out.what),
				 "payload corrupted in message %llu at byte "
				 "%zu of %zu (0x%02x, expected 0x%02x)",
				 (unsigned long long)seq, i, len, buf[i],
				 msg_pattern_byte(i + shift));
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
		why = "peer is gone";
		break;
	case -ECONNREFUSED:
		why = "connection refused (nothing listens there, or the "
		      "peer is gone)";
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
	return msg_client_phases_ready(c, loop, NULL);
}

int msg_client_phases_ready(struct ipc_pctx *c, msg_loop_fn loop,
			    int (*ready)(struct ipc_pctx *c))
{
	uint64_t seq = 0, warm_ns = 0, start, end;
	int err;

	if (c->ready)
		c->ready(c->ready_arg);
	err = loop(c, c->warmup, UINT64_MAX, &seq, &c->out.warmup_done,
		   &warm_ns);
	ipc_hist_reset(c->hist);
	if (!err && ready)
		err = ready(c);
	if (err)
		return err;
	/* Loss is counted over the measured iterations only. */
	c->out.loss.sent = c->out.loss.received = c->out.loss.lost = 0;
	c->out.loss.late = c->out.loss.reordered = 0;
	start = ipc_now_ns();
	ipc_pctx_measuring(c, start);
	ipc_pctx_window(c, false, start);
	ival_begin(c, start);
	err = loop(c, c->iterations,
		   c->duration_ns ? start + c->duration_ns : UINT64_MAX, &seq,
		   &c->out.done, &c->out.elapsed_ns);
	end = ipc_now_ns();
	ipc_pctx_window(c, true, end);
	if (c->ivals)
		c->ivals->end_ns = end;
	return err;
}

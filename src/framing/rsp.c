/* SPDX-License-Identifier: MIT */
/*
 * The GDB remote serial protocol's packets: $body#xx, where xx is the sum
 * of the body's bytes modulo 256 in two hex digits, each packet
 * acknowledged with '+' (or '-': send it again) unless both sides agreed
 * on QStartNoAckMode.  In a body, '$', '#', '}' and '*' are sent as '}'
 * and the byte XOR 0x20; a stub may run-length encode: "X*n" stands for X
 * followed by n - 29 more X, n printable and neither '#' nor '$' (so runs
 * of 6 or 7 are sent as 5).
 *
 *   "0000"      ->  $0* #..      ('*' then ' ' = 32 - 29 = 3 more)
 *   "a#b"       ->  $a}\x03b#..  ('#' ^ 0x20 = 0x03)
 *
 * The decoder follows GDB's reader: a run repeats the raw character
 * before '*', and the checksum covers the body exactly as sent.
 */
#include <errno.h>

#include "escape.h"
#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

enum { S_IDLE, S_BODY, S_ESC, S_RLE, S_CS1, S_CS2 };

/* Longest run one "X*n" carries: n = 126 ('~') gives 97 more. */
#define RLE_MAX_EXTRA 97

static const char hexdig[] = "0123456789abcdef";

unsigned ipc_rsp_checksum(const uint8_t *buf, size_t len)
{
	unsigned sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += buf[i];
	return sum & 0xff;
}

static size_t rsp_frame_max(size_t len)
{
	return 2 * len + 4; /* every byte escaped, '$', '#' and two digits */
}

static size_t rsp_encode(uint8_t *dst, const uint8_t *payload, size_t len,
			 unsigned flags)
{
	uint8_t *p = dst + 1;
	unsigned sum;
	size_t i = 0;

	dst[0] = '$';
	while (i < len) {
		uint8_t b = payload[i];
		size_t run = 1;

		if (ipc_rsp_must_escape(b)) {
			*p++ = '}';
			*p++ = b ^ 0x20;
			i++;
			continue;
		}
		if (flags & IPC_FRAME_RLE)
			while (i + run < len && payload[i + run] == b &&
			       run <= RLE_MAX_EXTRA)
				run++;
		*p++ = b;
		if (run >= 4) {
			/* A run of 4 or more costs 3 bytes. */
			size_t extra = run - 1;

			if (extra == 6 || extra == 7)
				extra = 5; /* '#' and '$' are not counts */
			*p++ = '*';
			*p++ = (uint8_t)(extra + 29);
			i += 1 + extra;
		} else {
			i++;
		}
	}
	sum = ipc_rsp_checksum(dst + 1, (size_t)(p - dst - 1));
	*p++ = '#';
	*p++ = (uint8_t)hexdig[sum >> 4];
	*p++ = (uint8_t)hexdig[sum & 15];
	return (size_t)(p - dst);
}

static void rsp_dec_init(struct ipc_frame_dec *d, uint8_t *out, size_t cap)
{
	d->out = out;
	d->cap = cap;
	d->len = 0;
	d->state = S_IDLE;
	d->sum = 0;
	d->want = 0;
	d->prev = -1;
}

static ssize_t rsp_dec_feed(struct ipc_frame_dec *d, const uint8_t *in,
			    size_t len, enum ipc_frame_ev *ev)
{
	size_t i;
	int v;

	*ev = IPC_FRAME_MORE;
	for (i = 0; i < len; i++) {
		uint8_t c = in[i];

		switch (d->state) {
		case S_IDLE:
			if (c == '$') {
				d->len = 0;
				d->sum = 0;
				d->prev = -1;
				d->state = S_BODY;
			} else if (c == '+' || c == '-') {
				*ev = c == '+' ? IPC_FRAME_ACK : IPC_FRAME_NAK;
				return (ssize_t)i + 1;
			}
			/* Anything else between packets is line noise. */
			break;
		case S_BODY:
			if (c == '#') {
				d->state = S_CS1;
				break;
			}
			if (c == '$')
				return -EBADMSG; /* a new packet inside one */
			d->sum += c;
			if (c == '}') {
				d->state = S_ESC;
			} else if (c == '*') {
				if (d->prev < 0 || d->prev == '}')
					return -EBADMSG; /* nothing to repeat */
				d->state = S_RLE;
			} else {
				if (d->len >= d->cap)
					return -EMSGSIZE;
				d->out[d->len++] = c;
				d->prev = c;
			}
			break;
		case S_ESC:
			if (c == '#' || c == '$')
				return -EBADMSG;
			d->sum += c;
			if (d->len >= d->cap)
				return -EMSGSIZE;
			d->out[d->len++] = c ^ 0x20;
			d->prev = c;
			d->state = S_BODY;
			break;
		case S_RLE:
			d->sum += c;
			if (c < 30)
				return -EBADMSG; /* a count of 0 or less */
			if (d->cap - d->len < (size_t)(c - 29))
				return -EMSGSIZE;
			for (unsigned k = 0; k < (unsigned)(c - 29); k++)
				d->out[d->len++] = (uint8_t)d->prev;
			d->state = S_BODY;
			break;
		case S_CS1:
			v = ipc_esc_hexval(c);
			if (v < 0)
				return -EBADMSG;
			d->want = (unsigned)v << 4;
			d->state = S_CS2;
			break;
		default: /* S_CS2 */
			v = ipc_esc_hexval(c);
			if (v < 0)
				return -EBADMSG;
			d->want |= (unsigned)v;
			d->state = S_IDLE;
			if ((d->sum & 0xff) != d->want)
				return -EBADMSG;
			*ev = IPC_FRAME_PACKET;
			return (ssize_t)i + 1;
		}
	}
	return (ssize_t)i;
}

const struct ipc_framing_ops ipc_framing_rsp = {
	.name = "gdb-rsp",
	.help = "GDB remote protocol packets: $payload#checksum, '+' acks, "
		"escapes, run-length encoding",
	.acks = true,
	.frame_max = rsp_frame_max,
	.encode = rsp_encode,
	.dec_init = rsp_dec_init,
	.dec_feed = rsp_dec_feed,
};

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the framing decoders (gdb-rsp, len): what the
 * other side of a framed rr sends is untrusted.  The first byte sets the
 * decoder's buffer and the size of the pieces bytes arrive in; the rest
 * is fed to every framing that decodes.  Each feed consumes at most what
 * it was given and makes progress, a payload never passes the buffer, and
 * a failed frame says why with -EBADMSG or -EMSGSIZE.  Then the same
 * bytes as a payload must come back whole through encode and decode,
 * with and without run-length encoding.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void decode(const struct ipc_framing_ops *f, const uint8_t *in,
		   size_t len, size_t cap, size_t step)
{
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev;
	uint8_t *out = malloc(cap ? cap : 1);
	size_t off = 0;

	if (!out)
		return;
	f->dec_init(&d, out, cap);
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		ssize_t r = f->dec_feed(&d, in + off, n, &ev);

		if (r < 0) {
			check(r == -EBADMSG || r == -EMSGSIZE);
			/* A decoder starts again from scratch. */
			f->dec_init(&d, out, cap);
			off++;
			continue;
		}
		check((size_t)r <= n);
		check(r > 0);
		check(ev == IPC_FRAME_MORE || ev == IPC_FRAME_PACKET ||
		      ev == IPC_FRAME_ACK || ev == IPC_FRAME_NAK);
		check(ev != IPC_FRAME_MORE || (size_t)r == n);
		check(d.len <= cap);
		off += (size_t)r;
	}
	free(out);
}

/* @payload framed and decoded again is @payload, in one packet. */
static void round_trip(const struct ipc_framing_ops *f, const uint8_t *payload,
		       size_t len, unsigned flags)
{
	uint8_t *frame = malloc(f->frame_max(len));
	uint8_t *out = malloc(len ? len : 1);
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev;
	size_t n;
	ssize_t r;

	if (!frame || !out)
		goto out;
	n = f->encode(frame, payload, len, flags);
	check(n <= f->frame_max(len));
	f->dec_init(&d, out, len);
	r = f->dec_feed(&d, frame, n, &ev);
	check(r == (ssize_t)n);
	check(ev == IPC_FRAME_PACKET);
	check(d.len == len && !memcmp(out, payload, len));
out:
	free(frame);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, step;

	if (size < 1 || size > 65536)
		return 0;
	cap = (size_t)1 << (data[0] & 15);
	step = 1 + (data[0] >> 4) * 97;
	for (size_t i = 0; ipc_framings[i]; i++) {
		const struct ipc_framing_ops *f = ipc_framings[i];

		if (!f->dec_feed)
			continue;
		decode(f, data + 1, size - 1, cap, step);
		if (!f->encode)
			continue;
		round_trip(f, data + 1, size - 1, 0);
		round_trip(f, data + 1, size - 1, IPC_FRAME_RLE);
	}
	return 0;
}

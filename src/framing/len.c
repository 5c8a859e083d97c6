/* SPDX-License-Identifier: MIT */
/*
 * Length-prefixed framing: a 4-byte little-endian payload length, then the
 * payload.  The plainest frame a protocol can have, next to raw and gdb-rsp.
 */
#include <errno.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

static size_t len_frame_max(size_t len)
{
	return len + 4;
}

static size_t len_encode(uint8_t *dst, const uint8_t *payload, size_t len,
			 unsigned flags)
{
	(void)flags;
	for (int i = 0; i < 4; i++)
		dst[i] = (uint8_t)((uint32_t)len >> (8 * i));
	memcpy(dst + 4, payload, len);
	return len + 4;
}

static void len_dec_init(struct ipc_frame_dec *d, uint8_t *out, size_t cap)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
	d->cap = cap;
}

/* state: header bytes read so far (0..4); 5 while the payload comes. */
static ssize_t len_dec_feed(struct ipc_frame_dec *d, const uint8_t *in,
			    size_t len, enum ipc_frame_ev *ev)
{
	size_t i = 0, k;

	*ev = IPC_FRAME_MORE;
	while (d->state < 4 && i < len)
		d->hdr[d->state++] = in[i++];
	if (d->state == 4) {
		d->need = (uint32_t)d->hdr[0] | (uint32_t)d->hdr[1] << 8 |
			  (uint32_t)d->hdr[2] << 16 | (uint32_t)d->hdr[3] << 24;
		if (d->need > d->cap)
			return -EMSGSIZE;
		d->len = 0;
		d->state = 5;
	}
	if (d->state == 5) {
		k = len - i < d->need ? len - i : d->need;
		memcpy(d->out + d->len, in + i, k);
		d->len += k;
		d->need -= (uint32_t)k;
		i += k;
		if (!d->need) {
			d->state = 0;
			*ev = IPC_FRAME_PACKET;
		}
	}
	return (ssize_t)i;
}

const struct ipc_framing_ops ipc_framing_len = {
	.name = "len",
	.help = "a 4-byte little-endian length, then the payload",
	.acks = false,
	.frame_max = len_frame_max,
	.encode = len_encode,
	.dec_init = len_dec_init,
	.dec_feed = len_dec_feed,
};

/* SPDX-License-Identifier: MIT */
/*
 * Link emulation in user space: a relay between the two sides of a channel
 * that holds every byte back as a slower or longer link would (one-way
 * delay, jitter, bandwidth, serial framing, datagram loss), while the bytes
 * still cross the real transport on both legs.  No root, no netem.
 *
 *   client ══ transport ══> relay ── shaper ──> ══ transport ══> server
 *          <══════════════       <── shaper ──  <══════════════
 */
#ifndef IPCPERF_LINK_H
#define IPCPERF_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPC_LINK_NAME 80

/*
 * One emulated link, the same in both directions.  A link with relay false
 * is the transport as it is (the presets "none" and "localhost").
 */
struct ipc_link {
	char name[IPC_LINK_NAME]; /* "wan", "wan+loss=1%", "delay=35ms" */
	bool relay;		  /* false: no relay at all */
	uint64_t delay_ns;	  /* one-way delay added in each direction */
	uint64_t jitter_ns;	  /* delay varies uniformly within +-jitter */
	uint64_t rate_bps;	  /* line rate in bits per second, 0: none */
	unsigned bits_per_byte; /* 8, or 10 for serial (start, 8 data, stop) */
	uint32_t loss_ppm;	/* datagrams lost per million (udp only) */
	uint32_t mtu;		/* bytes of a byte stream per piece */
	uint32_t overhead;	/* bytes of framing on the wire per piece */
};

/* A named link and what it stands for (docs/links.md has the sources). */
struct ipc_link_preset {
	const char *name;
	const char *spec; /* parameters, as --link takes them */
	const char *help; /* one line for `ipcperf list` */
};

/* The presets, NULL-terminated. */
extern const struct ipc_link_preset ipc_link_presets[];

/*
 * Parse a --link list into @out (which holds @max links), appending after
 * the *@n already there.  Items are separated by commas: a preset name
 * starts a new link; a key=value item (delay, jitter, rate, baud, loss,
 * mtu, overhead) changes the link before it, or starts a custom one.
 *
 *   "localhost,wan,serial-9600"     three links
 *   "delay=35ms,jitter=2ms"         one link
 *   "wan,loss=1%"                   the wan preset with 1% loss
 *
 * Returns 0, or -EINVAL with one sentence naming the bad item in @err.
 */
int ipc_link_parse(const char *list, struct ipc_link *out, size_t max,
		   size_t *n, char *err, size_t err_len);

/*
 * One direction's schedule.  Pieces enter in order; each leaves when the
 * line has clocked it out (rate) and the delay (with jitter) has passed,
 * and never before the piece ahead of it, so a byte stream is never
 * reordered.  Pure arithmetic, no I/O: the relay calls it, tests check it.
 */
struct ipc_shaper {
	const struct ipc_link *l;
	uint64_t busy_until_ns; /* the line is busy until then */
	uint64_t last_due_ns;	/* when the previous piece left */
	uint64_t rng;		/* ipc_rng_next state for jitter and loss */
	uint64_t frac;		/* sub-ns remainder of the line time, in
				   units of 1/rate_bps ns */
};

/*
 * The relay of one run.  Started after the peer (so a forked peer inherits
 * none of it), it sets up a second channel of the same transport for the
 * client, opens that channel's server side and the client side of the
 * peer's channel in a thread of its own, and forwards both directions
 * through a shaper each until either side closes, which it passes on once
 * what was in flight toward the other side is delivered.
 */
struct ipc_relay;

/* Bytes the relay delivered each way and datagrams it dropped. */
struct ipc_relay_stats {
	uint64_t bytes_c2s, bytes_s2c;
	uint64_t dropped; /* datagrams lost on purpose (loss=) */
};

#ifdef __cplusplus
}
#endif

#endif

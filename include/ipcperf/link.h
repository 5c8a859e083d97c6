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
 * Can @l be emulated over @tp?  0 if so; otherwise -EINVAL and one
 * sentence in @why (the relay waits with poll, so it needs descriptors;
 * loss applies only to lossy datagram transports).
 */
int ipc_link_can_carry(const struct ipc_link *l,
		       const struct ipc_transport_ops *tp, char *why,
		       size_t why_len);

/*
 * Time the line needs to carry @bytes in @pieces pieces (each piece pays
 * l->overhead bytes), in ns; 0 without a rate.  The floor any conversation
 * of that many bytes must take on this link.
 */
uint64_t ipc_link_wire_ns(const struct ipc_link *l, uint64_t bytes,
			  uint64_t pieces);

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

/* Start a schedule for @l; @seed makes jitter and loss reproducible. */
void ipc_shaper_init(struct ipc_shaper *s, const struct ipc_link *l,
		     uint64_t seed);

/*
 * A piece of @bytes arrived at @now_ns: returns when it must be delivered
 * (CLOCK_MONOTONIC ns).  *drop is set when the piece is lost (only when
 * @may_drop: datagrams); a lost piece still takes its time on the line.
 */
uint64_t ipc_shaper_due(struct ipc_shaper *s, uint64_t now_ns, size_t bytes,
			bool may_drop, bool *drop);

/*
 * The relay of one run.  Started after the peer (so a forked peer inherits
 * none of it), it sets up a second channel of the same transport for the
 * client, opens that channel's server side and the client side of the
 * peer's channel in a thread of its own, and forwards both directions
 * through a shaper each until either side closes, which it passes on once
 * what was in flight toward the other side is delivered.
 */
struct ipc_relay;

/*
 * Start a relay for @l between @server_ch (set up; the peer opens its
 * server side, or with a target the server is already there) and a new
 * channel of @tp with @opts (its files named after opts->name with "-link"
 * added, beside @server_ch's; never a target), returned in *@client_ch for
 * the client to open.  The relay's thread is a helper (ipc_thread_start)
 * with a stop of its own.  Returns 0 or -errno (nothing left behind on
 * failure).  The caller stops and frees it with the functions below on
 * every path.
 */
int ipc_relay_start(struct ipc_relay **out, const struct ipc_link *l,
		    const struct ipc_transport_ops *tp,
		    const struct ipc_tp_opts *opts, struct ipc_chan *server_ch,
		    struct ipc_chan **client_ch);

/*
 * Stop the relay (at once: what is still in flight is dropped) and wait
 * for its thread.  NULL-safe, safe twice.  Returns 0 if it forwarded
 * without failure, else -errno with ipc_relay_error() saying what failed.
 */
int ipc_relay_stop(struct ipc_relay *r);
const char *ipc_relay_error(const struct ipc_relay *r);

/* Bytes the relay delivered each way and datagrams it dropped. */
struct ipc_relay_stats {
	uint64_t bytes_c2s, bytes_s2c;
	uint64_t dropped; /* datagrams lost on purpose (loss=) */
};
void ipc_relay_get_stats(const struct ipc_relay *r, struct ipc_relay_stats *st);

/* Tear down the client channel and free; after stop.  NULL-safe. */
void ipc_relay_free(struct ipc_relay *r);

#ifdef __cplusplus
}
#endif

#endif

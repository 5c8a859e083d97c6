/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of link and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/link.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_LINK_LIB_INTERNAL_H
#define IPCPERF_LINK_LIB_INTERNAL_H

#include "ipcperf/link.h"

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

/* Tear down the client channel and free; after stop.  NULL-safe. */
void ipc_relay_free(struct ipc_relay *r);

void ipc_relay_get_stats(const struct ipc_relay *r, struct ipc_relay_stats *st);

#endif

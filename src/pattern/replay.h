/* SPDX-License-Identifier: MIT */
/*
 * replay's pieces shared by its two clients, private to the pattern
 * layer: ipcperf at both ends (replay.c) and a live stub at the other
 * (replay_stub.c, replay --target).
 */
#ifndef IPCPERF_PATTERN_REPLAY_H
#define IPCPERF_PATTERN_REPLAY_H

#include "msg.h"

/* The extras of a replay, in this order (replay.c describes them). */
enum {
	RP_LINK_NS = 0, /* what the emulated link alone takes */
	RP_MATCHED,	/* --target: replies of the recorded shape */
	RP_MISMATCHED,	/* ... of another shape */
	RP_CPU,		/* ... of another shape where the CPU decides */
	RP_ACKS,	/* ... acks missing or not recorded */
	RP_REWRITTEN,	/* ... client packets with live ids */
	RP_PIECES,	/* ... requests added by --max-packet */
	RP_BYTES_OUT,	/* ... bytes sent to the stub */
	RP_BYTES_IN,	/* ... bytes received from it */
	RP_WIRE_C2S,	/* one replay's bytes as they crossed, client to */
	RP_WIRE_S2C,	/* ... server and back (--target: the live ones) */
	RP_COUNT
};

/* Wait @ns of recorded think time, or until asked to stop. */
int rp_think(struct ipc_pctx *c, uint64_t ns);

/* The end of the group of writes that starts at unit @i. */
size_t rp_group_end(const struct ipc_trace *t, size_t i);

/* The client against a live stub (cs->cfg set): one replay per run. */
int rp_stub_client(struct ipc_pctx *c);

#endif

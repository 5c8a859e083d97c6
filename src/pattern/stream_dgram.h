/* SPDX-License-Identifier: MIT */
/*
 * stream over lossy transports: the client and server loops that count
 * loss instead of waiting for messages that may never come.
 */
#ifndef IPCPERF_PATTERN_STREAM_DGRAM_H
#define IPCPERF_PATTERN_STREAM_DGRAM_H

#include <stddef.h>

#include "ipcperf/pattern.h"

/*
 * Where stream's extras keep, over udp: the jitter of a paced stream (ns),
 * the window the receiver offered (datagrams, 0: the sender waited for
 * every batch) and the receiver's SO_RCVBUF (bytes).
 */
#define ST_EXTRA_JITTER 0
#define ST_EXTRA_WINDOW 1
#define ST_EXTRA_RCVBUF 2

/* Largest message either side sends for data messages of @wire bytes. */
size_t st_dgram_max_msg(size_t wire);

int st_dgram_client(struct ipc_pctx *c);
int st_dgram_server(struct ipc_pctx *c);

/* -R: the client receives what the peer sends, batch by batch. */
int st_dgram_rclient(struct ipc_pctx *c);
int st_dgram_rserver(struct ipc_pctx *c);

#endif

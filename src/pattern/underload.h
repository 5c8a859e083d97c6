/* SPDX-License-Identifier: MIT */
/*
 * rr --under-load N: N streams over the same transport, between the same
 * CPUs, that keep it full while the round trips are measured.
 */
#ifndef IPCPERF_PATTERN_UNDERLOAD_H
#define IPCPERF_PATTERN_UNDERLOAD_H

#include "msg.h"

/*
 * Where rr's extras keep what the streams moved while the round trips
 * were measured: bytes, and bytes per second of that time.
 */
#define RR_EXTRA_LOAD_BYTES 0
#define RR_EXTRA_LOAD_BPS 1

struct ul;

/*
 * The client: @loop's warm-up (one round trip at least, so that the
 * server has taken the round trips' connection before the streams
 * connect), then the streams start, then the measured part; then they
 * stop and what they moved goes in c->out.extra.
 */
int ul_client(struct ipc_pctx *c, msg_loop_fn loop);

/*
 * The server: take the streams' connections as they come and check what
 * arrives on each, in threads of their own; *@out until ul_serve_end.
 */
int ul_serve_start(struct ipc_pctx *c, struct ul **out);

/*
 * Once the round trips ended (@err their result): wait for the streams to
 * end and free them.  Returns @err, or the first stream's failure.
 */
int ul_serve_end(struct ipc_pctx *c, struct ul *u, int err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rr with a framing other than raw (len, gdb-rsp): private to the pattern
 * layer.  rr.c hands a case over to these when cs->framing has an encoder,
 * so its own raw loop stays as it was.
 */
#ifndef IPCPERF_PATTERN_FRAMED_H
#define IPCPERF_PATTERN_FRAMED_H

#include "msg.h"

/* Is @cs framed (not raw)? */
static inline bool rr_is_framed(const struct ipc_case *cs)
{
	return cs->framing && cs->framing->encode;
}

/* Largest message and buffer size of a framed rr case. */
size_t rr_framed_max_msg(const struct ipc_case *cs);
size_t rr_framed_buf_bytes(const struct ipc_case *cs);

/* The framed client and server loops. */
int rr_framed_client(struct ipc_pctx *c);
int rr_framed_server(struct ipc_pctx *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * stream and bulk --zerocopy: sends that hand the kernel the payload's
 * pages instead of a copy (enum ipc_zerocopy), from whichever side sends.
 * The wire format is the copying loops', so the receiver and its checks
 * are unchanged.
 */
#ifndef IPCPERF_PATTERN_ZC_H
#define IPCPERF_PATTERN_ZC_H

#include <stdbool.h>
#include <stddef.h>

#include "ipcperf/pattern.h"

/*
 * Where stream's extras keep a zero-copy run's counts (measured part
 * only): the sends issued, the completions the kernel reported for them,
 * and how many of those say it copied after all; the client's, then the
 * peer's (-R, --bidir's reverse streams).  Not a number when the path
 * reports no completions (sendfile, vmsplice) or did not run.
 */
#define ST_EXTRA_ZC_SENDS 3 /* after stream_dgram.h's */
#define ST_EXTRA_ZC_DONE 4
#define ST_EXTRA_ZC_COPIED 5
#define ST_EXTRA_ZC_PEER_SENDS 6
#define ST_EXTRA_ZC_PEER_DONE 7
#define ST_EXTRA_ZC_PEER_COPIED 8

/* bulk's, the peer's: it is the sender. */
#define BK_EXTRA_ZC_PEER_SENDS 0
#define BK_EXTRA_ZC_PEER_DONE 1
#define BK_EXTRA_ZC_PEER_COPIED 2

/* Its name in words and JSON ("msg"), or "off". */
extern const char *const ipc_zc_names[];

/* The case's way (struct ipc_param), absent when it copies. */
#define PARAM_ZEROCOPY                                                         \
	{                                                                      \
		.key = "zerocopy", .word = "zerocopy", .head = "zerocopy",     \
		.option = "zerocopy", .type = IPC_VT_U32,                      \
		.off = offsetof(struct ipc_case, zerocopy),                    \
		.fmt = IPC_FMT_NAME, .names = ipc_zc_names,                    \
		.flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT             \
	}

/* The peer's three counts (struct ipc_extra), in the order above. */
#define ZC_EXTRA(k, more)                                                      \
	{                                                                      \
		.key = k, .fmt = IPC_FMT_COUNT,                                \
		.flags =                                                       \
			IPC_EXTRA_RUN | IPC_EXTRA_INT | IPC_EXTRA_SUM | (more) \
	}
#define EXTRAS_ZC_PEER                                                         \
	ZC_EXTRA("zc_peer_sends", IPC_EXTRA_PEER),                             \
		ZC_EXTRA("zc_peer_completed", IPC_EXTRA_PEER),                 \
		ZC_EXTRA("zc_peer_copied", IPC_EXTRA_PEER)

/* A count's column (struct ipc_column), shown where a row has it. */
#define ZC_COL(h, at)                                                          \
	{                                                                      \
		.head = h, .src = IPC_SRC_EXTRA + (at), .fmt = IPC_FMT_COUNT,  \
		.flags = IPC_COL_IF_ANY                                        \
	}

struct zc;

/*
 * Run the client's phases with @loop, whose sends go through zc_send
 * (c->pat_priv is the state while they run), then wait for the kernel's
 * last completions and put the counts in c->out.extra from
 * ST_EXTRA_ZC_SENDS.
 */
int zc_client(struct ipc_pctx *c,
	      int (*loop)(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
			  uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns));

/*
 * For a loop of its own (a server's): ready to send on c->io.ep's write
 * descriptor the way c->cs->zerocopy says, from the pattern in c->sbuf,
 * which stays unwritten until zc_close.  @shifted: stream's messages, the
 * pattern from msg_shift(seq) on; else from its start (bulk's).  0, or
 * -errno with c->out saying why; *@out NULL then.
 */
int zc_open(struct ipc_pctx *c, bool shifted, struct zc **out);

/* The measured part begins: count the sends from the next one on. */
void zc_measure(struct zc *z);

/*
 * Wait for the last completions (a server past its stop, 1 s at most),
 * put the counts in @counts[0], [1] and [2] (sends, completed, copied, as
 * ST_EXTRA_ZC_*; NULL: nowhere) and free @z (NULL: nothing).  Returns
 * @err, or a failure of that wait if @err is 0.
 */
int zc_close(struct zc *z, struct ipc_pctx *c, int err, double *counts);

/*
 * Send message @seq of @len wire bytes (its number, then the pattern as
 * zc_open said): 0 or -errno.
 */
int zc_send(struct zc *z, struct ipc_pctx *c, size_t len, uint64_t seq);

#endif

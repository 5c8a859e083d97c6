/* SPDX-License-Identifier: MIT */
/*
 * stream --zerocopy: the client's sends that hand the kernel its payload's
 * pages instead of a copy (enum ipc_zerocopy).  The wire format is
 * stream's, so the server and its checks are unchanged.
 */
#ifndef IPCPERF_PATTERN_ZC_H
#define IPCPERF_PATTERN_ZC_H

#include <stddef.h>

#include "ipcperf/pattern.h"

/*
 * Where stream's extras keep a zero-copy run's counts (measured part
 * only): the sends issued, the completions the kernel reported for them,
 * and how many of those say it copied after all.  Not a number when the
 * path reports no completions (sendfile, vmsplice) or did not run.
 */
#define ST_EXTRA_ZC_SENDS 3 /* after stream_dgram.h's */
#define ST_EXTRA_ZC_DONE 4
#define ST_EXTRA_ZC_COPIED 5

/* Its name in words and JSON ("msg"), or "off". */
extern const char *const ipc_zc_names[];

struct zc;

/*
 * Run the client's phases with @loop, whose sends go through zc_send
 * (c->pat_priv is the state while they run), then wait for the kernel's
 * last completions and put the counts in c->out.extra.
 */
int zc_client(struct ipc_pctx *c,
	      int (*loop)(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
			  uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns));

/* Send stream message @seq of @len wire bytes: 0 or -errno. */
int zc_send(struct zc *z, struct ipc_pctx *c, size_t len, uint64_t seq);

#endif

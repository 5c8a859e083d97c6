/* SPDX-License-Identifier: MIT */
/*
 * stream --zerocopy uring: io_uring's SENDMSG_ZC on a ring of its own
 * (zc_ring.c with liburing, zc_ring_none.c without).  The kernel posts
 * the send's result, then a notification once it let go of the pages,
 * saying whether it copied them after all.
 */
#ifndef IPCPERF_PATTERN_ZC_RING_H
#define IPCPERF_PATTERN_ZC_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ipcperf/base.h"

struct zc_ring;

/* Told of each send @id the kernel let go of, and if it copied it. */
typedef void (*zc_ring_done_fn)(void *arg, uint32_t id, bool copied);

/*
 * Does this kernel take SENDMSG_ZC with the copy report?  0, or -errno
 * with one sentence in @why.
 */
int zc_ring_probe(char *why, size_t why_len);

int zc_ring_open(struct zc_ring **out);
void zc_ring_close(struct zc_ring *r);

/*
 * Send @m on @fd as send @id and wait for its result: the bytes sent or
 * -errno; *@notif says whether a notification for it will follow.
 * Notifications that came meanwhile go to @done.
 */
ssize_t zc_ring_sendmsg(struct zc_ring *r, int fd, const struct msghdr *m,
			uint32_t id, bool *notif, zc_ring_done_fn done,
			void *arg);

/*
 * Take the notifications posted; with @wait, wait up to 100 ms for one.
 * 0 or -errno (-ETIME: none came).
 */
int zc_ring_reap(struct zc_ring *r, bool wait, zc_ring_done_fn done, void *arg);

#endif

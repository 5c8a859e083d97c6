/* SPDX-License-Identifier: MIT */
/*
 * Walking a trace, for both of replay's clients (replay.c, replay_stub.c)
 * and its server: the groups of writes one side makes in turn, and the
 * recorded pauses between them.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "replay.h"

/*
 * Think time: a wait on the side's stop until @ns have passed, so that a
 * stop (Ctrl-C, a peer that died) ends it at once rather than after the
 * recorded pause, however long; and on the other end hanging up
 * (POLLRDHUP, POLLHUP), which is how a stub elsewhere, whose death no
 * peer watcher sees, shows it died.  Data arriving meanwhile is left for
 * the next read.  ppoll's timeout is relative, so it is recomputed from
 * the deadline after an interruption.
 */
int rp_think(struct ipc_pctx *c, uint64_t ns)
{
	uint64_t until = ipc_now_ns() + ns, now;
	struct pollfd pfd[2] = {
		{.fd = ipc_cancel_fd(c->io.cancel), .events = POLLIN},
		{.fd = c->io.ep ? c->io.ep->rfd : -1, .events = POLLRDHUP},
	};
	struct timespec ts;
	int n;

	for (;;) {
		if (ipc_cancelled(c->io.cancel))
			return -ECANCELED;
		now = ipc_now_ns();
		if (now >= until)
			return 0;
		ts.tv_sec = (time_t)((until - now) / 1000000000u);
		ts.tv_nsec = (long)((until - now) % 1000000000u);
		n = ppoll(pfd, 2, &ts, NULL);
		if (n > 0 && pfd[0].revents)
			return -ECANCELED; /* the stop's eventfd */
		if (n > 0 && pfd[1].revents)
			return -ECONNRESET; /* the other end is gone */
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

size_t rp_group_end(const struct ipc_trace *t, size_t i)
{
	size_t j = i + 1;

	while (j < t->nunits && t->units[j].dir == t->units[i].dir)
		j++;
	return j;
}

/* SPDX-License-Identifier: MIT */
/*
 * A paced sender (-b): a token bucket over the clock.  Each message is
 * due when the bytes before it, at the rate, have had their time; a
 * sender that is early waits (in ppoll on the run's stop, so a stop ends
 * the wait), one that is late sends at once, catching up by at most
 * PACE_BURST_NS worth of messages, so that a stall does not turn into a
 * burst a slower link would drop.
 */
#ifndef IPCPERF_PATTERN_PACE_H
#define IPCPERF_PATTERN_PACE_H

#include <errno.h>
#include <poll.h>
#include <time.h>

#include "ipcperf/pattern.h"

#define PACE_BURST_NS 1000000.0 /* credit a late sender may use, ns */

struct pace {
	double next_ns; /* when the next message is due */
	double msg_ns;	/* one message's time at the rate */
	double burst_ns;
};

/* Pace messages of @len bytes at @bps bits/s (0: not paced, no wait). */
static inline void pace_init(struct pace *p, uint64_t bps, size_t len)
{
	p->next_ns = (double)ipc_now_ns();
	p->msg_ns = bps ? (double)len * 8e9 / (double)bps : 0;
	p->burst_ns = p->msg_ns > PACE_BURST_NS ? p->msg_ns : PACE_BURST_NS;
}

/* Wait in the kernel until @until_ns, or a stop: 0 or -ECANCELED. */
int pace_sleep(struct ipc_pctx *c, double until_ns);

/* Before a message: wait until it is due.  0, or -ECANCELED. */
static inline int pace_wait(struct ipc_pctx *c, struct pace *p)
{
	double now;

	if (!p->msg_ns)
		return 0;
	now = (double)ipc_now_ns();
	if (p->next_ns > now) {
		int err = pace_sleep(c, p->next_ns);

		if (err)
			return err;
	} else if (now - p->next_ns > p->burst_ns) {
		p->next_ns = now - p->burst_ns;
	}
	p->next_ns += p->msg_ns;
	return 0;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The paced sender's wait: ppoll on the run's stop with the time left, so
 * that a long wait (a large message at a low rate) still ends at once on
 * Ctrl-C or a peer's death.  Short waits spin: the kernel's timer slack
 * (50 us by default) is longer than a message's time at 1 Gbit/s.
 */
#include "pace.h"
#include "msg.h"

#define SPIN_NS 60000.0

int pace_sleep(struct ipc_pctx *c, double until_ns)
{
	struct pollfd pfd = {.fd = ipc_cancel_fd(c->io.cancel),
			     .events = POLLIN};
	double left;
	struct timespec ts;

	for (;;) {
		left = until_ns - (double)ipc_now_ns();
		if (left <= 0)
			return 0;
		if (ipc_cancelled(c->io.cancel))
			return msg_fail(c, -ECANCELED, "wait for the rate");
		if (left < SPIN_NS)
			continue;
		left -= SPIN_NS / 2;
		ts.tv_sec = (time_t)(left / 1e9);
		ts.tv_nsec = (long)(left - (double)ts.tv_sec * 1e9);
		if (ppoll(&pfd, pfd.fd >= 0 ? 1 : 0, &ts, NULL) > 0)
			return msg_fail(c, -ECANCELED, "wait for the rate");
	}
}

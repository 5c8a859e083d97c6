/* SPDX-License-Identifier: MIT */
/* zc_ring.h without liburing: the way is refused at plan time. */
#include <errno.h>
#include <stdio.h>

#include "zc_ring.h"

int zc_ring_probe(char *why, size_t why_len)
{
	snprintf(why, why_len,
		 "--zerocopy uring: this ipcperf was built without liburing");
	return -EOPNOTSUPP;
}

int zc_ring_open(struct zc_ring **out)
{
	*out = NULL;
	return -EOPNOTSUPP;
}

void zc_ring_close(struct zc_ring *r)
{
	(void)r;
}

ssize_t zc_ring_sendmsg(struct zc_ring *r, int fd, const struct msghdr *m,
			uint32_t id, bool *notif, zc_ring_done_fn done,
			void *arg)
{
	(void)r, (void)fd, (void)m, (void)id, (void)done, (void)arg;
	*notif = false;
	return -EOPNOTSUPP;
}

int zc_ring_reap(struct zc_ring *r, bool wait, zc_ring_done_fn done, void *arg)
{
	(void)r, (void)wait, (void)done, (void)arg;
	return -EOPNOTSUPP;
}

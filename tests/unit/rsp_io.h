/* SPDX-License-Identifier: MIT */
/*
 * An ipc_rsp_io over a bare descriptor for the stub-session tests: poll()
 * up to the deadline, then one read; sends loop until all is written.
 */
#ifndef IPCPERF_TESTS_RSP_IO_H
#define IPCPERF_TESTS_RSP_IO_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/base.h"
#include "ipcperf/framing.h"

/* The clock every deadline is on. */
static inline uint64_t rio_now_ns(void)
{
	return ipc_now_ns();
}

static int rio_send(void *ctx, const void *buf, size_t len)
{
	int fd = *(int *)ctx;
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t rio_recv(void *ctx, void *buf, size_t len, uint64_t deadline_ns)
{
	int fd = *(int *)ctx;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	for (;;) {
		uint64_t now = rio_now_ns();
		int ms, rc;
		ssize_t n;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		ms = deadline_ns == UINT64_MAX ? -1
		     : deadline_ns - now > 1000000000000ull
			     ? 1000000
			     : (int)((deadline_ns - now + 999999) / 1000000);
		rc = poll(&pfd, 1, ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (rc == 0)
			continue;
		n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : n;
	}
}

/* Point @io at the descriptor *@fd (which must outlive it). */
static inline void rio_init(struct ipc_rsp_io *io, int *fd)
{
	io->ctx = fd;
	io->send = rio_send;
	io->recv = rio_recv;
}

#endif

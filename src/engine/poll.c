/* SPDX-License-Identifier: MIT */
/*
 * The poll engine: descriptors are non-blocking; a receive first waits for
 * readiness with poll(2), then reads, as an event loop does; a send is tried
 * first and waits with poll only when the descriptor is full.
 *
 * One endpoint's poll does not wait on the side's cancel descriptor: a
 * second pollfd cost 5% of a pipe round trip here (rr 1 B p50 2519 ns
 * against 2375, both sides on one CPU: one more wait queue to join and
 * leave on every sleep).  The threads that wait here watch their stop, and
 * its wake signal interrupts poll like any blocking call.  Many flows'
 * waits (fset_ready.c) do hold the descriptor, among theirs.
 */
#include <poll.h>

#include "engines.h"

/* Wait until @fd is ready for @events; 0, -ETIMEDOUT or -ECANCELED. */
static int pl_wait(struct ipc_io *io, int fd, short events, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int n, err;

	for (;;) {
		n = poll(&pfd, 1, timeout_ms);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
		err = eng_interrupted(io);
		if (err)
			return err;
	}
}

static ssize_t pl_send(struct ipc_io *io, const void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;
	int err;

	for (;;) {
		n = ep->ops->send(ep, buf, len);
		if (n == -EINTR) {
			err = eng_interrupted(io);
			if (err)
				return err;
			continue;
		}
		if (n != -EAGAIN)
			return n;
		err = pl_wait(io, ep->wfd, POLLOUT, -1);
		if (err)
			return err;
	}
}

static ssize_t pl_recv(struct ipc_io *io, void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	int timeout_ms = eng_timeout_ms(io->timeout_ns);
	ssize_t n;
	int err;

	for (;;) {
		err = pl_wait(io, ep->rfd, POLLIN, timeout_ms);
		if (err)
			return err;
		n = ep->ops->recv(ep, buf, len);
		if (n == -EINTR) {
			err = eng_interrupted(io);
			if (err)
				return err;
			continue;
		}
		if (n != -EAGAIN)
			return n;
	}
}

/* Many flows: one ppoll(2) over the array of all of them. */
static int pl_fs_new(struct ipc_fset **fs, uint32_t max,
		     const struct ipc_cancel *cancel)
{
	return eng_ready_new(fs, max, EW_POLL, cancel);
}

const struct ipc_engine_ops ipc_eng_poll = {
	.name = "poll",
	.help = "non-blocking descriptors, poll(2) before each receive",
	.caps = IPC_ENG_NEEDS_FD,
	.attach = eng_nb_attach,
	.send = pl_send,
	.recv = pl_recv,
	.detach = eng_nb_detach,
	.reattach = eng_nb_reattach,
	.fs_new = pl_fs_new,
	.fs_add = eng_ready_add,
	.fs_del = eng_ready_del,
	.fs_recv = eng_ready_recv,
	.fs_send = eng_ready_send,
	.fs_wait = eng_ready_wait,
	.fs_cancel = eng_ready_cancel,
	.fs_free = eng_ready_free,
};

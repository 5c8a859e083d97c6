/* SPDX-License-Identifier: MIT */
/*
 * The busy engine: descriptors are non-blocking and the side spins on the
 * transport's own send and receive until they succeed, never sleeping in
 * the kernel.  It trades a whole CPU for the wake-up latency of the other
 * engines.  Many flows spin on epoll_wait(2) with a zero timeout.
 *
 * Two busy sides need two CPUs: on one CPU each spins through its time
 * slice while the other waits to run (pin them apart with --pin).
 */
#include "engines.h"

static ssize_t bz_send(struct ipc_io *io, const void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;

	for (;;) {
		n = ep->ops->send(ep, buf, len);
		if (n != -EAGAIN && n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
	}
}

/*
 * Spin on the receive.  The clock is read only once the first attempt
 * found nothing, and then once per attempt: a clock read (about 20 ns) is
 * small next to the system call it follows.
 */
static ssize_t bz_recv(struct ipc_io *io, void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	uint64_t deadline = 0;
	ssize_t n;

	for (;;) {
		n = ep->ops->recv(ep, buf, len);
		if (n != -EAGAIN && n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
		if (!io->timeout_ns)
			continue;
		if (!deadline)
			deadline = ipc_now_ns() + io->timeout_ns;
		else if (ipc_now_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

static int bz_fs_new(struct ipc_fset **fs, uint32_t max,
		     const struct ipc_cancel *cancel)
{
	return eng_ready_new(fs, max, EW_SPIN, cancel);
}

const struct ipc_engine_ops ipc_eng_busy = {
	.name = "busy",
	.help = "non-blocking descriptors, spin on send and receive (one CPU "
		"per side)",
	.caps = IPC_ENG_NEEDS_FD | IPC_ENG_SPINS,
	.attach = eng_nb_attach,
	.send = bz_send,
	.recv = bz_recv,
	.detach = eng_nb_detach,
	.reattach = eng_nb_reattach,
	.fs_new = bz_fs_new,
	.fs_add = eng_ready_add,
	.fs_del = eng_ready_del,
	.fs_recv = eng_ready_recv,
	.fs_send = eng_ready_send,
	.fs_wait = eng_ready_wait,
	.fs_cancel = eng_ready_cancel,
	.fs_free = eng_ready_free,
};

/*
 * The blocking engine: every send and receive is one blocking system call
 * made by the transport, the way a plain ping-pong loop is written.  Waiting
 * is the kernel's: nothing of ours runs between the call and its return.
 */
#include "engines.h"

static int blk_attach(struct ipc_io *io)
{
	(void)io;
	return 0;
}

static ssize_t blk_send(struct ipc_io *io, const void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;

	for (;;) {
		n = ep->ops->send(ep, buf, len);
		if (n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
	}
}

/*
 * A blocking receive only fails with EAGAIN when the transport's receive
 * timeout (SO_RCVTIMEO on lossy sockets) expired: report it as a timeout.
 */
static ssize_t blk_recv(struct ipc_io *io, void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;

	for (;;) {
		n = ep->ops->recv(ep, buf, len);
		if (n == -EAGAIN)
			return -ETIMEDOUT;
		if (n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
	}
}

static void blk_detach(struct ipc_io *io)
{
	(void)io;
}

const struct ipc_engine_ops ipc_eng_blocking = {
	.name = "blocking",
	.help = "one blocking system call per send and receive",
	.caps = 0,
	.attach = blk_attach,
	.send = blk_send,
	.recv = blk_recv,
	.detach = blk_detach,
};

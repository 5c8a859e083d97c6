/*
 * The blocking engine: every send and receive is one blocking system call
 * made by the transport, the way a plain ping-pong loop is written.  Waiting
 * is the kernel's: nothing of ours runs between the call and its return.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "engines.h"

/*
 * A blocking receive can only be bounded by the socket's SO_RCVTIMEO.
 * The engine keeps the value it set and sets it again only when
 * io->timeout_ns changed (a pattern shortening one wait), so the common
 * path costs nothing.  On descriptors that are not sockets (pipes, which
 * are never lossy) setting it fails and nothing is bounded.
 */
struct blk {
	uint64_t applied_ns; /* SO_RCVTIMEO in force, 0: none */
};

static void apply_timeout(struct ipc_io *io, struct blk *b)
{
	struct timeval tv;

	tv.tv_sec = (time_t)(io->timeout_ns / 1000000000u);
	tv.tv_usec = (suseconds_t)(io->timeout_ns % 1000000000u / 1000u);
	if (io->timeout_ns && !tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1; /* 0 would mean forever */
	setsockopt(io->ep->rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	b->applied_ns = io->timeout_ns;
}

static int blk_attach(struct ipc_io *io)
{
	struct blk *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	io->priv = b;
	if (io->timeout_ns)
		apply_timeout(io, b);
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
	struct blk *b = io->priv;
	ssize_t n;

	if (b && b->applied_ns != io->timeout_ns)
		apply_timeout(io, b);
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

/*
 * A receive in place, for transports that hold messages in memory of their
 * own (shm): the same waiting as blk_recv, and no descriptor to time out.
 */
static ssize_t blk_recv_view(struct ipc_io *io, const void **msg, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;

	if (!ep->ops->recv_view)
		return -EOPNOTSUPP;
	for (;;) {
		n = ep->ops->recv_view(ep, msg, len);
		if (n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
	}
}

/* A new connection: nothing to prepare, and no timeout set on it yet. */
static int blk_reattach(struct ipc_io *io, struct ipc_ep *ep)
{
	struct blk *b = io->priv;

	io->ep = ep;
	if (b)
		b->applied_ns = 0;
	return 0;
}

static void blk_detach(struct ipc_io *io)
{
	free(io->priv);
	io->priv = NULL;
}

const struct ipc_engine_ops ipc_eng_blocking = {
	.name = "blocking",
	.help = "one blocking system call per send and receive",
	.caps = 0,
	.attach = blk_attach,
	.send = blk_send,
	.recv = blk_recv,
	.recv_view = blk_recv_view,
	.detach = blk_detach,
	.reattach = blk_reattach,
};

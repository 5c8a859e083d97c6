/* SPDX-License-Identifier: MIT */
/*
 * One endpoint through a flow set of one flow: the single-endpoint slots of
 * engines whose natural interface is the flow set (epoll, io_uring).  Each
 * call starts one operation and waits for its completion, so it costs what
 * a hand-written loop over that engine costs: for epoll a send is tried at
 * once and a receive is one epoll_pwait2 plus one recv; for io_uring each
 * operation is one io_uring_enter that submits and waits.
 */
#include "engines.h"
#include "transport/lib_internal.h"

#define FLOW 0

static struct ipc_fset *set_of(const struct ipc_io *io)
{
	return io->priv;
}

int eng_fs1_attach(struct ipc_io *io)
{
	const struct ipc_engine_ops *e = io->eng;
	struct ipc_fset *fs;
	int err;

	io->priv = NULL;
	err = e->fs_new(&fs, 1, io->cancel);
	if (err)
		return err;
	err = e->fs_add(fs, FLOW, io->ep);
	if (err) {
		e->fs_free(fs);
		return err;
	}
	io->priv = fs;
	return 0;
}

/*
 * Wait for the completion of the one operation @op in flight.  On a
 * timeout or a stop, cancel it: a cancelled receive must not write into
 * the caller's buffer later.  Returns its result, -ETIMEDOUT or
 * -ECANCELED.
 */
static ssize_t complete(struct ipc_io *io, enum ipc_fop op, int64_t timeout_ns)
{
	const struct ipc_engine_ops *e = io->eng;
	struct ipc_fset *fs = set_of(io);
	struct ipc_fdone d;
	ssize_t r;
	int n;

	n = e->fs_wait(fs, &d, 1, timeout_ns);
	if (n == 1)
		return d.res;
	r = e->fs_cancel(fs, FLOW, op);
	if (r != -ECANCELED)
		return r; /* it completed while we gave up on it */
	if (n == 0)
		return -ETIMEDOUT;
	return n < 0 ? n : -EIO;
}

ssize_t eng_fs1_send(struct ipc_io *io, const void *buf, size_t len)
{
	int err = io->eng->fs_send(set_of(io), FLOW, buf, len);

	return err ? err : complete(io, IPC_FOP_SEND, -1);
}

ssize_t eng_fs1_recv(struct ipc_io *io, void *buf, size_t len)
{
	int err = io->eng->fs_recv(set_of(io), FLOW, buf, len);

	if (err)
		return err;
	return complete(io, IPC_FOP_RECV,
			io->timeout_ns ? (int64_t)io->timeout_ns : -1);
}

void eng_fs1_detach(struct ipc_io *io)
{
	struct ipc_ep *ep = io->ep;

	io->eng->fs_free(set_of(io));
	io->priv = NULL;
	/* Hand the descriptors back the way the transport gave them. */
	if (ep && ep->rfd >= 0)
		ipc_fd_set_nonblock(ep->rfd, false);
	if (ep && ep->wfd >= 0 && ep->wfd != ep->rfd)
		ipc_fd_set_nonblock(ep->wfd, false);
}

int eng_fs1_reattach(struct ipc_io *io, struct ipc_ep *ep)
{
	const struct ipc_engine_ops *e = io->eng;
	int err = 0;

	if (io->ep)
		err = e->fs_del(set_of(io), FLOW);
	if (!err)
		io->ep = NULL;
	if (!err && ep)
		err = e->fs_add(set_of(io), FLOW, ep);
	if (!err)
		io->ep = ep;
	return err;
}

/* SPDX-License-Identifier: MIT */
/*
 * Attaching and detaching for the engines that drive non-blocking
 * descriptors themselves (poll, busy): the descriptors change mode, nothing
 * else is kept.
 */
#include "engines.h"
#include "transport/lib_internal.h"

int eng_nb_attach(struct ipc_io *io)
{
	struct ipc_ep *ep = io->ep;
	int err;

	err = ipc_fd_set_nonblock(ep->rfd, true);
	if (!err && ep->wfd != ep->rfd)
		err = ipc_fd_set_nonblock(ep->wfd, true);
	return err;
}

void eng_nb_detach(struct ipc_io *io)
{
	struct ipc_ep *ep = io->ep;

	if (!ep)
		return;
	if (ep->rfd >= 0)
		ipc_fd_set_nonblock(ep->rfd, false);
	if (ep->wfd >= 0 && ep->wfd != ep->rfd)
		ipc_fd_set_nonblock(ep->wfd, false);
}

/* A new connection: only its descriptors need to become non-blocking. */
int eng_nb_reattach(struct ipc_io *io, struct ipc_ep *ep)
{
	struct ipc_ep *old = io->ep;
	int err;

	io->ep = ep;
	if (!ep)
		return 0;
	err = eng_nb_attach(io);
	if (err)
		io->ep = old;
	return err;
}

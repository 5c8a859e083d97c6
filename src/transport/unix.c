/* SPDX-License-Identifier: MIT */
/*
 * AF_UNIX stream sockets through the file system: a listening socket in the
 * channel's directory, accept on the server side and connect on the client
 * side, so that new connections can be made during a run.
 */
#include <sys/socket.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

static int unix_setup(struct ipc_chan *ch)
{
	return tp_unix_listen(ch, SOCK_STREAM);
}

static int unix_tune(int fd, const struct ipc_tp_opts *opts)
{
	return ipc_sock_apply_opts(fd, opts, false, false);
}

static int unix_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep)
{
	return tp_conn_open(ch, side, ep, SOCK_STREAM, unix_tune, false);
}

const struct ipc_transport_ops ipc_tp_unix = {
	.name = "unix",
	.help = "AF_UNIX stream socket, listen/connect on a file",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_RW | IPC_TP_CONNECT |
		IPC_TP_PEER_END,
	.max_msg = tp_stream_max_msg,
	.setup = unix_setup,
	.open = unix_open,
	.send = tp_sock_send,
	.recv = tp_sock_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

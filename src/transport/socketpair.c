/* SPDX-License-Identifier: MIT */
/*
 * A connected pair of AF_UNIX stream sockets from socketpair(2): no file
 * name, no listen or accept, full duplex on one descriptor per side.
 */
#include <errno.h>
#include <sys/socket.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

static int socketpair_setup(struct ipc_chan *ch)
{
	int sv[2];
	int rc = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = -errno;
		goto out;
	}
	/* Slot i belongs to side i, as tp_open_slot expects. */
	ch->fd[IPC_CLIENT] = sv[0];
	ch->fd_side[IPC_CLIENT] = IPC_CLIENT;
	ch->fd[IPC_SERVER] = sv[1];
	ch->fd_side[IPC_SERVER] = IPC_SERVER;
	rc = ipc_sock_apply_opts(sv[0], &ch->opts, false, false);
	if (rc < 0)
		goto err;
	rc = ipc_sock_apply_opts(sv[1], &ch->opts, false, false);
	if (rc < 0)
		goto err;
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

const struct ipc_transport_ops ipc_tp_socketpair = {
	.name = "socketpair",
	.help = "AF_UNIX stream socketpair(2), no file name",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_RW | IPC_TP_PEER_END,
	.max_msg = tp_stream_max_msg,
	.setup = socketpair_setup,
	.open = tp_open_slot,
	.send = tp_sock_send,
	.recv = tp_sock_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

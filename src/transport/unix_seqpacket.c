/* SPDX-License-Identifier: MIT */
/*
 * AF_UNIX sequenced-packet sockets: connection-oriented like the stream
 * kind (listen, accept, connect on a file), but each send arrives as one
 * message, as on a datagram socket.
 */
#include <errno.h>
#include <sys/socket.h>

#include "transport/transports.h"

/*
 * The sockets that carry messages only exist after open; refuse here a
 * size that open could not make fit.
 */
static int seqpacket_setup(struct ipc_chan *ch)
{
	if (ch->opts.max_msg > tp_unix_msg_max(&ch->opts))
		return -EMSGSIZE;
	return tp_unix_listen(ch, SOCK_SEQPACKET);
}

/*
 * Each connected socket gets its own send buffer sized for opts.max_msg:
 * the accepted one does not inherit the listener's.
 */
static int seqpacket_open(struct ipc_chan *ch, enum ipc_side side,
			  struct ipc_ep *ep)
{
	return tp_conn_open(ch, side, ep, SOCK_SEQPACKET, tp_unix_msg_fit,
			    false);
}

/*
 * No IPC_TP_EMPTY_MSG: a 0-byte message arrives as a 0-byte recv, which
 * cannot be told apart from the end of the connection.
 */
const struct ipc_transport_ops ipc_tp_unix_seqpacket = {
	.name = "unix-seqpacket",
	.help = "AF_UNIX SOCK_SEQPACKET, listen/connect, message boundaries",
	.caps = IPC_TP_MSG | IPC_TP_FD | IPC_TP_RW | IPC_TP_CONNECT |
		IPC_TP_PEER_END,
	.max_msg = tp_unix_msg_max,
	.setup = seqpacket_setup,
	.open = seqpacket_open,
	.send = tp_sock_send,
	.recv = tp_msg_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

/* SPDX-License-Identifier: MIT */
/*
 * TCP over the IPv4 loopback: listen on 127.0.0.1 with an ephemeral port,
 * accept on the server side, connect on the client side.
 */
#include <sys/socket.h>

#include "transport/transports.h"

static int tcp_setup(struct ipc_chan *ch)
{
	return tp_tcp_setup(ch, AF_INET);
}

/* With a target: can it be resolved to an address of this family? */
static int tcp_check(const struct ipc_tp_opts *opts, char *why, size_t why_len)
{
	return tp_target_check(opts, AF_INET, SOCK_STREAM, why, why_len);
}

const struct ipc_transport_ops ipc_tp_tcp = {
	.name = "tcp",
	.help = "TCP over the IPv4 loopback (127.0.0.1)",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_RW | IPC_TP_CONNECT |
		IPC_TP_NET | IPC_TP_TARGET | IPC_TP_PEER_END,
	.check = tcp_check,
	.max_msg = tp_stream_max_msg,
	.setup = tcp_setup,
	.open = tp_tcp_open,
	.send = tp_sock_send,
	.recv = tp_sock_recv,
	.close = tp_ep_close,
	.teardown = tp_tcp_teardown,
};

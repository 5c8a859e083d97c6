/* SPDX-License-Identifier: MIT */
/*
 * UDP over the IPv4 loopback: two sockets on 127.0.0.1, each connected to
 * the other.  Datagrams may be dropped, so a receive timeout from the
 * options turns a lost one into -EAGAIN instead of a hang.
 */
#include <errno.h>
#include <sys/socket.h>

#include "transport/transports.h"

/* 65535 (IPv4 total length) - 20 (IPv4 header) - 8 (UDP header). */
#define UDP_MSG_MAX 65507

static size_t udp_max_msg(const struct ipc_tp_opts *opts)
{
	(void)opts;
	return UDP_MSG_MAX;
}

/* Refuse here a size that every send would refuse with EMSGSIZE. */
static int udp_setup(struct ipc_chan *ch)
{
	if (ch->opts.max_msg > UDP_MSG_MAX)
		return -EMSGSIZE;
	return tp_udp_setup(ch, AF_INET);
}

/* With a target: can it be resolved to an address of this family? */
static int udp_check(const struct ipc_tp_opts *opts, char *why, size_t why_len)
{
	return tp_target_check(opts, AF_INET, SOCK_DGRAM, why, why_len);
}

const struct ipc_transport_ops ipc_tp_udp = {
	.name = "udp",
	.help = "UDP over the IPv4 loopback (127.0.0.1), connected sockets",
	.caps = IPC_TP_MSG | IPC_TP_EMPTY_MSG | IPC_TP_LOSSY | IPC_TP_FD |
		IPC_TP_NET | IPC_TP_RW | IPC_TP_TARGET,
	.check = udp_check,
	.max_msg = udp_max_msg,
	.setup = udp_setup,
	.open = tp_open_slot,
	.send = tp_sock_send,
	.recv = tp_msg_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

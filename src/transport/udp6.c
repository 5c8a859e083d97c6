/* SPDX-License-Identifier: MIT */
/*
 * UDP over the IPv6 loopback: two sockets on ::1, each connected to the
 * other, with the receive timeout of the options.  Absent where IPv6 is
 * disabled.
 */
#include <errno.h>
#include <sys/socket.h>

#include "transport/transports.h"

/*
 * 65535 (IPv6 payload length, which excludes the 40-byte IPv6 header)
 * - 8 (UDP header).
 */
#define UDP6_MSG_MAX 65527

static int udp6_probe(char *why, size_t why_len)
{
	return tp_inet6_probe(SOCK_DGRAM, why, why_len);
}

static size_t udp6_max_msg(const struct ipc_tp_opts *opts)
{
	(void)opts;
	return UDP6_MSG_MAX;
}

/* Refuse here a size that every send would refuse with EMSGSIZE. */
static int udp6_setup(struct ipc_chan *ch)
{
	if (ch->opts.max_msg > UDP6_MSG_MAX)
		return -EMSGSIZE;
	return tp_udp_setup(ch, AF_INET6);
}

/* With a target: can it be resolved to an address of this family? */
static int udp6_check(const struct ipc_tp_opts *opts, char *why, size_t why_len)
{
	return tp_target_check(opts, AF_INET6, SOCK_DGRAM, why, why_len);
}

const struct ipc_transport_ops ipc_tp_udp6 = {
	.name = "udp6",
	.help = "UDP over the IPv6 loopback (::1), connected sockets",
	.caps = IPC_TP_MSG | IPC_TP_EMPTY_MSG | IPC_TP_LOSSY | IPC_TP_FD |
		IPC_TP_NET | IPC_TP_RW | IPC_TP_TARGET,
	.probe = udp6_probe,
	.check = udp6_check,
	.max_msg = udp6_max_msg,
	.setup = udp6_setup,
	.open = tp_open_slot,
	.send = tp_sock_send,
	.recv = tp_msg_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

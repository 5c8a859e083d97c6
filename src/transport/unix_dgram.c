/* SPDX-License-Identifier: MIT */
/*
 * AF_UNIX datagram sockets: one bound file per side in the channel's
 * directory, each socket connected to the other.  Unlike UDP, a full
 * receive queue blocks the sender instead of dropping the message.
 */
#include <errno.h>
#include <sys/socket.h>

#include "transport/transports.h"

static int connect_to(int fd, const char *path)
{
	struct sockaddr_un sun;
	socklen_t len = tp_unix_addr(&sun, path);

	if (connect(fd, (struct sockaddr *)&sun, len) < 0)
		return -errno;
	return 0;
}

/* Slot and path i belong to side i: path[IPC_SERVER] is the server's. */
static int dgram_setup(struct ipc_chan *ch)
{
	static const char *const tags[] = {"cli", "srv"};
	int i, j, fd, rc;

	rc = tp_paths_name(ch, tags, 2);
	if (rc < 0)
		goto out;
	for (i = 0; i < 2; i++) {
		fd = tp_unix_bound(SOCK_DGRAM, ch->path[i]);
		if (fd < 0) {
			/* Only the files bound so far exist. */
			for (j = i; j < 2; j++)
				ch->path[j][0] = '\0';
			rc = fd;
			goto err;
		}
		ch->fd[i] = fd;
		ch->fd_side[i] = i;
		rc = tp_unix_msg_fit(fd, &ch->opts);
		if (rc < 0)
			goto err;
	}
	rc = connect_to(ch->fd[IPC_CLIENT], ch->path[IPC_SERVER]);
	if (rc < 0)
		goto err;
	rc = connect_to(ch->fd[IPC_SERVER], ch->path[IPC_CLIENT]);
	if (rc < 0)
		goto err;
	ch->addr_len = tp_unix_addr((struct sockaddr_un *)&ch->addr,
				    ch->path[IPC_SERVER]);
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

const struct ipc_transport_ops ipc_tp_unix_dgram = {
	.name = "unix-dgram",
	.help = "AF_UNIX datagram sockets bound to files, connected pairwise",
	.caps = IPC_TP_MSG | IPC_TP_EMPTY_MSG | IPC_TP_FD | IPC_TP_RW,
	.max_msg = tp_unix_msg_max,
	.setup = dgram_setup,
	.open = tp_open_slot,
	.send = tp_sock_send,
	.recv = tp_msg_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

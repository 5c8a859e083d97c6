/* SPDX-License-Identifier: MIT */
/*
 * Named pipes (FIFOs): two files in the channel's directory, one per
 * direction, opened by name by each side.  Unlike a pipe, the peer needs no
 * inherited descriptor, only the names.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/transports.h"

/* ch->path[C2S] carries client to server, ch->path[S2C] the answers. */
enum { C2S, S2C };

static int fifo_setup(struct ipc_chan *ch)
{
	static const char *const tags[] = {"c2s", "s2c"};
	int rc;

	rc = tp_paths_name(ch, tags, 2);
	if (rc < 0)
		goto out;
	if (mkfifo(ch->path[C2S], 0600) < 0) {
		rc = -errno;
		goto err_names;
	}
	if (mkfifo(ch->path[S2C], 0600) < 0) {
		rc = -errno;
		goto err_c2s;
	}
	goto out;
err_c2s:
	unlink(ch->path[C2S]);
err_names:
	ch->path[C2S][0] = '\0';
	ch->path[S2C][0] = '\0';
out:
	return rc;
}

/*
 * Opening a FIFO blocks until its other end is opened too.  Both sides open
 * c2s first, so the server's open of c2s returns when the client's does and
 * both then meet on s2c: no order of arrival can deadlock.
 */
static int fifo_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep)
{
	bool client = side == IPC_CLIENT;
	int first, rc = 0;

	if (!ch->path[C2S][0] || !ch->path[S2C][0]) {
		rc = -ENOENT;
		goto out;
	}
	first = open(ch->path[C2S], (client ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (first < 0) {
		rc = -errno;
		goto out;
	}
	rc = open(ch->path[S2C], (client ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
	if (rc < 0) {
		rc = -errno;
		goto err_first;
	}
	tp_ep_init(ep, ch, client ? rc : first, client ? first : rc, NULL);
	rc = 0;
	goto out;
err_first:
	close(first);
out:
	return rc;
}

const struct ipc_transport_ops ipc_tp_fifo = {
	.name = "fifo",
	.help = "two named pipes (FIFOs), one per direction",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_RW | IPC_TP_PEER_END |
		IPC_TP_PIPE,
	.max_msg = tp_stream_max_msg,
	.setup = fifo_setup,
	.open = fifo_open,
	.send = tp_fd_send,
	.recv = tp_fd_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

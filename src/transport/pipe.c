/* SPDX-License-Identifier: MIT */
/*
 * Anonymous pipes: one for each direction, made before the peer starts so
 * that a forked peer inherits them.  The oldest and simplest local IPC, and
 * the baseline the others are compared with.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

/*
 * The four slots, by direction:
 *
 *   client --wfd--> [C2S_W ==pipe== C2S_R] --rfd--> server
 *   client <--rfd-- [S2C_R ==pipe== S2C_W] <--wfd-- server
 */
enum { C2S_R, C2S_W, S2C_R, S2C_W };

static int pipe_setup(struct ipc_chan *ch)
{
	int c2s[2], s2c[2];
	int rc = 0;

	if (pipe2(c2s, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out;
	}
	if (pipe2(s2c, O_CLOEXEC) < 0) {
		rc = -errno;
		goto err_c2s;
	}
	ch->fd[C2S_R] = c2s[0];
	ch->fd_side[C2S_R] = IPC_SERVER;
	ch->fd[C2S_W] = c2s[1];
	ch->fd_side[C2S_W] = IPC_CLIENT;
	ch->fd[S2C_R] = s2c[0];
	ch->fd_side[S2C_R] = IPC_CLIENT;
	ch->fd[S2C_W] = s2c[1];
	ch->fd_side[S2C_W] = IPC_SERVER;
	goto out;
err_c2s:
	close(c2s[0]);
	close(c2s[1]);
out:
	return rc;
}

static int pipe_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep)
{
	int r = side == IPC_CLIENT ? S2C_R : C2S_R;
	int w = side == IPC_CLIENT ? C2S_W : S2C_W;
	int rc = 0;

	/* Check both first so that a failure takes nothing. */
	if (ch->fd[r] < 0 || ch->fd[w] < 0) {
		rc = -EBADF;
		goto out;
	}
	tp_ep_init(ep, ch, ipc_chan_take(ch, r), ipc_chan_take(ch, w), NULL);
out:
	return rc;
}

const struct ipc_transport_ops ipc_tp_pipe = {
	.name = "pipe",
	.help = "two anonymous pipes, one per direction",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_RW | IPC_TP_PEER_END |
		IPC_TP_PIPE,
	.max_msg = tp_stream_max_msg,
	.setup = pipe_setup,
	.open = pipe_open,
	.send = tp_fd_send,
	.recv = tp_fd_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

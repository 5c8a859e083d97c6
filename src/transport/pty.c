/* SPDX-License-Identifier: MIT */
/*
 * Pseudo-terminals: the client writes and reads the slave side, the server
 * the master side, both in raw mode, so the bytes cross a real tty layer
 * (line discipline, flip buffers) the way a serial console's do.  Also the
 * tty helpers that the serial transport shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "transport/transports.h"

int tp_tty_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -errno;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1; /* a read returns as soon as one byte is there */
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		return -errno;
	return 0;
}

/*
 * A tty whose other side is gone answers EIO: on the master once the slave
 * is closed, on the slave (for writes) once the master is.  They mean end
 * of stream and a broken pipe.
 */
ssize_t tp_tty_send(struct ipc_ep *ep, const void *buf, size_t len)
{
	ssize_t n = write(ep->wfd, buf, len);

	if (n >= 0)
		return n;
	return errno == EIO ? -EPIPE : -errno;
}

ssize_t tp_tty_recv(struct ipc_ep *ep, void *buf, size_t len)
{
	ssize_t n = read(ep->rfd, buf, len);

	if (n >= 0)
		return n;
	return errno == EIO ? 0 : -errno;
}

static int pty_probe(char *why, size_t why_len)
{
	char err[128];
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		int rc = -errno;

		snprintf(why, why_len,
			 "posix_openpt fails: %s (is /dev/pts mounted?)",
			 strerror_r(-rc, err, sizeof(err)));
		return rc;
	}
	close(fd);
	return 0;
}

/*
 * Why the client gets the slave: when the master closes, the slave's
 * pending input is flushed (a hangup), but a slave that closes leaves its
 * output readable on the master.  The client closes first at the end of a
 * run, so nothing the server has not read yet is lost.  And the slave's
 * write fails (EIO) once the master is gone, where the master's write to a
 * closed slave still succeeds, so a client sees a dead server.
 */
static int pty_setup(struct ipc_chan *ch)
{
	char name[128];
	int m, s, rc = 0;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0) {
		rc = -errno;
		goto out;
	}
	ch->fd[IPC_SERVER] = m;
	ch->fd_side[IPC_SERVER] = IPC_SERVER;
	if (grantpt(m) < 0 || unlockpt(m) < 0) {
		rc = -errno;
		goto err;
	}
	rc = -ptsname_r(m, name, sizeof(name));
	if (rc < 0)
		goto err;
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0) {
		rc = -errno;
		goto err;
	}
	ch->fd[IPC_CLIENT] = s;
	ch->fd_side[IPC_CLIENT] = IPC_CLIENT;
	/* The slave's settings rule both directions; the master's too. */
	rc = tp_tty_raw(s);
	if (rc == 0)
		rc = tp_tty_raw(m);
	if (rc < 0)
		goto err;
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

const struct ipc_transport_ops ipc_tp_pty = {
	.name = "pty",
	.help = "a pseudo-terminal pair in raw mode (client: slave, server: "
		"master)",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_PEER_END,
	.probe = pty_probe,
	.max_msg = tp_stream_max_msg,
	.setup = pty_setup,
	.open = tp_open_slot,
	.send = tp_tty_send,
	.recv = tp_tty_recv,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

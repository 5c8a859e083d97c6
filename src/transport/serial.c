/* SPDX-License-Identifier: MIT */
/*
 * Serial ports: two tty devices joined by a null-modem cable, the client on
 * the first and the server on the second (--device CLIENT,SERVER).  ipcperf
 * sets raw mode, 8N1, no flow control and the line speed, holds both ports
 * exclusively while it runs and puts their settings back afterwards.  A
 * serial line has no end of stream: the peer is stopped by a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

#define BAUD_DEFAULT IPC_SERIAL_BAUD_DEFAULT

static const struct {
	unsigned baud;
	speed_t code;
} speeds[] = {
	{50, B50},	     {75, B75},		  {110, B110},
	{134, B134},	     {150, B150},	  {200, B200},
	{300, B300},	     {600, B600},	  {1200, B1200},
	{1800, B1800},	     {2400, B2400},	  {4800, B4800},
	{9600, B9600},	     {19200, B19200},	  {38400, B38400},
	{57600, B57600},     {115200, B115200},	  {230400, B230400},
	{460800, B460800},   {500000, B500000},	  {576000, B576000},
	{921600, B921600},   {1000000, B1000000}, {1152000, B1152000},
	{1500000, B1500000}, {2000000, B2000000}, {2500000, B2500000},
	{3000000, B3000000}, {3500000, B3500000}, {4000000, B4000000},
};

/*
 * One endpoint: what to put back on its port.  A serial line shows nothing
 * when the peer dies, so a read wakes up every VTIME to see whether the
 * side was asked to stop just before it blocked.
 */
struct serial_ep {
	struct termios saved;
};

/* What setup saved of each port, to put back when it is closed. */
struct serial_chan {
	struct termios saved[2]; /* by side */
	bool have[2];		 /* saved[i] was read */
};

static unsigned baud_of(const struct ipc_tp_opts *opts)
{
	return opts->baud ? opts->baud : BAUD_DEFAULT;
}

static int speed_code(unsigned baud, speed_t *code)
{
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (speeds[i].baud == baud) {
			*code = speeds[i].code;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Open @path, non-blocking so that no modem line holds the open up: a tty
 * that nobody holds exclusively or locked.  The descriptor, or -ENOENT, -ENOTTY (not a terminal), -EBUSY
 * (TIOCEXCL elsewhere makes open fail so; a flock(2) held by a terminal
 * program is reported the same), -EACCES, or another -errno.
 */
static int port_open(const char *path)
{
	int fd, rc;

	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!isatty(fd)) {
		rc = -ENOTTY;
		goto err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto err;
	}
	return fd;
err:
	close(fd);
	return rc;
}

/*
 * Raw mode, 8 data bits, no parity, 1 stop bit, no flow control, ignore
 * modem lines, at @code.  Blocking again, with stale bytes thrown away.
 */
static int port_setup(int fd, speed_t code, struct termios *saved, bool *have)
{
	struct termios t;

	if (ioctl(fd, TIOCEXCL) < 0 || tcgetattr(fd, saved) < 0)
		return -errno;
	*have = true;
	t = *saved;
	cfmakeraw(&t);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS | HUPCL);
	t.c_cflag |= CS8 | CLOCAL | CREAD;
	t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
	/* A read returns at the first byte, or after VTIME with none. */
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = TP_WAIT_SLICE_NS / 100000000L; /* tenths of a second */
	if (cfsetispeed(&t, code) < 0 || cfsetospeed(&t, code) < 0 ||
	    tcsetattr(fd, TCSANOW, &t) < 0)
		return -errno;
	/* tcsetattr succeeds if any change took: see that the speed did. */
	if (tcgetattr(fd, &t) < 0)
		return -errno;
	if (cfgetospeed(&t) != code)
		return -EINVAL;
	tcflush(fd, TCIOFLUSH);
	return ipc_fd_set_nonblock(fd, false);
}

/* Put a port back as it was and let others have it. */
static void port_close(int *fd, const struct termios *saved)
{
	if (*fd < 0)
		return;
	if (saved)
		tcsetattr(*fd, TCSANOW, saved);
	ioctl(*fd, TIOCNXCL);
	tp_close_fd(fd);
}

static int serial_check(const struct ipc_tp_opts *opts, char *why,
			size_t why_len)
{
	static const char *const side_name[] = {"client", "server"};
	const char *path;
	char err[128];
	speed_t code;
	int i, fd;

	if (speed_code(baud_of(opts), &code) < 0) {
		snprintf(why, why_len,
			 "%u baud is not a standard speed (9600, 19200, 38400, "
			 "57600, 115200, 230400, ... 4000000)",
			 baud_of(opts));
		return -EINVAL;
	}
	if (!opts->device[0] || !opts->device[1]) {
		snprintf(why, why_len,
			 "needs --device CLIENT,SERVER: two serial ports "
			 "joined by a null-modem cable");
		return -ENODEV;
	}
	if (!strcmp(opts->device[0], opts->device[1])) {
		snprintf(why, why_len,
			 "both sides name '%s': give two ports, one per side",
			 opts->device[0]);
		return -EINVAL;
	}
	for (i = 0; i < 2; i++) {
		path = opts->device[i];
		fd = port_open(path);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		switch (fd) {
		case -ENOENT:
			snprintf(why, why_len, "%s port '%s' does not exist",
				 side_name[i], path);
			break;
		case -ENOTTY:
			snprintf(why, why_len,
				 "%s port '%s' is not a terminal (not a serial "
				 "port)",
				 side_name[i], path);
			break;
		case -EBUSY:
			snprintf(why, why_len,
				 "%s port '%s' is busy: another program holds "
				 "it (exclusive or locked)",
				 side_name[i], path);
			break;
		default:
			snprintf(why, why_len, "%s port '%s': %s", side_name[i],
				 path, strerror_r(-fd, err, sizeof(err)));
		}
		return fd;
	}
	return 0;
}

static int serial_setup(struct ipc_chan *ch)
{
	struct serial_chan *sc;
	speed_t code;
	int i, fd, rc = 0;

	if (!ch->opts.device[0] || !ch->opts.device[1]) {
		rc = -ENODEV;
		goto out;
	}
	rc = speed_code(baud_of(&ch->opts), &code);
	if (rc < 0)
		goto out;
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		rc = -ENOMEM;
		goto out;
	}
	ch->priv = sc;
	for (i = 0; i < 2; i++) {
		fd = port_open(ch->opts.device[i]);
		if (fd < 0) {
			rc = fd;
			goto err;
		}
		/* Slot i belongs to side i, as tp_open_slot expects. */
		ch->fd[i] = fd;
		ch->fd_side[i] = i;
		rc = port_setup(fd, code, &sc->saved[i], &sc->have[i]);
		if (rc < 0)
			goto err;
	}
	goto out;
err:
	for (i = 0; i < 2; i++)
		port_close(&ch->fd[i], sc->have[i] ? &sc->saved[i] : NULL);
	tp_chan_release(ch);
out:
	return rc;
}

/* The side's port, and what to restore on it, move to the endpoint. */
static int serial_open(struct ipc_chan *ch, enum ipc_side side,
		       struct ipc_ep *ep)
{
	struct serial_chan *sc = ch->priv;
	struct serial_ep *se;
	int rc;

	if (!sc || ch->fd[side] < 0)
		return -EBADF;
	se = malloc(sizeof(*se));
	if (!se)
		return -ENOMEM;
	se->saved = sc->saved[side];
	rc = tp_open_slot(ch, side, ep);
	if (rc < 0) {
		free(se);
		return rc;
	}
	ep->priv = se;
	return 0;
}

/* A read that timed out (VTIME) is not end of stream: look and read again. */
static ssize_t serial_recv(struct ipc_ep *ep, void *buf, size_t len)
{
	struct serial_ep *se = ep->priv;
	ssize_t n;
	int rc;

	if (!se)
		return -EBADF;
	for (;;) {
		rc = tp_stopped(ep);
		if (rc)
			return rc;
		n = read(ep->rfd, buf, len);
		if (n > 0)
			return n;
		if (n < 0)
			return errno == EIO ? 0 : -errno;
	}
}

static void serial_close(struct ipc_ep *ep)
{
	struct serial_ep *se = ep->priv;

	port_close(&ep->rfd, se ? &se->saved : NULL);
	ep->wfd = -1;
	free(ep->priv);
	ep->priv = NULL;
}

static void serial_teardown(struct ipc_chan *ch)
{
	struct serial_chan *sc = ch->priv;
	int i;

	for (i = 0; i < 2; i++)
		port_close(&ch->fd[i],
			   sc && sc->have[i] ? &sc->saved[i] : NULL);
	tp_chan_release(ch);
}

const struct ipc_transport_ops ipc_tp_serial = {
	.name = "serial",
	.help = "two serial ports joined by a null-modem cable: --device "
		"CLIENT,SERVER --baud N",
	.caps = IPC_TP_STREAM | IPC_TP_FD | IPC_TP_ONE_CHAN,
	.check = serial_check,
	.max_msg = tp_stream_max_msg,
	.setup = serial_setup,
	.open = serial_open,
	.send = tp_tty_send,
	.recv = serial_recv,
	.close = serial_close,
	.teardown = serial_teardown,
};

/* SPDX-License-Identifier: MIT */
/*
 * What every transport shares: the channel slot helpers of the public API,
 * send and receive wrappers for descriptors, stream and message sockets, and
 * the naming and sizing of AF_UNIX files and datagrams.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

/*
 * Linux refuses a unix datagram longer than the sender's sk_sndbuf minus 32
 * bytes (EMSGSIZE) and stores SO_SNDBUF values doubled, so a message of N
 * bytes needs SO_SNDBUF >= (N + 32) / 2.
 */
#define UNIX_MSG_OVERHEAD 32

/*
 * Beyond the send buffer, the kernel puts all but 17 pages (68 KiB) of a
 * unix datagram in one contiguous buffer, and kmalloc stops at 4 MiB (order
 * 10 with 4 KiB pages): on 6.x x86-64, 4263616 bytes go, one more fails
 * with ENOBUFS however large the send buffer.  4 MiB keeps a margin below
 * that and an answer that does not depend on memory fragmentation.
 */
#define UNIX_MSG_CAP (4u << 20)

void ipc_chan_init(struct ipc_chan *ch, const struct ipc_transport_ops *ops,
		   const struct ipc_tp_opts *opts)
{
	int i;

	memset(ch, 0, sizeof(*ch));
	ch->ops = ops;
	if (opts)
		ch->opts = *opts;
	for (i = 0; i < IPC_CHAN_FDS; i++) {
		ch->fd[i] = -1;
		ch->fd_side[i] = -1;
	}
}

void ipc_chan_drop_other(struct ipc_chan *ch, enum ipc_side side)
{
	int other = side == IPC_CLIENT ? IPC_SERVER : IPC_CLIENT;
	int i;

	for (i = 0; i < IPC_CHAN_FDS; i++)
		if (ch->fd_side[i] == other)
			tp_close_fd(&ch->fd[i]);
}

int ipc_chan_take(struct ipc_chan *ch, int i)
{
	int fd;

	if (i < 0 || i >= IPC_CHAN_FDS || ch->fd[i] < 0)
		return -EBADF;
	fd = ch->fd[i];
	ch->fd[i] = -1;
	return fd;
}

void ipc_chan_close_slots(struct ipc_chan *ch)
{
	int i;

	for (i = 0; i < IPC_CHAN_FDS; i++)
		tp_close_fd(&ch->fd[i]);
}

int ipc_fd_set_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -errno;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	if (fcntl(fd, F_SETFL, flags) < 0)
		return -errno;
	return 0;
}

static int set_int(int fd, int level, int name, int val)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)) < 0)
		return -errno;
	return 0;
}

int ipc_sock_apply_opts(int fd, const struct ipc_tp_opts *opts, bool is_tcp,
			bool lossy)
{
	struct timeval tv;
	int rc = 0;

	if (opts->sndbuf > 0) {
		rc = set_int(fd, SOL_SOCKET, SO_SNDBUF, opts->sndbuf);
		if (rc < 0)
			goto out;
	}
	if (opts->rcvbuf > 0) {
		rc = set_int(fd, SOL_SOCKET, SO_RCVBUF, opts->rcvbuf);
		if (rc < 0)
			goto out;
	}
	if (opts->busy_poll_us > 0) {
		/* Raising it above net.core.busy_read needs CAP_NET_ADMIN. */
		rc = set_int(fd, SOL_SOCKET, SO_BUSY_POLL, opts->busy_poll_us);
		if (rc < 0)
			goto out;
	}
	if (is_tcp && opts->nodelay) {
		rc = set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
		if (rc < 0)
			goto out;
	}
	if (lossy && opts->timeout_ns) {
		tv.tv_sec = opts->timeout_ns / 1000000000u;
		tv.tv_usec = opts->timeout_ns % 1000000000u / 1000u;
		/* A zero timeval means "wait forever": 999 ns is not that. */
		if (!tv.tv_sec && !tv.tv_usec)
			tv.tv_usec = 1;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) <
		    0)
			rc = -errno;
	}
out:
	return rc;
}

static int get_int(int fd, int level, int name, int *val)
{
	socklen_t len = sizeof(*val);

	return getsockopt(fd, level, name, val, &len) < 0 ? -errno : 0;
}

int ipc_ep_sock_info(const struct ipc_ep *ep, struct ipc_sock_info *info)
{
	int fd = ep->wfd, type, rc;

	memset(info, 0, sizeof(*info));
	info->nodelay = -1;
	if (fd < 0 || get_int(fd, SOL_SOCKET, SO_TYPE, &type) < 0)
		return -ENOTSOCK;
	rc = get_int(fd, SOL_SOCKET, SO_SNDBUF, &info->sndbuf);
	if (!rc)
		rc = get_int(fd, SOL_SOCKET, SO_RCVBUF, &info->rcvbuf);
	if (!rc)
		rc = get_int(fd, SOL_SOCKET, SO_BUSY_POLL, &info->busy_poll_us);
	if (rc)
		return rc;
	/* TCP_NODELAY is refused by every socket but TCP's. */
	if (type == SOCK_STREAM &&
	    get_int(fd, IPPROTO_TCP, TCP_NODELAY, &info->nodelay) < 0)
		info->nodelay = -1;
	info->nodelay = info->nodelay > 0 ? 1 : info->nodelay;
	info->valid = true;
	return 0;
}

void tp_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void tp_ep_close(struct ipc_ep *ep)
{
	if (ep->wfd == ep->rfd)
		ep->wfd = -1;
	tp_close_fd(&ep->rfd);
	tp_close_fd(&ep->wfd);
	free(ep->priv);
	ep->priv = NULL;
}

void tp_chan_release(struct ipc_chan *ch)
{
	ipc_chan_close_slots(ch);
	tp_paths_unlink(ch);
	free(ch->priv);
	ch->priv = NULL;
}

size_t tp_stream_max_msg(const struct ipc_tp_opts *opts)
{
	(void)opts;
	return SIZE_MAX;
}

void tp_ep_init(struct ipc_ep *ep, const struct ipc_chan *ch, int rfd, int wfd,
		void *priv)
{
	ep->ops = ch->ops;
	ep->rfd = rfd;
	ep->wfd = wfd;
	ep->priv = priv;
}

int tp_open_slot(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep)
{
	int fd = ipc_chan_take(ch, side);

	if (fd < 0)
		return fd;
	tp_ep_init(ep, ch, fd, fd, NULL);
	return 0;
}

/*
 * The system calls themselves, not glibc's wrappers: read, write, send
 * and recv are thread cancellation points, and in a process with more
 * than one thread (ipcperf's client has one watching its peer wherever
 * the channel cannot show the peer's death: udp, shm, mq, ...) glibc
 * brackets each call with two atomic updates of the thread's cancel state.
 * ipcperf never cancels a thread, so that is pure cost in the measured
 * loop, which a single-threaded program (the bare loop in bench/) does
 * not pay: on one CPU it was about 1% of a udp round trip's CPU samples.
 */
static inline ssize_t sys_read(int fd, void *buf, size_t len)
{
	return syscall(SYS_read, fd, buf, len);
}

static inline ssize_t sys_write(int fd, const void *buf, size_t len)
{
	return syscall(SYS_write, fd, buf, len);
}

static inline ssize_t sys_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static inline ssize_t sys_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

ssize_t tp_fd_send(struct ipc_ep *ep, const void *buf, size_t len)
{
	ssize_t n = sys_write(ep->wfd, buf, len);

	return n < 0 ? -errno : n;
}

ssize_t tp_fd_recv(struct ipc_ep *ep, void *buf, size_t len)
{
	ssize_t n = sys_read(ep->rfd, buf, len);

	return n < 0 ? -errno : n;
}

ssize_t tp_sock_send(struct ipc_ep *ep, const void *buf, size_t len)
{
	ssize_t n = sys_send(ep->wfd, buf, len, MSG_NOSIGNAL);

	return n < 0 ? -errno : n;
}

ssize_t tp_sock_recv(struct ipc_ep *ep, void *buf, size_t len)
{
	ssize_t n = sys_recv(ep->rfd, buf, len, 0);

	return n < 0 ? -errno : n;
}

ssize_t tp_msg_recv(struct ipc_ep *ep, void *buf, size_t len)
{
	/* With MSG_TRUNC, recv returns the full length of the message. */
	ssize_t n = sys_recv(ep->rfd, buf, len, MSG_TRUNC);

	if (n < 0)
		return -errno;
	if ((size_t)n > len)
		return -EMSGSIZE;
	return n;
}

int tp_paths_name(struct ipc_chan *ch, const char *const *tags, int n)
{
	const char *name = ch->opts.name ? ch->opts.name : "0";
	size_t size = sizeof(ch->path[0]);
	int i, len, rc = 0;

	if (!ch->opts.dir || !ch->opts.dir[0] || n < 1 || n > 2) {
		rc = -EINVAL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		len = snprintf(ch->path[i], size, "%s/ipcperf.%d.%s.%s",
			       ch->opts.dir, (int)getpid(), name, tags[i]);
		if (len < 0 || (size_t)len >= size) {
			rc = -ENAMETOOLONG;
			goto out;
		}
	}
out:
	if (rc < 0)
		memset(ch->path, 0, sizeof(ch->path));
	return rc;
}

void tp_paths_unlink(struct ipc_chan *ch)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (ch->path[i][0])
			unlink(ch->path[i]);
		ch->path[i][0] = '\0';
	}
}

socklen_t tp_unix_addr(struct sockaddr_un *sun, const char *path)
{
	/* tp_paths_name already checked that the path fits. */
	size_t len = strnlen(path, sizeof(sun->sun_path) - 1);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, len);
	return (socklen_t)sizeof(*sun);
}

int tp_socket_bound(int family, int type, const struct sockaddr *addr,
		    socklen_t len)
{
	int fd, rc;

	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, addr, len) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int tp_unix_bound(int type, const char *path)
{
	struct sockaddr_un sun;
	socklen_t len = tp_unix_addr(&sun, path);

	return tp_socket_bound(AF_UNIX, type, (struct sockaddr *)&sun, len);
}

/*
 * Raise the send buffer of @fd to at least @bytes: SO_SNDBUFFORCE where we
 * may (CAP_NET_ADMIN: beyond net.core.wmem_max), else SO_SNDBUF, which the
 * kernel caps at wmem_max.  Never lowers it.  Returns the buffer size the
 * kernel reports afterwards, or -errno.
 */
static int raise_sndbuf(int fd, size_t bytes)
{
	socklen_t len = sizeof(int);
	int cur, rc, half;

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &len) < 0) {
		rc = -errno;
		goto out;
	}
	rc = cur;
	if (cur >= 0 && (size_t)cur >= bytes)
		goto out;
	/* The kernel doubles what we ask for: ask for half, rounded up. */
	half = (int)(bytes / 2 + bytes % 2);
	if (set_int(fd, SOL_SOCKET, SO_SNDBUFFORCE, half) < 0) {
		rc = set_int(fd, SOL_SOCKET, SO_SNDBUF, half);
		if (rc < 0)
			goto out;
	}
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &len) < 0) {
		rc = -errno;
		goto out;
	}
	rc = cur;
out:
	return rc;
}

size_t tp_unix_msg_max(const struct ipc_tp_opts *opts)
{
	size_t max = 0;
	int fd, buf;

	(void)opts;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto out;
	/* Ask for what the cap needs and see what this process gets. */
	buf = raise_sndbuf(fd, (size_t)UNIX_MSG_CAP + UNIX_MSG_OVERHEAD);
	if (buf > UNIX_MSG_OVERHEAD)
		max = (size_t)buf - UNIX_MSG_OVERHEAD;
	if (max > UNIX_MSG_CAP)
		max = UNIX_MSG_CAP;
	close(fd);
out:
	return max;
}

int tp_unix_msg_fit(int fd, const struct ipc_tp_opts *opts)
{
	size_t need = opts->max_msg + UNIX_MSG_OVERHEAD;
	int rc;

	if (opts->max_msg > UNIX_MSG_CAP) {
		rc = -EMSGSIZE;
		goto out;
	}
	rc = ipc_sock_apply_opts(fd, opts, false, false);
	if (rc < 0)
		goto out;
	rc = raise_sndbuf(fd, need);
	if (rc < 0)
		goto out;
	rc = (size_t)rc >= need ? 0 : -EMSGSIZE;
out:
	return rc;
}

int tp_unix_listen(struct ipc_chan *ch, int type)
{
	static const char *const tags[] = {"sock"};
	struct sockaddr_un *sun = (struct sockaddr_un *)&ch->addr;
	int fd, rc;

	rc = tp_paths_name(ch, tags, 1);
	if (rc < 0)
		goto out;
	fd = tp_unix_bound(type, ch->path[0]);
	if (fd < 0) {
		rc = fd;
		goto err_name;
	}
	ch->fd[0] = fd;
	ch->fd_side[0] = -1;
	if (listen(fd, TP_BACKLOG) < 0) {
		rc = -errno;
		goto err_release;
	}
	ch->addr_len = tp_unix_addr(sun, ch->path[0]);
	goto out;
err_release:
	tp_chan_release(ch);
	goto out;
err_name:
	ch->path[0][0] = '\0';
out:
	return rc;
}

/* The client's preamble, all of it (a few bytes: one send). */
static int preamble_send(int fd, const struct ipc_tp_opts *o)
{
	size_t off = 0;
	ssize_t n;

	while (off < o->preamble_len) {
		n = send(fd, o->preamble + off, o->preamble_len - off,
			 MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

int tp_conn_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep,
		 int type, int (*tune)(int fd, const struct ipc_tp_opts *opts),
		 bool tune_first)
{
	int fd, rc = 0;

	if (side == IPC_SERVER) {
		if (ch->fd[0] < 0) {
			rc = -EBADF;
			goto out;
		}
		fd = ch->opts.preamble_len
			     ? tp_gate_accept(ch)
			     : accept4(ch->fd[0], NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			rc = ch->opts.preamble_len ? fd : -errno;
			goto out;
		}
	} else {
		fd = socket(ch->addr.ss_family, type | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			goto out;
		}
		if (tune && tune_first) {
			rc = tune(fd, &ch->opts);
			if (rc < 0)
				goto err_close;
		}
		if (connect(fd, (struct sockaddr *)&ch->addr, ch->addr_len) <
		    0) {
			rc = -errno;
			goto err_close;
		}
		rc = preamble_send(fd, &ch->opts);
		if (rc < 0)
			goto err_close;
	}
	if (tune) {
		rc = tune(fd, &ch->opts);
		if (rc < 0)
			goto err_close;
	}
	tp_ep_init(ep, ch, fd, fd, NULL);
	goto out;
err_close:
	close(fd);
out:
	return rc;
}

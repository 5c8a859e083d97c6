/* SPDX-License-Identifier: MIT */
/*
 * Private to the transport layer: the ops table of every implementation, for
 * the registry, and the helpers they share (descriptor and socket wrappers,
 * file naming, message sizing).  Nothing here is part of the public API.
 */
#ifndef IPCPERF_TRANSPORTS_H
#define IPCPERF_TRANSPORTS_H

#include <errno.h>
#include <sys/un.h>

#include "ipcperf/transport.h"

extern const struct ipc_transport_ops ipc_tp_pipe;
extern const struct ipc_transport_ops ipc_tp_fifo;
extern const struct ipc_transport_ops ipc_tp_socketpair;
extern const struct ipc_transport_ops ipc_tp_unix;
extern const struct ipc_transport_ops ipc_tp_unix_dgram;
extern const struct ipc_transport_ops ipc_tp_unix_seqpacket;
extern const struct ipc_transport_ops ipc_tp_tcp;
extern const struct ipc_transport_ops ipc_tp_tcp6;
extern const struct ipc_transport_ops ipc_tp_udp;
extern const struct ipc_transport_ops ipc_tp_udp6;
extern const struct ipc_transport_ops ipc_tp_shm;
extern const struct ipc_transport_ops ipc_tp_mq;
extern const struct ipc_transport_ops ipc_tp_pty;
extern const struct ipc_transport_ops ipc_tp_serial;

/*
 * Listen backlog of connection-oriented transports.  A connect/close
 * pattern keeps opening connections while the server accepts them one at a
 * time, and load opens thousands at once: when the accept queue is full
 * the kernel drops the SYN and the client retries after a second.  4096
 * is Linux's somaxconn since 5.4 (the kernel caps it there) and costs
 * nothing until used.
 */
#define TP_BACKLOG 4096

/* Close *@fd if it is open and set it to -1. */
void tp_close_fd(int *fd);

/* Fill @ep as an endpoint of @ch reading @rfd, writing @wfd, with @priv. */
void tp_ep_init(struct ipc_ep *ep, const struct ipc_chan *ch, int rfd, int wfd,
		void *priv);

/* The close() of every transport: rfd, wfd (once if equal), then priv. */
void tp_ep_close(struct ipc_ep *ep);

/* Release what setup made: every fd slot still held, then the files. */
void tp_chan_release(struct ipc_chan *ch);

/* max_msg() of byte streams: SIZE_MAX, there are no boundaries to keep. */
size_t tp_stream_max_msg(const struct ipc_tp_opts *opts);

/* read()/write() on pipes and FIFOs: a count or -errno. */
ssize_t tp_fd_send(struct ipc_ep *ep, const void *buf, size_t len);
ssize_t tp_fd_recv(struct ipc_ep *ep, void *buf, size_t len);

/* send() with MSG_NOSIGNAL and plain recv() on connected sockets. */
ssize_t tp_sock_send(struct ipc_ep *ep, const void *buf, size_t len);
ssize_t tp_sock_recv(struct ipc_ep *ep, void *buf, size_t len);

/* One message; -EMSGSIZE (message dropped) if it was longer than @len. */
ssize_t tp_msg_recv(struct ipc_ep *ep, void *buf, size_t len);

/*
 * Name @n (1 or 2) files in opts.dir after opts.name (unique among the
 * channels in that directory, whose owner hands the names out):
 * ch->path[i] = "DIR/ipcperf.PID.NAME.TAG[i]".  Creates nothing.  0, or
 * -EINVAL without a dir, -ENAMETOOLONG if a name does not fit a socket
 * address (108 bytes with its NUL).
 */
int tp_paths_name(struct ipc_chan *ch, const char *const *tags, int n);

/* Unlink the files named in ch->path and forget them; safe twice. */
void tp_paths_unlink(struct ipc_chan *ch);

/* Fill @sun for @path; returns the address length. */
socklen_t tp_unix_addr(struct sockaddr_un *sun, const char *path);

/* A new socket of @family and @type (close-on-exec) bound to @addr. */
int tp_socket_bound(int family, int type, const struct sockaddr *addr,
		    socklen_t len);

/* The same for an AF_UNIX socket at @path.  The descriptor or -errno. */
int tp_unix_bound(int type, const char *path);

/*
 * Connection-oriented AF_UNIX transports of @type (SOCK_STREAM,
 * SOCK_SEQPACKET).  Setup binds and listens on one file in opts.dir, kept in
 * fd slot 0 for both sides (fd_side -1).
 */
int tp_unix_listen(struct ipc_chan *ch, int type);

/*
 * Open one side of a listening channel (unix, unix-seqpacket, tcp, tcp6):
 * accept on fd slot 0 (server) or connect a new socket of @type to
 * ch->addr (client; the backlog lets it finish before the accept), then
 * hand the new socket to @tune, if any, before it becomes the endpoint.
 * With @tune_first the client's socket also goes through @tune before
 * connect().  0 or -errno.
 */
int tp_conn_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep,
		 int type, int (*tune)(int fd, const struct ipc_tp_opts *opts),
		 bool tune_first);

/* Longest preamble a connection may have to show (struct ipc_tp_opts). */
#define TP_PREAMBLE_MAX 64

/*
 * The server side of a listening channel whose connections must start
 * with opts.preamble (gate.c): the next connection that showed it, as a
 * blocking descriptor, or -errno (-EINTR when a signal came).  The others
 * are closed and counted in *opts.preamble_refused.  Connections still
 * being read wait in ch->priv between calls: tp_gate_free closes them.
 */
int tp_gate_accept(struct ipc_chan *ch);
void tp_gate_free(struct ipc_chan *ch);

/*
 * Largest datagram an AF_UNIX SOCK_DGRAM or SOCK_SEQPACKET socket can be
 * made to send on this machine (see common.c for the numbers).
 */
size_t tp_unix_msg_max(const struct ipc_tp_opts *opts);

/*
 * Apply @opts to a unix message socket, then raise its send buffer so that
 * a message of opts->max_msg bytes fits.  0, -EMSGSIZE when it cannot be
 * made to fit, or -errno.
 */
int tp_unix_msg_fit(int fd, const struct ipc_tp_opts *opts);

/*
 * IPv6 transports: 0 if a socket of @type can be bound to ::1, else -errno
 * and a reason in @why.
 */
int tp_inet6_probe(int type, char *why, size_t why_len);

/*
 * The check() of the IP transports: with opts.target, can it be resolved
 * for @family and @type?  0, or -errno and a sentence in @why.
 */
int tp_target_check(const struct ipc_tp_opts *opts, int family, int type,
		    char *why, size_t why_len);

/*
 * TCP over @family loopback: listening socket, accept or connect.  With
 * opts.target, setup only resolves it (no listener) and the client side
 * connects there.  Teardown also closes the connections still showing a
 * preamble.
 */
int tp_tcp_setup(struct ipc_chan *ch, int family);
int tp_tcp_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep);
void tp_tcp_teardown(struct ipc_chan *ch);

/*
 * UDP over @family loopback: two sockets connected to each other; with
 * opts.target, the client's socket alone, connected there.
 */
int tp_udp_setup(struct ipc_chan *ch, int family);

/*
 * -EINTR when @ep's side was asked to stop (ep->cancel fired), else 0: the
 * look a transport whose peer's death shows as nothing (no end of stream:
 * mq, serial) takes before it blocks and again every TP_WAIT_SLICE_NS of
 * blocking, and shm's user-space wait on every look.  One relaxed load.
 */
static inline int tp_stopped(const struct ipc_ep *ep)
{
	return ipc_cancelled(ep->cancel) ? -EINTR : 0;
}

#define TP_WAIT_SLICE_NS 100000000L

/*
 * Terminals (pty, serial): raw mode with VMIN 1, and read()/write() that
 * turn the EIO of a tty whose other side went away into end of stream (0)
 * and -EPIPE.
 */
int tp_tty_raw(int fd);
ssize_t tp_tty_send(struct ipc_ep *ep, const void *buf, size_t len);
ssize_t tp_tty_recv(struct ipc_ep *ep, void *buf, size_t len);

/* Take the fd slot of @side (slot i holds side i) as both rfd and wfd. */
int tp_open_slot(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the IP transports share: loopback addresses, the IPv6 probe, TCP's
 * listen/accept/connect and UDP's pair of connected sockets, or with a
 * target only the client's side toward a server that is already there.
 * The tcp, tcp6, udp and udp6 files only pick the address family.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

/* The loopback address of @family with port 0 (the kernel picks one). */
static socklen_t loopback(struct sockaddr_storage *ss, int family)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		return sizeof(*sin6);
	}
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*sin);
}

/* A socket of @family and @type bound to loopback port 0, or -errno. */
static int bound(int family, int type)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(&ss, family);

	return tp_socket_bound(family, type, (struct sockaddr *)&ss, len);
}

/*
 * Resolve @target, "HOST:PORT" or "[IPV6]:PORT", for a socket of @family
 * and @type: the first address getaddrinfo gives, into @ss.  0 or -errno,
 * with a sentence in @why (which may be NULL).
 */
static int target_addr(const char *target, int family, int type,
		       struct sockaddr_storage *ss, socklen_t *len, char *why,
		       size_t why_len)
{
	const char *fam = family == AF_INET6 ? "IPv6" : "IPv4";
	struct addrinfo hints, *res = NULL;
	const char *colon = strrchr(target, ':'), *h = target;
	char host[256];
	size_t n;
	int rc;

	n = colon ? (size_t)(colon - target) : 0;
	if (n > 2 && target[0] == '[' && target[n - 1] == ']') {
		h++; /* [::1]:80 */
		n -= 2;
	}
	if (!colon || !n || n >= sizeof(host) || !colon[1]) {
		if (why)
			snprintf(why, why_len,
				 "'%s' is not HOST:PORT (an IPv6 address goes "
				 "in brackets: [::1]:8080)",
				 target);
		return -EINVAL;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = type;
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		if (why)
			snprintf(why, why_len,
				 "cannot resolve '%s' to an %s "
				 "address: %s",
				 target, fam,
				 rc == EAI_SYSTEM ? strerror(errno)
						  : gai_strerror(rc));
		return rc == EAI_SYSTEM	   ? -errno
		       : rc == EAI_SERVICE ? -EINVAL
					   : -EADDRNOTAVAIL;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int tp_target_check(const struct ipc_tp_opts *opts, int family, int type,
		    char *why, size_t why_len)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!opts->target)
		return 0;
	return target_addr(opts->target, family, type, &ss, &len, why, why_len);
}

int tp_inet6_probe(int type, char *why, size_t why_len)
{
	char err[128];
	int fd, rc = 0;

	fd = socket(AF_INET6, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		if (why && why_len)
			snprintf(why, why_len, "no IPv6 sockets here: %s",
				 strerror_r(-rc, err, sizeof(err)));
		goto out;
	}
	close(fd);
	fd = bound(AF_INET6, type);
	if (fd < 0) {
		rc = fd;
		if (why && why_len)
			snprintf(why, why_len,
				 "the IPv6 loopback ::1 is not usable: %s",
				 strerror_r(-rc, err, sizeof(err)));
		goto out;
	}
	close(fd);
out:
	return rc;
}

/*
 * Buffer sizes are set on the listener before listen(): accepted sockets
 * inherit them, and the receive window scale is fixed by the SYN exchange,
 * so a larger SO_RCVBUF set after accept would not all be usable.
 */
int tp_tcp_setup(struct ipc_chan *ch, int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(&ss, family);
	int fd, one = 1, rc;

	if (ch->opts.target) /* the server listens already: connect only */
		return target_addr(ch->opts.target, family, SOCK_STREAM,
				   &ch->addr, &ch->addr_len, NULL, 0);
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	ch->fd[0] = fd;
	ch->fd_side[0] = -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) {
		rc = -errno;
		goto err;
	}
	rc = ipc_sock_apply_opts(fd, &ch->opts, true, false);
	if (rc < 0)
		goto err;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, TP_BACKLOG) < 0) {
		rc = -errno;
		goto err;
	}
	ch->addr_len = sizeof(ch->addr);
	if (getsockname(fd, (struct sockaddr *)&ch->addr, &ch->addr_len) < 0) {
		rc = -errno;
		goto err;
	}
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

/*
 * Socket options on a TCP socket: on the client before connect() too, so
 * that the buffer sizes set the window scale; again on both endpoints for
 * TCP_NODELAY.
 */
static int tcp_tune(int fd, const struct ipc_tp_opts *opts)
{
	return ipc_sock_apply_opts(fd, opts, true, false);
}

int tp_tcp_open(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep)
{
	return tp_conn_open(ch, side, ep, SOCK_STREAM, tcp_tune, true);
}

void tp_tcp_teardown(struct ipc_chan *ch)
{
	tp_gate_free(ch);
	tp_chan_release(ch);
}

static int connect_to(int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(peer, (struct sockaddr *)&ss, &len) < 0 ||
	    connect(fd, (struct sockaddr *)&ss, len) < 0)
		return -errno;
	return 0;
}

/*
 * The client's socket alone, connected to the target (its port chosen by
 * the kernel), in the client's slot.  A connected socket takes datagrams
 * from the target only and sees a server that is not there as
 * ECONNREFUSED.
 */
static int udp_target_setup(struct ipc_chan *ch, int family)
{
	int fd, rc;

	rc = target_addr(ch->opts.target, family, SOCK_DGRAM, &ch->addr,
			 &ch->addr_len, NULL, 0);
	if (rc < 0)
		return rc;
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ch->fd[IPC_CLIENT] = fd;
	ch->fd_side[IPC_CLIENT] = IPC_CLIENT;
	rc = ipc_sock_apply_opts(fd, &ch->opts, false, true);
	if (!rc && connect(fd, (struct sockaddr *)&ch->addr, ch->addr_len) < 0)
		rc = -errno;
	if (rc < 0)
		tp_chan_release(ch);
	return rc;
}

/*
 * Connected UDP sockets accept datagrams from their peer only, and report
 * a peer that went away (ICMP port unreachable) as ECONNREFUSED.
 */
int tp_udp_setup(struct ipc_chan *ch, int family)
{
	int i, fd, rc = 0;

	if (ch->opts.target)
		return udp_target_setup(ch, family);
	for (i = 0; i < 2; i++) {
		fd = bound(family, SOCK_DGRAM);
		if (fd < 0) {
			rc = fd;
			goto err;
		}
		/* Slot i belongs to side i, as tp_open_slot expects. */
		ch->fd[i] = fd;
		ch->fd_side[i] = i;
		rc = ipc_sock_apply_opts(fd, &ch->opts, false, true);
		if (rc < 0)
			goto err;
	}
	rc = connect_to(ch->fd[IPC_CLIENT], ch->fd[IPC_SERVER]);
	if (rc < 0)
		goto err;
	rc = connect_to(ch->fd[IPC_SERVER], ch->fd[IPC_CLIENT]);
	if (rc < 0)
		goto err;
	ch->addr_len = sizeof(ch->addr);
	if (getsockname(ch->fd[IPC_SERVER], (struct sockaddr *)&ch->addr,
			&ch->addr_len) < 0) {
		rc = -errno;
		goto err;
	}
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

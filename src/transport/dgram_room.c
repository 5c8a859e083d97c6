/* SPDX-License-Identifier: MIT */
/*
 * How many datagrams a udp socket's receive queue holds before the kernel
 * drops the next one.  The queue is limited by SO_RCVBUF in bytes of
 * memory, not of payload: each datagram costs its buffer's truesize, which
 * on loopback is 832 bytes for anything up to 100 bytes, and up to twice
 * the payload above (a 4000-byte datagram costs 8448).  That cost depends
 * on the kernel, so it is measured, once, before a run: one datagram of
 * each length sent over a loopback pair of the same family, and the
 * memory the receiving socket is charged read back (SO_MEMINFO).
 *
 * Over a network card the cost is the driver's, which a loopback pair
 * does not show, so the room is only known when the peer is on loopback.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/lib_internal.h"

/* Is @ss a loopback address (127.0.0.0/8, ::1, or 127/8 mapped to IPv6)? */
static bool is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	const uint8_t *b = s6->sin6_addr.s6_addr;

	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)
				      ->sin_addr.s_addr) >>
			24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && b[12] == 127;
}

/* Bytes the receive queue is charged for one datagram of @len bytes. */
static int charge_of(int family, size_t len)
{
	static const uint8_t zero[65536];
	struct sockaddr_storage ss;
	socklen_t sl = family == AF_INET ? sizeof(struct sockaddr_in)
					 : sizeof(struct sockaddr_in6);
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t ml = sizeof(mem);
	int r, s = -1, rc;

	if (len > sizeof(zero))
		return -EMSGSIZE;
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	r = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r < 0)
		return -errno;
	if (bind(r, (struct sockaddr *)&ss, sl) < 0 ||
	    getsockname(r, (struct sockaddr *)&ss, &sl) < 0 ||
	    (s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    sendto(s, zero, len, 0, (struct sockaddr *)&ss, sl) !=
		    (ssize_t)len ||
	    getsockopt(r, SOL_SOCKET, SO_MEMINFO, mem, &ml) < 0) {
		rc = -errno;
		goto out;
	}
	/* Loopback delivers within sendto; nothing charged: not measured. */
	rc = mem[SK_MEMINFO_RMEM_ALLOC] ? (int)mem[SK_MEMINFO_RMEM_ALLOC]
					: -ENODATA;
out:
	if (s >= 0)
		close(s);
	close(r);
	return rc;
}

int ipc_dgram_room(int fd, size_t len, size_t ctl, int want,
		   struct ipc_dgram_room *room)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer), il = sizeof(int);
	int c_data, c_ctl, half = want / 2 + want % 2;

	memset(room, 0, sizeof(*room));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room->rcvbuf, &il) < 0)
		return -errno;
	/* The kernel doubles what is asked for, and caps it at rmem_max. */
	if (want > room->rcvbuf) {
		room->wanted = want;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &half, sizeof(half)) <
		    0)
			return -errno;
		il = sizeof(int);
		if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room->rcvbuf, &il) <
		    0)
			return -errno;
	}
	memset(&peer, 0, sizeof(peer));
	if (getpeername(fd, (struct sockaddr *)&peer, &pl) < 0)
		return -errno;
	if (!is_loopback(&peer))
		return 0;
	c_data = charge_of(peer.ss_family, len);
	c_ctl = charge_of(peer.ss_family, ctl);
	if (c_data < 0 || c_ctl < 0)
		return c_data < 0 ? c_data : c_ctl;
	room->charge = (unsigned)(c_data > c_ctl ? c_data : c_ctl);
	room->datagrams = (uint64_t)room->rcvbuf / room->charge;
	return 0;
}

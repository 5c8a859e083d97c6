/* SPDX-License-Identifier: MIT */
/*
 * stream and bulk --zerocopy, on whichever side sends (the client, or
 * the peer with stream -R, in --bidir's reverse streams and in bulk).  A
 * message is its sequence number (8 bytes) and then the payload pattern,
 * in stream's from a point that moves with the number (msg.h).  The
 * copying loops write the number into the send buffer; a zero-copy send
 * must leave every byte it handed over alone until the kernel is done
 * with it, so here the pattern in c->sbuf is never written while the run
 * lasts, and the number goes in a header of its own:
 *
 *   msg (MSG_ZEROCOPY): one sendmsg of [header slot, pattern]; the kernel
 *     pins both and later reports on the socket's error queue the range
 *     of sends it released, and whether it copied them after all (it does
 *     on loopback: the receiver may not keep the sender's pages).  A
 *     header slot is written again only once its send completed.
 *   sendfile: the pattern lives in a memfd; the header goes by a plain
 *     send (8 bytes, copied), the rest by sendfile(2) from the memfd.
 *   vmsplice: on a pipe, the header by write(2), the rest by vmsplice(2),
 *     which puts the pattern's pages into the pipe; the reader copies
 *     once.  No completion is reported: the pages are not written anyway.
 *   uring: as msg, through io_uring's SENDMSG_ZC on a ring of its own
 *     (zc_ring.c); the notifications come on its completion queue.
 *
 * Nothing here allocates once the phases run; the slots are in struct zc,
 * set up before the warm-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "msg.h"
#include "pattern/lib_internal.h"
#include "zc.h"
#include "zc_ring.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/*
 * Header slots, one per send in flight; a power of two, so that a slot
 * follows the kernel's 32-bit send counter across its wrap.  A socket's
 * send buffer holds far fewer sends than this of any size worth sending
 * without a copy, so a slot is seldom waited for.
 */
#define ZC_SLOTS 1024u

/* The longest wait for a completion the kernel owes us. */
#define ZC_WAIT_NS 5000000000ull

/*
 * The server's wait for its last completions, once the client closed:
 * its stop fires then (1 ms after the client ended), and a process peer
 * is killed 2 s later, so it waits past the stop, for less than that.
 */
#define ZC_DRAIN_NS 1000000000ull

const char *const ipc_zc_names[] = {"off",	"msg",	 "sendfile",
				    "vmsplice", "uring", NULL};

struct zc {
	enum ipc_zerocopy way;
	int fd;		      /* the client's send descriptor */
	int memfd;	      /* sendfile: the pattern, -1: none */
	struct zc_ring *ring; /* uring */
	bool sock;
	bool shifted;	     /* stream's messages: the pattern moves with
				the number (msg_shift) */
	bool draining;	     /* the server's last wait: past its stop */
	const uint8_t *body; /* the pattern, never written during the run */
	uint32_t next_id;    /* the kernel's number of the next zero-copy
				send */
	uint32_t from_id;    /* the first send of the measured part */
	bool counting;	     /* the measured part began */
	uint64_t in_flight;  /* sends not completed yet */
	uint64_t sends, done, copied; /* measured part */
	bool busy[ZC_SLOTS];
	uint8_t hdr[ZC_SLOTS][8];
};

int ipc_zc_check(const struct ipc_case *cs, char *why, size_t why_len)
{
	const char *way = ipc_zc_names[cs->zerocopy];
	const char *tp = cs->tp ? cs->tp->name : "?";
	const char *eng = cs->eng ? cs->eng->name : "blocking";
	unsigned caps = cs->tp ? cs->tp->caps : 0;
	bool ok;

	switch (cs->zerocopy) {
	case IPC_ZC_MSG:
		ok = (caps & IPC_TP_NET) && (caps & IPC_TP_STREAM);
		break;
	case IPC_ZC_SENDFILE:
		ok = (caps & IPC_TP_STREAM) && (caps & IPC_TP_RW);
		break;
	case IPC_ZC_VMSPLICE:
		ok = caps & IPC_TP_PIPE;
		break;
	case IPC_ZC_URING:
		ok = (caps & IPC_TP_NET) && (caps & IPC_TP_STREAM);
		break;
	default:
		return 0;
	}
	if (!ok) {
		snprintf(why, why_len,
			 "--zerocopy %s cannot send over %s (msg: tcp, tcp6; "
			 "sendfile: byte streams with plain read and write; "
			 "vmsplice: pipe, fifo)",
			 way, tp);
		return -EINVAL;
	}
	if (cs->zerocopy == IPC_ZC_URING) {
		if (strcmp(eng, "io_uring")) {
			snprintf(why, why_len,
				 "--zerocopy uring sends on a ring: use -e "
				 "io_uring, not %s",
				 eng);
			return -EINVAL;
		}
		return zc_ring_probe(why, why_len) ? -EINVAL : 0;
	}
	if (strcmp(eng, "blocking")) {
		snprintf(why, why_len,
			 "--zerocopy %s sends with blocking calls of its own, "
			 "not through engine %s: use -e blocking (or -e "
			 "io_uring for uring)",
			 way, eng);
		return -EINVAL;
	}
	return 0;
}

/* Sends @lo to @hi (the kernel's numbers, wrapping) completed. */
static void zc_completed(struct zc *z, uint32_t lo, uint32_t hi, bool copied)
{
	for (uint32_t id = lo;; id++) {
		z->busy[id % ZC_SLOTS] = false;
		if (z->in_flight)
			z->in_flight--;
		if (z->counting && (int32_t)(id - z->from_id) >= 0) {
			z->done++;
			z->copied += copied;
		}
		if (id == hi)
			break;
	}
}

static void zc_done(void *arg, uint32_t id, bool copied)
{
	zc_completed(arg, id, id, copied);
}

/* Read one notification off the error queue: 1, 0 when none, -errno. */
static int zc_read_one(struct zc *z)
{
	char ctl[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
	struct msghdr m = {.msg_control = ctl, .msg_controllen = sizeof(ctl)};
	const struct sock_extended_err *e;
	struct cmsghdr *cm;

	if (recvmsg(z->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (!((cm->cmsg_level == SOL_IP &&
		       cm->cmsg_type == IP_RECVERR) ||
		      (cm->cmsg_level == SOL_IPV6 &&
		       cm->cmsg_type == IPV6_RECVERR)))
			continue;
		e = (const struct sock_extended_err *)CMSG_DATA(cm);
		if (e->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
			return e->ee_errno ? -(int)e->ee_errno : -EPROTO;
		zc_completed(z, e->ee_info, e->ee_data,
			     e->ee_code & SO_EE_CODE_ZEROCOPY_COPIED);
		return 1;
	}
	return -EPROTO;
}

/*
 * Take the notifications queued; with @wait, wait for one at least
 * (ZC_WAIT_NS at most, or until the side is stopped).
 */
static int zc_reap(struct zc *z, struct ipc_pctx *c, bool wait)
{
	struct pollfd pf = {.fd = z->fd};
	const uint64_t limit_ns = z->draining ? ZC_DRAIN_NS : ZC_WAIT_NS;
	uint64_t until = 0;
	int n, got = 0;

	for (;;) {
		uint64_t before = z->in_flight;

		if (z->way == IPC_ZC_URING) {
			n = zc_ring_reap(z->ring, wait && !got, zc_done, z);
			if (n && n != -ETIME && n != -EINTR)
				return n;
			n = z->in_flight != before;
		} else {
			n = zc_read_one(z);
			if (n < 0)
				return n;
		}
		got += n;
		if (n)
			continue;
		if (got || !wait)
			return 0;
		if (!z->draining && ipc_cancelled(c->io.cancel))
			return -ECANCELED;
		if (!until)
			until = ipc_now_ns() + limit_ns;
		else if (ipc_now_ns() > until)
			return -ETIMEDOUT;
		/* events 0: POLLERR alone says the error queue has some. */
		if (z->way != IPC_ZC_URING && poll(&pf, 1, 100) < 0 &&
		    errno != EINTR)
			return -errno;
	}
}

/* Go on after a send that failed with -@e: 0 to try again, or -errno. */
static int zc_retry(struct zc *z, struct ipc_pctx *c, int e)
{
	if (e == EINTR)
		return ipc_cancelled(c->io.cancel) ? -ECANCELED : 0;
	/* The kernel's memory for notifications is spent: take some. */
	if (e == ENOBUFS && z->way != IPC_ZC_SENDFILE && z->in_flight)
		return zc_reap(z, c, true);
	return -e;
}

/* The @n header bytes of @h by a plain, copying send. */
static int zc_send_copied(struct zc *z, struct ipc_pctx *c, const uint8_t *h,
			  size_t n)
{
	ssize_t k;
	int err;

	while (n) {
		k = z->sock ? send(z->fd, h, n, MSG_NOSIGNAL | MSG_MORE)
			    : write(z->fd, h, n);
		if (k < 0) {
			err = zc_retry(z, c, errno);
			if (err)
				return err;
			continue;
		}
		h += k;
		n -= (size_t)k;
	}
	return 0;
}

static int zc_send_msg(struct zc *z, struct ipc_pctx *c, size_t len,
		       uint64_t seq)
{
	const size_t hl = len < 8 ? len : 8;
	const size_t at = z->shifted ? msg_shift(seq) : 0;
	uint8_t *h = z->hdr[z->next_id % ZC_SLOTS];
	struct iovec iov[2];
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
	size_t sent = 0;
	bool notif = true;
	ssize_t n;
	int err;

	iov[1].iov_base = (void *)(z->body + at + hl);
	iov[1].iov_len = len - hl;
	while (sent < len) {
		while (z->busy[z->next_id % ZC_SLOTS]) {
			err = zc_reap(z, c, true);
			if (err)
				return err;
		}
		if (!sent) {
			msg_stamp(h, hl, seq);
			iov[0].iov_base = h;
			iov[0].iov_len = hl;
		}
		if (z->way == IPC_ZC_URING) {
			n = zc_ring_sendmsg(z->ring, z->fd, &m, z->next_id,
					    &notif, zc_done, z);
			/* Not tried again: a failed send may still hold h. */
			if (n < 0)
				return (int)n;
		} else {
			n = sendmsg(z->fd, &m, MSG_ZEROCOPY | MSG_NOSIGNAL);
		}
		if (n < 0) {
			err = zc_retry(z, c, errno);
			if (err)
				return err;
			continue;
		}
		z->busy[z->next_id++ % ZC_SLOTS] = notif;
		z->in_flight += notif;
		z->sends += z->counting;
		sent += (size_t)n;
		if (sent < hl) {
			/*
			 * The rest of the header by a copy: a later send
			 * must not point into a slot that may be reused.
			 */
			err = zc_send_copied(z, c, h + sent, hl - sent);
			if (err)
				return err;
			sent = hl;
		}
		/* What is left lies in the pattern alone. */
		m.msg_iov = &iov[1];
		m.msg_iovlen = 1;
		iov[1].iov_base = (void *)(z->body + at + sent);
		iov[1].iov_len = len - sent;
	}
	return 0;
}

static int zc_send_pages(struct zc *z, struct ipc_pctx *c, size_t len,
			 uint64_t seq)
{
	const size_t hl = len < 8 ? len : 8;
	uint8_t *h = z->hdr[0];
	off_t off = (off_t)((z->shifted ? msg_shift(seq) : 0) + hl);
	struct iovec iov;
	size_t left = len - hl;
	ssize_t n;
	int err;

	msg_stamp(h, hl, seq);
	err = zc_send_copied(z, c, h, hl);
	iov.iov_base = (void *)(z->body + off);
	while (!err && left) {
		iov.iov_len = left;
		n = z->way == IPC_ZC_SENDFILE
			    ? sendfile(z->fd, z->memfd, &off, left)
			    : vmsplice(z->fd, &iov, 1, 0);
		if (n < 0) {
			err = zc_retry(z, c, errno);
			continue;
		}
		z->sends += z->counting;
		left -= (size_t)n;
		iov.iov_base = (uint8_t *)iov.iov_base + n;
	}
	return err;
}

int zc_send(struct zc *z, struct ipc_pctx *c, size_t len, uint64_t seq)
{
	if (z->way == IPC_ZC_MSG || z->way == IPC_ZC_URING)
		return zc_send_msg(z, c, len, seq);
	return zc_send_pages(z, c, len, seq);
}

void zc_measure(struct zc *z)
{
	z->from_id = z->next_id;
	z->counting = true;
}

static int zc_ready(struct ipc_pctx *c)
{
	zc_measure(c->pat_priv);
	return 0;
}

/* sendfile: the pattern into a memfd, which stays unchanged. */
static int zc_memfd(struct zc *z, const struct ipc_pctx *c)
{
	size_t off = 0;
	ssize_t n;

	z->memfd = memfd_create("ipcperf-zerocopy", MFD_CLOEXEC);
	if (z->memfd < 0)
		return -errno;
	while (off < c->buf_bytes) {
		n = write(z->memfd, c->sbuf + off, c->buf_bytes - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

/* Its descriptor and what the way needs: 0 or -errno (msg_fail'd). */
static int zc_setup(struct zc *z, struct ipc_pctx *c)
{
	const int on = 1;
	struct stat st;

	z->way = (enum ipc_zerocopy)c->cs->zerocopy;
	z->fd = c->io.ep->wfd;
	z->memfd = -1;
	z->body = c->sbuf;
	if (z->fd < 0 || fstat(z->fd, &st) < 0)
		return msg_fail(c, -EBADF, "find the sender's descriptor");
	z->sock = S_ISSOCK(st.st_mode);
	if (z->way == IPC_ZC_MSG &&
	    setsockopt(z->fd, SOL_SOCKET, SO_ZEROCOPY, &on, sizeof(on)) < 0)
		return msg_fail(c, -errno, "turn SO_ZEROCOPY on");
	if (z->way == IPC_ZC_URING) {
		int err = zc_ring_open(&z->ring);

		if (err)
			return msg_fail(c, err, "make the io_uring");
	}
	if (z->way == IPC_ZC_VMSPLICE && !S_ISFIFO(st.st_mode))
		return msg_fail(c, -EOPNOTSUPP, "vmsplice into a non-pipe");
	if (z->way == IPC_ZC_SENDFILE) {
		int err = zc_memfd(z, c);

		if (err)
			return msg_fail(c, err, "put the payload in a memfd");
	}
	return 0;
}

int zc_open(struct ipc_pctx *c, bool shifted, struct zc **out)
{
	struct zc *z = calloc(1, sizeof(*z));
	int err;

	*out = z;
	if (!z)
		return msg_fail(c, -ENOMEM, "allocate the zero-copy slots");
	z->shifted = shifted;
	err = zc_setup(z, c);
	if (err) {
		zc_close(z, c, err, NULL);
		*out = NULL;
	}
	return err;
}

int zc_close(struct zc *z, struct ipc_pctx *c, int err, double *counts)
{
	bool notified;
	int e2 = 0;

	if (!z)
		return err;
	notified = z->way == IPC_ZC_MSG || z->way == IPC_ZC_URING;
	z->draining = c->side == IPC_SERVER;
	/* The counts are whole once the kernel let go of every send. */
	while (z->fd >= 0 && z->in_flight && !e2)
		e2 = zc_reap(z, c, true);
	if (e2 && !err)
		err = msg_fail(c, e2,
			       "wait for the last zero-copy completions");
	if (counts) {
		counts[0] = (double)z->sends;
		counts[1] = notified ? (double)z->done : NAN;
		counts[2] = notified ? (double)z->copied : NAN;
	}
	zc_ring_close(z->ring);
	if (z->memfd >= 0)
		close(z->memfd);
	free(z);
	return err;
}

int zc_client(struct ipc_pctx *c,
	      int (*loop)(struct ipc_pctx *c, uint64_t n, uint64_t deadline,
			  uint64_t *seq, uint64_t *done, uint64_t *elapsed_ns))
{
	struct zc *z;
	int err = zc_open(c, true, &z);

	if (err)
		return err;
	c->pat_priv = z;
	err = msg_client_phases_ready(c, loop, zc_ready);
	c->pat_priv = NULL;
	return zc_close(z, c, err, &c->out.extra[ST_EXTRA_ZC_SENDS]);
}

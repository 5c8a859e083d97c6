/* SPDX-License-Identifier: MIT */
/*
 * zc_ring.h with liburing.  One ring, one send in flight: the client
 * waits for each send's result as a blocking send would, while the
 * notifications of earlier sends come on the same completion queue.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>

#include "zc_ring.h"

/* The kernel's, where liburing's copy of its header is older (6.2). */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

#define ZC_RING_ENTRIES 64

struct zc_ring {
	struct io_uring ring;
};

int zc_ring_probe(char *why, size_t why_len)
{
	struct io_uring_probe *p = io_uring_get_probe();
	bool ok = p && io_uring_opcode_supported(p, IORING_OP_SENDMSG_ZC);

	if (p)
		io_uring_free_probe(p);
	if (ok)
		return 0;
	snprintf(why, why_len,
		 "--zerocopy uring: this kernel has no io_uring SENDMSG_ZC "
		 "(Linux 6.1 and later)");
	return -EOPNOTSUPP;
}

int zc_ring_open(struct zc_ring **out)
{
	struct zc_ring *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	err = io_uring_queue_init(ZC_RING_ENTRIES, &r->ring, 0);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

void zc_ring_close(struct zc_ring *r)
{
	if (!r)
		return;
	io_uring_queue_exit(&r->ring);
	free(r);
}

/*
 * One completion: a notification goes to @done; the send's own result
 * (user data @want) into *@res.  true when it was the result.
 */
static bool take(const struct io_uring_cqe *cqe, uint64_t want, ssize_t *res,
		 bool *more, zc_ring_done_fn done, void *arg)
{
	if (cqe->flags & IORING_CQE_F_NOTIF) {
		done(arg, (uint32_t)cqe->user_data,
		     (uint32_t)cqe->res & IORING_NOTIF_USAGE_ZC_COPIED);
		return false;
	}
	if (cqe->user_data != want)
		return false;
	*res = cqe->res;
	*more = cqe->flags & IORING_CQE_F_MORE;
	return true;
}

ssize_t zc_ring_sendmsg(struct zc_ring *r, int fd, const struct msghdr *m,
			uint32_t id, bool *notif, zc_ring_done_fn done,
			void *arg)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
	struct io_uring_cqe *cqe;
	ssize_t res = 0;
	bool got = false;
	int err;

	*notif = false;
	if (!sqe)
		return -EBUSY;
	io_uring_prep_sendmsg_zc(sqe, fd, m, MSG_NOSIGNAL);
	sqe->ioprio |= IORING_SEND_ZC_REPORT_USAGE;
	sqe->user_data = id;
	err = io_uring_submit(&r->ring);
	if (err < 0)
		return err;
	while (!got) {
		err = io_uring_wait_cqe(&r->ring, &cqe);
		if (err)
			return err;
		got = take(cqe, id, &res, notif, done, arg);
		io_uring_cqe_seen(&r->ring, cqe);
	}
	return res;
}

int zc_ring_reap(struct zc_ring *r, bool wait, zc_ring_done_fn done, void *arg)
{
	struct __kernel_timespec ts = {.tv_nsec = 100000000};
	struct io_uring_cqe *cqe;
	ssize_t res;
	bool more;
	int err, n = 0;

	for (;;) {
		err = n || !wait
			      ? io_uring_peek_cqe(&r->ring, &cqe)
			      : io_uring_wait_cqe_timeout(&r->ring, &cqe, &ts);
		if (err == -EAGAIN || (err == -ETIME && n))
			return 0;
		if (err)
			return err;
		take(cqe, UINT64_MAX, &res, &more, done, arg);
		io_uring_cqe_seen(&r->ring, cqe);
		n++;
	}
}

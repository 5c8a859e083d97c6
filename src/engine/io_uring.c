/* SPDX-License-Identifier: MIT */
/*
 * The io_uring engine (liburing): every send and receive is a submission to
 * a ring and its completion is reaped from it; the kernel waits for the
 * socket, not us.  One endpoint costs one io_uring_enter per operation
 * (submit and wait together); many flows put all their operations in one
 * ring per thread and reap what completed with one call.
 *
 * Descriptors stay blocking: io_uring arms its own poll for them, while on
 * an O_NONBLOCK descriptor it would hand EAGAIN back instead of waiting.
 * Sockets use recv/send (MSG_TRUNC on message sockets, so a datagram longer
 * than the buffer is seen, and MSG_NOSIGNAL); pipes and FIFOs read/write.
 */
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "engines.h"

/*
 * user_data: flow << 2 | op; op 3 marks our own cancel requests, and the
 * poll on the side's cancel descriptor (UD_STOP, flow UINT32_MAX: none).
 */
#define UD_CANCEL 3u
#define UD_STOP UINT64_MAX
#define SQ_MAX 4096u
#define CQ_MAX 65536u

struct uflow {
	int rfd, wfd;
	bool used;
	bool rsock, wsock; /* descriptor is a socket */
	bool msg;	   /* message transport: receive with MSG_TRUNC */
	bool rpend, spend;
	size_t rlen; /* length of the pending receive */
};

struct ipc_fset {
	struct io_uring ring;
	bool ring_ok;
	const struct ipc_cancel *cancel;
	bool stop_polled; /* a poll on the cancel's descriptor is queued */
	uint32_t max;
	struct uflow *flows;
	struct eng_doneq stash; /* reaped while cancelling, not reported */
};

static uint64_t ud(uint32_t flow, uint32_t op)
{
	return (uint64_t)flow << 2 | op;
}

static void stash_push(struct ipc_fset *fs, const struct ipc_fdone *d)
{
	if (fs->stash.len < fs->stash.cap)
		eng_doneq_push(&fs->stash, d);
}

/* A ring with room for @sq submissions and @cq completions. */
static int ring_init(struct io_uring *ring, unsigned sq, unsigned cq)
{
	struct io_uring_params p;
	int err;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN;
	p.cq_entries = cq;
	err = io_uring_queue_init_params(sq, ring, &p);
	if (err == -EINVAL) {
		/* Kernels before 5.19 lack COOP_TASKRUN. */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = cq;
		err = io_uring_queue_init_params(sq, ring, &p);
	}
	return err;
}

static int ur_probe(char *why, size_t why_len)
{
	struct io_uring ring;
	int err = ring_init(&ring, 2, 4);

	if (err) {
		snprintf(why, why_len,
			 "io_uring is not usable here: %s (kernel too old, "
			 "kernel.io_uring_disabled, or a seccomp filter)",
			 strerror(-err));
		return err;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

static void ur_fs_free(struct ipc_fset *fs)
{
	if (!fs)
		return;
	if (fs->ring_ok)
		io_uring_queue_exit(&fs->ring); /* cancels what is pending */
	free(fs->flows);
	free(fs->stash.v);
	free(fs);
}

/*
 * One poll on the cancel's descriptor, in flight while the set waits: its
 * completion, once fired, ends a wait in io_uring_enter (convert() drops
 * it; the wait loop looks at the flag).  Queued here, submitted with the
 * next operation, so it costs no system call of its own; queued again by
 * a wait after it completed (a cancel made fresh after it fired).
 */
static struct io_uring_sqe *sqe_get(struct ipc_fset *fs);

static int poll_cancel(struct ipc_fset *fs)
{
	struct io_uring_sqe *sqe;
	int fd = ipc_cancel_fd(fs->cancel);

	if (fd < 0 || fs->stop_polled)
		return 0;
	sqe = sqe_get(fs);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, UD_STOP);
	fs->stop_polled = true;
	return 0;
}

static int ur_fs_new(struct ipc_fset **out, uint32_t max,
		     const struct ipc_cancel *cancel)
{
	struct ipc_fset *fs;
	uint64_t sq, cq;
	int err;

	*out = NULL;
	if (!max)
		return -EINVAL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->cancel = cancel;
	fs->max = max;
	fs->stash.cap = 2 * max + 2;
	fs->flows = calloc(max, sizeof(*fs->flows));
	fs->stash.v = calloc(fs->stash.cap, sizeof(*fs->stash.v));
	if (!fs->flows || !fs->stash.v) {
		ur_fs_free(fs);
		return -ENOMEM;
	}
	/*
	 * Two operations per flow may be in flight; the completion queue
	 * holds them all, so that none waits in the kernel's overflow list.
	 */
	sq = 2ull * max;
	sq = sq < 4 ? 4 : sq > SQ_MAX ? SQ_MAX : sq;
	cq = 2ull * max + 8;
	cq = cq < 2 * sq ? 2 * sq : cq > CQ_MAX ? CQ_MAX : cq;
	err = ring_init(&fs->ring, (unsigned)sq, (unsigned)cq);
	if (err) {
		ur_fs_free(fs);
		return err;
	}
	fs->ring_ok = true;
	err = poll_cancel(fs);
	if (err) {
		ur_fs_free(fs);
		return err;
	}
	*out = fs;
	return 0;
}

static bool is_sock(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISSOCK(st.st_mode);
}

static int ur_fs_add(struct ipc_fset *fs, uint32_t flow, struct ipc_ep *ep)
{
	struct uflow *f;

	if (flow >= fs->max || fs->flows[flow].used || ep->rfd < 0 ||
	    ep->wfd < 0)
		return -EINVAL;
	f = &fs->flows[flow];
	memset(f, 0, sizeof(*f));
	f->used = true;
	f->rfd = ep->rfd;
	f->wfd = ep->wfd;
	f->rsock = is_sock(ep->rfd);
	f->wsock = ep->wfd == ep->rfd ? f->rsock : is_sock(ep->wfd);
	f->msg = !(ep->ops->caps & IPC_TP_STREAM);
	return 0;
}

static int ur_fs_del(struct ipc_fset *fs, uint32_t flow)
{
	ssize_t res;

	if (flow >= fs->max || !fs->flows[flow].used)
		return -EINVAL;
	if (fs->flows[flow].rpend || fs->flows[flow].spend)
		return -EBUSY;
	while (eng_doneq_take(&fs->stash, flow, IPC_FOP_RECV, &res) ||
	       eng_doneq_take(&fs->stash, flow, IPC_FOP_SEND, &res))
		;
	memset(&fs->flows[flow], 0, sizeof(fs->flows[flow]));
	return 0;
}

/* A free submission slot; submits what is queued when the ring is full. */
static struct io_uring_sqe *sqe_get(struct ipc_fset *fs)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&fs->ring);

	if (!sqe) {
		io_uring_submit(&fs->ring);
		sqe = io_uring_get_sqe(&fs->ring);
	}
	return sqe;
}

static int ur_fs_recv(struct ipc_fset *fs, uint32_t flow, void *buf, size_t len)
{
	struct io_uring_sqe *sqe;
	struct uflow *f;

	if (flow >= fs->max || !fs->flows[flow].used)
		return -EINVAL;
	f = &fs->flows[flow];
	if (f->rpend)
		return -EBUSY;
	sqe = sqe_get(fs);
	if (!sqe)
		return -EBUSY;
	if (f->rsock)
		io_uring_prep_recv(sqe, f->rfd, buf, len,
				   f->msg ? MSG_TRUNC : 0);
	else
		io_uring_prep_read(sqe, f->rfd, buf, (unsigned)len,
				   (uint64_t)-1);
	io_uring_sqe_set_data64(sqe, ud(flow, IPC_FOP_RECV));
	f->rpend = true;
	f->rlen = len;
	return 0;
}

static int ur_fs_send(struct ipc_fset *fs, uint32_t flow, const void *buf,
		      size_t len)
{
	struct io_uring_sqe *sqe;
	struct uflow *f;

	if (flow >= fs->max || !fs->flows[flow].used)
		return -EINVAL;
	f = &fs->flows[flow];
	if (f->spend)
		return -EBUSY;
	sqe = sqe_get(fs);
	if (!sqe)
		return -EBUSY;
	if (f->wsock)
		io_uring_prep_send(sqe, f->wfd, buf, len, MSG_NOSIGNAL);
	else
		io_uring_prep_write(sqe, f->wfd, buf, (unsigned)len,
				    (uint64_t)-1);
	io_uring_sqe_set_data64(sqe, ud(flow, IPC_FOP_SEND));
	f->spend = true;
	return 0;
}

/*
 * Turn @cqe into a completion; false for our own cancel requests and for
 * flows that are gone.
 */
static bool convert(struct ipc_fset *fs, const struct io_uring_cqe *cqe,
		    struct ipc_fdone *d)
{
	uint64_t u = io_uring_cqe_get_data64(cqe);
	uint32_t op = (uint32_t)(u & 3u), flow = (uint32_t)(u >> 2);
	struct uflow *f;

	if (u == UD_STOP)
		fs->stop_polled = false;
	if (op == UD_CANCEL || flow >= fs->max || !fs->flows[flow].used)
		return false;
	f = &fs->flows[flow];
	d->flow = flow;
	d->op = op;
	d->res = cqe->res;
	if (op == IPC_FOP_RECV) {
		f->rpend = false;
		if (f->msg && d->res > 0 && (size_t)d->res > f->rlen)
			d->res = -EMSGSIZE;
	} else {
		f->spend = false;
	}
	return true;
}

static uint32_t reap(struct ipc_fset *fs, struct ipc_fdone *done, uint32_t max)
{
	struct io_uring_cqe *cqe;
	uint32_t n = eng_doneq_pop(&fs->stash, done, max);

	while (n < max && io_uring_peek_cqe(&fs->ring, &cqe) == 0) {
		if (convert(fs, cqe, &done[n]))
			n++;
		io_uring_cqe_seen(&fs->ring, cqe);
	}
	return n;
}

static int ur_fs_wait(struct ipc_fset *fs, struct ipc_fdone *done, uint32_t max,
		      int64_t timeout_ns)
{
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts;
	uint64_t deadline = 0, now;
	int64_t left = timeout_ns;
	uint32_t n;
	int ret;

	if (!max)
		return -EINVAL;
	if (timeout_ns > 0)
		deadline = ipc_now_ns() + (uint64_t)timeout_ns;
	for (;;) {
		n = reap(fs, done, max);
		if (n)
			return (int)n;
		if (ipc_cancelled(fs->cancel))
			return -ECANCELED;
		if (left && !fs->stop_polled && poll_cancel(fs) < 0)
			return -EBUSY;
		if (left < 0) {
			ret = io_uring_submit_and_wait(&fs->ring, 1);
		} else if (left == 0) {
			ret = io_uring_submit(&fs->ring);
		} else {
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			ret = io_uring_submit_and_wait_timeout(&fs->ring, &cqe,
							       1, &ts, NULL);
		}
		n = reap(fs, done, max);
		if (n)
			return (int)n;
		if (ret < 0 && ret != -EINTR && ret != -ETIME)
			return ret;
		if (timeout_ns == 0 || ret == -ETIME)
			return 0;
		if (timeout_ns > 0) {
			now = ipc_now_ns();
			if (now >= deadline)
				return 0;
			left = (int64_t)(deadline - now);
		}
	}
}

static ssize_t ur_fs_cancel(struct ipc_fset *fs, uint32_t flow, enum ipc_fop op)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct ipc_fdone d;
	struct uflow *f;
	ssize_t res;
	uint64_t want = ud(flow, op);
	int ret;

	if (flow >= fs->max || !fs->flows[flow].used)
		return -EINVAL;
	if (eng_doneq_take(&fs->stash, flow, op, &res))
		return res;
	f = &fs->flows[flow];
	if (!(op == IPC_FOP_RECV ? f->rpend : f->spend))
		return -ECANCELED;
	sqe = sqe_get(fs);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_cancel64(sqe, want, 0);
	io_uring_sqe_set_data64(sqe, ud(flow, UD_CANCEL));
	/* Reap until the operation itself completes, cancelled or not. */
	for (;;) {
		ret = io_uring_submit_and_wait(&fs->ring, 1);
		if (ret < 0 && ret != -EINTR)
			return ret;
		while (io_uring_peek_cqe(&fs->ring, &cqe) == 0) {
			bool mine = io_uring_cqe_get_data64(cqe) == want;

			if (convert(fs, cqe, &d)) {
				if (!mine)
					stash_push(fs, &d);
			}
			io_uring_cqe_seen(&fs->ring, cqe);
			if (mine)
				return d.res == -ECANCELED || d.res == -EINTR
					       ? -ECANCELED
					       : d.res;
		}
	}
}

const struct ipc_engine_ops ipc_eng_io_uring = {
	.name = "io_uring",
	.help = "each send and receive submitted to an io_uring, completions "
		"reaped (liburing)",
	.caps = IPC_ENG_NEEDS_FD | IPC_ENG_NEEDS_RW,
	.probe = ur_probe,
	.attach = eng_fs1_attach,
	.send = eng_fs1_send,
	.recv = eng_fs1_recv,
	.detach = eng_fs1_detach,
	.reattach = eng_fs1_reattach,
	.fs_new = ur_fs_new,
	.fs_add = ur_fs_add,
	.fs_del = ur_fs_del,
	.fs_recv = ur_fs_recv,
	.fs_send = ur_fs_send,
	.fs_wait = ur_fs_wait,
	.fs_cancel = ur_fs_cancel,
	.fs_free = ur_fs_free,
};

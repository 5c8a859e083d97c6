/* SPDX-License-Identifier: MIT */
/*
 * The flow set of the readiness engines (poll, epoll, busy): completions
 * emulated over readiness, as an event loop does it.  A send is tried at
 * once and waits for writability only when the descriptor is full; a
 * receive waits for readability, then reads.  The three engines differ only
 * in how they wait: poll(2) over an array, epoll_wait(2), or epoll_wait
 * with a zero timeout in a spin.  Each waits on the side's cancel descriptor
 * too: the first entry of the poll array, or one more member of the epoll
 * set (registered once, so a wait costs nothing more for it).
 *
 * Input interest is dropped lazily: a flow stays registered for input after
 * its receive completed, because in a request/response loop the next
 * receive comes soon; only a readiness report with no receive pending
 * removes it.  In steady state that costs no epoll_ctl at all (before, the
 * interest went with each completion and came back with the next receive:
 * an EPOLL_CTL_DEL and an EPOLL_CTL_ADD per request).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "engines.h"
#include "transport/lib_internal.h"

#define EV_IN 1u
#define EV_OUT 2u

/* epoll data of the cancel descriptor: no flow has this number. */
#define CANCEL_TAG UINT64_MAX

/* poll: entry 0 is the cancel descriptor, then 2 per flow (rfd, wfd). */
#define PFD(flow, w) (1 + 2 * (size_t)(flow) + ((w) ? 1 : 0))

struct rflow {
	struct ipc_ep *ep; /* NULL: no such flow */
	void *rbuf;	   /* pending receive */
	size_t rlen;
	const void *sbuf; /* pending send */
	size_t slen;
	bool rpend, spend;
	unsigned rmask; /* events registered for rfd */
	unsigned wmask; /* events registered for wfd when it is not rfd */
};

struct ipc_fset {
	enum eng_wait how;
	const struct ipc_cancel *cancel;
	uint32_t max;
	struct rflow *flows;
	struct eng_doneq q;	 /* completions not yet reported */
	int epfd;		 /* epoll and busy */
	struct epoll_event *evs; /* their event buffer, max entries */
	struct pollfd *pfds;	 /* poll: the cancel's, then 2 per flow */
	uint32_t npfds;		 /* poll: entries in use */
	bool no_pwait2;		 /* epoll_pwait2 is missing (before 5.11) */
};

static bool split(const struct ipc_ep *ep)
{
	return ep->wfd != ep->rfd;
}

/* Queue a completion: it cannot overflow, one receive and one send a flow. */
static void q_push(struct ipc_fset *fs, uint32_t flow, uint32_t op, ssize_t res)
{
	eng_doneq_push(&fs->q,
		       &(struct ipc_fdone){.flow = flow, .op = op, .res = res});
}

static uint32_t ep_events(unsigned mask)
{
	return (mask & EV_IN ? EPOLLIN : 0) | (mask & EV_OUT ? EPOLLOUT : 0);
}

/*
 * Register @fd of @flow for @mask (0: remove it) where @*cur says what is
 * registered now.  @w tells the wfd registration of a split flow apart.
 */
static int reg(struct ipc_fset *fs, uint32_t flow, int fd, bool w,
	       unsigned *cur, unsigned mask)
{
	struct epoll_event ev = {0};
	struct pollfd *p;
	int op;

	if (*cur == mask)
		return 0;
	if (fs->how == EW_POLL) {
		p = &fs->pfds[PFD(flow, w)];
		p->fd = mask ? fd : -1;
		p->events = (short)((mask & EV_IN ? POLLIN : 0) |
				    (mask & EV_OUT ? POLLOUT : 0));
		p->revents = 0;
		if (mask && PFD(flow, 1) + 1 > fs->npfds)
			fs->npfds = (uint32_t)PFD(flow, 1) + 1;
		*cur = mask;
		return 0;
	}
	op = !*cur ? EPOLL_CTL_ADD : !mask ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
	ev.events = ep_events(mask);
	ev.data.u64 = (uint64_t)flow << 1 | (w ? 1 : 0);
	if (epoll_ctl(fs->epfd, op, fd, &ev) < 0)
		return -errno;
	*cur = mask;
	return 0;
}

/* Register what @flow's pending operations need, keeping what is there. */
static int arm(struct ipc_fset *fs, uint32_t flow)
{
	struct rflow *f = &fs->flows[flow];
	unsigned in = f->rpend ? EV_IN : 0, out = f->spend ? EV_OUT : 0;

	if (split(f->ep))
		return reg(fs, flow, f->ep->rfd, false, &f->rmask,
			   f->rmask | in)
			       ?: reg(fs, flow, f->ep->wfd, true, &f->wmask,
				      f->wmask | out);
	return reg(fs, flow, f->ep->rfd, false, &f->rmask, f->rmask | in | out);
}

/*
 * Settle @flow's interest after a report: output goes as soon as no send
 * waits for it (a socket is nearly always writable, so a registered
 * EPOLLOUT would be reported by every wait); input stays while a receive
 * is pending or was pending when it was reported, and goes only when @idle
 * says a report of it found no receive to complete.  In a request/response
 * loop the next receive is posted before the next wait, so the flow stays
 * registered for input and a request costs no epoll_ctl at all.
 */
static int settle(struct ipc_fset *fs, uint32_t flow, unsigned idle)
{
	struct rflow *f = &fs->flows[flow];
	unsigned in = (f->rmask & EV_IN & ~idle) | (f->rpend ? EV_IN : 0);
	unsigned out = f->spend ? EV_OUT : 0;

	if (split(f->ep))
		return reg(fs, flow, f->ep->rfd, false, &f->rmask, in)
			       ?: reg(fs, flow, f->ep->wfd, true, &f->wmask,
				      out);
	return reg(fs, flow, f->ep->rfd, false, &f->rmask, in | out);
}

static void try_recv(struct ipc_fset *fs, uint32_t flow)
{
	struct rflow *f = &fs->flows[flow];
	ssize_t n = f->ep->ops->recv(f->ep, f->rbuf, f->rlen);

	if (n == -EAGAIN || n == -EINTR)
		return; /* not ready after all: wait again */
	f->rpend = false;
	q_push(fs, flow, IPC_FOP_RECV, n);
}

static void try_send(struct ipc_fset *fs, uint32_t flow)
{
	struct rflow *f = &fs->flows[flow];
	ssize_t n = f->ep->ops->send(f->ep, f->sbuf, f->slen);

	if (n == -EAGAIN || n == -EINTR)
		return;
	f->spend = false;
	q_push(fs, flow, IPC_FOP_SEND, n);
}

/*
 * @flow is ready for @ev (EV_IN, EV_OUT, or both for an error or a hang-up,
 * which the pending operation will report).  Returns 0 or -errno.
 */
static int ready(struct ipc_fset *fs, uint32_t flow, unsigned ev)
{
	struct rflow *f = &fs->flows[flow];
	unsigned idle = 0; /* reported with nothing pending */

	if (!f->ep)
		return 0;
	if ((ev & EV_IN) && f->rpend)
		try_recv(fs, flow);
	else if (ev & EV_IN)
		idle |= EV_IN;
	if ((ev & EV_OUT) && f->spend)
		try_send(fs, flow);
	return settle(fs, flow, idle);
}

/* epoll and busy: the cancel descriptor joins the set, for good. */
static int watch_cancel(struct ipc_fset *fs)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = CANCEL_TAG};
	int fd = ipc_cancel_fd(fs->cancel);

	return fd < 0 ? 0 : epoll_ctl(fs->epfd, EPOLL_CTL_ADD, fd, &ev);
}

int eng_ready_new(struct ipc_fset **out, uint32_t max, enum eng_wait how,
		  const struct ipc_cancel *cancel)
{
	struct ipc_fset *fs;
	uint32_t i;

	*out = NULL;
	if (!max)
		return -EINVAL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->how = how;
	fs->cancel = cancel;
	fs->max = max;
	fs->epfd = -1;
	fs->q.cap = 2 * max;
	fs->flows = calloc(max, sizeof(*fs->flows));
	fs->q.v = calloc(fs->q.cap, sizeof(*fs->q.v));
	if (!fs->flows || !fs->q.v)
		goto nomem;
	if (how == EW_POLL) {
		fs->pfds = calloc(PFD(max, 0), sizeof(*fs->pfds));
		if (!fs->pfds)
			goto nomem;
		for (i = 0; i < PFD(max, 0); i++)
			fs->pfds[i].fd = -1;
		fs->pfds[0].fd = ipc_cancel_fd(cancel);
		fs->pfds[0].events = POLLIN;
		fs->npfds = 1;
	} else {
		fs->evs = calloc(max, sizeof(*fs->evs));
		if (!fs->evs)
			goto nomem;
		fs->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (fs->epfd < 0 || watch_cancel(fs) < 0) {
			int err = -errno;

			eng_ready_free(fs);
			return err;
		}
	}
	*out = fs;
	return 0;
nomem:
	eng_ready_free(fs);
	return -ENOMEM;
}

void eng_ready_free(struct ipc_fset *fs)
{
	if (!fs)
		return;
	if (fs->epfd >= 0)
		close(fs->epfd);
	free(fs->evs);
	free(fs->pfds);
	free(fs->q.v);
	free(fs->flows);
	free(fs);
}

int eng_ready_add(struct ipc_fset *fs, uint32_t flow, struct ipc_ep *ep)
{
	struct rflow *f;
	int err;

	if (flow >= fs->max || fs->flows[flow].ep || ep->rfd < 0 || ep->wfd < 0)
		return -EINVAL;
	err = ipc_fd_set_nonblock(ep->rfd, true);
	if (!err && split(ep))
		err = ipc_fd_set_nonblock(ep->wfd, true);
	if (err)
		return err;
	f = &fs->flows[flow];
	memset(f, 0, sizeof(*f));
	f->ep = ep;
	return 0;
}

int eng_ready_del(struct ipc_fset *fs, uint32_t flow)
{
	struct rflow *f;
	ssize_t res;
	int err;

	if (flow >= fs->max || !fs->flows[flow].ep)
		return -EINVAL;
	f = &fs->flows[flow];
	f->rpend = f->spend = false;
	while (eng_doneq_take(&fs->q, flow, IPC_FOP_RECV, &res) ||
	       eng_doneq_take(&fs->q, flow, IPC_FOP_SEND, &res))
		;
	err = settle(fs, flow, EV_IN);
	memset(f, 0, sizeof(*f));
	return err;
}

int eng_ready_recv(struct ipc_fset *fs, uint32_t flow, void *buf, size_t len)
{
	struct rflow *f;

	if (flow >= fs->max || !fs->flows[flow].ep)
		return -EINVAL;
	f = &fs->flows[flow];
	if (f->rpend)
		return -EBUSY;
	f->rbuf = buf;
	f->rlen = len;
	f->rpend = true;
	return arm(fs, flow);
}

int eng_ready_send(struct ipc_fset *fs, uint32_t flow, const void *buf,
		   size_t len)
{
	struct rflow *f;

	if (flow >= fs->max || !fs->flows[flow].ep)
		return -EINVAL;
	f = &fs->flows[flow];
	if (f->spend)
		return -EBUSY;
	f->sbuf = buf;
	f->slen = len;
	f->spend = true;
	try_send(fs, flow);
	return f->spend ? arm(fs, flow) : 0;
}

ssize_t eng_ready_cancel(struct ipc_fset *fs, uint32_t flow, enum ipc_fop op)
{
	struct rflow *f;
	ssize_t res;

	if (flow >= fs->max || !fs->flows[flow].ep)
		return -EINVAL;
	f = &fs->flows[flow];
	if (eng_doneq_take(&fs->q, flow, op, &res))
		return res;
	if (op == IPC_FOP_RECV)
		f->rpend = false;
	else
		f->spend = false;
	return -ECANCELED;
}

static int64_t left_ns(uint64_t deadline)
{
	uint64_t now = ipc_now_ns();

	return now >= deadline ? 0 : (int64_t)(deadline - now);
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000,
			      .tv_nsec = ns % 1000000000};

	return ts;
}

/* One wait of the backend; the number of descriptors reported, or -errno. */
static int backend_wait(struct ipc_fset *fs, int64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;
	uint32_t i;
	int n, err;

	if (timeout_ns >= 0) {
		ts = ts_of(timeout_ns);
		tp = &ts;
	}
	if (fs->how == EW_POLL) {
		n = ppoll(fs->pfds, fs->npfds, tp, NULL);
		if (n <= 0)
			return n < 0 ? -errno : 0;
		for (i = 1; i < fs->npfds; i++) {
			short re = fs->pfds[i].revents;
			unsigned ev;

			if (!re)
				continue;
			fs->pfds[i].revents = 0;
			ev = (re & POLLIN ? EV_IN : 0) |
			     (re & POLLOUT ? EV_OUT : 0);
			if (re & (POLLERR | POLLHUP | POLLNVAL))
				ev = EV_IN | EV_OUT;
			err = ready(fs, (i - 1) / 2, ev);
			if (err)
				return err;
		}
		return n;
	}
	if (fs->how == EW_SPIN) {
		n = epoll_wait(fs->epfd, fs->evs, (int)fs->max, 0);
	} else if (!fs->no_pwait2) {
		n = epoll_pwait2(fs->epfd, fs->evs, (int)fs->max, tp, NULL);
		if (n < 0 && errno == ENOSYS) {
			fs->no_pwait2 = true;
			return backend_wait(fs, timeout_ns);
		}
	} else {
		/* Milliseconds, rounded up: never wake before the time. */
		int ms = timeout_ns < 0 ? -1
			 : timeout_ns == 0
				 ? 0
				 : eng_timeout_ms((uint64_t)timeout_ns);

		n = epoll_wait(fs->epfd, fs->evs, (int)fs->max, ms);
	}
	if (n < 0)
		return -errno;
	for (i = 0; i < (uint32_t)n; i++) {
		uint32_t e = fs->evs[i].events;
		unsigned ev =
			(e & EPOLLIN ? EV_IN : 0) | (e & EPOLLOUT ? EV_OUT : 0);

		if (fs->evs[i].data.u64 == CANCEL_TAG)
			continue; /* the wait loop looks at the flag */
		if (e & (EPOLLERR | EPOLLHUP))
			ev = EV_IN | EV_OUT;
		err = ready(fs, (uint32_t)(fs->evs[i].data.u64 >> 1), ev);
		if (err)
			return err;
	}
	return n;
}

int eng_ready_wait(struct ipc_fset *fs, struct ipc_fdone *done, uint32_t max,
		   int64_t timeout_ns)
{
	uint64_t deadline = 0;
	int64_t left = timeout_ns;
	int n;

	if (!max)
		return -EINVAL;
	if (timeout_ns > 0)
		deadline = ipc_now_ns() + (uint64_t)timeout_ns;
	for (;;) {
		if (fs->q.len)
			return (int)eng_doneq_pop(&fs->q, done, max);
		if (ipc_cancelled(fs->cancel))
			return -ECANCELED;
		n = backend_wait(fs, fs->how == EW_SPIN ? 0 : left);
		if (n == -EINTR)
			n = 0;
		else if (n < 0)
			return n;
		if (fs->q.len)
			continue;
		if (timeout_ns == 0)
			return 0;
		if (timeout_ns > 0) {
			left = left_ns(deadline);
			if (!left)
				return 0;
		}
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * The blocking engine: every send and receive is one blocking system call
 * made by the transport, the way a plain ping-pong loop is written.  Waiting
 * is the kernel's: nothing of ours runs between the call and its return.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "engines.h"
#include "base/lib_internal.h"

/*
 * A receive that may wait at most io->timeout_ns (lossy transports: a
 * lost datagram must not hang the run) is bounded by a watchdog, not by
 * a timeout per call.  SO_RCVTIMEO made the kernel arm and cancel a timer
 * in every receive that sleeps: on one CPU, where every receive sleeps,
 * that was about 2% of a udp round trip (3.51 against 3.58 us, medians
 * of 15 alternated invocations).  Instead a POSIX timer of the thread
 * sends the library's wake signal (no SA_RESTART) every quarter of the
 * timeout, and a receive it interrupts looks at the clock: the one that
 * the watchdog interrupted first at woken_ns and again at least the
 * timeout later has waited that long, and returns -ETIMEDOUT; any other
 * is made again.  So the measured path costs one increment per receive,
 * a receive times out after between 15/16 and 5/4 of the timeout (the
 * first tick comes up to a quarter after it began), and an interrupted
 * receive that then succeeds costs one more system call, four times per
 * timeout.
 *
 * That suits the long timeouts a measured loop holds (--timeout, 1 s by
 * default: four signals a second).  A short one is a pattern's wait for
 * one answer (udp stream asks for its report with timeouts from 100 us
 * up), where a tick every 25 us would cost more than the kernel's timer:
 * below WATCH_MIN_NS a socket gets SO_RCVTIMEO as before.  The timer
 * works on every descriptor, so a descriptor that is no socket is always
 * watched; where the timer cannot be made (the wake signal has a foreign
 * handler) sockets get SO_RCVTIMEO whatever the timeout.
 */
#define TICKS_PER_TIMEOUT 4
#define WATCH_MIN_NS 10000000ull

struct blk {
	uint64_t applied_ns; /* the timeout in force, 0: none */
	uint64_t tick_ns;    /* the watchdog's period, 0: disarmed */
	uint64_t sock_ns;    /* SO_RCVTIMEO on the socket, ~0: unknown */
	uint64_t calls;	     /* receives begun */
	uint64_t woken_call; /* calls when the watchdog last interrupted */
	uint64_t woken_ns;   /* when it first interrupted that receive */
	timer_t timer;	     /* the watchdog, aimed at the receiving thread */
	int timer_state;     /* 0: not made yet, 1: made, -1: cannot be */
	bool not_sock;	     /* the descriptor refuses SO_RCVTIMEO */
	bool watching;	     /* the timeout is the watchdog's to keep */
};

static int set_rcvtimeo(int fd, uint64_t ns)
{
	struct timeval tv;

	tv.tv_sec = (time_t)(ns / 1000000000u);
	tv.tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
	if (ns && !tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1; /* 0 would mean forever */
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ? -errno
									: 0;
}

/* Tick every @tick_ns (0: stop ticking). */
static void watch_every(struct blk *b, uint64_t tick_ns)
{
	struct itimerspec its = {{0, 0}, {0, 0}};

	if (b->timer_state <= 0 || tick_ns == b->tick_ns)
		return;
	its.it_value.tv_sec = (time_t)(tick_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(tick_ns % 1000000000u);
	its.it_interval = its.it_value;
	timer_settime(b->timer, 0, &its, NULL);
	b->tick_ns = tick_ns;
	b->woken_call = b->calls - 1; /* a tick of the old period is no start */
}

/*
 * Put io->timeout_ns in force, by the watchdog or by SO_RCVTIMEO (see
 * above): the socket's is taken off while the watchdog keeps the time,
 * and the ticks stay on through a short wait.  Only when the timeout
 * changed (a pattern shortening one wait) or the endpoint is new, so the
 * common path costs nothing.
 */
static void apply_timeout(struct ipc_io *io, struct blk *b)
{
	const uint64_t t = io->timeout_ns;
	bool watch = t && (t >= WATCH_MIN_NS || b->not_sock);
	uint64_t tick = t / TICKS_PER_TIMEOUT;

	b->applied_ns = t;
	if (watch && !b->timer_state)
		b->timer_state = ipc_wake_timer_new(&b->timer) ? -1 : 1;
	if (b->timer_state < 0)
		watch = false;
	b->watching = watch;
	if (!watch) {
		/* A short wait leaves the ticks on: they come back with
		 * the long timeout, and the socket's ends the wait first. */
		if (!t)
			watch_every(b, 0);
		if (b->sock_ns == t)
			return;
		if (set_rcvtimeo(io->ep->rfd, t) == -ENOTSOCK && t &&
		    b->timer_state >= 0) {
			b->not_sock = true;
			apply_timeout(io, b); /* watched, then */
			return;
		}
		b->sock_ns = t;
		return;
	}
	if (b->sock_ns) {
		set_rcvtimeo(io->ep->rfd, 0); /* may fail: not a socket */
		b->sock_ns = 0;
	}
	watch_every(b, tick ? tick : 1);
}

/*
 * A receive came back with EINTR and no stop was asked for: has it waited
 * its timeout?  The first interruption of a receive only notes when.
 */
static bool timed_out(struct blk *b)
{
	uint64_t now;

	if (!b->watching)
		return false; /* SO_RCVTIMEO keeps the time, or none */
	now = ipc_now_ns();
	if (b->woken_call != b->calls) {
		b->woken_call = b->calls;
		b->woken_ns = now;
		return false;
	}
	return now - b->woken_ns + b->tick_ns / 4 >= b->applied_ns;
}

static int blk_attach(struct ipc_io *io)
{
	struct blk *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	io->priv = b;
	b->sock_ns = ~0ull; /* the transport may have set one */
	if (io->timeout_ns)
		apply_timeout(io, b);
	return 0;
}

static ssize_t blk_send(struct ipc_io *io, const void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;

	for (;;) {
		n = ep->ops->send(ep, buf, len);
		if (n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
	}
}

/*
 * A blocking receive only fails with EAGAIN when SO_RCVTIMEO expired (the
 * fallback, or a socket of the caller's): a timeout, like the watchdog's.
 */
static ssize_t blk_recv(struct ipc_io *io, void *buf, size_t len)
{
	struct ipc_ep *ep = io->ep;
	struct blk *b = io->priv;
	ssize_t n;

	if (b->applied_ns != io->timeout_ns)
		apply_timeout(io, b);
	b->calls++;
	for (;;) {
		n = ep->ops->recv(ep, buf, len);
		if (n == -EAGAIN)
			return -ETIMEDOUT;
		if (n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
		if (timed_out(b))
			return -ETIMEDOUT;
	}
}

/*
 * A receive in place, for transports that hold messages in memory of their
 * own (shm): the same waiting as blk_recv, and no descriptor to time out.
 */
static ssize_t blk_recv_view(struct ipc_io *io, const void **msg, size_t len)
{
	struct ipc_ep *ep = io->ep;
	ssize_t n;

	if (!ep->ops->recv_view)
		return -EOPNOTSUPP;
	for (;;) {
		n = ep->ops->recv_view(ep, msg, len);
		if (n != -EINTR)
			return n;
		if (eng_interrupted(io))
			return -ECANCELED;
	}
}

/* A new connection: the timeout is put in force on it at its first
 * receive. */
static int blk_reattach(struct ipc_io *io, struct ipc_ep *ep)
{
	struct blk *b = io->priv;

	io->ep = ep;
	if (b) {
		b->applied_ns = 0;
		b->sock_ns = ~0ull;
		b->not_sock = false;
	}
	return 0;
}

/* The watchdog goes with the engine: nothing of it outlives detach. */
static void blk_detach(struct ipc_io *io)
{
	struct blk *b = io->priv;

	if (b && b->timer_state > 0)
		timer_delete(b->timer);
	free(b);
	io->priv = NULL;
}

const struct ipc_engine_ops ipc_eng_blocking = {
	.name = "blocking",
	.help = "one blocking system call per send and receive",
	.caps = 0,
	.attach = blk_attach,
	.send = blk_send,
	.recv = blk_recv,
	.recv_view = blk_recv_view,
	.detach = blk_detach,
	.reattach = blk_reattach,
};

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
 * receive that then succeeds costs one more system call, four times a
 * second at most.  The timer works on every descriptor (SO_RCVTIMEO only
 * on sockets); where it cannot be made (the wake signal has a foreign
 * handler) the engine falls back to SO_RCVTIMEO on sockets.
 */
#define TICKS_PER_TIMEOUT 4

struct blk {
	uint64_t applied_ns; /* the timeout in force, 0: none */
	uint64_t tick_ns;    /* the watchdog's period, 0: disarmed */
	uint64_t calls;	     /* receives begun */
	uint64_t woken_call; /* calls when the watchdog last interrupted */
	uint64_t woken_ns;   /* when it first interrupted that receive */
	timer_t timer;	     /* the watchdog, aimed at the receiving thread */
	int timer_state;     /* 0: not made yet, 1: made, -1: SO_RCVTIMEO */
};

static void set_rcvtimeo(int fd, uint64_t ns)
{
	struct timeval tv;

	tv.tv_sec = (time_t)(ns / 1000000000u);
	tv.tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
	if (ns && !tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1; /* 0 would mean forever */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/*
 * Put io->timeout_ns in force: the watchdog's period follows it (0:
 * disarmed) and the socket keeps no timeout of its own (the transport
 * sets one on lossy sockets, for callers without an engine); without a
 * watchdog, SO_RCVTIMEO.  Only when the timeout changed (a pattern
 * shortening one wait) or the endpoint is new, so the common path costs
 * nothing.
 */
static void apply_timeout(struct ipc_io *io, struct blk *b)
{
	uint64_t tick = io->timeout_ns / TICKS_PER_TIMEOUT;
	struct itimerspec its = {{0, 0}, {0, 0}};

	b->applied_ns = io->timeout_ns;
	if (io->timeout_ns && !b->timer_state)
		b->timer_state = ipc_wake_timer_new(&b->timer) ? -1 : 1;
	if (b->timer_state < 0) {
		set_rcvtimeo(io->ep->rfd, io->timeout_ns);
		return;
	}
	set_rcvtimeo(io->ep->rfd, 0); /* fails harmlessly on a non-socket */
	if (!b->timer_state)
		return; /* no timeout yet: no watchdog yet */
	if (io->timeout_ns && !tick)
		tick = 1;
	if (tick == b->tick_ns)
		return;
	its.it_value.tv_sec = (time_t)(tick / 1000000000u);
	its.it_value.tv_nsec = (long)(tick % 1000000000u);
	its.it_interval = its.it_value;
	timer_settime(b->timer, 0, &its, NULL);
	b->tick_ns = tick;
	b->woken_call = b->calls - 1; /* a tick of the old period is no start */
}

/*
 * A receive came back with EINTR and no stop was asked for: has it waited
 * its timeout?  The first interruption of a receive only notes when.
 */
static bool timed_out(struct blk *b)
{
	uint64_t now;

	if (!b->tick_ns)
		return false;
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

/* A new connection: its socket's timeout is put in force at its first
 * receive. */
static int blk_reattach(struct ipc_io *io, struct ipc_ep *ep)
{
	struct blk *b = io->priv;

	io->ep = ep;
	if (b)
		b->applied_ns = 0;
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

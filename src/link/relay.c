/* SPDX-License-Identifier: MIT */
/*
 * The link relay: a thread that sits between the client and the server on
 * two real channels of the same transport and forwards each direction
 * through a shaper.  Bytes that arrive are stamped, queued with the time
 * they are due, and written out when that time comes; one ppoll waits for
 * input, for room to write, and for the next due time at once.
 *
 *   client ep ══ cch ══> a ──[queue c2s]──> b ══ server_ch ══> server ep
 *             <═══════   a <──[queue s2c]── b <═══════════
 *
 * Timing: the thread asks for a 1 ns timer slack, so ppoll wakes at the
 * asked time plus the scheduler's wake-up latency (tens of µs on a busy
 * VM).  The relay learns that latency (a running average of how late its
 * timed wake-ups were), asks to wake that much before the due time, and
 * spins the rest.  docs/links.md gives the measured accuracy.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/base.h"
#include "ipcperf/link.h"
#include "base/lib_internal.h"
#include "link/lib_internal.h"
#include "transport/lib_internal.h"

/*
 * Bytes held in flight per direction.  On a byte stream the sender then
 * waits (a TCP window); datagrams have no such brake and would be lost at
 * the relay's socket, so their queue is larger, like a router's that
 * takes a burst.
 */
#define RELAY_BUF_STREAM (1u << 20)
#define RELAY_BUF_DGRAM (8u << 20)
/*
 * Timed wake-ups are asked for this much early at most, the rest spun: a
 * bound on the CPU a relay burns per piece when the machine is slow to
 * wake a thread.
 */
#define RELAY_LATE_MAX 200000

/* Pieces held per direction (a piece is at most one mtu or one datagram). */
#define RELAY_SEGS_STREAM 8192
#define RELAY_SEGS_DGRAM 65536

/* One queued piece: bytes buf[off, off + len) leave at due_ns. */
struct seg {
	size_t off;
	size_t len;
	uint64_t due_ns;
	bool drop;
};

/* One direction: from src to dst through a shaper. */
struct dir {
	const char *from, *to; /* "client", "server" */
	struct ipc_ep *src, *dst;
	struct ipc_shaper sh;
	uint8_t *buf;
	size_t cap;
	size_t head, tail; /* data starts at head; new data goes to tail */
	size_t wrap_end;   /* when wrapped: data runs head..wrap_end, 0..tail */
	bool wrapped;
	struct seg *segs; /* ring of nsegs_max pieces */
	size_t nsegs_max;
	size_t shead, nseg;
	bool eof;	  /* src reached end of stream */
	bool blocked;	  /* dst was full: wait for POLLOUT */
	uint64_t bytes;	  /* delivered */
	uint64_t dropped; /* datagrams lost on purpose */
};

struct ipc_relay {
	struct ipc_link link;
	const struct ipc_transport_ops *tp;
	struct ipc_chan cch; /* the client's channel, ours to tear down */
	bool cch_set;
	struct ipc_chan *server_ch; /* the peer's channel */
	struct ipc_ep a, b;	    /* a: server side of cch, b: client side of
				      server_ch */
	struct dir d[2];	    /* [0] client to server, [1] back */
	size_t msg_max;		    /* largest datagram, bytes */
	struct ipc_cancel stop;	    /* fired to stop the thread */
	char name[40]; /* names cch's files: apart from server_ch */
	pthread_t thread;
	bool started;
	uint64_t late_ns; /* how late timed wake-ups come, ns */
	int err;	  /* first failure, -errno */
	char what[160];
};

__attribute__((format(printf, 3, 4))) static int
fail(struct ipc_relay *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return r->err;
	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
	return err;
}

static bool is_stream(const struct ipc_relay *r)
{
	return r->tp->caps & IPC_TP_STREAM;
}

/*
 * The byte ring: pieces are queued in order, each contiguous.  Unwrapped,
 * the data is head..tail and new data goes after tail (or, when that end
 * is too short, wraps to 0); wrapped, the data is head..wrap_end then
 * 0..tail, and the room is tail..head.  head is the first piece's offset.
 */

/* Contiguous room for at least @min bytes at the tail, or 0. */
static size_t room(struct dir *d, size_t min, uint8_t **p)
{
	size_t len;

	if (d->nseg >= d->nsegs_max)
		return 0;
	if (!d->wrapped) {
		if (d->cap - d->tail >= min) {
			*p = d->buf + d->tail;
			return d->cap - d->tail;
		}
		if (d->head < min)
			return 0;
		d->wrap_end = d->tail;
		d->tail = 0;
		d->wrapped = true;
	}
	len = d->head - d->tail;
	if (len < min || len == 0)
		return 0;
	*p = d->buf + d->tail;
	return len;
}

static void push(struct dir *d, size_t len, uint64_t due, bool drop)
{
	struct seg *s = &d->segs[(d->shead + d->nseg) % d->nsegs_max];

	s->off = d->tail;
	s->len = len;
	s->due_ns = due;
	s->drop = drop;
	d->nseg++;
	d->tail += len;
}

/* Forget @len delivered bytes of the first piece (the piece at its end). */
static void consume(struct dir *d, size_t len)
{
	struct seg *s = &d->segs[d->shead];
	size_t old = d->head;

	s->off += len;
	s->len -= len;
	if (s->len) {
		d->head = s->off;
		return;
	}
	d->shead = (d->shead + 1) % d->nsegs_max;
	d->nseg--;
	if (!d->nseg) {
		d->head = d->tail = 0;
		d->wrapped = false;
		return;
	}
	d->head = d->segs[d->shead].off;
	if (d->wrapped && d->head < old)
		d->wrapped = false; /* past wrap_end, into 0..tail */
}

/* Read what the source has, stamp it and queue it.  0 or -errno. */
static int take_in(struct ipc_relay *r, struct dir *d)
{
	const bool stream = is_stream(r);
	const size_t min = stream ? 1 : r->msg_max + 1;
	const bool lossy = (r->tp->caps & IPC_TP_LOSSY) != 0;

	while (!d->eof) {
		uint8_t *p;
		size_t len = room(d, min, &p), slots;
		ssize_t n;
		uint64_t t, due;
		bool drop;

		if (!len)
			return 0; /* full: the sender waits in its buffer */
		slots = (d->nsegs_max - d->nseg) * (size_t)r->link.mtu;
		if (stream && len > slots)
			len = slots; /* every piece gets a slot */
		n = d->src->ops->recv(d->src, p, len);
		if (n == -EINTR && ipc_cancelled(&r->stop))
			return 0; /* the loop sees it */
		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return fail(r, (int)n, "receive from the %s: %s",
				    d->from, strerror((int)-n));
		if (n == 0 && (stream || !(r->tp->caps & IPC_TP_EMPTY_MSG))) {
			d->eof = true;
			return 0;
		}
		t = ipc_now_ns();
		if (!stream) {
			due = ipc_shaper_due(&d->sh, t, (size_t)n, lossy,
					     &drop);
			push(d, (size_t)n, due, drop);
			continue;
		}
		/* A byte stream is clocked out in pieces of one mtu. */
		for (size_t done = 0; done < (size_t)n;) {
			size_t piece = (size_t)n - done;

			if (piece > r->link.mtu)
				piece = r->link.mtu;
			due = ipc_shaper_due(&d->sh, t, piece, false, &drop);
			push(d, piece, due, false);
			done += piece;
		}
	}
	return 0;
}

/*
 * Write every piece that is due by @now.  Returns 0, or 1 when the
 * destination is gone (its side closed), or -errno.
 */
static int put_out(struct ipc_relay *r, struct dir *d, uint64_t now)
{
	const bool stream = is_stream(r);

	while (d->nseg && !d->blocked) {
		struct seg *s = &d->segs[d->shead];
		size_t len = s->len;
		ssize_t n;

		if (s->due_ns > now)
			return 0;
		if (s->drop) {
			d->dropped++;
			consume(d, s->len);
			continue;
		}
		if (stream) {
			/* Join the due pieces that follow in memory. */
			for (size_t i = 1; i < d->nseg; i++) {
				const struct seg *t =
					&d->segs[(d->shead + i) % d->nsegs_max];

				if (t->due_ns > now || t->off != s->off + len)
					break;
				len += t->len;
			}
		}
		n = d->dst->ops->send(d->dst, d->buf + s->off, len);
		if (n == -EINTR && ipc_cancelled(&r->stop))
			return 1; /* asked to stop */
		if (n == -EINTR)
			continue;
		if (n == -EAGAIN) {
			d->blocked = true;
			return 0;
		}
		if (n == -EPIPE || n == -ECONNRESET || n == -ECONNREFUSED)
			return 1;
		if (n < 0)
			return fail(r, (int)n, "send to the %s: %s", d->to,
				    strerror((int)-n));
		d->bytes += (uint64_t)n;
		if (!stream) {
			if ((size_t)n != len)
				return fail(r, -EMSGSIZE,
					    "send to the %s: a %zu-byte "
					    "datagram went out as %zd bytes",
					    d->to, len, n);
			consume(d, len);
			continue;
		}
		for (size_t left = (size_t)n; left;) {
			size_t k = d->segs[d->shead].len;

			if (k > left)
				k = left;
			consume(d, k);
			left -= k;
		}
	}
	return 0;
}

/* The earliest due time of a direction that can write, or UINT64_MAX. */
static uint64_t next_due(const struct dir *d)
{
	if (!d->nseg || d->blocked)
		return UINT64_MAX;
	return d->segs[d->shead].due_ns;
}

static void add_fd(struct pollfd *p, int *n, int fd, short ev, int *slot)
{
	*slot = -1;
	if (fd < 0)
		return;
	p[*n].fd = fd;
	p[*n].events = ev;
	p[*n].revents = 0;
	*slot = (*n)++;
}

/*
 * The forwarding loop.  Ends when asked to stop, when a side closed and
 * everything it had sent on is delivered, or on a failure.
 */
static void relay_loop(struct ipc_relay *r)
{
	struct pollfd pfd[5];
	int in[2], outs[2], n, rc;
	uint64_t due, now, wake, late;
	struct timespec ts;

	for (;;) {
		if (ipc_cancelled(&r->stop))
			return;
		now = ipc_now_ns();
		for (int i = 0; i < 2; i++) {
			rc = put_out(r, &r->d[i], now);
			if (rc)
				return; /* a side is gone, or failed */
		}
		for (int i = 0; i < 2; i++)
			if (r->d[i].eof && !r->d[i].nseg)
				return; /* passed on, now pass the end on */
		n = 0;
		add_fd(pfd, &n, ipc_cancel_fd(&r->stop), POLLIN, &in[0]);
		for (int i = 0; i < 2; i++) {
			struct dir *d = &r->d[i];
			uint8_t *p;
			bool can_in =
				!d->eof &&
				room(d, is_stream(r) ? 1 : r->msg_max + 1, &p);

			add_fd(pfd, &n, can_in ? d->src->rfd : -1, POLLIN,
			       &in[i]);
			add_fd(pfd, &n, d->blocked ? d->dst->wfd : -1, POLLOUT,
			       &outs[i]);
		}
		due = next_due(&r->d[0]);
		if (next_due(&r->d[1]) < due)
			due = next_due(&r->d[1]);
		now = ipc_now_ns();
		wake = due;
		if (due != UINT64_MAX && due <= now) {
			ts.tv_sec = 0;
			ts.tv_nsec = 0;
		} else if (due != UINT64_MAX) {
			/* Ask to wake as early as wake-ups have been late. */
			wake = due - now > r->late_ns ? due - r->late_ns : now;
			ts.tv_sec = (time_t)((wake - now) / 1000000000u);
			ts.tv_nsec = (long)((wake - now) % 1000000000u);
		}
		rc = ppoll(pfd, (nfds_t)n, due == UINT64_MAX ? NULL : &ts,
			   NULL);
		if (rc < 0 && errno != EINTR) {
			fail(r, -errno, "poll: %s", strerror(errno));
			return;
		}
		if (rc == 0 && due != UINT64_MAX) {
			/*
			 * How late this wake-up was (an average of the last
			 * few, at most 200 us), then spin to the due time.
			 */
			now = ipc_now_ns();
			late = now > wake ? now - wake : 0;
			if (late > RELAY_LATE_MAX)
				late = RELAY_LATE_MAX;
			r->late_ns = (7 * r->late_ns + late) / 8;
			while (ipc_now_ns() < due && !ipc_cancelled(&r->stop))
				;
			continue;
		}
		if (rc < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			struct dir *d = &r->d[i];

			if (outs[i] >= 0 && pfd[outs[i]].revents)
				d->blocked = false;
			if (in[i] >= 0 && pfd[in[i]].revents &&
			    take_in(r, d) < 0)
				return;
		}
	}
}

/* Open an endpoint, retrying interrupted calls unless asked to stop. */
static int open_side(struct ipc_relay *r, struct ipc_chan *ch,
		     enum ipc_side side, struct ipc_ep *ep)
{
	int err;

	do
		err = r->tp->open(ch, side, ep);
	while (err == -EINTR && !ipc_cancelled(&r->stop));
	return err;
}

static int nonblock(struct ipc_ep *ep)
{
	int err = ipc_fd_set_nonblock(ep->rfd, true);

	if (!err && ep->wfd != ep->rfd)
		err = ipc_fd_set_nonblock(ep->wfd, true);
	return err;
}

/*
 * The thread watches its stop: an open() blocked on a FIFO or in accept()
 * is interrupted by the wake signal once the stop is fired (and again
 * every 10 ms, should it land just before the call blocks).
 */
static void *relay_thread(void *arg)
{
	struct ipc_relay *r = arg;
	int err, w;

	/* Wake at the due time, not up to 50 µs after it (the default). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	w = ipc_cancel_watch(&r->stop);
	if (w < 0) {
		fail(r, w, "watch the relay's stop: %s", strerror(-w));
		open_side(r, &r->cch, IPC_SERVER, &r->a); /* as below */
		goto out;
	}
	err = open_side(r, r->server_ch, IPC_CLIENT, &r->b);
	if (err) {
		fail(r, err, "open the server's channel: %s", strerror(-err));
		/* Let the client's open finish: it then sees the end. */
		if (!ipc_cancelled(&r->stop))
			open_side(r, &r->cch, IPC_SERVER, &r->a);
		goto out;
	}
	err = open_side(r, &r->cch, IPC_SERVER, &r->a);
	if (err) {
		fail(r, err, "open the client's channel: %s", strerror(-err));
		goto out;
	}
	err = nonblock(&r->a);
	if (!err)
		err = nonblock(&r->b);
	if (err) {
		fail(r, err, "make the relay non-blocking: %s", strerror(-err));
		goto out;
	}
	relay_loop(r);
out:
	ipc_cancel_unwatch(&r->stop, w);
	/* Closing passes the end of the conversation on to both sides. */
	r->tp->close(&r->a);
	r->tp->close(&r->b);
	return NULL;
}

static void dir_init(struct dir *d, const char *from, const char *to,
		     struct ipc_ep *src, struct ipc_ep *dst,
		     const struct ipc_link *l, uint64_t seed)
{
	d->from = from;
	d->to = to;
	d->src = src;
	d->dst = dst;
	ipc_shaper_init(&d->sh, l, seed);
}

static void relay_release(struct ipc_relay *r)
{
	if (r->cch_set)
		r->tp->teardown(&r->cch);
	ipc_cancel_fini(&r->stop);
	for (int i = 0; i < 2; i++) {
		free(r->d[i].buf);
		free(r->d[i].segs);
	}
	free(r);
}

int ipc_relay_start(struct ipc_relay **out, const struct ipc_link *l,
		    const struct ipc_transport_ops *tp,
		    const struct ipc_tp_opts *opts, struct ipc_chan *server_ch,
		    struct ipc_chan **client_ch)
{
	struct ipc_relay *r;
	struct ipc_tp_opts copts = *opts;
	uint64_t seed = ipc_now_ns();
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->link = *l;
	if (!r->link.mtu)
		r->link.mtu = 1448;
	r->tp = tp;
	r->server_ch = server_ch;
	r->stop.fd = -1;
	r->a = (struct ipc_ep){.rfd = -1, .wfd = -1, .cancel = &r->stop};
	r->b = (struct ipc_ep){.rfd = -1, .wfd = -1, .cancel = &r->stop};
	r->msg_max = opts->max_msg ? opts->max_msg : 1;
	for (int i = 0; i < 2; i++) {
		struct dir *d = &r->d[i];

		d->cap = is_stream(r) ? RELAY_BUF_STREAM : RELAY_BUF_DGRAM;
		if (!is_stream(r) && d->cap < 2 * r->msg_max + 4096)
			d->cap = 2 * r->msg_max + 4096;
		d->nsegs_max =
			is_stream(r) ? RELAY_SEGS_STREAM : RELAY_SEGS_DGRAM;
		/* Large and lazily faulted in: only what is used costs. */
		d->buf = malloc(d->cap);
		d->segs = calloc(d->nsegs_max, sizeof(*d->segs));
		if (!d->buf || !d->segs) {
			err = -ENOMEM;
			goto fail;
		}
	}
	dir_init(&r->d[0], "client", "server", &r->a, &r->b, &r->link, seed);
	dir_init(&r->d[1], "server", "client", &r->b, &r->a, &r->link,
		 seed * 0x9e3779b97f4a7c15ull + 1);
	err = ipc_cancel_init(&r->stop);
	if (err)
		goto fail;
	/* Its own names, next to the server channel's, and no target. */
	snprintf(r->name, sizeof(r->name), "%s-link",
		 opts->name ? opts->name : "0");
	copts.name = r->name;
	copts.target = NULL;
	ipc_chan_init(&r->cch, tp, &copts);
	err = tp->setup(&r->cch);
	if (err)
		goto fail;
	r->cch_set = true;
	err = ipc_thread_start(&r->thread, relay_thread, r);
	if (err)
		goto fail;
	r->started = true;
	*out = r;
	*client_ch = &r->cch;
	return 0;
fail:
	relay_release(r);
	return err;
}

int ipc_relay_stop(struct ipc_relay *r)
{
	if (!r)
		return 0;
	if (r->started) {
		/* The loop sees the descriptor, a blocked open the signal. */
		ipc_cancel_fire(&r->stop);
		pthread_join(r->thread, NULL);
		r->started = false;
	}
	return r->err;
}

const char *ipc_relay_error(const struct ipc_relay *r)
{
	return r && r->err ? r->what : "";
}

void ipc_relay_get_stats(const struct ipc_relay *r, struct ipc_relay_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!r)
		return;
	st->bytes_c2s = r->d[0].bytes;
	st->bytes_s2c = r->d[1].bytes;
	st->dropped = r->d[0].dropped + r->d[1].dropped;
}

void ipc_relay_free(struct ipc_relay *r)
{
	if (!r)
		return;
	ipc_relay_stop(r);
	relay_release(r);
}

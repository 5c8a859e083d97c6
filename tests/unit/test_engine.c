/* SPDX-License-Identifier: MIT */
/*
 * Every registered engine on every registered transport, through the ops
 * tables only: patterned round trips (small, a page, and on byte streams a
 * transfer larger than any socket buffer, so sends come back short), the
 * receive timeout and what happens to data that arrives after it, the flow
 * sets: many flows echoing at once, a cancelled receive, and what an epoll
 * set keeps registered in a request/response loop; and a side's
 * stop, which must end every kind of wait, also when it came first.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/engine.h"
#include "ipcperf/transport.h"

#include "../helpers.h"
#include "../tap.h"
#include "base/lib_internal.h"
#include "engine/lib_internal.h"
#include "transport/lib_internal.h"

/* Round-trip sizes; 300000 is larger than any default socket buffer. */
static const size_t sizes[] = {0, 1, 4095, 300000};

/* A lost datagram must not hang the test. */
#define TIMEOUT_NS 3000000000ull

/* The timeout test waits this long for nothing. */
#define SHORT_NS 30000000ull

/* A timeout short enough for a socket's own SO_RCVTIMEO (blocking.c). */
#define TINY_NS 5000000ull

/* A timeout that the wake test must not reach. */
#define LONG_NS 10000000000ull

/* Flows in the flow-set test. */
#define NFLOWS 24

static char dir[256];

static bool is_stream(const struct ipc_transport_ops *tp)
{
	return tp->caps & IPC_TP_STREAM;
}

static void fill(unsigned char *buf, size_t n, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)(x >> 24);
	}
}

static void opts_for(struct ipc_tp_opts *o, size_t max_msg)
{
	memset(o, 0, sizeof(*o));
	o->dir = dir;
	o->max_msg = max_msg;
	o->timeout_ns = TIMEOUT_NS;
}

static size_t max_msg_of(const struct ipc_transport_ops *tp, size_t want)
{
	struct ipc_tp_opts o;

	opts_for(&o, want);
	return tp->max_msg ? tp->max_msg(&o) : SIZE_MAX;
}

/* Send all @n bytes (a stream may take several calls) or one message. */
static int io_send_all(struct ipc_io *io, const unsigned char *buf, size_t n,
		       bool stream)
{
	size_t done = 0;
	ssize_t r;

	do {
		r = io->eng->send(io, buf + done, n - done);
		if (r < 0)
			return (int)r;
		if (!stream && (size_t)r != n)
			return -EIO;
		done += (size_t)r;
	} while (done < n);
	return 0;
}

/* Receive exactly @n bytes or one message of @n (@buf holds @n + 1). */
static int io_recv_all(struct ipc_io *io, unsigned char *buf, size_t n,
		       bool stream)
{
	size_t done = 0;
	ssize_t r;

	if (!stream) {
		r = io->eng->recv(io, buf, n + 1);
		if (r < 0)
			return (int)r;
		return (size_t)r == n ? 0 : -EIO;
	}
	while (done < n) {
		r = io->eng->recv(io, buf + done, n - done);
		if (r < 0)
			return (int)r;
		if (!r)
			return -EPIPE;
		done += (size_t)r;
	}
	return 0;
}

struct peer {
	const struct ipc_engine_ops *eng;
	struct ipc_chan *ch;
	size_t n;
	unsigned char *buf;
	int rc;
};

/* Open the server side, echo one message through the engine, close. */
static void *echo(void *arg)
{
	struct peer *p = arg;
	const struct ipc_transport_ops *tp = p->ch->ops;
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	struct ipc_io io = {.eng = p->eng, .ep = &ep, .cancel = NULL};
	int rc;

	rc = tp->open(p->ch, IPC_SERVER, &ep);
	if (rc < 0)
		goto out;
	io.timeout_ns = (tp->caps & IPC_TP_LOSSY) ? TIMEOUT_NS : 0;
	rc = p->eng->attach(&io);
	if (rc < 0)
		goto out_close;
	rc = io_recv_all(&io, p->buf, p->n, is_stream(tp));
	if (!rc)
		rc = io_send_all(&io, p->buf, p->n, is_stream(tp));
	/*
	 * On a byte stream close only after the client did, as the runner's
	 * servers do: a pty master that closes first throws away what the
	 * slave has not read yet.
	 */
	if (!rc && is_stream(tp)) {
		unsigned char c;

		while (p->eng->recv(&io, &c, 1) > 0)
			;
	}
	p->eng->detach(&io);
out_close:
	tp->close(&ep);
out:
	p->rc = rc;
	return NULL;
}

static void round_trip(const struct ipc_engine_ops *eng,
		       const struct ipc_transport_ops *tp, size_t n)
{
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	struct ipc_io io = {.eng = eng, .ep = &ep, .cancel = NULL};
	struct peer p = {.eng = eng, .n = n};
	unsigned char *tx = malloc(n + 1), *rx = malloc(n + 1);
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	pthread_t t;
	bool attached = false;
	int rc;

	p.buf = malloc(n + 1);
	if (!tx || !rx || !p.buf) {
		ok(0, "%s on %s n=%zu: buffers", eng->name, tp->name, n);
		goto out_free;
	}
	fill(tx, n, (uint32_t)n + 7);
	memset(rx, 0, n + 1);
	opts_for(&o, n);
	ipc_chan_init(&ch, tp, &o);
	rc = tp->setup(&ch);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s on %s n=%zu: setup", eng->name,
		       tp->name, n);
		goto out_free;
	}
	p.ch = &ch;
	rc = -pthread_create(&t, NULL, echo, &p);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s on %s n=%zu: peer thread", eng->name,
		       tp->name, n);
		goto out_teardown;
	}
	rc = tp->open(&ch, IPC_CLIENT, &ep);
	if (!rc) {
		io.timeout_ns = (tp->caps & IPC_TP_LOSSY) ? TIMEOUT_NS : 0;
		rc = eng->attach(&io);
		attached = !rc;
	}
	if (!rc)
		rc = io_send_all(&io, tx, n, is_stream(tp));
	if (!rc)
		rc = io_recv_all(&io, rx, n, is_stream(tp));
	if (attached)
		eng->detach(&io);
	tp->close(&ep);
	pthread_join(t, NULL);
	is_int(rc, "==", 0, "%s on %s n=%zu: client sends and receives",
	       eng->name, tp->name, n);
	ok(!rc && !memcmp(tx, rx, n), "%s on %s n=%zu: payload intact",
	   eng->name, tp->name, n);
	is_int(p.rc, "==", 0, "%s on %s n=%zu: peer echoed", eng->name,
	       tp->name, n);
out_teardown:
	tp->teardown(&ch);
out_free:
	free(tx);
	free(rx);
	free(p.buf);
}

/*
 * POSIX timers this process has (the "ID:" lines of /proc/self/timers), or
 * -1 where the kernel does not list them.
 */
static int count_timers(void)
{
	FILE *f = fopen("/proc/self/timers", "r");
	char line[128];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "ID:", 3);
	fclose(f);
	return n;
}

/*
 * Over udp, and over a pipe (no socket: a timeout cannot rest on
 * SO_RCVTIMEO there): a receive with nothing to receive times out, and a
 * message that arrives afterwards is received whole by the next receive
 * (the cancelled one did not swallow it).  With a timeout the blocking
 * engine watches with its timer (@timeout_ns of SHORT_NS: one more timer
 * while attached, none after) and with one it leaves to a socket's
 * SO_RCVTIMEO (TINY_NS).
 */
static void timeout_then_data(const struct ipc_engine_ops *eng,
			      const struct ipc_transport_ops *tp,
			      uint64_t timeout_ns)
{
	struct ipc_ep c = {.rfd = -1, .wfd = -1}, s = {.rfd = -1, .wfd = -1};
	struct ipc_io io = {.eng = eng, .ep = &c, .cancel = NULL};
	unsigned char msg[64], got[65];
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	ssize_t r;
	int rc, timers0;

	opts_for(&o, sizeof(msg));
	o.timeout_ns = timeout_ns;
	ipc_chan_init(&ch, tp, &o);
	rc = tp->setup(&ch);
	if (!rc)
		rc = tp->open(&ch, IPC_CLIENT, &c);
	if (!rc)
		rc = tp->open(&ch, IPC_SERVER, &s);
	io.timeout_ns = timeout_ns;
	timers0 = count_timers();
	if (!rc)
		rc = eng->attach(&io);
	if (rc) {
		is_int(rc, "==", 0, "%s on %s: set up the timeout test",
		       eng->name, tp->name);
		goto out;
	}
	if (eng == ipc_engine_find("blocking") && timers0 >= 0 &&
	    timeout_ns >= SHORT_NS)
		is_int(count_timers(), "==", timers0 + 1,
		       "blocking on %s: the receive watchdog is one timer",
		       tp->name);
	r = eng->recv(&io, got, sizeof(got));
	is_int(r, "==", -ETIMEDOUT,
	       "%s on %s: a receive with no data times out (%llu ms)",
	       eng->name, tp->name, (unsigned long long)(timeout_ns / 1000000));
	fill(msg, sizeof(msg), 99);
	r = tp->send(&s, msg, sizeof(msg));
	is_int(r, "==", (ssize_t)sizeof(msg), "%s on %s: peer sends later",
	       eng->name, tp->name);
	r = eng->recv(&io, got, sizeof(got));
	ok(r == (ssize_t)sizeof(msg) && !memcmp(msg, got, sizeof(msg)),
	   "%s on %s: the late datagram arrives whole after the timeout",
	   eng->name, tp->name);
	eng->detach(&io);
	if (timers0 >= 0)
		is_int(count_timers(), "==", timers0,
		       "%s on %s: detach leaves no timer behind", eng->name,
		       tp->name);
out:
	tp->close(&c);
	tp->close(&s);
	tp->teardown(&ch);
}

/* Wakes a thread three times with the wake signal, then sends. */
struct waker {
	pthread_t victim;
	const struct ipc_transport_ops *tp;
	struct ipc_ep *ep;
	const unsigned char *msg;
	size_t len;
	ssize_t sent;
};

static void *wake_then_send(void *arg)
{
	const struct timespec ms5 = {0, 5000000};
	struct waker *w = arg;

	for (int i = 0; i < 3; i++) {
		nanosleep(&ms5, NULL);
		pthread_kill(w->victim, ipc_wake_signal());
	}
	nanosleep(&ms5, NULL);
	w->sent = w->tp->send(w->ep, w->msg, w->len);
	return NULL;
}

/*
 * A receive that the wake signal interrupts (as the blocking engine's
 * watchdog does four times per timeout) before its message comes, and
 * whose side was not asked to stop, goes on waiting: it returns the
 * message, neither EINTR nor a timeout (which is 10 s here).
 */
static void woken_then_data(const struct ipc_engine_ops *eng,
			    const struct ipc_transport_ops *tp)
{
	struct ipc_ep c = {.rfd = -1, .wfd = -1}, s = {.rfd = -1, .wfd = -1};
	struct ipc_io io = {.eng = eng, .ep = &c, .cancel = NULL};
	unsigned char msg[64], got[65];
	struct waker w = {.tp = tp, .ep = &s, .msg = msg, .len = sizeof(msg)};
	struct ipc_cancel handler; /* installs the wake signal's handler */
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	bool attached = false;
	pthread_t t;
	ssize_t r;
	int rc;

	rc = ipc_cancel_init(&handler);
	opts_for(&o, sizeof(msg));
	o.timeout_ns = LONG_NS;
	ipc_chan_init(&ch, tp, &o);
	if (!rc)
		rc = tp->setup(&ch);
	if (!rc)
		rc = tp->open(&ch, IPC_CLIENT, &c);
	if (!rc)
		rc = tp->open(&ch, IPC_SERVER, &s);
	io.timeout_ns = o.timeout_ns;
	if (!rc)
		rc = eng->attach(&io);
	attached = !rc;
	fill(msg, sizeof(msg), 7);
	w.victim = pthread_self();
	if (!rc)
		rc = -pthread_create(&t, NULL, wake_then_send, &w);
	if (rc) {
		is_int(rc, "==", 0, "%s on %s: set up the wake test", eng->name,
		       tp->name);
		goto out;
	}
	r = eng->recv(&io, got, sizeof(got));
	pthread_join(t, NULL);
	ok(w.sent == (ssize_t)sizeof(msg) && r == (ssize_t)sizeof(msg) &&
		   !memcmp(msg, got, sizeof(msg)),
	   "%s on %s: a receive woken three times still gets its message "
	   "(%zd)",
	   eng->name, tp->name, r);
out:
	if (attached)
		eng->detach(&io);
	tp->close(&c);
	tp->close(&s);
	tp->teardown(&ch);
	ipc_cancel_fini(&handler);
}

/* Both ends of one connection, opened in this thread (the server waits). */
struct opener {
	struct ipc_chan *ch;
	struct ipc_ep *ep;
	int rc;
};

static void *open_server(void *arg)
{
	struct opener *o = arg;

	o->rc = o->ch->ops->open(o->ch, IPC_SERVER, o->ep);
	return NULL;
}

static int open_pair(struct ipc_chan *ch, struct ipc_ep *c, struct ipc_ep *s)
{
	struct opener o = {.ch = ch, .ep = s};
	pthread_t t;
	int rc;

	*c = (struct ipc_ep){.rfd = -1, .wfd = -1};
	*s = (struct ipc_ep){.rfd = -1, .wfd = -1};
	rc = -pthread_create(&t, NULL, open_server, &o);
	if (rc)
		return rc;
	rc = ch->ops->open(ch, IPC_CLIENT, c);
	pthread_join(t, NULL);
	return rc ? rc : o.rc;
}

/* Per flow of the flow-set test: a request goes out and comes back. */
struct fl {
	unsigned char tx[1000], rx[1000], echo[1000];
	size_t sent, got, esent, egot; /* progress of the four transfers */
};

/*
 * NFLOWS connections over @tp, both ends in one flow set of this thread
 * (flow 2i the client, 2i+1 the server): each client sends 1000 bytes, the
 * server echoes them, the client checks them.  Short sends and receives
 * are continued from where they stopped.
 */
static void flowset_echo(const struct ipc_engine_ops *eng,
			 const struct ipc_transport_ops *tp)
{
	static struct fl f[NFLOWS];
	struct ipc_ep eps[2 * NFLOWS];
	struct ipc_fdone done[16];
	struct ipc_fset *fs = NULL;
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	unsigned finished = 0, opened = 0, rounds = 0;
	bool stream = is_stream(tp), intact = true;
	int rc, n;

	opts_for(&o, sizeof(f[0].tx));
	ipc_chan_init(&ch, tp, &o);
	rc = tp->setup(&ch);
	for (unsigned i = 0; !rc && i < NFLOWS; i++, opened++)
		rc = open_pair(&ch, &eps[2 * i], &eps[2 * i + 1]);
	if (!rc)
		rc = eng->fs_new(&fs, 2 * NFLOWS, NULL);
	for (unsigned i = 0; !rc && i < 2 * NFLOWS; i++)
		rc = eng->fs_add(fs, i, &eps[i]);
	for (unsigned i = 0; !rc && i < NFLOWS; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		fill(f[i].tx, sizeof(f[i].tx), i + 1);
		rc = eng->fs_send(fs, 2 * i, f[i].tx, sizeof(f[i].tx));
		if (!rc)
			rc = eng->fs_recv(fs, 2 * i + 1, f[i].echo,
					  sizeof(f[i].echo));
	}
	if (rc) {
		is_int(rc, "==", 0, "%s on %s: set up %d flows", eng->name,
		       tp->name, NFLOWS);
		goto out;
	}
	while (!rc && finished < NFLOWS && rounds++ < 100000) {
		n = eng->fs_wait(fs, done, 16, TIMEOUT_NS);
		if (n <= 0) {
			rc = n ? n : -ETIMEDOUT;
			break;
		}
		for (int k = 0; !rc && k < n; k++) {
			uint32_t id = done[k].flow, i = id / 2;
			ssize_t r = done[k].res;
			bool srv = id & 1;
			struct fl *x = &f[i];

			if (r <= 0 && !(r == 0 && done[k].op == IPC_FOP_SEND)) {
				rc = r ? (int)r : -EPIPE;
				break;
			}
			if (!srv && done[k].op == IPC_FOP_SEND) {
				x->sent += (size_t)r;
				if (x->sent < sizeof(x->tx))
					rc = eng->fs_send(
						fs, id, x->tx + x->sent,
						sizeof(x->tx) - x->sent);
				else
					rc = eng->fs_recv(fs, id, x->rx,
							  sizeof(x->rx));
			} else if (srv && done[k].op == IPC_FOP_RECV) {
				x->egot += (size_t)r;
				if (stream && x->egot < sizeof(x->echo))
					rc = eng->fs_recv(
						fs, id, x->echo + x->egot,
						sizeof(x->echo) - x->egot);
				else
					rc = eng->fs_send(fs, id, x->echo,
							  sizeof(x->echo));
			} else if (srv) {
				x->esent += (size_t)r;
				if (x->esent < sizeof(x->echo))
					rc = eng->fs_send(
						fs, id, x->echo + x->esent,
						sizeof(x->echo) - x->esent);
			} else {
				x->got += (size_t)r;
				if (stream && x->got < sizeof(x->rx)) {
					rc = eng->fs_recv(
						fs, id, x->rx + x->got,
						sizeof(x->rx) - x->got);
				} else {
					intact &= !memcmp(x->tx, x->rx,
							  sizeof(x->rx));
					finished++;
				}
			}
		}
	}
	is_int(rc, "==", 0, "%s on %s: %d flows in one set complete", eng->name,
	       tp->name, NFLOWS);
	is_int(finished, "==", NFLOWS, "%s on %s: every flow got its echo",
	       eng->name, tp->name);
	ok(intact, "%s on %s: every echo intact", eng->name, tp->name);
out:
	eng->fs_free(fs);
	for (unsigned i = 0; i < 2 * opened; i++)
		tp->close(&eps[i]);
	tp->teardown(&ch);
}

/*
 * A receive with nothing coming is cancelled (-ECANCELED); then data sent
 * afterwards arrives whole through a new receive, and fs_del and fs_add
 * move the flow to a new connection.
 */
static void flowset_cancel(const struct ipc_engine_ops *eng,
			   const struct ipc_transport_ops *tp)
{
	struct ipc_ep c = {.rfd = -1, .wfd = -1}, s = {.rfd = -1, .wfd = -1};
	struct ipc_fset *fs = NULL;
	struct ipc_fdone d;
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	char buf[16] = {0};
	ssize_t r;
	int rc, n;

	opts_for(&o, 16);
	ipc_chan_init(&ch, tp, &o);
	rc = tp->setup(&ch);
	if (!rc)
		rc = open_pair(&ch, &c, &s);
	if (!rc)
		rc = eng->fs_new(&fs, 1, NULL);
	if (!rc)
		rc = eng->fs_add(fs, 0, &c);
	if (!rc)
		rc = eng->fs_recv(fs, 0, buf, sizeof(buf));
	if (rc) {
		is_int(rc, "==", 0, "%s on %s: set up the cancel test",
		       eng->name, tp->name);
		goto out;
	}
	n = eng->fs_wait(fs, &d, 1, (int64_t)SHORT_NS);
	is_int(n, "==", 0, "%s on %s: wait with nothing coming times out",
	       eng->name, tp->name);
	r = eng->fs_cancel(fs, 0, IPC_FOP_RECV);
	is_int(r, "==", -ECANCELED, "%s on %s: the receive is cancelled",
	       eng->name, tp->name);
	r = tp->send(&s, "hello", 5);
	rc = eng->fs_recv(fs, 0, buf, sizeof(buf));
	n = rc ? rc : eng->fs_wait(fs, &d, 1, (int64_t)TIMEOUT_NS);
	ok(r == 5 && n == 1 && d.res == 5 && !memcmp(buf, "hello", 5),
	   "%s on %s: a new receive gets what came after the cancel", eng->name,
	   tp->name);
	rc = eng->fs_del(fs, 0);
	if (!rc)
		rc = eng->fs_add(fs, 0, &s);
	if (!rc)
		rc = eng->fs_send(fs, 0, "back", 4);
	n = rc ? rc : eng->fs_wait(fs, &d, 1, (int64_t)TIMEOUT_NS);
	r = n == 1 ? tp->recv(&c, buf, sizeof(buf)) : -1;
	ok(n == 1 && d.op == IPC_FOP_SEND && d.res == 4 && r == 4,
	   "%s on %s: a flow moved to the other end sends", eng->name,
	   tp->name);
out:
	eng->fs_free(fs);
	tp->close(&c);
	tp->close(&s);
	tp->teardown(&ch);
}

/*
 * The events flow set @epfd (an epoll descriptor) has registered for @fd,
 * read from /proc/self/fdinfo; 0: @fd is not registered; -1: unreadable.
 */
static long ep_events_of(int epfd, int fd)
{
	char path[64], line[256];
	long ev = 0;
	FILE *f;
	int tfd;
	unsigned x;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", epfd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "tfd: %d events: %x", &tfd, &x) == 2 &&
		    tfd == fd)
			ev = (long)x;
	fclose(f);
	return ev;
}

/* Is @fd an epoll descriptor? */
static bool is_epoll_fd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:[eventpoll]");
}

/*
 * A flow set over epoll keeps a flow registered for input between one
 * receive's completion and the next receive, and never for output once its
 * send is done, so that a request/response loop costs no epoll_ctl; a
 * readiness report with no receive pending drops the registration, and
 * what came is read by the next receive.  (Checked on the epoll set's
 * registrations in /proc/self/fdinfo; engines without one are skipped.)
 */
static void flowset_steady(const struct ipc_engine_ops *eng,
			   const struct ipc_transport_ops *tp)
{
	struct ipc_ep c = {.rfd = -1, .wfd = -1}, s = {.rfd = -1, .wfd = -1};
	struct ipc_fset *fs = NULL;
	struct ipc_fdone d;
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	char buf[16] = {0};
	bool stayed = true, in_only = true;
	int rc, n = 0, epfd;

	opts_for(&o, 16);
	ipc_chan_init(&ch, tp, &o);
	rc = tp->setup(&ch);
	if (!rc)
		rc = open_pair(&ch, &c, &s);
	epfd = rc ? -1 : dup(0); /* the lowest free descriptor */
	if (epfd >= 0)
		close(epfd);
	if (!rc)
		rc = eng->fs_new(&fs, 1, NULL);
	if (!rc)
		rc = eng->fs_add(fs, 0, &c);
	if (rc) {
		is_int(rc, "==", 0, "%s on %s: set up the steady-state test",
		       eng->name, tp->name);
		goto out;
	}
	if (epfd < 0 || !is_epoll_fd(epfd)) {
		ok(strcmp(eng->name, "epoll") != 0,
		   "%s: only an engine other than epoll has no epoll set",
		   eng->name);
		skip("%s: no epoll set to look into", eng->name);
		goto out;
	}
	for (int i = 0; i < 5 && !rc; i++) {
		rc = eng->fs_recv(fs, 0, buf, sizeof(buf));
		if (!rc)
			rc = eng->fs_send(fs, 0, "ping", 4);
		if (!rc && tp->send(&s, "pong", 4) != 4)
			rc = -EIO;
		n = 0;
		while (!rc && n >= 0 && !(n == 1 && d.op == IPC_FOP_RECV))
			n = eng->fs_wait(fs, &d, 1, (int64_t)TIMEOUT_NS);
		if (!rc && (n != 1 || d.res != 4 || tp->recv(&s, buf, 16) != 4))
			rc = n < 0 ? n : -EIO;
		stayed &= ep_events_of(epfd, c.rfd) > 0;
		in_only &= (ep_events_of(epfd, c.rfd) & (EPOLLIN | EPOLLOUT)) ==
			   EPOLLIN;
	}
	is_int(rc, "==", 0, "%s on %s: five exchanges on one flow", eng->name,
	       tp->name);
	ok(stayed, "%s on %s: a flow stays registered between receives",
	   eng->name, tp->name);
	ok(in_only, "%s on %s: for input only once its send is done", eng->name,
	   tp->name);
	/* Data with no receive pending: reported once, then dropped. */
	rc = tp->send(&s, "late", 4) == 4 ? 0 : -EIO;
	{
		/* Nagle may hold it until an ACK: wait until it is there. */
		struct pollfd p = {.fd = c.rfd, .events = POLLIN};

		if (!rc && poll(&p, 1, (int)(TIMEOUT_NS / 1000000)) != 1)
			rc = -ETIMEDOUT;
	}
	n = rc ? rc : eng->fs_wait(fs, &d, 1, (int64_t)SHORT_NS);
	is_int(n, "==", 0, "%s on %s: no completion without a receive",
	       eng->name, tp->name);
	is_int(ep_events_of(epfd, c.rfd), "==", 0,
	       "%s on %s: a report with no receive pending unregisters it",
	       eng->name, tp->name);
	rc = eng->fs_recv(fs, 0, buf, sizeof(buf));
	n = rc ? rc : eng->fs_wait(fs, &d, 1, (int64_t)TIMEOUT_NS);
	ok(n == 1 && d.res == 4 && !memcmp(buf, "late", 4),
	   "%s on %s: the next receive gets what came meanwhile", eng->name,
	   tp->name);
out:
	eng->fs_free(fs);
	tp->close(&c);
	tp->close(&s);
	tp->teardown(&ch);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Fires a cancel after 50 ms, from another thread, and says when. */
struct firer {
	struct ipc_cancel *stop;
	uint64_t fired_ns;
};

static void *fire_later(void *arg)
{
	const struct timespec ms50 = {0, 50000000};
	struct firer *f = arg;

	nanosleep(&ms50, NULL);
	f->fired_ns = now_ns();
	ipc_cancel_fire(f->stop);
	return NULL;
}

/* The wait ended because of the firing, within a second of it. */
static bool ended_by(const struct firer *f, uint64_t end_ns)
{
	return f->fired_ns && end_ns >= f->fired_ns &&
	       end_ns - f->fired_ns < 1000000000u;
}

/*
 * Do one endpoint's waits of @eng end on the stop's signal (a blocking
 * call, poll(2) on the endpoint alone) rather than its descriptor or flag
 * (epoll, io_uring, busy)?  See engine.h.
 */
static bool by_signal(const struct ipc_engine_ops *eng)
{
	return eng == ipc_engine_find("blocking") ||
	       eng == ipc_engine_find("poll");
}

/*
 * One receive of the engine with nothing coming: -ECANCELED, and how long
 * it took in *ns.  Where a signal must break the wait, the thread watches
 * @stop, as the runner's threads do; the others must end through the
 * stop's descriptor or flag alone.
 */
static ssize_t stopped_recv(struct ipc_io *io, struct ipc_cancel *stop,
			    uint64_t *ns)
{
	char buf[64];
	uint64_t t0 = now_ns();
	bool sig = by_signal(io->eng);
	int w = sig ? ipc_cancel_watch(stop) : -1;
	ssize_t r;

	r = sig && w < 0 ? w : io->eng->recv(io, buf, sizeof(buf));
	ipc_cancel_unwatch(stop, w);
	*ns = now_ns() - t0;
	return r;
}

/*
 * A side's stop ends a receive that nothing will answer, on every engine
 * and transport: fired before the wait began (the case a stop flag alone
 * loses) and fired while it waits, from another thread.  The flow set
 * waits on it too.  Within a second either way.
 */
static void stop_wait(const struct ipc_engine_ops *eng,
		      const struct ipc_transport_ops *tp)
{
	struct ipc_cancel stop;
	struct firer f = {.stop = &stop};
	struct ipc_ep c = {.rfd = -1, .wfd = -1, .cancel = &stop};
	struct ipc_ep s = {.rfd = -1, .wfd = -1, .cancel = &stop};
	struct opener o = {.ep = &s};
	struct ipc_io io = {.eng = eng, .ep = &c, .cancel = &stop};
	struct ipc_fset *fs = NULL;
	struct ipc_fdone d;
	struct ipc_tp_opts op;
	struct ipc_chan ch;
	bool attached = false;
	char buf[64];
	pthread_t t;
	uint64_t ns, end;
	ssize_t r;
	int rc;

	rc = ipc_cancel_init(&stop);
	opts_for(&op, sizeof(buf));
	op.timeout_ns = 0;
	ipc_chan_init(&ch, tp, &op);
	o.ch = &ch;
	if (!rc)
		rc = tp->setup(&ch);
	if (!rc)
		rc = -pthread_create(&t, NULL, open_server, &o);
	if (!rc) {
		rc = tp->open(&ch, IPC_CLIENT, &c);
		pthread_join(t, NULL);
		rc = rc ? rc : o.rc;
	}
	if (!rc)
		rc = eng->attach(&io);
	attached = !rc;
	if (rc) {
		is_int(rc, "==", 0, "%s on %s: set up the stop test", eng->name,
		       tp->name);
		goto out;
	}
	ipc_cancel_fire(&stop);
	r = stopped_recv(&io, &stop, &ns);
	ok(r == -ECANCELED && ns < 1000000000u,
	   "%s on %s: a stop fired before the receive ends it (%zd, %llu us)",
	   eng->name, tp->name, r, (unsigned long long)(ns / 1000));
	ipc_cancel_reset(&stop);
	f.fired_ns = 0;
	rc = -pthread_create(&t, NULL, fire_later, &f);
	r = rc ? rc : stopped_recv(&io, &stop, &ns);
	end = now_ns();
	if (!rc)
		pthread_join(t, NULL);
	ok(r == -ECANCELED && ended_by(&f, end),
	   "%s on %s: a stop fired during the receive ends it (%zd, %llu us)",
	   eng->name, tp->name, r, (unsigned long long)(ns / 1000));
	if (!eng->fs_new)
		goto out;
	eng->detach(&io);
	attached = false;
	ipc_cancel_reset(&stop);
	rc = eng->fs_new(&fs, 1, &stop);
	if (!rc)
		rc = eng->fs_add(fs, 0, &c);
	if (!rc)
		rc = eng->fs_recv(fs, 0, buf, sizeof(buf));
	f.fired_ns = 0;
	if (!rc)
		rc = -pthread_create(&t, NULL, fire_later, &f);
	ns = now_ns();
	r = rc ? rc : eng->fs_wait(fs, &d, 1, -1);
	end = now_ns();
	ns = end - ns;
	if (!rc)
		pthread_join(t, NULL);
	ok(r == -ECANCELED && ended_by(&f, end),
	   "%s on %s: a flow set's wait ends on its stop (%zd, %llu us)",
	   eng->name, tp->name, r, (unsigned long long)(ns / 1000));
	if (!rc)
		eng->fs_cancel(fs, 0, IPC_FOP_RECV);
out:
	eng->fs_free ? eng->fs_free(fs) : (void)0;
	if (attached)
		eng->detach(&io);
	tp->close(&c);
	tp->close(&s);
	tp->teardown(&ch);
	ipc_cancel_fini(&stop);
}

int main(void)
{
	char why[192];
	int fds0;

	signal(SIGPIPE, SIG_IGN);
	if (tmpdir_make("engine", dir, sizeof(dir))) {
		printf("1..0 # skip cannot make %s: %s\n", dir,
		       strerror(errno));
		return 77;
	}
	fds0 = count_fds();
	for (size_t e = 0; ipc_engines[e]; e++) {
		const struct ipc_engine_ops *eng = ipc_engines[e];

		if (eng->probe && eng->probe(why, sizeof(why))) {
			skip("engine %s: %s", eng->name, why);
			continue;
		}
		/*
		 * valgrind runs one thread at a time and does not know that
		 * io_uring_enter blocks, so a thread waiting in it keeps the
		 * others from running; nor does it see the kernel write into
		 * receive buffers.  tests/run sets VALGRIND=1.
		 */
		if (getenv("VALGRIND") && !strcmp(eng->name, "io_uring")) {
			skip("engine io_uring: not under valgrind (it cannot "
			     "follow io_uring)");
			continue;
		}
		ok(eng->attach && eng->send && eng->recv && eng->detach,
		   "engine %s has every single-endpoint slot", eng->name);
		ok(!eng->fs_new ||
			   (eng->fs_add && eng->fs_del && eng->fs_recv &&
			    eng->fs_send && eng->fs_wait && eng->fs_cancel &&
			    eng->fs_free),
		   "engine %s: flow-set slots all or none", eng->name);
		for (size_t t = 0; ipc_transports[t]; t++) {
			const struct ipc_transport_ops *tp = ipc_transports[t];

			if (tp->probe && tp->probe(why, sizeof(why))) {
				skip("%s: %s", tp->name, why);
				continue;
			}
			if (tp->check) { /* serial: needs --device */
				struct ipc_tp_opts o;

				opts_for(&o, 1);
				if (tp->check(&o, why, sizeof(why))) {
					skip("%s: %s", tp->name, why);
					continue;
				}
			}
			if (ipc_engine_can_drive(eng, tp, why, sizeof(why))) {
				skip("%s", why);
				continue;
			}
			for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes);
			     i++) {
				size_t n = sizes[i];

				if (!n && !(tp->caps & IPC_TP_EMPTY_MSG))
					continue; /* nothing to carry */
				if (n > max_msg_of(tp, n))
					continue;
				round_trip(eng, tp, n);
			}
			if ((tp->caps & IPC_TP_LOSSY) ||
			    !strcmp(tp->name, "pipe"))
				timeout_then_data(eng, tp, SHORT_NS);
			if ((tp->caps & IPC_TP_LOSSY) ||
			    !strcmp(tp->name, "pipe"))
				timeout_then_data(eng, tp, TINY_NS);
			if (tp->caps & IPC_TP_LOSSY)
				woken_then_data(eng, tp);
			stop_wait(eng, tp);
			if (eng->fs_new && (tp->caps & IPC_TP_CONNECT)) {
				flowset_echo(eng, tp);
				flowset_cancel(eng, tp);
			}
			if (eng->fs_new && !strcmp(tp->name, "tcp"))
				flowset_steady(eng, tp);
		}
	}
	is_int(count_fds(), "==", fds0, "no descriptor left open");
	is_int(tmpdir_remove(dir), "==", 0, "no file left in %s", dir);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

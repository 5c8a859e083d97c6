/* SPDX-License-Identifier: MIT */
/*
 * Every registered transport, through its ops table only: patterned round
 * trips to a forked and to a threaded peer, end of stream, message limits,
 * receive timeouts, a server that is already there (a target), and a
 * clean directory and descriptor table afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/base.h"
#include "ipcperf/transport.h"

#include "../helpers.h"
#include "../tap.h"
#include "transport/lib_internal.h"

/* Sizes of the round trips; 65536 is over the limit of UDP. */
static const size_t sizes[] = {0, 1, 4095, 65536};

/* Size of the round trip with a threaded peer. */
#define THREAD_SIZE 4095

/*
 * A lost UDP datagram must not hang the test: 2 s is far more than a
 * loopback round trip under valgrind, far less than the runner's timeout.
 */
#define RT_TIMEOUT_NS 2000000000ull

/* The receive timeout test waits 50 ms for nothing. */
#define SHORT_TIMEOUT_NS 50000000ull

/*
 * A receive that would block forever is a failed check, not a hung test:
 * every receive first waits at most 5 s for data (or end of stream).
 */
#define RECV_WAIT_MS 5000

static char dir[256];

/* The order of the registry, as documented. */
/* clang-format off */
static const char *const names[] = {
	"pipe", "fifo", "socketpair", "unix", "unix-dgram", "unix-seqpacket",
	"tcp", "tcp6", "udp", "udp6", "shm", "mq", "pty", "serial",
};
/* clang-format on */

/*
 * A byte pattern that does not repeat within 4 GiB (xorshift32), so that a
 * lost, doubled or shifted chunk shows up as a mismatch.
 */
static void fill(unsigned char *buf, size_t n, uint32_t seed)
{
	uint32_t x = seed | 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = x >> 24;
	}
}

/* Index of the first byte that differs, or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static void opts_for(struct ipc_tp_opts *opts, size_t max_msg)
{
	memset(opts, 0, sizeof(*opts));
	opts->dir = dir;
	opts->max_msg = max_msg;
	opts->timeout_ns = RT_TIMEOUT_NS;
}

static bool is_stream(const struct ipc_transport_ops *tp)
{
	return tp->caps & IPC_TP_STREAM;
}

static size_t max_msg_of(const struct ipc_transport_ops *tp,
			 const struct ipc_tp_opts *opts)
{
	return tp->max_msg ? tp->max_msg(opts) : SIZE_MAX;
}

/* tp->recv after waiting for data; -ETIMEDOUT if none came. */
static ssize_t recv_wait(const struct ipc_transport_ops *tp, struct ipc_ep *ep,
			 void *buf, size_t len)
{
	struct pollfd pfd = {.fd = ep->rfd, .events = POLLIN};
	int r;

	if (tp->caps & IPC_TP_FD) {
		r = poll(&pfd, 1, RECV_WAIT_MS);
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
	}
	return tp->recv(ep, buf, len);
}

/* All @n bytes of a stream, or exactly one message.  0 or -errno. */
static int send_all(const struct ipc_transport_ops *tp, struct ipc_ep *ep,
		    const unsigned char *buf, size_t n)
{
	size_t done = 0;
	ssize_t r;

	do {
		r = tp->send(ep, buf + done, n - done);
		if (r < 0)
			return (int)r;
		if (!is_stream(tp) && (size_t)r != n)
			return -EIO;
		done += r;
	} while (done < n);
	return 0;
}

/*
 * Exactly @n bytes of a stream, or one message that must be @n bytes long
 * (@buf holds @n + 1, so a longer one is seen).  0, -EPIPE at an early end
 * of stream, -EIO for a wrong length, or -errno.
 */
static int recv_all(const struct ipc_transport_ops *tp, struct ipc_ep *ep,
		    unsigned char *buf, size_t n)
{
	size_t done = 0;
	ssize_t r;

	if (!is_stream(tp)) {
		r = recv_wait(tp, ep, buf, n + 1);
		if (r < 0)
			return (int)r;
		return (size_t)r == n ? 0 : -EIO;
	}
	while (done < n) {
		r = recv_wait(tp, ep, buf + done, n - done);
		if (r < 0)
			return (int)r;
		if (!r)
			return -EPIPE;
		done += r;
	}
	return 0;
}

/* The peer of a round trip: open the server side, echo one message. */
struct peer {
	struct ipc_chan *ch;
	size_t n;
	unsigned char *buf; /* n + 1 bytes */
	bool forked;	    /* drop the client's descriptors after open */
	int rc;
};

/*
 * A pty master that closes hangs the slave up, which throws away what the
 * slave has not read yet: the client (on the slave) would lose the echo.
 * The runner's servers close only after the client did; for pty the echo
 * peer does the same and waits for end of stream before it closes.
 */
static bool server_closes_last(const struct ipc_transport_ops *tp)
{
	return !strcmp(tp->name, "pty");
}

static int echo(struct peer *p)
{
	const struct ipc_transport_ops *tp = p->ch->ops;
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	char c;
	int rc;

	rc = tp->open(p->ch, IPC_SERVER, &ep);
	if (rc < 0)
		goto out;
	if (p->forked)
		ipc_chan_drop_other(p->ch, IPC_SERVER);
	rc = recv_all(tp, &ep, p->buf, p->n);
	if (rc < 0)
		goto out_close;
	rc = send_all(tp, &ep, p->buf, p->n);
	if (rc == 0 && server_closes_last(tp))
		rc = (int)recv_wait(tp, &ep, &c, 1);
out_close:
	tp->close(&ep);
out:
	return rc;
}

static void *echo_thread(void *arg)
{
	struct peer *p = arg;

	p->rc = echo(p);
	return NULL;
}

/* The server side of open_pair, in its own thread. */
struct opener {
	struct ipc_chan *ch;
	struct ipc_ep *ep;
	int rc;
};

static void *open_server_thread(void *arg)
{
	struct opener *o = arg;

	o->rc = o->ch->ops->open(o->ch, IPC_SERVER, o->ep);
	return NULL;
}

/*
 * Open both sides in this process: the server in a thread, since it may
 * block until the client opens too (accept, FIFO open).  0 or -errno.
 */
static int open_pair(struct ipc_chan *ch, struct ipc_ep *cli,
		     struct ipc_ep *srv)
{
	struct opener o = {.ch = ch, .ep = srv};
	pthread_t t;
	int rc;

	*cli = (struct ipc_ep){.rfd = -1, .wfd = -1};
	*srv = (struct ipc_ep){.rfd = -1, .wfd = -1};
	rc = -pthread_create(&t, NULL, open_server_thread, &o);
	if (rc < 0)
		return rc;
	rc = ch->ops->open(ch, IPC_CLIENT, cli);
	pthread_join(t, NULL);
	return rc < 0 ? rc : o.rc;
}

/*
 * One round trip of @n bytes: the client sends a pattern, the peer (a child
 * process or a thread) echoes it, and every byte is compared.
 */
static void round_trip(const struct ipc_transport_ops *tp, size_t n,
		       bool forked)
{
	const char *how = forked ? "fork" : "thread";
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	struct peer p = {.n = n, .forked = forked};
	unsigned char *tx, *rx;
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	pthread_t t;
	pid_t pid = -1;
	int rc, status = -1;
	long diff = -1;

	tx = malloc(n + 1);
	rx = malloc(n + 1);
	p.buf = malloc(n + 1);
	if (!tx || !rx || !p.buf) {
		ok(0, "%s n=%zu %s: buffers", tp->name, n, how);
		goto out_free;
	}
	fill(tx, n, (uint32_t)n * 2654435761u + tp->caps);
	memset(rx, 0, n + 1);
	opts_for(&opts, n);
	ipc_chan_init(&ch, tp, &opts);
	rc = tp->setup(&ch);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s n=%zu %s: setup", tp->name, n, how);
		goto out_free;
	}
	p.ch = &ch;
	fflush(stdout);
	if (forked) {
		pid = fork();
		if (pid == 0) {
			alarm(30);
			rc = echo(&p);
			free(tx);
			free(rx);
			free(p.buf);
			_exit(rc < 0 ? 1 : 0);
		}
		rc = pid < 0 ? -errno : 0;
	} else {
		rc = -pthread_create(&t, NULL, echo_thread, &p);
	}
	if (rc < 0) {
		is_int(rc, "==", 0, "%s n=%zu %s: start peer", tp->name, n,
		       how);
		goto out_teardown;
	}
	rc = tp->open(&ch, IPC_CLIENT, &ep);
	if (rc < 0)
		goto out_peer;
	if (forked)
		ipc_chan_drop_other(&ch, IPC_CLIENT);
	rc = send_all(tp, &ep, tx, n);
	if (rc < 0)
		goto out_peer;
	rc = recv_all(tp, &ep, rx, n);
	if (rc == 0)
		diff = first_diff(tx, rx, n);
out_peer:
	tp->close(&ep);
	if (forked) {
		/* A client that failed must not leave the child blocked. */
		if (rc < 0)
			kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) < 0)
			status = -errno;
	} else {
		pthread_join(t, NULL);
		status = p.rc;
	}
	is_int(rc, "==", 0, "%s n=%zu %s: client sends and receives", tp->name,
	       n, how);
	is_int(diff, "==", -1, "%s n=%zu %s: echo matches byte for byte",
	       tp->name, n, how);
	is_int(status, "==", 0, "%s n=%zu %s: peer ends cleanly", tp->name, n,
	       how);
out_teardown:
	tp->teardown(&ch);
out_free:
	free(tx);
	free(rx);
	free(p.buf);
}

static void test_round_trips(const struct ipc_transport_ops *tp)
{
	struct ipc_tp_opts opts;
	size_t i, n, max;

	opts_for(&opts, 0);
	max = max_msg_of(tp, &opts);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = sizes[i];
		if (!n && is_stream(tp))
			skip("%s n=0: a 0-byte exchange on a byte stream "
			     "carries nothing",
			     tp->name);
		else if (!n && !(tp->caps & IPC_TP_EMPTY_MSG))
			skip("%s n=0: an empty message cannot be told from "
			     "end of stream",
			     tp->name);
		else if (n > max)
			skip("%s n=%zu: over max_msg %zu", tp->name, n, max);
		else
			round_trip(tp, n, true);
	}
	if (THREAD_SIZE > max)
		skip("%s thread: %d over max_msg %zu", tp->name, THREAD_SIZE,
		     max);
	else
		round_trip(tp, THREAD_SIZE, false);
}

/* Set up with @opts and open both sides; 0 or a failed check. */
static int pair_up(const struct ipc_transport_ops *tp,
		   const struct ipc_tp_opts *opts, const char *what,
		   struct ipc_chan *ch, struct ipc_ep *cli, struct ipc_ep *srv)
{
	int rc;

	*cli = (struct ipc_ep){.rfd = -1, .wfd = -1};
	*srv = (struct ipc_ep){.rfd = -1, .wfd = -1};
	ipc_chan_init(ch, tp, opts);
	rc = tp->setup(ch);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s %s: setup", tp->name, what);
		return rc;
	}
	rc = open_pair(ch, cli, srv);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s %s: open both sides", tp->name, what);
		tp->close(cli);
		tp->close(srv);
		tp->teardown(ch);
	}
	return rc;
}

static void pair_down(struct ipc_chan *ch, struct ipc_ep *cli,
		      struct ipc_ep *srv)
{
	ch->ops->close(cli);
	ch->ops->close(srv);
	ch->ops->teardown(ch);
}

/*
 * The client reads end of stream once the server closed its endpoint, in a
 * child process (which needs drop_other on both sides) or a thread.
 */
static void eof_forked(const struct ipc_transport_ops *tp)
{
	struct ipc_ep cli = {.rfd = -1, .wfd = -1};
	struct ipc_ep srv = {.rfd = -1, .wfd = -1};
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	int rc, status = -1;
	pid_t pid;
	char c;

	opts_for(&opts, 1);
	ipc_chan_init(&ch, tp, &opts);
	rc = tp->setup(&ch);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s eof fork: setup", tp->name);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(30);
		rc = tp->open(&ch, IPC_SERVER, &srv);
		ipc_chan_drop_other(&ch, IPC_SERVER);
		tp->close(&srv);
		_exit(rc < 0 ? 1 : 0);
	}
	if (pid < 0) {
		is_int(-errno, "==", 0, "%s eof fork: fork", tp->name);
		goto out;
	}
	rc = tp->open(&ch, IPC_CLIENT, &cli);
	if (rc == 0) {
		ipc_chan_drop_other(&ch, IPC_CLIENT);
		rc = (int)recv_wait(tp, &cli, &c, 1);
	} else {
		kill(pid, SIGKILL);
	}
	tp->close(&cli);
	waitpid(pid, &status, 0);
	is_int(rc, "==", 0, "%s eof fork: client reads end of stream",
	       tp->name);
	is_int(status, "==", 0, "%s eof fork: peer ends cleanly", tp->name);
out:
	tp->teardown(&ch);
}

static void test_eof(const struct ipc_transport_ops *tp)
{
	struct ipc_ep cli, srv;
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	ssize_t r;
	char c;
	int i;

	/*
	 * A transport that carries empty messages has no way to say end of
	 * stream (a 0-byte receive is a message); every other one must: a
	 * byte stream, a connection, or shm's closed flag.
	 */
	if (tp->caps & IPC_TP_EMPTY_MSG) {
		skip("%s eof: a 0-byte receive is a message, no end of stream",
		     tp->name);
		return;
	}
	c = 'x';
	eof_forked(tp);
	opts_for(&opts, 1);
	if (pair_up(tp, &opts, "eof thread", &ch, &cli, &srv) < 0)
		return;
	tp->close(&srv);
	ok(srv.rfd == -1 && srv.wfd == -1, "%s eof thread: close clears fds",
	   tp->name);
	is_int(recv_wait(tp, &cli, &c, 1), "==", 0,
	       "%s eof thread: client reads end of stream", tp->name);
	/* TCP takes the first byte and answers it with a reset. */
	for (i = 0, r = 0; i < 3 && r >= 0; i++)
		r = tp->send(&cli, &c, 1);
	ok(r == -EPIPE || r == -ECONNRESET,
	   "%s eof thread: send to a closed peer gives -EPIPE (got %zd)",
	   tp->name, r);
	pair_down(&ch, &cli, &srv);
}

/* A non-blocking endpoint with nothing to read gives -EAGAIN. */
static void test_nonblock(const struct ipc_transport_ops *tp)
{
	struct ipc_ep cli, srv;
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	char c;

	if (!(tp->caps & IPC_TP_FD)) {
		skip("%s nonblock: no descriptors", tp->name);
		return;
	}
	opts_for(&opts, 1);
	opts.timeout_ns = 0;
	if (pair_up(tp, &opts, "nonblock", &ch, &cli, &srv) < 0)
		return;
	is_int(ipc_fd_set_nonblock(cli.rfd, true), "==", 0, "%s nonblock: set",
	       tp->name);
	is_int(tp->recv(&cli, &c, 1), "==", -EAGAIN,
	       "%s nonblock: empty recv gives -EAGAIN", tp->name);
	is_int(ipc_fd_set_nonblock(cli.rfd, false), "==", 0,
	       "%s nonblock: cleared", tp->name);
	pair_down(&ch, &cli, &srv);
}

/*
 * Message transports: a message longer than the buffer gives -EMSGSIZE and
 * is dropped, the next one arrives whole; at max_msg a message goes through
 * and one byte more is refused by the sender.
 */
static void test_msg_limits(const struct ipc_transport_ops *tp)
{
	unsigned char small[100], *tx = NULL, *rx = NULL;
	struct ipc_ep cli, srv;
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	size_t max;

	if (!(tp->caps & IPC_TP_MSG)) {
		skip("%s limits: a byte stream has no message size", tp->name);
		return;
	}
	opts_for(&opts, sizeof(small));
	if (pair_up(tp, &opts, "oversize", &ch, &cli, &srv) < 0)
		return;
	fill(small, sizeof(small), 7);
	is_int(tp->send(&cli, small, 100), "==", 100, "%s oversize: send 100",
	       tp->name);
	is_int(recv_wait(tp, &srv, small, 10), "==", -EMSGSIZE,
	       "%s oversize: recv into 10 gives -EMSGSIZE", tp->name);
	is_int(tp->send(&cli, small, 5), "==", 5, "%s oversize: send 5",
	       tp->name);
	is_int(recv_wait(tp, &srv, small, 10), "==", 5,
	       "%s oversize: the next message arrives whole", tp->name);
	pair_down(&ch, &cli, &srv);

	max = max_msg_of(tp, &opts);
	if (max == SIZE_MAX || max == 0) {
		ok(0, "%s max_msg: %zu is not a message limit", tp->name, max);
		return;
	}
	diag("%s: max_msg %zu", tp->name, max);
	tx = malloc(max + 1);
	rx = malloc(max + 1);
	if (!tx || !rx) {
		ok(0, "%s max_msg: buffers of %zu", tp->name, max);
		goto out;
	}
	fill(tx, max + 1, (uint32_t)max);
	opts.max_msg = max;
	if (pair_up(tp, &opts, "max_msg", &ch, &cli, &srv) < 0)
		goto out;
	is_int(tp->send(&cli, tx, max), "==", max, "%s max_msg: %zu bytes go",
	       tp->name, max);
	is_int(recv_wait(tp, &srv, rx, max + 1), "==", max,
	       "%s max_msg: %zu bytes arrive", tp->name, max);
	ok(!memcmp(tx, rx, max), "%s max_msg: payload intact", tp->name);
	is_int(tp->send(&cli, tx, max + 1), "==", -EMSGSIZE,
	       "%s max_msg: one byte more gives -EMSGSIZE", tp->name);
	pair_down(&ch, &cli, &srv);
	opts.max_msg = max + 1;
	ipc_chan_init(&ch, tp, &opts);
	is_int(tp->setup(&ch), "==", -EMSGSIZE,
	       "%s max_msg: setup refuses one byte more", tp->name);
	tp->teardown(&ch);
out:
	free(tx);
	free(rx);
}

/* Lossy transports: a receive with nothing sent times out with -EAGAIN. */
static void test_timeout(const struct ipc_transport_ops *tp)
{
	struct ipc_ep cli, srv;
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	uint64_t t0, waited_ns;
	char c;

	if (!(tp->caps & IPC_TP_LOSSY)) {
		skip("%s timeout: not lossy, no receive timeout", tp->name);
		return;
	}
	opts_for(&opts, 1);
	opts.timeout_ns = SHORT_TIMEOUT_NS;
	if (pair_up(tp, &opts, "timeout", &ch, &cli, &srv) < 0)
		return;
	t0 = ipc_now_ns();
	is_int(tp->recv(&cli, &c, 1), "==", -EAGAIN,
	       "%s timeout: recv with nothing sent gives -EAGAIN", tp->name);
	waited_ns = ipc_now_ns() - t0;
	/* The kernel rounds to jiffies: allow 40 ms to 2 s for 50 ms. */
	ok(waited_ns >= 40000000u && waited_ns < 2000000000u,
	   "%s timeout: waited %llu ms", tp->name,
	   (unsigned long long)(waited_ns / 1000000u));
	pair_down(&ch, &cli, &srv);
}

/*
 * Setup fills only slots the chan knows; drop_other on both sides leaves
 * just the shared ones (listening sockets); teardown twice is harmless.
 */
static void test_slots(const struct ipc_transport_ops *tp)
{
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	int i, held = 0, shared = 0, taken;

	opts_for(&opts, 1);
	ipc_chan_init(&ch, tp, &opts);
	for (i = 0; i < IPC_CHAN_FDS; i++)
		held += ch.fd[i] != -1 || ch.fd_side[i] != -1;
	is_int(held, "==", 0, "%s slots: init leaves every slot -1", tp->name);
	is_int(tp->setup(&ch), "==", 0, "%s slots: setup", tp->name);
	for (i = 0; i < IPC_CHAN_FDS; i++)
		shared += ch.fd[i] >= 0 && ch.fd_side[i] == -1;
	ipc_chan_drop_other(&ch, IPC_SERVER);
	ipc_chan_drop_other(&ch, IPC_CLIENT);
	held = 0;
	for (i = 0; i < IPC_CHAN_FDS; i++)
		held += ch.fd[i] >= 0;
	is_int(held, "==", shared,
	       "%s slots: drop_other keeps only the shared slots", tp->name);
	taken = 0;
	for (i = 0; i < IPC_CHAN_FDS; i++)
		taken += ch.fd_side[i] != -1 && ipc_chan_take(&ch, i) >= 0;
	is_int(taken, "==", 0, "%s slots: a dropped slot cannot be taken",
	       tp->name);
	is_int(ipc_chan_take(&ch, IPC_CHAN_FDS), "<", 0,
	       "%s slots: take out of range fails", tp->name);
	tp->teardown(&ch);
	tp->teardown(&ch);
	held = 0;
	for (i = 0; i < IPC_CHAN_FDS; i++)
		held += ch.fd[i] >= 0;
	is_int(held, "==", 0, "%s slots: teardown twice closes all", tp->name);
}

/*
 * Several channels live in one directory at once, each under the name its
 * owner gave it (the run hands out one per channel).
 */
static void test_two_at_once(const struct ipc_transport_ops *tp)
{
	struct ipc_tp_opts opts;
	struct ipc_chan a, b;
	int rc_a, rc_b;

	opts_for(&opts, 1);
	opts.name = "a";
	ipc_chan_init(&a, tp, &opts);
	opts.name = "b";
	ipc_chan_init(&b, tp, &opts);
	rc_a = tp->setup(&a);
	rc_b = tp->setup(&b);
	is_int(rc_a, "==", 0, "%s two at once: first setup", tp->name);
	is_int(rc_b, "==", 0, "%s two at once: second setup", tp->name);
	ok(!a.path[0][0] || strcmp(a.path[0], b.path[0]),
	   "%s two at once: distinct names", tp->name);
	tp->teardown(&a);
	tp->teardown(&b);
}

/*
 * With a target (IPC_TP_TARGET): the server is a socket this test opens on
 * the loopback, not the transport's.  Setup makes no listener (tcp) or only
 * the client's socket (udp), the client reaches the server and the server
 * hears it, bytes come back, and the server side cannot be opened here.
 */
static void test_target(const struct ipc_transport_ops *tp)
{
	bool six = strchr(tp->name, '6'), udp = !(tp->caps & IPC_TP_STREAM);
	struct sockaddr_storage ss = {.ss_family = six ? AF_INET6 : AF_INET};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = six ? sizeof(*sin6) : sizeof(*sin);
	struct ipc_ep cli = {.rfd = -1, .wfd = -1},
		      srv = {.rfd = -1, .wfd = -1};
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);
	struct ipc_tp_opts opts;
	struct ipc_chan ch;
	char target[64], buf[16] = "";
	int lfd, c = -1, held = 0, rc;
	ssize_t n = -1;

	if (six)
		sin6->sin6_addr = in6addr_loopback;
	else
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(ss.ss_family, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, len) < 0 ||
	    (!udp && listen(lfd, 4) < 0) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &len) < 0) {
		skip("%s target: cannot open a server here", tp->name);
		if (lfd >= 0)
			close(lfd);
		return;
	}
	snprintf(target, sizeof(target), six ? "[::1]:%u" : "127.0.0.1:%u",
		 ntohs(six ? sin6->sin6_port : sin->sin_port));
	opts_for(&opts, 16);
	opts.target = target;
	is_int(tp->check(&opts, buf, sizeof(buf)), "==", 0,
	       "%s target %s: resolves", tp->name, target);
	ipc_chan_init(&ch, tp, &opts);
	rc = tp->setup(&ch);
	is_int(rc, "==", 0, "%s target: setup", tp->name);
	for (int i = 0; i < IPC_CHAN_FDS; i++)
		held += ch.fd[i] >= 0;
	is_int(held, "==", udp ? 1 : 0, "%s target: no server socket made",
	       tp->name);
	if (!rc)
		rc = tp->open(&ch, IPC_CLIENT, &cli);
	is_int(rc, "==", 0, "%s target: the client side opens", tp->name);
	if (!rc)
		n = tp->send(&cli, "ping", 4);
	if (n == 4 && udp)
		n = recvfrom(lfd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &flen);
	if (n == 4 && udp)
		n = sendto(lfd, "pong", 4, 0, (struct sockaddr *)&from, flen);
	if (n == 4 && !udp) {
		c = accept(lfd, NULL, NULL);
		n = c < 0 ? -1 : read(c, buf, sizeof(buf));
		if (n == 4)
			n = write(c, "pong", 4);
	}
	is_int(n, "==", 4, "%s target: the server hears the client", tp->name);
	n = n == 4 ? tp->recv(&cli, buf, sizeof(buf)) : -1;
	ok(n == 4 && !memcmp(buf, "pong", 4),
	   "%s target: and its answer comes back", tp->name);
	ok(tp->open(&ch, IPC_SERVER, &srv) < 0,
	   "%s target: there is no server side to open", tp->name);
	tp->close(&cli);
	tp->teardown(&ch);
	if (c >= 0)
		close(c);
	close(lfd);
}

static void test_transport(const struct ipc_transport_ops *tp)
{
	char why[256] = "";
	int fds, rc;

	ok(tp->name && tp->help && tp->setup && tp->open && tp->send &&
		   tp->recv && tp->close && tp->teardown,
	   "%s: ops table complete", tp->name);
	ok(!(tp->caps & IPC_TP_STREAM) != !(tp->caps & IPC_TP_MSG),
	   "%s: exactly one of STREAM and MSG", tp->name);
	if (tp->probe) {
		rc = tp->probe(why, sizeof(why));
		if (rc < 0) {
			skip("%s: not available: %s", tp->name, why);
			return;
		}
	}
	if (tp->check) {
		struct ipc_tp_opts opts;

		opts_for(&opts, 1);
		rc = tp->check(&opts, why, sizeof(why));
		if (rc < 0) {
			skip("%s: not without options: %s", tp->name, why);
			return;
		}
	}
	fds = count_fds();
	test_slots(tp);
	test_two_at_once(tp);
	test_round_trips(tp);
	test_eof(tp);
	test_nonblock(tp);
	test_msg_limits(tp);
	test_timeout(tp);
	if (tp->caps & IPC_TP_TARGET)
		test_target(tp);
	is_int(count_files(dir), "==", 0, "%s: no file left in the directory",
	       tp->name);
	is_int(count_fds(), "==", fds, "%s: no descriptor leaked", tp->name);
}

static void test_registry(void)
{
	size_t i, n = sizeof(names) / sizeof(names[0]);
	const struct ipc_transport_ops *tp;

	for (i = 0; i < n; i++) {
		tp = ipc_transports[i];
		is_str(tp ? tp->name : NULL, names[i], "registry entry %zu", i);
		if (!tp)
			break;
		ok(ipc_transport_find(names[i]) == tp, "find %s", names[i]);
	}
	ok(!ipc_transport_find("no-such-transport"), "find of a bad name");
	ok(!ipc_transport_find(""), "find of an empty name");
	ok(!ipc_transport_find(NULL), "find of NULL");
}

int main(void)
{
	const struct ipc_transport_ops *const *tp;
	int fds;

	/* Writes to a dead reader must give -EPIPE, not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	alarm(120);
	if (tmpdir_make("transport", dir, sizeof(dir))) {
		printf("Bail out! mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	fds = count_fds();
	test_registry();
	for (tp = ipc_transports; *tp; tp++)
		test_transport(*tp);
	is_int(count_files(dir), "==", 0, "directory empty at the end");
	is_int(count_fds(), "==", fds, "descriptor count back to %d", fds);
	tmpdir_remove(dir);
	return done_testing();
}

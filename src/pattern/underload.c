/* SPDX-License-Identifier: MIT */
/*
 * rr --under-load N, as flent's RRUL test does for a link: the round trips
 * of rr measured while N bulk streams fill the same transport.  Each
 * stream is a connection of its own on the case's channel, with a thread
 * at each end; threads inherit the CPU their side was pinned to, so the
 * streams share the round trips' CPUs as well as the transport.
 *
 * The streams send stream's messages (msg.h: a sequence number, then the
 * pattern from a point that moves with it) of UL_MSG bytes, and the
 * receiving thread checks each one.  They start after the warm-up and run
 * until the measured part ends; the bytes they moved in it say that the
 * load ran.  Their threads' CPU is not in rr's cost, which stays the
 * round trips' own thread's.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/lib_internal.h"
#include "pattern/lib_internal.h"
#include "underload.h"

#define UL_MSG (64u << 10)
#define UL_BUF (UL_MSG + MSG_SHIFT_MAX + 64)
/* Before the measured part, each stream moves this much or ... */
#define UL_RAMP_BYTES (1u << 20)
/* ... the wait for them ends after this long. */
#define UL_RAMP_NS 1000000000ull

struct ul_flow {
	struct ul *u;
	struct ipc_ep ep;
	pthread_t th;
	bool running;
	uint64_t bytes; /* moved so far (atomic) */
	int err;
	char what[96];
	uint8_t *buf;
};

struct ul {
	struct ipc_pctx *c;
	uint64_t n, opened;
	int stop; /* atomic: the streams end */
	pthread_t acceptor;
	bool accepting;
	struct ipc_cancel halt; /* ends the acceptor's wait in accept */
	uint64_t t0_ns, bytes0; /* the measured part's start, bytes then */
	struct ul_flow *fl;
	uint8_t *bufs;
};

int ipc_under_load_check(const struct ipc_case *cs, char *why, size_t why_len)
{
	unsigned caps = cs->tp ? cs->tp->caps : 0;

	if (!cs->under_load)
		return 0;
	if (cs->under_load > IPC_UNDER_LOAD_MAX) {
		snprintf(why, why_len, "--under-load takes at most %d streams",
			 IPC_UNDER_LOAD_MAX);
		return -EINVAL;
	}
	if (!(caps & IPC_TP_STREAM) || !(caps & IPC_TP_CONNECT)) {
		snprintf(why, why_len,
			 "--under-load opens more connections beside the "
			 "round trips': %s has none (tcp, tcp6 and unix do)",
			 cs->tp ? cs->tp->name : "?");
		return -EINVAL;
	}
	if (cs->peer || (cs->link && cs->link->relay) ||
	    (cs->framing && cs->framing->encode)) {
		snprintf(why, why_len,
			 "--under-load runs with a local peer, no link's "
			 "relay and no framing");
		return -EINVAL;
	}
	return 0;
}

static void *ul_send_main(void *arg)
{
	struct ul_flow *f = arg;
	uint8_t *msg;
	ssize_t n;
	size_t off;

	for (uint64_t seq = 0; !__atomic_load_n(&f->u->stop, __ATOMIC_RELAXED);
	     seq++) {
		msg = f->buf + msg_shift(seq);
		msg_stamp(msg, UL_MSG, seq);
		for (off = 0; off < UL_MSG; off += (size_t)n) {
			n = f->ep.ops->send(&f->ep, msg + off, UL_MSG - off);
			if (n == -EINTR) {
				n = 0;
				continue;
			}
			if (n < 0) {
				f->err = (int)n;
				snprintf(f->what, sizeof(f->what), "send");
				return NULL;
			}
			__atomic_add_fetch(&f->bytes, (uint64_t)n,
					   __ATOMIC_RELAXED);
		}
		msg_unstamp(msg, UL_MSG, seq);
	}
	return NULL;
}

/* Receive and check each message until the sender closes. */
static void *ul_recv_main(void *arg)
{
	struct ul_flow *f = arg;
	uint64_t seq, got;
	ssize_t n;
	size_t off;

	for (seq = 0;; seq++) {
		for (off = 0; off < UL_MSG; off += (size_t)n) {
			n = f->ep.ops->recv(&f->ep, f->buf + off, UL_MSG - off);
			if (n == -EINTR) {
				n = 0;
				continue;
			}
			if (n == 0 && off == 0)
				return NULL; /* the sender's end */
			if (n <= 0) {
				f->err = n ? (int)n : -ECONNRESET;
				snprintf(f->what, sizeof(f->what), "receive");
				return NULL;
			}
			__atomic_add_fetch(&f->bytes, (uint64_t)n,
					   __ATOMIC_RELAXED);
		}
		memcpy(&got, f->buf, 8);
		if (!f->u->c->verify)
			continue;
		if (le64toh(got) != seq ||
		    !msg_payload_ok(f->buf, 8, UL_MSG, msg_shift(seq))) {
			f->err = -EBADMSG;
			snprintf(f->what, sizeof(f->what),
				 "check message %llu: not as sent",
				 (unsigned long long)seq);
			return NULL;
		}
	}
}

static struct ul *ul_new(struct ipc_pctx *c)
{
	struct ul *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->c = c;
	u->n = c->cs->under_load;
	u->fl = calloc(u->n, sizeof(*u->fl));
	u->bufs = malloc(u->n * UL_BUF);
	if (!u->fl || !u->bufs) {
		free(u->fl);
		free(u->bufs);
		free(u);
		return NULL;
	}
	for (uint64_t i = 0; i < u->n; i++) {
		u->fl[i].u = u;
		u->fl[i].ep = (struct ipc_ep){.rfd = -1, .wfd = -1};
		u->fl[i].buf = u->bufs + i * UL_BUF;
		ipc_payload_fill(u->fl[i].buf, UL_BUF);
	}
	return u;
}

/* Join every stream's thread, close its endpoint; the first failure. */
static int ul_join(struct ul *u, const char **what, uint64_t *which)
{
	int err = 0;

	for (uint64_t i = 0; i < u->opened; i++) {
		struct ul_flow *f = &u->fl[i];

		if (f->running)
			pthread_join(f->th, NULL);
		f->ep.ops->close(&f->ep);
		if (f->err && !err) {
			err = f->err;
			*what = f->what;
			*which = i;
		}
	}
	return err;
}

static void ul_free(struct ul *u)
{
	free(u->bufs);
	free(u->fl);
	free(u);
}

static uint64_t ul_bytes(const struct ul *u)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < u->opened; i++)
		sum += __atomic_load_n(&u->fl[i].bytes, __ATOMIC_RELAXED);
	return sum;
}

static int ul_fail(struct ipc_pctx *c, int err, const char *what, uint64_t i,
		   uint64_t n)
{
	char doing[160];

	snprintf(doing, sizeof(doing), "%s on load stream %llu of %llu", what,
		 (unsigned long long)i + 1, (unsigned long long)n);
	return msg_fail(c, err, doing);
}

/* The warm-up went through: open and start the streams, let them ramp. */
static int ul_ready(struct ipc_pctx *c)
{
	struct ul *u = c->pat_priv;
	const struct ipc_transport_ops *tp = c->cs->tp;
	struct timespec pause = {.tv_nsec = 1000000};
	uint64_t until;
	int err;

	for (; u->opened < u->n; u->opened++) {
		struct ul_flow *f = &u->fl[u->opened];

		f->ep.cancel = c->io.cancel;
		err = tp->open(c->ch, IPC_CLIENT, &f->ep);
		if (err)
			return ul_fail(c, err, "connect", u->opened, u->n);
		err = ipc_thread_start(&f->th, ul_send_main, f);
		if (err) {
			f->ep.ops->close(&f->ep);
			return ul_fail(c, err, "start the thread", u->opened,
				       u->n);
		}
		f->running = true;
	}
	until = ipc_now_ns() + UL_RAMP_NS;
	for (uint64_t i = 0; i < u->n && ipc_now_ns() < until; i++)
		while (__atomic_load_n(&u->fl[i].bytes, __ATOMIC_RELAXED) <
			       UL_RAMP_BYTES &&
		       !u->fl[i].err && ipc_now_ns() < until)
			nanosleep(&pause, NULL);
	u->bytes0 = ul_bytes(u);
	u->t0_ns = ipc_now_ns();
	return 0;
}

int ul_client(struct ipc_pctx *c, msg_loop_fn loop)
{
	struct ul *u = ul_new(c);
	const char *what = NULL;
	uint64_t which = 0, bytes, t1;
	int err, e2;

	if (!u)
		return msg_fail(c, -ENOMEM, "allocate the load streams");
	if (!c->warmup)
		c->warmup = 1; /* the server takes our connection first */
	c->pat_priv = u;
	err = msg_client_phases_ready(c, loop, ul_ready);
	t1 = ipc_now_ns();
	bytes = ul_bytes(u) - u->bytes0;
	__atomic_store_n(&u->stop, 1, __ATOMIC_RELAXED);
	e2 = ul_join(u, &what, &which);
	if (e2 && !err)
		err = ul_fail(c, e2, what, which, u->n);
	if (u->t0_ns && t1 > u->t0_ns) {
		c->out.extra[RR_EXTRA_LOAD_BYTES] = (double)bytes;
		c->out.extra[RR_EXTRA_LOAD_BPS] =
			(double)bytes * 1e9 / (double)(t1 - u->t0_ns);
	}
	c->pat_priv = NULL;
	ul_free(u);
	return err;
}

/*
 * Take the streams' connections as they come, until all of them or the
 * halt (a client that ended before it connected them all): a firing
 * interrupts the accept it blocks in.
 */
static void *ul_accept_main(void *arg)
{
	struct ul *u = arg;
	struct ipc_pctx *c = u->c;
	int w = ipc_cancel_watch(&u->halt);
	struct ul_flow *f;
	int err;

	while (u->opened < u->n && !ipc_cancelled(&u->halt)) {
		f = &u->fl[u->opened];
		f->ep.cancel = c->io.cancel;
		err = c->cs->tp->open(c->ch, IPC_SERVER, &f->ep);
		if (err == -EINTR || err == -ECONNABORTED)
			continue;
		if (!err)
			err = ipc_thread_start(&f->th, ul_recv_main, f);
		if (err && f->ep.rfd >= 0)
			f->ep.ops->close(&f->ep);
		if (err) {
			f->err = err;
			snprintf(f->what, sizeof(f->what), "accept");
			f->ep = (struct ipc_ep){
				.ops = c->cs->tp, .rfd = -1, .wfd = -1};
			u->opened++;
			break;
		}
		f->running = true;
		u->opened++;
	}
	ipc_cancel_unwatch(&u->halt, w);
	return NULL;
}

int ul_serve_start(struct ipc_pctx *c, struct ul **out)
{
	struct ul *u = ul_new(c);
	int err;

	*out = NULL;
	if (!u)
		return msg_fail(c, -ENOMEM, "allocate the load streams");
	if (!c->ch || c->ch->fd[0] < 0) {
		ul_free(u);
		return msg_fail(c, -EBADF, "find the listener of the streams");
	}
	err = ipc_cancel_init(&u->halt);
	if (!err)
		err = ipc_thread_start(&u->acceptor, ul_accept_main, u);
	if (err) {
		ipc_cancel_fini(&u->halt);
		ul_free(u);
		return msg_fail(c, err, "start the streams' acceptor");
	}
	u->accepting = true;
	*out = u;
	return 0;
}

int ul_serve_end(struct ipc_pctx *c, struct ul *u, int err)
{
	const char *what = NULL;
	uint64_t which = 0;
	int e2;

	if (!u)
		return err;
	ipc_cancel_fire(&u->halt);
	if (u->accepting)
		pthread_join(u->acceptor, NULL);
	ipc_cancel_fini(&u->halt);
	e2 = ul_join(u, &what, &which);
	if (e2 && !err)
		err = ul_fail(c, e2, what, which, u->n);
	ul_free(u);
	return err;
}

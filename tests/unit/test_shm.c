/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory rings beyond what every transport is tested for: both
 * ways of waiting, many messages of odd sizes wrapping a small ring (copied
 * out, or read in place), a full ring holding the sender back, a message
 * read in place holding its room until the next receive, end of stream and
 * a broken pipe while a side waits, and a side's stop ending a wait that no
 * system call would end.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/transport.h"

#include "../tap.h"
#include "base/lib_internal.h"
#include "transport/lib_internal.h"

/* A ring of 4 KiB: messages wrap around its end every few sends. */
#define SMALL_RING 4096u

/* Messages per stream test; sizes cycle through 1..MAX_LEN. */
#define STREAM_MSGS 20000u
#define MAX_LEN 1500u

/* How long a waiting side is left alone before it is disturbed. */
#define NAP_NS 50000000L

static const struct ipc_transport_ops *tp;
static const char *const mode_name[] = {"futex", "spin"};
static struct ipc_cancel stop; /* every endpoint's (ipc_ep.cancel) */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void nap(void)
{
	struct timespec ts = {0, NAP_NS};

	nanosleep(&ts, NULL);
}

static void opts_for(struct ipc_tp_opts *o, enum ipc_shm_wait mode, size_t ring,
		     size_t max_msg)
{
	memset(o, 0, sizeof(*o));
	o->max_msg = max_msg;
	o->shm_bytes = ring;
	o->shm_wait = mode;
}

/* Byte i of message @seq of @len bytes. */
static unsigned char pat(uint32_t seq, size_t i)
{
	return (unsigned char)(seq * 131u + i * 7u + (i >> 8));
}

static size_t len_of(uint32_t seq)
{
	return 1 + (seq * 389u) % MAX_LEN;
}

struct side {
	struct ipc_chan *ch;
	struct ipc_ep ep;
	bool view; /* receive in place (recv_view) */
	int rc;
	uint32_t got;
};

static int open_side(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep)
{
	*ep = (struct ipc_ep){.rfd = -1, .wfd = -1, .cancel = &stop};
	return tp->open(ch, side, ep);
}

/*
 * The server's half of a stream: receive STREAM_MSGS messages (copied out,
 * or in place when @view), check each byte, then read end of stream.  0,
 * or a negative count of where it broke.
 */
static int sink(struct ipc_chan *ch, bool view, uint32_t *got)
{
	struct ipc_ep ep;
	unsigned char buf[MAX_LEN + 8];
	const void *at = NULL;
	const unsigned char *m = buf;
	uint32_t seq;
	ssize_t n;
	int rc;

	rc = open_side(ch, IPC_SERVER, &ep);
	if (rc < 0)
		return rc;
	for (seq = 0; seq < STREAM_MSGS; seq++) {
		if (view) {
			n = tp->recv_view(&ep, &at, sizeof(buf));
			m = at;
		} else {
			n = tp->recv(&ep, buf, sizeof(buf));
		}
		if (n != (ssize_t)len_of(seq)) {
			rc = n < 0 ? (int)n : -EBADMSG;
			goto out;
		}
		for (size_t i = 0; i < (size_t)n; i++)
			if (m[i] != pat(seq, i)) {
				rc = -EBADMSG;
				goto out;
			}
	}
	/* The client closed after its last message. */
	n = view ? tp->recv_view(&ep, &at, sizeof(buf))
		 : tp->recv(&ep, buf, sizeof(buf));
	rc = n == 0 ? 0 : -EPROTO;
out:
	*got = seq;
	tp->close(&ep);
	return rc;
}

static void *sink_thread(void *arg)
{
	struct side *s = arg;

	s->rc = sink(s->ch, s->view, &s->got);
	return NULL;
}

/*
 * Many messages of sizes 1..1500 through a 4 KiB ring: they wrap, the ring
 * fills and the sender waits for room; every byte must arrive in order,
 * also read in place across the ring's end (@view).
 */
static void stream(enum ipc_shm_wait mode, bool forked, bool view)
{
	const char *how = forked ? (view ? "fork, in place" : "fork")
				 : (view ? "thread, in place" : "thread");
	unsigned char buf[MAX_LEN];
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	struct ipc_ep ep;
	struct side s = {.ch = &ch, .view = view};
	pthread_t t;
	pid_t pid = -1;
	uint32_t seq;
	int rc, status = -1;
	ssize_t n = 0;

	opts_for(&o, mode, SMALL_RING, MAX_LEN);
	ipc_chan_init(&ch, tp, &o);
	rc = tp->setup(&ch);
	if (rc < 0) {
		is_int(rc, "==", 0, "%s stream %s: setup", mode_name[mode],
		       how);
		return;
	}
	fflush(stdout);
	if (forked) {
		pid = fork();
		if (pid == 0) {
			alarm(60);
			rc = sink(&ch, view, &s.got);
			_exit(rc < 0 ? 1 : 0);
		}
	} else {
		pthread_create(&t, NULL, sink_thread, &s);
	}
	rc = open_side(&ch, IPC_CLIENT, &ep);
	for (seq = 0; rc == 0 && seq < STREAM_MSGS; seq++) {
		size_t len = len_of(seq);

		for (size_t i = 0; i < len; i++)
			buf[i] = pat(seq, i);
		n = tp->send(&ep, buf, len);
		if (n != (ssize_t)len)
			rc = n < 0 ? (int)n : -EIO;
	}
	tp->close(&ep);
	if (forked) {
		if (rc < 0)
			kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		s.rc = WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
		s.got = s.rc == 0 ? STREAM_MSGS : 0; /* the child checked */
	} else {
		pthread_join(t, NULL);
	}
	is_int(rc, "==", 0, "%s stream %s: %u messages of 1..%u bytes sent",
	       mode_name[mode], how, STREAM_MSGS, MAX_LEN);
	is_int(s.rc, "==", 0,
	       "%s stream %s: every byte arrived in order, then end of "
	       "stream (got %u)",
	       mode_name[mode], how, s.got);
	tp->teardown(&ch);
}

/* A waiting side, in a thread: what its call returned and when. */
struct waiter {
	const struct ipc_transport_ops *tp;
	struct ipc_ep *ep;
	bool sending; /* wait in send (ring full) rather than recv */
	size_t len;
	ssize_t rc;
	uint64_t done_ns;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	static unsigned char buf[SMALL_RING];

	w->rc = w->sending ? w->tp->send(w->ep, buf, w->len)
			   : w->tp->recv(w->ep, buf, sizeof(buf));
	w->done_ns = now_ns();
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig; /* there to interrupt a sleep in futex */
}

/* Set up a small ring and open both sides in this thread. */
static int pair(enum ipc_shm_wait mode, struct ipc_chan *ch, struct ipc_ep *cli,
		struct ipc_ep *srv)
{
	struct ipc_tp_opts o;
	int rc;

	opts_for(&o, mode, SMALL_RING, 64);
	ipc_chan_init(ch, tp, &o);
	rc = tp->setup(ch);
	if (rc == 0)
		rc = open_side(ch, IPC_SERVER, srv);
	if (rc == 0)
		rc = open_side(ch, IPC_CLIENT, cli);
	return rc;
}

static void unpair(struct ipc_chan *ch, struct ipc_ep *cli, struct ipc_ep *srv)
{
	tp->close(cli);
	tp->close(srv);
	tp->teardown(ch);
}

/* Fill the client's ring until a send would wait. */
static void fill_ring(struct ipc_ep *cli)
{
	unsigned char buf[1000] = {0};
	size_t used = 0;

	/* A 1000-byte message takes 1008 bytes of ring. */
	while (used + 2 * 1008 <= SMALL_RING) {
		tp->send(cli, buf, sizeof(buf));
		used += 1008;
	}
	tp->send(cli, buf, sizeof(buf));
}

/*
 * A side waits (for a message, or for room in a full ring); then the peer
 * closes, or the side's stop is fired (with a signal too, as a watching
 * thread gets).  The wait must end with end of stream, -EPIPE or -EINTR,
 * soon.
 */
static void disturbed(enum ipc_shm_wait mode, bool sending, bool by_signal)
{
	const char *what = sending ? "full send" : "empty recv";
	struct ipc_chan ch;
	struct ipc_ep cli, srv;
	struct waiter w = {.tp = tp, .sending = sending, .len = 1000};
	pthread_t t;
	uint64_t t0;
	ssize_t want;

	if (pair(mode, &ch, &cli, &srv) < 0) {
		ok(0, "%s %s: pair", mode_name[mode], what);
		return;
	}
	if (sending) {
		fill_ring(&cli);
		w.ep = &cli;
	} else {
		w.ep = &srv;
	}
	pthread_create(&t, NULL, wait_thread, &w);
	nap();
	ok(w.done_ns == 0, "%s %s: still waiting after 50 ms", mode_name[mode],
	   what);
	t0 = now_ns();
	if (by_signal) {
		ipc_cancel_fire(&stop);
		pthread_kill(t, SIGUSR1);
		want = -EINTR;
	} else {
		tp->close(sending ? &srv : &cli);
		want = sending ? -EPIPE : 0;
	}
	pthread_join(t, NULL);
	is_int(w.rc, "==", want, "%s %s: %s ends the wait", mode_name[mode],
	       what, by_signal ? "a stop" : "the peer's close");
	ok(w.done_ns - t0 < 1000000000u, "%s %s: within a second (%llu us)",
	   mode_name[mode], what,
	   (unsigned long long)((w.done_ns - t0) / 1000));
	unpair(&ch, &cli, &srv);
	ipc_cancel_reset(&stop);
}

/*
 * A message read in place keeps its room until the next receive: a sender
 * that needs that room waits, and the bytes stay as they were.  Too long a
 * message is dropped, as recv drops it; copies and views mix in order.
 */
static void in_place(enum ipc_shm_wait mode)
{
	static unsigned char msg[1000];
	struct ipc_chan ch;
	struct ipc_ep cli, srv;
	struct waiter w = {.tp = tp, .sending = true, .len = 1000};
	const void *at = NULL;
	unsigned char buf[8];
	pthread_t t;
	int bad = 0;

	if (pair(mode, &ch, &cli, &srv) < 0) {
		ok(0, "%s in place: pair", mode_name[mode]);
		return;
	}
	/* Four 1000-byte messages (1008 bytes each) fill the 4 KiB ring. */
	for (unsigned k = 0; k < 4; k++) {
		memset(msg, 'a' + k, sizeof(msg));
		tp->send(&cli, msg, sizeof(msg));
	}
	is_int(tp->recv_view(&srv, &at, 1000), "==", 1000,
	       "%s in place: the first message", mode_name[mode]);
	w.ep = &cli;
	pthread_create(&t, NULL, wait_thread, &w);
	nap();
	ok(w.done_ns == 0, "%s in place: a fifth send waits for its room",
	   mode_name[mode]);
	for (unsigned i = 0; i < 1000; i++)
		bad += ((const unsigned char *)at)[i] != 'a';
	is_int(bad, "==", 0, "%s in place: its bytes unchanged meanwhile",
	       mode_name[mode]);
	is_int(tp->recv(&srv, buf, sizeof(buf)), "==", -EMSGSIZE,
	       "%s in place: the next receive gives the room back (and "
	       "drops a message too long for it)",
	       mode_name[mode]);
	pthread_join(t, NULL);
	is_int(w.rc, "==", 1000, "%s in place: then the waiting send goes",
	       mode_name[mode]);
	is_int(tp->recv_view(&srv, &at, 8), "==", -EMSGSIZE,
	       "%s in place: a view drops a message too long too",
	       mode_name[mode]);
	is_int(tp->recv_view(&srv, &at, 1000), "==", 1000,
	       "%s in place: the next one", mode_name[mode]);
	ok(((const unsigned char *)at)[999] == 'd',
	   "%s in place: in order after the dropped ones", mode_name[mode]);
	tp->close(&cli);
	is_int(tp->recv_view(&srv, &at, 1000), "==", 1000,
	       "%s in place: the fifth, sent before the close",
	       mode_name[mode]);
	is_int(tp->recv_view(&srv, &at, 1000), "==", 0,
	       "%s in place: then end of stream", mode_name[mode]);
	unpair(&ch, &cli, &srv);
}

/* A sender that sends 64 KiB messages until one fails. */
struct flood {
	struct ipc_ep *ep;
	_Atomic unsigned sent;
	ssize_t rc;
};

/* Wait until @f stopped sending for 50 ms (10 s at most): its count. */
static unsigned settled(struct flood *f)
{
	unsigned prev;

	for (int i = 0; i < 200; i++) {
		prev = f->sent;
		nap();
		if (f->sent == prev)
			break;
	}
	return f->sent;
}

static void *flood_thread(void *arg)
{
	static unsigned char buf[65536];
	struct flood *f = arg;

	while ((f->rc = tp->send(f->ep, buf, sizeof(buf))) > 0)
		f->sent++;
	return NULL;
}

/*
 * In a ring of 8 MiB the sender runs at most half of it (4 MiB) ahead of
 * the receiver: 63 records of 64 KiB + 8, then it waits for the receiver
 * although the ring has room.
 */
static void lead(enum ipc_shm_wait mode)
{
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	struct ipc_ep cli, srv;
	struct flood f = {.ep = &cli};
	const void *at = NULL;
	pthread_t t;

	opts_for(&o, mode, 8u << 20, 65536);
	ipc_chan_init(&ch, tp, &o);
	if (tp->setup(&ch) < 0 || open_side(&ch, IPC_SERVER, &srv) < 0 ||
	    open_side(&ch, IPC_CLIENT, &cli) < 0) {
		ok(0, "%s lead: pair", mode_name[mode]);
		tp->teardown(&ch);
		return;
	}
	pthread_create(&t, NULL, flood_thread, &f);
	is_int(settled(&f), "==", 63, "%s lead: 4 MiB ahead, the sender waits",
	       mode_name[mode]);
	is_int(tp->recv_view(&srv, &at, 65536), "==", 65536,
	       "%s lead: one received", mode_name[mode]);
	is_int(tp->recv_view(&srv, &at, 65536), "==", 65536,
	       "%s lead: and another (the first one's room is back)",
	       mode_name[mode]);
	is_int(settled(&f), "==", 64, "%s lead: so one more went",
	       mode_name[mode]);
	tp->close(&srv);
	pthread_join(t, NULL);
	is_int(f.rc, "==", -EPIPE, "%s lead: the receiver's close ends it",
	       mode_name[mode]);
	unpair(&ch, &cli, &srv);
}

/*
 * A stop that lands before the wait starts (between the caller's check of
 * its stop and the call) is not lost: the next wait returns -EINTR at
 * once; a message that is there is still received (only waits look).
 */
static void early_signal(enum ipc_shm_wait mode)
{
	struct ipc_chan ch;
	struct ipc_ep cli, srv;
	unsigned char c = 7;

	if (pair(mode, &ch, &cli, &srv) < 0) {
		ok(0, "%s early signal: pair", mode_name[mode]);
		return;
	}
	ipc_cancel_fire(&stop);
	is_int(tp->recv(&srv, &c, 1), "==", -EINTR,
	       "%s early signal: the next recv gives -EINTR", mode_name[mode]);
	is_int(tp->send(&cli, &c, 1), "==", 1,
	       "%s early signal: a send goes through", mode_name[mode]);
	is_int(tp->recv(&srv, &c, 1), "==", 1,
	       "%s early signal: the recv after it gets the message",
	       mode_name[mode]);
	unpair(&ch, &cli, &srv);
	ipc_cancel_reset(&stop);
}

/* Limits of a 4 KiB ring and of bad ring sizes. */
static void limits(void)
{
	static unsigned char big[SMALL_RING + 1];
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	struct ipc_ep cli, srv;
	char why[200] = "";

	opts_for(&o, IPC_SHM_FUTEX, SMALL_RING, 1);
	is_int(tp->max_msg(&o), "==", SMALL_RING - 8,
	       "4 KiB ring: messages up to 4088 bytes");
	o.max_msg = SMALL_RING - 7;
	ipc_chan_init(&ch, tp, &o);
	is_int(tp->setup(&ch), "==", -EMSGSIZE,
	       "4 KiB ring: setup refuses 4089-byte messages");
	tp->teardown(&ch);
	if (pair(IPC_SHM_FUTEX, &ch, &cli, &srv) == 0) {
		is_int(tp->send(&cli, big, SMALL_RING - 8),
		       "==", SMALL_RING - 8,
		       "4 KiB ring: a 4088-byte message goes");
		is_int(tp->recv(&srv, big, SMALL_RING), "==", SMALL_RING - 8,
		       "4 KiB ring: and arrives");
		is_int(tp->send(&cli, big, SMALL_RING - 7), "==", -EMSGSIZE,
		       "4 KiB ring: 4089 bytes give -EMSGSIZE");
	} else {
		ok(0, "4 KiB ring: pair");
	}
	unpair(&ch, &cli, &srv);

	o.shm_bytes = 3000;
	is_int(tp->check(&o, why, sizeof(why)), "==", -EINVAL,
	       "a 3000-byte ring is refused");
	ok(strstr(why, "power of two") != NULL, "and the reason says why: %s",
	   why);
	ipc_chan_init(&ch, tp, &o);
	is_int(tp->setup(&ch), "==", -EINVAL, "setup refuses it too");
	tp->teardown(&ch);
	o.shm_bytes = 0;
	is_int(tp->check(&o, why, sizeof(why)), "==", 0,
	       "the default ring is fine");
	is_int(tp->max_msg(&o), "==", IPC_SHM_BYTES_DEFAULT - 8,
	       "the default ring carries 4 MiB - 8");
}

int main(void)
{
	struct sigaction sa;
	int mode;

	alarm(120);
	tp = ipc_transport_find("shm");
	if (!tp) {
		printf("1..0 # skip no shm transport\n");
		return 77;
	}
	if (ipc_cancel_init(&stop)) {
		printf("1..0 # skip cannot make a stop\n");
		return 77;
	}
	/* A handler without SA_RESTART, as the wake signal's. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	limits();
	for (mode = IPC_SHM_FUTEX; mode <= IPC_SHM_SPIN; mode++) {
		stream(mode, true, false);
		stream(mode, false, false);
		stream(mode, true, true);
		stream(mode, false, true);
		in_place(mode);
		lead(mode);
		disturbed(mode, false, false);
		disturbed(mode, true, false);
		disturbed(mode, false, true);
		disturbed(mode, true, true);
		early_signal(mode);
	}
	ipc_cancel_fini(&stop);
	return done_testing();
}

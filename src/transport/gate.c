/* SPDX-License-Identifier: MIT */
/*
 * The server side's gate on a listening TCP channel whose connections must
 * start with a preamble (a local run's token, remote mode's cookie): any
 * local process can connect to a loopback port, so a connection is taken
 * only once it has shown those bytes, and the others are counted and
 * closed.  Connections still being read wait side by side, so one that
 * says nothing holds a slot for the wait and not the whole run:
 *
 *   accept ─► pending (up to GATE_SLOTS) ──► all of the preamble: taken
 *              ▲      │                  └─► other bytes, end of file, an
 *              │      │                      error, the wait spent, or the
 *              │      │                      oldest when a new one needs
 *              │      ▼                      its slot: closed, counted
 *              └── poll(listener, pending)
 *
 * The usual case costs one recv more than a plain accept: with nothing
 * pending the accept blocks as before, and the peer's preamble, sent right
 * after its connect, is most often there already.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/transports.h"

/*
 * Connections read at once.  A peer sends its preamble right after its
 * connect, so its own connections wait here for microseconds; 32 lets a
 * burst of load's flows and a few strangers wait together.
 */
#define GATE_SLOTS 32

struct gate_conn {
	int fd;
	size_t got;	   /* preamble bytes read so far */
	uint64_t until_ns; /* CLOCK_MONOTONIC end of its wait */
	uint8_t buf[TP_PREAMBLE_MAX];
};

struct tp_gate {
	size_t n; /* pending connections, oldest first */
	struct gate_conn c[GATE_SLOTS];
};

static void refuse(const struct ipc_chan *ch, struct tp_gate *g, size_t i)
{
	close(g->c[i].fd);
	memmove(&g->c[i], &g->c[i + 1], (g->n - i - 1) * sizeof(g->c[0]));
	g->n--;
	if (ch->opts.preamble_refused)
		__atomic_fetch_add(ch->opts.preamble_refused, 1,
				   __ATOMIC_RELAXED);
}

/* Read what connection @i has sent of the preamble: false if it failed. */
static bool gate_read(const struct ipc_chan *ch, struct gate_conn *c)
{
	ssize_t n;

	do {
		n = recv(c->fd, c->buf + c->got, ch->opts.preamble_len - c->got,
			 MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n > 0)
		c->got += (size_t)n;
	return n > 0 || (n < 0 && errno == EAGAIN);
}

/* Compared in full, not stopping at the first difference. */
static bool gate_match(const struct ipc_chan *ch, const struct gate_conn *c)
{
	unsigned diff = 0;

	for (size_t i = 0; i < c->got; i++)
		diff |= c->buf[i] ^ ch->opts.preamble[i];
	return diff == 0;
}

/*
 * Judge every pending connection: a complete one that matches is taken
 * (its descriptor returned), others finished or out of time are refused.
 * -1 when none was taken; *@next_ns: the earliest end of a wait left.
 */
static int gate_judge(const struct ipc_chan *ch, struct tp_gate *g,
		      uint64_t *next_ns)
{
	uint64_t now = ipc_now_ns();
	size_t i = 0;
	int fd;

	*next_ns = UINT64_MAX;
	while (i < g->n) {
		struct gate_conn *c = &g->c[i];

		if (c->got == ch->opts.preamble_len && gate_match(ch, c)) {
			if (ch->opts.preamble_taken)
				__atomic_fetch_add(ch->opts.preamble_taken, 1,
						   __ATOMIC_RELAXED);
			fd = c->fd;
			memmove(c, c + 1, (g->n - i - 1) * sizeof(*c));
			g->n--;
			return fd;
		}
		if (c->got == ch->opts.preamble_len || now >= c->until_ns) {
			refuse(ch, g, i);
			continue;
		}
		if (c->until_ns < *next_ns)
			*next_ns = c->until_ns;
		i++;
	}
	return -1;
}

/* A new connection into the gate, the oldest refused if it is full. */
static void gate_add(const struct ipc_chan *ch, struct tp_gate *g, int fd)
{
	struct gate_conn *c;
	uint64_t wait = ch->opts.preamble_wait_ns;

	if (g->n == GATE_SLOTS)
		refuse(ch, g, 0);
	c = &g->c[g->n++];
	c->fd = fd;
	c->got = 0;
	c->until_ns = ipc_now_ns() + (wait ? wait : 1000000000ull);
	if (!gate_read(ch, c))
		refuse(ch, g, g->n - 1);
}

/* Wait for the listener or a pending connection; read what came. */
static int gate_wait(const struct ipc_chan *ch, struct tp_gate *g,
		     uint64_t next_ns, bool *incoming)
{
	struct pollfd pf[GATE_SLOTS + 1];
	uint64_t now = ipc_now_ns();
	int timeout_ms = -1, fd, n;
	size_t i, k;

	if (next_ns != UINT64_MAX && next_ns > now)
		timeout_ms = (int)((next_ns - now + 999999) / 1000000);
	else if (next_ns != UINT64_MAX)
		timeout_ms = 0;
	pf[0] = (struct pollfd){.fd = ch->fd[0], .events = POLLIN};
	for (i = 0; i < g->n; i++)
		pf[i + 1] = (struct pollfd){.fd = g->c[i].fd, .events = POLLIN};
	n = poll(pf, g->n + 1, timeout_ms);
	if (n < 0)
		return -errno; /* EINTR too: the caller's stop may have come */
	/* Back to front: a refusal moves only the slots after it. */
	for (k = g->n; k > 0; k--) {
		i = k - 1;
		fd = g->c[i].fd;
		if (pf[k].fd == fd && pf[k].revents && !gate_read(ch, &g->c[i]))
			refuse(ch, g, i);
	}
	*incoming = pf[0].revents != 0;
	return 0;
}

int tp_gate_accept(struct ipc_chan *ch)
{
	struct tp_gate *g = ch->priv;
	uint64_t next_ns;
	bool incoming;
	int fd, rc;

	if (ch->opts.preamble_len > TP_PREAMBLE_MAX)
		return -EINVAL;
	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return -ENOMEM;
		ch->priv = g;
	}
	for (;;) {
		fd = gate_judge(ch, g, &next_ns);
		if (fd >= 0)
			return fd;
		incoming = !g->n; /* nothing to watch: block in accept */
		if (g->n) {
			rc = gate_wait(ch, g, next_ns, &incoming);
			if (rc < 0)
				return rc;
		}
		if (!incoming)
			continue;
		/*
		 * The listener stays blocking: after poll saw it readable, a
		 * connection waits (only an accept takes it from the queue).
		 */
		fd = accept4(ch->fd[0], NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == ECONNABORTED)
				continue;
			return -errno;
		}
		gate_add(ch, g, fd);
	}
}

void tp_gate_free(struct ipc_chan *ch)
{
	struct tp_gate *g = ch->priv;

	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		close(g->c[i].fd);
	free(g);
	ch->priv = NULL;
}

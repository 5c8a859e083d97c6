/* SPDX-License-Identifier: MIT */
/*
 * The built-in HTTP target: one page to every request, pipelined or not,
 * from one thread and one readiness loop.  Built to be hit hard by clients
 * that are not ours (ab, wrk, curl) and to keep serving the others when
 * one client misbehaves.  How the loop waits follows the engine (-e):
 * epoll_wait(2) on an epoll set (epoll, the default), ppoll(2) over an
 * array of every descriptor (poll), or epoll_wait with a zero timeout in a
 * spin that never sleeps (busy).
 *
 * A connection reads requests into the parser and queues one answer per
 * request, in order; the answers are written from pieces laid out once
 * (the head, rewritten once a second for its Date, and the body cut into
 * --chunk pieces, each one write).  When the queue is full, what was read
 * and not parsed waits in a stash and the connection stops reading, so a
 * client that pipelines without reading costs a bounded amount of memory:
 * a connection reads FIRST_READ bytes at most at a time until its queue
 * once overflows, and from then on peeks (MSG_PEEK, SSL_peek) and takes
 * only the bytes it parsed, so that what it has no room for stays in the
 * kernel's socket buffer (bounded there) rather than in ours.
 *
 *   accept ──> READ ──request──> queue ──> WRITE ──all answered──> READ
 *                │  malformed: 400 or 431, then close          │
 *                └──────── Connection: close, HTTP/1.0 ────────┴─> LINGER
 *   LINGER: write side shut, input read and dropped until the client
 *   closes (so that a reset does not destroy the last answer).
 *
 * Slow clients: every connection has one deadline, now + client_timeout,
 * set when it opens, when its answers are all written, and whenever a
 * write moves on; reading does not move it.  A client that dribbles a
 * request, or stops reading its answers, is closed when it passes; the
 * others are never waited for.  All deadlines are "now + the same
 * timeout", so a list kept in the order they were set is sorted: the
 * first one is the next to expire, and setting one is O(1).
 *
 * A connection whose first bytes are HTTP/2's preface (h2c with prior
 * knowledge: h2load, curl --http2-prior-knowledge, http --http2) is
 * handed to an nghttp2 session instead (h2_serve.h), which answers every
 * stream with the page; the loop still reads, writes, times out and
 * evicts it (when no stream is open) as any other.  Over TLS a client
 * gets HTTP/2 when it offers h2 by ALPN (the preface then comes inside
 * TLS, and the same session reads it).
 *
 * With TLS (opts.tls) OpenSSL reads and writes the sockets: a connection
 * first runs its handshake (a failed one is counted apart and closed),
 * then works as above on the decrypted bytes; a Connection: close answer
 * ends with close_notify before the write side is shut.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "h2_serve.h"
#include "tls.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "base/lib_internal.h"
#include "framing/lib_internal.h"
#include "pattern/lib_internal.h"
#include "transport/lib_internal.h"

#define QMAX 64			/* answers queued per connection */
#define RBUF (64u << 10)	/* bytes read at once */
#define FIRST_READ (8u << 10)	/* ... before the queue first overflowed */
#define HEAD_MAX 320		/* bytes of a response head */
#define EVENTS 128		/* epoll events per wait */
#define TURN_BYTES (256u << 10) /* written to one connection per turn */
#define ACCEPTS 64		/* connections accepted per wake-up */
#define NS 1000000000ull
#define DEF_TIMEOUT (10 * NS)
#define DEF_CONNS 10000u
#define EMFILE_PAUSE_NS (100 * 1000000ull)

/* What an answer in the queue is. */
enum {
	K_HEAD = 1 << 0,  /* to a HEAD: no body */
	K_CLOSE = 1 << 1, /* the last one: close after it */
	K_10 = 1 << 2,	  /* to an HTTP/1.0 client: no chunks */
	K_KA10 = 1 << 3,  /* ... that asked for keep-alive: say so */
	K_400 = 1 << 4,	  /* Bad Request */
	K_431 = 1 << 5,	  /* Request Header Fields Too Large */
	K_100 = 1 << 6,	  /* 100 Continue (an interim answer) */
};
#define NHEADS 128

/* A body as it goes on the wire, cut into pieces of one write each. */
struct body {
	const char *bytes;
	uint64_t len;	 /* bytes on the wire */
	uint64_t step;	 /* every piece but the last is this long */
	uint64_t pieces; /* how many */
};

struct conn {
	int fd;
	struct conn *prev, *next; /* in the deadline list, or free list */
	uint64_t deadline_ns;
	struct ipc_http_parser rx;
	uint8_t q[QMAX]; /* answers to write, K_* bits */
	uint32_t qhead, qlen;
	/* The answer being written (q[qhead]) */
	char head[HEAD_MAX];
	uint32_t head_len, head_off;
	const struct body *body; /* NULL: a head alone */
	uint64_t off;		 /* bytes of body written */
	uint64_t piece;		 /* the piece being written */
	bool writing;		 /* an answer has begun */
	char *stash;		 /* read, not parsed yet (queue full) */
	bool peek;		 /* its queue overflowed: peek, take what
				    is parsed */
	uint32_t stash_off, stash_len;
	uint64_t answered; /* requests answered on it */
	uint32_t events;   /* what the loop watches: EPOLLIN, EPOLLOUT */
	uint32_t slot;	   /* poll: its entry in the array */
	bool no_more;	   /* parse nothing more (closing) */
	bool rd_eof;	   /* the client closed its side */
	bool linger;	   /* our side is shut; drain and close */
	bool continued;	   /* 100 Continue queued for this request */
	bool in_list;	   /* in the deadline list */
	struct h2s *h2;	   /* HTTP/2 (h2c's preface came first, or h2
			      was chosen by ALPN), else NULL */
	uint64_t h2_seen;  /* ... its answers counted in st */
	uint64_t h2_odd;   /* ... its strangers counted in st */
	bool h2_ww;	   /* ... it waits for the socket to take more */
	uint8_t pre_len;   /* the first bytes, a part of h2c's preface */
	char pre[H2S_PREFACE_LEN];
	SSL *ssl;     /* TLS, else NULL */
	bool hs_done; /* ... its handshake is over */
	bool tls_ww;  /* ... it waits for the socket to take more */
};

/* How the loop waits (the engine's way). */
enum srv_wait {
	W_EPOLL,
	W_POLL,
	W_SPIN,
};

/* One descriptor's readiness, as either way reports it. */
struct ready {
	void *ptr; /* a struct conn, NULL for the listening socket, or the
		      server itself for the stop descriptor */
	uint32_t events;
};

struct ipc_http_server {
	struct ipc_http_serve_opts o;
	int lfd, ep;
	enum srv_wait how;
	struct pollfd *pfd;  /* poll: every descriptor watched */
	void **pptr;	     /* ... and what each one is (struct ready.ptr) */
	uint32_t npfd, pcap; /* ... entries in use, allocated */
	uint32_t lslot;	     /* poll: the listening socket's entry */
	bool stop_watched;   /* the stop descriptor is watched */
	struct ready *rdy;   /* what one wait found (EVENTS, or pcap) */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	char *page; /* the page */
	char *enc;  /* the page in chunks */
	struct body plain, chunks;
	char heads[NHEADS][HEAD_MAX];
	uint32_t head_len[NHEADS];
	time_t date_s;		   /* the second the heads' Date is of */
	struct conn *first, *last; /* deadline list, earliest first */
	struct conn *free;	   /* connections to reuse */
	uint32_t nconns;
	bool accepting;		  /* the listening socket is in the epoll set */
	bool no_idle;		  /* full, and no connection was idle to push
				     out: wait for a close or some activity */
	bool evict;		  /* full with a connection waiting: push
				     one out after this wake-up's events */
	uint64_t accept_retry_ns; /* out of descriptors: try again then */
	uint64_t now_ns, last_ns; /* now; the last request or accept */
	char *rbuf;
	struct h2s_page h2page; /* what HTTP/2 streams are answered */
	SSL_CTX *tls;		/* serving https, else NULL */
	struct ipc_http_serve_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* ---- the page -------------------------------------------------------- */

static const char page_top[] = "<!DOCTYPE html>\n<html><head><title>ipcperf "
			       "test page</title></head><body><pre>\n";
static const char page_end[] = "</pre></body></html>\n";

void ipc_http_page_fill(char *dst, size_t len)
{
	size_t top = sizeof(page_top) - 1, end = sizeof(page_end) - 1;
	size_t at = 0, stop = len, line = 0;
	bool wrap = len >= top + end;
	char l[72];

	if (wrap) {
		memcpy(dst, page_top, top);
		at = top;
		stop = len - end;
	}
	while (at < stop) {
		int n = snprintf(l, sizeof(l),
				 "%07zu the ipcperf test page, numbered "
				 "lines of 64 bytes...\n",
				 line++);
		size_t k = (size_t)n < stop - at ? (size_t)n : stop - at;

		memcpy(dst + at, l, k);
		at += k;
	}
	if (wrap)
		memcpy(dst + stop, page_end, end);
}

/* Lay out the page and its chunked form. */
static int lay_out(struct ipc_http_server *s)
{
	uint64_t len = s->o.page_bytes, c = s->o.chunk_bytes;
	uint64_t n, full, rest, frame, at = 0;
	char line[24];

	if (!c || c > len)
		c = len ? len : 1;
	s->page = malloc(len ? len : 1);
	if (!s->page)
		return -ENOMEM;
	ipc_http_page_fill(s->page, len);
	s->plain = (struct body){.bytes = s->page,
				 .len = len,
				 .step = c,
				 .pieces = (len + c - 1) / c};

	/* Chunks: every frame but the last is "size\r\n", c bytes, "\r\n". */
	full = len / c;
	rest = len % c;
	n = full + (rest ? 1 : 0);
	frame = ipc_http_chunk_line(line, c) + c + 2;
	s->enc = malloc(full * frame + (rest ? 24 + rest : 0) + 5);
	if (!s->enc)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = i < full ? c : rest;
		size_t ll = ipc_http_chunk_line(line, k);

		memcpy(s->enc + at, line, ll);
		memcpy(s->enc + at + ll, s->page + i * c, k);
		memcpy(s->enc + at + ll + k, "\r\n", 2);
		at += ll + k + 2;
	}
	memcpy(s->enc + at, "0\r\n\r\n", 5);
	at += 5;
	s->chunks = (struct body){
		.bytes = s->enc, .len = at, .step = frame, .pieces = n ? n : 1};
	s->h2page = (struct h2s_page){.body = s->page,
				      .len = len,
				      .type = "text/html",
				      .token = s->o.token};
	return 0;
}

/* Where piece @i of @b ends: the last one takes the rest. */
static uint64_t piece_end(const struct body *b, uint64_t i)
{
	return i + 1 < b->pieces ? (i + 1) * b->step : b->len;
}

/* The head for answer kind @k (the K_HEAD bit does not change it). */
static unsigned head_index(uint8_t k)
{
	return k & ~K_HEAD & (NHEADS - 1);
}

/* Rewrite every head for the second @now. */
static void heads_date(struct ipc_http_server *s, time_t now)
{
	char date[40];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	for (unsigned k = 0; k < NHEADS; k++) {
		struct ipc_http_resp_spec sp = {
			.status = 200,
			.http10 = false,
			.chunked = s->o.chunked && !(k & K_10),
			.length = s->o.page_bytes,
			.keep_alive = !(k & K_CLOSE),
			.say_keep_alive = k & K_KA10,
			.date = date,
			.type = "text/html",
		};
		ssize_t n;

		if (k & K_100) {
			n = snprintf(s->heads[k], HEAD_MAX,
				     "HTTP/1.1 100 Continue\r\n\r\n");
			s->head_len[k] = (uint32_t)n;
			continue;
		}
		if (k & (K_400 | K_431)) {
			sp.status = k & K_400 ? 400 : 431;
			sp.chunked = false;
			sp.length = 0;
			sp.type = NULL;
		}
		n = ipc_http_resp_head(s->heads[k], HEAD_MAX, &sp);
		s->head_len[k] = n > 0 ? (uint32_t)n : 0;
	}
	s->date_s = now;
}

/* ---- connections ---------------------------------------------------- */

static void list_del(struct ipc_http_server *s, struct conn *c)
{
	if (!c->in_list)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->first = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		s->last = c->prev;
	c->prev = c->next = NULL;
	c->in_list = false;
}

/* The client has client_timeout from now (see the top of the file). */
static void touch(struct ipc_http_server *s, struct conn *c)
{
	s->no_idle = false;
	list_del(s, c);
	c->deadline_ns = s->now_ns + s->o.client_timeout_ns;
	c->prev = s->last;
	c->next = NULL;
	if (s->last)
		s->last->next = c;
	else
		s->first = c;
	s->last = c;
	c->in_list = true;
}

/* ---- how the loop waits --------------------------------------------- */

/* The slot of poll entry @ptr's owner, to update when the entry moves. */
static uint32_t *slot_of(struct ipc_http_server *s, void *ptr)
{
	static uint32_t none;

	if (!ptr)
		return &s->lslot;
	if (ptr == s)
		return &none; /* the stop descriptor never leaves */
	return &((struct conn *)ptr)->slot;
}

/* poll: one more entry, the array grown when full.  0 or -ENOMEM. */
static int pl_add(struct ipc_http_server *s, int fd, void *ptr, uint32_t ev)
{
	if (s->npfd == s->pcap) {
		uint32_t cap = s->pcap ? 2 * s->pcap : 64;
		struct pollfd *p = realloc(s->pfd, cap * sizeof(*p));
		void **q;
		struct ready *r;

		if (!p)
			return -ENOMEM;
		s->pfd = p;
		q = realloc(s->pptr, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		s->pptr = q;
		r = realloc(s->rdy, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		s->rdy = r;
		s->pcap = cap;
	}
	s->pfd[s->npfd] = (struct pollfd){.fd = fd, .events = (short)ev};
	s->pptr[s->npfd] = ptr;
	*slot_of(s, ptr) = s->npfd++;
	return 0;
}

/* poll: entry @i leaves; the last one takes its place. */
static void pl_del(struct ipc_http_server *s, uint32_t i)
{
	uint32_t last = --s->npfd;

	if (i == last)
		return;
	s->pfd[i] = s->pfd[last];
	s->pptr[i] = s->pptr[last];
	*slot_of(s, s->pptr[i]) = i;
}

/*
 * Watch @fd (@ptr: what it is, as struct ready says) for @ev, EPOLLIN
 * and EPOLLOUT bits (poll's POLLIN and POLLOUT have the same values);
 * @add: it is new.  0 or -errno.
 */
static int w_set(struct ipc_http_server *s, int fd, void *ptr, uint32_t ev,
		 bool add)
{
	struct epoll_event e = {.events = ev, .data.ptr = ptr};

	if (s->how == W_POLL) {
		if (add)
			return pl_add(s, fd, ptr, ev);
		s->pfd[*slot_of(s, ptr)].events = (short)ev;
		return 0;
	}
	return epoll_ctl(s->ep, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &e)
		       ? -errno
		       : 0;
}

/* Stop watching @fd (@ptr: what it is), before it is closed. */
static void w_del(struct ipc_http_server *s, int fd, void *ptr)
{
	if (s->how == W_POLL)
		pl_del(s, *slot_of(s, ptr));
	else
		epoll_ctl(s->ep, EPOLL_CTL_DEL, fd, NULL);
}

/*
 * Wait up to @ms for readiness; what is ready into s->rdy.  The count,
 * or -errno.  busy never sleeps: its wait is always a look.
 */
static int w_wait(struct ipc_http_server *s, int ms)
{
	struct epoll_event ev[EVENTS];
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (long)(ms % 1000) * 1000000};
	int n, k = 0;

	if (s->how != W_POLL) {
		n = epoll_wait(s->ep, ev, EVENTS, s->how == W_SPIN ? 0 : ms);
		for (int i = 0; i < n; i++)
			s->rdy[i] =
				(struct ready){ev[i].data.ptr, ev[i].events};
		return n < 0 ? -errno : n;
	}
	n = ppoll(s->pfd, s->npfd, &ts, NULL);
	if (n < 0)
		return -errno;
	for (uint32_t i = 0; i < s->npfd && k < n; i++) {
		short re = s->pfd[i].revents;

		if (!re)
			continue;
		s->rdy[k++] = (struct ready){
			s->pptr[i],
			(uint32_t)(re & (POLLIN | POLLOUT)) |
				(re & (POLLERR | POLLNVAL) ? EPOLLERR : 0) |
				(re & POLLHUP ? EPOLLHUP : 0)};
	}
	return k;
}

static int watch(struct ipc_http_server *s, struct conn *c, uint32_t ev)
{
	if (ev == c->events)
		return 0;
	c->events = ev;
	return w_set(s, c->fd, c, ev, false);
}

static void conn_close(struct ipc_http_server *s, struct conn *c)
{
	list_del(s, c);
	if (s->how == W_POLL)
		w_del(s, c->fd, c); /* (an epoll set forgets it at close) */
	tls_server_free(c->ssl);
	c->ssl = NULL;
	h2s_free(c->h2);
	c->h2 = NULL;
	close(c->fd);
	c->fd = -1;
	free(c->stash);
	c->stash = NULL;
	c->next = s->free;
	s->free = c;
	s->nconns--;
	s->no_idle = false;
}

/* Connections looked at for one to push out, at most, from the oldest. */
#define EVICT_SCAN 64

/*
 * Full: close the connection idle longest (no request begun, no answer
 * queued) to make room, as the remote server does with its pending
 * sessions, so that idle connections cannot lock every client out.  The
 * deadline list is in order of last activity.  False when none is idle.
 */
static bool evict_idle(struct ipc_http_server *s)
{
	struct conn *c = s->first;

	for (int i = 0; c && i < EVICT_SCAN; i++, c = c->next)
		if (!c->rx.in_msg && !c->qlen && !(c->h2 && h2s_busy(c->h2))) {
			conn_close(s, c);
			s->st.evicted++;
			return true;
		}
	s->no_idle = true;
	return false;
}

/* Room for the answers to one more request (and its 100 Continue). */
static bool queue_room(const struct conn *c)
{
	return c->qlen + 2 <= QMAX;
}

static void enqueue(struct conn *c, uint8_t k)
{
	c->q[(c->qhead + c->qlen) % QMAX] = k;
	c->qlen++;
}

/* The kind of answer to the request the parser just finished. */
static uint8_t kind_of(const struct ipc_http_msg *m)
{
	uint8_t k = 0;

	if (m->method_head)
		k |= K_HEAD;
	if (!m->keep_alive)
		k |= K_CLOSE;
	if (m->major == 1 && m->minor == 0) {
		k |= K_10;
		if (m->keep_alive)
			k |= K_KA10;
	}
	return k;
}

/*
 * Parse @len bytes of @buf and queue the answers, until a request that
 * closes the connection or a full queue.  Returns the bytes parsed.
 */
static size_t parse(struct ipc_http_server *s, struct conn *c, const char *buf,
		    size_t len)
{
	size_t at = 0;

	while (at < len && !c->no_more && queue_room(c)) {
		bool done;
		ssize_t n = ipc_http_feed(&c->rx, buf + at, len - at, &done);

		if (n < 0) {
			enqueue(c, (n == -EMSGSIZE ? K_431 : K_400) | K_CLOSE);
			c->no_more = true;
			s->st.bad++;
			break;
		}
		at += (size_t)n;
		if (c->rx.msg.expect_continue && !c->continued && !done) {
			enqueue(c, K_100);
			c->continued = true;
		}
		if (!done)
			continue;
		c->continued = false;
		if (s->o.token && !c->rx.msg.token)
			s->st.strangers++;
		enqueue(c, kind_of(&c->rx.msg));
		s->last_ns = s->now_ns;
		if (!c->rx.msg.keep_alive)
			c->no_more = true;
	}
	return c->no_more ? len : at;
}

/* Parse what read() brought; keep what the queue had no room for. */
static int parse_read(struct ipc_http_server *s, struct conn *c, size_t len)
{
	size_t used = parse(s, c, s->rbuf, len);

	if (used == len)
		return 0;
	/* At most FIRST_READ bytes, once: the connection peeks from now. */
	c->peek = true;
	c->stash = malloc(len - used);
	if (!c->stash)
		return -ENOMEM;
	memcpy(c->stash, s->rbuf + used, len - used);
	c->stash_off = 0;
	c->stash_len = (uint32_t)(len - used);
	return 0;
}

/* Parse from the stash, as far as the queue has room. */
static void parse_stash(struct ipc_http_server *s, struct conn *c)
{
	c->stash_off += (uint32_t)parse(s, c, c->stash + c->stash_off,
					c->stash_len - c->stash_off);
	if (c->stash_off == c->stash_len) {
		c->stash_off = c->stash_len = 0;
		free(c->stash);
		c->stash = NULL;
	}
}

/*
 * Parse the @len bytes a peek brought, and take from the socket those
 * parsed (all of them once nothing more is to be parsed).  0 or -errno.
 */
static int parse_peeked(struct ipc_http_server *s, struct conn *c, size_t len)
{
	size_t used = parse(s, c, s->rbuf, len);
	bool ww;
	ssize_t n;

	if (!used)
		return 0;
	if (c->ssl)
		n = tls_server_recv(c->ssl, s->rbuf, used, false, &ww);
	else
		n = recv(c->fd, s->rbuf, used, 0);
	if (n != (ssize_t)used)
		return -EIO; /* what was peeked is there to take */
	s->st.bytes_in += (uint64_t)n;
	return 0;
}

/* Start writing the answer at the head of the queue. */
static void begin_answer(struct ipc_http_server *s, struct conn *c)
{
	uint8_t k = c->q[c->qhead];
	unsigned h = head_index(k);

	memcpy(c->head, s->heads[h], s->head_len[h]);
	c->head_len = s->head_len[h];
	c->head_off = 0;
	c->off = 0;
	c->piece = 0;
	c->body = NULL;
	if (!(k & (K_HEAD | K_400 | K_431 | K_100)))
		c->body = s->o.chunked && !(k & K_10) ? &s->chunks : &s->plain;
	c->writing = true;
}

/* The answer at the head of the queue is out. */
static void end_answer(struct ipc_http_server *s, struct conn *c)
{
	uint8_t k = c->q[c->qhead];

	c->qhead = (c->qhead + 1) % QMAX;
	c->qlen--;
	c->writing = false;
	if (k & K_100)
		return;
	if (c->answered++)
		s->st.keepalive++;
	s->st.requests++;
	if (k & K_CLOSE) {
		if (c->ssl)
			tls_server_close(c->ssl);
		shutdown(c->fd, SHUT_WR);
		c->linger = true;
		c->qlen = 0;
	}
}

/*
 * Write queued answers until they are all out, the socket is full, or
 * this connection had its turn (TURN_BYTES: a client with a deep
 * pipeline and a large socket buffer would otherwise hold the loop for
 * hundreds of answers while the others wait).  0; 1 when the turn ended
 * with answers left; -errno when the connection failed.
 */
static int h2_flush(struct ipc_http_server *s, struct conn *c);

static int flush(struct ipc_http_server *s, struct conn *c)
{
	uint64_t turn = 0;

	if (c->h2)
		return h2_flush(s, c);

	while (c->qlen && !c->linger) {
		struct iovec iov[2];
		struct msghdr mh = {.msg_iov = iov};
		uint64_t end;
		ssize_t n;

		if (!c->writing)
			begin_answer(s, c);
		if (c->head_off < c->head_len) {
			iov[mh.msg_iovlen].iov_base = c->head + c->head_off;
			iov[mh.msg_iovlen++].iov_len =
				c->head_len - c->head_off;
		}
		if (c->body && c->off < c->body->len) {
			end = piece_end(c->body, c->piece);
			iov[mh.msg_iovlen].iov_base =
				(char *)c->body->bytes + c->off;
			iov[mh.msg_iovlen++].iov_len = end - c->off;
		}
		if (!mh.msg_iovlen) {
			end_answer(s, c);
			continue;
		}
		if (turn >= TURN_BYTES)
			return 1;
		if (c->ssl) {
			/* One piece at a time: OpenSSL takes no iovec. */
			n = tls_server_send(c->ssl, iov[0].iov_base,
					    iov[0].iov_len, &c->tls_ww);
			if (n == 0)
				return 0;
			if (n < 0)
				return -ECONNRESET;
		} else {
			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return 0;
			if (n < 0)
				return -errno;
		}
		s->st.bytes_out += (uint64_t)n;
		turn += (uint64_t)n;
		s->last_ns = s->now_ns;
		touch(s, c);
		if (c->head_off < c->head_len) {
			size_t h = c->head_len - c->head_off;

			if ((size_t)n < h) {
				c->head_off += (uint32_t)n;
				continue;
			}
			c->head_off = c->head_len;
			n -= (ssize_t)h;
		}
		c->off += (uint64_t)n;
		if (c->body && c->off == piece_end(c->body, c->piece))
			c->piece++;
	}
	return 0;
}

/*
 * An HTTP/2 connection's flush: what its session has to write, as far as the
 * socket takes it and its turn lasts (flush's rules); then its answers
 * into the counts.
 */
static int h2_flush(struct ipc_http_server *s, struct conn *c)
{
	const struct h2s_count *k;
	const uint8_t *p;
	uint64_t turn = 0, d;
	long len = 0;

	c->h2_ww = false;
	while (!c->linger && (len = h2s_out(c->h2, &p)) > 0) {
		ssize_t n;

		if (turn >= TURN_BYTES)
			return 1;
		if (c->ssl) {
			n = tls_server_send(c->ssl, p, (size_t)len, &c->tls_ww);
			if (n == 0)
				break; /* tls_ww says on what it waits */
			if (n < 0)
				return -ECONNRESET;
		} else {
			n = send(c->fd, p, (size_t)len, MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				c->h2_ww = true;
				break;
			}
			if (n < 0)
				return -errno;
		}
		h2s_sent(c->h2, (size_t)n);
		s->st.bytes_out += (uint64_t)n;
		turn += (uint64_t)n;
		s->last_ns = s->now_ns;
		touch(s, c);
	}
	if (!c->linger && len < 0)
		return -EPROTO;
	k = h2s_count(c->h2);
	d = k->answered - c->h2_seen;
	s->st.requests += d;
	s->st.keepalive += d && !c->answered ? d - 1 : d;
	c->answered += d;
	c->h2_seen = k->answered;
	s->st.strangers += k->strangers - c->h2_odd;
	c->h2_odd = k->strangers;
	if (d)
		s->last_ns = s->now_ns;
	/* Over (a GOAWAY out, nothing to read): shut, drain, close. */
	if (!c->linger && h2s_over(c->h2)) {
		if (c->ssl)
			tls_server_close(c->ssl);
		shutdown(c->fd, SHUT_WR);
		c->linger = true;
	}
	return 0;
}

/* Will the connection read now? */
static bool wants_read(const struct conn *c)
{
	if (c->rd_eof)
		return false;
	if (c->h2)
		return c->linger || (!c->no_more && h2s_wants_read(c->h2));
	return c->linger || (!c->no_more && !c->stash_len && queue_room(c));
}

/* Watch for what the connection waits on now.  0 or -errno. */
static int rewatch(struct ipc_http_server *s, struct conn *c)
{
	uint32_t ev = 0;

	if (c->h2 && !c->linger && (c->h2_ww || h2s_wants_write(c->h2)))
		ev |= EPOLLOUT;
	if ((c->qlen && !c->linger) || c->tls_ww)
		ev |= EPOLLOUT;
	if (wants_read(c) || (c->ssl && !c->hs_done))
		ev |= EPOLLIN;
	return watch(s, c, ev);
}

/* Read once; parse or drop what came.  0, or -errno to close. */
static int on_read(struct ipc_http_server *s, struct conn *c)
{
	ssize_t n;

	if (c->ssl && !c->hs_done && !c->rd_eof) {
		int r = tls_server_accept(c->ssl, &c->tls_ww);

		if (r < 0) {
			s->st.tls_failed++;
			return -EPROTO;
		}
		if (!r)
			return 0;
		c->hs_done = true;
		/* h2 chosen by ALPN: its session reads what follows. */
		if (tls_alpn_h2(c->ssl)) {
			c->h2 = h2s_new(&s->h2page);
			if (!c->h2)
				return -ENOMEM;
			s->st.h2++;
		}
	}
	if (!wants_read(c))
		return 0;
	size_t want = c->peek || c->h2 ? RBUF : FIRST_READ;
	bool peek = c->peek && !c->linger;

	if (c->ssl && !c->linger) {
		n = tls_server_recv(c->ssl, s->rbuf, want, peek, &c->tls_ww);
		if (n == TLS_CLOSED)
			n = 0;
		else if (n == 0)
			return 0;
		else if (n < 0)
			return -ECONNRESET;
	} else {
		n = recv(c->fd, s->rbuf, want, peek ? MSG_PEEK : 0);
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		c->rd_eof = true;
		if (c->linger || c->no_more)
			return 0;
		/* Cut inside a request: answer it as malformed. */
		if (ipc_http_eof(&c->rx) < 0) {
			enqueue(c, K_400 | K_CLOSE);
			s->st.bad++;
		}
		c->no_more = true;
		return 0;
	}
	if (peek)
		return parse_peeked(s, c, (size_t)n);
	s->st.bytes_in += (uint64_t)n;
	if (c->linger)
		return 0;
	/*
	 * h2c with prior knowledge: the connection's first bytes are its
	 * preface.  A part of it waits for the rest (the read is at most
	 * FIRST_READ, RBUF has room for them in front).
	 */
	if (c->pre_len) {
		memmove(s->rbuf + c->pre_len, s->rbuf, (size_t)n);
		memcpy(s->rbuf, c->pre, c->pre_len);
		n += c->pre_len;
		c->pre_len = 0;
	}
	if (!c->h2 && !c->ssl && !c->answered && !c->qlen && !c->rx.in_msg &&
	    (size_t)n < H2S_PREFACE_LEN &&
	    !memcmp(s->rbuf, H2S_PREFACE, (size_t)n)) {
		memcpy(c->pre, s->rbuf, (size_t)n);
		c->pre_len = (uint8_t)n;
		return 0;
	}
	if (!c->h2 && !c->ssl && !c->answered && !c->qlen && !c->rx.in_msg &&
	    (size_t)n >= H2S_PREFACE_LEN &&
	    !memcmp(s->rbuf, H2S_PREFACE, H2S_PREFACE_LEN)) {
		c->h2 = h2s_new(&s->h2page);
		if (!c->h2)
			return -ENOMEM;
		s->st.h2++;
	}
	if (c->h2) {
		if (h2s_feed(c->h2, (const uint8_t *)s->rbuf, (size_t)n)) {
			c->no_more = true; /* its GOAWAY goes, then it ends */
			s->st.bad++;
		}
		return 0;
	}
	return parse_read(s, c, (size_t)n);
}

static void on_event(struct ipc_http_server *s, struct conn *c, uint32_t ev)
{
	int err = 0;

	if ((ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) ||
	    (c->ssl && (!c->hs_done || c->tls_ww)))
		err = on_read(s, c);
	/*
	 * Records OpenSSL has read and not yet given out do not wake the
	 * loop: read them while the connection wants to.
	 */
	while (!err && c->ssl && c->hs_done && tls_server_pending(c->ssl) &&
	       wants_read(c)) {
		uint64_t before = s->st.bytes_in;

		err = on_read(s, c);
		if (s->st.bytes_in == before)
			break; /* a record not whole yet */
	}
	while (!err) {
		if (c->stash_len)
			parse_stash(s, c);
		err = flush(s, c);
		/* Go on while answers went out and requests wait parsed. */
		if (err || !c->stash_len || !queue_room(c) || c->no_more)
			break;
	}
	if (err > 0)
		err = 0; /* its turn ended: EPOLLOUT brings it back */
	if (c->no_more)
		c->stash_off = c->stash_len = 0;
	if (err) {
		if (err != -EPIPE || !c->linger)
			s->st.resets++;
		conn_close(s, c);
		return;
	}
	/* Done: the client closed and nothing is left to answer. */
	if (c->rd_eof && (c->linger || !c->qlen)) {
		conn_close(s, c);
		return;
	}
	if (rewatch(s, c)) {
		s->st.resets++;
		conn_close(s, c);
	}
}

static void on_accept(struct ipc_http_server *s)
{
	const int one = 1;

	for (int i = 0; i < ACCEPTS; i++) {
		struct conn *c;
		int fd;

		/*
		 * Full: one waits (the listener woke us); room is made once
		 * this wake-up's events are handled, none of them then for
		 * a connection already closed.
		 */
		if (s->nconns >= s->o.max_conns) {
			s->evict = i == 0;
			break;
		}
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				s->accept_retry_ns =
					s->now_ns + EMFILE_PAUSE_NS;
			return;
		}
		c = s->free;
		if (c)
			s->free = c->next;
		else
			c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		if (s->tls && !(c->ssl = tls_server_new(s->tls, fd))) {
			close(fd);
			c->next = s->free;
			s->free = c;
			return;
		}
		ipc_http_parser_init(&c->rx, true);
		c->rx.token = s->o.token;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->events = EPOLLIN;
		if (w_set(s, fd, c, EPOLLIN, true)) {
			close(fd);
			c->next = s->free;
			s->free = c;
			return;
		}
		s->nconns++;
		s->st.conns++;
		s->last_ns = s->now_ns;
		touch(s, c);
	}
}

/* Listen, or stop listening, as the connection count allows. */
static int set_accepting(struct ipc_http_server *s)
{
	bool want = (s->nconns < s->o.max_conns || !s->no_idle) &&
		    s->now_ns >= s->accept_retry_ns;

	if (want == s->accepting)
		return 0;
	s->accepting = want;
	if (!want) {
		w_del(s, s->lfd, NULL);
		return 0;
	}
	return w_set(s, s->lfd, NULL, EPOLLIN, true);
}

/* Close the connections whose deadline passed. */
static void expire(struct ipc_http_server *s)
{
	while (s->first && s->first->deadline_ns <= s->now_ns) {
		struct conn *c = s->first;

		/* An idle keep-alive connection closing is no fault. */
		if (c->rx.in_msg || c->qlen)
			s->st.timeouts++;
		conn_close(s, c);
	}
}

/* Milliseconds the loop may wait: until the next deadline of any kind. */
static int wait_ms(const struct ipc_http_server *s, uint64_t start)
{
	uint64_t next = UINT64_MAX;

	if (s->first)
		next = s->first->deadline_ns;
	if (s->o.max_duration_ns && start + s->o.max_duration_ns < next)
		next = start + s->o.max_duration_ns;
	if (s->o.idle_timeout_ns && s->last_ns + s->o.idle_timeout_ns < next)
		next = s->last_ns + s->o.idle_timeout_ns;
	if (!s->accepting && s->accept_retry_ns > s->now_ns &&
	    s->accept_retry_ns < next)
		next = s->accept_retry_ns;
	if (next == UINT64_MAX)
		return 1000; /* the date still moves on */
	if (next <= s->now_ns)
		return 0;
	next = (next - s->now_ns + 999999) / 1000000;
	return next > 1000 ? 1000 : (int)next;
}

static int serve_loop(struct ipc_http_server *s);

/*
 * SIGPIPE is held off while it serves: OpenSSL writes with write(2), and
 * a client that closes while its answer goes out must not end the
 * process that serves the others.
 */
int ipc_http_serve_run(struct ipc_http_server *s)
{
	sigset_t old;
	int rc;

	ipc_sigpipe_hold(&old);
	rc = serve_loop(s);
	ipc_sigpipe_release(&old);
	return rc;
}

static int serve_loop(struct ipc_http_server *s)
{
	uint64_t start;
	int rc = 0, end = -1;

	if (s->o.stop_fd >= 0 && !s->stop_watched) {
		rc = w_set(s, s->o.stop_fd, s, EPOLLIN, true);
		if (rc)
			return rc;
		s->stop_watched = true;
	}
	s->now_ns = start = s->last_ns = mono_ns();
	while (end < 0) {
		int n;

		rc = set_accepting(s);
		if (rc)
			break;
		n = w_wait(s, wait_ms(s, start));
		if (n < 0 && n != -EINTR) {
			rc = n;
			break;
		}
		s->now_ns = mono_ns();
		if (time(NULL) != s->date_s)
			heads_date(s, time(NULL));
		for (int i = 0; i < n; i++) {
			if (s->rdy[i].ptr == s)
				end = IPC_SERVE_STOPPED;
			else if (!s->rdy[i].ptr)
				on_accept(s);
			else
				on_event(s, s->rdy[i].ptr, s->rdy[i].events);
		}
		if (s->evict)
			evict_idle(s);
		s->evict = false;
		expire(s);
		if (end < 0 && s->o.max_duration_ns &&
		    s->now_ns - start >= s->o.max_duration_ns)
			end = IPC_SERVE_DURATION;
		if (end < 0 && s->o.idle_timeout_ns &&
		    s->now_ns - s->last_ns >= s->o.idle_timeout_ns)
			end = IPC_SERVE_IDLE;
	}
	while (s->first)
		conn_close(s, s->first);
	return rc ? rc : end;
}

/* ---- opening -------------------------------------------------------- */

/* Split "HOST:PORT" or "[V6]:PORT" into @host and @port. */
static int split_addr(const char *a, char *host, size_t hlen, char *port,
		      size_t plen)
{
	const char *colon;
	size_t n;

	if (*a == '[') {
		const char *close = strchr(a, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		n = (size_t)(close - a - 1);
		a++;
		colon = close + 1;
	} else {
		colon = strrchr(a, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - a);
	}
	if (n >= hlen || strlen(colon + 1) >= plen || !colon[1])
		return -EINVAL;
	memcpy(host, a, n);
	host[n] = '\0';
	strcpy(port, colon + 1);
	for (const char *p = port; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	return atoi(port) <= 65535 ? 0 : -EINVAL;
}

static int listen_on(struct ipc_http_server *s, const char *addr, char *why,
		     size_t why_len)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
			*res, *ai;
	char host[256], port[8];
	const int one = 1;
	int rc, err = 0;

	if (split_addr(addr, host, sizeof(host), port, sizeof(port))) {
		snprintf(why, why_len,
			 "'%s' is not ADDR:PORT (such as 127.0.0.1:8080, "
			 "[::1]:0 or 0.0.0.0:80)",
			 addr);
		return -EINVAL;
	}
	rc = getaddrinfo(*host ? host : NULL, port, &hints, &res);
	if (rc) {
		snprintf(why, why_len, "cannot resolve '%s': %s", host,
			 gai_strerror(rc));
		return -EINVAL;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		s->lfd = socket(ai->ai_family,
				ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				0);
		if (s->lfd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(s->lfd, ai->ai_addr, ai->ai_addrlen) &&
		    !listen(s->lfd, SOMAXCONN))
			break;
		err = -errno;
		close(s->lfd);
		s->lfd = -1;
	}
	freeaddrinfo(res);
	if (s->lfd < 0) {
		snprintf(why, why_len, "cannot listen on %s: %s", addr,
			 strerror(-err));
		return err ? err : -EADDRNOTAVAIL;
	}
	return 0;
}

/* The engines the loop can wait as, by their -e names. */
static const struct {
	const char *engine;
	enum srv_wait how;
} ways[] = {
	{"epoll", W_EPOLL},
	{"poll", W_POLL},
	{"busy", W_SPIN},
};

int ipc_http_serve_engine(const char *engine)
{
	if (!engine)
		return W_EPOLL;
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (!strcmp(engine, ways[i].engine))
			return (int)ways[i].how;
	return -EINVAL;
}

int ipc_http_serve_open(struct ipc_http_server **out,
			const struct ipc_http_serve_opts *o, char *why,
			size_t why_len)
{
	struct ipc_http_server *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	s->o = *o;
	s->ep = -1;
	s->lfd = o->listen_fd;
	rc = ipc_http_serve_engine(o->engine);
	if (rc < 0) {
		snprintf(why, why_len,
			 "the built-in target waits with epoll, poll or busy, "
			 "not %s",
			 o->engine);
		goto fail;
	}
	s->how = (enum srv_wait)rc;
	if (!s->o.client_timeout_ns)
		s->o.client_timeout_ns = DEF_TIMEOUT;
	if (!s->o.max_conns)
		s->o.max_conns = DEF_CONNS;
	rc = s->lfd >= 0 ? 0 : listen_on(s, o->addr, why, why_len);
	if (rc)
		goto fail;
	s->addr_len = sizeof(s->addr);
	if (getsockname(s->lfd, (struct sockaddr *)&s->addr, &s->addr_len) ||
	    ipc_fd_set_nonblock(s->lfd, true)) {
		rc = -errno;
		snprintf(why, why_len, "the listening socket: %s",
			 strerror(errno));
		goto fail;
	}
	if (s->how != W_POLL) {
		s->ep = epoll_create1(EPOLL_CLOEXEC);
		s->rdy = malloc(EVENTS * sizeof(*s->rdy));
	}
	if (o->tls) {
		s->tls =
			tls_server_ctx(o->cert_file, o->key_file, why, why_len);
		if (!s->tls) {
			rc = -EINVAL;
			goto fail;
		}
	}
	s->rbuf = malloc(RBUF);
	rc = s->how != W_POLL && s->ep < 0	   ? -errno
	     : !s->rbuf || (!s->rdy && s->ep >= 0) ? -ENOMEM
						   : lay_out(s);
	if (rc) {
		snprintf(why, why_len, "cannot prepare the server: %s",
			 strerror(-rc));
		goto fail;
	}
	heads_date(s, time(NULL));
	*out = s;
	return 0;
fail:
	ipc_http_serve_free(s);
	return rc;
}

void ipc_http_serve_addr(const struct ipc_http_server *s, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN + 2], port[8];

	if (getnameinfo((const struct sockaddr *)&s->addr, s->addr_len, host,
			sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, len, "?");
		return;
	}
	if (s->addr.ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%s", host, port);
	else
		snprintf(buf, len, "%s:%s", host, port);
}

void ipc_http_serve_stats(const struct ipc_http_server *s,
			  struct ipc_http_serve_stats *st)
{
	*st = s->st;
}

void ipc_http_serve_free(struct ipc_http_server *s)
{
	if (!s)
		return;
	while (s->first)
		conn_close(s, s->first);
	while (s->free) {
		struct conn *c = s->free;

		s->free = c->next;
		free(c);
	}
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->ep >= 0)
		close(s->ep);
	free(s->rbuf);
	free(s->page);
	free(s->enc);
	free(s->pfd);
	free(s->pptr);
	free(s->rdy);
	tls_ctx_free(s->tls);
	free(s);
}

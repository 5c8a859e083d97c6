/* SPDX-License-Identifier: MIT */
/*
 * http: HTTP/1.1 (or HTTP/2) load, on load's many-flow client (its
 * threads, closed and open loops, histograms).  An exchange is a batch of
 * --pipeline requests, all written at once, and its responses, read
 * through the parser; each response is one sample, from the start of the
 * batch (the first byte of the requests written; the due time in an open
 * loop; the connect with --no-keepalive) to the last byte of that
 * response read.
 *
 * Failures are data, counted by reason as ab counts them, and the flow
 * goes on on a new connection:
 *
 *   connect   the connection could not be made
 *   write     the request could not be sent
 *   read      the connection failed or closed before a response began
 *   length    a body cut short by the close, or not as long as the first
 *             whole body of the run (ab's "Length")
 *   protocol  bytes that are not an HTTP response: a lying Content-Length
 *             shows here, as the response it ends when its extra bytes
 *             come in the same read, else as the next one (the extra
 *             bytes are no response)
 *   non-2xx   whole responses with a status outside 200-299, by class
 *   timeout   no whole response within --request-timeout of the start of
 *             its exchange: the connection is closed
 *   tls       https: the handshake failed (not a certificate that does
 *             not verify: that ends the run, as it would end a browser's
 *             visit), an alert, or bytes that are not TLS (a plain HTTP
 *             server behind an https:// URL)
 *   reset     HTTP/2: the server reset the stream (RST_STREAM)
 *   goaway    HTTP/2: the server sent GOAWAY (or closed after it) before
 *             the response was whole
 *   h2        HTTP/2: the server broke the protocol (a frame larger than
 *             allowed, a SETTINGS flood, bytes that are not HTTP/2, such
 *             as an HTTP/1.1 server's answer to h2c)
 *   alpn      https with --http2: the server chose another protocol than
 *             h2, so no request was sent
 *
 * Over TLS the handshake is timed apart, from its first byte written to
 * its end, into its own histogram; a request's sample then starts when
 * the handshake ends (closed loop).  A flow keeps the session of its
 * last connection and resumes it on the next.  OpenSSL works on memory
 * buffers here: the engine moves the encrypted bytes as it moves plain
 * ones, so every engine drives TLS.
 *
 * With --http2 a connection is one nghttp2 session (pattern/h2.c), its
 * frames moved as the HTTP/1.1 bytes are (through TLS's buffers on
 * https): an exchange is -m requests opened at once as streams, each
 * stream's response one sample from the exchange's start.
 *
 * A response saying Connection: close (or an HTTP/1.0 one without
 * keep-alive) ends its connection: the next request opens a new one, and
 * the requests of its batch after it fail as "read".  The server side is
 * the built-in target (pattern/http_serve.c); a URL's server is the
 * external peer's (run.h), and the flows connect to it on the channel.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "describe.h"
#include "h2.h"
#include "load.h"
#include "msg.h"
#include "tls.h"
#include "ipcperf/framing.h"
#include "framing/lib_internal.h"
#include "pattern/lib_internal.h"
#include "ipcperf/stats.h"

#define RBUF_MAX (64u << 10) /* receive buffer per flow, at most */
#define RBUF_MIN (4u << 10)
#define RBUF_ALL (64u << 20) /* over all flows */
#define CBUF (20u << 10)     /* TLS: encrypted bytes sent at once per flow */
#define PBUF (16u << 10)     /* TLS: decrypted at once (one record) */
#define PIECE (16u << 10)    /* TLS: request bytes encrypted at once */

/* The extras, in the order of http_extras[]. */
enum {
	X_KEEPALIVE,
	X_FAILED,
	X_F_CONNECT,
	X_F_WRITE,
	X_F_READ,
	X_F_LENGTH,
	X_F_PROTOCOL,
	X_NON2XX,
	X_S3XX,
	X_S4XX,
	X_S5XX,
	X_BODY,
	X_RECONNECTS,
	X_F_TIMEOUT,
	X_F_TLS,
	X_HANDSHAKES,
	X_RESUMED,
	X_HS_P50,
	X_HS_P99,
	X_F_RESET,
	X_F_GOAWAY,
	X_F_H2,
	X_F_ALPN,
	X_COUNT
};

/* One thread's counts of the measured phase. */
struct hcount {
	double x[X_COUNT];
	uint64_t wire;	     /* response bytes on the wire */
	uint64_t first_len;  /* the first whole 2xx body's length, +1 */
	struct ipc_hist *hs; /* TLS: handshakes, ns */
	uint8_t *pbuf;	     /* TLS: decrypted bytes, PBUF */
	uint8_t *hbuf;	     /* HTTP/2 over TLS: frames to encrypt, PIECE */
	char session[160];   /* TLS: the first session, in words */
};

/* A flow's HTTP state. */
struct hflow {
	struct ipc_http_parser p;
	uint32_t pending; /* responses of the batch still to come */
	bool conn;	  /* connected, in the flow set */
	bool closing;	  /* the server ends the connection after this */
	bool recv_on;	  /* a receive is posted */
	/* TLS */
	SSL *ssl;      /* NULL: plain HTTP */
	void *sess;    /* the last connection's session, to resume */
	uint8_t *cbuf; /* encrypted bytes being sent, CBUF */
	uint32_t clen, coff;
	bool send_on;	    /* a send of cbuf is posted */
	bool hs_done;	    /* the handshake is over */
	uint64_t hs_t0;	    /* when it began */
	size_t pt_off;	    /* request bytes given to TLS */
	struct h2_conn *h2; /* HTTP/2, else NULL */
};

/* The client's state, shared by its threads (read-only during the run). */
struct hclient {
	const struct ipc_http_cfg *cfg;
	char *req; /* --pipeline copies of the request */
	size_t req_len;
	size_t rbuf;	    /* each flow's receive buffer */
	struct hflow *hf;   /* per flow */
	struct hcount *cnt; /* per thread */
	bool head;	    /* the method is HEAD */
	uint64_t connects;  /* connections opened, all threads (atomic) */
	SSL_CTX *tls;	    /* https, else NULL */
	struct tls_client_opts tlo;
	uint8_t *cbufs;	      /* TLS, HTTP/2: every flow's cbuf */
	size_t cbuf;	      /* ... its bytes */
	struct h2_req *h2req; /* HTTP/2: what every stream asks */
	uint32_t batch;	      /* requests per exchange: --pipeline's, or
				 HTTP/2's streams */
};

static struct hclient *hc_of(struct lthread *th)
{
	return th->sh->arg;
}

static struct hcount *cnt_of(struct lthread *th)
{
	return &hc_of(th)->cnt[th - th->sh->th];
}

/* ---- connections ---------------------------------------------------- */

static void h2_end(void *arg, const struct h2_res *r);

/*
 * A new connection on flow @h: its HTTP/2 session and its TLS, for those
 * that have them.  0 or -ENOMEM.
 */
static int conn_begin(struct hclient *hc, struct hflow *h)
{
	if (hc->h2req) {
		h->h2 = h2_new(hc->h2req, hc->batch, h2_end);
		if (!h->h2)
			return -ENOMEM;
	}
	if (!hc->tls)
		return 0;
	h->ssl = tls_client_new(hc->tls, &hc->tlo, h->sess);
	h->hs_done = false;
	h->send_on = false;
	return h->ssl ? 0 : -ENOMEM;
}

/*
 * Connect flow @x on the case's channel: to the built-in target, or to
 * the URL's server (the external peer set the channel up toward it).
 */
static int connect_flow(struct ipc_pctx *c, struct cflow *x)
{
	return c->cs->tp->open(c->ch, IPC_CLIENT, &x->ep);
}

static int open_flow(const struct ld_proto *p, struct ipc_pctx *c,
		     struct cflow *x)
{
	struct hclient *hc = p->arg;
	int err = connect_flow(c, x);

	if (!err) {
		__atomic_fetch_add(&hc->connects, 1, __ATOMIC_RELAXED);
		hc->hf[x->g].conn = true;
		ipc_http_parser_init(&hc->hf[x->g].p, false);
		err = conn_begin(hc, &hc->hf[x->g]);
	}
	return err;
}

static void init_flow(const struct ld_proto *p, struct ipc_pctx *c,
		      struct cflow *x)
{
	struct hclient *hc = p->arg;

	(void)c;
	x->priv = &hc->hf[x->g];
	if (hc->cbufs)
		hc->hf[x->g].cbuf = hc->cbufs + x->g * hc->cbuf;
}

/* Drop flow @f's connection (its pending operations cancelled). */
static void drop(struct lthread *th, uint32_t f)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;

	if (!h->conn)
		return;
	if (h->ssl || h->h2 ? h->send_on : x->sent < hc_of(th)->req_len)
		e->fs_cancel(th->fs, f, IPC_FOP_SEND);
	h->send_on = false;
	h2_free(h->h2);
	h->h2 = NULL;
	if (h->ssl) {
		tls_client_free(h->ssl, &h->sess);
		h->ssl = NULL;
	}
	if (h->recv_on)
		e->fs_cancel(th->fs, f, IPC_FOP_RECV);
	h->recv_on = false;
	e->fs_del(th->fs, f);
	if (x->ep.ops)
		x->ep.ops->close(&x->ep);
	else
		close(x->ep.rfd);
	x->ep = (struct ipc_ep){.rfd = -1, .wfd = -1};
	h->conn = false;
}

/* ---- one exchange --------------------------------------------------- */

static int tls_pump(struct lthread *th, uint32_t f, bool rec, bool *fin);
static int h2_pump(struct lthread *th, uint32_t f, bool rec, bool *fin);

static int start(struct lthread *th, uint32_t f, uint64_t t0)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	int err;

	x->t0 = t0;
	x->busy = true;
	x->sent = 0;
	if (!h->conn) {
		err = connect_flow(&th->pc, x);
		if (!err)
			err = e->fs_add(th->fs, f, &x->ep);
		if (err)
			return msg_fail(&th->pc, err, "reconnect");
		h->conn = true;
		ipc_http_parser_init(&h->p, false);
		if (conn_begin(hc, h))
			return msg_fail(&th->pc, -ENOMEM, "reconnect");
		cnt_of(th)->x[X_RECONNECTS]++;
		__atomic_fetch_add(&hc->connects, 1, __ATOMIC_RELAXED);
	}
	h->pending = hc->batch;
	h->closing = false;
	for (uint32_t i = 0; h->h2 && i < hc->batch; i++)
		if (h2_submit(h->h2))
			return msg_fail(&th->pc, -ENOMEM, "open a stream");
	ipc_http_expect_head(&h->p, hc->head);
	err = e->fs_recv(th->fs, f, x->rbuf, hc->rbuf);
	h->recv_on = !err;
	if (err)
		return msg_fail(&th->pc, err, "start a request");
	if (h->ssl) {
		bool fin = false;

		h->pt_off = 0;
		if (!h->hs_done) {
			h->hs_t0 = ipc_now_ns();
			tls_handshake(h->ssl); /* its first flight */
		}
		return h->h2 ? h2_pump(th, f, false, &fin)
			     : tls_pump(th, f, false, &fin);
	}
	if (h->h2) {
		bool fin = false;

		return h2_pump(th, f, false, &fin);
	}
	err = e->fs_send(th->fs, f, hc->req, hc->req_len);
	return err ? msg_fail(&th->pc, err, "start a request") : 0;
}

/* The exchange of flow @f is over: free the flow, close if it must. */
static void finish(struct lthread *th, uint32_t f, bool *fin)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;

	if (h->closing)
		drop(th, f);
	x->busy = false;
	*fin = true;
}

/* The rest of flow @f's batch failed for @why; the connection goes. */
static void fail(struct lthread *th, uint32_t f, bool rec, int why, bool *fin)
{
	struct hflow *h = th->fl[f].priv;
	struct hcount *n = cnt_of(th);

	if (rec && h->pending) {
		n->x[why] += h->pending;
		n->x[X_FAILED] += h->pending;
	}
	h->pending = 0;
	h->closing = true;
	finish(th, f, fin);
}

/* A whole response of @status and @body bytes, measured: count it. */
static void tally(struct lthread *th, unsigned status, uint64_t body,
		  bool keep_alive)
{
	struct hcount *n = cnt_of(th);

	n->x[X_BODY] += (double)body;
	if (keep_alive)
		n->x[X_KEEPALIVE]++;
	if (status < 200 || status > 299) {
		n->x[X_NON2XX]++;
		n->x[X_FAILED]++;
		if (status >= 300 && status < 600)
			n->x[X_S3XX + status / 100 - 3]++;
		return;
	}
	if (!n->first_len)
		n->first_len = body + 1;
	else if (!hc_of(th)->head && body + 1 != n->first_len) {
		n->x[X_F_LENGTH]++;
		n->x[X_FAILED]++;
	}
}

/* A whole response on flow @f: count it, time it. */
static void response(struct lthread *th, uint32_t f, bool rec)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	const struct ipc_http_msg *m = &h->p.msg;

	h->pending--;
	if (!m->keep_alive)
		h->closing = true;
	/* Counted first, so that an interval closing on it has its bytes. */
	if (rec)
		cnt_of(th)->wire += m->wire_bytes;
	ld_record(th, x, rec, ipc_now_ns());
	if (rec)
		tally(th, m->status, m->body_bytes, m->keep_alive);
}

/*
 * @len bytes of responses came on flow @f, at @buf: parse them.  1 when
 * more are to come, 0 when the exchange is over or failed.
 */
static int feed(struct lthread *th, uint32_t f, const uint8_t *buf, size_t len,
		bool rec, bool *fin)
{
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	size_t off = 0;

	while (off < len) {
		bool done;
		ssize_t r;

		if (!h->pending) {
			/* Bytes beyond the last response: not HTTP. */
			fail(th, f, rec, X_F_PROTOCOL, fin);
			return 0;
		}
		r = ipc_http_feed(&h->p, (const char *)buf + off, len - off,
				  &done);
		if (r < 0) {
			fail(th, f, rec, X_F_PROTOCOL, fin);
			return 0;
		}
		off += (size_t)r;
		if (!done)
			continue;
		if (h->pending == 1 && off < len) {
			/*
			 * Bytes after the batch's last response, in the same
			 * read: its Content-Length lied (or the server sent
			 * what nobody asked for).  That response fails.
			 */
			fail(th, f, rec, X_F_PROTOCOL, fin);
			return 0;
		}
		response(th, f, rec);
		if (h->closing && h->pending) {
			fail(th, f, rec, X_F_READ, fin);
			return 0;
		}
		ipc_http_expect_head(&h->p, hc->head);
	}
	if (!h->pending) {
		if (x->sent == hc->req_len)
			finish(th, f, fin);
		return 0;
	}
	return 1;
}

/* Post flow @f's next receive. */
static int more(struct lthread *th, uint32_t f)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hflow *h = th->fl[f].priv;
	int err = e->fs_recv(th->fs, f, th->fl[f].rbuf, hc_of(th)->rbuf);

	h->recv_on = !err;
	return err ? msg_fail(&th->pc, err, "receive") : 0;
}

/* @len bytes came on flow @f: parse them into responses. */
static int got(struct lthread *th, uint32_t f, size_t len, bool rec, bool *fin)
{
	return feed(th, f, th->fl[f].rbuf, len, rec, fin) == 1 ? more(th, f)
							       : 0;
}

/* The end of flow @f's stream: it may end a body that runs to the close. */
static void eof(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	int end = ipc_http_eof(&h->p);

	if (end == 1) {
		response(th, f, rec);
		h->closing = true;
	}
	if (!h->pending) {
		x->sent = hc_of(th)->req_len;
		finish(th, f, fin);
	} else {
		fail(th, f, rec,
		     end < 0 && h->p.msg.head_done ? X_F_LENGTH : X_F_READ,
		     fin);
	}
}

/* ---- TLS ------------------------------------------------------------ */

/*
 * Send what TLS has for the network; when it has nothing, encrypt more
 * of the request.  Once the request is all out, the exchange may be over.
 */
static int tls_pump(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;

	while (!h->send_on) {
		size_t n = tls_take(h->ssl, h->cbuf, hc->cbuf);
		long w;
		int err;

		if (n) {
			h->clen = (uint32_t)n;
			h->coff = 0;
			err = e->fs_send(th->fs, f, h->cbuf, n);
			h->send_on = !err;
			return err ? msg_fail(&th->pc, err, "send") : 0;
		}
		if (!h->hs_done || x->sent == hc->req_len)
			return 0;
		if (h->pt_off == hc->req_len) {
			x->sent = hc->req_len;
			if (!h->pending)
				finish(th, f, fin);
			return 0;
		}
		w = tls_write(h->ssl, hc->req + h->pt_off,
			      hc->req_len - h->pt_off < PIECE
				      ? hc->req_len - h->pt_off
				      : PIECE);
		if (w <= 0) {
			x->sent = hc->req_len;
			fail(th, f, rec, X_F_TLS, fin);
			return 0;
		}
		h->pt_off += (size_t)w;
	}
	return 0;
}

/* The handshake of flow @f failed. */
static int hs_failed(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	struct hflow *h = th->fl[f].priv;
	char why[160];

	if (tls_why(h->ssl, why, sizeof(why))) {
		/* No request is made to a server that is not the one named. */
		snprintf(th->pc.out.what, sizeof(th->pc.out.what), "%s", why);
		th->pc.out.err = -EPROTO;
		return -EPROTO;
	}
	th->fl[f].sent = hc_of(th)->req_len;
	fail(th, f, rec, X_F_TLS, fin);
	return 0;
}

/* Flow @f's handshake ended now. */
static void hs_end(struct lthread *th, uint32_t f, bool rec)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	struct hcount *n = cnt_of(th);
	uint64_t now = ipc_now_ns();

	h->hs_done = true;
	if (!th->pc.cs->rate)
		x->t0 = now; /* the request's time starts now */
	if (rec) {
		ipc_hist_record(n->hs, now - h->hs_t0);
		n->x[X_HANDSHAKES]++;
		if (tls_resumed(h->ssl))
			n->x[X_RESUMED]++;
	}
	if (!n->session[0]) {
		tls_describe(h->ssl, n->session, sizeof(n->session));
		if (hc_of(th)->tlo.insecure) {
			size_t k = strlen(n->session);

			snprintf(n->session + k, sizeof(n->session) - k,
				 "; certificate not verified (%s)",
				 hc_of(th)->cfg->url[0] ? "--insecure"
							: "made for the run");
		}
	}
}

/* @len encrypted bytes came on flow @f. */
static int tls_got(struct lthread *th, uint32_t f, size_t len, bool rec,
		   bool *fin)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	uint8_t *pbuf = cnt_of(th)->pbuf;
	int r, err;

	if (tls_put(h->ssl, x->rbuf, len))
		return msg_fail(&th->pc, -ENOMEM, "receive");
	if (!h->hs_done) {
		r = tls_handshake(h->ssl);
		if (r < 0)
			return hs_failed(th, f, rec, fin);
		if (r == 1)
			hs_end(th, f, rec);
	}
	err = tls_pump(th, f, rec, fin);
	if (err || *fin)
		return err;
	while (h->hs_done) {
		long n = tls_read(h->ssl, pbuf, PBUF);

		if (n == 0)
			break;
		if (n == TLS_CLOSED) {
			eof(th, f, rec, fin);
			return 0;
		}
		if (n < 0) {
			x->sent = hc_of(th)->req_len;
			fail(th, f, rec, X_F_TLS, fin);
			return 0;
		}
		if (feed(th, f, pbuf, (size_t)n, rec, fin) == 0)
			return 0;
	}
	return more(th, f);
}

/* Flow @f's send of encrypted bytes completed with @res. */
static int tls_sent(struct lthread *th, uint32_t f, ssize_t res, bool rec,
		    bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	int err;

	h->send_on = false;
	if (res < 0) {
		x->sent = hc_of(th)->req_len;
		if (h->pending)
			fail(th, f, rec, X_F_WRITE, fin);
		else
			finish(th, f, fin);
		return 0;
	}
	h->coff += (uint32_t)res;
	if (h->coff < h->clen) {
		err = e->fs_send(th->fs, f, h->cbuf + h->coff,
				 h->clen - h->coff);
		h->send_on = !err;
		return err ? msg_fail(&th->pc, err, "send") : 0;
	}
	return tls_pump(th, f, rec, fin);
}

/* ---- HTTP/2 --------------------------------------------------------- */

/*
 * An exchange is --max-concurrent-streams requests, opened at once on
 * the flow's connection; each stream's response is one sample, from the
 * exchange's start.  The streams' ends come from inside h2_feed and
 * h2_take, which only count them: what follows (the exchange over, the
 * connection dropped) is h2_settle's, once nghttp2 has returned.
 */

/* Who is being fed, for h2_end. */
struct h2ctx {
	struct lthread *th;
	uint32_t f;
	bool rec;
};

static int h2_kind(enum h2_end e, int other)
{
	switch (e) {
	case H2_RESET:
		return X_F_RESET;
	case H2_GOAWAY:
		return X_F_GOAWAY;
	case H2_BROKEN:
		return X_F_H2;
	default:
		return other;
	}
}

static void h2_end(void *arg, const struct h2_res *r)
{
	const struct h2ctx *k = arg;
	struct cflow *x = &k->th->fl[k->f];
	struct hflow *h = x->priv;
	struct hcount *n = cnt_of(k->th);

	if (!h->pending)
		return;
	h->pending--;
	if (r->end != H2_OK) {
		if (k->rec) {
			n->x[h2_kind(r->end, X_F_H2)]++;
			n->x[X_FAILED]++;
		}
		return;
	}
	ld_record(k->th, x, k->rec, ipc_now_ns());
	if (k->rec)
		tally(k->th, r->status, r->body, hc_of(k->th)->cfg->keepalive);
}

/*
 * Send what the session has (through TLS on https, once the handshake is
 * over), while no send is posted.
 */
static int h2_pump(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct hflow *h = th->fl[f].priv;
	struct h2ctx k = {th, f, rec};
	uint8_t *hb = cnt_of(th)->hbuf;

	while (h->conn && !h->send_on) {
		long n;
		int err;

		if (!h->ssl) {
			n = h2_take(h->h2, h->cbuf, hc->cbuf, &k);
		} else {
			n = (long)tls_take(h->ssl, h->cbuf, hc->cbuf);
			if (!n && h->hs_done) {
				long m = h2_take(h->h2, hb, PIECE, &k);

				if (m > 0 &&
				    tls_write(h->ssl, hb, (size_t)m) != m) {
					fail(th, f, rec, X_F_TLS, fin);
					return 0;
				}
				if (m > 0)
					continue;
			}
		}
		if (n <= 0)
			return 0; /* nothing to send, or broken: h2_settle */
		h->clen = (uint32_t)n;
		h->coff = 0;
		err = e->fs_send(th->fs, f, h->cbuf, (size_t)n);
		h->send_on = !err;
		if (err)
			return msg_fail(&th->pc, err, "send");
	}
	return 0;
}

/*
 * After the session ran: a connection that is over fails what is still
 * pending; an exchange whose streams all ended is over.
 */
static void h2_settle(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;

	if (*fin || !h->conn)
		return;
	if (!x->busy) {
		/* A send that ended between exchanges. */
		if (h2_over(h->h2))
			drop(th, f);
		return;
	}
	if (h2_over(h->h2)) {
		fail(th, f, rec, h2_kind(h2_why(h->h2), X_F_READ), fin);
		return;
	}
	if (h->pending)
		return;
	/* Our reset of a stream can end the exchange with a receive posted. */
	if (h->recv_on)
		e->fs_cancel(th->fs, f, IPC_FOP_RECV);
	h->recv_on = false;
	/* --no-keepalive: a connection per exchange, as HTTP/1.1's. */
	if (!hc_of(th)->cfg->keepalive)
		h->closing = true;
	finish(th, f, fin);
}

/* The end of flow @f's stream. */
static void h2_eof(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	struct hflow *h = th->fl[f].priv;

	fail(th, f, rec,
	     h->ssl && !h->hs_done ? X_F_TLS : h2_kind(h2_why(h->h2), X_F_READ),
	     fin);
}

/*
 * Flow @f's handshake is over: it must have chosen h2, else nothing is
 * sent.  0 when it did.
 */
static int h2_alpn(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	struct hflow *h = th->fl[f].priv;

	if (tls_alpn_h2(h->ssl))
		return 0;
	fail(th, f, rec, X_F_ALPN, fin);
	return -1;
}

/* @len bytes came on flow @f: decrypted if TLS, fed to the session. */
static int h2_got(struct lthread *th, uint32_t f, size_t len, bool rec,
		  bool *fin)
{
	struct cflow *x = &th->fl[f];
	struct hflow *h = x->priv;
	struct hcount *n = cnt_of(th);
	struct h2ctx k = {th, f, rec};
	int err;

	if (!h->ssl) {
		if (rec)
			n->wire += len;
		h2_feed(h->h2, x->rbuf, len, &k);
	} else {
		if (tls_put(h->ssl, x->rbuf, len))
			return msg_fail(&th->pc, -ENOMEM, "receive");
		if (!h->hs_done) {
			int r = tls_handshake(h->ssl);

			if (r < 0)
				return hs_failed(th, f, rec, fin);
			if (r == 1) {
				hs_end(th, f, rec);
				if (h2_alpn(th, f, rec, fin))
					return 0;
			}
		}
		while (h->hs_done) {
			long m = tls_read(h->ssl, n->pbuf, PBUF);

			if (m == 0)
				break;
			if (m == TLS_CLOSED) {
				h2_eof(th, f, rec, fin);
				return 0;
			}
			if (m < 0) {
				fail(th, f, rec, X_F_TLS, fin);
				return 0;
			}
			if (rec)
				n->wire += (uint64_t)m;
			if (h2_feed(h->h2, n->pbuf, (size_t)m, &k))
				break;
		}
	}
	err = h2_pump(th, f, rec, fin);
	if (err || *fin)
		return err;
	h2_settle(th, f, rec, fin);
	return *fin ? 0 : more(th, f);
}

static int h2_done(struct lthread *th, const struct ipc_fdone *d, bool rec,
		   bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct cflow *x = &th->fl[d->flow];
	struct hflow *h = x->priv;
	int err;

	if (d->op == IPC_FOP_SEND) {
		h->send_on = false;
		if (d->res < 0) {
			if (x->busy)
				fail(th, d->flow, rec, X_F_WRITE, fin);
			else
				drop(th, d->flow);
			return 0;
		}
		h->coff += (uint32_t)d->res;
		if (h->coff < h->clen) {
			err = e->fs_send(th->fs, d->flow, h->cbuf + h->coff,
					 h->clen - h->coff);
			h->send_on = !err;
			return err ? msg_fail(&th->pc, err, "send") : 0;
		}
		err = h2_pump(th, d->flow, rec, fin);
		if (!err)
			h2_settle(th, d->flow, rec, fin);
		return err;
	}
	h->recv_on = false;
	if (!x->busy)
		return 0; /* cancelled too late (h2_settle): nothing waits */
	if (d->res < 0) {
		fail(th, d->flow, rec, X_F_READ, fin);
		return 0;
	}
	if (!d->res) {
		h2_eof(th, d->flow, rec, fin);
		return 0;
	}
	return h2_got(th, d->flow, (size_t)d->res, rec, fin);
}

/* Flow @f's exchange ran out of time: what is pending fails, it closes. */
static void expire(struct lthread *th, uint32_t f, bool rec, bool *fin)
{
	struct hflow *h = th->fl[f].priv;

	if (!h->pending) {
		/* Answered, but the request is still being written. */
		h->closing = true;
		finish(th, f, fin);
		return;
	}
	fail(th, f, rec, X_F_TIMEOUT, fin);
}

static int done(struct lthread *th, const struct ipc_fdone *d, bool rec,
		bool *fin)
{
	const struct ipc_engine_ops *e = th->pc.io.eng;
	struct hclient *hc = hc_of(th);
	struct cflow *x = &th->fl[d->flow];
	struct hflow *h = x->priv;
	int err;

	*fin = false;
	if (h->h2)
		return h2_done(th, d, rec, fin);
	if (d->op == IPC_FOP_SEND && h->ssl)
		return tls_sent(th, d->flow, d->res, rec, fin);
	if (d->op == IPC_FOP_SEND) {
		if (d->res < 0) {
			x->sent = hc->req_len; /* nothing pending any more */
			if (h->pending)
				fail(th, d->flow, rec, X_F_WRITE, fin);
			else
				finish(th, d->flow, fin);
			return 0;
		}
		x->sent += (size_t)d->res;
		if (x->sent < hc->req_len) {
			err = e->fs_send(th->fs, d->flow, hc->req + x->sent,
					 hc->req_len - x->sent);
			return err ? msg_fail(&th->pc, err, "send") : 0;
		}
		if (!h->pending)
			finish(th, d->flow, fin);
		return 0;
	}
	h->recv_on = false;
	if (d->res < 0) {
		fail(th, d->flow, rec, X_F_READ, fin);
		return 0;
	}
	if (d->res > 0 && h->ssl)
		return tls_got(th, d->flow, (size_t)d->res, rec, fin);
	if (d->res > 0)
		return got(th, d->flow, (size_t)d->res, rec, fin);
	if (h->ssl && !h->hs_done) {
		/* Closed during the handshake: no TLS server there. */
		x->sent = hc->req_len;
		fail(th, d->flow, rec, X_F_TLS, fin);
		return 0;
	}
	eof(th, d->flow, rec, fin);
	return 0;
}

static uint64_t ival_bytes(struct lthread *th)
{
	return cnt_of(th)->wire;
}

static void gather(struct ipc_pctx *c, struct shared *sh)
{
	struct hclient *hc = sh->arg;
	uint64_t wire = 0;

	memset(c->out.extra, 0, sizeof(c->out.extra));
	for (unsigned i = 0; i < sh->nth; i++) {
		for (int k = 0; k < X_COUNT; k++)
			c->out.extra[k] += hc->cnt[i].x[k];
		wire += hc->cnt[i].wire;
		if (!hc->tls)
			continue;
		if (i)
			ipc_hist_merge(hc->cnt[0].hs, hc->cnt[i].hs);
		if (!c->out.session[0])
			snprintf(c->out.session, sizeof(c->out.session), "%s",
				 hc->cnt[i].session);
	}
	c->out.bytes = wire;
	if (hc->tls && c->out.extra[X_HANDSHAKES] > 0) {
		c->out.extra[X_HS_P50] =
			(double)ipc_hist_value_at(hc->cnt[0].hs, 0.50);
		c->out.extra[X_HS_P99] =
			(double)ipc_hist_value_at(hc->cnt[0].hs, 0.99);
	}
}

/*
 * The runs' extras are added up; a handshake percentile is the mean of
 * the runs' (no figure without TLS).
 */
static void http_summarize(const struct ipc_case *cs, struct ipc_psum *ps)
{
	const struct ipc_http_cfg *cfg = cs->cfg;

	for (int k = X_HS_P50; k <= X_HS_P99; k++)
		ps->extra[k] = cfg && cfg->tls && ps->runs &&
					       ps->extra[X_HANDSHAKES] > 0
				       ? ps->extra[k] / (double)ps->runs
				       : NAN;
	if (!cfg || !cfg->tls)
		ps->extra[X_HANDSHAKES] = ps->extra[X_RESUMED] = NAN;
}

/* ---- the client and the server -------------------------------------- */

/* The request, --pipeline times, with its body; 0 or -errno. */
static int build(struct hclient *hc, struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = hc->cfg;
	struct ipc_http_req_spec s = {.method = cfg->method,
				      .host = cfg->authority,
				      .path = cfg->path,
				      .headers = cfg->headers,
				      .nheaders = cfg->nheaders,
				      .body_bytes = cfg->body,
				      .close = !cfg->keepalive};
	char head[8192], why[160];
	ssize_t n = ipc_http_req_head(head, sizeof(head), &s, why, sizeof(why));
	size_t one;

	if (n < 0)
		return msg_fail(c, (int)n, "build the request");
	one = (size_t)n + cfg->body;
	hc->req_len = one * cfg->pipeline;
	hc->req = malloc(hc->req_len);
	if (!hc->req)
		return msg_fail(c, -ENOMEM, "build the request");
	for (uint32_t i = 0; i < cfg->pipeline; i++) {
		memcpy(hc->req + i * one, head, (size_t)n);
		ipc_payload_fill((uint8_t *)hc->req + i * one + n, cfg->body);
	}
	hc->head = !strcmp(cfg->method, "HEAD");
	return 0;
}

/*
 * The built-in target serves any client (ab and wrk too), so a local run
 * cannot give its connections a token.  Instead it counts: the target
 * adds the connections it accepted and the client takes away those it
 * opened, in the run's counter of refused strangers, so that what
 * another process sent it flags the result.
 */
static void strangers_count(struct ipc_pctx *c, int64_t n)
{
	uint64_t *cnt = c->ch ? c->ch->opts.preamble_refused : NULL;

	if (cnt && !c->cs->peer)
		__atomic_fetch_add(cnt, (uint64_t)n, __ATOMIC_RELAXED);
}

/* TLS's context and buffers, for @nth threads.  0 or -errno. */
static int tls_setup(struct hclient *hc, struct ipc_pctx *c, unsigned nth)
{
	const struct ipc_http_cfg *cfg = hc->cfg;
	char why[sizeof(c->out.what)];

	hc->tlo = (struct tls_client_opts){
		.host = cfg->url[0] ? cfg->host : "localhost",
		.cacert = cfg->cacert[0] ? cfg->cacert : NULL,
		/* The built-in target's own certificate is made per run. */
		.insecure = cfg->insecure || !cfg->url[0],
		.version = cfg->tls_version,
		.h2 = cfg->http2};
	hc->tls = tls_client_ctx(&hc->tlo, why, sizeof(why));
	if (!hc->tls) {
		snprintf(c->out.what, sizeof(c->out.what), "%s", why);
		c->out.err = -EINVAL;
		return -EINVAL;
	}
	for (unsigned i = 0; i < nth; i++) {
		hc->cnt[i].hs = ipc_hist_new();
		hc->cnt[i].pbuf = malloc(PBUF);
		hc->cnt[i].hbuf = cfg->http2 ? malloc(PIECE) : NULL;
		if (!hc->cnt[i].hs || !hc->cnt[i].pbuf ||
		    (cfg->http2 && !hc->cnt[i].hbuf))
			return msg_fail(c, -ENOMEM, "allocate the flows");
	}
	return 0;
}

/*
 * What TLS and HTTP/2 need beyond HTTP/1.1's: each flow's buffer of
 * bytes being sent, and the request every stream asks.  0 or -errno.
 */
static int send_setup(struct hclient *hc, struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = hc->cfg;

	hc->cbuf = hc->rbuf < CBUF ? hc->rbuf : CBUF;
	hc->cbufs = malloc(c->cs->flows * hc->cbuf);
	if (!hc->cbufs)
		return msg_fail(c, -ENOMEM, "allocate the flows");
	if (!cfg->http2)
		return 0;
	hc->h2req = h2_req_new(cfg->method, cfg->tls ? "https" : "http",
			       cfg->authority, cfg->path, cfg->headers,
			       cfg->nheaders, cfg->body);
	return hc->h2req ? 0 : msg_fail(c, -ENOMEM, "build the request");
}

static void tls_teardown(struct hclient *hc, uint64_t flows, unsigned nth)
{
	for (uint64_t i = 0; hc->hf && i < flows; i++)
		h2_free(hc->hf[i].h2);
	h2_req_free(hc->h2req);
	free(hc->cbufs);
	if (!hc->tls)
		return;
	for (uint64_t i = 0; hc->hf && i < flows; i++) {
		tls_client_free(hc->hf[i].ssl, &hc->hf[i].sess);
		tls_session_free(hc->hf[i].sess);
	}
	for (unsigned i = 0; hc->cnt && i < nth; i++) {
		ipc_hist_free(hc->cnt[i].hs);
		free(hc->cnt[i].pbuf);
		free(hc->cnt[i].hbuf);
	}
	tls_ctx_free(hc->tls);
}

static int http_client(struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = c->cs->cfg;
	const unsigned nth = c->cs->threads ? c->cs->threads : 1;
	struct hclient hc = {.cfg = cfg};
	struct ld_proto p = {.start = start,
			     .done = done,
			     .init_flow = init_flow,
			     .open_flow = open_flow,
			     .gather = gather,
			     .expire = expire,
			     .timeout_ns = cfg->timeout_ns,
			     .ival_bytes = ival_bytes,
			     .arg = &hc};
	struct ipc_pctx pc = *c;
	uint64_t per = RBUF_ALL / (c->cs->flows ? c->cs->flows : 1);
	int err;

	hc.rbuf = per > RBUF_MAX ? RBUF_MAX : per < RBUF_MIN ? RBUF_MIN : per;
	p.rbuf_bytes = hc.rbuf;
	hc.hf = calloc(c->cs->flows, sizeof(*hc.hf));
	hc.cnt = calloc(nth, sizeof(*hc.cnt));
	if (!hc.hf || !hc.cnt) {
		err = msg_fail(c, -ENOMEM, "allocate the flows");
		goto out;
	}
	if (cfg->tls) {
		err = tls_setup(&hc, c, nth);
		if (err)
			goto out;
	}
	if (cfg->tls || cfg->http2) {
		err = send_setup(&hc, c);
		if (err)
			goto out;
	}
	err = build(&hc, c);
	if (err)
		goto out;
	/* An exchange is a batch of --pipeline requests, or of streams. */
	hc.batch = !cfg->http2	  ? cfg->pipeline
		   : cfg->streams ? cfg->streams
				  : 1;
	if (hc.batch > 1) {
		pc.iterations = (c->iterations + hc.batch - 1) / hc.batch;
		pc.warmup = (c->warmup + hc.batch - 1) / hc.batch;
	}
	err = ld_run(&pc, &p);
	c->out = pc.out;
	strangers_count(c, -(int64_t)hc.connects);
out:
	tls_teardown(&hc, c->cs->flows, nth);
	free(hc.req);
	free(hc.hf);
	free(hc.cnt);
	return err;
}

/*
 * The built-in target, until the side's stop.  (A URL's server is the
 * external peer's: no server side runs here then.)
 */
static int http_server(struct ipc_pctx *c)
{
	const struct ipc_http_cfg *cfg = c->cs->cfg;
	struct ipc_http_serve_opts o = {
		.listen_fd = -1,
		.page_bytes = cfg->page,
		.chunk_bytes = cfg->chunk,
		.chunked = cfg->chunked,
		.stop_fd = ipc_cancel_fd(c->io.cancel),
		.engine = c->io.eng->name,
		.tls = cfg->tls,
		.cert_file = cfg->cert[0] ? cfg->cert : NULL,
		.key_file = cfg->key[0] ? cfg->key : NULL};
	struct ipc_http_server *s;
	struct ipc_http_serve_stats st;
	char why[256];
	int err;

	o.listen_fd = dup(c->ch->fd[0]);
	if (o.listen_fd < 0)
		return msg_fail(c, -errno, "take the listening socket");
	err = ipc_http_serve_open(&s, &o, why, sizeof(why));
	if (err)
		return msg_fail(c, err, "start the built-in target");
	err = ipc_http_serve_run(s);
	ipc_http_serve_stats(s, &st);
	ipc_http_serve_free(s);
	strangers_count(c, (int64_t)st.conns);
	c->out.done = st.requests;
	return err < 0 ? msg_fail(c, err, "serve") : 0;
}

static int http_check(const struct ipc_case *cs, enum ipc_placement where,
		      char *why, size_t why_len)
{
	const struct ipc_http_cfg *cfg = cs->cfg;

	(void)where;
	if (!cfg) {
		snprintf(why, why_len, "http needs its options");
		return -EINVAL;
	}
	if (!cs->eng->fs_new) {
		snprintf(why, why_len,
			 "http drives many connections from each thread and "
			 "engine %s waits on one descriptor at a time (use "
			 "poll, epoll, io_uring or busy)",
			 cs->eng->name);
		return -EINVAL;
	}
	if (cfg->url[0] && (!cs->target || !cs->target[0] || !cs->peer)) {
		snprintf(why, why_len,
			 "a URL's server is reached through the external peer, "
			 "at its HOST:PORT");
		return -EINVAL;
	}
	if (!cfg->url[0] && ipc_http_serve_engine(cs->eng->name) < 0) {
		snprintf(why, why_len,
			 "the built-in target waits with epoll, poll or busy, "
			 "not %s (give a URL to drive another server with %s)",
			 cs->eng->name, cs->eng->name);
		return -EINVAL;
	}
	if (strcmp(cs->tp->name, "tcp") && strcmp(cs->tp->name, "tcp6")) {
		snprintf(why, why_len, "http runs over tcp or tcp6");
		return -EINVAL;
	}
	if ((cfg->pipeline > 1 || (cfg->http2 && cfg->streams > 1)) &&
	    cs->rate) {
		snprintf(why, why_len,
			 "--rate times each request from when it is due; "
			 "with --%s a batch would share one due time "
			 "(give one of them)",
			 cfg->pipeline > 1 ? "pipeline"
					   : "max-concurrent-streams");
		return -EINVAL;
	}
	if (cfg->http2 && cfg->pipeline > 1) {
		snprintf(why, why_len,
			 "HTTP/2 sends its requests at once as streams "
			 "(-m), not as a pipeline");
		return -EINVAL;
	}
	return 0;
}

static size_t http_buf_bytes(const struct ipc_case *cs)
{
	(void)cs;
	return 64;
}

static size_t http_max_msg(const struct ipc_case *cs)
{
	(void)cs;
	return 1;
}

static const char *const keepalive_names[] = {"no", "yes", NULL};
static const char *const chunked_names[] = {"length", "chunked", NULL};
static const char *const tls_names[] = {"no", "yes", NULL};
static const char *const http2_names[] = {"no", "yes", NULL};
/* The field is "insecure": its no is the certificate verified. */
static const char *const verify_names[] = {"yes", "no", NULL};

#define CFG(field) offsetof(struct ipc_http_cfg, field)

static const struct ipc_param http_params[] = {
	{.key = "url",
	 .word = "",
	 .head = "url",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = CFG(url),
	 .len = sizeof(((struct ipc_http_cfg *)0)->url),
	 .fmt = IPC_FMT_TEXT},
	{.key = "flows",
	 .word = "c",
	 .head = "conns",
	 .type = IPC_VT_U64,
	 .off = offsetof(struct ipc_case, flows),
	 .fmt = IPC_FMT_COUNT},
	PARAMS_LOAD_LOOP,
	{.key = "tls",
	 .word = "tls",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(tls),
	 .fmt = IPC_FMT_NAME,
	 .names = tls_names,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "http2",
	 .word = "http2",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(http2),
	 .fmt = IPC_FMT_NAME,
	 .names = http2_names,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "streams",
	 .word = "streams",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U32,
	 .off = CFG(streams),
	 .fmt = IPC_FMT_COUNT,
	 .dflt = 1,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "verify",
	 .word = "verify",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(insecure),
	 .fmt = IPC_FMT_NAME,
	 .names = verify_names,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "method",
	 .word = "method",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_CHARS,
	 .off = CFG(method),
	 .len = sizeof(((struct ipc_http_cfg *)0)->method),
	 .fmt = IPC_FMT_TEXT},
	{.key = "keepalive",
	 .word = "keepalive",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(keepalive),
	 .fmt = IPC_FMT_NAME,
	 .names = keepalive_names,
	 .dflt = 1,
	 .flags = IPC_PARAM_WORD_DFLT},
	{.key = "pipeline",
	 .word = "pipeline",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U32,
	 .off = CFG(pipeline),
	 .fmt = IPC_FMT_COUNT,
	 .dflt = 1,
	 .flags = IPC_PARAM_WORD_DFLT},
	{.key = "body_size",
	 .word = "body",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(body),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT},
	{.key = "request_timeout_ns",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(timeout_ns),
	 .fmt = IPC_FMT_NS},
	/* The built-in target's; 0, and left out, for a URL's server. */
	{.key = "page_size",
	 .word = "page",
	 .head = "page",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(page),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "write_size",
	 .word = "chunk",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_U64,
	 .off = CFG(chunk),
	 .fmt = IPC_FMT_BYTES,
	 .flags = IPC_PARAM_WORD_DFLT | IPC_PARAM_JSON_DFLT},
	{.key = "encoding",
	 .word = "",
	 .in = IPC_IN_CFG,
	 .type = IPC_VT_BOOL,
	 .off = CFG(chunked),
	 .fmt = IPC_FMT_NAME,
	 .names = chunked_names,
	 .flags = IPC_PARAM_WORD_DFLT},
	{0},
};

static const struct ipc_column http_cols[] = {
	COLS_PERCENTILES,
	{.head = "requests/s", .src = IPC_SRC_MSGS_PER_S, .fmt = IPC_FMT_RATE},
	/* ab's "Time per request", "Complete requests", "Total transferred". */
	{.head = "mean", .src = IPC_SRC_MEAN, .fmt = IPC_FMT_NS},
	{.head = "requests", .src = IPC_SRC_COUNT, .fmt = IPC_FMT_COUNT},
	{.head = "body", .src = IPC_SRC_EXTRA + X_BODY, .fmt = IPC_FMT_BYTES},
	{.head = "transfer", .src = IPC_SRC_BYTES_PER_S, .fmt = IPC_FMT_BPS},
	{.head = "failed",
	 .src = IPC_SRC_EXTRA + X_FAILED,
	 .fmt = IPC_FMT_COUNT},
	{.head = "keep-alive",
	 .src = IPC_SRC_EXTRA + X_KEEPALIVE,
	 .fmt = IPC_FMT_COUNT},
	/* TLS: the handshakes apart from the requests. */
	{.head = "tls p50",
	 .src = IPC_SRC_EXTRA + X_HS_P50,
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_COL_IF_ANY},
	{.head = "tls p99",
	 .src = IPC_SRC_EXTRA + X_HS_P99,
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_COL_IF_ANY},
	{.head = "handshakes",
	 .src = IPC_SRC_EXTRA + X_HANDSHAKES,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "resumed",
	 .src = IPC_SRC_EXTRA + X_RESUMED,
	 .fmt = IPC_FMT_COUNT,
	 .flags = IPC_COL_IF_ANY},
	{.head = "send lag",
	 .src = IPC_SRC_LAG,
	 .fmt = IPC_FMT_NS,
	 .flags = IPC_COL_IF_ANY},
	{0},
};

#define EXTRA(k)                                                               \
	{                                                                      \
		.key = (k), .fmt = IPC_FMT_COUNT,                              \
		.flags = IPC_EXTRA_RUN | IPC_EXTRA_INT                         \
	}

static const struct ipc_extra http_extras[] = {
	[X_KEEPALIVE] = EXTRA("keepalive_requests"),
	[X_FAILED] = EXTRA("failed"),
	[X_F_CONNECT] = EXTRA("failed_connect"),
	[X_F_WRITE] = EXTRA("failed_write"),
	[X_F_READ] = EXTRA("failed_read"),
	[X_F_LENGTH] = EXTRA("failed_length"),
	[X_F_PROTOCOL] = EXTRA("failed_protocol"),
	[X_NON2XX] = EXTRA("non_2xx"),
	[X_S3XX] = EXTRA("status_3xx"),
	[X_S4XX] = EXTRA("status_4xx"),
	[X_S5XX] = EXTRA("status_5xx"),
	[X_BODY] = {.key = "body_bytes",
		    .fmt = IPC_FMT_BYTES,
		    .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_RECONNECTS] = EXTRA("reconnects"),
	[X_F_TIMEOUT] = EXTRA("failed_timeout"),
	[X_F_TLS] = EXTRA("failed_tls"),
	[X_HANDSHAKES] = EXTRA("tls_handshakes"),
	[X_RESUMED] = EXTRA("tls_resumed"),
	[X_HS_P50] = {.key = "tls_handshake_p50_ns",
		      .fmt = IPC_FMT_NS,
		      .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_HS_P99] = {.key = "tls_handshake_p99_ns",
		      .fmt = IPC_FMT_NS,
		      .flags = IPC_EXTRA_RUN | IPC_EXTRA_INT},
	[X_F_RESET] = EXTRA("failed_reset"),
	[X_F_GOAWAY] = EXTRA("failed_goaway"),
	[X_F_H2] = EXTRA("failed_h2"),
	[X_F_ALPN] = EXTRA("failed_alpn"),
	[X_COUNT] = {0},
};

const struct ipc_pattern_ops ipc_pattern_http = {
	.name = "http",
	.help = "HTTP/1.1 or HTTP/2 load on a URL or the built-in target: "
		"requests/s, latency, failures by reason",
	.flags = IPC_PAT_OWN_EP | IPC_PAT_ANY_CLIENT,
	.sample = "request",
	.samples = "requests over all connections",
	.cost_per = "request",
	.cost_abbr = "req",
	.title = "HTTP/1.1 (HTTP/2 with http2=yes); latency per request "
		 "from the first byte written (closed loop) or its due time "
		 "(open loop) to the last byte of its response",
	.metric = &ipc_metric_p50,
	.rate = &ipc_metric_msgs_per_s,
	.params = http_params,
	.cols = http_cols,
	.extras = http_extras,
	.cfg_size = sizeof(struct ipc_http_cfg),
	.check = http_check,
	.summarize = http_summarize,
	.buf_bytes = http_buf_bytes,
	.max_msg = http_max_msg,
	.client = http_client,
	.server = http_server,
};

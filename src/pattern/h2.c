/* SPDX-License-Identifier: MIT */
/*
 * One client HTTP/2 connection over nghttp2's session, fed and drained
 * through memory (h2.h).  A connection holds a fixed set of stream slots,
 * made with it, so that a request costs no allocation of ours; what
 * nghttp2 allocates per stream is its own.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nghttp2/nghttp2.h>

#include "h2.h"
#include "pattern/lib_internal.h"

/*
 * The windows a client opens, as h2load's default (-w 30, -W 30): a
 * 16 KB page then never waits for a WINDOW_UPDATE, and neither tool
 * pays for them.
 */
#define WINDOW ((1 << 30) - 1)

struct h2_req {
	nghttp2_nv *nv;
	size_t nnv;
	char *text; /* the names and values, each ended by a NUL */
	uint64_t body;
	nghttp2_session_callbacks *cbs;
	nghttp2_option *opt;
};

struct slot {
	int32_t id; /* its stream, 0: free */
	unsigned status;
	uint64_t body, left; /* DATA received; request body still to send */
	bool ended;	     /* END_STREAM came */
	bool reset;	     /* RST_STREAM came */
};

struct h2_conn {
	nghttp2_session *s;
	const struct h2_req *req;
	h2_end_fn end;
	void *arg; /* the caller's, during h2_feed and h2_take */
	struct slot *slot;
	uint32_t *free; /* free slots' indices, a stack */
	uint32_t nfree;
	const uint8_t *out; /* what nghttp2 gave and is not taken yet */
	size_t out_len;
	bool goaway; /* the server's GOAWAY came */
	bool broken; /* we ended the connection for an error of HTTP/2 */
};

/* ---- nghttp2's callbacks -------------------------------------------- */

static struct slot *slot_of(nghttp2_session *s, int32_t id)
{
	return nghttp2_session_get_stream_user_data(s, id);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *fr,
		     const uint8_t *name, size_t nlen, const uint8_t *value,
		     size_t vlen, uint8_t flags, void *ud)
{
	struct slot *sl = slot_of(s, fr->hd.stream_id);
	unsigned st = 0;

	(void)flags;
	(void)ud;
	if (!sl || fr->hd.type != NGHTTP2_HEADERS || nlen != 7 ||
	    memcmp(name, ":status", 7) || vlen != 3)
		return 0;
	for (size_t i = 0; i < 3 && isdigit(value[i]); i++)
		st = st * 10 + (unsigned)(value[i] - '0');
	/* A 1xx is not the response; the final status replaces it. */
	sl->status = st;
	return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id,
		   const uint8_t *data, size_t len, void *ud)
{
	struct slot *sl = slot_of(s, id);

	(void)flags;
	(void)data;
	(void)ud;
	if (sl)
		sl->body += len;
	return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *fr, void *ud)
{
	struct h2_conn *h = ud;
	struct slot *sl;

	if (fr->hd.type == NGHTTP2_GOAWAY) {
		h->goaway = true;
		return 0;
	}
	sl = fr->hd.stream_id ? slot_of(s, fr->hd.stream_id) : NULL;
	if (!sl)
		return 0;
	if (fr->hd.type == NGHTTP2_RST_STREAM)
		sl->reset = true;
	else if ((fr->hd.type == NGHTTP2_HEADERS ||
		  fr->hd.type == NGHTTP2_DATA) &&
		 (fr->hd.flags & NGHTTP2_FLAG_END_STREAM))
		sl->ended = true;
	return 0;
}

static int on_frame_send(nghttp2_session *s, const nghttp2_frame *fr, void *ud)
{
	struct h2_conn *h = ud;

	(void)s;
	/* A client sends GOAWAY only when the server broke the protocol. */
	if (fr->hd.type == NGHTTP2_GOAWAY)
		h->broken = true;
	return 0;
}

static int on_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
	struct h2_conn *h = ud;
	struct slot *sl = slot_of(s, id);
	struct h2_res r;

	if (!sl || !sl->id)
		return 0;
	r.status = sl->status;
	r.body = sl->body;
	if (sl->ended && code == NGHTTP2_NO_ERROR && sl->status >= 200)
		r.end = H2_OK;
	else if (sl->reset)
		r.end = H2_RESET;
	else if (h->goaway)
		r.end = H2_GOAWAY;
	else
		r.end = H2_BROKEN;
	sl->id = 0;
	h->free[h->nfree++] = (uint32_t)(sl - h->slot);
	nghttp2_session_set_stream_user_data(s, id, NULL);
	if (h->arg)
		h->end(h->arg, &r);
	return 0;
}

/* The request body, the run's payload pattern. */
static ssize_t body_read(nghttp2_session *s, int32_t id, uint8_t *buf,
			 size_t len, uint32_t *flags, nghttp2_data_source *src,
			 void *ud)
{
	struct slot *sl = src->ptr;
	size_t n = sl->left < len ? (size_t)sl->left : len;

	(void)s;
	(void)id;
	(void)ud;
	ipc_payload_fill(buf, n);
	sl->left -= n;
	if (!sl->left)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* ---- the request ---------------------------------------------------- */

/* Fields a connection of HTTP/1.1 needs and HTTP/2 forbids (RFC 9113 8.2.2). */
static bool hop_by_hop(const char *name, size_t len)
{
	static const char *const hop[] = {
		"connection",	     "keep-alive", "proxy-connection",
		"transfer-encoding", "upgrade",	   NULL};

	for (int i = 0; hop[i]; i++)
		if (strlen(hop[i]) == len && !strncasecmp(name, hop[i], len))
			return true;
	return false;
}

/* Append @len bytes of @s, lowercased if @lower, and a NUL at *@at. */
static char *put(char **at, const char *s, size_t len, bool lower)
{
	char *start = *at;

	for (size_t i = 0; i < len; i++)
		start[i] = lower ? (char)tolower((unsigned char)s[i]) : s[i];
	start[len] = 0;
	*at += len + 1;
	return start;
}

void h2_nv_set(nghttp2_nv *nv, const char *name, const char *value)
{
	nv->name = (uint8_t *)name;
	nv->namelen = strlen(name);
	nv->value = (uint8_t *)value;
	nv->valuelen = strlen(value);
	nv->flags =
		NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
}

static int callbacks(struct h2_req *r)
{
	if (nghttp2_session_callbacks_new(&r->cbs) ||
	    nghttp2_option_new(&r->opt))
		return -1;
	nghttp2_session_callbacks_set_on_header_callback(r->cbs, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(r->cbs,
								  on_data);
	nghttp2_session_callbacks_set_on_frame_recv_callback(r->cbs,
							     on_frame_recv);
	nghttp2_session_callbacks_set_on_frame_send_callback(r->cbs,
							     on_frame_send);
	nghttp2_session_callbacks_set_on_stream_close_callback(r->cbs,
							       on_close);
	return 0;
}

struct h2_req *h2_req_new(const char *method, const char *scheme,
			  const char *authority, const char *path,
			  const char *const *headers, size_t nheaders,
			  uint64_t body)
{
	struct h2_req *r = calloc(1, sizeof(*r));
	size_t len = strlen(method) + strlen(scheme) + strlen(authority) +
		     strlen(path) + 128;
	char *at, *names[4] = {":method", ":scheme", ":authority", ":path"};
	const char *vals[4] = {method, scheme, authority, path};
	bool ua = false, accept = false;
	char clen[24];

	if (!r)
		return NULL;
	for (size_t i = 0; i < nheaders; i++)
		len += strlen(headers[i]) + 2;
	r->nv = calloc(nheaders + 7, sizeof(*r->nv));
	r->text = malloc(len);
	if (!r->nv || !r->text || callbacks(r)) {
		h2_req_free(r);
		return NULL;
	}
	at = r->text;
	/* Host, given, is the authority: it goes in the pseudo-header. */
	for (size_t i = 0; i < nheaders; i++)
		if (!strncasecmp(headers[i], "host:", 5))
			vals[2] =
				headers[i] + 5 + strspn(headers[i] + 5, " \t");
	for (int i = 0; i < 4; i++)
		h2_nv_set(&r->nv[r->nnv++], names[i],
			  put(&at, vals[i], strlen(vals[i]), false));
	for (size_t i = 0; i < nheaders; i++) {
		const char *c = strchr(headers[i], ':');
		size_t nl = (size_t)(c - headers[i]);
		const char *v = c + 1 + strspn(c + 1, " \t");
		char *n;

		if ((nl == 4 && !strncasecmp(headers[i], "host", 4)) ||
		    hop_by_hop(headers[i], nl))
			continue;
		ua |= nl == 10 && !strncasecmp(headers[i], "user-agent", nl);
		accept |= nl == 6 && !strncasecmp(headers[i], "accept", nl);
		n = put(&at, headers[i], nl, true);
		h2_nv_set(&r->nv[r->nnv++], n, put(&at, v, strlen(v), false));
	}
	/* The same defaults as HTTP/1.1's request (framing's). */
	if (!ua)
		h2_nv_set(&r->nv[r->nnv++], "user-agent", "ipcperf");
	if (!accept)
		h2_nv_set(&r->nv[r->nnv++], "accept", "*/*");
	if (body) {
		snprintf(clen, sizeof(clen), "%llu", (unsigned long long)body);
		h2_nv_set(&r->nv[r->nnv++], "content-length",
			  put(&at, clen, strlen(clen), false));
	}
	r->body = body;
	return r;
}

void h2_req_free(struct h2_req *r)
{
	if (!r)
		return;
	if (r->cbs)
		nghttp2_session_callbacks_del(r->cbs);
	if (r->opt)
		nghttp2_option_del(r->opt);
	free(r->nv);
	free(r->text);
	free(r);
}

/* ---- a connection --------------------------------------------------- */

struct h2_conn *h2_new(const struct h2_req *req, uint32_t streams,
		       h2_end_fn end)
{
	const nghttp2_settings_entry iv[] = {
		{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
		{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
		{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, WINDOW},
	};
	struct h2_conn *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->req = req;
	h->end = end;
	h->slot = calloc(streams, sizeof(*h->slot));
	h->free = calloc(streams, sizeof(*h->free));
	if (!h->slot || !h->free ||
	    nghttp2_session_client_new2(&h->s, req->cbs, h, req->opt)) {
		h2_free(h);
		return NULL;
	}
	for (uint32_t i = 0; i < streams; i++)
		h->free[h->nfree++] = streams - 1 - i;
	if (nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv,
				    sizeof(iv) / sizeof(iv[0])) ||
	    nghttp2_session_set_local_window_size(h->s, NGHTTP2_FLAG_NONE, 0,
						  WINDOW)) {
		h2_free(h);
		return NULL;
	}
	return h;
}

void h2_free(struct h2_conn *h)
{
	if (!h)
		return;
	h->arg = NULL; /* no stream's end is told any more */
	if (h->s)
		nghttp2_session_del(h->s);
	free(h->slot);
	free(h->free);
	free(h);
}

int h2_submit(struct h2_conn *h)
{
	nghttp2_data_provider prd = {.read_callback = body_read};
	struct slot *sl;
	int32_t id;

	if (!h->nfree)
		return -1;
	sl = &h->slot[h->free[h->nfree - 1]];
	*sl = (struct slot){.left = h->req->body};
	prd.source.ptr = sl;
	id = nghttp2_submit_request(h->s, NULL, h->req->nv, h->req->nnv,
				    h->req->body ? &prd : NULL, sl);
	if (id < 0)
		return -1;
	h->nfree--;
	sl->id = id;
	return 0;
}

int h2_feed(struct h2_conn *h, const uint8_t *buf, size_t len, void *arg)
{
	ssize_t r;

	h->arg = arg;
	r = nghttp2_session_mem_recv(h->s, buf, len);
	h->arg = NULL;
	if (r < 0)
		h->broken = true; /* a flood, or memory: nothing more is read */
	return r < 0 ? -1 : 0;
}

long h2_take(struct h2_conn *h, uint8_t *buf, size_t cap, void *arg)
{
	size_t n = 0;

	h->arg = arg;
	while (n < cap) {
		size_t k;

		if (!h->out_len) {
			ssize_t r = nghttp2_session_mem_send(h->s, &h->out);

			if (r < 0) {
				h->broken = true;
				h->arg = NULL;
				return -1;
			}
			if (!r)
				break;
			h->out_len = (size_t)r;
		}
		k = h->out_len < cap - n ? h->out_len : cap - n;
		memcpy(buf + n, h->out, k);
		h->out += k;
		h->out_len -= k;
		n += k;
	}
	h->arg = NULL;
	return (long)n;
}

bool h2_over(const struct h2_conn *h)
{
	return h->broken || (!h->out_len && !nghttp2_session_want_read(h->s) &&
			     !nghttp2_session_want_write(h->s));
}

enum h2_end h2_why(const struct h2_conn *h)
{
	return h->broken ? H2_BROKEN : h->goaway ? H2_GOAWAY : H2_OK;
}

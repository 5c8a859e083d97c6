/* SPDX-License-Identifier: MIT */
/*
 * One h2c connection of the built-in target (h2_serve.h).  A stream's
 * state is one word, its user data in nghttp2's session (how far its body
 * went out, whether it asked HEAD, whether its path had the token), so
 * that a request costs no allocation of ours; what nghttp2 allocates per
 * stream is its own.  nghttp2 applies HTTP/2's rules and its limits on
 * floods (SETTINGS, PING, RST_STREAM); a client that breaks them gets
 * its GOAWAY.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "h2.h"
#include "h2_serve.h"

#define S_TOKEN 1u /* the stream's :path had the token */
#define S_HEAD 2u  /* it asked HEAD */
#define S_SHIFT 2  /* above them: the body's bytes sent */

struct h2s {
	nghttp2_session *s;
	const struct h2s_page *page;
	char clen[24]; /* the page's length, as content-length */
	nghttp2_nv nv[3];
	const uint8_t *out; /* what nghttp2 gave and is not written yet */
	size_t out_len;
	uint32_t open; /* streams begun and not closed */
	struct h2s_count n;
};

static nghttp2_session_callbacks *cbs;
static pthread_once_t cbs_once = PTHREAD_ONCE_INIT;

static uintptr_t state(nghttp2_session *s, int32_t id)
{
	return (uintptr_t)nghttp2_session_get_stream_user_data(s, id);
}

static void set_state(nghttp2_session *s, int32_t id, uintptr_t v)
{
	nghttp2_session_set_stream_user_data(s, id, (void *)v);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *fr,
		     const uint8_t *name, size_t nlen, const uint8_t *value,
		     size_t vlen, uint8_t flags, void *ud)
{
	const struct h2s *h = ud;
	const char *tok = h->page->token;
	int32_t id = fr->hd.stream_id;
	uintptr_t v;

	(void)flags;
	if (fr->hd.type != NGHTTP2_HEADERS ||
	    fr->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	v = state(s, id);
	if (nlen == 7 && !memcmp(name, ":method", 7) && vlen == 4 &&
	    !memcmp(value, "HEAD", 4))
		v |= S_HEAD;
	if (tok && nlen == 5 && !memcmp(name, ":path", 5) &&
	    vlen >= strlen(tok) + 2 && value[0] == '/' &&
	    !memcmp(value + 1, tok, strlen(tok)) &&
	    value[strlen(tok) + 1] == '/')
		v |= S_TOKEN;
	set_state(s, id, v);
	return 0;
}

static ssize_t page_read(nghttp2_session *s, int32_t id, uint8_t *buf,
			 size_t len, uint32_t *flags, nghttp2_data_source *src,
			 void *ud)
{
	const struct h2s *h = ud;
	uintptr_t v = state(s, id);
	uint64_t off = v >> S_SHIFT, left = h->page->len - off;
	size_t n = left < len ? (size_t)left : len;

	(void)src;
	memcpy(buf, h->page->body + off, n);
	off += n;
	set_state(s, id, (v & (S_TOKEN | S_HEAD)) | (uintptr_t)off << S_SHIFT);
	if (off == h->page->len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* A request is whole once its END_STREAM came: answer it. */
static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *fr, void *ud)
{
	struct h2s *h = ud;
	nghttp2_data_provider prd = {.read_callback = page_read};
	int32_t id = fr->hd.stream_id;

	if (!id || !(fr->hd.flags & NGHTTP2_FLAG_END_STREAM) ||
	    (fr->hd.type != NGHTTP2_HEADERS && fr->hd.type != NGHTTP2_DATA))
		return 0;
	if (nghttp2_submit_response(
		    s, id, h->nv, 3,
		    state(s, id) & S_HEAD || !h->page->len ? NULL : &prd))
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	return 0;
}

static int on_frame_send(nghttp2_session *s, const nghttp2_frame *fr, void *ud)
{
	struct h2s *h = ud;

	if (!fr->hd.stream_id || !(fr->hd.flags & NGHTTP2_FLAG_END_STREAM) ||
	    (fr->hd.type != NGHTTP2_HEADERS && fr->hd.type != NGHTTP2_DATA))
		return 0;
	h->n.answered++;
	if (h->page->token && !(state(s, fr->hd.stream_id) & S_TOKEN))
		h->n.strangers++;
	return 0;
}

static int on_begin(nghttp2_session *s, const nghttp2_frame *fr, void *ud)
{
	struct h2s *h = ud;

	(void)s;
	if (fr->hd.type == NGHTTP2_HEADERS &&
	    fr->headers.cat == NGHTTP2_HCAT_REQUEST)
		h->open++;
	return 0;
}

static int on_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
	struct h2s *h = ud;

	(void)s;
	(void)id;
	(void)code;
	if (h->open)
		h->open--;
	return 0;
}

static void cbs_make(void)
{
	if (nghttp2_session_callbacks_new(&cbs))
		return;
	nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cbs,
							     on_frame_recv);
	nghttp2_session_callbacks_set_on_frame_send_callback(cbs,
							     on_frame_send);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_close);
}

struct h2s *h2s_new(const struct h2s_page *page)
{
	static const nghttp2_settings_entry iv[] = {
		{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
	};
	struct h2s *h;

	pthread_once(&cbs_once, cbs_make);
	h = cbs ? calloc(1, sizeof(*h)) : NULL;
	if (!h)
		return NULL;
	h->page = page;
	snprintf(h->clen, sizeof(h->clen), "%llu",
		 (unsigned long long)page->len);
	h2_nv_set(&h->nv[0], ":status", "200");
	h2_nv_set(&h->nv[1], "content-type", page->type);
	h2_nv_set(&h->nv[2], "content-length", h->clen);
	if (nghttp2_session_server_new(&h->s, cbs, h) ||
	    nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv,
				    sizeof(iv) / sizeof(iv[0]))) {
		h2s_free(h);
		return NULL;
	}
	return h;
}

void h2s_free(struct h2s *h)
{
	if (!h)
		return;
	if (h->s)
		nghttp2_session_del(h->s);
	free(h);
}

int h2s_feed(struct h2s *h, const uint8_t *buf, size_t len)
{
	ssize_t r = nghttp2_session_mem_recv(h->s, buf, len);

	if (r >= 0)
		return 0;
	/* Not HTTP/2, a flood: say so in a GOAWAY, read nothing more. */
	nghttp2_session_terminate_session(h->s, NGHTTP2_PROTOCOL_ERROR);
	return -1;
}

long h2s_out(struct h2s *h, const uint8_t **p)
{
	if (!h->out_len) {
		ssize_t r = nghttp2_session_mem_send(h->s, &h->out);

		if (r < 0)
			return -1;
		h->out_len = (size_t)r;
	}
	*p = h->out;
	return (long)h->out_len;
}

void h2s_sent(struct h2s *h, size_t n)
{
	h->out += n;
	h->out_len -= n;
}

bool h2s_wants_read(const struct h2s *h)
{
	return nghttp2_session_want_read(h->s);
}

bool h2s_over(const struct h2s *h)
{
	return !h->out_len && !nghttp2_session_want_read(h->s) &&
	       !nghttp2_session_want_write(h->s);
}

bool h2s_wants_write(const struct h2s *h)
{
	return h->out_len || nghttp2_session_want_write(h->s);
}

bool h2s_busy(const struct h2s *h)
{
	return h->open || h->out_len || nghttp2_session_want_write(h->s);
}

const struct h2s_count *h2s_count(const struct h2s *h)
{
	return &h->n;
}

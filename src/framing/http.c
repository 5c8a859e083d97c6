/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 messages over Debian's http_parser: an incremental parser that
 * stops at the end of every message (so pipelined messages come out one at
 * a time) and counts bodies without copying them, and the builders of the
 * request and response heads the load generator and the built-in server
 * send.
 */
#include <errno.h>
#include <http_parser.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

_Static_assert(sizeof(http_parser) <=
		       sizeof(((struct ipc_http_parser *)0)->impl.bytes),
	       "http_parser does not fit in struct ipc_http_parser");
_Static_assert(IPC_HTTP_HDR_MAX == HTTP_MAX_HEADER_SIZE,
	       "IPC_HTTP_HDR_MAX is not http_parser's limit");

static http_parser *hp_of(struct ipc_http_parser *p)
{
	return (http_parser *)(void *)p->impl.bytes;
}

static const http_parser *hp_of_c(const struct ipc_http_parser *p)
{
	return (const http_parser *)(const void *)p->impl.bytes;
}

/*
 * Header matching.  The parser hands a field name and its value over in
 * as many pieces as the reads cut them into; only one field matters here
 * (a request's "Expect: 100-continue"), matched a byte at a time:
 *
 *   NONE --field--> FIELD --value--> VALUE --field--> FIELD ...
 *
 * match counts the bytes of the wanted name (or value) seen so far, or is
 * NOMATCH once one differed.
 */
enum { H_NONE, H_FIELD, H_VALUE };
#define NOMATCH 255
#define H_STATE(p) ((p)->hdr & 3)
#define H_WANTED 4 /* hdr bit: the field's name matched */

static const char expect_name[] = "expect";
static const char expect_value[] = "100-continue";

/* Go on matching @at (@len bytes) against @want from p->match on. */
static void match_more(struct ipc_http_parser *p, const char *want,
		       size_t want_len, const char *at, size_t len,
		       bool trailing_ws)
{
	for (size_t i = 0; i < len && p->match != NOMATCH; i++) {
		char c = at[i];

		if (p->match < want_len) {
			if ((c | 0x20) == want[p->match] ||
			    (c == '-' && want[p->match] == '-'))
				p->match++;
			else
				p->match = NOMATCH;
		} else if (!trailing_ws || (c != ' ' && c != '\t')) {
			p->match = NOMATCH;
		}
	}
}

/* The value of a wanted field has ended: remember what it said. */
static void value_end(struct ipc_http_parser *p)
{
	if (H_STATE(p) == H_VALUE && (p->hdr & H_WANTED) &&
	    p->match == sizeof(expect_value) - 1)
		p->msg.expect_continue = true;
}

static int on_field(http_parser *hp, const char *at, size_t len)
{
	struct ipc_http_parser *p = hp->data;

	if (!p->request)
		return 0;
	if (H_STATE(p) != H_FIELD) {
		value_end(p);
		p->hdr = H_FIELD;
		p->match = 0;
	}
	match_more(p, expect_name, sizeof(expect_name) - 1, at, len, false);
	return 0;
}

static int on_value(http_parser *hp, const char *at, size_t len)
{
	struct ipc_http_parser *p = hp->data;

	if (!p->request)
		return 0;
	if (H_STATE(p) == H_FIELD) {
		bool wanted = p->match == sizeof(expect_name) - 1;

		p->hdr = H_VALUE | (wanted ? H_WANTED : 0);
		p->match = 0;
	}
	if (p->hdr & H_WANTED)
		match_more(p, expect_value, sizeof(expect_value) - 1, at, len,
			   true);
	return 0;
}

/*
 * The request's path, in pieces: does it begin "/" token "/"?  tmatch
 * counts the bytes of that prefix seen so far, NOMATCH once one differed.
 */
static int on_url(http_parser *hp, const char *at, size_t len)
{
	struct ipc_http_parser *p = hp->data;
	size_t tl = p->token ? strlen(p->token) : 0;

	for (size_t i = 0; tl && i < len && p->tmatch != NOMATCH; i++) {
		size_t k = p->tmatch;
		char want = k == 0 || k == tl + 1 ? '/' : p->token[k - 1];

		if (at[i] != want) {
			p->tmatch = NOMATCH;
		} else if (++p->tmatch == tl + 2) {
			p->msg.token = true;
			p->tmatch = NOMATCH; /* decided */
		}
	}
	return 0;
}

static int on_begin(http_parser *hp)
{
	struct ipc_http_parser *p = hp->data;
	uint64_t interim = p->msg.interim, wire = p->msg.wire_bytes;

	/* After a 1xx the final response continues the same exchange. */
	if (!p->in_msg)
		interim = wire = 0;
	memset(&p->msg, 0, sizeof(p->msg));
	p->msg.interim = interim;
	p->msg.wire_bytes = wire;
	p->in_msg = true;
	p->hdr = H_NONE;
	p->match = 0;
	p->tmatch = 0;
	return 0;
}

static int on_head_done(http_parser *hp)
{
	struct ipc_http_parser *p = hp->data;
	struct ipc_http_msg *m = &p->msg;

	value_end(p);
	p->hdr = H_NONE;
	m->head_done = true;
	m->major = hp->http_major;
	m->minor = hp->http_minor;
	m->keep_alive = http_should_keep_alive(hp);
	m->chunked = hp->flags & F_CHUNKED;
	m->has_length = hp->flags & F_CONTENTLENGTH;
	m->length = m->has_length ? hp->content_length : 0;
	if (p->request) {
		m->method = hp->method;
		m->method_head = hp->method == HTTP_HEAD;
		/* Hand the head over first: the client awaits 100 Continue. */
		if (m->expect_continue && (m->chunked || m->length))
			http_parser_pause(hp, 1);
		return 0;
	}
	m->status = hp->status_code;
	if (m->status < 100 || m->status > 999) {
		p->bad_status = true;
		return -1;
	}
	if (m->status == 101)
		return -1; /* an upgrade: not HTTP/1.1 any more */
	/* 1 tells the parser that no body follows. */
	return p->head && m->status >= 200 ? 1 : 0;
}

static int on_body(http_parser *hp, const char *at, size_t len)
{
	struct ipc_http_parser *p = hp->data;

	(void)at;
	p->msg.body_bytes += len;
	return 0;
}

static int on_complete(http_parser *hp)
{
	struct ipc_http_parser *p = hp->data;

	if (!p->request && p->msg.status >= 100 && p->msg.status < 200) {
		/* An interim answer (100 Continue): the final one follows. */
		p->msg.interim++;
		return 0;
	}
	p->msg.keep_alive = http_should_keep_alive(hp);
	p->in_msg = false;
	p->done = true;
	http_parser_pause(hp, 1); /* hand this message over first */
	return 0;
}

static const http_parser_settings settings = {
	.on_message_begin = on_begin,
	.on_url = on_url,
	.on_header_field = on_field,
	.on_header_value = on_value,
	.on_headers_complete = on_head_done,
	.on_body = on_body,
	.on_message_complete = on_complete,
};

void ipc_http_parser_init(struct ipc_http_parser *p, bool request)
{
	memset(p, 0, sizeof(*p));
	p->request = request;
	http_parser_init(hp_of(p), request ? HTTP_REQUEST : HTTP_RESPONSE);
}

static int fail(struct ipc_http_parser *p, int err)
{
	p->err = err;
	p->in_msg = false;
	return err;
}

ssize_t ipc_http_feed(struct ipc_http_parser *p, const char *buf, size_t len,
		      bool *done)
{
	http_parser *hp = hp_of(p);
	size_t n;

	*done = false;
	if (p->err)
		return p->err;
	if (p->done) {
		memset(&p->msg, 0, sizeof(p->msg));
		p->done = false;
	}
	if (!len)
		return 0;
	hp->data = p;
	n = http_parser_execute(hp, &settings, buf, len);
	p->msg.wire_bytes += n;
	switch (HTTP_PARSER_ERRNO(hp)) {
	case HPE_PAUSED:
		http_parser_pause(hp, 0);
		break;
	case HPE_OK:
		break;
	case HPE_HEADER_OVERFLOW:
		return fail(p, -EMSGSIZE);
	case HPE_CB_headers_complete:
		return fail(p, p->bad_status ? -EBADMSG : -EPROTO);
	default:
		return fail(p, -EBADMSG);
	}
	if (hp->upgrade) {
		/* A request asking to upgrade is answered, then the
		 * connection ends: what follows it is not HTTP. */
		if (!p->request)
			return fail(p, -EPROTO);
		p->msg.keep_alive = false;
	}
	*done = p->done;
	return (ssize_t)n;
}

int ipc_http_eof(struct ipc_http_parser *p)
{
	http_parser *hp = hp_of(p);

	if (p->err)
		return p->err;
	if (!p->in_msg)
		return 0;
	hp->data = p;
	http_parser_execute(hp, &settings, NULL, 0);
	if (p->done) {
		http_parser_pause(hp, 0);
		return 1;
	}
	return fail(p, -EPIPE);
}

const char *ipc_http_strerror(const struct ipc_http_parser *p)
{
	switch (p->err) {
	case 0:
		return "no error";
	case -EMSGSIZE:
		return "header section longer than 80 KiB";
	case -EPIPE:
		return p->msg.head_done
			       ? "the connection closed inside the body"
			       : "the connection closed inside the "
				 "header";
	case -EPROTO:
		return "a protocol upgrade (101 Switching Protocols): only "
		       "HTTP/1.1 is spoken";
	default:
		if (p->bad_status)
			return "a status code that is not 3 digits";
		return http_errno_description(HTTP_PARSER_ERRNO(hp_of_c(p)));
	}
}

/* ---- building messages --------------------------------------------- */

/* An output buffer that remembers when it ran out of room. */
struct out {
	char *p;
	size_t cap, len;
	bool full;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len)
		o->full = true;
	else
		o->len += (size_t)n;
}

/* A token character (RFC 9110's tchar). */
static bool tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_token(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!tchar((unsigned char)s[i]))
			return false;
	return true;
}

/* Is @name (@len bytes) the header @want, whatever its case? */
static bool name_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !strncasecmp(name, want, len);
}

int ipc_http_header_check(const char *h, char *why, size_t why_len)
{
	const char *colon = strchr(h, ':');
	size_t nlen = colon ? (size_t)(colon - h) : 0;

	if (!colon || !is_token(h, nlen)) {
		snprintf(why, why_len,
			 "'%s' is not a header: write it as NAME: VALUE, the "
			 "name made of letters, digits and !#$%%&'*+-.^_`|~",
			 h);
		return -EINVAL;
	}
	for (const char *v = colon + 1; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			snprintf(why, why_len,
				 "header '%.*s' has a control character in "
				 "its value",
				 (int)nlen, h);
			return -EINVAL;
		}
	}
	/*
	 * http_parser 2.9.4 takes any name that begins with
	 * "transfer-encoding" for that header (then refuses the request's
	 * Content-Length), so such names are refused here with the two real
	 * ones.
	 */
	if (!strncasecmp(h, "content-length", 14) ||
	    !strncasecmp(h, "transfer-encoding", 17)) {
		snprintf(why, why_len,
			 "header '%.*s' is written from --body, not by hand",
			 (int)nlen, h);
		return -EINVAL;
	}
	return 0;
}

/* Did the user give header @name? */
static bool given(const struct ipc_http_req_spec *s, const char *name)
{
	for (size_t i = 0; i < s->nheaders; i++) {
		const char *colon = strchr(s->headers[i], ':');

		if (colon && name_is(s->headers[i],
				     (size_t)(colon - s->headers[i]), name))
			return true;
	}
	return false;
}

/* The methods whose requests carry a body (a length, 0 or not). */
static bool sends_body(const char *method)
{
	return !strcmp(method, "POST") || !strcmp(method, "PUT") ||
	       !strcmp(method, "PATCH");
}

ssize_t ipc_http_req_head(char *dst, size_t cap,
			  const struct ipc_http_req_spec *s, char *why,
			  size_t why_len)
{
	struct out o = {.p = dst, .cap = cap};

	if (!is_token(s->method, strlen(s->method))) {
		snprintf(why, why_len, "'%s' is not a method name", s->method);
		return -EINVAL;
	}
	for (const char *c = s->path; *c; c++) {
		if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
			snprintf(why, why_len,
				 "the path has a space or a control "
				 "character: percent-encode it");
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < s->nheaders; i++)
		if (ipc_http_header_check(s->headers[i], why, why_len))
			return -EINVAL;
	put(&o, "%s %s HTTP/1.1\r\n", s->method, *s->path ? s->path : "/");
	if (!given(s, "host"))
		put(&o, "Host: %s\r\n", s->host);
	if (!given(s, "user-agent"))
		put(&o, "User-Agent: ipcperf\r\n");
	if (!given(s, "accept"))
		put(&o, "Accept: */*\r\n");
	if (s->close && !given(s, "connection"))
		put(&o, "Connection: close\r\n");
	for (size_t i = 0; i < s->nheaders; i++) {
		const char *h = s->headers[i], *colon = strchr(h, ':');
		const char *v = colon + 1;

		while (*v == ' ' || *v == '\t')
			v++;
		put(&o, "%.*s: %s\r\n", (int)(colon - h), h, v);
	}
	if (s->body_bytes || sends_body(s->method))
		put(&o, "Content-Length: %" PRIu64 "\r\n", s->body_bytes);
	put(&o, "\r\n");
	if (o.full)
		return -ENOSPC;
	return (ssize_t)o.len;
}

const char *ipc_http_reason(unsigned status)
{
	switch (status) {
	case 100:
		return "Continue";
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 408:
		return "Request Timeout";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return "";
	}
}

ssize_t ipc_http_resp_head(char *dst, size_t cap,
			   const struct ipc_http_resp_spec *s)
{
	struct out o = {.p = dst, .cap = cap};

	put(&o, "HTTP/1.%d %u %s\r\nServer: ipcperf\r\n", s->http10 ? 0 : 1,
	    s->status, ipc_http_reason(s->status));
	if (s->date)
		put(&o, "Date: %s\r\n", s->date);
	if (s->type)
		put(&o, "Content-Type: %s\r\n", s->type);
	if (s->chunked)
		put(&o, "Transfer-Encoding: chunked\r\n");
	else
		put(&o, "Content-Length: %" PRIu64 "\r\n", s->length);
	if (!s->keep_alive)
		put(&o, "Connection: close\r\n");
	else if (s->say_keep_alive)
		put(&o, "Connection: keep-alive\r\n");
	put(&o, "\r\n");
	if (o.full)
		return -ENOSPC;
	return (ssize_t)o.len;
}

size_t ipc_http_chunk_line(char *dst, uint64_t len)
{
	int n = snprintf(dst, 19, "%" PRIx64 "\r\n", len);

	return (size_t)n;
}

/* Copy URL part @f of @url into @dst (@cap bytes); false if too long. */
static bool part(const char *url, const struct http_parser_url *u, int f,
		 char *dst, size_t cap)
{
	size_t len = u->field_data[f].len;

	if (len >= cap)
		return false;
	memcpy(dst, url + u->field_data[f].off, len);
	dst[len] = '\0';
	return true;
}

int ipc_http_url_parse(const char *url, struct ipc_http_url *u, char *why,
		       size_t why_len)
{
	struct http_parser_url pu;
	char scheme[16], query[2048];
	size_t len = strlen(url);
	unsigned dflt;

	memset(u, 0, sizeof(*u));
	http_parser_url_init(&pu);
	if (len > 4096 || http_parser_parse_url(url, len, 0, &pu) ||
	    !(pu.field_set & (1 << UF_SCHEMA))) {
		snprintf(why, why_len,
			 "'%.200s' is not a URL such as "
			 "http://127.0.0.1:8080/index.html",
			 url);
		return -EINVAL;
	}
	if (!part(url, &pu, UF_SCHEMA, scheme, sizeof(scheme)) ||
	    (strcasecmp(scheme, "http") && strcasecmp(scheme, "https"))) {
		snprintf(why, why_len,
			 "'%.200s': only http:// and https:// URLs can be "
			 "measured",
			 url);
		return -EINVAL;
	}
	u->tls = !strcasecmp(scheme, "https");
	dflt = u->tls ? 443u : 80u;
	if (!(pu.field_set & (1 << UF_HOST)) ||
	    !part(url, &pu, UF_HOST, u->host, sizeof(u->host)) || !*u->host) {
		snprintf(why, why_len, "'%.200s' names no host (or too long)",
			 url);
		return -EINVAL;
	}
	u->ipv6 = strchr(u->host, ':') != NULL;
	snprintf(u->port, sizeof(u->port), "%u", pu.port ? pu.port : dflt);
	if ((pu.field_set & (1 << UF_PORT)) && !pu.port) {
		snprintf(why, why_len,
			 "'%.200s': port 0 cannot be connected to", url);
		return -EINVAL;
	}
	snprintf(u->authority, sizeof(u->authority), "%s%s%s%s%s",
		 u->ipv6 ? "[" : "", u->host, u->ipv6 ? "]" : "",
		 pu.port && pu.port != dflt ? ":" : "",
		 pu.port && pu.port != dflt ? u->port : "");
	if (!(pu.field_set & (1 << UF_PATH)))
		strcpy(u->path, "/");
	else if (!part(url, &pu, UF_PATH, u->path, sizeof(u->path)))
		goto too_long;
	if (pu.field_set & (1 << UF_QUERY)) {
		size_t pl = strlen(u->path);

		if (!part(url, &pu, UF_QUERY, query, sizeof(query)) ||
		    pl + 1 + strlen(query) >= sizeof(u->path))
			goto too_long;
		u->path[pl] = '?';
		strcpy(u->path + pl + 1, query);
	}
	return 0;
too_long:
	snprintf(why, why_len,
		 "the path of '%.100s...' is longer than %zu bytes", url,
		 sizeof(u->path) - 1);
	return -EINVAL;
}

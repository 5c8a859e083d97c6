/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 messages: responses and requests cut at every byte and fed in
 * pieces, pipelined messages handed over one at a time, chunked bodies
 * with extensions and trailers, lying lengths, connections that close
 * inside a message, a 100 MB body and a 1 MB header line; the request and
 * response builders read back by the parser; URLs.
 */
#include <errno.h>
#include <http_parser.h>
#include <stdlib.h>

#include "../tap.h"
#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

#define MAXMSG 8

/* What parsing a whole text gave. */
struct got {
	struct ipc_http_msg m[MAXMSG];
	size_t n;	     /* messages */
	size_t used;	     /* bytes consumed */
	int err;	     /* the error the feed or the end of stream gave */
	int eof;	     /* what ipc_http_eof said (when asked) */
	size_t ends[MAXMSG]; /* offset just past each message */
};

/*
 * Parse @len bytes of @text in pieces of @step bytes; then, if @eof,
 * tell the parser the stream ended.  Responses answer HEAD when @head.
 */
static struct got parse(bool request, const char *text, size_t len, size_t step,
			bool eof, bool head)
{
	struct ipc_http_parser p;
	struct got g = {0};
	size_t off = 0;

	ipc_http_parser_init(&p, request);
	ipc_http_expect_head(&p, head);
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		size_t at = 0;

		while (at < n) {
			bool done;
			ssize_t r = ipc_http_feed(&p, text + off + at, n - at,
						  &done);

			if (r < 0) {
				g.err = (int)r;
				g.used = off + at;
				return g;
			}
			at += (size_t)r;
			if (done && g.n < MAXMSG) {
				g.ends[g.n] = off + at;
				g.m[g.n++] = p.msg;
			}
		}
		off += n;
	}
	g.used = off;
	if (eof) {
		g.eof = ipc_http_eof(&p);
		if (g.eof == 1 && g.n < MAXMSG)
			g.m[g.n++] = p.msg;
		if (g.eof < 0) {
			g.err = g.eof;
			g.m[g.n] = p.msg; /* how far the cut message got */
		}
	}
	return g;
}

static struct got parse_s(bool request, const char *text, size_t step)
{
	return parse(request, text, strlen(text), step, false, false);
}

static const char simple[] = "HTTP/1.1 200 OK\r\n"
			     "Content-Length: 5\r\n"
			     "Content-Type: text/plain\r\n"
			     "\r\n"
			     "hello";

static void test_simple(void)
{
	struct got g = parse_s(false, simple, 4096);

	is_int(g.n, "==", 1, "one response");
	is_int(g.err, "==", 0, "no error");
	is_int(g.m[0].status, "==", 200, "status 200");
	is_uint(g.m[0].body_bytes, "==", 5, "5 body bytes");
	ok(g.m[0].has_length && g.m[0].length == 5, "Content-Length 5 seen");
	ok(g.m[0].keep_alive, "HTTP/1.1 keeps the connection by default");
	is_uint(g.m[0].wire_bytes, "==", strlen(simple),
		"every byte counted on the wire");
	ok(!g.m[0].chunked, "not chunked");
}

/* Every cut of @text in two reads gives the same single message. */
static void every_cut(bool request, const char *text, const char *what)
{
	size_t len = strlen(text), bad = 0;
	struct got whole = parse_s(request, text, len);

	for (size_t cut = 1; cut < len; cut++) {
		struct ipc_http_parser p;
		size_t at = 0, msgs = 0;
		uint64_t body = 0, wire = 0;
		bool exp = false, ka = false;

		ipc_http_parser_init(&p, request);
		while (at < len) {
			size_t end = at < cut ? cut : len;
			bool done;
			ssize_t r =
				ipc_http_feed(&p, text + at, end - at, &done);

			if (r < 0)
				break;
			at += (size_t)r;
			if (done) {
				msgs++;
				body = p.msg.body_bytes;
				wire = p.msg.wire_bytes;
				exp = p.msg.expect_continue;
				ka = p.msg.keep_alive;
			}
		}
		if (msgs != 1 || body != whole.m[0].body_bytes || wire != len ||
		    exp != whole.m[0].expect_continue ||
		    ka != whole.m[0].keep_alive)
			bad++;
	}
	is_int(bad, "==", 0, "%s: the same message at each of %zu cuts", what,
	       len - 1);
}

static void test_byte_by_byte(void)
{
	struct got g = parse_s(false, simple, 1);

	is_int(g.n, "==", 1, "fed a byte at a time: one response");
	is_uint(g.m[0].body_bytes, "==", 5, "fed a byte at a time: 5 bytes");
	every_cut(false, simple, "a response cut in two reads");
}

static void test_pipelined(void)
{
	char text[1024];
	const char *b = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
	const char *c = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"3\r\nabc\r\n0\r\n\r\n";
	size_t la = strlen(simple), lb = strlen(b), lc = strlen(c);
	struct got g;

	snprintf(text, sizeof(text), "%s%s%s", simple, b, c);
	for (size_t step = 1; step <= 64; step *= 4) {
		g = parse_s(false, text, step);
		is_int(g.n, "==", 3, "three pipelined responses (reads of %zu)",
		       step);
		ok(g.n == 3 && g.ends[0] == la && g.ends[1] == la + lb &&
			   g.ends[2] == la + lb + lc,
		   "each handed over where it ends (reads of %zu)", step);
		ok(g.m[0].status == 200 && g.m[1].status == 404 &&
			   g.m[2].status == 200,
		   "their own statuses");
		ok(g.m[0].wire_bytes == la && g.m[1].wire_bytes == lb &&
			   g.m[2].wire_bytes == lc,
		   "their own wire bytes");
		ok(g.m[2].chunked && g.m[2].body_bytes == 3,
		   "the third is chunked, 3 bytes");
	}
}

static void test_chunked(void)
{
	const char *t = "HTTP/1.1 200 OK\r\n"
			"Transfer-Encoding: chunked\r\n"
			"Trailer: X-Sum\r\n"
			"\r\n"
			"5;name=value\r\nhello\r\n"
			"6;a=\"quoted\";b\r\n world\r\n"
			"A\r\n0123456789\r\n"
			"0;last\r\n"
			"X-Sum: 21\r\n"
			"X-Other: yes\r\n"
			"\r\n";
	struct got g = parse_s(false, t, 4096);

	is_int(g.err, "==", 0, "chunked with extensions and trailers parses");
	is_int(g.n, "==", 1, "one response");
	is_uint(g.m[0].body_bytes, "==", 21, "21 body bytes, framing out");
	is_uint(g.m[0].wire_bytes, "==", strlen(t), "trailers on the wire");
	ok(g.m[0].chunked && g.m[0].keep_alive, "chunked, kept alive");
	every_cut(false, t, "chunked, extensions, trailers");

	g = parse_s(false,
		    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		    "zz\r\nab\r\n0\r\n\r\n",
		    4096);
	is_int(g.err, "==", -EBADMSG, "a chunk size that is not hex: EBADMSG");
	t = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "10\r\n0123456";
	g = parse(false, t, strlen(t), 4096, true, false);
	is_int(g.err, "==", -EPIPE, "closed inside a chunk: EPIPE");
	ok(g.m[0].head_done && g.m[0].body_bytes == 7,
	   "the cut message got 7 bytes into its body");
}

static void test_lying_length(void)
{
	const char *longer = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
			     "only fifty bytes of the hundred promised......";
	const char *shorter = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"
			      "hello";
	struct got g;

	g = parse(false, longer, strlen(longer), 4096, true, false);
	is_int(g.n, "==", 0, "Content-Length 100, 46 bytes, close: no message");
	is_int(g.err, "==", -EPIPE, "... the stream ended inside the body");
	ok(g.m[0].head_done && g.m[0].body_bytes == 46 && g.m[0].length == 100,
	   "... 46 of 100 body bytes, as a length mismatch to report");

	g = parse_s(false, shorter, 4096);
	is_int(g.n, "==", 1, "Content-Length 3 with 5 bytes: one message");
	is_uint(g.m[0].body_bytes, "==", 3, "... of 3 bytes");
	is_int(g.err, "==", -EBADMSG,
	       "... and the 2 extra bytes are no response");
	is_uint(g.used, "==", strlen(shorter) - 2,
		"... refused where they begin");

	g = parse_s(false,
		    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
		    "Content-Length: 6\r\n\r\nhello!",
		    4096);
	is_int(g.err, "==", -EBADMSG, "two different Content-Lengths: EBADMSG");
	g = parse_s(false, "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		    4096);
	is_int(g.err, "==", -EBADMSG, "a negative Content-Length: EBADMSG");
}

static void test_close_mid(void)
{
	const char *head = "HTTP/1.1 200 OK\r\nContent-Le";
	struct got g;

	g = parse(false, head, strlen(head), 4096, true, false);
	is_int(g.err, "==", -EPIPE, "closed inside the header: EPIPE");
	ok(!g.m[0].head_done, "... before the header was done");
	g = parse(false, "", 0, 4096, true, false);
	is_int(g.eof, "==", 0, "closed before any byte: no message cut");
	g = parse(false, simple, strlen(simple), 4096, true, false);
	ok(g.n == 1 && g.eof == 0,
	   "closed after a whole response: nothing cut");
}

static void test_http10(void)
{
	const char *t = "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n"
			"the body runs to the close";
	const char *ka = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
			 "Content-Length: 2\r\n\r\nhi";
	const char *cl = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
			 "Content-Length: 2\r\n\r\nhi";
	struct got g;

	g = parse(false, t, strlen(t), 7, true, false);
	is_int(g.eof, "==", 1, "HTTP/1.0 without a length ends at the close");
	ok(g.n == 1 && g.m[0].body_bytes == 26 && !g.m[0].keep_alive,
	   "... 26 body bytes, and not kept alive");
	ok(g.m[0].major == 1 && g.m[0].minor == 0, "... version 1.0");
	g = parse_s(false, ka, 4096);
	ok(g.n == 1 && g.m[0].keep_alive,
	   "HTTP/1.0 with Connection: keep-alive is kept alive");
	g = parse_s(false, cl, 4096);
	ok(g.n == 1 && !g.m[0].keep_alive,
	   "HTTP/1.1 with Connection: close is not");
}

static void test_big_body(void)
{
	const uint64_t total = 100ull << 20;
	const size_t piece = 64 << 10;
	char head[128], *buf = malloc(piece);
	struct ipc_http_parser p;
	uint64_t fed = 0, msgs = 0;
	ssize_t r;
	bool done = false;
	int hl;

	memset(buf, 'x', piece);
	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n\r\n",
		      (unsigned long long)total);
	ipc_http_parser_init(&p, false);
	r = ipc_http_feed(&p, head, (size_t)hl, &done);
	ok(r == hl && !done, "100 MB body: the head");
	while (fed < total && r >= 0) {
		size_t n = total - fed < piece ? total - fed : piece;

		r = ipc_http_feed(&p, buf, n, &done);
		if (r != (ssize_t)n)
			break;
		fed += n;
		msgs += done;
	}
	is_uint(fed, "==", total, "100 MB body: every byte taken");
	is_uint(msgs, "==", 1, "... ending exactly one message, at its end");
	is_uint(p.msg.body_bytes, "==", total, "... all of it body");
	free(buf);
}

/* A message whose header has one line of @line_bytes bytes. */
static char *long_header(bool request, size_t line_bytes, size_t *len)
{
	const char *start = request ? "GET / HTTP/1.1\r\nHost: x\r\nX-Big: "
				    : "HTTP/1.1 200 OK\r\nX-Big: ";
	const char *end = "\r\nContent-Length: 0\r\n\r\n";
	size_t ls = strlen(start), le = strlen(end);
	char *t = malloc(ls + line_bytes + le + 1);

	memcpy(t, start, ls);
	memset(t + ls, 'a', line_bytes);
	memcpy(t + ls + line_bytes, end, le + 1);
	*len = ls + line_bytes + le;
	return t;
}

static void test_big_header(void)
{
	size_t len;
	char *t;
	struct got g;

	for (int request = 0; request < 2; request++) {
		const char *what = request ? "request" : "response";

		t = long_header(request, 1 << 20, &len);
		g = parse(request, t, len, 64 << 10, false, false);
		is_int(g.err, "==", -EMSGSIZE,
		       "%s with a 1 MB header line: EMSGSIZE", what);
		is_uint(g.used, "<=", IPC_HTTP_HDR_MAX + (64 << 10),
			"... refused within the limit's reach, not at the "
			"end");
		free(t);
		t = long_header(request, 70 << 10, &len);
		g = parse(request, t, len, 1000, false, false);
		ok(g.n == 1 && !g.err, "%s with a 70 KiB header line parses",
		   what);
		free(t);
	}
}

static void test_head_and_interim(void)
{
	const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 16294\r\n\r\n";
	const char *i = "HTTP/1.1 100 Continue\r\n\r\n"
			"HTTP/1.1 102 Processing\r\n\r\n"
			"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
	struct got g;

	g = parse(false, h, strlen(h), 4096, false, true);
	ok(g.n == 1 && g.m[0].body_bytes == 0 && g.m[0].length == 16294,
	   "a HEAD response ends with its head, whatever its length says");
	g = parse_s(false, i, 5);
	ok(g.n == 1 && g.m[0].status == 201, "1xx answers are skipped");
	is_uint(g.m[0].interim, "==", 2, "... and counted");
	is_uint(g.m[0].wire_bytes, "==", strlen(i),
		"... their bytes count with the final response");
	g = parse_s(false, "HTTP/1.1 204 No Content\r\n\r\n", 4096);
	ok(g.n == 1 && g.m[0].status == 204 && g.m[0].body_bytes == 0,
	   "204 has no body");
	g = parse_s(false,
		    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n"
		    "Connection: Upgrade\r\n\r\n",
		    4096);
	is_int(g.err, "==", -EPROTO, "101 Switching Protocols: EPROTO");
	g = parse_s(false, "hello world\r\n\r\n", 4096);
	is_int(g.err, "==", -EBADMSG, "not HTTP: EBADMSG");
	g = parse_s(false, "HTTP/1.1 2000 OK\r\n\r\n", 4096);
	is_int(g.err, "==", -EBADMSG, "a 4-digit status: EBADMSG");
	g = parse_s(false, "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", 4096);
	is_int(g.err, "==", -EBADMSG, "a 2-digit status: EBADMSG");
}

static void test_requests(void)
{
	const char *get = "GET /x HTTP/1.1\r\nHost: a\r\n\r\n";
	const char *post = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n"
			   "Expect: 100-continue\r\n\r\nbody";
	const char *chunked = "PUT / HTTP/1.1\r\nHost: a\r\n"
			      "Transfer-Encoding: chunked\r\n\r\n"
			      "4;x=y\r\nbody\r\n0\r\nT: 1\r\n\r\n";
	const char *ab = "GET /fast HTTP/1.0\r\nConnection: Keep-Alive\r\n"
			 "Host: localhost\r\nUser-Agent: ApacheBench/2.3\r\n"
			 "Accept: */*\r\n\r\n";
	char two[256];
	struct got g;

	g = parse_s(true, get, 4096);
	ok(g.n == 1 && g.m[0].method == HTTP_GET && g.m[0].keep_alive,
	   "GET, kept alive");
	ok(!g.m[0].expect_continue, "... expects no 100 Continue");
	g = parse_s(true, post, 4096);
	ok(g.n == 1 && g.m[0].method == HTTP_POST && g.m[0].body_bytes == 4,
	   "POST with a 4-byte body");
	ok(g.m[0].expect_continue, "... expects 100 Continue");
	every_cut(true, post, "Expect: 100-continue cut anywhere");
	g = parse_s(true,
		    "POST / HTTP/1.1\r\nExpectation: 100-continue\r\n"
		    "X: Expect\r\nExpect: 100-continued\r\n\r\n",
		    3);
	ok(g.n == 1 && !g.m[0].expect_continue,
	   "Expectation:, a value Expect and 100-continued are not it");
	g = parse_s(true, chunked, 4096);
	ok(g.n == 1 && g.m[0].chunked && g.m[0].body_bytes == 4,
	   "a chunked request body with extension and trailer");
	g = parse_s(true, ab, 4096);
	ok(g.n == 1 && g.m[0].keep_alive && g.m[0].minor == 0,
	   "ab -k's HTTP/1.0 request with Connection: Keep-Alive is kept "
	   "alive");
	g = parse_s(true, "GET / HTTP/1.0\r\n\r\n", 4096);
	ok(g.n == 1 && !g.m[0].keep_alive, "a plain HTTP/1.0 request is not");
	g = parse_s(true, "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", 4096);
	ok(g.n == 1 && g.m[0].method == HTTP_HEAD, "HEAD");
	snprintf(two, sizeof(two), "%s%s", get, post);
	g = parse_s(true, two, 1);
	ok(g.n == 2 && g.ends[0] == strlen(get),
	   "two pipelined requests, one at a time");
	g = parse_s(true,
		    "POST / HTTP/1.1\r\nContent-Length: 4\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		    4096);
	is_int(g.err, "==", -EBADMSG,
	       "Content-Length and chunked at once (smuggling): EBADMSG");
	g = parse_s(true,
		    "GET http://h:8080/x HTTP/1.1\r\n\r\n"
		    "OPTIONS * HTTP/1.1\r\n\r\n",
		    7);
	ok(g.n == 2 && g.m[0].keep_alive,
	   "an absolute-form target and OPTIONS * parse");
	g = parse_s(true, "GET / HTTP/1.1\r\nBad Header\r\n\r\n", 4096);
	is_int(g.err, "==", -EBADMSG, "a header without a colon: EBADMSG");
	g = parse_s(true, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 4096);
	is_int(g.err, "==", -EBADMSG, "a TLS hello: EBADMSG");
	g = parse_s(true,
		    "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n"
		    "Upgrade: websocket\r\n\r\n",
		    4096);
	ok(g.n == 1 && !g.m[0].keep_alive,
	   "a request to upgrade is answered, then the connection ends");
}

static void test_build_request(void)
{
	const char *hdrs[] = {"X-Test: 1", "Host:other.example",
			      "Accept:\ttext/html"};
	struct ipc_http_req_spec s = {
		.method = "GET", .host = "127.0.0.1:8080", .path = "/a?b=c"};
	char buf[512], why[160];
	ssize_t n;
	struct got g;

	n = ipc_http_req_head(buf, sizeof(buf), &s, why, sizeof(why));
	ok(n > 0, "a GET head builds");
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf,
	       "GET /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
	       "User-Agent: ipcperf\r\nAccept: */*\r\n\r\n",
	       "... as expected");
	g = parse_s(true, buf, 4096);
	ok(g.n == 1 && g.m[0].keep_alive && g.m[0].body_bytes == 0,
	   "... and parses back, kept alive");

	s.close = true;
	s.method = "POST";
	s.body_bytes = 1000;
	s.headers = hdrs;
	s.nheaders = 3;
	n = ipc_http_req_head(buf, sizeof(buf), &s, why, sizeof(why));
	ok(n > 0, "a POST head with -H builds");
	buf[n > 0 ? n : 0] = '\0';
	ok(strstr(buf, "Host: other.example\r\n") &&
		   !strstr(buf, "127.0.0.1") &&
		   strstr(buf, "Accept: text/html\r\n") &&
		   !strstr(buf, "*/*") && strstr(buf, "X-Test: 1\r\n"),
	   "... -H replaces Host and Accept, adds X-Test");
	ok(strstr(buf, "Content-Length: 1000\r\n") &&
		   strstr(buf, "Connection: close\r\n"),
	   "... with Content-Length and Connection: close");
	g = parse(true, buf, (size_t)n, 4096, false, false);
	ok(g.n == 0 && !g.err, "... parses back as a head awaiting its body");

	s.body_bytes = 0;
	n = ipc_http_req_head(buf, sizeof(buf), &s, why, sizeof(why));
	buf[n > 0 ? n : 0] = '\0';
	ok(n > 0 && strstr(buf, "Content-Length: 0\r\n"),
	   "a POST without a body says Content-Length: 0");
	n = ipc_http_req_head(buf, 40, &s, why, sizeof(why));
	is_int(n, "==", -ENOSPC, "too small a buffer: ENOSPC");

	const char *bad[] = {"NoColon",
			     "Bad Name: x",
			     "X: a\r\nInjected: b",
			     "Content-Length: 5",
			     "transfer-encoding: chunked",
			     ": empty"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(ipc_http_header_check(bad[i], why, sizeof(why)),
		       "==", -EINVAL, "-H bad header %zu is refused", i);
		ok(strlen(why) > 10 && !strpbrk(why, "\r\n"),
		   "... saying why on one line");
	}
	s.nheaders = 0;
	s.method = "GE T";
	is_int(ipc_http_req_head(buf, sizeof(buf), &s, why, sizeof(why)),
	       "==", -EINVAL, "a method with a space is refused");
	s.method = "GET";
	s.path = "/a b";
	is_int(ipc_http_req_head(buf, sizeof(buf), &s, why, sizeof(why)),
	       "==", -EINVAL, "a path with a space is refused");
}

static void test_build_response(void)
{
	struct ipc_http_resp_spec s = {.status = 200,
				       .length = 16294,
				       .keep_alive = true,
				       .date = "Sun, 06 Nov 1994 08:49:37 GMT",
				       .type = "text/html"};
	char buf[512], text[600], line[20];
	ssize_t n;
	struct got g;

	n = ipc_http_resp_head(buf, sizeof(buf), &s);
	buf[n > 0 ? n : 0] = '\0';
	ok(n > 0 && strstr(buf, "Content-Length: 16294\r\n") &&
		   strstr(buf, "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n") &&
		   !strstr(buf, "Connection"),
	   "a 1.1 keep-alive head: length and date, no Connection field");
	g = parse(false, buf, (size_t)n, 4096, false, true);
	ok(g.n == 1 && g.m[0].keep_alive && g.m[0].length == 16294,
	   "... parses back (as a HEAD answer)");

	s.http10 = true;
	s.say_keep_alive = true;
	n = ipc_http_resp_head(buf, sizeof(buf), &s);
	buf[n > 0 ? n : 0] = '\0';
	g = parse(false, buf, (size_t)n, 4096, false, true);
	ok(g.n == 1 && g.m[0].keep_alive && g.m[0].minor == 0,
	   "an HTTP/1.0 head saying keep-alive is kept alive");

	s.http10 = false;
	s.keep_alive = false;
	s.chunked = true;
	n = ipc_http_resp_head(buf, sizeof(buf), &s);
	buf[n > 0 ? n : 0] = '\0';
	ipc_http_chunk_line(line, 5);
	snprintf(text, sizeof(text), "%s", buf);
	strcat(text, line);
	strcat(text, "hello\r\n");
	ipc_http_chunk_line(line, 0);
	strcat(text, line);
	strcat(text, "\r\n");
	g = parse_s(false, text, 3);
	ok(g.n == 1 && g.m[0].chunked && g.m[0].body_bytes == 5 &&
		   !g.m[0].keep_alive,
	   "a chunked close head with chunk lines parses back");
	is_int(ipc_http_chunk_line(line, 4096), "==", 6, "4096: 6 bytes");
	is_str(line, "1000\r\n", "... written 1000");
	is_int(ipc_http_resp_head(buf, 20, &s), "==", -ENOSPC,
	       "too small a buffer: ENOSPC");
}

static void url_is(const char *url, const char *host, const char *port,
		   const char *auth, const char *path)
{
	struct ipc_http_url u;
	char why[160] = "";
	int rc = ipc_http_url_parse(url, &u, why, sizeof(why));

	ok(rc == 0 && !strcmp(u.host, host) && !strcmp(u.port, port) &&
		   !strcmp(u.authority, auth) && !strcmp(u.path, path),
	   "%s: host %s port %s authority %s path %s", url, host, port, auth,
	   path);
	if (rc)
		diag("rc %d: %s", rc, why);
	else if (strcmp(u.path, path) || strcmp(u.authority, auth))
		diag("got host %s port %s authority %s path %s", u.host, u.port,
		     u.authority, u.path);
}

static void url_refused(const char *url)
{
	struct ipc_http_url u;
	char why[160] = "";

	is_int(ipc_http_url_parse(url, &u, why, sizeof(why)), "==", -EINVAL,
	       "'%s' is refused: %s", url, why);
}

/* A request's path against the parser's token, fed in pieces of @step. */
static bool token_of(const char *req, const char *token, size_t step)
{
	struct ipc_http_parser p;
	size_t len = strlen(req), off = 0;
	bool done = false;

	ipc_http_parser_init(&p, true);
	p.token = token;
	while (off < len && !done) {
		size_t n = len - off < step ? len - off : step;
		ssize_t r = ipc_http_feed(&p, req + off, n, &done);

		if (r < 0)
			return false;
		off += (size_t)r;
	}
	return done && p.msg.token;
}

static void test_token(void)
{
	ok(token_of("GET /t0k/x HTTP/1.1\r\nHost: h\r\n\r\n", "t0k", 64),
	   "a path under /TOKEN/ has the token");
	ok(token_of("GET /t0k/ HTTP/1.1\r\nHost: h\r\n\r\n", "t0k", 1),
	   "... also fed a byte at a time");
	ok(!token_of("GET /t0kx/ HTTP/1.1\r\nHost: h\r\n\r\n", "t0k", 64),
	   "a longer name is not the token");
	ok(!token_of("GET /t0k HTTP/1.1\r\nHost: h\r\n\r\n", "t0k", 64),
	   "nor the name without its slash");
	ok(!token_of("GET /x/t0k/ HTTP/1.1\r\nHost: h\r\n\r\n", "t0k", 64),
	   "nor the name further down the path");
	ok(!token_of("GET /t0k/ HTTP/1.1\r\nHost: h\r\n\r\n", NULL, 64),
	   "no token asked for: none found");
}

static void test_urls(void)
{
	url_is("http://127.0.0.1:8080/a?b=c", "127.0.0.1", "8080",
	       "127.0.0.1:8080", "/a?b=c");
	url_is("http://[::1]:9000/", "::1", "9000", "[::1]:9000", "/");
	url_is("http://example.org", "example.org", "80", "example.org", "/");
	url_is("HTTP://h:80/x#frag", "h", "80", "h", "/x");
	url_is("https://127.0.0.1/x", "127.0.0.1", "443", "127.0.0.1", "/x");
	url_is("https://localhost:8443/", "localhost", "8443", "localhost:8443",
	       "/");
	url_refused("ftp://127.0.0.1/");
	{
		struct ipc_http_url u;
		char why[160];

		is_int(ipc_http_url_parse("https://127.0.0.1/", &u, why,
					  sizeof(why)) == 0 &&
			       u.tls,
		       "==", 1, "https:// says TLS");
		is_int(ipc_http_url_parse("http://127.0.0.1/", &u, why,
					  sizeof(why)) == 0 &&
			       !u.tls,
		       "==", 1, "http:// says plain");
	}
	url_refused("localhost:8080");
	url_refused("http:///path");
	url_refused("http://h:0/");
	url_refused("not a url");
}

int main(void)
{
	test_simple();
	test_token();
	test_byte_by_byte();
	test_pipelined();
	test_chunked();
	test_lying_length();
	test_close_mid();
	test_http10();
	test_big_body();
	test_big_header();
	test_head_and_interim();
	test_requests();
	test_build_request();
	test_build_response();
	test_urls();
	return done_testing();
}

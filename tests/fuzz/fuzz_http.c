/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the HTTP glue: what a server sends the load
 * generator and what a client sends the built-in target are both
 * untrusted.  The first byte picks what the rest is fed to and how:
 *
 *   bits 0-1  0: responses, 1: requests, 2: a URL, 3: -H headers
 *   bit  2    responses answer a HEAD
 *   bits 3-7  read size: 1 << (value % 17) bytes, so messages are cut
 *             anywhere
 *
 * Every call checks the parser's own promises: a feed consumes at most
 * what it got, a message ends only where the parser said, a body is never
 * longer than the bytes on the wire or than its Content-Length.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void messages(const uint8_t *data, size_t len, bool request, bool head,
		     size_t step)
{
	struct ipc_http_parser p;
	size_t off = 0;

	ipc_http_parser_init(&p, request);
	/* Requests are matched against a token too (http --serve --token). */
	p.token = request ? "t0k" : NULL;
	ipc_http_expect_head(&p, head);
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		bool done;
		ssize_t r =
			ipc_http_feed(&p, (const char *)data + off, n, &done);

		if (r < 0) {
			check(r == -EBADMSG || r == -EMSGSIZE || r == -EPROTO);
			check(ipc_http_strerror(&p)[0] != '\0');
			/* A failed parser stays failed. */
			check(ipc_http_feed(&p, "x", 1, &done) == r);
			return;
		}
		check((size_t)r <= n);
		check(r > 0 || (p.msg.head_done && p.msg.expect_continue));
		off += (size_t)r;
		if (!done)
			continue;
		check(p.msg.head_done);
		check(p.msg.body_bytes <= p.msg.wire_bytes);
		if (p.msg.has_length && !p.msg.chunked)
			check(p.msg.body_bytes == p.msg.length ||
			      (head && !request) || p.msg.status == 204 ||
			      p.msg.status == 304);
		if (!request)
			check(p.msg.status >= 200 && p.msg.status <= 999);
	}
	if (!request) {
		int e = ipc_http_eof(&p);

		check(e == 0 || e == 1 || e == -EPIPE);
	}
}

static void url(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1), why[256];
	struct ipc_http_url u;

	memcpy(s, data, len);
	s[len] = '\0';
	if (ipc_http_url_parse(s, &u, why, sizeof(why)) == 0) {
		check(u.host[0] && u.port[0] && u.path[0]);
		check(strlen(u.authority) >= strlen(u.host));
	} else {
		check(why[0] != '\0');
	}
	free(s);
}

static void headers(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1), why[256], buf[4096];
	const char *h[1] = {s};
	struct ipc_http_req_spec sp = {.method = "POST",
				       .host = "h",
				       .path = "/",
				       .headers = h,
				       .nheaders = 1,
				       .body_bytes = 3};
	ssize_t n;

	memcpy(s, data, len);
	s[len] = '\0';
	n = ipc_http_req_head(buf, sizeof(buf), &sp, why, sizeof(why));
	if (n > 0) {
		struct ipc_http_parser p;
		bool done = false;
		size_t off = 0;
		ssize_t r;

		/*
		 * A head that was built must parse back as one request.  A
		 * user's "Expect: 100-continue" stops the feed after the head
		 * (the server answers 100 first); the next feed goes on.
		 */
		check(ipc_http_header_check(s, why, sizeof(why)) == 0);
		memcpy(buf + n, "abc", 3);
		ipc_http_parser_init(&p, true);
		for (int k = 0; k < 2 && !done; k++) {
			r = ipc_http_feed(&p, buf + off, (size_t)n + 3 - off,
					  &done);
			check(r >= 0);
			check(k == 0 || p.msg.expect_continue);
			off += (size_t)r;
		}
		check(off == (size_t)n + 3 && done && p.msg.body_bytes == 3);
	} else {
		check(n == -EINVAL || n == -ENOSPC);
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint8_t mode;

	if (!len)
		return 0;
	mode = data[0];
	data++;
	len--;
	switch (mode & 3) {
	case 0:
	case 1:
		messages(data, len, mode & 1, mode & 4,
			 (size_t)1 << ((mode >> 3) % 17));
		break;
	case 2:
		url(data, len);
		break;
	default:
		headers(data, len);
		break;
	}
	return 0;
}

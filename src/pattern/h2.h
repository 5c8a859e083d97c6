/* SPDX-License-Identifier: MIT */
/*
 * The client side of one HTTP/2 connection, over nghttp2's session, for
 * http --http2.  The bytes move through memory, as TLS's do (tls.h): what
 * the network brought goes in with h2_feed, what is to be sent comes out
 * with h2_take, so that any engine moves them.  Each stream's end is told
 * to the caller's h2_end_fn, from inside h2_feed.  Private to the pattern
 * layer.
 */
#ifndef IPCPERF_PATTERN_H2_H
#define IPCPERF_PATTERN_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

/* @nv names @name and @value, which outlive it (nghttp2 copies neither). */
void h2_nv_set(nghttp2_nv *nv, const char *name, const char *value);

/* How a stream ended. */
enum h2_end {
	H2_OK,	   /* a whole response */
	H2_RESET,  /* the server reset the stream (RST_STREAM) */
	H2_GOAWAY, /* the server sent GOAWAY before the response was whole */
	H2_BROKEN, /* the server broke HTTP/2: a frame too large, a flood,
		      bytes that are not HTTP/2; the connection is over */
};

struct h2_res {
	enum h2_end end;
	unsigned status; /* :status, 0 if none came */
	uint64_t body;	 /* DATA bytes of the response */
};

typedef void (*h2_end_fn)(void *arg, const struct h2_res *r);

/* What every stream of the run asks; built once (h2_req_new). */
struct h2_req;

/*
 * The request of @method, @scheme, @authority and @path, with @headers
 * ("Name: value"; Host replaces :authority, the fields that HTTP/2 does
 * not carry are left out) and a body of @body bytes.  NULL without
 * memory.
 */
struct h2_req *h2_req_new(const char *method, const char *scheme,
			  const char *authority, const char *path,
			  const char *const *headers, size_t nheaders,
			  uint64_t body);
void h2_req_free(struct h2_req *r);

struct h2_conn;

/*
 * A connection that has sent nothing yet: its preface and SETTINGS are
 * the first bytes h2_take gives.  At most @streams requests in flight.
 * NULL without memory.
 */
struct h2_conn *h2_new(const struct h2_req *req, uint32_t streams,
		       h2_end_fn end);
void h2_free(struct h2_conn *h);

/* Open a stream with the request.  0, or -1 (no free slot, nghttp2's). */
int h2_submit(struct h2_conn *h);

/*
 * @len bytes from the server.  Streams that end call @end with @arg.
 * 0, or -1 when the connection is over (h2_why says how).
 */
int h2_feed(struct h2_conn *h, const uint8_t *buf, size_t len, void *arg);

/*
 * Up to @cap bytes to send into @buf: how many (0: none), or -1.  A
 * stream may end here too (one we reset), told to @end with @arg.
 */
long h2_take(struct h2_conn *h, uint8_t *buf, size_t cap, void *arg);

/* Is the connection over (a GOAWAY either way, a broken frame)? */
bool h2_over(const struct h2_conn *h);

/*
 * Why what is still in flight cannot end, when the connection is over or
 * closed: H2_GOAWAY after the server's GOAWAY, H2_BROKEN after an error
 * of HTTP/2, else H2_OK (it closed without a word).
 */
enum h2_end h2_why(const struct h2_conn *h);

#endif

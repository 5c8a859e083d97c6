/* SPDX-License-Identifier: MIT */
/*
 * The server side of one HTTP/2 connection (h2c, prior knowledge) for the
 * built-in target, over nghttp2's session: every request, whatever it
 * asks, gets the target's page.  Bytes move through memory, as the
 * client's (h2.h): what the connection read goes in with h2s_feed, what
 * is to be written comes out with h2s_out and h2s_sent.  Private to the
 * pattern layer.
 */
#ifndef IPCPERF_PATTERN_H2_SERVE_H
#define IPCPERF_PATTERN_H2_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The client's first 24 bytes on an h2c connection (RFC 9113 3.4). */
#define H2S_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define H2S_PREFACE_LEN 24

/* What every stream is answered with, and the path token to count. */
struct h2s_page {
	const char *body;
	uint64_t len;
	const char *type;  /* its content-type */
	const char *token; /* requests whose :path does not begin
			      "/TOKEN/" are counted as strangers; NULL */
};

/* What a connection answered so far. */
struct h2s_count {
	uint64_t answered;  /* responses sent whole */
	uint64_t strangers; /* ... to requests without the token */
};

struct h2s;

/* A connection whose SETTINGS are the first bytes out.  NULL: memory. */
struct h2s *h2s_new(const struct h2s_page *page);
void h2s_free(struct h2s *h);

/*
 * @len bytes the client sent.  0, or -1 when they broke HTTP/2 (a GOAWAY
 * is then queued: write what h2s_out gives, then close).
 */
int h2s_feed(struct h2s *h, const uint8_t *buf, size_t len);

/*
 * The bytes to write next (*@p, valid until the next call), or 0 when
 * there are none; -1 when the session failed.  h2s_sent says how many
 * were written.
 */
long h2s_out(struct h2s *h, const uint8_t **p);
void h2s_sent(struct h2s *h, size_t n);

/* Does the session still read (no GOAWAY either way yet)? */
bool h2s_wants_read(const struct h2s *h);

/* Is it over: nothing to read, nothing left to write? */
bool h2s_over(const struct h2s *h);

/* Has it bytes to write now? */
bool h2s_wants_write(const struct h2s *h);

/* Has it a request open or bytes to write (not idle)? */
bool h2s_busy(const struct h2s *h);

const struct h2s_count *h2s_count(const struct h2s *h);

#endif

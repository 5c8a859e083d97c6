/* SPDX-License-Identifier: MIT */
/*
 * A misbehaving HTTP/2 server (h2c, prior knowledge) for the tests: it
 * answers well, except that every Nth request (over all connections)
 * gets the misbehaviour named, so that a client's failure counts can be
 * checked against a known number.  Frames are written by hand, so that
 * each misbehaviour is exactly the bytes named.
 *
 *   h2_bad MODE [N]      (N: 1 = every request; default 1)
 *
 *   ok        always a good answer (:status 200, a 1000-byte body)
 *   goaway    HEADERS, half the body, GOAWAY, then close
 *   reset     HEADERS, half the body, RST_STREAM; the connection goes on
 *   settings  a flood of SETTINGS frames (a megabyte), never answered
 *   bighead   a HEADERS frame of 20000 bytes (the limit is 16384)
 *   http1     not HTTP/2 at all: an HTTP/1.1 400 to the preface, close
 *
 * It listens on 127.0.0.1, port 0, prints "port P" on a line of its own,
 * and exits after 120 s at most (or when killed).  One thread per
 * connection.
 */
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "listen.h"

#define BODY 1000
#define PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

enum { DATA = 0, HEADERS = 1, RST = 3, SETTINGS = 4, GOAWAY = 7, WINDOW = 8 };
enum { END_STREAM = 1, ACK = 1, END_HEADERS = 4 };

static const char *mode;
static unsigned long every = 1;
static atomic_ulong requests;
static char body[BODY];
static uint8_t flood[120000 * 9]; /* SETTINGS headers, set up by main */

static int put(int fd, const void *buf, size_t len)
{
	return test_server_put(fd, buf, len);
}

static int get(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A frame's 9-byte header, then @len bytes of @payload (NULL: none yet). */
static int frame(int fd, uint32_t len, uint8_t type, uint8_t flags, uint32_t id,
		 const void *payload)
{
	uint8_t h[9] = {(uint8_t)(len >> 16),
			(uint8_t)(len >> 8),
			(uint8_t)len,
			type,
			flags,
			(uint8_t)(id >> 24),
			(uint8_t)(id >> 16),
			(uint8_t)(id >> 8),
			(uint8_t)id};

	if (put(fd, h, sizeof(h)))
		return -1;
	return payload && len ? put(fd, payload, len) : 0;
}

/* An error code (or a last stream and an error code) as 4 or 8 bytes. */
static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Answer request number @k on stream @id.  1: go on, 0: close, -1: failed. */
static int answer(int fd, uint32_t id, unsigned long k)
{
	static const uint8_t status200 = 0x88; /* HPACK: ":status: 200" */
	uint8_t code[8];

	if (k % every || !strcmp(mode, "ok"))
		return frame(fd, 1, HEADERS, END_HEADERS, id, &status200) ||
				       frame(fd, BODY, DATA, END_STREAM, id,
					     body)
			       ? -1
			       : 1;
	if (!strcmp(mode, "settings")) {
		/*
		 * Empty SETTINGS, each to be acknowledged: 9 bytes apiece,
		 * written at once, so that each read a client makes holds
		 * thousands.  Written one by one, a client that keeps up
		 * reads a few at a time, acknowledges them as they come
		 * and sees no flood: the request then only times out.
		 */
		return put(fd, flood, sizeof(flood)) ? -1 : 1;
	}
	if (!strcmp(mode, "bighead")) {
		static char big[20000];

		memset(big, 0x40, sizeof(big));
		return frame(fd, sizeof(big), HEADERS, END_HEADERS, id, big)
			       ? -1
			       : 1;
	}
	if (frame(fd, 1, HEADERS, END_HEADERS, id, &status200) ||
	    frame(fd, BODY / 2, DATA, 0, id, body))
		return -1;
	if (!strcmp(mode, "reset")) {
		be32(code, 2); /* INTERNAL_ERROR */
		return frame(fd, 4, RST, 0, id, code) ? -1 : 1;
	}
	be32(code, id);	   /* the last stream it would finish: this one */
	be32(code + 4, 0); /* NO_ERROR */
	frame(fd, 8, GOAWAY, 0, 0, code);
	return 0;
}

/* Read frames: SETTINGS acknowledged, a request's end answered. */
static void serve(int fd)
{
	static const char h1[] =
		"HTTP/1.1 400 Bad Request\r\n"
		"Content-Length: 0\r\nConnection: close\r\n\r\n";
	char pre[sizeof(PREFACE) - 1];
	uint8_t pay[1 << 16];
	int go = 1;

	if (get(fd, pre, sizeof(pre)))
		return;
	if (!strcmp(mode, "http1")) {
		put(fd, h1, sizeof(h1) - 1);
		return;
	}
	if (memcmp(pre, PREFACE, sizeof(pre)) ||
	    frame(fd, 0, SETTINGS, 0, 0, NULL))
		return;
	while (go > 0) {
		uint8_t h[9];
		uint32_t len, id;

		if (get(fd, h, sizeof(h)))
			return;
		len = (uint32_t)h[0] << 16 | (uint32_t)h[1] << 8 | h[2];
		id = ((uint32_t)h[5] << 24 | (uint32_t)h[6] << 16 |
		      (uint32_t)h[7] << 8 | h[8]) &
		     0x7fffffffu;
		/* Payloads are read and dropped; none is above 64 KB here. */
		if (len > sizeof(pay) || get(fd, pay, len))
			return;
		/* The connection's window given back: request bodies go on. */
		be32(pay, len);
		if (h[3] == DATA && len && frame(fd, 4, WINDOW, 0, 0, pay))
			return;
		if (h[3] == SETTINGS && !(h[4] & ACK))
			go = frame(fd, 0, SETTINGS, ACK, 0, NULL) ? -1 : 1;
		else if ((h[3] == HEADERS || h[3] == DATA) &&
			 (h[4] & END_STREAM))
			go = answer(fd, id, ++requests);
	}
}

/*
 * Close after the client has seen every byte: what it sent and nobody
 * read would turn the close into a reset, which could arrive first.
 */
static void *conn(void *p)
{
	int fd = (int)(intptr_t)p;
	struct timeval tv = {.tv_sec = 2};
	char sink[4096];

	serve(fd);
	shutdown(fd, SHUT_WR);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (recv(fd, sink, sizeof(sink), 0) > 0)
		;
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	int lfd;

	if (argc < 2) {
		fprintf(stderr, "usage: h2_bad MODE [N]\n");
		return 2;
	}
	mode = argv[1];
	if (argc > 2)
		every = strtoul(argv[2], NULL, 10);
	if (!every)
		every = 1;
	memset(body, 'x', sizeof(body));
	for (size_t i = 0; i < sizeof(flood); i += 9)
		flood[i + 3] = SETTINGS;
	lfd = test_server_listen("h2_bad");
	if (lfd < 0)
		return 1;
	return test_server_run(lfd, conn);
}

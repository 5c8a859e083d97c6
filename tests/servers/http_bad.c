/* SPDX-License-Identifier: MIT */
/*
 * A misbehaving HTTP server for the tests: it answers well, except that
 * every Nth request (counted over all connections) gets the misbehaviour
 * the command line names, so that a client's failure counts can be
 * checked against a known number.
 *
 *   http_bad MODE [N]      (N: 1 = every request; default 1)
 *
 *   ok            always a good answer (a 1000-byte body)
 *   status=CODE   answer CODE with a 5-byte body
 *   interim       a 100 Continue before the answer
 *   close         the answer says Connection: close, then the server closes
 *   cut           Content-Length 1000, 500 bytes, then close (mid-body)
 *   long          Content-Length 10, 20 bytes sent (a lying length)
 *   garbage       bytes that are not HTTP, then close
 *   reset         no answer: the connection is reset
 *   silent        no answer: the connection is closed
 *   hang          no answer: the connection stays open until the client
 *                 closes it
 *   stall=MS      the whole server stops MS milliseconds, then answers
 *   http10        HTTP/1.0, no length: the body ends at the close
 *   chunked       chunked with extensions and trailers
 *   bigheader     a header line of 1 MB
 *   bigbody       a body of 100 MB
 *
 * It listens on 127.0.0.1, port 0, prints "port P" on a line of its own,
 * and exits after 120 s at most (or when killed).  One thread per
 * connection; a stall holds a lock every answer takes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"
#include "listen.h"

#define BODY 1000

static const char *mode;
static long arg;
static unsigned long every = 1;
static atomic_ulong requests;
static pthread_mutex_t world = PTHREAD_MUTEX_INITIALIZER;
static char body[BODY];

static int put(int fd, const void *buf, size_t len)
{
	return test_server_put(fd, buf, len);
}

static int say(int fd, const char *text)
{
	return put(fd, text, strlen(text));
}

static int good(int fd, bool close_after)
{
	char head[160];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n",
			 BODY, close_after ? "Connection: close\r\n" : "");

	return put(fd, head, (size_t)n) || put(fd, body, BODY) ? -1 : 0;
}

static int big(int fd, bool header)
{
	static char chunk[1 << 16];
	char head[128];
	uint64_t total = header ? 1u << 20 : 100u << 20, sent = 0;
	int n;

	memset(chunk, 'a', sizeof(chunk));
	if (header)
		n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nX-Big: ");
	else
		n = snprintf(head, sizeof(head),
			     "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n\r\n",
			     (unsigned long long)total);
	if (put(fd, head, (size_t)n))
		return -1;
	while (sent < total) {
		size_t k = total - sent < sizeof(chunk) ? total - sent
							: sizeof(chunk);

		if (put(fd, chunk, k))
			return -1;
		sent += k;
	}
	if (header)
		return say(fd, "\r\nContent-Length: 0\r\n\r\n");
	return 0;
}

/*
 * Answer request number @k on @fd.  1: go on, 0: the connection is to be
 * closed, -1: it failed.
 */
static int answer(int fd, unsigned long k)
{
	bool bad = k % every == 0;
	char buf[256];
	int n;

	if (!strcmp(mode, "stall") && bad) {
		struct timespec ts = {arg / 1000, (arg % 1000) * 1000000};

		pthread_mutex_lock(&world);
		nanosleep(&ts, NULL);
		pthread_mutex_unlock(&world);
	} else {
		pthread_mutex_lock(&world);
		pthread_mutex_unlock(&world);
	}
	if (!bad || !strcmp(mode, "ok") || !strcmp(mode, "stall"))
		return good(fd, false) ? -1 : 1;
	if (!strcmp(mode, "status")) {
		n = snprintf(buf, sizeof(buf),
			     "HTTP/1.1 %ld Whatever\r\nContent-Length: 5\r\n"
			     "\r\nerror",
			     arg);
		return put(fd, buf, (size_t)n) ? -1 : 1;
	}
	if (!strcmp(mode, "interim"))
		return say(fd, "HTTP/1.1 100 Continue\r\n\r\n") ||
				       good(fd, false)
			       ? -1
			       : 1;
	if (!strcmp(mode, "close"))
		return good(fd, true) ? -1 : 0;
	if (!strcmp(mode, "cut")) {
		n = snprintf(buf, sizeof(buf),
			     "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n",
			     BODY);
		put(fd, buf, (size_t)n);
		put(fd, body, BODY / 2);
		return 0;
	}
	if (!strcmp(mode, "long"))
		return say(fd, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
			       "0123456789ABCDEFGHIJ")
			       ? -1
			       : 1;
	if (!strcmp(mode, "garbage")) {
		say(fd, "NOT HTTP AT ALL\r\n\r\n");
		return 0;
	}
	if (!strcmp(mode, "reset")) {
		struct linger l = {1, 0};

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		return 0;
	}
	if (!strcmp(mode, "silent"))
		return 0;
	if (!strcmp(mode, "hang")) {
		while (recv(fd, buf, sizeof(buf), 0) > 0)
			; /* until the client gives up and closes */
		return 0;
	}
	if (!strcmp(mode, "http10")) {
		say(fd, "HTTP/1.0 200 OK\r\n\r\n");
		put(fd, body, BODY);
		return 0;
	}
	if (!strcmp(mode, "chunked"))
		return say(fd,
			   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
			   "\r\n5;ext=1\r\nhello\r\n6;a=\"b\"\r\n world\r\n"
			   "0\r\nX-Trailer: yes\r\n\r\n")
			       ? -1
			       : 1;
	if (!strcmp(mode, "bigheader")) {
		big(fd, true);
		return 0;
	}
	if (!strcmp(mode, "bigbody"))
		return big(fd, false) ? -1 : 1;
	return -1;
}

static void *conn(void *p)
{
	int fd = (int)(intptr_t)p, go = 1;
	struct ipc_http_parser rx;
	char buf[16384];
	size_t len = 0, off = 0;

	ipc_http_parser_init(&rx, true);
	while (go > 0) {
		bool done = false;
		ssize_t n;

		if (off == len) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			len = (size_t)n;
			off = 0;
		}
		n = ipc_http_feed(&rx, buf + off, len - off, &done);
		if (n < 0)
			break;
		off += (size_t)n;
		if (done)
			go = answer(fd, ++requests);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	char *eq;
	int lfd;

	if (argc < 2) {
		fprintf(stderr, "usage: http_bad MODE [N]\n");
		return 2;
	}
	mode = argv[1];
	eq = strchr(argv[1], '=');
	if (eq) {
		*eq = '\0';
		arg = atol(eq + 1);
	}
	if (argc > 2)
		every = strtoul(argv[2], NULL, 10);
	if (!every)
		every = 1;
	memset(body, 'x', sizeof(body));
	lfd = test_server_listen("http_bad");
	if (lfd < 0)
		return 1;
	return test_server_run(lfd, conn);
}

/* SPDX-License-Identifier: MIT */
/*
 * A misbehaving HTTPS server for the tests: it answers well over TLS,
 * except that every Nth request (over all connections) gets the
 * misbehaviour named, so that a client's failure counts can be checked
 * against a known number.
 *
 *   tls_bad CERT KEY MODE [N]      (N: 1 = every request; default 1)
 *
 *   ok       always a good answer (a 1000-byte body)
 *   alert    half the body, then a fatal alert record written to the
 *            socket in the clear, as a broken TLS stack might, then close
 *   notify   half the body, then close_notify and close (the body is cut
 *            by a proper TLS close)
 *   garbage  half the body, then bytes that are not TLS records
 *
 * It listens on 127.0.0.1, port 0, prints "port P" on a line of its own,
 * and exits after 120 s at most (or when killed).  One thread per
 * connection.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"
#include "listen.h"

#define BODY 1000

static const char *mode;
static unsigned long every = 1;
static atomic_ulong requests;
static SSL_CTX *ctx;
static char body[BODY];

static int put(SSL *ssl, const void *buf, size_t len)
{
	size_t n;

	return SSL_write_ex(ssl, buf, len, &n) && n == len ? 0 : -1;
}

/* Answer request number @k.  1: go on, 0: close, -1: it failed. */
static int answer(SSL *ssl, int fd, unsigned long k)
{
	/* A fatal handshake_failure alert, TLS 1.2's record layer. */
	static const unsigned char alert[] = {0x15, 0x03, 0x03, 0x00,
					      0x02, 0x02, 0x28};
	char head[128];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", BODY);

	if (k % every || !strcmp(mode, "ok"))
		return put(ssl, head, (size_t)n) || put(ssl, body, BODY) ? -1
									 : 1;
	if (put(ssl, head, (size_t)n) || put(ssl, body, BODY / 2))
		return -1;
	if (!strcmp(mode, "alert")) {
		if (send(fd, alert, sizeof(alert), MSG_NOSIGNAL) < 0)
			return -1;
	} else if (!strcmp(mode, "notify")) {
		SSL_shutdown(ssl);
	} else if (send(fd, "NOT TLS AT ALL\r\n", 16, MSG_NOSIGNAL) < 0) {
		return -1;
	}
	return 0;
}

static void *conn(void *p)
{
	int fd = (int)(intptr_t)p, go = 1;
	SSL *ssl = SSL_new(ctx);
	struct ipc_http_parser rx;
	char buf[16384];
	size_t len = 0, off = 0;

	if (!ssl || !SSL_set_fd(ssl, fd) || SSL_accept(ssl) != 1)
		go = 0;
	ipc_http_parser_init(&rx, true);
	while (go > 0) {
		bool done = false;
		ssize_t n;

		if (off == len) {
			if (!SSL_read_ex(ssl, buf, sizeof(buf), &len))
				break;
			off = 0;
		}
		n = ipc_http_feed(&rx, buf + off, len - off, &done);
		if (n < 0)
			break;
		off += (size_t)n;
		if (done)
			go = answer(ssl, fd, ++requests);
	}
	SSL_free(ssl);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	int lfd;

	if (argc < 4) {
		fprintf(stderr, "usage: tls_bad CERT KEY MODE [N]\n");
		return 2;
	}
	mode = argv[3];
	if (argc > 4)
		every = strtoul(argv[4], NULL, 10);
	if (!every)
		every = 1;
	memset(body, 'x', sizeof(body));
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx || !SSL_CTX_use_certificate_chain_file(ctx, argv[1]) ||
	    !SSL_CTX_use_PrivateKey_file(ctx, argv[2], SSL_FILETYPE_PEM)) {
		fprintf(stderr, "tls_bad: cannot use %s and %s\n", argv[1],
			argv[2]);
		return 1;
	}
	lfd = test_server_listen("tls_bad");
	if (lfd < 0)
		return 1;
	return test_server_run(lfd, conn);
}

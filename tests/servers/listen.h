/* SPDX-License-Identifier: MIT */
/*
 * What every misbehaving test server starts with: a tcp socket on a free
 * loopback port, its number printed for the test that reads it, an
 * alarm so that a server a test forgot ends by itself, and SIGPIPE
 * ignored (OpenSSL writes with write(2): a client that closed while
 * another connection's thread wrote would kill them all); then its loop,
 * a thread per connection, and the write they all answer with.
 */
#ifndef IPCPERF_TESTS_SERVERS_LISTEN_H
#define IPCPERF_TESTS_SERVERS_LISTEN_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

/* The listening socket, or -1 after perror naming @who. */
static inline int test_server_listen(const char *who)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	const int one = 1;
	int lfd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1024) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		fprintf(stderr, "%s: ", who);
		perror("listen");
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	alarm(120);
	return lfd;
}

/* Write all of @buf to @fd: 0, or -1 when the client went away. */
static inline int test_server_put(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Accept on @lfd for ever, each connection (its descriptor as the
 * argument) in a thread of its own running @conn.  Returns 1 when accept
 * fails for another reason than a signal.
 */
static inline int test_server_run(int lfd, void *(*conn)(void *))
{
	const int one = 1;

	for (;;) {
		pthread_t t;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		/* Heads and bodies go in separate writes: no Nagle wait. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&t, NULL, conn, (void *)(intptr_t)fd)) {
			close(fd);
			continue;
		}
		pthread_detach(t);
	}
}

#endif

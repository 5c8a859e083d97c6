/* SPDX-License-Identifier: MIT */
/*
 * What every misbehaving test server starts with: a tcp socket on a free
 * loopback port, its number printed for the test that reads it, and an
 * alarm so that a server a test forgot ends by itself.
 */
#ifndef IPCPERF_TESTS_SERVERS_LISTEN_H
#define IPCPERF_TESTS_SERVERS_LISTEN_H

#include <arpa/inet.h>
#include <netinet/in.h>
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
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	alarm(120);
	return lfd;
}

#endif

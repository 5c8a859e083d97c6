/* SPDX-License-Identifier: MIT */
/*
 * The reference for ipcperf's overhead: the plainest ping-pong loop there
 * is, one blocking send and one blocking receive per direction, a
 * timestamp on each side of the round trip, nothing else.  It prints the
 * median round trip so bench/run can set ipcperf's next to it.
 *
 *   pingpong pipe|fifo|unix|tcp|udp ITERATIONS WARMUP [CLIENT_CPU SERVER_CPU]
 *
 * It makes the system calls ipcperf makes (read and write on pipes and
 * FIFOs, send and recv on sockets) and, given two CPUs, pins its sides
 * the way `ipcperf --pin C,S` does: the client before the fork, the
 * server in the child.  Otherwise a ratio against ipcperf would measure a
 * difference of set-up (one CPU or two, write or send), not ipcperf.
 *
 * With PINGPONG_WHERE set in the environment each side also says on
 * stderr which CPU it was on when its loop began and ended ("client 0 1",
 * "server 1 1"), as ipcperf records it for each run, so that where the
 * scheduler put the bare loop can be set beside where it put ipcperf's.
 *
 * Like ipcperf (--pm-qos, docs/methodology.md "Idle states") it holds a
 * CPU latency request of 0 us on /dev/cpu_dma_latency while it runs, where
 * it may (root), so that the idle CPUs of both are kept alike:
 * PINGPONG_PM_QOS=US asks for another bound, PINGPONG_PM_QOS=off for none.
 * PINGPONG_WHERE also says on stderr whether it was held ("pm_qos 0",
 * "pm_qos off", "pm_qos not held: ...").
 *
 * PINGPONG_WAIT=poll makes the descriptors non-blocking and waits as
 * ipcperf's poll engine does: poll(2) for POLLIN, then the receive; a
 * send is tried at once and polls for POLLOUT only when it would block.
 *
 * PINGPONG_RUNS=N makes N runs of ITERATIONS round trips, each after its
 * own WARMUP, and prints one line per run on stdout instead of the
 * median: "P50_NS CLIENT_FIRST CLIENT_LAST SERVER_FIRST SERVER_LAST",
 * the CPUs each side was on when the run's measured part began and
 * ended.  With PINGPONG_FORK=run each run makes a fresh pair and forks a
 * fresh server, as ipcperf does; by default (once) one pair and one
 * server serve every run.  That tells whether the fork per run is what
 * moves an unpinned pair between one CPU and two.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int sock; /* the descriptors are sockets: send and recv */

/*
 * Hold the CPU latency request of PINGPONG_PM_QOS (0 by default) for as
 * long as the process lives: the descriptor is never closed, the kernel
 * withdraws the request at exit.
 */
static void pm_qos_hold(void)
{
	const char *e = getenv("PINGPONG_PM_QOS");
	int32_t us = e && *e ? (int32_t)atol(e) : 0;
	int fd;

	if (e && !strcmp(e, "off")) {
		if (getenv("PINGPONG_WHERE"))
			fprintf(stderr, "pm_qos off\n");
		return;
	}
	fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
	if (fd < 0 || write(fd, &us, sizeof(us)) != (ssize_t)sizeof(us)) {
		if (getenv("PINGPONG_WHERE"))
			fprintf(stderr, "pm_qos not held: %s\n",
				strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (getenv("PINGPONG_WHERE"))
		fprintf(stderr, "pm_qos %d\n", (int)us);
}

/* PINGPONG_WHERE: "SIDE FIRST_CPU LAST_CPU" on stderr. */
static void where(const char *side, int first)
{
	if (getenv("PINGPONG_WHERE"))
		fprintf(stderr, "%s %d %d\n", side, first, sched_getcpu());
}

static bool polling; /* PINGPONG_WAIT=poll: non-blocking, poll first */

/* Wait until @fd is ready for @events (PINGPONG_WAIT=poll). */
static void wait_for(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			die("poll");
}

static ssize_t put(int fd, const char *b)
{
	ssize_t n;

	for (;;) {
		n = sock ? send(fd, b, 1, MSG_NOSIGNAL) : write(fd, b, 1);
		if (n >= 0 || !polling || errno != EAGAIN)
			return n;
		wait_for(fd, POLLOUT);
	}
}

static ssize_t get(int fd, char *b)
{
	ssize_t n;

	for (;;) {
		if (polling)
			wait_for(fd, POLLIN);
		n = sock ? recv(fd, b, 1, 0) : read(fd, b, 1);
		if (n >= 0 || !polling || errno != EAGAIN)
			return n;
	}
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl");
}

/* Two connected descriptor pairs: cfd/sfd read and write each way. */
static void make_pair(const char *kind, int c[2], int s[2])
{
	int one = 1, ls;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!strcmp(kind, "pipe")) {
		int p1[2], p2[2];

		if (pipe(p1) || pipe(p2))
			die("pipe");
		c[0] = p2[0], c[1] = p1[1]; /* client reads p2, writes p1 */
		s[0] = p1[0], s[1] = p2[1];
	} else if (!strcmp(kind, "fifo")) {
		char fa[64], fb[64];

		/* Opened read-write so that no open waits for the other end. */
		snprintf(fa, sizeof(fa), "/tmp/pingpong.%d.a", (int)getpid());
		snprintf(fb, sizeof(fb), "/tmp/pingpong.%d.b", (int)getpid());
		if (mkfifo(fa, 0600) || mkfifo(fb, 0600))
			die("mkfifo");
		c[1] = open(fa, O_RDWR); /* client writes fa, reads fb */
		c[0] = open(fb, O_RDWR);
		s[0] = open(fa, O_RDWR);
		s[1] = open(fb, O_RDWR);
		unlink(fa);
		unlink(fb);
		if (c[0] < 0 || c[1] < 0 || s[0] < 0 || s[1] < 0)
			die("open fifo");
	} else if (!strcmp(kind, "unix")) {
		struct sockaddr_un u = {.sun_family = AF_UNIX};

		snprintf(u.sun_path, sizeof(u.sun_path), "/tmp/pingpong.%d",
			 (int)getpid());
		ls = socket(AF_UNIX, SOCK_STREAM, 0);
		if (ls < 0 || bind(ls, (void *)&u, sizeof(u)) || listen(ls, 1))
			die("unix listen");
		c[0] = c[1] = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(c[0], (void *)&u, sizeof(u)))
			die("unix connect");
		s[0] = s[1] = accept(ls, NULL, NULL);
		if (s[0] < 0)
			die("unix accept");
		close(ls);
		unlink(u.sun_path);
	} else if (!strcmp(kind, "tcp")) {
		ls = socket(AF_INET, SOCK_STREAM, 0);
		if (ls < 0 || bind(ls, (void *)&a, sizeof(a)) ||
		    listen(ls, 1) || getsockname(ls, (void *)&a, &alen))
			die("tcp listen");
		c[0] = c[1] = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c[0], (void *)&a, sizeof(a)))
			die("connect");
		s[0] = s[1] = accept(ls, NULL, NULL);
		if (s[0] < 0)
			die("accept");
		close(ls);
		setsockopt(c[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(s[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	} else if (!strcmp(kind, "udp")) {
		struct sockaddr_in b = a;
		socklen_t blen = sizeof(b);

		c[0] = c[1] = socket(AF_INET, SOCK_DGRAM, 0);
		s[0] = s[1] = socket(AF_INET, SOCK_DGRAM, 0);
		if (bind(c[0], (void *)&a, sizeof(a)) ||
		    bind(s[0], (void *)&b, sizeof(b)) ||
		    getsockname(c[0], (void *)&a, &alen) ||
		    getsockname(s[0], (void *)&b, &blen) ||
		    connect(c[0], (void *)&b, sizeof(b)) ||
		    connect(s[0], (void *)&a, sizeof(a)))
			die("udp");
	} else {
		fprintf(stderr, "pingpong: unknown transport '%s'\n", kind);
		exit(2);
	}
}

/* Where the sides were in one run: CPUs at the start and end of it. */
struct where_run {
	int client_first, client_last, server_first, server_last;
};

/*
 * The server: @runs runs of @warm + @n round trips on @s, noting its CPU
 * as each run's measured part begins and ends (into @w, shared with the
 * client; NULL: not noted).
 */
static void serve(int s[2], long runs, long n, long warm, struct where_run *w)
{
	char b = 'x';

	for (long r = 0; r < runs; r++) {
		for (long i = 0; i < warm; i++)
			if (get(s[0], &b) != 1 || put(s[1], &b) != 1)
				_exit(1);
		if (w)
			w[r].server_first = sched_getcpu();
		for (long i = 0; i < n; i++)
			if (get(s[0], &b) != 1 || put(s[1], &b) != 1)
				_exit(1);
		if (w)
			w[r].server_last = sched_getcpu();
	}
}

/* The client's run: @warm round trips, then @n timed into @rtt. */
static void client_run(int c[2], long n, long warm, uint64_t *rtt,
		       struct where_run *w)
{
	char b = 'x';
	uint64_t t0;

	for (long i = 0; i < warm; i++)
		if (put(c[1], &b) != 1 || get(c[0], &b) != 1)
			die("warm-up");
	if (w)
		w->client_first = sched_getcpu();
	for (long i = 0; i < n; i++) {
		t0 = now_ns();
		if (put(c[1], &b) != 1 || get(c[0], &b) != 1)
			die("round trip");
		rtt[i] = now_ns() - t0;
	}
	if (w)
		w->client_last = sched_getcpu();
}

/* A fresh pair (non-blocking under PINGPONG_WAIT=poll) and its server. */
static pid_t start(const char *kind, int c[2], int s[2], long cpu, long runs,
		   long n, long warm, struct where_run *w)
{
	pid_t pid;

	make_pair(kind, c, s);
	if (polling) {
		set_nonblock(c[0]);
		set_nonblock(c[1]);
		set_nonblock(s[0]);
		set_nonblock(s[1]);
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int first;

		pin(cpu);
		first = sched_getcpu();
		serve(s, runs, n, warm, w);
		where("server", first);
		_exit(0);
	}
	return pid;
}

static void close_pair(int c[2], int s[2])
{
	close(c[0]);
	if (c[1] != c[0])
		close(c[1]);
	close(s[0]);
	if (s[1] != s[0])
		close(s[1]);
}

static uint64_t median_of(uint64_t *rtt, long n)
{
	qsort(rtt, (size_t)n, sizeof(*rtt), cmp);
	return rtt[(n + 1) / 2 - 1];
}

int main(int argc, char **argv)
{
	int c[2], s[2];
	long n, warm, ccpu = -1, scpu = -1, runs = 1;
	const char *e;
	bool per_run = false;
	struct where_run *w = NULL;
	uint64_t *rtt;
	int first;
	pid_t pid;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: pingpong pipe|fifo|unix|tcp|udp N "
				"WARMUP [CLIENT_CPU SERVER_CPU]\n");
		return 2;
	}
	n = atol(argv[2]);
	warm = atol(argv[3]);
	if (argc == 6) {
		ccpu = atol(argv[4]);
		scpu = atol(argv[5]);
	}
	e = getenv("PINGPONG_WAIT");
	polling = e && !strcmp(e, "poll");
	e = getenv("PINGPONG_RUNS");
	if (e && *e)
		runs = atol(e);
	e = getenv("PINGPONG_FORK");
	per_run = e && !strcmp(e, "run");
	rtt = malloc(sizeof(*rtt) * (size_t)n);
	if (n <= 0 || warm < 0 || runs <= 0 || !rtt)
		return 2;
	memset(rtt, 0, sizeof(*rtt) * (size_t)n); /* no fault while timing */
	if (getenv("PINGPONG_RUNS")) {
		w = mmap(NULL, sizeof(*w) * (size_t)runs,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			 0);
		if (w == MAP_FAILED)
			die("mmap");
	}
	sock = strcmp(argv[1], "pipe") && strcmp(argv[1], "fifo");
	pm_qos_hold();
	pin(ccpu);
	first = sched_getcpu();
	pid = start(argv[1], c, s, scpu, per_run ? 1 : runs, n, warm, w);
	for (long r = 0; r < runs; r++) {
		if (per_run && r > 0)
			pid = start(argv[1], c, s, scpu, 1, n, warm, w + r);
		client_run(c, n, warm, rtt, w ? w + r : NULL);
		if (per_run || r == runs - 1) {
			if (r == runs - 1)
				where("client", first);
			waitpid(pid, NULL, 0);
			close_pair(c, s);
		}
		if (!w) {
			printf("%llu\n", (unsigned long long)median_of(rtt, n));
			continue;
		}
		printf("%llu %d %d %d %d\n",
		       (unsigned long long)median_of(rtt, n), w[r].client_first,
		       w[r].client_last, w[r].server_first, w[r].server_last);
	}
	free(rtt);
	return 0;
}

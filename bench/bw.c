/* SPDX-License-Identifier: MIT */
/*
 * The one-CPU reference for `ipcperf stream`: a bare bandwidth loop as
 * lmbench 3's bw_pipe, bw_unix and bw_tcp run one (Debian packages no
 * lmbench, so bench/run cannot run those).  A writer process writes
 * SIZE-byte buffers; a reader reads up to SIZE bytes per read() and counts
 * what arrives, nothing else.  Prints the median bytes per second of 9
 * trials of about 0.2 s each, after 0.3 s of warm-up.
 *
 *   bw pipe|unix|tcp SIZE WRITER_CPU READER_CPU [OPTION...]
 *
 * What each does, as lmbench does it (docs/methodology.md "One CPU: the
 * bare loop"):
 *   pipe  pipe(2) at its default size; the writer writes without pause; the
 *         reader's buffer is 128 bytes past a page boundary.
 *   unix  socketpair(AF_UNIX, SOCK_STREAM); the reader asks for each 10 MiB
 *         over a control pipe, and the writer writes it in SIZE writes.
 *   tcp   loopback; SO_SNDBUF 1 MiB on the writer's socket, SO_RCVBUF and
 *         SO_SNDBUF 1 MiB on the reader's (lmbench's SOCKBUF), set before
 *         listen and connect; Nagle left on; the writer writes without
 *         pause.
 * Options, to take one difference at a time:
 *   sockbuf=BYTES  tcp's buffers above at BYTES (0: left to the kernel)
 *   nodelay        TCP_NODELAY on both (as ipcperf by default, iperf3 -N)
 *   rpoll, wpoll   the reader (writer) is non-blocking and waits in poll(2)
 *                  before each read (after a full write), as an event loop
 *                  (iperf3, `ipcperf -e poll`) does; otherwise both block in
 *                  read and write, as lmbench and `ipcperf -e blocking` do.
 *   msgs           each read asks for what is left of the current SIZE-byte
 *                  message only, as ipcperf's stream server does.
 *   shift          write k starts 256 * (k mod 251) bytes into a buffer of
 *                  SIZE + 62.5 KiB, as ipcperf's stream client's do.
 * The CPUs are pinned as `ipcperf --pin WRITER,READER` pins its client and
 * server; a CPU of -1 leaves that side to the scheduler.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define TRIALS 9
#define TRIAL_NS 200000000ull
#define WARM_NS 300000000ull
#define CHUNK_BYTES (10u << 20) /* lmbench's bytes per iteration */
#define LMBENCH_SOCKBUF (1 << 20)
#define SHIFT_MAX (250 * 256) /* ipcperf's stream: msg_shift */

struct opts {
	const char *kind;
	size_t size; /* bytes per write and per read at most */
	long wcpu, rcpu;
	int sockbuf; /* bytes; 0 leaves the kernel's */
	bool nodelay;
	bool rpoll, wpoll;
	bool msgs;  /* each read stops at a SIZE-byte message's end */
	bool shift; /* write k starts 256 * (k mod 251) bytes in */
};

struct chan {
	int rfd, wfd; /* the reader's and the writer's descriptors */
	int ctl[2];   /* unix: the reader asks the writer for bytes */
};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void set_int(int fd, int level, int name, int val, const char *what)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)))
		die(what);
}

static void nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl");
}

/* The buffer options of @o on a tcp socket; @reader sets SO_RCVBUF too. */
static void tune(int fd, const struct opts *o, bool reader)
{
	if (o->sockbuf > 0) {
		set_int(fd, SOL_SOCKET, SO_SNDBUF, o->sockbuf, "SO_SNDBUF");
		if (reader)
			set_int(fd, SOL_SOCKET, SO_RCVBUF, o->sockbuf,
				"SO_RCVBUF");
	}
}

static void make_tcp(struct chan *ch, const struct opts *o)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0)
		die("socket");
	tune(ls, o, false); /* lmbench's server: the writer */
	if (bind(ls, (void *)&a, sizeof(a)) || listen(ls, 1) ||
	    getsockname(ls, (void *)&a, &alen))
		die("tcp listen");
	ch->rfd = socket(AF_INET, SOCK_STREAM, 0);
	if (ch->rfd < 0)
		die("socket");
	tune(ch->rfd, o, true);
	if (connect(ch->rfd, (void *)&a, sizeof(a)))
		die("connect");
	ch->wfd = accept(ls, NULL, NULL);
	if (ch->wfd < 0)
		die("accept");
	close(ls);
	tune(ch->wfd, o, false);
	if (o->nodelay) {
		set_int(ch->rfd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
		set_int(ch->wfd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
	}
}

static void make_chan(struct chan *ch, const struct opts *o)
{
	int p[2];

	ch->ctl[0] = ch->ctl[1] = -1;
	if (!strcmp(o->kind, "pipe")) {
		if (pipe(p))
			die("pipe");
		ch->rfd = p[0];
		ch->wfd = p[1];
	} else if (!strcmp(o->kind, "unix")) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) || pipe(ch->ctl))
			die("socketpair");
		ch->rfd = p[0];
		ch->wfd = p[1];
	} else if (!strcmp(o->kind, "tcp")) {
		make_tcp(ch, o);
	} else {
		fprintf(stderr,
			"bw: unknown transport '%s' (pipe, unix, tcp)\n",
			o->kind);
		exit(2);
	}
}

static void wait_fd(int fd, short events)
{
	struct pollfd pfd = {.fd = fd, .events = events};

	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			die("poll");
}

/* Write @len bytes of @buf; false once the reader is gone. */
static bool put(int fd, const char *buf, size_t len, bool use_poll)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EAGAIN && use_poll) {
			wait_fd(fd, POLLOUT);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

static void writer(const struct chan *ch, const struct opts *o)
{
	size_t room = o->size + (o->shift ? SHIFT_MAX : 0);
	char *buf = aligned_alloc(4096, (room + 4095) / 4096 * 4096);
	uint64_t todo, k = 0;

	pin(o->wcpu);
	if (!buf)
		_exit(1);
	memset(buf, 'w', room);
	if (o->wpoll)
		nonblock(ch->wfd);
	for (;;) {
		todo = UINT64_MAX;
		if (ch->ctl[0] >= 0 &&
		    read(ch->ctl[0], &todo, sizeof(todo)) != sizeof(todo))
			_exit(0);
		for (uint64_t done = 0; done < todo; done += o->size, k++)
			if (!put(ch->wfd, buf + (o->shift ? k % 251 * 256 : 0),
				 o->size, o->wpoll))
				_exit(0);
	}
}

/*
 * Read @bytes, asking the writer for them first where it waits to be
 * asked (unix); reads end where the kernel ends them.
 */
static void take(const struct chan *ch, char *buf, const struct opts *o,
		 uint64_t bytes)
{
	uint64_t got = 0;
	size_t want = o->size;
	ssize_t n;

	if (ch->ctl[1] >= 0 &&
	    write(ch->ctl[1], &bytes, sizeof(bytes)) != sizeof(bytes))
		die("control write");
	while (got < bytes) {
		if (o->rpoll)
			wait_fd(ch->rfd, POLLIN);
		if (o->msgs)
			want = o->size - got % o->size;
		n = read(ch->rfd, buf, want);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			die("read");
		got += (uint64_t)n;
	}
}

/* Bytes per second over whole chunks read for at least @ns. */
static double trial(const struct chan *ch, char *buf, const struct opts *o,
		    uint64_t ns)
{
	uint64_t t0 = now_ns(), t1, bytes = 0;
	/* unix asks for exact chunks; pipe and tcp just keep reading */
	uint64_t chunk = CHUNK_BYTES / o->size * o->size;

	if (!chunk)
		chunk = o->size;
	do {
		take(ch, buf, o, chunk);
		bytes += chunk;
		t1 = now_ns();
	} while (t1 - t0 < ns);
	return (double)bytes * 1e9 / (double)(t1 - t0);
}

static void parse(struct opts *o, int argc, char **argv)
{
	char *end;

	if (argc < 5) {
		fprintf(stderr,
			"usage: bw pipe|unix|tcp SIZE WRITER_CPU READER_CPU "
			"[sockbuf=BYTES] [nodelay] [rpoll] [wpoll]\n");
		exit(2);
	}
	o->kind = argv[1];
	o->size = strtoull(argv[2], &end, 0);
	if (*end == 'k' || *end == 'K')
		o->size <<= 10;
	else if (*end == 'M')
		o->size <<= 20;
	if (!o->size || o->size > (64u << 20)) {
		fprintf(stderr, "bw: bad SIZE '%s'\n", argv[2]);
		exit(2);
	}
	o->wcpu = atol(argv[3]);
	o->rcpu = atol(argv[4]);
	o->sockbuf = !strcmp(o->kind, "tcp") ? LMBENCH_SOCKBUF : 0;
	for (int i = 5; i < argc; i++) {
		if (!strncmp(argv[i], "sockbuf=", 8))
			o->sockbuf = atoi(argv[i] + 8);
		else if (!strcmp(argv[i], "nodelay"))
			o->nodelay = true;
		else if (!strcmp(argv[i], "rpoll"))
			o->rpoll = true;
		else if (!strcmp(argv[i], "wpoll"))
			o->wpoll = true;
		else if (!strcmp(argv[i], "msgs"))
			o->msgs = true;
		else if (!strcmp(argv[i], "shift"))
			o->shift = true;
		else {
			fprintf(stderr, "bw: unknown option '%s'\n", argv[i]);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct chan ch;
	double rate[TRIALS];
	char *mem, *buf;
	pid_t pid;

	parse(&o, argc, argv);
	signal(SIGPIPE, SIG_IGN);
	make_chan(&ch, &o);
	mem = aligned_alloc(4096, (o.size + 2 * 4096) / 4096 * 4096);
	if (!mem)
		die("aligned_alloc");
	memset(mem, 0, o.size + 4096); /* fault it in before timing */
	/* bw_pipe reads 128 bytes past a page start; bw_unix, bw_tcp at one */
	buf = !strcmp(o.kind, "pipe") ? mem + 128 : mem;
	pin(o.rcpu);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(ch.rfd);
		if (ch.ctl[1] >= 0)
			close(ch.ctl[1]);
		writer(&ch, &o);
	}
	close(ch.wfd);
	if (ch.ctl[0] >= 0)
		close(ch.ctl[0]);
	if (o.rpoll)
		nonblock(ch.rfd);
	trial(&ch, buf, &o, WARM_NS);
	for (int t = 0; t < TRIALS; t++)
		rate[t] = trial(&ch, buf, &o, TRIAL_NS);
	close(ch.rfd);
	if (ch.ctl[1] >= 0)
		close(ch.ctl[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	qsort(rate, TRIALS, sizeof(rate[0]), cmp);
	printf("%.0f\n", rate[TRIALS / 2]);
	free(mem);
	return 0;
}

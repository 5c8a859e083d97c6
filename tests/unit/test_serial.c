/* SPDX-License-Identifier: MIT */
/*
 * The serial transport without serial hardware: two pseudo-terminal pairs
 * whose masters a thread joins to each other stand in for two ports and a
 * null-modem cable, so the slaves are real tty devices with the serial
 * settings applied.  Checked: the port checks (missing, not a tty, busy,
 * bad speed), raw 8N1 at the speed asked for and the old settings back
 * after, round trips to a forked and a threaded peer, no descriptor leaked.
 * Line timing is not emulated: a pty moves bytes at memory speed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/transport.h"

#include "../helpers.h"
#include "../tap.h"
#include "transport/lib_internal.h"

static const struct ipc_transport_ops *tp;

/* The emulated cable: master i, slave name i, and a descriptor we hold. */
static int master[2] = {-1, -1};
static int held[2] = {-1, -1}; /* keeps each slave open between runs */
static char port[2][64];
static int stop_pipe[2] = {-1, -1};
static pthread_t cable;

static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy whatever one master reads to the other, until told to stop. */
static void *cable_thread(void *arg)
{
	struct pollfd p[3] = {
		{.fd = master[0], .events = POLLIN},
		{.fd = master[1], .events = POLLIN},
		{.fd = stop_pipe[0], .events = POLLIN},
	};
	unsigned char buf[4096];
	ssize_t n;

	(void)arg;
	for (;;) {
		if (poll(p, 3, -1) < 0)
			continue;
		if (p[2].revents)
			return NULL;
		for (int i = 0; i < 2; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			n = read(master[i], buf, sizeof(buf));
			if (n > 0)
				write_all(master[!i], buf, (size_t)n);
		}
	}
}

static int raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return -errno;
	cfmakeraw(&t);
	return tcsetattr(fd, TCSANOW, &t) < 0 ? -errno : 0;
}

static int cable_up(void)
{
	for (int i = 0; i < 2; i++) {
		master[i] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (master[i] < 0 || grantpt(master[i]) < 0 ||
		    unlockpt(master[i]) < 0 ||
		    ptsname_r(master[i], port[i], sizeof(port[i])) != 0)
			return -errno;
		held[i] = open(port[i], O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (held[i] < 0 || raw(master[i]) < 0)
			return -errno;
		/* Anyone may open it: the busy test opens it as nobody. */
		fchmod(held[i], 0666);
	}
	if (pipe2(stop_pipe, O_CLOEXEC) < 0)
		return -errno;
	return -pthread_create(&cable, NULL, cable_thread, NULL);
}

static void cable_down(void)
{
	if (stop_pipe[1] >= 0) {
		write(stop_pipe[1], "x", 1);
		pthread_join(cable, NULL);
	}
	for (int i = 0; i < 2; i++) {
		if (held[i] >= 0)
			close(held[i]);
		if (master[i] >= 0)
			close(master[i]);
	}
	close(stop_pipe[0]);
	close(stop_pipe[1]);
}

static void opts_for(struct ipc_tp_opts *o, const char *a, const char *b,
		     unsigned baud)
{
	memset(o, 0, sizeof(*o));
	o->device[IPC_CLIENT] = a;
	o->device[IPC_SERVER] = b;
	o->baud = baud;
}

static void check_is(const char *a, const char *b, unsigned baud, int want,
		     const char *words, const char *what)
{
	struct ipc_tp_opts o;
	char why[256] = "";
	int rc;

	opts_for(&o, a, b, baud);
	rc = tp->check(&o, why, sizeof(why));
	is_int(rc, "==", want, "check %s", what);
	if (words)
		ok(strstr(why, words) != NULL, "check %s: says '%s': %s", what,
		   words, why);
}

static void test_checks(void)
{
	char file[] = "/tmp/ipcperf-test-serial.XXXXXX";
	int fd = mkstemp(file);

	check_is(NULL, NULL, 0, -ENODEV, "--device", "without ports");
	check_is(port[0], port[0], 0, -EINVAL, "two ports", "one port twice");
	check_is("/nonexistent/ttyX", port[1], 0, -ENOENT, "does not exist",
		 "a missing port");
	check_is(port[0], "/dev/null", 0, -ENOTTY, "not a terminal",
		 "/dev/null");
	check_is(file, port[1], 0, -ENOTTY, "not a terminal", "a plain file");
	check_is(port[0], port[1], 12345, -EINVAL, "standard speed",
		 "12345 baud");
	check_is(port[0], port[1], 0, 0, NULL, "two ptys");
	check_is(port[0], port[1], 9600, 0, NULL, "two ptys at 9600");
	if (fd >= 0) {
		close(fd);
		unlink(file);
	}
}

/* A lock held by another program makes the port busy. */
static void test_busy_lock(void)
{
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	int fd = open(port[1], O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		ok(0, "busy: lock %s", port[1]);
		return;
	}
	check_is(port[0], port[1], 0, -EBUSY, "busy", "a locked port");
	opts_for(&o, port[0], port[1], 0);
	ipc_chan_init(&ch, tp, &o);
	is_int(tp->setup(&ch), "==", -EBUSY, "setup of a locked port fails");
	tp->teardown(&ch);
	close(fd);
	check_is(port[0], port[1], 0, 0, NULL, "the port once unlocked");
}

/*
 * A set-up channel holds its ports exclusively (TIOCEXCL): another open
 * fails with EBUSY, except for CAP_SYS_ADMIN, so the check runs in a child
 * that is not root.
 */
static void test_busy_excl(void)
{
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	int status = -1;
	pid_t pid;

	opts_for(&o, port[0], port[1], 0);
	ipc_chan_init(&ch, tp, &o);
	if (tp->setup(&ch) < 0) {
		ok(0, "exclusive: setup");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char why[256];
		int rc;

		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		rc = tp->check(&o, why, sizeof(why));
		_exit(rc == -EBUSY ? 0 : rc == 0 ? 1 : 2);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		skip("exclusive: cannot drop root to test TIOCEXCL");
	else
		is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, "==", 0,
		       "exclusive: another user's open is busy while a channel "
		       "holds the ports (1: opened, 2: other error)");
	tp->teardown(&ch);
	check_is(port[0], port[1], 0, 0, NULL, "after teardown");
}

/* Raw 8N1 at the speed asked for; the settings are back afterwards. */
static void test_settings(void)
{
	struct termios before, t, after;
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};

	tcgetattr(held[0], &before);
	opts_for(&o, port[0], port[1], 9600);
	ipc_chan_init(&ch, tp, &o);
	if (tp->setup(&ch) < 0) {
		ok(0, "settings: setup");
		return;
	}
	is_int(tp->open(&ch, IPC_CLIENT, &ep), "==", 0, "settings: open");
	tcgetattr(ep.rfd, &t);
	ok(cfgetospeed(&t) == B9600 && cfgetispeed(&t) == B9600,
	   "settings: 9600 baud both ways");
	ok((t.c_cflag & CSIZE) == CS8 && !(t.c_cflag & (PARENB | CSTOPB)),
	   "settings: 8N1");
	ok((t.c_cflag & (CLOCAL | CREAD)) == (CLOCAL | CREAD) &&
		   !(t.c_cflag & CRTSCTS) && !(t.c_iflag & (IXON | IXOFF)),
	   "settings: no modem lines, no flow control");
	ok(!(t.c_lflag & (ICANON | ECHO | ISIG)) && !(t.c_oflag & OPOST) &&
		   !(t.c_iflag & ICRNL),
	   "settings: raw");
	ok(fcntl(ep.rfd, F_GETFL) >= 0 &&
		   !(fcntl(ep.rfd, F_GETFL) & O_NONBLOCK),
	   "settings: blocking");
	tp->close(&ep);
	tp->teardown(&ch);
	tcgetattr(held[0], &after);
	ok(cfgetospeed(&after) == cfgetospeed(&before) &&
		   after.c_lflag == before.c_lflag &&
		   after.c_cflag == before.c_cflag,
	   "settings: put back after close");
}

struct peer {
	struct ipc_chan *ch;
	size_t n;
	int rc;
};

static int recv_all(struct ipc_ep *ep, unsigned char *buf, size_t n)
{
	ssize_t r;

	while (n) {
		r = tp->recv(ep, buf, n);
		if (r <= 0)
			return r < 0 ? (int)r : -EPIPE;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

static int send_all(struct ipc_ep *ep, const unsigned char *buf, size_t n)
{
	ssize_t r;

	while (n) {
		r = tp->send(ep, buf, n);
		if (r < 0)
			return (int)r;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

static int echo(struct peer *p, bool forked)
{
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	unsigned char *buf = malloc(p->n);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = tp->open(p->ch, IPC_SERVER, &ep);
	if (rc == 0 && forked)
		ipc_chan_drop_other(p->ch, IPC_SERVER);
	if (rc == 0)
		rc = recv_all(&ep, buf, p->n);
	if (rc == 0)
		rc = send_all(&ep, buf, p->n);
	tp->close(&ep);
	free(buf);
	return rc;
}

static void *echo_thread(void *arg)
{
	struct peer *p = arg;

	p->rc = echo(p, false);
	return NULL;
}

static void round_trip(size_t n, bool forked)
{
	const char *how = forked ? "fork" : "thread";
	struct ipc_ep ep = {.rfd = -1, .wfd = -1};
	struct ipc_tp_opts o;
	struct ipc_chan ch;
	struct peer p = {.ch = &ch, .n = n};
	unsigned char *tx = malloc(n), *rx = malloc(n);
	pthread_t t;
	pid_t pid = -1;
	int rc, status = -1;

	opts_for(&o, port[0], port[1], 115200);
	ipc_chan_init(&ch, tp, &o);
	rc = tx && rx ? tp->setup(&ch) : -ENOMEM;
	if (rc < 0) {
		is_int(rc, "==", 0, "n=%zu %s: setup", n, how);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		tx[i] = (unsigned char)(i * 7 + (i >> 8) + n);
	fflush(stdout);
	if (forked) {
		pid = fork();
		if (pid == 0) {
			alarm(30);
			_exit(echo(&p, true) < 0 ? 1 : 0);
		}
	} else {
		pthread_create(&t, NULL, echo_thread, &p);
	}
	rc = tp->open(&ch, IPC_CLIENT, &ep);
	if (rc == 0 && forked)
		ipc_chan_drop_other(&ch, IPC_CLIENT);
	if (rc == 0)
		rc = send_all(&ep, tx, n);
	if (rc == 0)
		rc = recv_all(&ep, rx, n);
	tp->close(&ep);
	if (forked) {
		if (rc < 0)
			kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		p.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	} else {
		pthread_join(t, NULL);
	}
	is_int(rc, "==", 0, "n=%zu %s: client sends and receives", n, how);
	ok(rc == 0 && !memcmp(tx, rx, n), "n=%zu %s: echo matches", n, how);
	is_int(p.rc, "==", 0, "n=%zu %s: peer ends cleanly", n, how);
	tp->teardown(&ch);
out:
	free(tx);
	free(rx);
}

/*
 * The whole program over the emulated cable, when tests/run says where it
 * is: rr, stream and bulk run and finish.  A serial line has no end of
 * stream, so each run's peer is stopped by the runner's signal.
 */
static void test_cli(void)
{
	static const char *const cmds[] = {
		"rr --req 1,100 --resp 64 -n 200 -w 10 -r 2",
		"stream --size 1k --count 20 -n 3 -r 2",
		"bulk --total 64k --size 4k -n 3 -r 2",
	};
	const char *bin = getenv("IPCPERF");
	char cmd[1024];
	int rc;

	if (!bin || access(bin, X_OK) < 0) {
		skip("ipcperf over the cable: no binary in $IPCPERF");
		return;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s %s -t serial --device %s,%s --baud 9600 -q -f csv "
			 ">/dev/null",
			 bin, cmds[i], port[0], port[1]);
		fflush(stdout);
		rc = system(cmd);
		is_int(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, "==", 0,
		       "ipcperf %s -t serial over the cable", cmds[i]);
	}
}

int main(void)
{
	int fds;

	signal(SIGPIPE, SIG_IGN);
	alarm(60);
	tp = ipc_transport_find("serial");
	if (!tp) {
		printf("1..0 # skip no serial transport\n");
		return 77;
	}
	if (cable_up() < 0) {
		cable_down();
		printf("1..0 # skip no pseudo-terminals to stand in for "
		       "ports\n");
		return 77;
	}
	fds = count_fds();
	diag("ports: %s and %s (pty slaves joined by a thread)", port[0],
	     port[1]);
	test_checks();
	test_busy_lock();
	test_busy_excl();
	test_settings();
	round_trip(1, true);
	round_trip(4095, true);
	round_trip(65536, true);
	round_trip(4095, false);
	is_int(count_fds(), "==", fds, "no descriptor leaked");
	test_cli();
	cable_down();
	return done_testing();
}

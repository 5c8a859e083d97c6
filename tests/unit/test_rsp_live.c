/* SPDX-License-Identifier: MIT */
/*
 * The stub session against a live gdbserver (Debian's, installed by
 * scripts/deps.sh) debugging tests/target/stub_target.c, compiled here:
 * negotiation, every size 0..1024 written and read back in the program's
 * buffer and in one found below the stack pointer, with and without acks,
 * several sessions on one gdbserver with the buffer put back between
 * them, a detach that lets the program end, and a gdbserver killed in the
 * middle of a session.  No gdbserver or target process is left.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../tap.h"
#include "rsp_io.h"
#include "framing/lib_internal.h"

static char dir[64];	  /* this test's temporary folder */
static char target[128];  /* the compiled target */
static uint64_t buf_addr; /* its buffer */
static const char initial[] = "ipcperf stub target: the first bytes";

struct gs {
	pid_t pid;
	int port;
};

/* Is @prog on the PATH? */
static bool on_path(const char *prog)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Compile the target and find its buffer with nm.  0 or -1. */
static int build_target(void)
{
	char cmd[512];
	FILE *p;
	unsigned long long a = 0;

	snprintf(target, sizeof(target), "%s/stub_target", dir);
	snprintf(cmd, sizeof(cmd),
		 "cc -O0 -g -no-pie -o %s tests/target/stub_target.c", target);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "nm %s | awk '$3 == \"ipcperf_target_buf\" {print $1}'",
		 target);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%llx", &a) != 1)
		a = 0;
	pclose(p);
	buf_addr = a;
	return a ? 0 : -1;
}

/*
 * Start gdbserver on a loopback port the kernel chooses, running the
 * target; its port from "Listening on port N".  0 or -1.
 */
static int gs_start_args(struct gs *g, const char *const *args)
{
	char line[256];
	int pfd[2];
	FILE *f;

	g->pid = -1;
	g->port = 0;
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	g->pid = fork();
	if (g->pid == 0) {
		dup2(pfd[1], 2);
		dup2(pfd[1], 1);
		execvp("gdbserver", (char *const *)args);
		_exit(127);
	}
	close(pfd[1]);
	if (g->pid < 0) {
		close(pfd[0]);
		return -1;
	}
	f = fdopen(pfd[0], "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Listening on port %d", &g->port) == 1)
			break;
	/* gdbserver writes more later: let it, into a closed pipe no more. */
	if (f)
		fclose(f);
	return g->port ? 0 : -1;
}

static int gs_start(struct gs *g)
{
	const char *args[] = {"gdbserver", "127.0.0.1:0", target, NULL};

	return gs_start_args(g, args);
}

/* Wait up to 3 s for @pid to end; kill it if it does not.  True if it did. */
static bool reap(pid_t pid)
{
	for (int i = 0; i < 300; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return false;
}

/* Is @pid gone (or a zombie nobody of ours will reap)?  Waits up to 3 s. */
static bool gone(uint64_t pid)
{
	char path[64], st[256];

	for (int i = 0; i < 300; i++) {
		FILE *f;
		char *rp;

		snprintf(path, sizeof(path), "/proc/%llu/stat",
			 (unsigned long long)pid);
		f = fopen(path, "r");
		if (!f)
			return true;
		rp = fgets(st, sizeof(st), f) ? strrchr(st, ')') : NULL;
		fclose(f);
		if (rp && (rp[2] == 'Z' || rp[2] == 'X'))
			return true;
		usleep(10000);
	}
	return false;
}

static int connect_to(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	/* gdbserver may need a moment to listen again after a client. */
	for (int i = 0; i < 100; i++) {
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			return fd;
		}
		usleep(20000);
	}
	close(fd);
	return -1;
}

struct conn {
	int fd;
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s;
	char err[256];
};

static int conn_open(struct conn *c, int port, bool ack, uint64_t addr)
{
	struct ipc_rsp_sess_opts o = {.ack = ack,
				      .timeout_ns = 5000000000ull,
				      .max_payload = 1024,
				      .buf_addr = addr};
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = connect_to(port);
	if (c->fd < 0) {
		snprintf(c->err, sizeof(c->err), "connect: %s",
			 strerror(errno));
		return -1;
	}
	rio_init(&c->io, &c->fd);
	rc = ipc_rsp_sess_new(&c->s, &c->io, &o);
	if (!rc)
		rc = ipc_rsp_sess_open(c->s, c->err, sizeof(c->err));
	return rc;
}

static void conn_close(struct conn *c)
{
	ipc_rsp_sess_free(c->s);
	c->s = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Every size 0..1024 both ways, each sample checked.  Failures. */
static int every_size(struct conn *c, size_t *first_bad)
{
	struct ipc_rsp_cell cell;
	int bad = 0;

	for (size_t n = 0; n <= 1024; n++) {
		int rc = ipc_rsp_cell_plan(c->s, n, n, &cell, c->err,
					   sizeof(c->err));

		for (uint64_t seq = 0; !rc && seq < 3; seq++) {
			rc = ipc_rsp_cell_run(c->s, &cell, seq);
			if (!rc)
				rc = ipc_rsp_cell_check(c->s, &cell, c->err,
							sizeof(c->err));
			else
				snprintf(c->err, sizeof(c->err), "%s",
					 strerror(-rc));
		}
		if (rc && !bad++)
			*first_bad = n;
	}
	return bad;
}

/* Read @n bytes at @addr with a raw m packet into @out.  0 or -1. */
static int peek(struct conn *c, uint64_t addr, size_t n, uint8_t *out)
{
	const uint8_t *r;
	size_t rl;
	char req[48];

	snprintf(req, sizeof(req), "m%llx,%zx", (unsigned long long)addr, n);
	if (ipc_rsp_exchange(c->s, (const uint8_t *)req, strlen(req), &r, &rl))
		return -1;
	return rl == 2 * n && !ipc_rsp_unhex(r, rl, out) ? 0 : -1;
}

static void sessions_on_one_stub(void)
{
	struct gs g;
	struct conn c;
	const struct ipc_rsp_stub_info *in;
	const struct ipc_rsp_counts *n;
	uint8_t got[sizeof(initial)];
	uint64_t target_pid = 0;
	size_t first_bad = 0;
	int bad;

	if (gs_start(&g)) {
		ok(0, "gdbserver starts and says its port");
		if (g.pid > 0)
			reap(g.pid);
		return;
	}
	/* 1: the program's own buffer, no acks. */
	if (conn_open(&c, g.port, false, buf_addr)) {
		ok(0, "session 1 opens: %s", c.err);
		goto out;
	}
	in = ipc_rsp_sess_info(c.s);
	target_pid = in->pid;
	ok(in->packet_size >= 1024, "gdbserver's PacketSize %u",
	   in->packet_size);
	ok(in->noack, "no-ack mode negotiated");
	ok(in->pid > 0, "the target's pid from the stop reply");
	ok(!in->buf_found && in->buf_addr == buf_addr, "the buffer as given");
	ok(strstr(in->features, "PacketSize=") != NULL, "features recorded");
	diag("gdbserver: %s", in->features);
	diag("X %d, x %d, arch %s", in->has_X, in->has_x, in->arch);
	bad = every_size(&c, &first_bad);
	is_int(bad, "==", 0,
	       "sizes 0..1024 written and read back in the "
	       "program's buffer (first bad %zu: %s)",
	       first_bad, c.err);
	n = ipc_rsp_sess_counts(c.s);
	ok(!n->errors && !n->malformed && !n->bad_checksum && !n->mismatches &&
		   !n->garbage && !n->timeouts,
	   "nothing counted as wrong");
	is_uint(n->replies, ">=", 2 * 3 * 1024, "every request answered");
	is_int(ipc_rsp_sess_close(c.s, false), "==", 0, "session 1 closes");
	conn_close(&c);

	/* 2: the same gdbserver again, with acks, another buffer. */
	if (conn_open(&c, g.port, true, buf_addr + 4096)) {
		ok(0, "session 2 opens on the same gdbserver: %s", c.err);
		goto out;
	}
	ok(1, "session 2 opens on the same gdbserver");
	ok(!ipc_rsp_sess_info(c.s)->noack, "acks kept when asked");
	is_uint(ipc_rsp_sess_info(c.s)->pid, "==", target_pid,
		"the same target, still stopped");
	ok(!peek(&c, buf_addr, sizeof(initial) - 1, got) &&
		   !memcmp(got, initial, sizeof(initial) - 1),
	   "session 1 put the program's bytes back");
	bad = every_size(&c, &first_bad);
	is_int(bad, "==", 0, "with acks: sizes 0..1024 (first bad %zu: %s)",
	       first_bad, c.err);
	is_int(ipc_rsp_sess_close(c.s, false), "==", 0, "session 2 closes");
	conn_close(&c);

	/* 3: a buffer found below the stack pointer. */
	if (conn_open(&c, g.port, false, 0)) {
		ok(0, "session 3 opens with a buffer of its own: %s", c.err);
		goto out;
	}
	in = ipc_rsp_sess_info(c.s);
	ok(in->buf_found, "a buffer found below the stack pointer (%s, 0x%llx)",
	   in->arch, (unsigned long long)in->buf_addr);
	bad = every_size(&c, &first_bad);
	is_int(bad, "==", 0,
	       "below the stack: sizes 0..1024 (first bad %zu: "
	       "%s)",
	       first_bad, c.err);
	is_int(ipc_rsp_sess_close(c.s, false), "==", 0, "session 3 closes");
	conn_close(&c);

	/* A buffer gdbserver cannot read: refused, gdbserver unharmed. */
	is_int(conn_open(&c, g.port, false, 0x10), "==", -EIO,
	       "an address gdbserver cannot read is refused");
	ok(strstr(c.err, "0x10") != NULL, "... naming it: %s", c.err);
	conn_close(&c);

	/* 4: the stub dies in the middle of a session. */
	if (conn_open(&c, g.port, false, buf_addr)) {
		ok(0, "session 4 opens: %s", c.err);
		goto out;
	} else {
		struct ipc_rsp_cell cell;
		uint64_t t0;
		int rc = ipc_rsp_cell_plan(c.s, 256, 256, &cell, c.err,
					   sizeof(c.err));

		for (uint64_t i = 0; !rc && i < 10; i++)
			rc = ipc_rsp_cell_run(c.s, &cell, i);
		is_int(rc, "==", 0, "session 4 runs samples");
		kill(g.pid, SIGKILL);
		ok(reap(g.pid), "gdbserver killed");
		g.pid = -1;
		t0 = rio_now_ns();
		rc = ipc_rsp_cell_run(c.s, &cell, 10);
		ok(rc == -ECONNRESET || rc == -EPIPE,
		   "the next sample sees the connection gone (%s)",
		   strerror(-rc));
		is_uint((rio_now_ns() - t0) / 1000000, "<", 4000,
			"... before the reply deadline");
		conn_close(&c);
	}
out:
	if (g.pid > 0) {
		kill(g.pid, SIGTERM);
		reap(g.pid);
	}
	if (target_pid)
		ok(gone(target_pid), "no target process left");
}

static void detach_lets_go(void)
{
	struct gs g;
	struct conn c;
	uint64_t pid;

	if (gs_start(&g)) {
		ok(0, "gdbserver starts for the detach");
		if (g.pid > 0)
			reap(g.pid);
		return;
	}
	if (conn_open(&c, g.port, false, buf_addr)) {
		ok(0, "a session opens for the detach: %s", c.err);
		kill(g.pid, SIGTERM);
		reap(g.pid);
		return;
	}
	pid = ipc_rsp_sess_info(c.s)->pid;
	is_int(ipc_rsp_sess_close(c.s, true), "==", 0, "detach answered OK");
	conn_close(&c);
	ok(reap(g.pid), "gdbserver ends by itself after the detach");
	ok(gone(pid), "the target ran on and ended");
}

/*
 * Replay the client side of @trace against gdbserver started with @args:
 * the whole conversation once, every reply there.  The trace ends the
 * stub (kill, monitor exit), so gdbserver must end by itself.
 */
static void replay_one(const char *trace, const char *const *args,
		       uint32_t max_packet)
{
	struct ipc_rsp_sess_opts o = {.timeout_ns = 5000000000ull,
				      .max_payload = 1024};
	struct ipc_trace *t = NULL;
	struct ipc_rsp_replay *r = NULL;
	const struct ipc_rsp_replay_counts *n;
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s = NULL;
	char err[256] = "";
	int fd = -1, rc = 0;
	uint64_t replies = 0;
	struct gs g;

	if (ipc_trace_load(trace, &t, err, sizeof(err))) {
		ok(0, "%s loads: %s", trace, err);
		return;
	}
	if (gs_start_args(&g, args)) {
		ok(0, "%s: gdbserver starts", trace);
		goto out;
	}
	fd = connect_to(g.port);
	rio_init(&io, &fd);
	o.max_payload = 65536; /* a live reply may be longer than recorded */
	if (fd < 0 || ipc_rsp_sess_new(&s, &io, &o) ||
	    ipc_rsp_replay_new(&r, t, s, err, sizeof(err))) {
		ok(0, "%s: connected, replay ready: %s", trace, err);
		goto out;
	}
	ipc_rsp_replay_max_packet(r, max_packet);
	for (size_t i = 0, j; i < t->nunits && !rc; i = j) {
		for (j = i + 1;
		     j < t->nunits && t->units[j].dir == t->units[i].dir; j++)
			;
		for (size_t k = i; k < j && !rc; k++)
			if (t->units[i].dir == IPC_C2S)
				rc = ipc_rsp_replay_send(r, k);
		if (!rc && t->units[i].dir == IPC_S2C)
			rc = ipc_rsp_replay_recv(r, i, j,
						 rio_now_ns() + 5000000000ull);
	}
	for (size_t i = 0; i < t->nunits; i++)
		replies += t->units[i].dir == IPC_S2C &&
			   t->bytes[t->units[i].off] == '$';
	n = ipc_rsp_replay_counts(r);
	is_int(rc, "==", 0, "%s: replayed to the end (%s)", trace,
	       rc ? strerror(-rc) : "ok");
	is_uint(n->matched + n->mismatched, "==", replies,
		"%s: every recorded reply answered (%" PRIu64
		" matched, %" PRIu64 " not)",
		trace, n->matched, n->mismatched);
	ok(n->matched * 10 >= replies * 9,
	   "%s: nine in ten replies or more of the recorded shape", trace);
	if (n->mismatched)
		diag("%s: first mismatch at line %s", trace,
		     ipc_rsp_replay_first(r));
	if (max_packet)
		is_uint(n->pieces, ">", 0,
			"%s: max packet %u: %" PRIu64 " more requests", trace,
			max_packet, n->pieces);
	is_uint(ipc_rsp_sess_counts(s)->bad_checksum +
			ipc_rsp_sess_counts(s)->malformed,
		"==", 0, "%s: every frame good", trace);
	close(fd); /* gdb leaves: a gdbserver with no process ends */
	fd = -1;
	ok(reap(g.pid), "%s: gdbserver ends as the trace ends it", trace);
	g.pid = -1;
out:
	if (fd >= 0)
		close(fd);
	if (g.pid > 0) {
		kill(g.pid, SIGTERM);
		reap(g.pid);
	}
	ipc_rsp_replay_free(r);
	ipc_rsp_sess_free(s);
	ipc_trace_free(t);
}

/* Every trace in traces/, against the program it was recorded with. */
static void replays(void)
{
	char prog[160], cmd[400];
	const char *multi[] = {"gdbserver", "--multi", "127.0.0.1:0", NULL};
	const char *tru[] = {"gdbserver", "127.0.0.1:0", "/bin/true", NULL};
	const char *bp[] = {"gdbserver", "127.0.0.1:0", prog, NULL};

	snprintf(prog, sizeof(prog), "%s/target", dir);
	snprintf(cmd, sizeof(cmd), "cc -g -O0 -static -o %s traces/target.c",
		 prog);
	replay_one("traces/stub-multi.log", multi, 0);
	replay_one("traces/gdbserver-true.log", tru, 0);
	replay_one("traces/gdbserver-true.log", tru, 256);
	if (system(cmd)) {
		ok(0, "traces/target.c compiles statically");
		return;
	}
	replay_one("traces/breakpoint.log", bp, 0);
}

int main(void)
{
	char cmd[96];

	signal(SIGPIPE, SIG_IGN);
	if (!on_path("gdbserver")) {
		printf("1..0 # skip gdbserver is not installed (as root, "
		       "make check installs it: scripts/deps.sh test)\n");
		return 77;
	}
	snprintf(dir, sizeof(dir), "%s/ipcperf-rsp.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		ok(0, "a temporary folder");
		return done_testing();
	}
	if (build_target()) {
		ok(0, "the target compiles and nm finds its buffer");
	} else {
		ok(1, "the target compiles; its buffer at 0x%llx",
		   (unsigned long long)buf_addr);
		sessions_on_one_stub();
		detach_lets_go();
	}
	replays();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}

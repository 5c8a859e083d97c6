/* SPDX-License-Identifier: MIT */
/*
 * The hostile-client suite: a live `ipcperf server` (the built binary, so
 * under ASan with make check SAN=1) is fed what an attacker would send.
 * After each attack the server must be alive, a legitimate client's
 * control exchange must succeed, the server's descriptors must come back
 * to their baseline and its memory stay bounded (the figures are printed).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote/lib_internal.h"
#include "../tap.h"
#include "base/lib_internal.h"

/* The server's control deadline in this suite: short, to stay fast. */
#define CTL_TIMEOUT_S 1

struct server {
	pid_t pid;
	char addr[80]; /* "127.0.0.1:PORT" */
	char log[64];  /* its -f json lines */
	char keyfile[64];
	bool keyed;
	struct ipc_rkey key;
	int fds0;	 /* descriptors after start */
	long rss0_kb;	 /* VmRSS after start */
	long rss_max_kb; /* most VmRSS seen after an attack */
	long bound_kb;	 /* allowed growth over rss0 */
};

static char why[512];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int count_fds(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* A "VmRSS:" style field of /proc/PID/status, in kB; -1 if unknown. */
static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			v = strtol(line + strlen(field), NULL, 10);
	fclose(f);
	return v;
}

static bool alive(const struct server *s)
{
	int st;

	return waitpid(s->pid, &st, WNOHANG) == 0;
}

/* Start the server; 0 when it listens (its address in s->addr). */
static int server_start(struct server *s, const char *bin, bool keyed,
			const char *extra)
{
	char ctl[16], *argv[16];
	int argc = 0, fd;
	uint64_t until;

	memset(s, 0, sizeof(*s));
	s->keyed = keyed;
	strcpy(s->log, "/tmp/ipcperf-hostile-log.XXXXXX");
	fd = mkstemp(s->log);
	if (fd < 0)
		return -1;
	if (keyed) {
		int kfd;

		strcpy(s->keyfile, "/tmp/ipcperf-hostile-key.XXXXXX");
		kfd = mkstemp(s->keyfile);
		ipc_random_bytes(s->key.bytes, 32);
		s->key.len = 32;
		if (kfd < 0 || write(kfd, s->key.bytes, 32) != 32)
			return -1;
		close(kfd);
	}
	snprintf(ctl, sizeof(ctl), "%ds", CTL_TIMEOUT_S);
	argv[argc++] = (char *)bin;
	argv[argc++] = "server";
	argv[argc++] = "--listen";
	argv[argc++] = "127.0.0.1:0";
	argv[argc++] = "-f";
	argv[argc++] = "json";
	argv[argc++] = "--control-timeout";
	argv[argc++] = ctl;
	argv[argc++] = "--max-clients";
	argv[argc++] = "2";
	if (keyed) {
		argv[argc++] = "--key";
		argv[argc++] = s->keyfile;
	}
	if (extra)
		argv[argc++] = (char *)extra;
	argv[argc] = NULL;
	s->pid = fork();
	if (s->pid == 0) {
		dup2(fd, 1);
		execv(bin, argv);
		_exit(127);
	}
	close(fd);
	until = now_ms() + 10000;
	while (now_ms() < until && alive(s)) {
		char line[512];
		FILE *f = fopen(s->log, "r");
		char *a;

		while (f && fgets(line, sizeof(line), f)) {
			a = strstr(line, "\"address\":\"");
			if (a && sscanf(a + 11, "%79[^\"]", s->addr) == 1)
				break;
		}
		if (f)
			fclose(f);
		if (s->addr[0])
			break;
		sleep_ms(20);
	}
	if (!s->addr[0])
		return -1;
	s->fds0 = count_fds(s->pid);
	s->rss0_kb = status_kb(s->pid, "VmRSS:");
	/*
	 * Allowed growth: the handshake buffers of 1024 pending sessions at
	 * 4 KiB each, and the allocator's slack.  ASan keeps freed memory
	 * in quarantine (256 MiB by default), so it gets a bound of its own.
	 */
	s->bound_kb = getenv("SAN") && !strcmp(getenv("SAN"), "1") ? 512 * 1024
								   : 16 * 1024;
	return 0;
}

/* Stop it with SIGTERM; its exit status, or -1 if it had to be killed. */
static int server_stop(struct server *s)
{
	uint64_t until = now_ms() + 15000;
	int st;

	kill(s->pid, SIGTERM);
	while (now_ms() < until) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid)
			goto out;
		sleep_ms(20);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	st = -1;
out:
	unlink(s->log);
	if (s->keyed)
		unlink(s->keyfile);
	return st;
}

/* A TCP connection to the server, blocking, or -1. */
static int dial(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	if (ipc_addr_parse(addr, AF_INET, 0, &ss, &len, NULL, 0))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void send_raw(int fd, const void *p, size_t n)
{
	if (send(fd, p, n, MSG_NOSIGNAL) < 0) {
		/* The server may have closed already: fine for an attack. */
	}
}

/* A message body with its length prefix. */
static void send_body(int fd, const char *body)
{
	uint32_t be = htonl((uint32_t)strlen(body));

	send_raw(fd, &be, 4);
	send_raw(fd, body, strlen(body));
}

/*
 * Read the server's answer within @ms: 1 with @m when it is a message,
 * 0 when the connection closed without one, -1 when it stayed open.
 */
static int answer(int fd, struct ipc_rmsg *m, unsigned ms)
{
	struct timespec ts;
	uint64_t dl;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	dl = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec +
	     (uint64_t)ms * 1000000;
	rc = ipc_rwire_recv(fd, m, IPC_REMOTE_MSG_MAX, dl, -1, why,
			    sizeof(why));
	if (rc == 0)
		return 1;
	return rc == -ETIMEDOUT ? -1 : 0;
}

/* The server's welcome after a valid hello on @fd; its challenge in m. */
static int hello(int fd, struct ipc_rmsg *m)
{
	char body[128];

	snprintf(body, sizeof(body),
		 "{\"type\":\"hello\",\"proto\":%d,\"software\":\"hostile\"}",
		 IPC_REMOTE_PROTO);
	send_body(fd, body);
	return answer(fd, m, 3000) == 1 && m->type == IPC_RM_WELCOME ? 0 : -1;
}

/* A connection past hello (and auth, when keyed), ready for "test". */
static int dial_to_test(struct server *s)
{
	struct ipc_rmsg m, a = {.type = IPC_RM_AUTH};
	uint8_t chal[IPC_REMOTE_NONCE_BYTES];
	int fd = dial(s->addr);

	if (fd < 0 || hello(fd, &m))
		goto fail;
	if (m.auth) {
		memcpy(chal, m.nonce, sizeof(chal));
		ipc_random_bytes(a.nonce, sizeof(a.nonce));
		ipc_rauth_mac(&s->key, IPC_RAUTH_CLIENT, chal, a.nonce, a.mac);
		if (ipc_rwire_send(fd, &a, UINT64_MAX, -1) ||
		    answer(fd, &m, 3000) != 1 || m.type != IPC_RM_AUTH_OK)
			goto fail;
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static struct ipc_rtest plain_test(const char *tp)
{
	struct ipc_rtest t = {.verify = true, .nodelay = true, .pin_cpu = -1};

	strcpy(t.pattern, "rr");
	strcpy(t.transport, tp);
	strcpy(t.engine, "blocking");
	t.req_size = t.resp_size = 1;
	return t;
}

/*
 * A control connection with @t accepted: 0 with *c and *acc, or -1 with
 * why (and *c NULL).
 */
static int open_test(const struct server *s, const struct ipc_rtest *t,
		     struct ipc_rclient **c, struct ipc_rmsg *acc)
{
	struct ipc_rclient_conf cc = {.server = s->addr,
				      .key = s->keyed ? &s->key : NULL,
				      .timeout_ns = 5000000000ull,
				      .software = "hostile suite"};

	*c = NULL;
	if (ipc_rclient_open(&cc, c, why, sizeof(why)))
		return -1;
	if (ipc_rclient_test(*c, t, acc, why, sizeof(why))) {
		ipc_rclient_free(*c);
		*c = NULL;
		return -1;
	}
	return 0;
}

/*
 * The legitimate client: a whole control exchange with one run over
 * @tp.  0, or -1 with why.  *rejected (may be NULL) gets the server's
 * count of data connections refused for their cookie.
 */
static int legit(const struct server *s, const char *tp, uint64_t *rejected)
{
	struct ipc_rclient_conf cc = {.server = s->addr,
				      .key = s->keyed ? &s->key : NULL,
				      .timeout_ns = 5000000000ull,
				      .software = "legit"};
	struct ipc_rtest t = plain_test(tp);
	struct ipc_rclient *c;
	struct ipc_rrun_stats st;
	struct ipc_rmsg acc, bye;
	int fd, rc = -1;
	bool v6 = !strcmp(tp, "tcp6") || !strcmp(tp, "udp6");
	bool dg = !strcmp(tp, "udp") || !strcmp(tp, "udp6");

	if (ipc_rclient_open(&cc, &c, why, sizeof(why)))
		return -1;
	if (ipc_rclient_test(c, &t, &acc, why, sizeof(why)))
		goto out;
	fd = ipc_rclient_run_begin(c, 0, v6 ? AF_INET6 : AF_INET,
				   dg ? SOCK_DGRAM : SOCK_STREAM, why,
				   sizeof(why));
	if (fd < 0)
		goto out;
	close(fd);
	if (ipc_rclient_run_end(c, 0, &st, why, sizeof(why)) ||
	    ipc_rclient_done(c, &bye, why, sizeof(why)))
		goto out;
	if (rejected)
		*rejected = st.rejected;
	rc = strstr(bye.host, "\"kernel\"") ? 0 : -1;
	if (rc)
		snprintf(why, sizeof(why), "bye without a fingerprint: %.200s",
			 bye.host);
out:
	ipc_rclient_free(c);
	return rc;
}

/* The checks after every attack. */
/*
 * Wait (5 s at most) until the server holds no more descriptors than at
 * its start: the test processes of the attacks before have ended.  A
 * client that closes first does not wait for its test's process, which
 * may still be stopping its side of a run.
 */
static void settle(const struct server *s)
{
	uint64_t until = now_ms() + 5000;

	while (now_ms() < until && count_fds(s->pid) != s->fds0)
		sleep_ms(20);
}

static void after(struct server *s, const char *attack)
{
	uint64_t until = now_ms() + (2 * CTL_TIMEOUT_S + 3) * 1000;
	int fds = -1, r;
	long rss;

	ok(alive(s), "%s: the server is alive", attack);
	r = legit(s, "tcp", NULL);
	if (r && strstr(why, "busy")) {
		/* The attack's own tests are still ending: wait for them. */
		settle(s);
		why[0] = '\0';
		r = legit(s, "tcp", NULL);
	}
	ok(r == 0, "%s: a legitimate exchange succeeds%s%s", attack,
	   why[0] ? ": " : "", why[0] ? why : "");
	why[0] = '\0';
	/* Refused connections drain for one deadline, test processes end. */
	while (now_ms() < until) {
		fds = count_fds(s->pid);
		if (fds == s->fds0)
			break;
		sleep_ms(50);
	}
	is_int(fds, "==", s->fds0, "%s: descriptors back to the baseline",
	       attack);
	rss = status_kb(s->pid, "VmRSS:");
	if (rss > s->rss_max_kb)
		s->rss_max_kb = rss;
	ok(rss >= 0 && rss - s->rss0_kb <= s->bound_kb,
	   "%s: memory bounded (VmRSS %ld kB, %+ld kB since start)", attack,
	   rss, rss - s->rss0_kb);
}

/* ---- the attacks ----------------------------------------------------- */

static void attack_random(struct server *s)
{
	uint8_t buf[8192];
	struct ipc_rmsg m;
	int got = 0;

	for (int i = 0; i < 20; i++) {
		int fd = dial(s->addr);

		ipc_random_bytes(buf, sizeof(buf));
		/* Half with a small prefix, so the body is parsed. */
		if (i % 2) {
			buf[0] = buf[1] = 0;
			buf[2] &= 0x0f;
		}
		send_raw(fd, buf, (size_t)(64 + i * 400));
		got += answer(fd, &m, 3000) == 1 && m.type == IPC_RM_ERROR;
		close(fd);
	}
	ok(got > 0, "random bytes: the server answers with errors (%d of 20)",
	   got);
	after(s, "random bytes");
}

static void attack_lengths(struct server *s)
{
	static const uint32_t lens[] = {0, 1, 0x80000000u, 0xffffffffu, 4097};
	static const char *const names[] = {"0", "1", "2^31", "2^32-1",
					    "4097 (over the handshake cap)"};
	struct ipc_rmsg m;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int fd = dial(s->addr);
		uint32_t be = htonl(lens[i]);
		int r;

		send_raw(fd, &be, 4);
		if (lens[i] == 1)
			send_raw(fd, "x", 1);
		r = answer(fd, &m, 3000);
		ok(r == 1 && m.type == IPC_RM_ERROR &&
			   m.code == IPC_RERR_PROTOCOL,
		   "length prefix %s: a protocol error (%s)", names[i],
		   r == 1 ? m.message : "no answer");
		close(fd);
	}
	after(s, "length prefixes");
}

static void attack_truncated(struct server *s)
{
	const char *body =
		"{\"type\":\"hello\",\"proto\":1,\"software\":\"x\"}";
	uint32_t be = htonl((uint32_t)strlen(body) + 20);
	struct ipc_rmsg m;
	uint64_t t0;
	int fd, r;

	/* Cut short, then closed. */
	fd = dial(s->addr);
	send_raw(fd, &be, 4);
	send_raw(fd, body, strlen(body));
	close(fd);
	/* Cut short and left hanging: the deadline ends it. */
	fd = dial(s->addr);
	send_raw(fd, &be, 4);
	send_raw(fd, body, strlen(body));
	t0 = now_ms();
	r = answer(fd, &m, (CTL_TIMEOUT_S + 3) * 1000);
	ok(r == 1 && m.type == IPC_RM_ERROR && m.code == IPC_RERR_TIMEOUT,
	   "a truncated message ends at the deadline with a timeout error");
	printf("# truncated message answered after %llu ms (deadline %d s)\n",
	       (unsigned long long)(now_ms() - t0), CTL_TIMEOUT_S);
	close(fd);
	/* Half a prefix. */
	fd = dial(s->addr);
	send_raw(fd, &be, 2);
	r = answer(fd, &m, (CTL_TIMEOUT_S + 3) * 1000);
	ok(r == 1 && m.code == IPC_RERR_TIMEOUT,
	   "half a length prefix ends at the deadline");
	close(fd);
	after(s, "truncated messages");
}

/*
 * One "test" body with field @f set to the JSON value @v; with @dup, a
 * field given again rather than replaced.
 */
static int test_with(struct server *s, const char *f, const char *v,
		     struct ipc_rmsg *m, bool dup)
{
	char body[4200];
	int fd = dial_to_test(s), r;
	bool pat = dup || strcmp(f, "pattern"),
	     tp = dup || strcmp(f, "transport");

	if (fd < 0)
		return -1;
	snprintf(body, sizeof(body), "{\"type\":\"test\"%s%s,\"%s\":%s}",
		 pat ? ",\"pattern\":\"rr\"" : "",
		 tp ? ",\"transport\":\"tcp\"" : "", f, v);
	send_body(fd, body);
	r = answer(fd, m, 3000);
	close(fd);
	return r == 1 ? 0 : -1;
}

static void attack_fields(struct server *s)
{
	static const char *const fields[] = {
		"engine",  "req_size", "resp_size",  "flows",	"verify",
		"pin_cpu", "sndbuf",   "timeout_ns", "framing", "runs",
	};
	static const char *const wrong[] = {"\"x1\"",
					    "-5",
					    "1e3",
					    "[]",
					    "{}",
					    "null",
					    "99999999999999999999"};
	char huge[3900];
	struct ipc_rmsg m;
	int refused = 0, total = 0, named = 0;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		for (size_t k = 0; k < sizeof(wrong) / sizeof(wrong[0]); k++) {
			/* Some values are right for some fields. */
			if ((!strcmp(fields[i], "engine") ||
			     !strcmp(fields[i], "framing")) &&
			    k == 0)
				continue;
			total++;
			if (test_with(s, fields[i], wrong[k], &m, false) == 0 &&
			    m.type == IPC_RM_ERROR &&
			    (m.code == IPC_RERR_PROTOCOL ||
			     m.code == IPC_RERR_REFUSED)) {
				refused++;
				named += strstr(m.message, fields[i]) ||
					 strstr(m.message, "too big");
			}
		}
	is_int(refused, "==", total,
	       "every field of the wrong type refused (%d cases)", total);
	is_int(named, "==", total, "each refusal names the field");
	ok(test_with(s, "pattern", "\"rr\"", &m, true) == 0 &&
		   m.type == IPC_RM_ERROR && strstr(m.message, "duplicate"),
	   "a duplicated field refused: %s", m.message);
	ok(test_with(s, "transport", "\"tcp\"", &m, true) == 0 &&
		   m.type == IPC_RM_ERROR,
	   "a duplicated transport refused");
	{
		int fd = dial_to_test(s);

		send_body(fd, "{\"type\":\"test\",\"transport\":\"tcp\"}");
		ok(answer(fd, &m, 3000) == 1 && m.type == IPC_RM_ERROR &&
			   strstr(m.message, "pattern"),
		   "a missing field refused: %s", m.message);
		close(fd);
	}
	memset(huge, 'a', sizeof(huge) - 3);
	huge[0] = '"';
	huge[sizeof(huge) - 3] = '"';
	huge[sizeof(huge) - 2] = '\0';
	ok(test_with(s, "engine", huge, &m, false) == 0 &&
		   m.type == IPC_RM_ERROR && strstr(m.message, "engine"),
	   "a huge string refused: %s", m.message);
	ok(test_with(s, "transport", "\"pipe\"", &m, false) == 0 &&
		   m.type == IPC_RM_ERROR && m.code == IPC_RERR_REFUSED &&
		   strstr(m.message, "pipe"),
	   "a local-only transport refused with a reason: %s", m.message);
	ok(test_with(s, "flows", "10000,\"req_size\":67108864", &m, false) ==
			   0 &&
		   m.type == IPC_RM_ERROR && m.code == IPC_RERR_REFUSED &&
		   strstr(m.message, "MiB"),
	   "10000 flows of 64 MiB refused: %s", m.message);
	ok(test_with(s, "pattern", "\"rm -rf\"", &m, false) == 0 &&
		   m.type == IPC_RM_ERROR,
	   "an unknown pattern refused");
	after(s, "fields of the wrong type");
}

/*
 * Tests the command line would refuse for the same case: the server
 * refuses each with `refused` and the check's reason, before its accept.
 */
static void attack_cases(struct server *s)
{
	static const struct {
		const char *v, *word;
	} bad[] = {
		{"\"bulk\",\"total\":1024,\"chunk_size\":0", "chunk"},
		{"\"bulk\",\"total\":0,\"chunk_size\":64", "total"},
		{"\"http\"", "http"},
		{"\"rr-stub\"", "rr-stub"},
		{"\"load\",\"flows\":2,\"req_size\":1,\"resp_size\":1,"
		 "\"engine\":\"blocking\"",
		 "blocking"},
		{"\"load\",\"req_size\":1,\"resp_size\":1,"
		 "\"engine\":\"epoll\"",
		 "flow"},
		{"\"replay\"", "trace"},
		{"\"rr\",\"req_size\":1,\"trace_bytes\":10", "trace"},
		{"\"stream\",\"msg_size\":64", "batch"},
		{"\"stream\",\"msg_size\":64,\"count\":1,\"framing\":\"len\"",
		 "framing"},
	};
	struct ipc_rmsg m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		memset(&m, 0, sizeof(m));
		r = test_with(s, "pattern", bad[i].v, &m, false);
		ok(r == 0 && m.type == IPC_RM_ERROR &&
			   m.code == IPC_RERR_REFUSED &&
			   strstr(m.message, bad[i].word),
		   "pattern %s refused, naming '%s': %s", bad[i].v, bad[i].word,
		   m.type == IPC_RM_ERROR ? m.message : "no error");
	}
	after(s, "tests the command line refuses");
}

static char *nested(size_t depth, const char *type)
{
	char *b = malloc(2 * depth + 64);
	size_t n = (size_t)sprintf(b, "{\"type\":\"%s\",\"x\":", type);

	for (size_t i = 0; i < depth; i++)
		b[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		b[n++] = ']';
	b[n++] = '}';
	b[n] = '\0';
	return b;
}

static void attack_nesting(struct server *s)
{
	struct ipc_rtest t = plain_test("tcp");
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg m, acc;
	char *b = nested(10000, "hello");
	int fd = dial(s->addr);

	send_body(fd, b);
	ok(answer(fd, &m, 3000) == 1 && m.type == IPC_RM_ERROR,
	   "nesting 10,000 deep before a test: refused (%s)", m.message);
	close(fd);
	free(b);
	/* Inside a test, where 64 KiB messages are read: the parser's turn. */
	b = nested(10000, "run");
	if (open_test(s, &t, &c, &acc)) {
		ok(0, "a test to send the nesting in: %s", why);
	} else {
		fd = ipc_rclient_fd(c);
		send_body(fd, b);
		ok(answer(fd, &m, 3000) == 1 && m.type == IPC_RM_ERROR &&
			   m.code == IPC_RERR_PROTOCOL,
		   "nesting 10,000 deep inside a test: refused (%s)",
		   m.message);
	}
	ipc_rclient_free(c);
	free(b);
	after(s, "nesting 10,000 deep");
}

/*
 * Inside an accepted test, where the test's own process reads: messages
 * out of order, of the wrong type, malformed, or 64 KiB of random bytes.
 * Each ends that test with an error; the server goes on.
 */
static void attack_in_test(struct server *s)
{
	static const char *const bodies[] = {
		"{\"type\":\"run\",\"run\":5}",
		"{\"type\":\"run_end\",\"run\":0}",
		"{\"type\":\"test\",\"pattern\":\"rr\",\"transport\":\"tcp\"}",
		"{\"type\":\"run\",\"run\":\"0\"}",
		"{\"type\":\"hello\",\"proto\":1,\"software\":\"again\"}",
		"{\"type\":\"ready\",\"run\":0}",
		/* jansson quotes the bad token: the reply must still parse */
		"{\"type\":\"run\",\"run\":\x01\x9b\xff}",
		NULL, /* 64 KiB of random bytes with a valid prefix */
		"",   /* a length of 2^32-1 */
	};
	static const char *const names[] = {
		"run 5 first",
		"run_end before run",
		"a second test",
		"run as a string",
		"hello again",
		"a server's message",
		"control bytes quoted back",
		"64 KiB of noise",
		"a length of 2^32-1",
	};
	struct ipc_rtest t = plain_test("tcp");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct ipc_rclient *c = NULL;
		struct ipc_rmsg acc, m;
		int fd, r;

		settle(s);
		if (open_test(s, &t, &c, &acc)) {
			ok(0, "in a test, %s: a test to attack: %s", names[i],
			   why);
			continue;
		}
		fd = ipc_rclient_fd(c);
		if (bodies[i] && bodies[i][0]) {
			send_body(fd, bodies[i]);
		} else if (bodies[i]) {
			uint32_t be = 0xffffffffu;

			send_raw(fd, &be, 4);
		} else {
			uint8_t *noise = malloc(IPC_REMOTE_MSG_MAX + 4);
			uint32_t be = htonl(IPC_REMOTE_MSG_MAX);

			ipc_random_bytes(noise + 4, IPC_REMOTE_MSG_MAX);
			memcpy(noise, &be, 4);
			send_raw(fd, noise, IPC_REMOTE_MSG_MAX + 4);
			free(noise);
		}
		r = answer(fd, &m, 3000);
		ok(r == 1 && m.type == IPC_RM_ERROR &&
			   m.code == IPC_RERR_PROTOCOL,
		   "in a test, %s: a protocol error (%s)", names[i],
		   r == 1   ? m.message
		   : r == 0 ? why
			    : "no answer in 3 s");
		ok(answer(fd, &m, 3000) == 0,
		   "in a test, %s: the test's process closes", names[i]);
		ipc_rclient_free(c);
	}
	after(s, "malformed messages inside a test");
}

/* Replay's trace: announced, sent in pieces, checked and parsed. */
static void attack_trace(struct server *s)
{
	static const char good[] = "> \"+$qC#b4\"\n< \"+$QCp1.1#67\"\n";
	static const char bad[] = "> \"ok\"\nthis is no record\n";
	static const struct {
		const char *what, *text, *raw;
		uint64_t announce;
		enum ipc_rerr code; /* IPC_RERR_COUNT: taken */
	} cases[] = {
		{"a trace that parses", good, NULL, sizeof(good) - 1,
		 IPC_RERR_COUNT},
		{"a trace with a bad line", bad, NULL, sizeof(bad) - 1,
		 IPC_RERR_REFUSED},
		{"more trace than announced", good, NULL, 5, IPC_RERR_PROTOCOL},
		{"a run instead of the trace", NULL,
		 "{\"type\":\"run\",\"run\":0}", 10, IPC_RERR_PROTOCOL},
		{"trace data not base64", NULL,
		 "{\"type\":\"trace\",\"data\":\"!!!!\"}", 10,
		 IPC_RERR_PROTOCOL},
		{"empty trace data", NULL, "{\"type\":\"trace\",\"data\":\"\"}",
		 10, IPC_RERR_PROTOCOL},
	};
	struct ipc_rtest t = plain_test("tcp");

	strcpy(t.pattern, "replay");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ipc_rclient *c;
		struct ipc_rmsg acc, m;
		int fd, r;

		t.trace_bytes = cases[i].announce;
		settle(s);
		if (open_test(s, &t, &c, &acc)) {
			ok(0, "%s: a replay test: %s", cases[i].what, why);
			continue;
		}
		fd = ipc_rclient_fd(c);
		if (cases[i].text)
			ipc_rclient_send_trace(c, cases[i].text,
					       strlen(cases[i].text), why,
					       sizeof(why));
		else
			send_body(fd, cases[i].raw);
		if (cases[i].code == IPC_RERR_COUNT) {
			/* Taken: the test goes on to its runs. */
			r = ipc_rclient_run_begin(c, 0, AF_INET, SOCK_STREAM,
						  why, sizeof(why));
			ok(r >= 0, "%s: taken, and the run starts (%s)",
			   cases[i].what, r >= 0 ? "ready" : why);
			if (r >= 0)
				close(r);
		} else {
			r = answer(fd, &m, 3000);
			ok(r == 1 && m.type == IPC_RM_ERROR &&
				   m.code == cases[i].code,
			   "%s: refused (%s)", cases[i].what,
			   r == 1 ? m.message : "no answer");
		}
		ipc_rclient_free(c);
	}
	after(s, "replay traces");
}

/*
 * The largest trace, all one-byte units: its parse must stay within the
 * test process's memory (it took 562 MiB): refused, not taken.
 */
static void attack_trace_memory(struct server *s)
{
	struct ipc_rtest t = plain_test("tcp");
	const char *what = "a 16 MiB trace of one-byte units";
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg acc, m = {0};
	size_t n = IPC_REMOTE_TRACE_MAX;
	char *text;
	int r;

	if (getenv("SAN") && !strcmp(getenv("SAN"), "1")) {
		skip("%s: no data limit under ASan", what);
		return;
	}
	text = malloc(n);
	if (!text) {
		ok(0, "%s: memory for it", what);
		return;
	}
	memcpy(text, "w ", 2);
	memset(text + 2, '+', n - 3);
	text[n - 1] = '\n';
	strcpy(t.pattern, "replay");
	t.trace_bytes = n;
	if (open_test(s, &t, &c, &acc)) {
		ok(0, "%s: a test: %s", what, why);
		free(text);
		return;
	}
	ipc_rclient_send_trace(c, text, n, why, sizeof(why));
	free(text);
	r = answer(ipc_rclient_fd(c), &m, 20000);
	ok(r == 1 && m.type == IPC_RM_ERROR &&
		   (m.code == IPC_RERR_REFUSED || m.code == IPC_RERR_FAILED),
	   "%s: refused within the test's memory: %s", what,
	   r == 1 && m.type == IPC_RM_ERROR ? m.message : "no answer");
	ipc_rclient_free(c);
	after(s, what);
}

static void attack_version(struct server *s)
{
	struct ipc_rmsg m;
	int fd = dial(s->addr);
	char hello[96], want[64], theirs[32];

	snprintf(hello, sizeof(hello),
		 "{\"type\":\"hello\",\"proto\":%d,\"software\":\"future\"}",
		 IPC_REMOTE_PROTO + 1);
	send_body(fd, hello);
	ok(answer(fd, &m, 3000) == 1 && m.code == IPC_RERR_VERSION,
	   "a version from the future: refused");
	snprintf(want, sizeof(want), "version %d", IPC_REMOTE_PROTO);
	snprintf(theirs, sizeof(theirs), " %d ", IPC_REMOTE_PROTO + 1);
	ok(strstr(m.message, theirs) && strstr(m.message, want),
	   "the refusal names both versions: %s", m.message);
	close(fd);
	after(s, "a version from the future");
}

/* With a key: a wrong key, a replayed exchange, no key at all. */
static void attack_auth(struct server *s)
{
	struct ipc_rmsg m, a = {.type = IPC_RM_AUTH}, old;
	struct ipc_rkey wrong = {.len = 32};
	struct ipc_rclient_conf cc = {.server = s->addr,
				      .timeout_ns = 3000000000ull};
	struct ipc_rclient *c = NULL;
	int fd;

	ipc_random_bytes(wrong.bytes, 32);
	fd = dial(s->addr);
	hello(fd, &m);
	ok(m.auth, "a keyed server asks for authentication");
	ipc_random_bytes(a.nonce, sizeof(a.nonce));
	ipc_rauth_mac(&wrong, IPC_RAUTH_CLIENT, m.nonce, a.nonce, a.mac);
	ipc_rwire_send(fd, &a, UINT64_MAX, -1);
	ok(answer(fd, &m, 3000) == 1 && m.code == IPC_RERR_AUTH,
	   "a wrong key: refused (%s)", m.message);
	close(fd);

	/* A right answer to one challenge, replayed on a new connection. */
	fd = dial(s->addr);
	hello(fd, &m);
	ipc_random_bytes(a.nonce, sizeof(a.nonce));
	ipc_rauth_mac(&s->key, IPC_RAUTH_CLIENT, m.nonce, a.nonce, a.mac);
	old = a;
	ipc_rwire_send(fd, &a, UINT64_MAX, -1);
	ok(answer(fd, &m, 3000) == 1 && m.type == IPC_RM_AUTH_OK,
	   "the recorded exchange was accepted the first time");
	/* ... and sent again on the same connection. */
	ipc_rwire_send(fd, &old, UINT64_MAX, -1);
	ok(answer(fd, &m, 3000) == 1 && m.type == IPC_RM_ERROR,
	   "the same answer twice on one connection: refused");
	close(fd);
	fd = dial(s->addr);
	hello(fd, &m);
	ipc_rwire_send(fd, &old, UINT64_MAX, -1);
	ok(answer(fd, &m, 3000) == 1 && m.code == IPC_RERR_AUTH,
	   "a replayed authentication: refused (%s)", m.message);
	close(fd);

	fd = dial(s->addr);
	hello(fd, &m);
	send_body(fd, "{\"type\":\"test\",\"pattern\":\"rr\","
		      "\"transport\":\"tcp\"}");
	ok(answer(fd, &m, 3000) == 1 && m.type == IPC_RM_ERROR,
	   "a test without authenticating: refused (%s)", m.message);
	close(fd);
	ok(ipc_rclient_open(&cc, &c, why, sizeof(why)) == -EACCES,
	   "the library's client without a key is told it needs one: %s", why);
	ipc_rclient_free(c);
	after(s, "authentication attacks");
}

/* Data connections without or with a wrong cookie, during a real run. */
static void attack_cookie(struct server *s, const char *tp)
{
	struct ipc_rtest t = plain_test(tp);
	struct ipc_rclient *c = NULL;
	struct ipc_rrun_stats st = {0};
	struct ipc_rmsg acc, bye;
	struct sockaddr_in sin = {.sin_family = AF_INET};
	uint8_t bad[IPC_REMOTE_COOKIE_BYTES];
	bool dg = !strcmp(tp, "udp");
	int att[3], fd, n = 0;
	char what[64];

	snprintf(what, sizeof(what), "data %s with a wrong or no cookie",
		 dg ? "datagrams" : "connections");
	if (open_test(s, &t, &c, &acc)) {
		ok(0, "%s: a test: %s", what, why);
		return;
	}
	sin.sin_port = htons((uint16_t)acc.data_port);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	memcpy(bad, acc.cookie, sizeof(bad));
	bad[0] ^= 1;
	/* Before the client's own: a wrong cookie, nothing, a short one. */
	for (int i = 0; i < 3; i++) {
		att[i] = socket(AF_INET, dg ? SOCK_DGRAM : SOCK_STREAM, 0);
		connect(att[i], (struct sockaddr *)&sin, sizeof(sin));
	}
	send_raw(att[0], bad, sizeof(bad));
	if (dg) {
		send_raw(att[1], "", 0);
		send_raw(att[2], acc.cookie, 8);
	} else {
		send_raw(att[2], acc.cookie, 8);
		shutdown(att[2], SHUT_WR);
	}
	/* Announce the run; the attackers are already queued. */
	sleep_ms(50);
	fd = ipc_rclient_run_begin(c, 0, AF_INET, dg ? SOCK_DGRAM : SOCK_STREAM,
				   why, sizeof(why));
	ok(fd >= 0, "%s: the client with the cookie still gets in (%s)", what,
	   fd < 0 ? why : "ready");
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && !ipc_rclient_run_end(c, 0, &st, why, sizeof(why)))
		n = (int)st.rejected;
	ok(n >= 2, "%s: the server counted them (%d refused)", what, n);
	ok(ipc_rclient_done(c, &bye, why, sizeof(why)) == 0,
	   "%s: the test ends normally", what);
	for (int i = 0; i < 3; i++)
		close(att[i]);
	ipc_rclient_free(c);
	after(s, what);
}

/*
 * UDP: strangers' datagrams queued behind the client's cookie, before the
 * server connects its socket to the client, must not reach the served
 * loop (they would be taken for the client's requests).
 */
/* A udp socket connected to the data port of the test @acc announced. */
static int udp_to(const struct ipc_rmsg *acc)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	sin.sin_port = htons((uint16_t)acc->data_port);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	if (fd >= 0)
		connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	return fd;
}

static void attack_udp_queue(struct server *s)
{
	struct ipc_rtest t = plain_test("udp");
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg acc, m = {0};
	uint8_t echo[64];
	int cfd, me, them, rc = -1;
	const char *what = "strangers' datagrams queued behind the cookie";

	if (open_test(s, &t, &c, &acc)) {
		ok(0, "%s: a test: %s", what, why);
		return;
	}
	cfd = ipc_rclient_fd(c);
	me = udp_to(&acc);
	them = udp_to(&acc);
	/* All queued before the run is announced: the order is certain. */
	send_raw(me, acc.cookie, sizeof(acc.cookie));
	for (int i = 0; i < 10; i++)
		send_raw(them, "junk!", 5);
	m.type = IPC_RM_RUN;
	m.run = 0;
	if (ipc_rwire_send(cfd, &m, UINT64_MAX, -1) == 0) {
		struct pollfd p = {me, POLLIN, 0};

		if (poll(&p, 1, 3000) == 1 &&
		    recv(me, echo, sizeof(echo), 0) ==
			    (ssize_t)sizeof(acc.cookie) &&
		    answer(cfd, &m, 3000) == 1 && m.type == IPC_RM_READY)
			rc = 0;
	}
	ok(rc == 0, "%s: the client gets in", what);
	sleep_ms(100); /* the served loop has had time to read them */
	memset(&m, 0, sizeof(m));
	m.type = IPC_RM_RUN_END;
	m.run = 0;
	ipc_rwire_send(cfd, &m, UINT64_MAX, -1);
	rc = answer(cfd, &m, 3000);
	ok(rc == 1 && m.type == IPC_RM_RUN_STATS && m.stats.err == 0 &&
		   m.stats.messages == 0,
	   "%s: the server side read none of them (err %lld, %llu messages: "
	   "%s)",
	   what, (long long)m.stats.err, (unsigned long long)m.stats.messages,
	   m.stats.what[0] ? m.stats.what : "no failure");
	ok(m.stats.rejected >= 10, "%s: and counted them (%llu refused)", what,
	   (unsigned long long)m.stats.rejected);
	memset(&m, 0, sizeof(m));
	m.type = IPC_RM_DONE;
	ipc_rwire_send(cfd, &m, UINT64_MAX, -1);
	answer(cfd, &m, 3000);
	close(me);
	close(them);
	ipc_rclient_free(c);
	after(s, what);
}

/*
 * A client that sends "run" and never connects holds its test slot for a
 * control timeout, not for the test's hour.
 */
static void attack_run_idle(struct server *s)
{
	struct ipc_rtest t = plain_test("tcp");
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg acc, m = {.type = IPC_RM_RUN};
	const char *what = "run announced, no data connection";
	uint64_t t0;
	int cfd, r = -1;

	if (open_test(s, &t, &c, &acc)) {
		ok(0, "%s: a test: %s", what, why);
		return;
	}
	cfd = ipc_rclient_fd(c);
	ipc_rwire_send(cfd, &m, UINT64_MAX, -1);
	r = answer(cfd, &m, 3000);
	ok(r == 1 && m.type == IPC_RM_READY, "%s: ready", what);
	t0 = now_ms();
	r = answer(cfd, &m, (CTL_TIMEOUT_S + 3) * 1000);
	ok(r == 1 && m.type == IPC_RM_ERROR && m.code == IPC_RERR_TIMEOUT &&
		   strstr(m.message, "no data connection"),
	   "%s: ended after %.1f s (control timeout %d s): %s", what,
	   (now_ms() - t0) / 1e3, CTL_TIMEOUT_S,
	   r == 1 && m.type == IPC_RM_ERROR ? m.message : "no answer");
	ipc_rclient_free(c);
	after(s, what);
}

/*
 * A client that connects with the cookie and then sends and reads
 * nothing holds its slot for a control timeout too, not until
 * --max-test.
 */
static void attack_data_idle(struct server *s)
{
	struct ipc_rtest t = plain_test("tcp");
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg acc, m;
	const char *what = "data connection with the cookie, then idle";
	uint64_t t0;
	int dfd, r = -1;

	if (open_test(s, &t, &c, &acc)) {
		ok(0, "%s: a test: %s", what, why);
		return;
	}
	dfd = ipc_rclient_run_begin(c, 0, AF_INET, SOCK_STREAM, why,
				    sizeof(why));
	ok(dfd >= 0, "%s: connected and ready (%s)", what,
	   dfd < 0 ? why : "ok");
	t0 = now_ms();
	r = answer(ipc_rclient_fd(c), &m, (CTL_TIMEOUT_S + 3) * 1000);
	ok(r == 1 && m.type == IPC_RM_ERROR && m.code == IPC_RERR_TIMEOUT &&
		   strstr(m.message, "stayed idle"),
	   "%s: ended after %.1f s (control timeout %d s): %s", what,
	   (now_ms() - t0) / 1e3, CTL_TIMEOUT_S,
	   r == 1 && m.type == IPC_RM_ERROR ? m.message : "no answer");
	if (dfd >= 0)
		close(dfd);
	ipc_rclient_free(c);
	after(s, what);
}

/*
 * A udp client that sends for a while and then stops holds its slot for
 * a control timeout after its last datagram, not until --max-test; while
 * it sends (longer than a control timeout in all), it keeps it.
 */
static void attack_udp_idle(struct server *s)
{
	struct ipc_rtest t = plain_test("udp");
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg acc, m = {0};
	struct pollfd p;
	uint8_t buf[64];
	const char *what = "a udp client that stops sending";
	uint64_t t0;
	int cfd, me, r = -1, early = 0;

	t.verify = false;
	t.timeout_ns = 200000000; /* the window: the control timeout */
	if (open_test(s, &t, &c, &acc)) {
		ok(0, "%s: a test: %s", what, why);
		return;
	}
	cfd = ipc_rclient_fd(c);
	me = udp_to(&acc);
	send_raw(me, acc.cookie, sizeof(acc.cookie));
	m.type = IPC_RM_RUN;
	m.run = 0;
	p = (struct pollfd){me, POLLIN, 0};
	if (ipc_rwire_send(cfd, &m, UINT64_MAX, -1) == 0 &&
	    poll(&p, 1, 3000) == 1 && recv(me, buf, sizeof(buf), 0) > 0)
		r = answer(cfd, &m, 3000);
	ok(r == 1 && m.type == IPC_RM_READY, "%s: ready", what);
	/* One request every 200 ms for 2.6 control timeouts. */
	t0 = now_ms();
	for (int i = 0; i < 13 * CTL_TIMEOUT_S && !early; i++) {
		send_raw(me, "q", 1);
		sleep_ms(100);
		while (recv(me, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		p = (struct pollfd){cfd, POLLIN, 0};
		early = poll(&p, 1, 100) == 1;
	}
	ok(!early, "%s: not ended while it sent, for %.1f s", what,
	   (now_ms() - t0) / 1e3);
	t0 = now_ms();
	r = answer(cfd, &m, (CTL_TIMEOUT_S + 3) * 1000);
	ok(r == 1 && m.type == IPC_RM_ERROR && m.code == IPC_RERR_TIMEOUT &&
		   strstr(m.message, "no datagram"),
	   "%s: ended %.1f s after its last datagram (control timeout %d "
	   "s): %s",
	   what, (now_ms() - t0) / 1e3, CTL_TIMEOUT_S,
	   r == 1 && m.type == IPC_RM_ERROR ? m.message : "no answer");
	close(me);
	ipc_rclient_free(c);
	after(s, what);
}

static void attack_slowloris(struct server *s)
{
	const char *body =
		"{\"type\":\"hello\",\"proto\":1,\"software\":\"s\"}";
	uint32_t be = htonl((uint32_t)strlen(body));
	uint8_t msg[128];
	int fds[50], closed = 0, legit_ok;
	size_t len = 4 + strlen(body);
	uint64_t t0 = now_ms(), end = t0 + (CTL_TIMEOUT_S + 3) * 1000ull;

	memcpy(msg, &be, 4);
	memcpy(msg + 4, body, strlen(body));
	for (int i = 0; i < 50; i++)
		fds[i] = dial(s->addr);
	/* One byte per connection every 200 ms (5 per second). */
	legit_ok = 0;
	for (size_t k = 0; k < len && now_ms() < end; k++) {
		for (int i = 0; i < 50; i++)
			if (fds[i] >= 0)
				send_raw(fds[i], msg + k, 1);
		if (k == 2)
			legit_ok = legit(s, "tcp", NULL) == 0;
		sleep_ms(200);
	}
	ok(legit_ok,
	   "slowloris: a legitimate client gets through meanwhile%s%s",
	   legit_ok ? "" : ": ", legit_ok ? "" : why);
	for (int i = 0; i < 50; i++) {
		struct pollfd p = {fds[i], POLLIN, 0};
		char b[512];

		if (poll(&p, 1, 0) == 1 && recv(fds[i], b, sizeof(b), 0) >= 0)
			closed++;
		close(fds[i]);
	}
	is_int(closed, "==", 50,
	       "slowloris: all 50 slow connections ended by the %d s deadline",
	       CTL_TIMEOUT_S);
	after(s, "slowloris");
}

static void attack_idle(struct server *s, int n)
{
	struct rlimit rl;
	struct sockaddr_storage ss;
	socklen_t len;
	int *fds = calloc((size_t)n, sizeof(int)), opened = 0, live = 0, rc;
	uint64_t t0;
	long rss;
	char what[64];

	snprintf(what, sizeof(what), "%d idle connections", n);
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < (rlim_t)n + 64) {
		skip("%s: the descriptor limit here is %llu", what,
		     (unsigned long long)rl.rlim_max);
		free(fds);
		return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	ipc_addr_parse(s->addr, AF_INET, 0, &ss, &len, NULL, 0);
	for (int i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fds[i] >= 0 &&
		    (connect(fds[i], (struct sockaddr *)&ss, len) == 0 ||
		     errno == EINPROGRESS))
			opened++;
	}
	is_int(opened, "==", n, "%s opened", what);
	t0 = now_ms();
	rc = legit(s, "tcp", NULL);
	printf("# a legitimate exchange with %d idle connections open took "
	       "%llu ms\n",
	       n, (unsigned long long)(now_ms() - t0));
	ok(rc == 0,
	   "%s: a legitimate client gets through while they are open%s%s", what,
	   why[0] ? ": " : "", why[0] ? why : "");
	why[0] = '\0';
	/* The server kept at most its pending limit; the rest were shed. */
	live = count_fds(s->pid) - s->fds0;
	/* Plus the legitimate test's two, if not reaped yet. */
	ok(live <= IPC_REMOTE_MAX_PENDING + 2,
	   "%s: the server holds at most %d of them (%d)", what,
	   IPC_REMOTE_MAX_PENDING, live);
	rss = status_kb(s->pid, "VmRSS:");
	if (rss > s->rss_max_kb)
		s->rss_max_kb = rss;
	printf("# server VmRSS with %d connections open: %ld kB\n", n, rss);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	after(s, what);
}

static void attack_churn(struct server *s)
{
	struct linger lg = {1, 0};
	int done = 0;

	for (int i = 0; i < 2000; i++) {
		int fd = dial(s->addr);

		if (fd < 0)
			continue;
		/* Every other one with a reset instead of a FIN. */
		if (i % 2)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
		done++;
	}
	is_int(done, "==", 2000, "connect-and-close 2000 times");
	after(s, "connect-and-close in a loop");
}

/* --max-clients 2: a third test is told busy, with the count. */
static void busy(struct server *s)
{
	struct ipc_rclient_conf cc = {.server = s->addr,
				      .key = s->keyed ? &s->key : NULL,
				      .timeout_ns = 5000000000ull};
	struct ipc_rtest t = plain_test("tcp");
	struct ipc_rclient *c[3] = {NULL, NULL, NULL};
	struct ipc_rmsg acc[3] = {0};
	int rc[3];

	for (int i = 0; i < 3; i++) {
		rc[i] = ipc_rclient_open(&cc, &c[i], why, sizeof(why));
		if (!rc[i])
			rc[i] = ipc_rclient_test(c[i], &t, &acc[i], why,
						 sizeof(why));
	}
	ok(rc[0] == 0 && rc[1] == 0, "two tests at once accepted");
	is_int(acc[1].running, "==", 1, "the second was told of the first");
	is_int(acc[2].running, "==", 2, "the busy error carries the count");
	is_int(rc[2], "==", -EBUSY, "the third: busy");
	ok(strstr(why, "busy, 2 tests running") != NULL, "the reason: \"%s\"",
	   why);
	for (int i = 0; i < 3; i++)
		ipc_rclient_free(c[i]);
	/* Their test processes end on their own; then the slots are free. */
	for (int i = 0; i < 100 && count_fds(s->pid) != s->fds0; i++)
		sleep_ms(50);
	after(s, "busy");
}

/* A client killed mid-run: its test process ends, all is freed. */
static void killed_client(struct server *s)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct ipc_rclient_conf cc = {.server = s->addr,
					      .key = s->keyed ? &s->key : NULL,
					      .timeout_ns = 5000000000ull};
		struct ipc_rtest t = plain_test("tcp");
		struct ipc_rclient *c;
		struct ipc_rmsg acc;

		if (ipc_rclient_open(&cc, &c, why, sizeof(why)) ||
		    ipc_rclient_test(c, &t, &acc, why, sizeof(why)) ||
		    ipc_rclient_run_begin(c, 0, AF_INET, SOCK_STREAM, why,
					  sizeof(why)) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	sleep_ms(300);
	ok(count_fds(s->pid) == s->fds0 + 2,
	   "a running test holds two descriptors in the server (%d extra)",
	   count_fds(s->pid) - s->fds0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	after(s, "a client killed mid-run");
}

/* The suite's log: every test line has the fields an orchestrator reads. */
/*
 * A client that gives up with a message of U+202E and 196 ASCII bytes,
 * then 'é' across byte 200: its test's log line keeps the error (cut
 * before the 'é', not through it), the U+202E escaped.
 */
static void gave_up_hostile(struct server *s)
{
	struct ipc_rtest t = plain_test("tcp");
	struct ipc_rclient *c = NULL;
	struct ipc_rmsg acc, m = {.type = IPC_RM_ERROR, .code = IPC_RERR_ABORT};

	if (open_test(s, &t, &c, &acc)) {
		ok(0, "a hostile farewell: a test: %s", why);
		return;
	}
	memcpy(m.message, "\xe2\x80\xae", 3);
	memset(m.message + 3, 'g', 196);
	strcpy(m.message + 199, "\xc3\xa9 tail");
	ipc_rwire_send(ipc_rclient_fd(c), &m, UINT64_MAX, -1);
	ipc_rclient_free(c);
	settle(s);
}

static void log_lines(const struct server *s)
{
	char line[2048];
	int tests = 0, complete = 0, refused = 0, farewell = 0, rlo = 0;
	FILE *f = fopen(s->log, "r");

	while (f && fgets(line, sizeof(line), f)) {
		farewell += strstr(line, "\"error\":\"the client gave up: "
					 "\\\\u202eggg") != NULL;
		rlo += strstr(line, "\xe2\x80\xae") != NULL;
		if (strstr(line, "\"event\":\"test\"")) {
			tests++;
			complete += strstr(line, "\"status\":") &&
				    strstr(line, "\"pattern\":\"") &&
				    strstr(line, "\"duration_ns\":") &&
				    strstr(line, "\"client\":");
		}
		refused += strstr(line, "\"event\":\"refused\"") != NULL;
	}
	if (f)
		fclose(f);
	ok(tests > 10, "-f json: a line per test (%d)", tests);
	is_int(complete, "==", tests, "each with status, pattern, time");
	ok(refused > 0, "-f json: refusals logged too (%d)", refused);
	is_int(farewell, "==", 1,
	       "-f json: a farewell cut through a character keeps its error");
	is_int(rlo, "==", 0, "-f json: no U+202E in the log");
}

/*
 * For the end-to-end scripts: one legitimate exchange against a server
 * elsewhere (another network namespace).  --hold: once the run is ready
 * (over TCP, once its first request is sent), wait to be killed or for
 * the server to end the test.
 */
/* ---- the sweep ------------------------------------------------------ */

/* The address of @s's listener in the family of @v6, from its log. */
static bool listen_addr(const struct server *s, bool v6, char *out, size_t n)
{
	char line[512], a[80];
	FILE *f = fopen(s->log, "r");
	bool found = false;

	while (!found && f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "\"address\":\"");

		if (p && sscanf(p + 11, "%79[^\"]", a) == 1 &&
		    (a[0] == '[') == v6) {
			snprintf(out, n, "%s", a);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Most VmHWM of the server's test processes now, kB (0: none). */
static long children_hwm_kb(pid_t server)
{
	char path[64], buf[4096];
	long most = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)server,
		 (int)server);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		char *save = NULL;

		for (char *t = strtok_r(buf, " \n", &save); t;
		     t = strtok_r(NULL, " \n", &save)) {
			long kb = status_kb((pid_t)atoi(t), "VmHWM:");

			if (kb > most)
				most = kb;
		}
	}
	fclose(f);
	return most;
}

struct sweep_tally {
	int tried, refused, served, stuck, other;
	long hwm_kb;
	char first_stuck[400];
};

/*
 * One test as a raw client would send it: accepted or refused with a
 * reason; accepted, one run whose data endpoint gets the cookie and a few
 * bytes that are no pattern's format, then run_end, which must be
 * answered within the control timeout (a serving loop that does not watch
 * its stop would keep the test process from answering), and done.
 */
#define SWEEP_TRACE "> @0 \"ping\"\n< @0.001 \"pong\"\n"
#define SWEEP_TRACE_LEN (sizeof(SWEEP_TRACE) - 1)

static void sweep_one(const struct server *s, const char *addr,
		      const struct ipc_rtest *t, struct sweep_tally *y)
{
	static const char trace[] = SWEEP_TRACE;
	struct ipc_rclient_conf cc = {.server = addr,
				      .timeout_ns = 3000000000ull,
				      .software = "sweep"};
	bool v6 = strchr(t->transport, '6') != NULL,
	     dg = t->transport[0] == 'u';
	struct ipc_rclient *c = NULL;
	struct ipc_rrun_stats st;
	struct ipc_rmsg acc, bye;
	uint8_t junk[64];
	char what[160];
	long hwm;
	int fd;

	snprintf(what, sizeof(what), "%s %s %s %s", t->pattern, t->transport,
		 t->engine, t->framing[0] ? t->framing : "raw");
	y->tried++;
	why[0] = '\0';
	if (ipc_rclient_open(&cc, &c, why, sizeof(why))) {
		y->other++;
		diag("sweep %s: open: %s", what, why);
		return;
	}
	if (ipc_rclient_test(c, t, &acc, why, sizeof(why))) {
		if (strstr(why, "refused") || strstr(why, "not served") ||
		    strstr(why, "cannot"))
			y->refused++;
		else {
			y->other++;
			diag("sweep %s: %s", what, why);
		}
		goto out;
	}
	if (t->trace_bytes &&
	    ipc_rclient_send_trace(c, trace, strlen(trace), why, sizeof(why)))
		goto bad;
	fd = ipc_rclient_run_begin(c, 0, v6 ? AF_INET6 : AF_INET,
				   dg ? SOCK_DGRAM : SOCK_STREAM, why,
				   sizeof(why));
	if (fd < 0)
		goto bad;
	ipc_random_bytes(junk, sizeof(junk));
	send(fd, junk, sizeof(junk), MSG_NOSIGNAL | MSG_DONTWAIT);
	sleep_ms(20);
	hwm = children_hwm_kb(s->pid);
	if (hwm > y->hwm_kb)
		y->hwm_kb = hwm;
	if (hwm > 280 * 1024)
		diag("sweep %s: %ld kB", what, hwm);
	close(fd);
	if (ipc_rclient_run_end(c, 0, &st, why, sizeof(why)))
		goto bad;
	if (ipc_rclient_done(c, &bye, why, sizeof(why)))
		goto bad;
	y->served++;
	goto out;
bad:
	/* A refusal after the trace is a refusal; the rest is a failure. */
	if (strstr(why, "refused")) {
		y->refused++;
	} else {
		y->stuck++;
		diag("sweep %s: %s", what, why);
		if (!y->first_stuck[0])
			snprintf(y->first_stuck, sizeof(y->first_stuck),
				 "%s: %.150s", what, why);
	}
out:
	ipc_rclient_free(c);
}

/* Small sizes; every size and count 0; buffers near the budget. */
static void sweep_sizes(struct ipc_rtest *t, int z)
{
	uint64_t big = 24ull << 20;

	t->req_size = t->resp_size = z == 0 ? 16 : z == 1 ? 0 : big;
	t->msg_size = z == 0 ? 64 : z == 1 ? 0 : big;
	t->count = z == 0 ? 4 : z == 1 ? 0 : 2;
	t->total = z == 0 ? 4096 : z == 1 ? 0 : big;
	t->chunk_size = z == 0 ? 512 : z == 1 ? 0 : big;
	t->flows = z == 0 ? 3 : z == 1 ? 0 : 1;
}

static void sweep(const char *bin)
{
	static const char *const pats[] = {"rr",   "stream", "bulk", "crr",
					   "load", "replay", "http", "rr-stub"};
	static const char *const engs[] = {"blocking", "poll", "epoll",
					   "io_uring", "busy"};
	static const char *const tps[] = {"tcp", "udp", "tcp6", "udp6"};
	static const char *const frs[] = {"", "len", "gdb-rsp"};
	struct sweep_tally y = {0};
	char a4[80], a6[80];
	struct server s;
	uint64_t t0 = now_ms();
	int st, killed = 0;
	bool have6;

	if (server_start(&s, bin, false, "--listen=[::1]:0")) {
		ok(0, "sweep: the server starts");
		return;
	}
	have6 = listen_addr(&s, true, a6, sizeof(a6));
	listen_addr(&s, false, a4, sizeof(a4));
	for (int z = 0; z < 3; z++)
		for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++)
			for (size_t e = 0; e < sizeof(engs) / sizeof(engs[0]);
			     e++)
				for (size_t k = 0;
				     k < sizeof(tps) / sizeof(tps[0]); k++)
					for (size_t f = 0;
					     f < sizeof(frs) / sizeof(frs[0]);
					     f++) {
						struct ipc_rtest t =
							plain_test(tps[k]);
						bool v6 = strchr(tps[k], '6');

						if (v6 && !have6)
							continue;
						strcpy(t.pattern, pats[p]);
						strcpy(t.engine, engs[e]);
						strcpy(t.framing, frs[f]);
						t.no_ack = f == 2 && e % 2;
						sweep_sizes(&t, z);
						t.timeout_ns = 200000000;
						if (!strcmp(pats[p], "replay"))
							t.trace_bytes =
								SWEEP_TRACE_LEN;
						sweep_one(&s, v6 ? a6 : a4, &t,
							  &y);
					}
	settle(&s);
	{
		char line[2048];
		FILE *f = fopen(s.log, "r");

		while (f && fgets(line, sizeof(line), f))
			killed += strstr(line, "killed by SIG") != NULL ||
				  strstr(line, "no record") != NULL;
		if (f)
			fclose(f);
	}
	printf("# sweep: %d tests in %.1f s: %d served, %d refused, %d "
	       "other; test processes at most %ld kB (VmHWM)%s\n",
	       y.tried, (now_ms() - t0) / 1e3, y.served, y.refused, y.other,
	       y.hwm_kb, have6 ? "" : "; no IPv6 here: tcp6, udp6 left out");
	ok(y.served > 0 && y.refused > 0,
	   "sweep: some served, some refused (%d, %d)", y.served, y.refused);
	is_int(y.stuck, "==", 0,
	       "sweep: every served run answers run_end in time%s%s",
	       y.first_stuck[0] ? ": " : "", y.first_stuck);
	is_int(y.other, "==", 0, "sweep: nothing but served or refused");
	is_int(killed, "==", 0,
	       "sweep: no test process died of a signal or without a record");
	/* The budget, and what ASan adds to it (shadow, quarantine). */
	ok(y.hwm_kb <
		   (getenv("SAN") && !strcmp(getenv("SAN"), "1") ? 600 : 280) *
			   1024,
	   "sweep: each test process within the 256 MiB budget (%ld kB)",
	   y.hwm_kb);
	ok(alive(&s), "sweep: the server is alive");
	st = server_stop(&s);
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "sweep: SIGTERM: the server exits 0 (status %d)", st);
}

static int client_mode(int argc, char **argv)
{
	struct server s = {0};
	struct ipc_rclient_conf cc = {.timeout_ns = 5000000000ull,
				      .software = "e2e"};
	struct ipc_rtest t;
	struct ipc_rclient *c;
	struct ipc_rmsg acc;
	bool hold = argc > 4 && !strcmp(argv[4], "--hold");
	const char *keyfile = argc > 4 && !hold ? argv[4] : NULL;
	int fd, v6, dg;

	if (argc < 4) {
		fprintf(stderr,
			"usage: %s --client HOST:PORT TRANSPORT "
			"[KEYFILE|--hold]\n",
			argv[0]);
		return 2;
	}
	snprintf(s.addr, sizeof(s.addr), "%s", argv[2]);
	if (keyfile && ipc_rkey_load(keyfile, &s.key, why, sizeof(why))) {
		fprintf(stderr, "key: %s\n", why);
		return 2;
	}
	s.keyed = keyfile != NULL;
	if (!hold) {
		if (legit(&s, argv[3], NULL)) {
			printf("error: %s\n", why);
			return 1;
		}
		printf("ok\n");
		return 0;
	}
	t = plain_test(argv[3]);
	t.verify = false; /* the one request is not the run's payload */
	cc.server = s.addr;
	v6 = !strcmp(argv[3], "tcp6") || !strcmp(argv[3], "udp6");
	dg = !strcmp(argv[3], "udp") || !strcmp(argv[3], "udp6");
	if (ipc_rclient_open(&cc, &c, why, sizeof(why)) ||
	    ipc_rclient_test(c, &t, &acc, why, sizeof(why)))
		goto fail;
	fd = ipc_rclient_run_begin(c, 0, v6 ? AF_INET6 : AF_INET,
				   dg ? SOCK_DGRAM : SOCK_STREAM, why,
				   sizeof(why));
	if (fd < 0)
		goto fail;
	/*
	 * Over TCP one request first: the run has begun (an idle data
	 * connection is ended after a control timeout), then it is held.
	 */
	if (!dg && send(fd, "x", 1, MSG_NOSIGNAL) != 1) {
		snprintf(why, sizeof(why), "the first request: %s",
			 strerror(errno));
		goto fail;
	}
	printf("ready\n");
	fflush(stdout);
	/* Until the server gives up on us, or we are killed. */
	{
		struct pollfd p = {ipc_rclient_fd(c), POLLIN, 0};

		poll(&p, 1, -1);
	}
	printf("ended\n");
	ipc_rclient_free(c);
	close(fd);
	return 0;
fail:
	printf("error: %s\n", why);
	return 1;
}

int main(int argc, char **argv)
{
	const char *bin = getenv("IPCPERF");
	struct server s;
	int st;

	if (argc > 1 && !strcmp(argv[1], "--client"))
		return client_mode(argc, argv);
	if (!bin || access(bin, X_OK)) {
		printf("1..0 # skip no ipcperf binary (set IPCPERF)\n");
		return 77;
	}
	if (getenv("VALGRIND")) {
		/* The suite drives a live server; valgrind has nothing of
		   its own to check here and would take minutes. */
		printf("1..0 # skip a live-server suite, not a unit test for "
		       "valgrind\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	if (server_start(&s, bin, false, NULL)) {
		ok(0, "the server starts");
		return done_testing();
	}
	printf("# server %s, pid %d: %d descriptors, VmRSS %ld kB at start\n",
	       s.addr, (int)s.pid, s.fds0, s.rss0_kb);
	after(&s, "nothing yet");
	attack_random(&s);
	attack_lengths(&s);
	attack_truncated(&s);
	attack_fields(&s);
	attack_cases(&s);
	attack_nesting(&s);
	attack_version(&s);
	attack_in_test(&s);
	attack_trace(&s);
	attack_trace_memory(&s);
	attack_cookie(&s, "tcp");
	attack_cookie(&s, "udp");
	attack_udp_queue(&s);
	attack_run_idle(&s);
	attack_data_idle(&s);
	attack_udp_idle(&s);
	attack_slowloris(&s);
	attack_idle(&s, 10000);
	attack_churn(&s);
	busy(&s);
	killed_client(&s);
	gave_up_hostile(&s);
	ok(legit(&s, "udp", NULL) == 0, "a legitimate exchange over udp: %s",
	   why[0] ? why : "ok");
	printf("# server memory: VmRSS %ld kB at start, at most %ld kB "
	       "sampled during and after the attacks\n",
	       s.rss0_kb, s.rss_max_kb);
	log_lines(&s);
	st = server_stop(&s);
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "SIGTERM: the server exits 0 (status %d)", st);

	sweep(bin);

	if (server_start(&s, bin, true, NULL)) {
		ok(0, "the keyed server starts");
		return done_testing();
	}
	after(&s, "keyed: nothing yet");
	attack_auth(&s);
	attack_cookie(&s, "tcp");
	st = server_stop(&s);
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "SIGTERM: the keyed server exits 0 (status %d)", st);
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/*
 * The server's main process: one epoll loop that accepts control
 * connections, takes each through hello, authentication and its test
 * request without ever blocking on it, and then hands the connection to a
 * test process of its own.  It reaps and accounts for those processes and
 * stops by itself when asked, idle, or past its time.
 *
 *   listener --accept--> session: HELLO --> AUTH --> TEST --fork--> test
 *                          |  every message under control_timeout  process
 *                          +--> CLOSING (error sent, input drained) --> closed
 *
 * Sessions sit in one list in the order of their deadlines (every deadline
 * is "now + control_timeout" when set, so appending keeps the order): the
 * head is the first to expire and the first evicted when max_pending
 * connections are open, so idle connections can neither exhaust the
 * descriptors nor hold out a client that talks.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipcperf/engine.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "ipcperf/run.h"
#include "remote/remote_internal.h"
#include "base/lib_internal.h"

#define LISTEN_MAX 8

enum kind { K_LISTEN = 1, K_SESS, K_CHILD, K_STOP };

enum sess_state { ST_HELLO = 0, ST_AUTH, ST_TEST, ST_CLOSING };

struct sess {
	enum kind kind;
	struct sess *prev, *next; /* in deadline order; dead: the graveyard */
	int fd;
	bool dead; /* dropped during this batch of events, freed after it */
	enum sess_state st;
	uint64_t deadline_ns;
	struct ipc_rframe in;
	uint8_t challenge[IPC_REMOTE_NONCE_BYTES];
	char peer[80];
};

struct child {
	enum kind kind;
	struct child *next;
	pid_t pid;
	int pidfd; /* readable once the process ended */
	int sock;  /* stop (shut down for writing) and its record: a
		      seqpacket socket, so the record arrives whole or not */
	uint64_t id;
	uint64_t started_ns;
	uint64_t kill_at_ns; /* the backstop past --max-test */
	bool killed;
	struct ipc_rtest test;
	char peer[80];
};

struct lst {
	enum kind kind;
	int fd;
};

struct ipc_server {
	struct ipc_server_conf conf;
	pid_t main_pid;
	int test_fd; /* in a test process: its end of the stop socket */
	int ep;
	struct {
		enum kind kind;
		int fd; /* eventfd written by ipc_server_stop */
	} stop;
	struct lst lst[LISTEN_MAX];
	size_t nlst;
	bool accepting;
	uint64_t paused_until_ns; /* accept paused: out of descriptors */
	struct sess *head, *tail;
	struct sess *dead; /* dropped, freed after the current batch */
	size_t npending, max_pending;
	struct child *children;
	size_t nchildren;
	uint64_t next_id;
	uint64_t started_ns, last_test_ns;
	volatile uint64_t *shared; /* [0] tests started, [1] running */
	bool stopping;
	uint64_t kill_at_ns;
	bool once_taken;
};

void ipc_server_conf_default(struct ipc_server_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->control_timeout_ns = IPC_REMOTE_CONTROL_TIMEOUT_NS;
	c->max_test_ns = IPC_REMOTE_MAX_TEST_NS;
	c->max_clients = IPC_REMOTE_MAX_CLIENTS;
	c->max_pending = IPC_REMOTE_MAX_PENDING;
	c->software = "ipcperf";
	c->pm_qos_us = -1;
}

static void emit(struct ipc_server *s, struct ipc_server_event *ev)
{
	/* Peers' words go to a terminal or a log: escaped, one line. */
	rm_safe(ev->reason, sizeof(ev->reason), 0);
	rm_safe(ev->addr, sizeof(ev->addr), 0);
	rm_safe(ev->test.pattern, sizeof(ev->test.pattern), 0);
	rm_safe(ev->test.transport, sizeof(ev->test.transport), 0);
	rm_safe(ev->test.engine, sizeof(ev->test.engine), 0);
	if (s->conf.on_event)
		s->conf.on_event(s->conf.event_arg, ev);
}

static void emit_simple(struct ipc_server *s, enum ipc_server_event_kind k,
			const char *addr, const char *status,
			const char *reason)
{
	struct ipc_server_event ev = {.kind = k, .status = status};

	rm_strlcpy(ev.addr, addr ? addr : "", sizeof(ev.addr));
	rm_strlcpy(ev.reason, reason ? reason : "", sizeof(ev.reason));
	emit(s, &ev);
}

/* ---- sessions ------------------------------------------------------- */

static void list_unlink(struct ipc_server *s, struct sess *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		s->head = x->next;
	if (x->next)
		x->next->prev = x->prev;
	else
		s->tail = x->prev;
	x->prev = x->next = NULL;
}

static void list_append(struct ipc_server *s, struct sess *x)
{
	x->prev = s->tail;
	x->next = NULL;
	if (s->tail)
		s->tail->next = x;
	else
		s->head = x;
	s->tail = x;
}

/* A new deadline, now + control_timeout: to the end of the list. */
static void touch(struct ipc_server *s, struct sess *x)
{
	x->deadline_ns = ipc_now_ns() + s->conf.control_timeout_ns;
	list_unlink(s, x);
	list_append(s, x);
}

/*
 * Forget @x: its descriptor is closed now, its memory after the current
 * batch of events, which may still name it.
 */
static void sess_drop(struct ipc_server *s, struct sess *x)
{
	epoll_ctl(s->ep, EPOLL_CTL_DEL, x->fd, NULL);
	close(x->fd);
	x->fd = -1;
	list_unlink(s, x);
	ipc_rframe_reset(&x->in);
	x->dead = true;
	x->next = s->dead;
	s->dead = x;
	s->npending--;
}

static void bury(struct ipc_server *s)
{
	while (s->dead) {
		struct sess *x = s->dead;

		s->dead = x->next;
		free(x);
	}
}

/*
 * Send one small message without waiting: the handshake's replies fit any
 * socket buffer, so a reply that does not is a peer not reading.
 */
static int reply(struct sess *x, const struct ipc_rmsg *m)
{
	char buf[IPC_REMOTE_HANDSHAKE_MAX + 4];
	int n = ipc_rmsg_encode(m, buf, sizeof(buf));
	ssize_t w;

	if (n < 0)
		return n;
	do
		w = send(x->fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	return w == n ? 0 : -EAGAIN;
}

/*
 * Refuse: send the error, shut our side, and drain what the peer still
 * sends until it closes or the deadline passes, so that closing does not
 * reset the connection before the error is read.
 */
__attribute__((format(printf, 4, 5))) static void refuse(struct ipc_server *s,
							 struct sess *x,
							 enum ipc_rerr code,
							 const char *fmt, ...)
{
	struct ipc_rmsg m = {.type = IPC_RM_ERROR, .code = code};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m.message, sizeof(m.message), fmt, ap);
	va_end(ap);
	rm_safe(m.message, sizeof(m.message), IPC_TEXT_ASCII);
	if (code == IPC_RERR_BUSY)
		m.running = s->nchildren;
	if (code != IPC_RERR_PROTOCOL && code != IPC_RERR_TIMEOUT)
		emit_simple(s, IPC_SEV_REFUSED, x->peer, ipc_rerr_name(code),
			    m.message);
	reply(x, &m);
	shutdown(x->fd, SHUT_WR);
	x->st = ST_CLOSING;
	ipc_rframe_reset(&x->in);
	touch(s, x);
}

/* Refuse before the test's process what that process would refuse. */
static int check_test(const struct ipc_rtest *t, char *why, size_t why_len)
{
	struct ipc_case cs;
	struct ipc_runopts ro;

	return rm_test_case(t, NULL, &cs, &ro, why, why_len);
}

static int start_test(struct ipc_server *s, struct sess *x,
		      const struct ipc_rmsg *m);
static void close_listeners(struct ipc_server *s);

/*
 * A client that leaves while it is asked for its key (one without a key
 * closes then) is turned away as surely as one with a wrong key: the log
 * says so.
 */
static void left_unauthenticated(struct ipc_server *s, struct sess *x)
{
	if (x->st == ST_AUTH)
		emit_simple(s, IPC_SEV_REFUSED, x->peer,
			    ipc_rerr_name(IPC_RERR_AUTH),
			    "the client left without authenticating: it has no "
			    "key");
}

static void on_message(struct ipc_server *s, struct sess *x,
		       const struct ipc_rmsg *m)
{
	static const enum ipc_rmsg_type want[] = {
		[ST_HELLO] = IPC_RM_HELLO,
		[ST_AUTH] = IPC_RM_AUTH,
		[ST_TEST] = IPC_RM_TEST,
	};
	struct ipc_rmsg r = {0};
	char why[IPC_RM_TEXT_MAX];

	if (m->type == IPC_RM_ERROR) {
		/* The client gave up: nothing to answer. */
		left_unauthenticated(s, x);
		shutdown(x->fd, SHUT_WR);
		x->st = ST_CLOSING;
		return;
	}
	if (m->type != want[x->st]) {
		refuse(s, x, IPC_RERR_PROTOCOL, "unexpected '%s' (expected %s)",
		       ipc_rmsg_name(m->type), ipc_rmsg_name(want[x->st]));
		return;
	}
	touch(s, x);
	switch (x->st) {
	case ST_HELLO:
		if (m->proto != IPC_REMOTE_PROTO) {
			refuse(s, x, IPC_RERR_VERSION,
			       "protocol version %llu is not supported: this "
			       "server speaks version %d",
			       (unsigned long long)m->proto, IPC_REMOTE_PROTO);
			return;
		}
		r.type = IPC_RM_WELCOME;
		r.proto = IPC_REMOTE_PROTO;
		rm_strlcpy(r.software, s->conf.software, sizeof(r.software));
		r.auth = s->conf.key != NULL;
		if (r.auth) {
			ipc_random_bytes(x->challenge, sizeof(x->challenge));
			memcpy(r.nonce, x->challenge, sizeof(r.nonce));
		}
		x->st = r.auth ? ST_AUTH : ST_TEST;
		break;
	case ST_AUTH:
		if (!ipc_rauth_check(s->conf.key, IPC_RAUTH_CLIENT,
				     x->challenge, m->nonce, m->mac)) {
			refuse(s, x, IPC_RERR_AUTH,
			       "authentication failed: the client's key is not "
			       "this server's");
			return;
		}
		r.type = IPC_RM_AUTH_OK;
		ipc_rauth_mac(s->conf.key, IPC_RAUTH_SERVER, x->challenge,
			      m->nonce, r.mac);
		/* A challenge answers once. */
		ipc_random_bytes(x->challenge, sizeof(x->challenge));
		x->st = ST_TEST;
		break;
	case ST_TEST:
		if (check_test(&m->test, why, sizeof(why))) {
			refuse(s, x, IPC_RERR_REFUSED, "%s", why);
			return;
		}
		if (s->nchildren >= s->conf.max_clients) {
			refuse(s, x, IPC_RERR_BUSY, "busy, %zu tests running",
			       s->nchildren);
			return;
		}
		start_test(s, x, m);
		return;
	default:
		return;
	}
	if (reply(x, &r))
		sess_drop(s, x);
}

/* Read what arrived, at most to the end of the current message. */
static void on_readable(struct ipc_server *s, struct sess *x)
{
	uint8_t buf[IPC_REMOTE_HANDSHAKE_MAX];
	struct ipc_rmsg m;
	char why[IPC_RM_TEXT_MAX];
	size_t want, used;
	ssize_t n;
	int rc;

	if (x->st == ST_CLOSING) {
		n = recv(x->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			sess_drop(s, x);
		return;
	}
	want = x->in.hdr_got < 4 ? 4 - x->in.hdr_got
				 : x->in.len - x->in.body_got;
	n = recv(x->fd, buf, want, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		left_unauthenticated(s, x);
		sess_drop(s, x);
		return;
	}
	if (n < 0)
		return;
	rc = ipc_rframe_feed(&x->in, buf, (size_t)n, &used);
	if (rc == -EMSGSIZE) {
		refuse(s, x, IPC_RERR_PROTOCOL,
		       "a message of %u bytes is refused: 1 to %u bytes before "
		       "a test",
		       x->in.len, IPC_REMOTE_HANDSHAKE_MAX);
		return;
	}
	if (rc < 0) {
		sess_drop(s, x);
		return;
	}
	if (rc == 0)
		return;
	rc = ipc_rmsg_parse(x->in.body, x->in.len, &m, why, sizeof(why));
	ipc_rframe_reset(&x->in);
	if (rc)
		refuse(s, x, IPC_RERR_PROTOCOL, "%s", why);
	else
		on_message(s, x, &m);
}

static void sess_new(struct ipc_server *s, int fd,
		     const struct sockaddr_storage *peer, socklen_t plen)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sess *x;

	/* Full: the connection closest to its deadline makes room. */
	if (s->npending >= s->max_pending && s->head)
		sess_drop(s, s->head);
	x = calloc(1, sizeof(*x));
	if (!x) {
		close(fd);
		return;
	}
	x->kind = K_SESS;
	x->fd = fd;
	ipc_rframe_init(&x->in, IPC_REMOTE_HANDSHAKE_MAX);
	ipc_addr_format((const struct sockaddr *)peer, plen, x->peer,
			sizeof(x->peer));
	ev.data.ptr = x;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		free(x);
		return;
	}
	s->npending++;
	x->deadline_ns = ipc_now_ns() + s->conf.control_timeout_ns;
	list_append(s, x);
}

static void on_accept(struct ipc_server *s, struct lst *l)
{
	struct sockaddr_storage peer;
	socklen_t plen;
	int fd;

	/* A bounded batch per wake-up keeps the other sessions served. */
	for (int i = 0; i < 64 && s->accepting; i++) {
		plen = sizeof(peer);
		fd = accept4(l->fd, (struct sockaddr *)&peer, &plen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			sess_new(s, fd, &peer, plen);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if ((errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		     errno == ENOMEM) &&
		    s->head) {
			sess_drop(s, s->head);
			continue;
		}
		if (errno != EAGAIN)
			/* Out of descriptors with none of ours to give back:
			   pause rather than spin on a ready listener. */
			s->paused_until_ns = ipc_now_ns() + 100000000;
		return;
	}
}

/* ---- test processes ------------------------------------------------- */

static int pidfd_of(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* In a new test process: close what belongs to the main process. */
static void child_close_inherited(struct ipc_server *s, struct sess *mine)
{
	close(s->ep);
	close(s->stop.fd);
	for (size_t i = 0; i < s->nlst; i++)
		close(s->lst[i].fd);
	for (struct sess *x = s->head; x; x = x->next)
		if (x != mine)
			close(x->fd);
	for (struct child *c = s->children; c; c = c->next) {
		close(c->pidfd);
		close(c->sock);
	}
}

static int start_test(struct ipc_server *s, struct sess *x,
		      const struct ipc_rmsg *m)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct rm_test_ctx ctx;
	struct child *c;
	int sv[2], rc;
	pid_t pid;

	c = calloc(1, sizeof(*c));
	if (!c || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		rc = -errno;
		free(c);
		refuse(s, x, IPC_RERR_FAILED, "cannot start the test: %s",
		       strerror(-rc));
		return rc;
	}
	c->kind = K_CHILD;
	c->id = ++s->next_id;
	c->test = m->test;
	rm_strlcpy(c->peer, x->peer, sizeof(c->peer));
	__atomic_add_fetch(&s->shared[0], 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&s->shared[1], 1, __ATOMIC_SEQ_CST);
	s->test_fd = sv[1]; /* for ipc_server_stop in the child */
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child_close_inherited(s, x);
		memset(&ctx, 0, sizeof(ctx));
		ctx.ctl_fd = x->fd;
		ctx.stop_fd = sv[1];
		ctx.status_fd = sv[1];
		ctx.req = *m;
		ctx.test_id = c->id;
		ctx.conf = &s->conf;
		ctx.shared = s->shared;
		ctx.local_len = sizeof(ctx.local);
		getsockname(x->fd, (struct sockaddr *)&ctx.local,
			    &ctx.local_len);
		_exit(rm_test_main(&ctx));
	}
	s->test_fd = -1;
	rc = pid < 0 ? -errno : 0;
	close(sv[1]);
	c->pid = pid;
	c->sock = sv[0];
	c->pidfd = pid > 0 ? pidfd_of(pid) : -1;
	if (pid > 0 && c->pidfd < 0) {
		/* Cannot watch it: end it now rather than lose track. */
		rc = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (rc) {
		__atomic_sub_fetch(&s->shared[1], 1, __ATOMIC_SEQ_CST);
		close(sv[0]);
		if (c->pidfd >= 0)
			close(c->pidfd);
		free(c);
		refuse(s, x, IPC_RERR_FAILED, "cannot start the test: %s",
		       strerror(-rc));
		return rc;
	}
	fcntl(c->sock, F_SETFL, O_NONBLOCK);
	c->started_ns = ipc_now_ns();
	c->kill_at_ns = c->started_ns + s->conf.max_test_ns +
			2 * s->conf.control_timeout_ns;
	ev.data.ptr = c;
	epoll_ctl(s->ep, EPOLL_CTL_ADD, c->pidfd, &ev);
	c->next = s->children;
	s->children = c;
	s->nchildren++;
	s->last_test_ns = c->started_ns;
	/* The test process owns the connection now; ours closes. */
	sess_drop(s, x);
	if (s->conf.once) {
		/* Later clients are refused by the kernel, not left waiting. */
		s->once_taken = true;
		close_listeners(s);
		while (s->head)
			sess_drop(s, s->head);
	}
	return 0;
}

static void child_reap(struct ipc_server *s, struct child *c)
{
	struct ipc_server_event ev = {.kind = IPC_SEV_TEST};
	struct rm_record rec = {.status = 1};
	struct child **pp;
	int st = 0;
	ssize_t n;

	if (waitpid(c->pid, &st, WNOHANG) == 0)
		return; /* not yet: the pidfd will tell again */
	n = recv(c->sock, &rec, sizeof(rec), MSG_DONTWAIT);
	ev.test_id = c->id;
	ev.test = c->test;
	rm_strlcpy(ev.addr, c->peer, sizeof(ev.addr));
	ev.duration_ns = ipc_now_ns() - c->started_ns;
	ev.exit_status = st;
	if (n == (ssize_t)sizeof(rec)) {
		rec.reason[sizeof(rec.reason) - 1] = '\0';
		ev.status = rec.status == 0   ? "ok"
			    : rec.status == 2 ? "aborted"
					      : "error";
		rm_strlcpy(ev.reason, rec.reason, sizeof(ev.reason));
		ev.runs = rec.runs;
		ev.others_max = rec.others_max;
		ev.rejected = rec.rejected;
	} else {
		ev.status = "error";
		if (WIFSIGNALED(st))
			snprintf(ev.reason, sizeof(ev.reason),
				 "the test process was killed by SIG%s%s",
				 sigabbrev_np(WTERMSIG(st))
					 ? sigabbrev_np(WTERMSIG(st))
					 : "?",
				 c->killed ? " (past --max-test or on stop)"
					   : "");
		else
			snprintf(ev.reason, sizeof(ev.reason),
				 "the test process ended with status %d and "
				 "no record",
				 WEXITSTATUS(st));
	}
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->pidfd, NULL);
	close(c->pidfd);
	close(c->sock);
	for (pp = &s->children; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	s->nchildren--;
	if (n != (ssize_t)sizeof(rec) || !rec.released)
		__atomic_sub_fetch(&s->shared[1], 1, __ATOMIC_SEQ_CST);
	s->last_test_ns = ipc_now_ns();
	emit(s, &ev);
	free(c);
}

static void child_kill(struct child *c)
{
	if (!c->killed) {
		kill(c->pid, SIGKILL);
		c->killed = true;
	}
}

/* ---- stopping ------------------------------------------------------- */

static void close_listeners(struct ipc_server *s)
{
	for (size_t i = 0; i < s->nlst; i++) {
		if (s->lst[i].fd < 0)
			continue;
		epoll_ctl(s->ep, EPOLL_CTL_DEL, s->lst[i].fd, NULL);
		close(s->lst[i].fd);
		s->lst[i].fd = -1;
	}
	s->accepting = false;
}

static void begin_stop(struct ipc_server *s, const char *why)
{
	uint64_t grace = s->conf.control_timeout_ns;

	if (s->stopping) {
		/* Asked again: no more waiting. */
		for (struct child *c = s->children; c; c = c->next)
			child_kill(c);
		return;
	}
	s->stopping = true;
	emit_simple(s, IPC_SEV_STOPPED, NULL, "stopping", why);
	close_listeners(s);
	while (s->head)
		sess_drop(s, s->head);
	/* A test process sees end-of-file on its stop socket and aborts. */
	for (struct child *c = s->children; c; c = c->next)
		shutdown(c->sock, SHUT_WR);
	if (grace > 5000000000ull)
		grace = 5000000000ull;
	s->kill_at_ns = ipc_now_ns() + grace + 1000000000ull;
}

void ipc_server_stop(struct ipc_server *s)
{
	uint64_t one = 1;
	int saved = errno;

	if (getpid() != s->main_pid) {
		/* In a test process: stop this test only. */
		if (s->test_fd >= 0)
			shutdown(s->test_fd, SHUT_RD);
	} else if (write(s->stop.fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow from signals. */
	}
	errno = saved;
}

/* ---- set-up and the loop -------------------------------------------- */

static int listen_on(struct ipc_server *s, const char *spec, char *why,
		     size_t why_len)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sockaddr_storage ss;
	socklen_t len;
	char addr[80];
	int fd, one = 1, zero = 0, rc;

	if (s->nlst == LISTEN_MAX) {
		snprintf(why, why_len, "more than %d --listen addresses",
			 LISTEN_MAX);
		return -E2BIG;
	}
	rc = ipc_addr_parse(spec, AF_UNSPEC, IPC_REMOTE_PORT, &ss, &len, why,
			    why_len);
	if (rc)
		return rc;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "--listen %s: %s", spec, strerror(-rc));
		return rc;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::] takes IPv4 clients too, as ::ffff:a.b.c.d. */
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, SOMAXCONN)) {
		rc = -errno;
		snprintf(why, why_len, "--listen %s: %s", spec, strerror(-rc));
		close(fd);
		return rc;
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	s->lst[s->nlst].kind = K_LISTEN;
	s->lst[s->nlst].fd = fd;
	ev.data.ptr = &s->lst[s->nlst];
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
		rc = -errno;
		close(fd);
		snprintf(why, why_len, "epoll: %s", strerror(-rc));
		return rc;
	}
	s->nlst++;
	emit_simple(s, IPC_SEV_LISTENING,
		    ipc_addr_format((struct sockaddr *)&ss, len, addr,
				    sizeof(addr)),
		    s->conf.key ? "key" : "open", NULL);
	return 0;
}

/* Descriptors left for pending connections under the soft limit. */
static size_t pending_room(const struct ipc_server_conf *c)
{
	struct rlimit rl;
	uint64_t reserve = 32 + 2ull * c->max_clients;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return c->max_pending;
	if (rl.rlim_cur <= reserve + 8)
		return 8;
	return rl.rlim_cur - reserve < c->max_pending ? rl.rlim_cur - reserve
						      : c->max_pending;
}

int ipc_server_new(const struct ipc_server_conf *conf, struct ipc_server **out,
		   char *why, size_t why_len)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct ipc_server *s;
	int rc = 0;

	*out = NULL;
	if (!conf->control_timeout_ns || !conf->max_clients ||
	    !conf->max_pending || !conf->max_test_ns) {
		snprintf(why, why_len, "a zero limit in the server's options");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->conf = *conf;
	s->main_pid = getpid();
	s->test_fd = -1;
	s->stop.kind = K_STOP;
	s->max_pending = pending_room(conf);
	s->shared = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->stop.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->shared == MAP_FAILED || s->ep < 0 || s->stop.fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "cannot set up the server: %s",
			 strerror(-rc));
		if (s->shared == MAP_FAILED)
			s->shared = NULL;
		goto fail;
	}
	ev.data.ptr = &s->stop;
	epoll_ctl(s->ep, EPOLL_CTL_ADD, s->stop.fd, &ev);
	for (size_t i = 0; i < conf->nlisten && !rc; i++)
		rc = listen_on(s, conf->listen[i], why, why_len);
	if (!rc && !conf->nlisten) {
		rc = listen_on(s, "[::]", why, why_len);
		if (rc == -EAFNOSUPPORT)
			rc = listen_on(s, "0.0.0.0", why, why_len);
	}
	if (rc)
		goto fail;
	s->accepting = true;
	*out = s;
	return 0;
fail:
	ipc_server_free(s);
	return rc;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The earliest moment something must happen without an event. */
static uint64_t next_deadline(const struct ipc_server *s)
{
	uint64_t t = UINT64_MAX;

	if (s->head)
		t = s->head->deadline_ns;
	if (s->paused_until_ns)
		t = min_u64(t, s->paused_until_ns);
	for (const struct child *c = s->children; c; c = c->next)
		t = min_u64(t, c->kill_at_ns);
	if (s->stopping)
		return min_u64(t, s->kill_at_ns);
	if (s->conf.max_duration_ns)
		t = min_u64(t, s->started_ns + s->conf.max_duration_ns);
	if (s->conf.idle_timeout_ns && !s->nchildren)
		t = min_u64(t, s->last_test_ns + s->conf.idle_timeout_ns);
	return t;
}

static void set_accepting(struct ipc_server *s, bool on)
{
	for (size_t i = 0; i < s->nlst; i++) {
		struct epoll_event ev = {.events = on ? EPOLLIN : 0,
					 .data.ptr = &s->lst[i]};

		if (s->lst[i].fd >= 0)
			epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lst[i].fd, &ev);
	}
}

/* What the clock alone decides: expiries, kills, idle and time limits. */
static void on_time(struct ipc_server *s)
{
	uint64_t now = ipc_now_ns();
	char why[96];

	while (s->head && s->head->deadline_ns <= now) {
		struct sess *x = s->head;

		/* A refused session gets one more deadline to drain. */
		if (x->st == ST_CLOSING)
			sess_drop(s, x);
		else
			refuse(s, x, IPC_RERR_TIMEOUT,
			       "no complete message within the deadline");
	}
	if (s->paused_until_ns && s->paused_until_ns <= now) {
		s->paused_until_ns = 0;
		set_accepting(s, true);
	}
	for (struct child *c = s->children; c; c = c->next)
		if (c->kill_at_ns <= now ||
		    (s->stopping && s->kill_at_ns <= now))
			child_kill(c);
	if (s->stopping)
		return;
	if (s->conf.max_duration_ns &&
	    now >= s->started_ns + s->conf.max_duration_ns) {
		snprintf(why, sizeof(why), "--max-duration of %.3g s reached",
			 s->conf.max_duration_ns / 1e9);
		begin_stop(s, why);
	} else if (s->conf.idle_timeout_ns && !s->nchildren &&
		   now >= s->last_test_ns + s->conf.idle_timeout_ns) {
		snprintf(why, sizeof(why), "idle for %.3g s (--idle-timeout)",
			 s->conf.idle_timeout_ns / 1e9);
		begin_stop(s, why);
	} else if (s->once_taken && !s->nchildren) {
		begin_stop(s, "--once: the test ended");
	}
}

int ipc_server_run(struct ipc_server *s)
{
	struct epoll_event evs[64];
	uint64_t t, cnt;
	int n, ms;
	bool paused = false;

	s->started_ns = s->last_test_ns = ipc_now_ns();
	while (!s->stopping || s->nchildren) {
		t = next_deadline(s);
		ms = t == UINT64_MAX ? -1 : rm_poll_ms(t);
		if (s->paused_until_ns && !paused) {
			set_accepting(s, false);
			paused = true;
		} else if (!s->paused_until_ns) {
			paused = false;
		}
		n = epoll_wait(s->ep, evs, 64, ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n; i++) {
			enum kind *k = evs[i].data.ptr;

			switch (*k) {
			case K_STOP:
				if (read(s->stop.fd, &cnt, sizeof(cnt)) > 0)
					begin_stop(s, "interrupted");
				break;
			case K_LISTEN:
				if (s->accepting && !s->paused_until_ns)
					on_accept(s, (struct lst *)k);
				break;
			case K_SESS:
				if (!((struct sess *)k)->dead)
					on_readable(s, (struct sess *)k);
				break;
			case K_CHILD:
				child_reap(s, (struct child *)k);
				break;
			}
		}
		on_time(s);
		bury(s);
	}
	return 0;
}

void ipc_server_free(struct ipc_server *s)
{
	if (!s)
		return;
	if (getpid() == s->main_pid) {
		for (struct child *c = s->children; c; c = c->next)
			child_kill(c);
		while (s->children) {
			struct child *c = s->children;

			waitpid(c->pid, NULL, 0);
			s->children = c->next;
			close(c->pidfd);
			close(c->sock);
			free(c);
		}
	}
	while (s->head)
		sess_drop(s, s->head);
	bury(s);
	for (size_t i = 0; i < s->nlst; i++)
		if (s->lst[i].fd >= 0)
			close(s->lst[i].fd);
	if (s->ep >= 0)
		close(s->ep);
	if (s->stop.fd >= 0)
		close(s->stop.fd);
	if (s->shared)
		munmap((void *)s->shared, 2 * sizeof(uint64_t));
	free(s);
}

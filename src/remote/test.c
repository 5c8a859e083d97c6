/* SPDX-License-Identifier: MIT */
/*
 * One test in its own process: announce the data port and the cookie,
 * then for each run open the data endpoint (only a peer presenting the
 * cookie is taken), serve it until the client ends the run, and send the
 * server side's figures; end with the server's fingerprint.  Its record
 * goes back to the server's main process in one write.
 *
 *   client                               test process
 *     <------------- accept {test_id, cookie, data_port}
 *     run {run} -------------->
 *     data: connect, cookie ---> (others: refused, counted)
 *     <------------- ready {run}
 *     ...measured loop on the data endpoint only...
 *     run_end {run} ---------->
 *     <------------- run_stats {cpu, messages, others}
 *     done ------------------->
 *     <------------- bye {host}
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipcperf/engine.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "ipcperf/run.h"
#include "remote/remote_internal.h"
#include "base/lib_internal.h"
#include "framing/lib_internal.h"
#include "run/lib_internal.h"
#include "explain/lib_internal.h"

struct tst {
	struct rm_test_ctx *ctx;
	const struct ipc_server_conf *conf;
	const struct ipc_rtest *t;
	int family, type;
	int lfd;     /* tcp: the data listener; udp: the data socket */
	int data_fd; /* this run's endpoint (udp: lfd, connected) */
	uint8_t cookie[IPC_REMOTE_COOKIE_BYTES];
	uint64_t end_ns; /* --max-test for this test */
	uint64_t next_run;
	uint64_t started0, running0; /* shared counters at run start */
	struct rm_record rec;
	struct ipc_trace *trace; /* replay: the conversation the client sent */
	struct ipc_case cs;	 /* the server side of the test */
	struct ipc_runopts ro;
	struct ipc_serve_state *srv; /* its buffers, for every run */
	struct ipc_pmqos pm_qos;     /* held while the test lasts */
	/* --explain, where the client asked: loaded by the first run */
	struct ipc_explain *explain;
	bool explain_tried;
	char explain_why[160];
};

/* Deadline for the next control message: the timeout, within the test. */
static uint64_t ctl_deadline(const struct tst *ts, bool in_run)
{
	uint64_t d = in_run ? ts->end_ns
			    : ipc_now_ns() + ts->conf->control_timeout_ns;

	return d < ts->end_ns ? d : ts->end_ns;
}

__attribute__((format(printf, 4, 5))) static int
fail(struct tst *ts, enum ipc_rerr code, int status, const char *fmt, ...)
{
	struct ipc_rmsg m = {.type = IPC_RM_ERROR, .code = code};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m.message, sizeof(m.message), fmt, ap);
	va_end(ap);
	rm_safe(m.message, sizeof(m.message), IPC_TEXT_ASCII);
	rm_strlcpy(ts->rec.reason, m.message, sizeof(ts->rec.reason));
	ts->rec.status = status;
	/* Best effort, briefly: the client may be gone. */
	ipc_rwire_send(ts->ctx->ctl_fd, &m, ipc_now_ns() + 1000000000ull, -1);
	return -1;
}

static int data_open(struct tst *ts, char *why, size_t why_len)
{
	struct sockaddr_storage ss = ts->ctx->local;
	socklen_t len = ts->ctx->local_len;
	const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)&ss;
	int one = 1, fd;

	/*
	 * Bind where the control connection arrived when the family
	 * matches, else on the family's wildcard: the client reaches the
	 * data port at the host name it used, in the transport's family.
	 */
	if (ss.ss_family != ts->family ||
	    (ss.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&l6->sin6_addr)))
		ipc_addr_parse(ts->family == AF_INET6 ? "[::]" : "0.0.0.0",
			       ts->family, 0, &ss, &len, NULL, 0);
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	else
		((struct sockaddr_in *)&ss)->sin_port = 0;
	/*
	 * Blocking: the run layer's server side accepts and receives on it;
	 * our own waits poll it and read with MSG_DONTWAIT.
	 */
	fd = socket(ts->family, ts->type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto err;
	if (ts->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len))
		goto err;
	if (ts->type == SOCK_STREAM && listen(fd, 4096))
		goto err;
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	ts->lfd = fd;
	return ntohs(ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port);
err:
	snprintf(why, why_len, "cannot open the data port: %s",
		 strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool cookie_ok(const struct tst *ts, const uint8_t *p, size_t n)
{
	return n == IPC_REMOTE_COOKIE_BYTES &&
	       crypto_verify_16(p, ts->cookie) == 0;
}

/* A message or end-of-file on the control connection, or a stop. */
static bool ctl_or_stop(const struct pollfd *p)
{
	return p[0].revents || p[1].revents;
}

/*
 * What the socket queued before connect() stays queued from any sender:
 * drop it all, before the echo tells the client to begin (so that none of
 * its data can be in it), counting what came from others.
 */
static void drain_udp(struct tst *ts, const struct sockaddr_storage *client,
		      socklen_t clen)
{
	struct sockaddr_storage from;
	socklen_t flen;
	uint8_t buf[64];
	ssize_t r;

	for (;;) {
		flen = sizeof(from);
		r = recvfrom(ts->lfd, buf, sizeof(buf),
			     MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from,
			     &flen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return;
		if (flen != clen || memcmp(&from, client, clen))
			ts->rec.rejected++;
	}
}

/*
 * UDP: the first datagram that is exactly the cookie names the client;
 * the socket is connected to it and the cookie echoed as the
 * acknowledgement.  Anything else is dropped and counted.
 */
static int wait_udp(struct tst *ts, uint64_t deadline)
{
	struct pollfd p[3];
	struct sockaddr_storage from;
	socklen_t flen;
	uint8_t buf[64];
	ssize_t r;
	int n;

	while (ipc_now_ns() < deadline) {
		p[0] = (struct pollfd){ts->ctx->ctl_fd, POLLIN, 0};
		p[1] = (struct pollfd){ts->ctx->stop_fd, POLLIN, 0};
		p[2] = (struct pollfd){ts->lfd, POLLIN, 0};
		n = poll(p, 3, rm_poll_ms(deadline));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (ctl_or_stop(p))
			return -ECANCELED;
		if (!p[2].revents)
			continue;
		flen = sizeof(from);
		r = recvfrom(ts->lfd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &flen);
		if (r < 0)
			continue;
		if (!cookie_ok(ts, buf, (size_t)r)) {
			ts->rec.rejected++;
			continue;
		}
		if (connect(ts->lfd, (struct sockaddr *)&from, flen))
			return -errno;
		drain_udp(ts, &from, flen);
		send(ts->lfd, ts->cookie, sizeof(ts->cookie), MSG_DONTWAIT);
		ts->data_fd = ts->lfd;
		return 0;
	}
	return -ETIMEDOUT;
}

static void data_close(struct tst *ts)
{
	struct sockaddr sa = {.sa_family = AF_UNSPEC};

	if (ts->data_fd < 0)
		return;
	if (ts->type == SOCK_DGRAM)
		connect(ts->lfd, &sa, sizeof(sa)); /* open to the next run */
	else
		close(ts->data_fd);
	ts->data_fd = -1;
}

/* The server side of one run, in a helper thread while the control waits. */
struct serve_job {
	struct tst *ts;
	struct ipc_chan ch;
	struct ipc_cancel stop;
	struct ipc_pout out;
	struct ipc_side_cost cost;
	uint64_t taken; /* tcp: data connections taken (with the cookie) */
	struct ipc_explain *explain; /* --explain: watching this run */
};

static void *serve_thread(void *arg)
{
	struct serve_job *j = arg;
	int w = ipc_cancel_watch(&j->stop);

	if (w < 0) {
		j->out.err = w;
		snprintf(j->out.what, sizeof(j->out.what), "watch the stop: %s",
			 strerror(-w));
		return NULL;
	}
	if (j->explain) {
		/* The serving thread, counted whole from here to run_end. */
		ipc_explain_watch(j->explain, 0, IPC_XCLIENT);
		ipc_explain_window(j->explain)[0] = ipc_now_ns();
	}
	ipc_serve_once(j->ts->srv, &j->ch, &j->stop, &j->out, &j->cost);
	ipc_cancel_unwatch(&j->stop, w);
	return NULL;
}

/*
 * The run's channel, as the run layer's server side opens it: tcp, the
 * data listener in slot 0 (each connection must show the cookie); udp,
 * the socket already connected to the client in the server's slot.
 */
static int job_chan(struct serve_job *j)
{
	struct tst *ts = j->ts;
	struct ipc_chan *ch = &j->ch;
	int fd = dup(ts->type == SOCK_STREAM ? ts->lfd : ts->data_fd);

	if (fd < 0)
		return -errno;
	memset(ch, 0, sizeof(*ch));
	ch->ops = ts->cs.tp;
	ch->opts = ts->ro.tp;
	for (int i = 0; i < IPC_CHAN_FDS; i++) {
		ch->fd[i] = -1;
		ch->fd_side[i] = -1;
	}
	if (ts->type == SOCK_STREAM) {
		ch->opts.preamble = ts->cookie;
		ch->opts.preamble_len = sizeof(ts->cookie);
		ch->opts.preamble_wait_ns = ts->conf->control_timeout_ns;
		ch->opts.preamble_refused = &ts->rec.rejected;
		ch->opts.preamble_taken = &j->taken;
		ch->fd[0] = fd;
	} else {
		ch->fd[IPC_SERVER] = fd;
		ch->fd_side[IPC_SERVER] = IPC_SERVER;
	}
	return 0;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull +
	       (uint64_t)tv->tv_usec * 1000;
}

static uint64_t load_shared(const struct tst *ts, int i)
{
	return __atomic_load_n(&ts->ctx->shared[i], __ATOMIC_SEQ_CST);
}

/*
 * Whether a tcp run's data connections carried anything but the cookie,
 * either way.  They belong to the run layer's server side, in this
 * process: found among its descriptors as the connected (not listening)
 * sockets on the data port, and TCP_INFO counts what each received and
 * what its peer acknowledged.
 */
static bool data_moved(const struct tst *ts)
{
	struct sockaddr_storage ss, ls;
	socklen_t len = sizeof(ls);
	struct tcp_info ti;
	struct dirent *e;
	bool moved = false;
	DIR *d;

	if (getsockname(ts->lfd, (struct sockaddr *)&ls, &len))
		return true;
	d = opendir("/proc/self/fd");
	if (!d)
		return true; /* cannot tell: the test's own limit applies */
	while (!moved && (e = readdir(d))) {
		int fd = atoi(e->d_name), acc = 1;
		socklen_t l = sizeof(acc);

		if (fd <= 2 || fd == ts->lfd || fd == dirfd(d) ||
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) || acc)
			continue;
		l = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &l) ||
		    ss.ss_family != ls.ss_family ||
		    (ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port !=
				       ((struct sockaddr_in6 *)&ls)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port !=
				       ((struct sockaddr_in *)&ls)->sin_port))
			continue;
		l = sizeof(ti);
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l))
			continue;
		moved = ti.tcpi_bytes_received > IPC_REMOTE_COOKIE_BYTES ||
			ti.tcpi_bytes_acked > 0;
	}
	closedir(d);
	return moved;
}

/*
 * When the data socket last handed a datagram to the serving thread, as
 * the kernel stamped its arrival (SIOCGSTAMP; the first call turns the
 * stamps on): 0 when none has been read yet, UINT64_MAX when it cannot
 * be asked.
 */
static uint64_t last_read_us(int fd)
{
	struct timeval tv;

	if (ioctl(fd, SIOCGSTAMP, &tv))
		return errno == ENOENT ? 0 : UINT64_MAX;
	return (uint64_t)tv.tv_sec * 1000000ull + (uint64_t)tv.tv_usec;
}

/*
 * UDP: the client sends all through a run (requests, data, a stream's
 * END again and again), so a window without one datagram is a client
 * gone idle: the control timeout, or twice the test's own --timeout
 * when that is longer (a client waits that long for a lost reply before
 * it sends again).  A client can always keep its slot by sending a
 * trickle; this ends one that stopped.  Datagrams are read by the
 * serving thread, never here: the socket's stamp of the last one read,
 * asked once per window, tells whether any came, and the run is not
 * woken for it.  0 when a control message is in, -ENODATA when a whole
 * window passed without a datagram, else as rm_wait (-ETIMEDOUT at
 * --max-test).
 */
static int wait_udp_ctl(struct tst *ts)
{
	uint64_t win = ts->conf->control_timeout_ns, until, at;
	uint64_t seen = last_read_us(ts->data_fd);
	int rc = -ETIMEDOUT;

	if (ts->ro.timeout_ns > win / 2)
		win = ts->ro.timeout_ns > UINT64_MAX / 2
			      ? UINT64_MAX
			      : 2 * ts->ro.timeout_ns;
	while (rc == -ETIMEDOUT) {
		until = ipc_now_ns() + win;
		if (until > ts->end_ns || until < win)
			until = ts->end_ns;
		rc = rm_wait(ts->ctx->ctl_fd, POLLIN, until, ts->ctx->stop_fd);
		if (rc == -ETIMEDOUT && until >= ts->end_ns)
			break;
		/* A socket that cannot say keeps the test's own limit. */
		at = last_read_us(ts->data_fd);
		if (rc == -ETIMEDOUT && at == seen && at != UINT64_MAX)
			rc = -ENODATA;
		seen = at;
	}
	return rc;
}

/*
 * The run's end.  A tcp client has a control timeout from "ready" to
 * connect and to start (after that the test's own limit): one that never
 * connects, or connects and then sends and reads nothing, a client that
 * only wanted to hold a test slot, does not keep it longer.  -EHOSTDOWN
 * when it did not connect, -ENODATA when its connection stayed idle (a
 * udp client: when it sent nothing for a control timeout, at any time).
 */
static int wait_run_end(struct tst *ts, struct serve_job *job,
			struct ipc_rmsg *m, char *why, size_t why_len)
{
	uint64_t first = ctl_deadline(ts, false);
	int rc;

	/*
	 * Waiting only: nothing of a message is read before its recv, which
	 * also tells a stop and --max-test apart.
	 */
	if (ts->type == SOCK_DGRAM) {
		if (wait_udp_ctl(ts) == -ENODATA)
			return -ENODATA;
	} else if (first < ts->end_ns) {
		rc = rm_wait(ts->ctx->ctl_fd, POLLIN, first, ts->ctx->stop_fd);
		if (rc == -ETIMEDOUT &&
		    !__atomic_load_n(&job->taken, __ATOMIC_RELAXED))
			return -EHOSTDOWN;
		/* A second connection (crr) is progress already. */
		if (rc == -ETIMEDOUT &&
		    __atomic_load_n(&job->taken, __ATOMIC_RELAXED) < 2 &&
		    !data_moved(ts))
			return -ENODATA;
	}
	return ipc_rwire_recv(ts->ctx->ctl_fd, m, IPC_REMOTE_MSG_MAX,
			      ctl_deadline(ts, true), ts->ctx->stop_fd, why,
			      why_len);
}

/*
 * --explain for this run, only where the client asked: the program
 * loaded by the first run (it stays until the test's process ends),
 * reset for each; NULL, with explain_why, where it cannot be (not root,
 * no BTF...).
 */
static struct ipc_explain *run_explain(struct tst *ts)
{
	int err;

	if (!ts->ro.explain)
		return NULL;
	if (!ts->explain_tried) {
		ts->explain_tried = true;
		ipc_explain_open(&ts->explain, ts->explain_why,
				 sizeof(ts->explain_why));
	}
	if (!ts->explain)
		return NULL;
	err = ipc_explain_reset(ts->explain);
	if (!err)
		return ts->explain;
	snprintf(ts->explain_why, sizeof(ts->explain_why),
		 "cannot reset the counters: %s", strerror(-err));
	return NULL;
}

/* One run, from "run" received to "run_stats" sent.  0 or -1 (failed). */
static int one_run(struct tst *ts, uint64_t run)
{
	struct serve_job job = {.ts = ts};
	struct rusage ru0, ru1;
	struct ipc_rmsg m = {0};
	char why[IPC_RM_TEXT_MAX];
	pthread_t th;
	uint64_t others;
	int rc;

	if (run != ts->next_run)
		return fail(ts, IPC_RERR_PROTOCOL, 1,
			    "run %llu announced, run %llu expected",
			    (unsigned long long)run,
			    (unsigned long long)ts->next_run);
	/* TCP: the server side accepts and checks the cookie itself. */
	rc = ts->type == SOCK_STREAM ? 0
				     : wait_udp(ts, ctl_deadline(ts, false));
	if (rc == -ECANCELED)
		return fail(ts, IPC_RERR_ABORT, 2,
			    "run %llu: the test ended before its data "
			    "connection",
			    (unsigned long long)run);
	if (rc)
		return fail(ts, IPC_RERR_TIMEOUT, 1,
			    "run %llu: no data %s with the test's cookie: %s",
			    (unsigned long long)run,
			    ts->type == SOCK_STREAM ? "connection" : "datagram",
			    strerror(-rc));
	ts->started0 = load_shared(ts, 0);
	ts->running0 = load_shared(ts, 1);
	job.explain = run_explain(ts);
	getrusage(RUSAGE_SELF, &ru0);
	rc = ipc_cancel_init(&job.stop);
	if (!rc)
		rc = job_chan(&job);
	if (!rc)
		rc = ipc_thread_start(&th, serve_thread, &job);
	if (rc) {
		ipc_cancel_fini(&job.stop);
		data_close(ts);
		return fail(ts, IPC_RERR_FAILED, 1,
			    "cannot start the server side: %s", strerror(-rc));
	}
	m.type = IPC_RM_READY;
	m.run = run;
	rc = ipc_rwire_send(ts->ctx->ctl_fd, &m, ctl_deadline(ts, false),
			    ts->ctx->stop_fd);
	if (!rc)
		rc = wait_run_end(ts, &job, &m, why, sizeof(why));
	if (job.explain)
		ipc_explain_window(job.explain)[1] = ipc_now_ns();
	ipc_cancel_fire(&job.stop);
	pthread_join(th, NULL);
	ts->cs.tp->teardown(&job.ch);
	ipc_cancel_fini(&job.stop);
	getrusage(RUSAGE_SELF, &ru1);
	data_close(ts);
	if (rc == -ECANCELED)
		return fail(ts, IPC_RERR_STOPPING, 2,
			    "the server is stopping: run %llu aborted",
			    (unsigned long long)run);
	if (rc == -EHOSTDOWN)
		return fail(ts, IPC_RERR_TIMEOUT, 1,
			    "run %llu: no data connection with the test's "
			    "cookie within the control timeout",
			    (unsigned long long)run);
	if (rc == -ENODATA && ts->type == SOCK_DGRAM)
		return fail(ts, IPC_RERR_TIMEOUT, 1,
			    "run %llu: no datagram from the client for the "
			    "control timeout (or twice its --timeout): an idle "
			    "client does not hold a test slot",
			    (unsigned long long)run);
	if (rc == -ENODATA)
		return fail(ts, IPC_RERR_TIMEOUT, 1,
			    "run %llu: the data connection stayed idle for the "
			    "control timeout after the cookie: an idle client "
			    "does not hold a test slot",
			    (unsigned long long)run);
	if (rc == -ETIMEDOUT)
		return fail(ts, IPC_RERR_TIMEOUT, 1,
			    "run %llu passed the server's --max-test",
			    (unsigned long long)run);
	if (rc == -ENOLINK)
		return fail(ts, IPC_RERR_ABORT, 1,
			    "run %llu: the client is unreachable (the control "
			    "connection's keep-alive went unanswered)",
			    (unsigned long long)run);
	if (rc)
		return fail(ts,
			    rc == -EPROTO || rc == -EMSGSIZE ? IPC_RERR_PROTOCOL
							     : IPC_RERR_ABORT,
			    rc == -ECONNRESET ? 2 : 1, "run %llu: %s",
			    (unsigned long long)run,
			    why[0] ? why : strerror(-rc));
	if (m.type != IPC_RM_RUN_END || m.run != run)
		return fail(ts, IPC_RERR_PROTOCOL, 1,
			    "unexpected '%s' during run %llu (expected "
			    "run_end)",
			    ipc_rmsg_name(m.type), (unsigned long long)run);
	others = (ts->running0 ? ts->running0 - 1 : 0) + load_shared(ts, 0) -
		 ts->started0;
	if (others > ts->rec.others_max)
		ts->rec.others_max = others;
	memset(&m, 0, sizeof(m));
	m.type = IPC_RM_RUN_STATS;
	m.stats.run = run;
	m.stats.messages = job.out.messages;
	m.stats.bytes = job.out.bytes;
	if (job.out.err && job.out.err != -EINTR && job.out.err != -ECANCELED) {
		m.stats.err = -job.out.err;
		rm_strlcpy(m.stats.what, job.out.what, sizeof(m.stats.what));
	}
	/* The serving thread's own cost, else the whole test process's. */
	if (job.cost.valid) {
		m.stats.user_ns = job.cost.user_ns;
		m.stats.sys_ns = job.cost.sys_ns;
		m.stats.vcsw = job.cost.vcsw;
		m.stats.ivcsw = job.cost.ivcsw;
	} else {
		m.stats.user_ns = tv_ns(&ru1.ru_utime) - tv_ns(&ru0.ru_utime);
		m.stats.sys_ns = tv_ns(&ru1.ru_stime) - tv_ns(&ru0.ru_stime);
		m.stats.vcsw = (uint64_t)(ru1.ru_nvcsw - ru0.ru_nvcsw);
		m.stats.ivcsw = (uint64_t)(ru1.ru_nivcsw - ru0.ru_nivcsw);
	}
	m.stats.others = others;
	m.stats.rejected = ts->rec.rejected;
	if (ts->ro.explain)
		rm_xserve_text(job.explain, ts->explain_why, m.stats.explain,
			       sizeof(m.stats.explain));
	rc = ipc_rwire_send(ts->ctx->ctl_fd, &m, ctl_deadline(ts, false),
			    ts->ctx->stop_fd);
	if (rc)
		return fail(ts, IPC_RERR_ABORT, 2, "run %llu: %s",
			    (unsigned long long)run, strerror(-rc));
	ts->next_run++;
	ts->rec.runs++;
	return 0;
}

/*
 * The server's fingerprint for "bye": the host probe's figures that say
 * what machine served (those it could not read are left out).
 */
/* The server's fingerprint, with its side of --pm-qos, as JSON text. */
static void host_json(char *buf, size_t len, const struct ipc_pmqos *q)
{
	struct ipc_host *h = calloc(1, sizeof(*h));
	json_t *o = json_object();
	char *text = NULL;

	buf[0] = '\0';
	if (!o || !h)
		goto out;
	ipc_host_probe(h);
	/* What the test process held, not what the probe found. */
	h->pm_qos = *q;
	if (ipc_host_put(o, h, IPC_HOST_PEER))
		goto out;
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (text && strlen(text) < len) {
		memcpy(buf, text, strlen(text) + 1);
		rm_safe(buf, len, IPC_TEXT_ASCII);
	}
out:
	free(text);
	free(h);
	json_decref(o);
}

/*
 * Replay: the conversation's text, in "trace" messages right after the
 * accept, exactly trace_bytes of it, parsed as a trace file would be.
 */
static int take_trace(struct tst *ts)
{
	size_t want = ts->t->trace_bytes, got = 0;
	char why[IPC_RM_TEXT_MAX], err[200];
	struct ipc_rmsg *m;
	char *text;
	int rc = 0;

	if (!want)
		return 0;
	text = malloc(want + 1);
	m = malloc(sizeof(*m));
	if (!text || !m) {
		free(text);
		free(m);
		return fail(ts, IPC_RERR_FAILED, 1,
			    "out of memory for the "
			    "trace");
	}
	while (!rc && got < want) {
		rc = ipc_rwire_recv(ts->ctx->ctl_fd, m, IPC_REMOTE_MSG_MAX,
				    ctl_deadline(ts, false), ts->ctx->stop_fd,
				    why, sizeof(why));
		if (rc)
			rc = fail(ts,
				  rc == -ETIMEDOUT ? IPC_RERR_TIMEOUT
						   : IPC_RERR_PROTOCOL,
				  rc == -ECONNRESET || rc == -ECANCELED ? 2 : 1,
				  "the trace after %zu of %zu bytes: %s", got,
				  want, why[0] ? why : strerror(-rc));
		else if (m->type != IPC_RM_TRACE)
			rc = fail(ts, IPC_RERR_PROTOCOL, 1,
				  "unexpected '%s' after %zu of %zu bytes of "
				  "trace",
				  ipc_rmsg_name(m->type), got, want);
		else if (m->data_len > want - got)
			rc = fail(ts, IPC_RERR_PROTOCOL, 1,
				  "more trace than the %zu bytes announced",
				  want);
		else {
			memcpy(text + got, m->data, m->data_len);
			got += m->data_len;
		}
	}
	if (!rc &&
	    ipc_trace_parse("remote", text, want, &ts->trace, err, sizeof(err)))
		rc = fail(ts, IPC_RERR_REFUSED, 1, "the trace, line %s", err);
	free(text);
	free(m);
	return rc;
}

static int serve(struct tst *ts)
{
	struct ipc_rmsg m = {0};
	char why[IPC_RM_TEXT_MAX];
	int port, rc;

	if (rm_transport_socket(ts->t->transport, &ts->family, &ts->type))
		return fail(ts, IPC_RERR_REFUSED, 1, "transport '%s' refused",
			    ts->t->transport);
	/* Checked as the server checked it before the accept. */
	if (rm_test_case(ts->t, NULL, &ts->cs, &ts->ro, why, sizeof(why)))
		return fail(ts, IPC_RERR_REFUSED, 1, "%s", why);
	port = data_open(ts, why, sizeof(why));
	if (port < 0)
		return fail(ts, IPC_RERR_FAILED, 1, "%s", why);
	ipc_random_bytes(ts->cookie, sizeof(ts->cookie));
	m.type = IPC_RM_ACCEPT;
	m.test_id = ts->ctx->test_id;
	memcpy(m.cookie, ts->cookie, sizeof(m.cookie));
	m.data_port = (uint64_t)port;
	m.max_test_ns = ts->conf->max_test_ns;
	m.running = load_shared(ts, 1) - 1;
	rc = ipc_rwire_send(ts->ctx->ctl_fd, &m, ctl_deadline(ts, false),
			    ts->ctx->stop_fd);
	if (rc)
		return fail(ts, IPC_RERR_ABORT, 2, "sending accept: %s",
			    strerror(-rc));
	if (take_trace(ts))
		return -1;
	/* Again with the trace, if any: a replay's sizes are in it. */
	if (rm_test_case(ts->t, ts->trace, &ts->cs, &ts->ro, why, sizeof(why)))
		return fail(ts, IPC_RERR_REFUSED, 1, "%s", why);
	rc = ipc_serve_begin(&ts->cs, &ts->ro, &ts->srv);
	if (rc)
		return fail(ts, IPC_RERR_FAILED, 1,
			    "cannot prepare the server side: %s",
			    strerror(-rc));
	for (;;) {
		rc = ipc_rwire_recv(ts->ctx->ctl_fd, &m, IPC_REMOTE_MSG_MAX,
				    ctl_deadline(ts, false), ts->ctx->stop_fd,
				    why, sizeof(why));
		if (rc == -ECANCELED)
			return fail(ts, IPC_RERR_STOPPING, 2,
				    "the server is stopping: test aborted");
		if (rc == -ENOLINK)
			return fail(ts, IPC_RERR_ABORT, 1,
				    "the client is unreachable (the control "
				    "connection's keep-alive went unanswered)");
		if (rc == -ECONNRESET)
			return fail(ts, IPC_RERR_ABORT, 2,
				    "the client closed the connection after "
				    "%llu runs",
				    (unsigned long long)ts->rec.runs);
		if (rc)
			return fail(ts,
				    rc == -ETIMEDOUT ? IPC_RERR_TIMEOUT
						     : IPC_RERR_PROTOCOL,
				    1, "%s",
				    why[0] ? why
				    : rc == -ETIMEDOUT
					    ? "no message within the "
					      "deadline"
					    : strerror(-rc));
		switch (m.type) {
		case IPC_RM_RUN:
			if (one_run(ts, m.run))
				return -1;
			break;
		case IPC_RM_DONE:
			/*
			 * Off the running count before the bye, so that the
			 * same client's next test does not count this one as
			 * another test running beside it.
			 */
			__atomic_sub_fetch(&ts->ctx->shared[1], 1,
					   __ATOMIC_SEQ_CST);
			ts->rec.released = true;
			memset(&m, 0, sizeof(m));
			m.type = IPC_RM_BYE;
			host_json(m.host, sizeof(m.host), &ts->pm_qos);
			ipc_rwire_send(ts->ctx->ctl_fd, &m,
				       ctl_deadline(ts, false),
				       ts->ctx->stop_fd);
			ts->rec.status = 0;
			return 0;
		case IPC_RM_ERROR:
			ts->rec.status = 2;
			snprintf(ts->rec.reason, sizeof(ts->rec.reason),
				 "the client gave up: %.*s",
				 (int)ipc_text_cut(m.message, 200), m.message);
			return -1;
		default:
			return fail(ts, IPC_RERR_PROTOCOL, 1,
				    "unexpected '%s' (expected run or done)",
				    ipc_rmsg_name(m.type));
		}
	}
}

/*
 * The test's memory, whatever allocates it (a trace's parse grows by
 * doubling: a 16 MiB trace of one-byte units took 562 MiB): the buffer
 * budget, and as much again for the trace, stacks and the rest.  An
 * allocation past it fails and the test ends with that failure.  Not
 * under AddressSanitizer, whose shadow memory is data too.
 */
static void data_limit(void)
{
#ifndef __SANITIZE_ADDRESS__
	struct rlimit rl;

	if (getrlimit(RLIMIT_DATA, &rl))
		return;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > RM_TEST_DATA_MAX)
		rl.rlim_cur = RM_TEST_DATA_MAX;
	setrlimit(RLIMIT_DATA, &rl);
#endif
}

int rm_test_main(struct rm_test_ctx *ctx)
{
	struct tst ts = {.ctx = ctx,
			 .conf = ctx->conf,
			 .t = &ctx->req.test,
			 .lfd = -1,
			 .data_fd = -1};
	ssize_t w;

	ts.end_ns = ipc_now_ns() + ctx->conf->max_test_ns;
	data_limit();
	rm_control_sockopts(ctx->ctl_fd, ctx->conf->control_timeout_ns);
	/*
	 * The server's side is measured as the client's is: its CPU wakes
	 * for every message, so it holds the same request (recorded in the
	 * fingerprint), for this test only; exiting withdraws it anyway.
	 */
	ipc_pmqos_hold(&ts.pm_qos,
		       ctx->conf->pm_qos_device ? ctx->conf->pm_qos_device
						: IPC_PMQOS_DEVICE,
		       ctx->conf->pm_qos_us, ctx->conf->cpuidle_file);
	serve(&ts);
	ipc_explain_free(ts.explain);
	ipc_pmqos_release(&ts.pm_qos);
	ipc_trace_free(ts.trace);
	ipc_serve_end(ts.srv);
	data_close(&ts);
	if (ts.lfd >= 0)
		close(ts.lfd);
	/*
	 * Off the running count before the client sees the end, whichever
	 * way the test ended, so that a client that starts its next test at
	 * once is not told busy by a process that is only exiting.
	 */
	if (!ts.rec.released) {
		__atomic_sub_fetch(&ctx->shared[1], 1, __ATOMIC_SEQ_CST);
		ts.rec.released = true;
	}
	shutdown(ctx->ctl_fd, SHUT_WR);
	close(ctx->ctl_fd);
	do
		w = send(ctx->status_fd, &ts.rec, sizeof(ts.rec), MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return ts.rec.status;
}

/* SPDX-License-Identifier: MIT */
/*
 * The client's side of the control exchange: connect, hello, mutual
 * authentication with a key, the test request, and per run the data
 * endpoint with its cookie.  Every message waits under the deadline; the
 * measured loops never come here.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipcperf/transport.h"
#include "remote/remote_internal.h"
#include "base/lib_internal.h"
#include "transport/lib_internal.h"

struct ipc_rclient {
	int fd;
	struct ipc_rclient_conf conf;
	char host[256]; /* as given, to resolve again per data family */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	uint8_t cookie[IPC_REMOTE_COOKIE_BYTES];
	uint64_t data_port;
	bool accepted;
};

static uint64_t deadline(const struct ipc_rclient *c)
{
	return ipc_now_ns() + c->conf.timeout_ns;
}

/* The server's error message as the reason, -EBUSY for busy. */
static int server_error(const struct ipc_rmsg *m, char *why, size_t why_len)
{
	snprintf(why, why_len, "the server refused: %s", m->message);
	switch (m->code) {
	case IPC_RERR_BUSY:
		return -EBUSY;
	case IPC_RERR_AUTH:
		return -EACCES;
	case IPC_RERR_VERSION:
		return -EPROTONOSUPPORT;
	case IPC_RERR_STOPPING:
		return -ESHUTDOWN;
	case IPC_RERR_TIMEOUT:
		return -ETIMEDOUT;
	default:
		return -EPROTO;
	}
}

/* Send @m and read the answer, which must be of type @want. */
static int exchange(struct ipc_rclient *c, const struct ipc_rmsg *m,
		    enum ipc_rmsg_type want, struct ipc_rmsg *ans, char *why,
		    size_t why_len)
{
	int rc = ipc_rwire_send(c->fd, m, deadline(c), -1);

	if (rc) {
		snprintf(why, why_len, "sending %s: %s", ipc_rmsg_name(m->type),
			 strerror(-rc));
		return rc;
	}
	why[0] = '\0';
	rc = ipc_rwire_recv(c->fd, ans, IPC_REMOTE_MSG_MAX, deadline(c), -1,
			    why, why_len);
	if (rc) {
		char inner[IPC_RM_TEXT_MAX];

		rm_strlcpy(inner, why[0] ? why : strerror(-rc), sizeof(inner));
		snprintf(why, why_len, "waiting for %s: %s",
			 ipc_rmsg_name(want),
			 rc == -ECONNRESET ? "the server closed the connection"
			 : rc == -ETIMEDOUT
				 ? "no answer within the control timeout"
				 : inner);
		return rc;
	}
	if (ans->type == IPC_RM_ERROR)
		return server_error(ans, why, why_len);
	if (ans->type != want) {
		snprintf(why, why_len, "the server sent '%s' instead of %s",
			 ipc_rmsg_name(ans->type), ipc_rmsg_name(want));
		return -EPROTO;
	}
	return 0;
}

/* Connect to @ss under the deadline; a blocking descriptor or -errno. */
static int connect_by(const struct sockaddr_storage *ss, socklen_t len,
		      int type, uint64_t dl)
{
	int fd, rc = 0, err = 0;
	socklen_t elen = sizeof(err);

	fd = socket(ss->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)ss, len)) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			goto out;
		}
		rc = rm_wait(fd, POLLOUT, dl, -1);
		if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
			rc = -errno;
		if (!rc && err)
			rc = -err;
	}
out:
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

static int authenticate(struct ipc_rclient *c, const struct ipc_rmsg *wel,
			char *why, size_t why_len)
{
	struct ipc_rmsg m = {.type = IPC_RM_AUTH}, ans;
	int rc;

	if (wel->auth && !c->conf.key) {
		snprintf(why, why_len,
			 "the server requires a key: give the same --key FILE "
			 "as the server's");
		return -EACCES;
	}
	if (!wel->auth && c->conf.key) {
		/* It could be anyone: a key means both sides prove it. */
		snprintf(why, why_len,
			 "the server does not authenticate, but --key was "
			 "given: refusing an unproven server");
		return -EACCES;
	}
	if (!wel->auth)
		return 0;
	ipc_random_bytes(m.nonce, sizeof(m.nonce));
	ipc_rauth_mac(c->conf.key, IPC_RAUTH_CLIENT, wel->nonce, m.nonce,
		      m.mac);
	rc = exchange(c, &m, IPC_RM_AUTH_OK, &ans, why, why_len);
	if (rc)
		return rc;
	if (!ipc_rauth_check(c->conf.key, IPC_RAUTH_SERVER, wel->nonce, m.nonce,
			     ans.mac)) {
		snprintf(why, why_len,
			 "the server's proof of the key is wrong: it does not "
			 "hold the same key");
		return -EACCES;
	}
	return 0;
}

int ipc_rclient_open(const struct ipc_rclient_conf *conf,
		     struct ipc_rclient **out, char *why, size_t why_len)
{
	struct ipc_rclient *c;
	struct ipc_rmsg m = {.type = IPC_RM_HELLO}, wel;
	char addr[80];
	const char *colon;
	int rc;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = -1;
	c->conf = *conf;
	if (!c->conf.timeout_ns)
		c->conf.timeout_ns = IPC_REMOTE_CONTROL_TIMEOUT_NS;
	if (!c->conf.software)
		c->conf.software = "ipcperf";
	/* The host part, for the data endpoints' own resolution. */
	if (conf->server[0] == '[') {
		colon = strchr(conf->server, ']');
		rm_strlcpy(c->host, conf->server + 1,
			   colon ? (size_t)(colon - conf->server)
				 : sizeof(c->host));
	} else {
		colon = strrchr(conf->server, ':');
		if (colon && strchr(conf->server, ':') != colon)
			colon = NULL;
		rm_strlcpy(c->host, conf->server,
			   colon ? (size_t)(colon - conf->server) + 1
				 : sizeof(c->host));
	}
	rc = ipc_addr_parse(conf->server, AF_UNSPEC, IPC_REMOTE_PORT, &c->addr,
			    &c->addr_len, why, why_len);
	if (rc)
		goto fail;
	rc = connect_by(&c->addr, c->addr_len, SOCK_STREAM, deadline(c));
	if (rc < 0) {
		snprintf(why, why_len, "cannot connect to %s: %s",
			 ipc_addr_format((struct sockaddr *)&c->addr,
					 c->addr_len, addr, sizeof(addr)),
			 strerror(-rc));
		goto fail;
	}
	c->fd = rc;
	rm_control_sockopts(c->fd, c->conf.timeout_ns);
	m.proto = IPC_REMOTE_PROTO;
	rm_strlcpy(m.software, c->conf.software, sizeof(m.software));
	rc = exchange(c, &m, IPC_RM_WELCOME, &wel, why, why_len);
	if (rc)
		goto fail;
	if (wel.proto != IPC_REMOTE_PROTO) {
		snprintf(why, why_len,
			 "the server speaks protocol version %llu, this client "
			 "version %d",
			 (unsigned long long)wel.proto, IPC_REMOTE_PROTO);
		rc = -EPROTONOSUPPORT;
		goto fail;
	}
	rc = authenticate(c, &wel, why, why_len);
	if (rc)
		goto fail;
	*out = c;
	return 0;
fail:
	ipc_rclient_free(c);
	return rc;
}

int ipc_rclient_test(struct ipc_rclient *c, const struct ipc_rtest *t,
		     struct ipc_rmsg *acc, char *why, size_t why_len)
{
	struct ipc_rmsg m = {.type = IPC_RM_TEST};
	int rc;

	m.test = *t;
	rc = exchange(c, &m, IPC_RM_ACCEPT, acc, why, why_len);
	if (rc)
		return rc;
	if (acc->data_port == 0) {
		snprintf(why, why_len, "the server announced data port 0");
		return -EPROTO;
	}
	memcpy(c->cookie, acc->cookie, sizeof(c->cookie));
	c->data_port = acc->data_port;
	c->accepted = true;
	return 0;
}

/*
 * UDP: send the cookie until it comes back (the server's
 * acknowledgement), every 100 ms, within the deadline.
 */
static int udp_cookie(struct ipc_rclient *c, int fd, uint64_t dl)
{
	uint8_t buf[64];
	ssize_t r;
	int rc;

	for (;;) {
		uint64_t retry = ipc_now_ns() + 100000000ull;

		if (send(fd, c->cookie, sizeof(c->cookie), MSG_NOSIGNAL) < 0 &&
		    errno != ECONNREFUSED)
			return -errno;
		for (;;) {
			rc = rm_wait(fd, POLLIN, retry < dl ? retry : dl, -1);
			if (rc == -ETIMEDOUT)
				break;
			if (rc)
				return rc;
			r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (r == (ssize_t)sizeof(c->cookie) &&
			    !memcmp(buf, c->cookie, sizeof(c->cookie)))
				return 0;
		}
		if (ipc_now_ns() >= dl)
			return -ETIMEDOUT;
	}
}

int ipc_rclient_data_addr(const struct ipc_rclient *c, int family,
			  struct sockaddr_storage *ss, socklen_t *len,
			  char *why, size_t why_len)
{
	if (!c->accepted) {
		snprintf(why, why_len, "no test was accepted");
		return -EINVAL;
	}
	return ipc_addr_parse(c->host, family, (uint16_t)c->data_port, ss, len,
			      why, why_len);
}

const uint8_t *ipc_rclient_cookie(const struct ipc_rclient *c)
{
	return c->cookie;
}

/* Wait for "ready" of @run. */
static int wait_ready(struct ipc_rclient *c, uint64_t run, char *why,
		      size_t why_len)
{
	struct ipc_rmsg ans;
	int rc;

	why[0] = '\0';
	rc = ipc_rwire_recv(c->fd, &ans, IPC_REMOTE_MSG_MAX, deadline(c), -1,
			    why, why_len);
	if (!rc && ans.type == IPC_RM_ERROR)
		return server_error(&ans, why, why_len);
	if (!rc && (ans.type != IPC_RM_READY || ans.run != run)) {
		snprintf(why, why_len, "the server sent '%s' instead of ready",
			 ipc_rmsg_name(ans.type));
		return -EPROTO;
	}
	if (rc && !why[0])
		snprintf(why, why_len, "waiting for ready: %s", strerror(-rc));
	return rc;
}

/* Tell the server to start @run. */
static int send_run(struct ipc_rclient *c, uint64_t run, char *why,
		    size_t why_len)
{
	struct ipc_rmsg m = {.type = IPC_RM_RUN, .run = run};
	int rc = ipc_rwire_send(c->fd, &m, deadline(c), -1);

	if (rc)
		snprintf(why, why_len, "sending run: %s", strerror(-rc));
	return rc;
}

int ipc_rclient_run_start(struct ipc_rclient *c, uint64_t run, int udp_fd,
			  char *why, size_t why_len)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rc;

	if (udp_fd >= 0) {
		struct sockaddr_storage own;
		socklen_t olen = sizeof(own);

		if (getsockname(udp_fd, (struct sockaddr *)&own, &olen))
			return -errno;
		rc = ipc_rclient_data_addr(c, own.ss_family, &ss, &len, why,
					   why_len);
		if (rc)
			return rc;
	}
	rc = send_run(c, run, why, why_len);
	if (rc)
		return rc;
	if (udp_fd >= 0) {
		/* Point the client's socket at the data port, then knock. */
		if (connect(udp_fd, (struct sockaddr *)&ss, len)) {
			rc = -errno;
			snprintf(why, why_len, "connect the data socket: %s",
				 strerror(-rc));
			return rc;
		}
		ipc_fd_set_nonblock(udp_fd, true);
		rc = udp_cookie(c, udp_fd, deadline(c));
		ipc_fd_set_nonblock(udp_fd, false);
		if (rc) {
			snprintf(why, why_len, "presenting the cookie: %s",
				 strerror(-rc));
			return rc;
		}
	}
	return wait_ready(c, run, why, why_len);
}

int ipc_rclient_run_begin(struct ipc_rclient *c, uint64_t run, int family,
			  int type, char *why, size_t why_len)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, rc;

	rc = ipc_rclient_data_addr(c, family, &ss, &len, why, why_len);
	if (rc)
		return rc;
	rc = send_run(c, run, why, why_len);
	if (rc)
		return rc;
	fd = connect_by(&ss, len, type, deadline(c));
	if (fd < 0) {
		snprintf(why, why_len, "cannot connect the data endpoint: %s",
			 strerror(-fd));
		return fd;
	}
	if (type == SOCK_STREAM)
		rc = rm_send_all(fd, c->cookie, sizeof(c->cookie), deadline(c),
				 -1);
	else
		rc = udp_cookie(c, fd, deadline(c));
	if (rc) {
		snprintf(why, why_len, "presenting the cookie: %s",
			 strerror(-rc));
		goto fail;
	}
	rc = wait_ready(c, run, why, why_len);
	if (rc)
		goto fail;
	/* The measured loops block, as they do on local channels. */
	ipc_fd_set_nonblock(fd, false);
	return fd;
fail:
	close(fd);
	return rc;
}

int ipc_rclient_run_end(struct ipc_rclient *c, uint64_t run,
			struct ipc_rrun_stats *st, char *why, size_t why_len)
{
	struct ipc_rmsg m = {.type = IPC_RM_RUN_END, .run = run}, ans;
	int rc = exchange(c, &m, IPC_RM_RUN_STATS, &ans, why, why_len);

	if (rc)
		return rc;
	if (ans.stats.run != run) {
		snprintf(why, why_len, "figures of run %llu for run %llu",
			 (unsigned long long)ans.stats.run,
			 (unsigned long long)run);
		return -EPROTO;
	}
	*st = ans.stats;
	return 0;
}

int ipc_rclient_send_trace(struct ipc_rclient *c, const char *text, size_t len,
			   char *why, size_t why_len)
{
	struct ipc_rmsg *m = calloc(1, sizeof(*m));
	int rc = 0;

	if (!m)
		return -ENOMEM;
	m->type = IPC_RM_TRACE;
	for (size_t off = 0; !rc && off < len; off += m->data_len) {
		m->data_len = len - off < sizeof(m->data) ? len - off
							  : sizeof(m->data);
		memcpy(m->data, text + off, m->data_len);
		rc = ipc_rwire_send(c->fd, m, deadline(c), -1);
	}
	if (rc)
		snprintf(why, why_len, "sending the trace: %s", strerror(-rc));
	free(m);
	return rc;
}

int ipc_rclient_done(struct ipc_rclient *c, struct ipc_rmsg *bye, char *why,
		     size_t why_len)
{
	struct ipc_rmsg m = {.type = IPC_RM_DONE};

	return exchange(c, &m, IPC_RM_BYE, bye, why, why_len);
}

int ipc_rclient_fd(const struct ipc_rclient *c)
{
	return c->fd;
}

const struct sockaddr *ipc_rclient_addr(const struct ipc_rclient *c,
					socklen_t *len)
{
	*len = c->addr_len;
	return (const struct sockaddr *)&c->addr;
}

void ipc_rclient_free(struct ipc_rclient *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

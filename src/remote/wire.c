/* SPDX-License-Identifier: MIT */
/*
 * Control messages over a socket, each whole message under one deadline:
 * a peer that sends one byte a second cannot hold a reader longer than the
 * deadline, and a peer that stops reading cannot hold a writer.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote/remote_internal.h"
#include "base/lib_internal.h"

int rm_poll_ms(uint64_t deadline_ns)
{
	uint64_t now = ipc_now_ns(), ms;

	if (deadline_ns <= now)
		return 0;
	/* Round up, so that a wait never ends just before its deadline. */
	ms = (deadline_ns - now + 999999) / 1000000;
	return ms > 1000000 ? 1000000 : (int)ms;
}

int rm_wait(int fd, short events, uint64_t deadline_ns, int stop_fd)
{
	struct pollfd p[2] = {{.fd = fd, .events = events},
			      {.fd = stop_fd, .events = POLLIN}};
	int n;

	for (;;) {
		n = poll(p, stop_fd >= 0 ? 2 : 1, rm_poll_ms(deadline_ns));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (stop_fd >= 0 && p[1].revents)
			return -ECANCELED;
		if (p[0].revents)
			return 0;
		if (ipc_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
}

/*
 * A socket's own error as -errno, told apart from a deadline: the
 * kernel's ETIMEDOUT (keep-alive or TCP_USER_TIMEOUT gave up on the peer)
 * becomes -ENOLINK, so -ETIMEDOUT always means our deadline passed.
 */
static int sock_err(int e)
{
	if (e == ETIMEDOUT || e == EHOSTUNREACH || e == ENETUNREACH)
		return -ENOLINK;
	return e == EPIPE ? -ECONNRESET : -e;
}

int rm_send_all(int fd, const void *buf, size_t len, uint64_t deadline_ns,
		int stop_fd)
{
	const char *p = buf;
	ssize_t n;
	int rc;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return sock_err(errno);
		rc = rm_wait(fd, POLLOUT, deadline_ns, stop_fd);
		if (rc)
			return rc;
	}
	return 0;
}

int ipc_rwire_send(int fd, const struct ipc_rmsg *m, uint64_t deadline_ns,
		   int stop_fd)
{
	char *buf;
	int n, rc;

	buf = malloc(IPC_REMOTE_MSG_MAX + 4);
	if (!buf)
		return -ENOMEM;
	n = ipc_rmsg_encode(m, buf, IPC_REMOTE_MSG_MAX + 4);
	rc = n < 0 ? n : rm_send_all(fd, buf, (size_t)n, deadline_ns, stop_fd);
	free(buf);
	return rc;
}

/*
 * A length over the cap, in words.  Four printable bytes are no length an
 * ipcperf peer sends ("HTTP" reads as 1213486160): name what was sent.
 */
static void too_long(const struct ipc_rframe *f, size_t max, char *why,
		     size_t why_len)
{
	const uint8_t *b = f->hdr;
	bool text = true;

	for (int i = 0; i < 4; i++)
		text = text && b[i] >= 0x20 && b[i] < 0x7f;
	if (text)
		snprintf(why, why_len,
			 "the peer does not speak ipcperf's control protocol "
			 "(it sent \"%c%c%c%c...\": another service on that "
			 "port?)",
			 b[0], b[1], b[2], b[3]);
	else
		snprintf(why, why_len,
			 "a message of %u bytes is refused (0 or over %zu)",
			 f->len, max);
}

int ipc_rwire_recv(int fd, struct ipc_rmsg *m, size_t max, uint64_t deadline_ns,
		   int stop_fd, char *why, size_t why_len)
{
	struct ipc_rframe f;
	uint8_t buf[4096];
	size_t used, want;
	ssize_t n;
	int rc;

	ipc_rframe_init(&f, max);
	if (why && why_len)
		why[0] = '\0';
	for (;;) {
		/*
		 * Read no further than this message's end: what follows
		 * belongs to the next call.
		 */
		want = f.hdr_got < 4 ? 4 - f.hdr_got : f.len - f.body_got;
		if (want > sizeof(buf))
			want = sizeof(buf);
		n = recv(fd, buf, want, MSG_DONTWAIT);
		if (n == 0) {
			rc = -ECONNRESET;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			rc = sock_err(errno);
			break;
		}
		if (n < 0) {
			rc = rm_wait(fd, POLLIN, deadline_ns, stop_fd);
			if (rc)
				break;
			continue;
		}
		rc = ipc_rframe_feed(&f, buf, (size_t)n, &used);
		if (rc == -EMSGSIZE && why && why_len)
			too_long(&f, max, why, why_len);
		if (rc < 0)
			break;
		if (rc == 1) {
			rc = ipc_rmsg_parse(f.body, f.len, m, why, why_len);
			break;
		}
	}
	ipc_rframe_reset(&f);
	return rc;
}

void rm_control_sockopts(int fd, uint64_t timeout_ns)
{
	int one = 1, secs, ms;

	/*
	 * A control connection is idle while a run measures.  Keep-alive
	 * probes every third of the deadline find a peer that vanished (a
	 * cut cable sends nothing), and TCP_USER_TIMEOUT ends a connection
	 * whose data stays unacknowledged for a whole deadline.
	 */
	secs = (int)(timeout_ns / 3000000000ull);
	if (secs < 1)
		secs = 1;
	ms = timeout_ns / 1000000 > 600000 ? 600000
					   : (int)(timeout_ns / 1000000);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &secs, sizeof(secs));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &secs, sizeof(secs));
	one = 3;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms));
	one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void rm_safe(char *s, size_t size, unsigned flags)
{
	char tmp[IPC_RM_HOST_MAX];

	if (size > sizeof(tmp))
		size = sizeof(tmp);
	ipc_text_escape(tmp, size, s, flags);
	memcpy(s, tmp, strlen(tmp) + 1);
}

static const struct {
	const char *name;
	int family, type;
} data_tps[] = {
	{"tcp", AF_INET, SOCK_STREAM},
	{"tcp6", AF_INET6, SOCK_STREAM},
	{"udp", AF_INET, SOCK_DGRAM},
	{"udp6", AF_INET6, SOCK_DGRAM},
};

int rm_transport_socket(const char *name, int *family, int *type)
{
	for (size_t i = 0; i < sizeof(data_tps) / sizeof(data_tps[0]); i++)
		if (!strcmp(name, data_tps[i].name)) {
			*family = data_tps[i].family;
			*type = data_tps[i].type;
			return 0;
		}
	return -EPROTONOSUPPORT;
}

const char *rm_data_transport(int family, int type)
{
	for (size_t i = 0; i < sizeof(data_tps) / sizeof(data_tps[0]); i++)
		if (family == data_tps[i].family && type == data_tps[i].type)
			return data_tps[i].name;
	return NULL;
}

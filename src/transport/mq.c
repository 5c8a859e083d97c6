/* SPDX-License-Identifier: MIT */
/*
 * POSIX message queues: one queue per direction.  Setup creates each under
 * a unique name, opens its two ends and unlinks the name before it returns,
 * so no queue outlives the descriptors on any path (a forked peer inherits
 * them).  On Linux a queue descriptor can be polled, so every engine works.
 *
 * Queue names are one namespace for every user of the machine: each name
 * made here carries 64 random bits and is created with O_EXCL, so that
 * another user can neither guess it ahead (and make the probe or the setup
 * fail with EACCES) nor have us open a queue of theirs.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "transport/transports.h"
#include "transport/lib_internal.h"

/* The four slots, by direction, as for pipes. */
enum { C2S_R, C2S_W, S2C_R, S2C_W };

/*
 * The kernel's limits for unprivileged users, in /proc/sys/fs/mqueue, and
 * their defaults when that cannot be read.  Depth: at most this many
 * messages wait in a queue (the default msg_max is 10).
 */
#define MSGSIZE_MAX_PATH "/proc/sys/fs/mqueue/msgsize_max"
#define MSG_MAX_PATH "/proc/sys/fs/mqueue/msg_max"
#define MSGSIZE_MAX_DEFAULT 8192
#define MSG_MAX_DEFAULT 10
#define DEPTH_CAP 64

/* One endpoint: the queue's message size, and a buffer that holds one. */
struct mq_ep {
	size_t msgsize;
	unsigned char bounce[];
};

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v = dflt;

	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1 || v <= 0)
		v = dflt;
	fclose(f);
	return v;
}

static size_t mq_max_msg(const struct ipc_tp_opts *opts)
{
	(void)opts;
	return (size_t)read_long(MSGSIZE_MAX_PATH, MSGSIZE_MAX_DEFAULT);
}

/*
 * "/ipcperf.PID.RANDOM.@what": RANDOM is 16 hex digits from getrandom (its
 * pool is ready long before a user can run this), so that nobody can
 * make the name before we do.
 */
static void queue_name(const char *what, char *name, size_t len)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r ^= (uint64_t)ipc_now_ns() * 0x9e3779b97f4a7c15ull;
	snprintf(name, len, "/ipcperf.%d.%016llx.%s", (int)getpid(),
		 (unsigned long long)r, what);
}

/* Tries at a fresh random name, should one be taken. */
#define NAME_TRIES 4

static int mq_probe(char *why, size_t why_len)
{
	struct mq_attr attr = {.mq_maxmsg = 1, .mq_msgsize = 1};
	char name[64], err[128];
	mqd_t q = (mqd_t)-1;

	for (int i = 0; i < NAME_TRIES && q == (mqd_t)-1; i++) {
		queue_name("probe", name, sizeof(name));
		q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
		if (q == (mqd_t)-1 && errno != EEXIST)
			break;
	}
	if (q == (mqd_t)-1) {
		int rc = -errno;

		snprintf(why, why_len, "mq_open fails: %s%s",
			 strerror_r(-rc, err, sizeof(err)),
			 rc == -ENOSYS ? " (no CONFIG_POSIX_MQUEUE)" : "");
		return rc;
	}
	mq_close(q);
	mq_unlink(name);
	return 0;
}

/*
 * Create a queue named after @what with @attr (O_EXCL, under a fresh
 * random name if one is taken) and open both its ends; the name is gone
 * when this returns, whatever happened.  0 or -errno.
 */
static int queue_pair(const char *what, struct mq_attr *attr, int *rfd,
		      int *wfd)
{
	char name[NAME_MAX];
	mqd_t r = (mqd_t)-1, w;
	int rc = 0;

	for (int i = 0; i < NAME_TRIES && r == (mqd_t)-1; i++) {
		queue_name(what, name, sizeof(name));
		r = mq_open(name, O_RDONLY | O_CREAT | O_EXCL, 0600, attr);
		if (r == (mqd_t)-1 && errno != EEXIST)
			break;
	}
	if (r == (mqd_t)-1)
		return -errno;
	w = mq_open(name, O_WRONLY);
	if (w == (mqd_t)-1)
		rc = -errno;
	mq_unlink(name);
	if (rc < 0) {
		mq_close(r);
		return rc;
	}
	*rfd = (int)r;
	*wfd = (int)w;
	return 0;
}

/*
 * Both queues hold up to msg_max messages of opts.max_msg bytes (at least
 * 1).  A user's queues share RLIMIT_MSGQUEUE (800 KiB by default): when
 * creating one fails with EMFILE for that reason, try half as deep.
 */
static int mq_setup(struct ipc_chan *ch)
{
	static const char *const tags[] = {"c2s", "s2c"};
	struct mq_attr attr = {0};
	char what[NAME_MAX / 2];
	long depth;
	int i, rc = 0;

	if (ch->opts.max_msg > mq_max_msg(&ch->opts)) {
		rc = -EMSGSIZE;
		goto out;
	}
	depth = read_long(MSG_MAX_PATH, MSG_MAX_DEFAULT);
	if (depth > DEPTH_CAP)
		depth = DEPTH_CAP;
	attr.mq_msgsize = ch->opts.max_msg ? (long)ch->opts.max_msg : 1;
	for (i = 0; i < 2; i++) {
		int r = i == 0 ? C2S_R : S2C_R, w = i == 0 ? C2S_W : S2C_W;

		snprintf(what, sizeof(what), "%.64s.%s",
			 ch->opts.name ? ch->opts.name : "0", tags[i]);
		for (;;) {
			attr.mq_maxmsg = depth;
			rc = queue_pair(what, &attr, &ch->fd[r], &ch->fd[w]);
			if (rc != -EMFILE || depth == 1)
				break;
			depth /= 2;
		}
		if (rc < 0)
			goto err;
		ch->fd_side[r] = i == 0 ? IPC_SERVER : IPC_CLIENT;
		ch->fd_side[w] = i == 0 ? IPC_CLIENT : IPC_SERVER;
	}
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

static int mq_open_ep(struct ipc_chan *ch, enum ipc_side side,
		      struct ipc_ep *ep)
{
	int r = side == IPC_CLIENT ? S2C_R : C2S_R;
	int w = side == IPC_CLIENT ? C2S_W : S2C_W;
	struct mq_attr attr;
	struct mq_ep *m;
	int rc = 0;

	if (ch->fd[r] < 0 || ch->fd[w] < 0) {
		rc = -EBADF;
		goto out;
	}
	if (mq_getattr((mqd_t)ch->fd[r], &attr) < 0) {
		rc = -errno;
		goto out;
	}
	m = malloc(sizeof(*m) + (size_t)attr.mq_msgsize);
	if (!m) {
		rc = -ENOMEM;
		goto out;
	}
	m->msgsize = (size_t)attr.mq_msgsize;
	tp_ep_init(ep, ch, ipc_chan_take(ch, r), ipc_chan_take(ch, w), m);
out:
	return rc;
}

/*
 * A queue whose peer died stays open and silent: only the side's stop ends
 * a wait on it (the runner fires it when the peer ends), through the wake
 * signal aimed at a watching thread.  Should that signal come from nowhere
 * (a thread that does not watch), a stop must still be seen: every wait
 * first looks at the stop and then blocks for TP_WAIT_SLICE_NS at a time
 * (CLOCK_REALTIME, as mq_timed* want it).  Costs one clock read per call.
 */
static void slice_end(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += TP_WAIT_SLICE_NS;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static ssize_t mq_send_msg(struct ipc_ep *ep, const void *buf, size_t len)
{
	struct mq_ep *m = ep->priv;
	struct timespec ts;
	int rc;

	if (!m)
		return -EBADF;
	for (;;) {
		rc = tp_stopped(ep);
		if (rc)
			return rc;
		slice_end(&ts);
		if (mq_timedsend((mqd_t)ep->wfd, buf, len, 0, &ts) == 0)
			return (ssize_t)len;
		if (errno != ETIMEDOUT)
			return -errno;
	}
}

static ssize_t mq_recv_wait(const struct ipc_ep *ep, void *buf, size_t len)
{
	struct timespec ts;
	ssize_t n;
	int rc;

	for (;;) {
		rc = tp_stopped(ep);
		if (rc)
			return rc;
		slice_end(&ts);
		n = mq_timedreceive((mqd_t)ep->rfd, buf, len, NULL, &ts);
		if (n >= 0)
			return n;
		if (errno != ETIMEDOUT)
			return -errno;
	}
}

/*
 * mq_receive refuses a buffer shorter than the queue's message size and
 * leaves the message queued.  A datagram socket drops a message that does
 * not fit and says so; do the same through the endpoint's own buffer.
 */
static ssize_t mq_recv_msg(struct ipc_ep *ep, void *buf, size_t len)
{
	struct mq_ep *m = ep->priv;
	ssize_t n;

	if (!m)
		return -EBADF;
	if (len >= m->msgsize)
		return mq_recv_wait(ep, buf, len);
	n = mq_recv_wait(ep, m->bounce, m->msgsize);
	if (n < 0)
		return n;
	if ((size_t)n > len)
		return -EMSGSIZE;
	memcpy(buf, m->bounce, (size_t)n);
	return n;
}

/*
 * A queue has no end: like a datagram socket, a side cannot see that its
 * peer closed, and a 0-byte message is a message.
 */
const struct ipc_transport_ops ipc_tp_mq = {
	.name = "mq",
	.help = "POSIX message queues, one per direction, unlinked at setup",
	.caps = IPC_TP_MSG | IPC_TP_EMPTY_MSG | IPC_TP_FD,
	.probe = mq_probe,
	.max_msg = mq_max_msg,
	.setup = mq_setup,
	.open = mq_open_ep,
	.send = mq_send_msg,
	.recv = mq_recv_msg,
	.close = tp_ep_close,
	.teardown = tp_chan_release,
};

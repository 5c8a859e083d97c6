/* SPDX-License-Identifier: MIT */
/*
 * The engines compiled into this build, for the registry, and the small
 * helpers they share.
 */
#ifndef IPCPERF_ENGINES_H
#define IPCPERF_ENGINES_H

#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include "ipcperf/base.h"
#include "ipcperf/engine.h"

extern const struct ipc_engine_ops ipc_eng_blocking;
extern const struct ipc_engine_ops ipc_eng_poll;
extern const struct ipc_engine_ops ipc_eng_epoll;
extern const struct ipc_engine_ops ipc_eng_busy;
#if IPC_HAVE_URING
extern const struct ipc_engine_ops ipc_eng_io_uring;
#endif

/*
 * attach, detach and reattach of engines whose only state is the
 * descriptors' non-blocking mode (nonblock.c).
 */
int eng_nb_attach(struct ipc_io *io);
void eng_nb_detach(struct ipc_io *io);
int eng_nb_reattach(struct ipc_io *io, struct ipc_ep *ep);

/*
 * What an interrupted wait means: if the side was asked to stop, the wait
 * is over (-ECANCELED); otherwise the caller retries.
 */
static inline int eng_interrupted(const struct ipc_io *io)
{
	return ipc_cancelled(io->cancel) ? -ECANCELED : 0;
}

/* A timeout in ns as poll(2) milliseconds, rounded up; 0 ns: forever. */
static inline int eng_timeout_ms(uint64_t ns)
{
	uint64_t ms;

	if (!ns)
		return -1;
	ms = (ns + 999999) / 1000000;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/*
 * A ring of completions not yet reported: the readiness flow set's queue,
 * io_uring's stash of those reaped while cancelling.  The owner allocates
 * @v with @cap entries.  Inline: the queue is on every many-flow (and
 * epoll) message's path.
 */
struct eng_doneq {
	struct ipc_fdone *v;
	uint32_t head, len, cap;
};

/* Append @d; the caller knows there is room. */
static inline void eng_doneq_push(struct eng_doneq *q,
				  const struct ipc_fdone *d)
{
	q->v[(q->head + q->len++) % q->cap] = *d;
}

/* Move up to @max of the oldest into @done; how many were moved. */
static inline uint32_t eng_doneq_pop(struct eng_doneq *q,
				     struct ipc_fdone *done, uint32_t max)
{
	uint32_t n = 0;

	while (q->len && n < max) {
		done[n++] = q->v[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
	return n;
}

/*
 * Take the completion of @flow's @op out, the others keeping their order:
 * true with its result in *res, or false when there is none.
 */
static inline bool eng_doneq_take(struct eng_doneq *q, uint32_t flow,
				  uint32_t op, ssize_t *res)
{
	uint32_t i, at, nx;

	for (i = 0; i < q->len; i++) {
		at = (q->head + i) % q->cap;
		if (q->v[at].flow != flow || q->v[at].op != op)
			continue;
		*res = q->v[at].res;
		for (; i + 1 < q->len; i++) {
			at = (q->head + i) % q->cap;
			nx = (q->head + i + 1) % q->cap;
			q->v[at] = q->v[nx];
		}
		q->len--;
		return true;
	}
	return false;
}

/*
 * The flow set of the readiness engines (fset_ready.c): how it waits.
 * The functions are the engines' fs_* slots with the wait kind added to
 * the constructor.
 */
enum eng_wait {
	EW_POLL = 0,  /* ppoll(2) over an array of every flow */
	EW_EPOLL = 1, /* epoll_pwait2(2) */
	EW_SPIN = 2,  /* epoll_wait(2) with a zero timeout, in a loop */
};

int eng_ready_new(struct ipc_fset **fs, uint32_t max, enum eng_wait how,
		  const struct ipc_cancel *cancel);
int eng_ready_add(struct ipc_fset *fs, uint32_t flow, struct ipc_ep *ep);
int eng_ready_del(struct ipc_fset *fs, uint32_t flow);
int eng_ready_recv(struct ipc_fset *fs, uint32_t flow, void *buf, size_t len);
int eng_ready_send(struct ipc_fset *fs, uint32_t flow, const void *buf,
		   size_t len);
int eng_ready_wait(struct ipc_fset *fs, struct ipc_fdone *done, uint32_t max,
		   int64_t timeout_ns);
ssize_t eng_ready_cancel(struct ipc_fset *fs, uint32_t flow, enum ipc_fop op);
void eng_ready_free(struct ipc_fset *fs);

/*
 * One endpoint driven through the engine's own flow set of one flow
 * (fset_single.c): the attach, send, recv, detach and reattach slots of
 * the engines whose single-endpoint path is their flow set (epoll,
 * io_uring).  io->eng must be set; io->priv holds the set.
 */
int eng_fs1_attach(struct ipc_io *io);
ssize_t eng_fs1_send(struct ipc_io *io, const void *buf, size_t len);
ssize_t eng_fs1_recv(struct ipc_io *io, void *buf, size_t len);
void eng_fs1_detach(struct ipc_io *io);
int eng_fs1_reattach(struct ipc_io *io, struct ipc_ep *ep);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Engines: how a side waits for and issues I/O on its endpoint.  Blocking
 * calls, poll, epoll, io_uring and busy-polling all sit behind one table, so
 * a pattern is written once and measured through each way of waiting.  An
 * engine never knows which transport it drives or what is being measured.
 */
#ifndef IPCPERF_ENGINE_H
#define IPCPERF_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capability bits of an engine (struct ipc_engine_ops.caps). */
#define IPC_ENG_NEEDS_FD (1u << 0) /* only drives IPC_TP_FD transports */
#define IPC_ENG_NEEDS_RW (1u << 1) /* does its own I/O: IPC_TP_RW only */
#define IPC_ENG_SPINS (1u << 2)	   /* never sleeps: two sides need two CPUs */

/*
 * Many flows: a flow set drives many endpoints from one thread, the way an
 * event loop does.  It is a completion interface (a proactor): the caller
 * starts a receive or a send on a flow, and a later wait reports that it
 * completed with its result.  Readiness engines (poll, epoll, busy) do the
 * I/O when a descriptor is ready; io_uring hands it to the kernel.  Flows
 * are numbered by the caller, 0 .. max_flows - 1, so that nothing is
 * allocated after the set is made.
 *
 *   caller                     flow set
 *   fs_send(f, buf, n)  ──►    tries now, or when f is writable
 *   fs_recv(f, buf, n)  ──►    when f is readable (or in the kernel)
 *   fs_wait(done[])     ◄──    {f, IPC_FOP_SEND, 4}, {g, IPC_FOP_RECV, 64}
 *
 * At most one receive and one send may be pending per flow, and their
 * buffers belong to the set until they complete (or fs_cancel returns).
 */
struct ipc_fset;

enum ipc_fop {
	IPC_FOP_RECV = 1,
	IPC_FOP_SEND = 2,
};

/* One completed operation. */
struct ipc_fdone {
	uint32_t flow; /* the number given to fs_add */
	uint32_t op;   /* enum ipc_fop */
	ssize_t res;   /* bytes moved; 0: end of stream (or an empty
			  message); -errno: the operation failed */
};

/*
 * One side's I/O context: the endpoint, how long a receive may wait, and
 * the cancel that ends the side's work (base.h: its descriptor is in
 * every wait that has descriptors, its flag is looked at by every loop).
 * Filled by the caller, then attached.
 */
struct ipc_io {
	const struct ipc_engine_ops *eng;
	struct ipc_ep *ep;
	const struct ipc_cancel *cancel; /* fired: give up at the next wait */
	uint64_t timeout_ns; /* longest wait for a receive, 0: forever */
	void *priv;	     /* engine-private state */
};

/*
 * An engine: one const table per implementation, registered in
 * ipc_engines[].  Functions return 0 or a byte count on success and -errno
 * on failure; none prints.
 *
 * The waiting functions return -ECANCELED when io->cancel was fired before
 * or while they waited (epoll and io_uring wait on its descriptor too,
 * registered once; busy looks at its flag on every turn; a blocking call,
 * and one endpoint's poll(2), is interrupted by the wake signal of a
 * thread that watches the cancel), and -ETIMEDOUT when a receive waited
 * io->timeout_ns without data.  A flow set waits on the descriptor
 * whatever its engine.
 */
struct ipc_engine_ops {
	const char *name; /* as given to -e */
	const char *help; /* one line for `ipcperf list` */
	unsigned caps;	  /* IPC_ENG_* bits */

	/* 0 if usable on this machine, else -errno and a reason.  May be NULL. */
	int (*probe)(char *why, size_t why_len);

	/*
	 * Prepare to drive io->ep (make descriptors non-blocking, create a
	 * poll set or a ring).  Not timed.  On failure nothing is left held.
	 */
	int (*attach)(struct ipc_io *io);

	/*
	 * Send: wait until the endpoint can take data, then send up to @len
	 * bytes (one message on message transports).  Returns the count sent,
	 * which on a byte stream may be less than @len.
	 */
	ssize_t (*send)(struct ipc_io *io, const void *buf, size_t len);

	/*
	 * Receive: wait until data or a message is there, then receive up to
	 * @len bytes.  Returns the count (0: end of stream, or an empty
	 * message on a transport that carries them).
	 */
	ssize_t (*recv)(struct ipc_io *io, void *buf, size_t len);

	/*
	 * Optional: receive as recv does, through the transport's recv_view:
	 * *@msg points at the message in the transport's memory until the
	 * next receive.  -EOPNOTSUPP when the transport has no recv_view.
	 * NULL: the engine cannot (it waits on descriptors or does the I/O
	 * itself).
	 */
	ssize_t (*recv_view)(struct ipc_io *io, const void **msg, size_t len);

	/* Undo attach.  Safe after a failed attach. */
	void (*detach)(struct ipc_io *io);

	/*
	 * Optional.  Move an attached @io from io->ep (still open, or NULL)
	 * to endpoint @ep (a new connection, or NULL to let go of io->ep
	 * before the caller closes it), keeping what does not depend on the
	 * endpoint: an epoll set, a ring.  detach() works whatever io->ep
	 * is.  NULL slot: the caller detaches and attaches again.
	 */
	int (*reattach)(struct ipc_io *io, struct ipc_ep *ep);

	/*
	 * Optional flow-set slots (see struct ipc_fset above).  NULL
	 * fs_new: the engine cannot drive many flows from one thread (the
	 * load pattern refuses it).  All return 0 or -errno unless said.
	 *
	 * fs_new: a set for flows 0 .. @max_flows - 1; a wait returns
	 *   -ECANCELED once @cancel (may be NULL) is fired: the set waits
	 *   on its descriptor with the flows'.
	 * fs_add: drive endpoint @ep as flow @flow (made non-blocking).
	 * fs_del: forget @flow; no operation may be pending on it.
	 * fs_recv, fs_send: start one receive of up to @len bytes (one
	 *   message on message transports), or one send of up to @len bytes
	 *   (a byte stream may take fewer: the completion says how many).
	 * fs_wait: wait for completions, up to @max into @done; returns how
	 *   many (at least 1), 0 when @timeout_ns passed first (< 0: no
	 *   limit, 0: do not wait), or -errno.
	 * fs_cancel: cancel the pending @op of @flow.  Returns -ECANCELED if
	 *   it was cancelled, else the result it completed with meanwhile
	 *   (then no wait reports it).
	 * fs_free: cancel what is pending and free the set; NULL is a
	 *   no-op.  The endpoints stay open: they are the caller's.
	 */
	int (*fs_new)(struct ipc_fset **fs, uint32_t max_flows,
		      const struct ipc_cancel *cancel);
	int (*fs_add)(struct ipc_fset *fs, uint32_t flow, struct ipc_ep *ep);
	int (*fs_del)(struct ipc_fset *fs, uint32_t flow);
	int (*fs_recv)(struct ipc_fset *fs, uint32_t flow, void *buf,
		       size_t len);
	int (*fs_send)(struct ipc_fset *fs, uint32_t flow, const void *buf,
		       size_t len);
	int (*fs_wait)(struct ipc_fset *fs, struct ipc_fdone *done,
		       uint32_t max, int64_t timeout_ns);
	ssize_t (*fs_cancel)(struct ipc_fset *fs, uint32_t flow,
			     enum ipc_fop op);
	void (*fs_free)(struct ipc_fset *fs);
};

/* The registry: every engine compiled in, NULL-terminated. */
extern const struct ipc_engine_ops *const ipc_engines[];

/* Look an engine up by name; NULL if there is none. */
const struct ipc_engine_ops *ipc_engine_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif

/*
 * Engines: how a side waits for and issues I/O on its endpoint.  Blocking
 * calls, poll, epoll, io_uring and busy-polling all sit behind one table, so
 * a pattern is written once and measured through each way of waiting.  An
 * engine never knows which transport it drives or what is being measured.
 */
#ifndef IPCPERF_ENGINE_H
#define IPCPERF_ENGINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport.h"

/* Capability bits of an engine (struct ipc_engine_ops.caps). */
#define IPC_ENG_NEEDS_FD (1u << 0) /* only drives IPC_TP_FD transports */

/*
 * One side's I/O context: the endpoint, how long a receive may wait, and
 * the flag that ends the side's work.  Filled by the caller, then attached.
 */
struct ipc_io {
	const struct ipc_engine_ops *eng;
	struct ipc_ep *ep;
	const volatile sig_atomic_t *stop; /* nonzero: give up at next wait */
	uint64_t timeout_ns; /* longest wait for a receive, 0: forever */
	void *priv;          /* engine-private state */
};

/*
 * An engine: one const table per implementation, registered in
 * ipc_engines[].  Functions return 0 or a byte count on success and -errno
 * on failure; none prints.
 *
 * The waiting functions return -ECANCELED when *io->stop became nonzero
 * while they waited (a signal interrupts the wait), and -ETIMEDOUT when a
 * receive waited io->timeout_ns without data.
 */
struct ipc_engine_ops {
	const char *name; /* as given to -e */
	const char *help; /* one line for `ipcperf list` */
	unsigned caps;    /* IPC_ENG_* bits */

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

	/* Undo attach.  Safe after a failed attach. */
	void (*detach)(struct ipc_io *io);
};

/* The registry: every engine compiled in, NULL-terminated. */
extern const struct ipc_engine_ops *const ipc_engines[];

/* Look an engine up by name; NULL if there is none. */
const struct ipc_engine_ops *ipc_engine_find(const char *name);

/*
 * Can @eng drive @tp?  0 if so; otherwise -EINVAL and one sentence in why
 * (for the plan-time refusal of a pairing that cannot work).
 */
int ipc_engine_can_drive(const struct ipc_engine_ops *eng,
			 const struct ipc_transport_ops *tp, char *why,
			 size_t why_len);

#endif

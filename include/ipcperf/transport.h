/* SPDX-License-Identifier: MIT */
/*
 * Transports: how bytes move between the two sides of a measurement.  A
 * transport knows how to set up a channel, open each side's endpoint, send,
 * receive and close; it knows nothing of timing, statistics or output.
 */
#ifndef IPCPERF_TRANSPORT_H
#define IPCPERF_TRANSPORT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capability bits of a transport (struct ipc_transport_ops.caps). */
#define IPC_TP_STREAM (1u << 0)	   /* byte stream: boundaries not kept */
#define IPC_TP_MSG (1u << 1)	   /* each send arrives as one message */
#define IPC_TP_LOSSY (1u << 2)	   /* messages may be dropped (udp) */
#define IPC_TP_EMPTY_MSG (1u << 3) /* a 0-byte message is seen by the peer */
#define IPC_TP_FD (1u << 4)	   /* endpoints are pollable descriptors */
#define IPC_TP_CONNECT (1u << 5)   /* listen/connect: new connections */
#define IPC_TP_NET (1u << 6)	   /* crosses the IP stack */
/*
 * The descriptors carry the payload with plain read/write (send/recv on
 * sockets) and no translation, so an engine may issue the I/O itself
 * (io_uring) instead of calling the transport's send and recv.
 */
#define IPC_TP_RW (1u << 7)
/*
 * The client can reach a server that is already elsewhere: with
 * opts.target set, setup resolves that address and makes no server side
 * (no listener), and only the client side opens (tcp, tcp6, udp, udp6).
 */
#define IPC_TP_TARGET (1u << 8)
/*
 * A side sees its peer's end, a crash too, as end of stream or an error:
 * the kernel closes the dead peer's descriptors (pipes, connected sockets,
 * pty).  Without it (datagrams, mq, shm, serial) a dead peer shows nothing
 * and the runner must watch the peer itself.
 */
#define IPC_TP_PEER_END (1u << 9)
/* The endpoints are pipes: what vmsplice(2) and splice(2) take. */
#define IPC_TP_PIPE (1u << 10)
/*
 * Its channel is a fixed device the user named (serial's --device), not
 * one the run makes: one channel at a time, so no parallel streams.
 */
#define IPC_TP_ONE_CHAN (1u << 11)

/* The side of a channel an endpoint belongs to. */
enum ipc_side {
	IPC_CLIENT = 0, /* drives the pattern, takes the timestamps */
	IPC_SERVER = 1, /* the peer: answers or sinks */
};

/* How a shm side waits for its peer (struct ipc_tp_opts.shm_wait). */
enum ipc_shm_wait {
	IPC_SHM_FUTEX = 0, /* sleep in futex(2) after a short look */
	IPC_SHM_SPIN = 1,  /* busy-wait: lowest latency, needs a CPU each */
};

/* Defaults of the options below that are not the system's. */
#define IPC_SHM_BYTES_DEFAULT (8u << 20) /* bytes of each shm ring */
#define IPC_SERIAL_BAUD_DEFAULT 115200u	 /* serial line speed */

/* Options that shape a channel; filled by the runner from the case. */
struct ipc_tp_opts {
	const char *dir;    /* private directory for FIFOs and sockets */
	const char *name;   /* names this channel's files in dir (and its
				message queues), unique among the channels
				set up there at once; NULL: "0" */
	const char *target; /* IPC_TP_TARGET: "HOST:PORT" of a server that
				is already there, NULL: both sides here */
	/*
	 * Connection transports (tcp, tcp6): bytes the client sends first on
	 * every connection it opens, and the server requires before it takes
	 * one (a local run's token, remote mode's per-test cookie; at most 64
	 * bytes); NULL: none.  The server reads the connections that came
	 * side by side and takes the first that shows them; it closes one
	 * that sends other bytes, ends, or is silent for preamble_wait_ns,
	 * counting it in *preamble_refused (if not NULL; added to
	 * atomically), and each one taken in *preamble_taken (the same).
	 */
	const uint8_t *preamble;
	size_t preamble_len;
	uint64_t preamble_wait_ns;
	uint64_t *preamble_refused;
	uint64_t *preamble_taken;
	size_t max_msg;	     /* largest message either side will send, bytes */
	uint64_t timeout_ns; /* receive timeout on lossy transports, 0: none */
	bool nodelay;	     /* TCP_NODELAY where it applies */
	int sndbuf;	     /* SO_SNDBUF in bytes, 0: system default */
	int rcvbuf;	     /* SO_RCVBUF in bytes, 0: system default */
	int busy_poll_us;    /* SO_BUSY_POLL in microseconds, 0: default */
	size_t shm_bytes;    /* shm: bytes of each ring, 0: the default */
	enum ipc_shm_wait shm_wait; /* shm: how a side waits */
	const char *device[2]; /* serial: port of each side (enum ipc_side) */
	unsigned baud;	       /* serial: line speed, 0: the default */
	char shm_choice
		[160]; /* shm: why the ring has shm_bytes, "": not said */
};

#define IPC_CHAN_FDS 4

/*
 * A channel between a client and a server, set up before the peer starts
 * (so that a forked peer inherits it) and torn down after both sides closed.
 * The generic slots below are enough for every transport so that setting up
 * a channel allocates nothing; a transport that needs more uses priv.
 *
 * fd[] holds descriptors created by setup; fd_side[] says which side owns
 * each (IPC_CLIENT, IPC_SERVER, or -1 for one both need, like a listening
 * socket).  open() moves the descriptors it uses into the endpoint and sets
 * the slot to -1, so teardown closes only what no endpoint took.
 */
struct ipc_chan {
	const struct ipc_transport_ops *ops;
	struct ipc_tp_opts opts;
	int fd[IPC_CHAN_FDS];	   /* descriptors made by setup, -1 if unused */
	int fd_side[IPC_CHAN_FDS]; /* owner of fd[i]: enum ipc_side or -1 */
	char path[2][108];	   /* filesystem names (FIFOs, sockets) */
	struct sockaddr_storage addr; /* address a client connects to */
	socklen_t addr_len;
	void *priv; /* transport-private, freed by teardown */
};

/*
 * One side's endpoint of an open channel.  The caller sets cancel before
 * open (the transport keeps it; struct ipc_cancel is in base.h): a
 * transport that waits where no signal
 * reaches (shm in user space) or in slices (mq, serial) ends that wait
 * with -EINTR once it is fired.
 */
struct ipc_ep {
	const struct ipc_transport_ops *ops;
	int rfd;    /* descriptor to receive on, -1 if none */
	int wfd;    /* descriptor to send on (== rfd for sockets), -1 if none */
	void *priv; /* transport-private state of this endpoint */
	const struct ipc_cancel *cancel; /* this side's stop, NULL: none */
};

/*
 * A transport: one const table per implementation, registered in
 * ipc_transports[].  A NULL function slot means "not supported".
 *
 * All functions return 0 (or a byte count) on success and -errno on failure;
 * none prints or exits.
 */
struct ipc_transport_ops {
	const char *name; /* as given to -t */
	const char *help; /* one line for `ipcperf list` */
	unsigned caps;	  /* IPC_TP_* bits */

	/*
	 * Can this transport run on this machine?  0 if so; otherwise -errno
	 * and a one-sentence reason in why.  May be NULL (always available).
	 */
	int (*probe)(char *why, size_t why_len);

	/*
	 * Can it run with @opts (a device it needs, a size it allows)?  0 if
	 * so; otherwise -errno and a one-sentence reason in why.  Called at
	 * plan time after probe.  May be NULL (any options will do).
	 */
	int (*check)(const struct ipc_tp_opts *opts, char *why, size_t why_len);

	/*
	 * Largest message the transport can carry with these options, in
	 * bytes; SIZE_MAX for byte streams.  May be NULL (no limit).
	 */
	size_t (*max_msg)(const struct ipc_tp_opts *opts);

	/*
	 * Create what both sides need before the peer starts: a pipe pair,
	 * FIFOs, a listening socket.  ch->ops and ch->opts are set by the
	 * caller, the fd slots are -1.  On failure, everything it made is
	 * already released.
	 */
	int (*setup)(struct ipc_chan *ch);

	/*
	 * Open @side's endpoint of a set-up channel: accept, connect, open a
	 * FIFO, or take a descriptor made by setup.  Called once per side, in
	 * that side's process or thread, in any order and concurrently: it may
	 * block until the other side opens too.  Descriptors are blocking.
	 */
	int (*open)(struct ipc_chan *ch, enum ipc_side side, struct ipc_ep *ep);

	/*
	 * Send up to @len bytes (a byte stream may take fewer) or exactly one
	 * message of @len bytes.  Returns the count sent or -errno; -EAGAIN
	 * only when the endpoint was made non-blocking.  EINTR is returned,
	 * not retried: the engine decides.
	 */
	ssize_t (*send)(struct ipc_ep *ep, const void *buf, size_t len);

	/*
	 * Receive up to @len bytes, or one message.  Returns the count, 0 at
	 * end of stream (or for an empty message on IPC_TP_EMPTY_MSG
	 * transports), -EMSGSIZE if a message was longer than @len, -EAGAIN
	 * when non-blocking or when the receive timeout expired, or -errno.
	 */
	ssize_t (*recv)(struct ipc_ep *ep, void *buf, size_t len);

	/*
	 * Optional: receive one message where it lies instead of copying it
	 * out.  Waits as recv does, then points *@msg at the message in the
	 * transport's own memory and returns its length (or what recv would
	 * return instead: 0, -EMSGSIZE with the message dropped, -errno).
	 * The bytes stay there, unchanged, until the next recv, recv_view or
	 * close of @ep, which gives their room back to the sender.  NULL:
	 * every receive copies (a kernel transport).
	 */
	ssize_t (*recv_view)(struct ipc_ep *ep, const void **msg, size_t len);

	/* Close an endpoint; safe on one that never opened (fds -1). */
	void (*close)(struct ipc_ep *ep);

	/*
	 * Release what setup made and nobody took: descriptors left in the fd
	 * slots, FIFO and socket files.  Safe to call twice.
	 */
	void (*teardown)(struct ipc_chan *ch);
};

/* The registry: every transport compiled in, NULL-terminated. */
extern const struct ipc_transport_ops *const ipc_transports[];

/* Look a transport up by name; NULL if there is none. */
const struct ipc_transport_ops *ipc_transport_find(const char *name);

/* What the kernel granted a socket: its options read back after setup. */
struct ipc_sock_info {
	bool valid;	  /* the endpoint is a socket and was read */
	int sndbuf;	  /* SO_SNDBUF, bytes (Linux doubles what is asked) */
	int rcvbuf;	  /* SO_RCVBUF, bytes */
	int busy_poll_us; /* SO_BUSY_POLL, microseconds */
	int nodelay;	  /* TCP_NODELAY 0 or 1; -1 when not TCP */
};

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of transport and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/transport.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_TRANSPORT_LIB_INTERNAL_H
#define IPCPERF_TRANSPORT_LIB_INTERNAL_H

#include "ipcperf/transport.h"

/*
 * Prepare @ch for @ops with @opts: slots to -1, nothing opened.  Then call
 * ops->setup(ch).  A convenience so callers never forget an fd slot.
 */
void ipc_chan_init(struct ipc_chan *ch, const struct ipc_transport_ops *ops,
		   const struct ipc_tp_opts *opts);

/*
 * In a forked peer or its parent, close the descriptors of @ch that belong
 * to the other side, so that end-of-stream is seen when that side closes.
 * Not for thread placement, where both sides share one descriptor table.
 */
void ipc_chan_drop_other(struct ipc_chan *ch, enum ipc_side side);

/*
 * Helpers for implementations: move fd slot @i into the return value (the
 * slot becomes -1), and close every slot still held.
 */
int ipc_chan_take(struct ipc_chan *ch, int i);
void ipc_chan_close_slots(struct ipc_chan *ch);

/*
 * Read back the options of @ep's send descriptor into @info.  0, or
 * -ENOTSOCK (info->valid false) when the endpoint has no socket.
 */
int ipc_ep_sock_info(const struct ipc_ep *ep, struct ipc_sock_info *info);

/* Put @fd in non-blocking mode (or back).  0 or -errno. */
int ipc_fd_set_nonblock(int fd, bool on);

/*
 * Apply the socket options of @opts that fit @fd (buffer sizes, busy
 * polling, TCP_NODELAY on TCP, receive timeout on lossy transports).  0 or
 * -errno.
 */
int ipc_sock_apply_opts(int fd, const struct ipc_tp_opts *opts, bool is_tcp,
			bool lossy);

/* The receive queue of a udp socket, as ipc_dgram_room found it. */
struct ipc_dgram_room {
	int rcvbuf;	 /* SO_RCVBUF afterwards, bytes as the kernel counts */
	int wanted;	 /* what was asked for, 0: it was large enough */
	unsigned charge; /* bytes one datagram costs in it, 0: not known */
	uint64_t datagrams; /* how many fit, 0: not known (peer not on
			       loopback) */
};

/*
 * Raise SO_RCVBUF of the connected udp socket @fd to @want bytes (0: leave
 * it; never lowered; rmem_max may cap it, then room->rcvbuf < @want), and
 * measure how many datagrams of @len bytes, or control datagrams of @ctl
 * bytes, its queue holds.  0 or -errno.
 */
int ipc_dgram_room(int fd, size_t len, size_t ctl, int want,
		   struct ipc_dgram_room *room);

/* What ipc_shm_choose read of two CPUs and chose for the shm ring. */
struct ipc_shm_choice {
	size_t bytes;	 /* bytes of each ring */
	size_t l2_bytes; /* the first CPU's L2, 0: unknown */
	bool l2_shared;	 /* the second CPU shares it */
	char why[160];	 /* one sentence: what was read, the rule taken */
};

/*
 * The ring for a shm stream between CPUs @cpu_a and @cpu_b (-1: not
 * known, taken as another CPU), from their caches as sysfs lists them
 * under @root ("" for the machine's own /sys; tests pass a made-up tree).
 * With a private L2 each, four L2s but 8 MiB at least, so that the sender
 * half the ring ahead leaves each side lines the other's L2 gave up; with
 * a shared L2, half of it, where both sides find every line; on one CPU,
 * or when nothing is listed, the default (IPC_SHM_BYTES_DEFAULT).  Fills
 * *@out and returns 0, or -EINVAL for a NULL argument.
 */
int ipc_shm_choose(const char *root, int cpu_a, int cpu_b,
		   struct ipc_shm_choice *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The registry: every transport compiled in, in the order `ipcperf list`
 * shows them and "all" runs them, and lookup by name.
 */
#include <string.h>

#include "transport/transports.h"

const struct ipc_transport_ops *const ipc_transports[] = {
	&ipc_tp_pipe, &ipc_tp_fifo,	  &ipc_tp_socketpair,
	&ipc_tp_unix, &ipc_tp_unix_dgram, &ipc_tp_unix_seqpacket,
	&ipc_tp_tcp,  &ipc_tp_tcp6,	  &ipc_tp_udp,
	&ipc_tp_udp6, &ipc_tp_shm,	  &ipc_tp_mq,
	&ipc_tp_pty,  &ipc_tp_serial,	  NULL,
};

const struct ipc_transport_ops *ipc_transport_find(const char *name)
{
	const struct ipc_transport_ops *const *tp;

	if (!name)
		return NULL;
	for (tp = ipc_transports; *tp; tp++)
		if (!strcmp((*tp)->name, name))
			return *tp;
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The engine registry: every engine compiled in, looked up by name, and the
 * plan-time check that an engine can drive a transport.
 */
#include <stdio.h>
#include <string.h>

#include "engines.h"
#include "engine/lib_internal.h"

const struct ipc_engine_ops *const ipc_engines[] = {
	&ipc_eng_blocking, &ipc_eng_poll, &ipc_eng_epoll,
#if IPC_HAVE_URING
	&ipc_eng_io_uring,
#endif
	&ipc_eng_busy,	   NULL,
};

const struct ipc_engine_ops *ipc_engine_find(const char *name)
{
	for (size_t i = 0; ipc_engines[i]; i++)
		if (!strcmp(ipc_engines[i]->name, name))
			return ipc_engines[i];
	return NULL;
}

int ipc_engine_can_drive(const struct ipc_engine_ops *eng,
			 const struct ipc_transport_ops *tp, char *why,
			 size_t why_len)
{
	if ((eng->caps & IPC_ENG_NEEDS_FD) && !(tp->caps & IPC_TP_FD)) {
		snprintf(why, why_len,
			 "engine %s waits on file descriptors and transport "
			 "%s has none",
			 eng->name, tp->name);
		return -EINVAL;
	}
	if ((eng->caps & IPC_ENG_NEEDS_RW) && !(tp->caps & IPC_TP_RW)) {
		snprintf(why, why_len,
			 "engine %s reads and writes descriptors itself and "
			 "transport %s needs its own calls",
			 eng->name, tp->name);
		return -EINVAL;
	}
	return 0;
}

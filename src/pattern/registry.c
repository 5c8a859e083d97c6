/* SPDX-License-Identifier: MIT */
/* The pattern registry: every measurement loop, looked up by name. */
#include <string.h>

#include "ipcperf/pattern.h"
#include "pattern/lib_internal.h"

const struct ipc_pattern_ops *const ipc_patterns[] = {
	&ipc_pattern_rr,      &ipc_pattern_stream, &ipc_pattern_bulk,
	&ipc_pattern_crr,     &ipc_pattern_load,   &ipc_pattern_replay,
	&ipc_pattern_rr_stub, &ipc_pattern_http,   NULL,
};

const struct ipc_pattern_ops *ipc_pattern_find(const char *name)
{
	for (size_t i = 0; ipc_patterns[i]; i++)
		if (!strcmp(ipc_patterns[i]->name, name))
			return ipc_patterns[i];
	return NULL;
}

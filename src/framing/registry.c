/* SPDX-License-Identifier: MIT */
/* The framings compiled in, and lookup by the name given to --framing. */
#include <string.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

static size_t raw_frame_max(size_t len)
{
	return len;
}

/* raw has no frame: the patterns' own loops send the bytes as they are. */
const struct ipc_framing_ops ipc_framing_raw = {
	.name = "raw",
	.help = "the payload as it is, no frame (default)",
	.acks = false,
	.frame_max = raw_frame_max,
};

const struct ipc_framing_ops *const ipc_framings[] = {
	&ipc_framing_raw,
	&ipc_framing_len,
	&ipc_framing_rsp,
	NULL,
};

const struct ipc_framing_ops *ipc_framing_find(const char *name)
{
	for (size_t i = 0; ipc_framings[i]; i++)
		if (!strcmp(ipc_framings[i]->name, name))
			return ipc_framings[i];
	return NULL;
}

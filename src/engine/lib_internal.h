/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of engine and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/engine.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_ENGINE_LIB_INTERNAL_H
#define IPCPERF_ENGINE_LIB_INTERNAL_H

#include "ipcperf/engine.h"

/*
 * Can @eng drive @tp?  0 if so; otherwise -EINVAL and one sentence in why
 * (for the plan-time refusal of a pairing that cannot work).
 */
int ipc_engine_can_drive(const struct ipc_engine_ops *eng,
			 const struct ipc_transport_ops *tp, char *why,
			 size_t why_len);

#endif

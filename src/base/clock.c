/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock out of line, for users of the library whose strict
 * ISO C build cannot see clock_gettime (base.h inlines it for the rest).
 */
#include "ipcperf/base.h"

uint64_t ipc_clock_ns(void)
{
	return ipc_now_ns();
}

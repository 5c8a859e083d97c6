/* SPDX-License-Identifier: MIT */
/*
 * Limits of this process that patterns size themselves by: how many
 * descriptors it may open.
 */
#include <sys/resource.h>

#include "ipcperf/base.h"
#include "base/lib_internal.h"

uint64_t ipc_nofile_raise(uint64_t *hard)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (hard)
		*hard = rl.rlim_max;
	return rl.rlim_cur;
}

uint64_t ipc_nofile_hard(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_max;
}

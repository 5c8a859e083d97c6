/*
 * The engines compiled into this build, for the registry, and the small
 * helpers they share.
 */
#ifndef IPCPERF_ENGINES_H
#define IPCPERF_ENGINES_H

#include <errno.h>

#include "ipcperf/engine.h"

extern const struct ipc_engine_ops ipc_eng_blocking;
extern const struct ipc_engine_ops ipc_eng_poll;

/*
 * What an interrupted wait means: if the side was asked to stop, the wait
 * is over (-ECANCELED); otherwise the caller retries.
 */
static inline int eng_interrupted(const struct ipc_io *io)
{
	return io->stop && *io->stop ? -ECANCELED : 0;
}

/* A timeout in ns as poll(2) milliseconds, rounded up; 0 ns: forever. */
static inline int eng_timeout_ms(uint64_t ns)
{
	uint64_t ms;

	if (!ns)
		return -1;
	ms = (ns + 999999) / 1000000;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Random bytes for what another local user must not guess (a run's token,
 * remote mode's nonces and cookies): libsodium's randombytes, which reads
 * getrandom(2).
 */
#include <sodium.h>
#include <stdlib.h>

#include "ipcperf/base.h"
#include "base/lib_internal.h"

void ipc_random_bytes(void *buf, size_t n)
{
	/* Idempotent and thread-safe since libsodium 1.0.11. */
	if (sodium_init() < 0)
		abort();
	randombytes_buf(buf, n);
}

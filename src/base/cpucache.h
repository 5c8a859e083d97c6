/* SPDX-License-Identifier: MIT */
/*
 * The caches of a CPU as sysfs lists them, for the layers that size
 * buffers to them.  Private to the library: read below any root directory,
 * so that tests can hand it a made-up tree.
 */
#ifndef IPCPERF_BASE_CPUCACHE_H
#define IPCPERF_BASE_CPUCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct base_cpu_cache {
	unsigned level; /* 1, 2, 3 */
	size_t bytes;
	char shared[64]; /* shared_cpu_list as read: "0-1", "0,4" */
};

/*
 * The data or unified cache of @level that CPU @cpu uses, from
 * @root/sys/devices/system/cpu/cpuN/cache/indexK/ (@root "" for the real
 * one): 0 and *@c, or -ENOENT when none is listed, -EINVAL when what is
 * listed does not parse.
 */
int ipc_cpu_cache_find(const char *root, int cpu, unsigned level,
		       struct base_cpu_cache *c);

/* Is CPU @cpu in the list @list ("0-3,8,10-11", as sysfs writes them)? */
bool ipc_cpu_list_has(const char *list, int cpu);

#endif

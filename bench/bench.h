/* SPDX-License-Identifier: MIT */
/*
 * What the bench programs (the bare references beside ipcperf) share: a
 * clock, pinning, and dying with the reason.  Header-only, so that each
 * program stays one object with nothing of ipcperf's linked in.
 */
#ifndef IPCPERF_BENCH_H
#define IPCPERF_BENCH_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Pin the calling process to @cpu (-1: leave it to the scheduler). */
static inline void pin(long cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

#endif

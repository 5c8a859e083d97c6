/* SPDX-License-Identifier: MIT */
/*
 * Where a case's two sides run: which CPUs to pin them to, chosen from
 * those this process may use so that "two CPUs" means two cores where the
 * machine has them (SMT siblings share a core's caches and pipeline, which
 * is a third placement, not the second).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "ipcperf/run.h"
#include "run/lib_internal.h"

/* Is @cpu in the list @s ("0-3,8,10-11", as sysfs writes it)? */
static bool in_list(const char *s, int cpu)
{
	char *end;
	long a, b;

	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s)
			return false;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1)
				return false;
			s = end;
		}
		if (cpu >= a && cpu <= b)
			return true;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
		else
			break;
	}
	return false;
}

int ipc_cpus_siblings(int a, int b)
{
	char path[96], line[256];
	FILE *f;
	int r = -1;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 a);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		r = in_list(line, b);
	fclose(f);
	return r;
}

int ipc_cpus_pick(int cpu[2], int *smt)
{
	cpu_set_t set;
	int n = 0, next = -1, c;

	cpu[0] = cpu[1] = -1;
	*smt = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (cpu[0] < 0) {
			cpu[0] = c;
			n = 1;
			continue;
		}
		if (next < 0)
			next = c;
		if (ipc_cpus_siblings(cpu[0], c) == 0) {
			cpu[1] = c;
			*smt = 0;
			return 2;
		}
	}
	if (next < 0)
		return n;
	/* Every other CPU shares the first one's core, or nobody says. */
	cpu[1] = next;
	*smt = ipc_cpus_siblings(cpu[0], next);
	return 2;
}

const char *ipc_place_word(const struct ipc_place *pl)
{
	switch (pl->cpus) {
	case IPC_CPUS_ONE:
		return " cpus=1";
	case IPC_CPUS_TWO:
		return " cpus=2";
	default:
		return "";
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * What the runner needs from the system around a measurement: the cost of
 * reading the clock, facts about the host, the default options and the
 * descriptor limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"
#include "run/lib_internal.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * 31 rounds of 64 back-to-back reads; the median round's average is the
 * cost.  About 2000 reads at ~20 ns: well under a millisecond.
 */
uint64_t ipc_timer_cost_ns(void)
{
	enum { ROUNDS = 31, READS = 64 };
	uint64_t r[ROUNDS], t0, t1 = 0;

	for (int i = 0; i < ROUNDS; i++) {
		t0 = ipc_now_ns();
		for (int k = 0; k < READS; k++)
			t1 = ipc_now_ns();
		r[i] = (t1 - t0) / READS;
	}
	qsort(r, ROUNDS, sizeof(r[0]), cmp_u64);
	return r[ROUNDS / 2];
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], *p;

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		break;
	}
	fclose(f);
}

void ipc_host_probe(struct ipc_host *h)
{
	struct utsname u;

	memset(h, 0, sizeof(*h));
	if (!uname(&u)) {
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.sysname,
			 u.release);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
	}
	cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	h->timer_ns = ipc_timer_cost_ns();
	host_fingerprint(h);
	h->pm_qos.fd = -1; /* not held until ipc_pmqos_hold */
	h->pm_qos.request_us = -1;
	h->pm_qos.before_us = -1;
}

void ipc_runopts_default(struct ipc_runopts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->iterations = 10000;
	ro->warmup = 1000;
	ro->runs = 3;
	ro->placement = IPC_PLACE_PROCESS;
	ro->verify = true;
	ro->timeout_ns = 1000000000ull;
	ro->pin_client = -1;
	ro->pin_server = -1;
	ro->tp.nodelay = true;
	ro->runs_auto = true;
	ro->min_runs = IPC_MIN_RUNS;
	ro->max_runs = IPC_MAX_RUNS_DEFAULT;
	ro->ci_level = 0.95;
	ro->ci_pct = 1.0;
	ro->budget_ns = 60 * 1000000000ull;
	ro->interleave = true;
}

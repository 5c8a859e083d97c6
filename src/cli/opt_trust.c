/* SPDX-License-Identifier: MIT */
/*
 * Options of runs to a confidence target: the interval's level and target
 * width, the bounds of --runs auto (most runs, time budget), whether the
 * runs of several cases are interleaved, whether perf counters are
 * attached to the loops, and the CPU latency request held meanwhile.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MEAS CMD_MEASURE

/*
 * The quick suite's budget, unless --budget says otherwise.  46 cases of
 * 10 ms (rr) and 20 ms (stream) runs, each run 5 to 30 ms more to set up:
 * 20 s buys each about 12 runs, and the cases that meet the target early
 * leave theirs to the others; the whole suite takes 19 to 22 s on the
 * development VM.  10 s left most cases at 6 to 12 runs, short of the
 * target.
 */
#define SUITE_BUDGET_NS (20 * 1000000000ull)

/* A percentage, all of @a, in the syntax of every number option. */
static bool number(const char *a, double *v)
{
	uint64_t ppm;

	if (cli_units(IPC_UNIT_PCT, a, 0, UINT64_MAX, &ppm))
		return false;
	*v = ppm / 1e4;
	return true;
}

/* --ci LEVEL[,PCT]: "95,1", "99,0.5", "90". */
static int set_ci(struct cli_config *c, const char *a)
{
	char buf[64], *comma;
	double level, pct = c->ro.ci_pct;

	if (strlen(a) >= sizeof(buf))
		goto bad;
	strcpy(buf, a);
	comma = strchr(buf, ',');
	if (comma)
		*comma = '\0';
	if (!number(buf, &level) || (comma && !number(comma + 1, &pct)))
		goto bad;
	if (!(level >= 50 && level < 100))
		return usage_error("give the level in percent, such as 95 or "
				   "99",
				   "--ci: level %s%% is not between 50 and "
				   "100",
				   buf);
	if (!(pct > 0 && pct <= 100))
		return usage_error("give the target half-width in percent of "
				   "the estimate, such as 1 or 0.5",
				   "--ci: target ±%s%% is not above 0 and at "
				   "most 100",
				   comma + 1);
	c->ro.ci_level = level / 100;
	c->ro.ci_pct = pct;
	c->set |= SET_CI;
	return 0;
bad:
	return usage_error("write --ci LEVEL,PCT, such as --ci 95,1 (95% "
			   "interval within ±1%)",
			   "--ci: bad value '%s'", a);
}

static int set_max_runs(struct cli_config *c, const char *a)
{
	uint64_t n;

	if (cli_units(IPC_UNIT_COUNT, a, 1, CLI_COUNT_MAX, &n))
		return cli_bad_value("--max-runs",
				     "give a whole number of runs, such as 50");
	if (n > 100000)
		return usage_error("give at most 100000",
				   "--max-runs: '%s' is more than 100000", a);
	if (n < IPC_MIN_RUNS)
		return usage_error("--runs auto always does at least 5 runs; "
				   "for fewer, give -r N",
				   "--max-runs: %s is fewer than %d", a,
				   IPC_MIN_RUNS);
	c->ro.max_runs = (unsigned)n;
	c->set |= SET_MAXRUNS;
	return 0;
}

static int set_budget(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_TIME, a, 1, CLI_TIME_MAX, &c->ro.budget_ns))
		return cli_bad_value("--budget",
				     "give a time such as 30, 30s or 2m");
	c->set |= SET_BUDGET;
	return 0;
}

static int set_no_interleave(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.interleave = false;
	return 0;
}

static int set_perf(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.perf = true;
	return 0;
}

/*
 * --pm-qos US|off: the CPU latency request (microseconds, a whole number,
 * "us" or "µs" allowed after it) held while measuring, or none.
 */
static int set_pm_qos(struct cli_config *c, const char *a)
{
	unsigned long long v = 0;
	const char *p = a;

	if (!strcmp(a, "off")) {
		c->pm_qos_us = -1;
		return 0;
	}
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > IPC_PMQOS_MAX_US)
			return usage_error(
				"give at most 2000000000 (the kernel's "
				"default, no constraint)",
				"--pm-qos: %s µs is more than 2000000000", a);
	}
	if (*p && strcmp(p, "us") && strcmp(p, "µs"))
		goto bad;
	c->pm_qos_us = (int)v;
	return 0;
bad:
	return usage_error("give microseconds, such as 0 (CPUs never in deep "
			   "idle while measuring), or off",
			   "--pm-qos: bad value '%s'", a);
}

const char *cli_pmqos_device(void)
{
	const char *p = getenv("IPCPERF_PM_QOS_DEVICE");

	return p && *p ? p : IPC_PMQOS_DEVICE;
}

const char *cli_cpuidle_driver_file(void)
{
	const char *p = getenv("IPCPERF_CPUIDLE_DRIVER_FILE");

	return p && *p ? p : NULL;
}

static const struct cli_opt trust_opts[] = {
	{"ci", 0, "LEVEL,PCT", MEAS,
	 "interval level and target: half-width at most PCT% of the "
	 "estimate [95,1]",
	 set_ci},
	{"max-runs", 0, "N", MEAS, "--runs auto: at most N runs per case [30]",
	 set_max_runs},
	{"budget", 0, "TIME", MEAS,
	 "--runs auto: no new run after TIME for the whole command, once "
	 "each case has the runs of an interval (6 at 95%) [60s; suite 20s]",
	 set_budget},
	{"no-interleave", 0, NULL, MEAS,
	 "run case after case instead of round-robin in shuffled order",
	 set_no_interleave},
	{"perf", 0, NULL, MEAS,
	 "count cycles and instructions per message too (perf events; they "
	 "slow every context switch, so the latency grows)",
	 set_perf},
	{"pm-qos", 0, "US|off", MEAS | CMD_SERVER,
	 "while measuring, keep the CPUs out of idle states slower than US "
	 "µs to leave (/dev/cpu_dma_latency, as root; 0: they poll, never "
	 "halt); off: the machine's own idle policy [0]",
	 set_pm_qos},
};

static int trust_validate(struct cli_config *c)
{
	if (!(c->cmd & CMD_MEASURE))
		return 0;
	if (!c->ro.runs_auto && (c->set & (SET_MAXRUNS | SET_BUDGET)))
		return usage_error(
			"--max-runs and --budget bound --runs "
			"auto; -r N runs exactly N",
			"conflicting options: -r %u and %s", c->ro.runs,
			c->set & SET_MAXRUNS ? "--max-runs" : "--budget");
	if (c->cmd == CMD_SUITE && !(c->set & SET_BUDGET))
		c->ro.budget_ns = SUITE_BUDGET_NS;
	return 0;
}

const struct cli_optgroup cli_opts_trust = {
	.opts = trust_opts,
	.n = sizeof(trust_opts) / sizeof(trust_opts[0]),
	.validate = trust_validate,
};

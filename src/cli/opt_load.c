/* SPDX-License-Identifier: MIT */
/*
 * Options of the load command: how many flows, on how many client threads,
 * and whether they run closed loop (the default: each flow sends its next
 * request when the reply is in) or open loop at a fixed total rate.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Flows one run may open: far beyond any descriptor limit seen. */
#define FLOWS_MAX 1000000u
#define THREADS_MAX 1024u

static int set_flows(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, FLOWS_MAX, &c->flows))
		return cli_bad_value("--flows",
				     "give a number of flows from 1 to "
				     "1000000, such as -c 100 or -c 10k");
	return 0;
}

static int set_threads(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, THREADS_MAX, &c->threads))
		return cli_bad_value("--threads",
				     "give a number of threads from 1 to 1024");
	return 0;
}

static int set_rate(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, 1000000000u, &c->rate))
		return cli_bad_value("--rate",
				     "give requests per second in total, such "
				     "as --rate 20000 or --rate 20k");
	return 0;
}

static int load_validate(struct cli_config *c)
{
	if (c->cmd != CMD_LOAD && c->cmd != CMD_HTTP)
		return 0;
	if (!c->flows)
		c->flows = 10;
	if (!c->threads)
		c->threads = 1;
	if (c->threads > c->flows)
		return usage_error("use at most one thread per flow",
				   "--threads %llu is more than the %llu "
				   "flows",
				   (unsigned long long)c->threads,
				   (unsigned long long)c->flows);
	/* An interval's percentiles come from one thread's histogram. */
	if (c->ro.interval_ns && c->threads > 1)
		return usage_error("intervals are measured by one client "
				   "thread: give -i with --threads 1",
				   "--interval with --threads %llu",
				   (unsigned long long)c->threads);
	if (!(c->set & (SET_ITER | SET_DUR)))
		c->ro.iterations =
			c->flows * 10 > 10000 ? c->flows * 10 : 10000;
	if ((c->set & SET_ITER) && c->ro.iterations < c->flows)
		return usage_error("give each flow at least one request",
				   "--iterations %llu is fewer than the %llu "
				   "flows",
				   (unsigned long long)c->ro.iterations,
				   (unsigned long long)c->flows);
	if (!(c->set & SET_WARM))
		c->ro.warmup = c->flows;
	if (!(c->set & SET_ENGINE))
		c->engines = "epoll";
	return 0;
}

static const struct cli_opt load_opts[] = {
	{"flows", 'c', "N", CMD_LOAD | CMD_HTTP,
	 "concurrent flows (connections) [10]", set_flows},
	{"threads", 0, "T", CMD_LOAD | CMD_HTTP,
	 "client threads the flows are spread over [1]", set_threads},
	{"rate", 0, "R", CMD_LOAD | CMD_HTTP,
	 "open loop: R requests/s in total, latency from each request's "
	 "intended send time [closed loop]",
	 set_rate},
};

const struct cli_optgroup cli_opts_load = {
	.opts = load_opts,
	.n = sizeof(load_opts) / sizeof(load_opts[0]),
	.validate = load_validate,
};

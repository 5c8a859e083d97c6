/* SPDX-License-Identifier: MIT */
/*
 * Testing aids: faults the peer injects on purpose, so that the tests (and
 * a curious user) can check that loss and stalls are counted.  They change
 * what is measured, so every result records them (config.peer_drop_pct,
 * config.peer_stall_every, config.peer_stall_ns).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int set_drop(struct cli_config *c, const char *a)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(a, &end, 10);
	if (errno || end == a || (*end && strcmp(end, "%")) || *a == '-' ||
	    v > 100)
		return usage_error("give a percentage from 0 to 100, such as "
				   "--peer-drop 10",
				   "--peer-drop: bad percentage '%s'", a);
	c->ro.faults.drop_pct = (unsigned)v;
	return 0;
}

static int set_stall(struct cli_config *c, const char *a)
{
	const char *colon = strchr(a, ':');
	char num[32];
	uint64_t every;

	if (!colon || colon == a || (size_t)(colon - a) >= sizeof(num))
		goto bad;
	memcpy(num, a, (size_t)(colon - a));
	num[colon - a] = '\0';
	if (cli_units(IPC_UNIT_COUNT, num, 1, CLI_COUNT_MAX, &every) ||
	    cli_units(IPC_UNIT_TIME, colon + 1, 1, CLI_TIME_MAX,
		      &c->ro.faults.stall_ns))
		goto bad;
	c->ro.faults.stall_every = every;
	return 0;
bad:
	return usage_error(
		"write --peer-stall N:TIME, such as 1000:50ms (every "
		"1000th request waits 50 ms)",
		"--peer-stall: bad value '%s'", a);
}

static const struct cli_opt testing_opts[] = {
	{"peer-drop", 0, "PCT", CMD_RR | CMD_STREAM,
	 "testing aid: on lossy transports the peer ignores PCT% of requests "
	 "(rr) or messages (stream), spread evenly [0]",
	 set_drop},
	{"peer-stall", 0, "N:TIME", CMD_RR | CMD_CRR | CMD_LOAD,
	 "testing aid: the peer waits TIME before answering every Nth "
	 "request",
	 set_stall},
};

const struct cli_optgroup cli_opts_testing = {
	.opts = testing_opts,
	.n = sizeof(testing_opts) / sizeof(testing_opts[0]),
	.validate = NULL,
};

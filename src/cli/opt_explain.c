/* SPDX-License-Identifier: MIT */
/*
 * --explain: the kernel (a BPF program) says where each round trip's time
 * went, phase by phase, beside the measurement.
 */
#include "cli.h"

static int set_explain(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.explain = true;
	return 0;
}

static const struct cli_opt explain_opts[] = {
	{"explain", 0, NULL,
	 CMD_SUITE | CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_REPLAY |
		 CMD_LOAD | CMD_HTTP,
	 "say where the time went: user, system calls, asleep, waiting for "
	 "a CPU, interrupts, per round trip (BPF, as root; docs/explain.md)",
	 set_explain},
};

const struct cli_optgroup cli_opts_explain = {
	.opts = explain_opts,
	.n = sizeof(explain_opts) / sizeof(explain_opts[0]),
};

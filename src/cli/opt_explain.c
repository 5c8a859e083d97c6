/* SPDX-License-Identifier: MIT */
/*
 * --explain: the kernel (a BPF program) says where each round trip's time
 * went, phase by phase, beside the measurement; --explain-flagged: only
 * for the cases whose runs' spread was flagged, in a second pass (the
 * quick suite's default, and rr's with a local peer).
 */
#include "cli.h"

static int set_explain(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.explain = true;
	return 0;
}

static int set_flagged(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.explain_flagged = true;
	c->explain_flagged_set = true;
	return 0;
}

static int set_no_flagged(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.explain_flagged = false;
	c->explain_flagged_set = true;
	return 0;
}

/*
 * rr's default pass stays local: a remote server explains its side only
 * where its operator allows it, and the pass would be more tests there.
 */
static int explain_validate(struct cli_config *c)
{
	if (c->cmd == CMD_RR && c->remote_target[0] && !c->explain_flagged_set)
		c->ro.explain_flagged = false;
	return 0;
}

static const struct cli_opt explain_opts[] = {
	{"explain", 0, NULL,
	 CMD_SUITE | CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_REPLAY |
		 CMD_LOAD | CMD_HTTP,
	 "say where the time went: user, system calls, asleep, waiting for "
	 "a CPU, interrupts, per round trip (BPF, as root; docs/explain.md)",
	 set_explain},
	{"explain-flagged", 0, NULL,
	 CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_REPLAY | CMD_LOAD |
		 CMD_HTTP,
	 "a case flagged unstable, bimodal or with outliers is run again "
	 "with --explain, and its flags say what the slower runs spent "
	 "their time on; its figures stay the ones measured without it "
	 "(BPF, as root; the quick suite and rr with a local peer do it "
	 "unless --no-explain-flagged)",
	 set_flagged},
	{"no-explain-flagged", 0, NULL, CMD_SUITE | CMD_RR,
	 "leave out the second pass with --explain that the quick suite "
	 "and rr give a flagged case",
	 set_no_flagged},
};

const struct cli_optgroup cli_opts_explain = {
	.opts = explain_opts,
	.n = sizeof(explain_opts) / sizeof(explain_opts[0]),
	.validate = explain_validate,
};

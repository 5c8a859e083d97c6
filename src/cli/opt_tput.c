/* SPDX-License-Identifier: MIT */
/*
 * Throughput the way iperf3 users ask for it: a paced sender (-b).
 */
#include <string.h>

#include "cli.h"

/* 100 Gbit/s: beyond it no local stream here gets near, so a typo. */
#define BITRATE_MAX 100000000000ull

/*
 * iperf3's -b: a number of bits per second with k, M or G (1000-based),
 * or --link's own words (50mbit).
 */
static int set_bitrate(struct cli_config *c, const char *a)
{
	char buf[64];
	size_t n = strlen(a);

	if (cli_units(IPC_UNIT_BITRATE, a, 1, BITRATE_MAX, &c->bitrate_bps) ==
	    0)
		return 0;
	if (n && n < sizeof(buf) - 4 && strchr("kKmMgG", a[n - 1])) {
		snprintf(buf, sizeof(buf), "%sbit", a);
		if (cli_units(IPC_UNIT_BITRATE, buf, 1, BITRATE_MAX,
			      &c->bitrate_bps) == 0)
			return 0;
		/* The error names what was typed, not what we made of it. */
		cli_units(IPC_UNIT_BITRATE, a, 1, BITRATE_MAX, &c->bitrate_bps);
	}
	return usage_error("give bits per second above 0, such as 45M, 1G "
			   "or 500kbit",
			   "--bitrate: %s", cli_err);
}

static const struct cli_opt tput_opts[] = {
	{"bitrate", 'b', "RATE", CMD_STREAM,
	 "pace the sender at RATE bits/s (k, M, G as iperf3: 1000-based); "
	 "over udp the receiver keeps RFC 3550 jitter [as fast as it goes]",
	 set_bitrate},
};

/* A paced stream faster than its emulated link would only fill the relay. */
static int tput_validate(struct cli_config *c)
{
	/* The server there would not know to strip the send times. */
	if (c->bitrate_bps && c->remote_target[0])
		return usage_error("pace a local stream, or drop --bitrate",
				   "--bitrate with --remote %s: not carried "
				   "to a remote server yet",
				   c->remote_target);
	for (size_t i = 0; c->bitrate_bps && i < c->nlinks; i++)
		if (c->links[i].rate_bps &&
		    c->bitrate_bps > c->links[i].rate_bps)
			return usage_error(
				"pace below the link's rate, or drop --link",
				"--bitrate %llu bit/s is beyond the link %s "
				"(%llu bit/s)",
				(unsigned long long)c->bitrate_bps,
				c->links[i].name,
				(unsigned long long)c->links[i].rate_bps);
	return 0;
}

const struct cli_optgroup cli_opts_tput = {
	.opts = tput_opts,
	.n = sizeof(tput_opts) / sizeof(tput_opts[0]),
	.validate = tput_validate,
};

/* SPDX-License-Identifier: MIT */
/*
 * Options that measure a case beside itself changed in one way: stream
 * and bulk --zerocopy (the sender's sends without a copy, whichever side
 * sends) and rr --under-load N
 * (round trips while N streams fill the same transport).  Each case runs
 * as it is and with the option, so the report shows what it changed.
 */
#include <string.h>

#include "cli.h"
#include "pattern/lib_internal.h"

/* --zerocopy without a way: the one that fits the transport and engine. */
#define ZC_AUTO 0xffu

static const char *const zc_ways[] = {"msg", "sendfile", "vmsplice", "uring",
				      NULL};

static int set_zerocopy(struct cli_config *c, const char *a)
{
	(void)a;
	if (!c->zerocopy)
		c->zerocopy = ZC_AUTO;
	return 0;
}

static int set_zerocopy_via(struct cli_config *c, const char *a)
{
	for (unsigned i = 0; zc_ways[i]; i++)
		if (!strcmp(zc_ways[i], a)) {
			c->zerocopy = IPC_ZC_MSG + i;
			return 0;
		}
	return usage_error("give msg, sendfile, vmsplice or uring",
			   "--zerocopy-via: unknown way '%s'", a);
}

static int set_under_load(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, IPC_UNDER_LOAD_MAX, &c->under_load))
		return cli_bad_value("--under-load", "give 1 to 64 streams");
	return 0;
}

static const struct cli_opt zc_opts[] = {
	{"zerocopy", 'Z', NULL, CMD_STREAM | CMD_BULK,
	 "also measure each case with sends that copy nothing, by whichever "
	 "side sends (the peer with -R and in bulk, both with --bidir): "
	 "MSG_ZEROCOPY on tcp and tcp6 (io_uring SENDMSG_ZC with -e "
	 "io_uring), vmsplice on pipe and fifo, sendfile from a memfd on "
	 "other byte streams [off]",
	 set_zerocopy},
	{"zerocopy-via", 0, "msg|sendfile|vmsplice|uring",
	 CMD_STREAM | CMD_BULK,
	 "--zerocopy this way: MSG_ZEROCOPY, sendfile(2) from a memfd, "
	 "vmsplice(2), io_uring SENDMSG_ZC [by transport and engine]",
	 set_zerocopy_via},
	{"under-load", 0, "N", CMD_RR,
	 "also measure each case while N streams fill the same transport "
	 "between the same CPUs (tcp, tcp6, unix) [none]",
	 set_under_load},
};

static int zc_validate(struct cli_config *c)
{
	/*
	 * Never a case to measure: one line and exit 2, not a skip.  A
	 * remote server's own counts do not come back yet.
	 */
	if (c->zerocopy && c->remote_target[0] &&
	    (c->direction || c->cmd == CMD_BULK))
		return usage_error("measure the peer's zero-copy sends locally",
				   "--zerocopy with --remote %s: the remote "
				   "server's sends (%s) are not measured yet",
				   c->remote_target,
				   c->cmd == CMD_BULK		   ? "bulk"
				   : c->direction == IPC_DIR_BIDIR ? "--bidir"
								   : "-R");
	if (!c->under_load)
		return 0;
	if (c->remote_target[0])
		return usage_error("measure under load locally",
				   "--under-load with --remote %s: not "
				   "carried to a remote server yet",
				   c->remote_target);
	if (c->nlinks)
		return usage_error("drop --link or --under-load",
				   "--under-load with --link: the link's relay "
				   "carries one connection");
	if ((c->framing && c->framing->encode) || c->ntargets)
		return usage_error("drop --framing or --target",
				   "--under-load measures plain round trips, "
				   "not %s",
				   c->ntargets ? "a stub" : "framed ones");
	return 0;
}

const struct cli_optgroup cli_opts_zerocopy = {
	.opts = zc_opts,
	.n = sizeof(zc_opts) / sizeof(zc_opts[0]),
	.validate = zc_validate,
};

/* The way --zerocopy alone takes for @cs's transport and engine. */
static unsigned zc_auto(const struct ipc_case *cs)
{
	unsigned caps = cs->tp->caps;

	if (!strcmp(cs->eng->name, "io_uring"))
		return IPC_ZC_URING;
	if (caps & IPC_TP_PIPE)
		return IPC_ZC_VMSPLICE;
	if ((caps & IPC_TP_NET) || !(caps & IPC_TP_RW))
		return IPC_ZC_MSG;
	return IPC_ZC_SENDFILE;
}

int cli_with(const struct cli_config *c, struct ipc_case *cs, char *why,
	     size_t why_len)
{
	if (c->zerocopy &&
	    (cs->pat == &ipc_pattern_stream || cs->pat == &ipc_pattern_bulk)) {
		cs->zerocopy =
			c->zerocopy == ZC_AUTO ? zc_auto(cs) : c->zerocopy;
		return ipc_zc_check(cs, why, why_len) ? -1 : 1;
	}
	if (c->under_load && cs->pat == &ipc_pattern_rr) {
		cs->under_load = c->under_load;
		return ipc_under_load_check(cs, why, why_len) ? -1 : 1;
	}
	return 0;
}

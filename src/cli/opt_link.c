/* SPDX-License-Identifier: MIT */
/*
 * Options of link emulation, framing and replay: --link (a case dimension,
 * like sizes), --framing and --no-ack for rr, --max-packet and the trace
 * files of replay, which are read and checked here so that a malformed log
 * is a usage error (exit 2) before anything runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "framing/lib_internal.h"

#define LINKED (CMD_RR | CMD_STREAM | CMD_BULK | CMD_REPLAY)

static int set_link(struct cli_config *c, const char *a)
{
	/* Every --link adds its links: --link localhost --link delay=1ms. */
	if (ipc_link_parse(a, c->links, CLI_LINKS_MAX, &c->nlinks, cli_err,
			   sizeof(cli_err)))
		return cli_bad_value("--link",
				     "presets: localhost, lan-100m, wifi-g, "
				     "wan, serial-9600, serial-115200; or "
				     "delay=35ms,jitter=2ms,rate=10mbit,baud="
				     "9600,loss=1% (see ipcperf list)");
	return 0;
}

static int set_framing(struct cli_config *c, const char *a)
{
	c->framing = ipc_framing_find(a);
	if (!c->framing)
		return usage_error("use raw, len or gdb-rsp",
				   "--framing: unknown framing '%s'", a);
	return 0;
}

static int set_noack(struct cli_config *c, const char *a)
{
	(void)a;
	c->no_ack = true;
	return 0;
}

static int set_max_packet(struct cli_config *c, const char *a)
{
	ipc_u64_list_free(&c->max_packet);
	if (ipc_units_parse_list(IPC_UNIT_SIZE, a, 0, CLI_SIZE_MAX,
				 &c->max_packet, cli_err, sizeof(cli_err)))
		return cli_bad_value("--max-packet",
				     "give packet body sizes such as 256 or "
				     "0,256 (0: as recorded)");
	for (size_t i = 0; i < c->max_packet.n; i++)
		if (c->max_packet.v[i] && c->max_packet.v[i] < 16)
			return usage_error(
				"0 keeps the packets as recorded",
				"--max-packet: %llu bytes is too "
				"small for a packet",
				(unsigned long long)c->max_packet.v[i]);
	return 0;
}

static const struct cli_opt link_opts[] = {
	{"link", 0, "LINK", LINKED,
	 "emulated links, comma separated: presets or key=value (see "
	 "LINK) [none]",
	 set_link},
	{"framing", 0, "F", CMD_RR,
	 "raw, len (4-byte length) or gdb-rsp ($payload#xx, '+' acks) "
	 "[raw]",
	 set_framing},
	{"no-ack", 0, NULL, CMD_RR,
	 "gdb-rsp without '+' acks, as after QStartNoAckMode", set_noack},
	{"max-packet", 0, "SIZES", CMD_REPLAY,
	 "cut server packets to this many body bytes, each piece fetched "
	 "by one more request (0: as recorded) [0]",
	 set_max_packet},
};

static int add_trace(struct cli_config *c, struct ipc_trace *t)
{
	void *p = reallocarray(c->traces, c->ntraces + 1, sizeof(*c->traces));

	if (!p) {
		ipc_trace_free(t);
		return cli_error("out of memory");
	}
	c->traces = p;
	c->traces[c->ntraces++] = t;
	return 0;
}

/* Read every trace file; each --max-packet value makes a variant. */
static int load_traces(struct cli_config *c)
{
	char err[320];

	if (!c->nfiles)
		return usage_error("give recorded conversations, such as "
				   "ipcperf replay traces/*.log",
				   "replay: no trace file given");
	if (!c->max_packet.n) {
		c->max_packet.v = calloc(1, sizeof(*c->max_packet.v));
		if (!c->max_packet.v)
			return cli_error("out of memory");
		c->max_packet.n = 1;
	}
	for (size_t i = 0; i < c->nfiles; i++) {
		struct ipc_trace *t, *v;
		bool kept = false;
		int rc;

		rc = ipc_trace_load(c->files[i], &t, err, sizeof(err));
		if (rc == -ENOMEM)
			return cli_error("%s", err);
		if (rc)
			return usage_error("see docs/replay.md for the GDB "
					   "remotelogfile and native formats",
					   "%s", err);
		for (size_t k = 0; k < c->max_packet.n; k++) {
			if (!c->max_packet.v[k]) {
				rc = add_trace(c, t);
				kept = true;
			} else if (ipc_trace_split(
					   t,
					   c->ntargets ? UINT32_MAX
						       : (uint32_t)c->max_packet
								 .v[k],
					   &v)) {
				rc = cli_error("out of memory");
			} else {
				/*
				 * Against a live stub the client asks in
				 * pieces itself: the trace stays whole.
				 */
				v->max_packet = (uint32_t)c->max_packet.v[k];
				rc = add_trace(c, v);
			}
			if (rc) {
				if (!kept)
					ipc_trace_free(t);
				return EXIT_USAGE;
			}
		}
		if (!kept)
			ipc_trace_free(t);
	}
	return 0;
}

static int link_validate(struct cli_config *c)
{
	if (!c->framing)
		c->framing = &ipc_framing_raw;
	if (c->no_ack && !c->framing->acks)
		return usage_error("use it with --framing gdb-rsp",
				   "--no-ack: %s framing has no acks to leave "
				   "out",
				   c->framing->name);
	if (c->cmd != CMD_REPLAY)
		return 0;
	/* The seed's replays: three runs of one replay each, over TCP. */
	if (!(c->set & (SET_ITER | SET_DUR)))
		c->ro.iterations = 1;
	if (!(c->set & SET_WARM))
		c->ro.warmup = 0;
	if (!(c->set & SET_TP))
		c->transports = "tcp";
	return load_traces(c);
}

const struct cli_optgroup cli_opts_link = {
	.opts = link_opts,
	.n = sizeof(link_opts) / sizeof(link_opts[0]),
	.validate = link_validate,
};

void cli_link_fini(struct cli_config *c)
{
	for (size_t i = 0; i < c->ntraces; i++)
		ipc_trace_free(c->traces[i]);
	free(c->traces);
	c->traces = NULL;
	c->ntraces = 0;
	ipc_u64_list_free(&c->max_packet);
}

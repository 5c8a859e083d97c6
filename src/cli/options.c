/* SPDX-License-Identifier: MIT */
/*
 * The option tables: one entry per option drives getopt_long, --help and
 * which commands accept it.  The core options are here; a feature adds its
 * own table (src/cli/opt_*.c) to cli_optgroups[].  Setters only convert;
 * validation checks the combination and fills the command's defaults.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "remote/lib_internal.h"

#define MEAS CMD_MEASURE
#define ONE                                                                    \
	(CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_LOAD | CMD_REPLAY |    \
	 CMD_HTTP)
#define REQ (CMD_RR | CMD_CRR | CMD_LOAD)
#define IVAL (CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_LOAD | CMD_HTTP)

static int set_transport(struct cli_config *c, const char *a)
{
	c->transports = a;
	c->set |= SET_TP;
	return 0;
}

static int set_engine(struct cli_config *c, const char *a)
{
	c->engines = a;
	c->set |= SET_ENGINE;
	return 0;
}

static int set_iter(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, CLI_COUNT_MAX, &c->ro.iterations))
		return cli_bad_value(
			"--iterations",
			"give a whole number such as 1000 or 100k");
	c->set |= SET_ITER;
	return 0;
}

static int set_dur(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_TIME, a, 1, CLI_TIME_MAX, &c->ro.duration_ns))
		return cli_bad_value("--duration",
				     "give a time such as 5, 5s or 500ms");
	c->set |= SET_DUR;
	return 0;
}

/*
 * Below 10 ms an interval holds too few samples of a slow transport to
 * say anything, and its line would scroll faster than anyone reads.
 */
#define IVAL_MIN_NS 10000000ull

static int set_interval(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_TIME, a, IVAL_MIN_NS, CLI_TIME_MAX,
		      &c->ro.interval_ns))
		return cli_bad_value(
			"--interval",
			"give a time of 10ms or more, such as 1, 1s or 500ms");
	return 0;
}

static int set_runs(struct cli_config *c, const char *a)
{
	uint64_t n;

	if (!strcmp(a, "auto")) {
		c->ro.runs_auto = true;
		c->set |= SET_RUNS;
		return 0;
	}
	if (cli_units(IPC_UNIT_COUNT, a, 1, 100000, &n))
		return cli_bad_value("--runs",
				     "give a whole number of runs from 1 to "
				     "100000, such as 5, or auto");
	c->ro.runs = (unsigned)n;
	c->ro.runs_auto = false;
	c->set |= SET_RUNS;
	return 0;
}

static int set_warm(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 0, CLI_COUNT_MAX, &c->ro.warmup))
		return cli_bad_value(
			"--warmup",
			"give a whole number of iterations, 0 for none");
	c->set |= SET_WARM;
	return 0;
}

static int set_list(struct ipc_u64_list *l, const char *a, const char *opt,
		    bool counts)
{
	ipc_u64_list_free(l);
	if (ipc_units_parse_list(counts ? IPC_UNIT_COUNT : IPC_UNIT_SIZE, a,
				 counts ? 1 : 0,
				 counts ? CLI_COUNT_MAX : CLI_SIZE_MAX, l,
				 cli_err, sizeof(cli_err)))
		return cli_bad_value(opt,
				     counts ? "counts look like 1000, "
					      "100,1000,10k or 100..100000:x10"
					    : "sizes look like 64, 4k, 0,4,8, "
					      "0..1024 or 64..4096:x2");
	return 0;
}

static int set_req(struct cli_config *c, const char *a)
{
	c->set |= SET_REQ;
	return set_list(&c->req, a, "--req", false);
}

static int set_resp(struct cli_config *c, const char *a)
{
	c->set |= SET_RESP;
	return set_list(&c->resp, a, "--resp", false);
}

static int set_size(struct cli_config *c, const char *a)
{
	c->set |= SET_SIZE;
	return set_list(&c->size, a, "--size", false);
}

static int set_count(struct cli_config *c, const char *a)
{
	c->set |= SET_COUNT;
	return set_list(&c->count, a, "--count", true);
}

static int set_total(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_SIZE, a, 1, CLI_SIZE_MAX, &c->total))
		return cli_bad_value("--total",
				     "give a size such as 4M (a transfer needs "
				     "at least 1 byte)");
	c->set |= SET_TOTAL;
	return 0;
}

static int set_timeout(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_TIME, a, 1, CLI_TIME_MAX, &c->ro.timeout_ns))
		return cli_bad_value("--timeout",
				     "give a time such as 1s or 200ms");
	c->set |= SET_TIMEOUT;
	return 0;
}

static int set_noverify(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.verify = false;
	return 0;
}

/* The n-th CPU this process may run on, or -1. */
static int allowed_cpu(int n)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && n-- == 0)
			return cpu;
	return -1;
}

static int check_cpu(const char *a, long cpu)
{
	cpu_set_t set;

	if (cpu >= 0 && cpu < CPU_SETSIZE &&
	    !sched_getaffinity(0, sizeof(set), &set) && CPU_ISSET(cpu, &set))
		return 0;
	return usage_error("see the CPUs you may use with: nproc; "
			   "taskset -p $$",
			   "--pin: CPU %ld in '%s' is not one this process "
			   "may run on",
			   cpu, a);
}

static int set_pin(struct cli_config *c, const char *a)
{
	char *end;
	long cl, sv;

	c->set |= SET_PIN;
	c->pin = PIN_FIXED;
	if (!strcmp(a, "none")) {
		c->pin = PIN_NONE;
		c->ro.pin_client = c->ro.pin_server = -1;
		return 0;
	}
	if (!strcmp(a, "same")) {
		c->ro.pin_client = c->ro.pin_server = allowed_cpu(0);
		return 0;
	}
	if (!strcmp(a, "split")) {
		c->ro.pin_client = allowed_cpu(0);
		c->ro.pin_server = allowed_cpu(1);
		if (c->ro.pin_server < 0)
			return usage_error("use --pin same on a 1-CPU machine",
					   "--pin split: only one CPU is "
					   "available");
		return 0;
	}
	errno = 0;
	cl = strtol(a, &end, 10);
	if (errno || end == a || *end != ',')
		goto bad_form;
	sv = strtol(end + 1, &end, 10);
	if (errno || *end || end[-1] == ',')
		goto bad_form;
	if (check_cpu(a, cl) || check_cpu(a, sv))
		return EXIT_USAGE;
	c->ro.pin_client = (int)cl;
	c->ro.pin_server = (int)sv;
	return 0;
bad_form:
	return usage_error("write --pin CLIENT,SERVER (CPU numbers, e.g. "
			   "0,1), --pin same, --pin split or --pin none",
			   "--pin: bad value '%s'", a);
}

static int set_placement(struct cli_config *c, const char *a)
{
	if (!strcmp(a, "process"))
		c->ro.placement = IPC_PLACE_PROCESS;
	else if (!strcmp(a, "thread"))
		c->ro.placement = IPC_PLACE_THREAD;
	else
		return usage_error("use process or thread",
				   "--placement: unknown placement '%s'", a);
	return 0;
}

static int set_format(struct cli_config *c, const char *a)
{
	if (!ipc_report_find(a))
		return usage_error("use table, json, csv, markdown or html",
				   "--format: unknown format '%s'", a);
	c->format = a;
	return 0;
}

static int set_output(struct cli_config *c, const char *a)
{
	return cli_file_arg("--output",
			    "give a file name, or - for standard output", a,
			    &c->output);
}

static int set_quiet(struct cli_config *c, const char *a)
{
	(void)a;
	c->quiet = true;
	return 0;
}

static const struct cli_opt core_opts[] = {
	{"transport", 't', "LIST", MEAS,
	 "transports, comma separated, or all [all; replay, http: tcp]",
	 set_transport},
	{"engine", 'e', "LIST", MEAS,
	 "I/O engines: blocking, poll, epoll, io_uring, busy [blocking; "
	 "load, http: epoll]",
	 set_engine},
	{"iterations", 'n', "N", ONE,
	 "measured iterations per run: round trips (rr), batches (stream), "
	 "transfers (bulk), transactions (crr), requests over all flows "
	 "(load), replays (replay), responses (http) [rr 10000, crr 1000, "
	 "load and http 10 per flow "
	 "but 10000 at least, stream/bulk 10, replay 1]",
	 set_iter},
	{"duration", 'd', "TIME", ONE,
	 "measure each run for TIME instead of -n", set_dur},
	{"interval", 'i', "TIME", IVAL,
	 "a report every TIME while each run measures: a line on a "
	 "terminal, an intervals array per run in JSON [none]",
	 set_interval},
	{"runs", 'r', "N|auto", MEAS,
	 "independent runs per case, each on fresh endpoints; auto: until "
	 "the interval meets --ci [auto]",
	 set_runs},
	{"warmup", 'w', "N", ONE,
	 "iterations before each run, not recorded [rr 1000, crr 10, load 1 "
	 "per flow, replay 0, others 1]",
	 set_warm},
	{"req", 0, "SIZES", REQ, "request sizes [1]", set_req},
	{"resp", 0, "SIZES", REQ, "response sizes [1]", set_resp},
	{"size", 0, "SIZES", CMD_STREAM | CMD_BULK,
	 "message sizes (stream) or chunk sizes (bulk) [stream 64k (udp "
	 "1472, udp6 1452: one 1500-byte frame's payload), bulk 4k]",
	 set_size},
	{"count", 0, "COUNTS", CMD_STREAM, "messages per batch [1000]",
	 set_count},
	{"total", 0, "BYTES", CMD_BULK, "bytes per transfer [4M]", set_total},
	{"timeout", 0, "TIME", MEAS,
	 "longest wait for a udp response or report (then it counts as "
	 "lost), or a stub's reply [1s; a stub 5s]",
	 set_timeout},
	{"no-verify", 0, NULL, MEAS,
	 "do not check received payloads (checked by default)", set_noverify},
	{"pin", 0, "C,S", MEAS,
	 "pin client and server to CPUs C and S; same, split; none: the "
	 "scheduler's choice [each case twice: sides on one CPU, on two]",
	 set_pin},
	{"placement", 0, "WHERE", MEAS,
	 "the peer as a separate process or a thread [process]", set_placement},
	{"format", 'f', "FMT", MEAS | CMD_COMPARE | CMD_REPORT | CMD_SERVER,
	 "table, json, csv, markdown or html [table]", set_format},
	{"output", 'o', "FILE", MEAS | CMD_COMPARE | CMD_REPORT,
	 "write the report to FILE (whole or not at all) [stdout]", set_output},
	{"quiet", 'q', NULL, MEAS, "no progress line on stderr", set_quiet},
};

/* Listed last in --help; cli_parse answers them itself (no setter). */
static const struct cli_opt info_opts[] = {
	{"help", 'h', NULL, ~0u, "this help (after a command: its options)",
	 NULL},
	{"version", 'V', NULL, ~0u, "print the version", NULL},
};

static const struct cli_optgroup cli_opts_info = {
	.opts = info_opts,
	.n = sizeof(info_opts) / sizeof(info_opts[0]),
};

static int core_validate(struct cli_config *c);

const struct cli_optgroup cli_opts_core = {
	.opts = core_opts,
	.n = sizeof(core_opts) / sizeof(core_opts[0]),
	.validate = core_validate,
};

/* Every option group; a feature adds its line here. */
static const struct cli_optgroup *const cli_optgroups[] = {
	&cli_opts_core,
	&cli_opts_transport,
	&cli_opts_load,
	&cli_opts_testing,
	&cli_opts_trust,
	&cli_opts_compare,
	&cli_opts_target,
	&cli_opts_link,
	&cli_opts_http,
	&cli_opts_server,
	&cli_opts_info,
	&cli_opts_matrix,
	&cli_opts_explain,  /* opt_explain.c */
	&cli_opts_tput,	    /* opt_tput.c */
	&cli_opts_zerocopy, /* opt_zerocopy.c */
	NULL,
};

#define MAXOPTS 128

/* All options of all groups, flattened once: index i is getopt's 256 + i. */
static const struct cli_opt *all[MAXOPTS];
static size_t nall;

static void flatten(void)
{
	nall = 0;
	for (size_t g = 0; cli_optgroups[g]; g++)
		for (size_t i = 0; i < cli_optgroups[g]->n && nall < MAXOPTS;
		     i++)
			all[nall++] = &cli_optgroups[g]->opts[i];
}

static const struct {
	const char *name;
	enum cli_cmd cmd;
	const char *args;
	const char *help;
} cmds[] = {
	{"rr", CMD_RR, "--req SIZES --resp SIZES",
	 "request/response ping-pong: latency per round trip"},
	{"stream", CMD_STREAM, "--size SIZES --count COUNTS",
	 "one-way messages in batches: time per batch, throughput"},
	{"bulk", CMD_BULK, "--total BYTES --size SIZES",
	 "one request, TOTAL bytes back in chunks: transfer rate"},
	{"crr", CMD_CRR, "--req SIZES --resp SIZES",
	 "connect, request, response, close: time per transaction"},
	{"load", CMD_LOAD, "-c FLOWS --threads T --rate R",
	 "many flows, closed or open loop: rate, latency, fairness"},
	{"replay", CMD_REPLAY, "FILE...",
	 "a recorded conversation played by both sides: wall time"},
	{"http", CMD_HTTP, "[URL]",
	 "HTTP/1.1 load on URL or the built-in target; --serve to serve "
	 "only"},
	{"list", CMD_LIST, "",
	 "transports, engines and formats available on this machine"},
	{"compare", CMD_COMPARE, "A.json B.json | A1.json ... -- B1.json ...",
	 "compare JSON results: ratio, interval, verdict per case"},
	{"report", CMD_REPORT, "FILE.json...",
	 "render saved JSON results again, in any format, measuring nothing"},
	{"server", CMD_SERVER, "--listen ADDR[:PORT] --key FILE",
	 "accept tests from remote clients (default port 5301)"},
};

size_t cli_options(const struct cli_opt *const **opts)
{
	flatten();
	*opts = all;
	return nall;
}

const char *cli_command(size_t i, unsigned *cmd)
{
	if (i >= sizeof(cmds) / sizeof(cmds[0]))
		return NULL;
	*cmd = cmds[i].cmd;
	return cmds[i].name;
}

/*
 * Help lines that say more for some commands than the general one (which
 * lists every command's default): each command's own words and default.
 */
static const struct {
	const char *opt; /* long name */
	unsigned cmds;	 /* the commands this line is for */
	const char *help;
} per_cmd[] = {
	{"transport", CMD_REPLAY, "transports, comma separated [tcp]"},
	{"transport", CMD_HTTP,
	 "the built-in target over tcp or tcp6, comma separated (a URL "
	 "says which) [tcp]"},
	{"transport", CMD_MEASURE & ~(CMD_REPLAY | CMD_HTTP),
	 "transports, comma separated, or all [all]"},
	{"engine", CMD_LOAD | CMD_HTTP,
	 "I/O engines: poll, epoll, io_uring, busy [epoll]"},
	{"engine", CMD_MEASURE & ~(CMD_LOAD | CMD_HTTP),
	 "I/O engines: blocking, poll, epoll, io_uring, busy [blocking]"},
	{"iterations", CMD_RR, "measured round trips per run [10000]"},
	{"iterations", CMD_STREAM, "measured batches per run [10]"},
	{"iterations", CMD_BULK, "measured transfers per run [10]"},
	{"iterations", CMD_CRR, "measured transactions per run [1000]"},
	{"iterations", CMD_LOAD,
	 "measured requests per run over all flows [10 per flow, 10000 at "
	 "least]"},
	{"iterations", CMD_REPLAY, "replays per run [1]"},
	{"warmup", CMD_RR, "round trips before each run, not recorded [1000]"},
	{"warmup", CMD_CRR, "transactions before each run, not recorded [10]"},
	{"warmup", CMD_LOAD,
	 "requests before each run, not recorded [1 per flow]"},
	{"warmup", CMD_REPLAY, "replays before each run, not recorded [0]"},
	{"warmup", CMD_STREAM, "batches before each run, not recorded [1]"},
	{"warmup", CMD_BULK, "transfers before each run, not recorded [1]"},
	{"size", CMD_STREAM,
	 "message sizes [64k; udp 1472, udp6 1452: one 1500-byte frame's "
	 "payload]"},
	{"size", CMD_BULK, "chunk sizes [4k]"},
	{"budget", CMD_MEASURE & ~CMD_SUITE,
	 "--runs auto: no new run after TIME for the whole command, once "
	 "each case has the runs of an interval (6 at 95%) [60s]"},
	{"budget", CMD_SUITE,
	 "--runs auto: no new run after TIME for the whole suite, once each "
	 "case has the runs of an interval (6 at 95%) [20s]"},
	{"format", CMD_COMPARE, "table, json, markdown or html [table]"},
	{"format", CMD_SERVER, "table or json, a line per event [table]"},
	{"key",
	 CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_LOAD | CMD_REPLAY,
	 "with --remote: prove to the server that we hold this shared key "
	 "(mode 600) [none]"},
	{"control-timeout",
	 CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_LOAD | CMD_REPLAY,
	 "with --remote: deadline of every control message [10s]"},
	{"output", CMD_REPORT,
	 "write the report to FILE (whole or not at all) [stdout]"},
};

/* The help line of option @o for command @cmd. */
static const char *opt_help(const struct cli_opt *o, enum cli_cmd cmd)
{
	if (cmd == CMD_SUITE)
		return o->help;
	for (size_t i = 0; i < sizeof(per_cmd) / sizeof(per_cmd[0]); i++)
		if ((per_cmd[i].cmds & cmd) && !strcmp(per_cmd[i].opt, o->name))
			return per_cmd[i].help;
	return o->help;
}

/* Does command @cmd take an option whose value is a @meta ("SIZES")? */
static bool takes(enum cli_cmd cmd, const char *meta)
{
	for (size_t i = 0; i < nall; i++)
		if ((all[i]->cmds & cmd) && all[i]->arg &&
		    !strcmp(all[i]->arg, meta))
			return true;
	return false;
}

/* Under the options: the value forms the command takes, its exit codes. */
static void footer(FILE *f, enum cli_cmd cmd)
{
	bool suite = cmd == CMD_SUITE;
	bool sizes = suite || takes(cmd, "SIZES");
	bool counts = suite || takes(cmd, "COUNTS");
	bool times = suite || takes(cmd, "TIME");
	bool links = suite || takes(cmd, "LINK");
	bool numbers = suite || takes(cmd, "N");

	if (sizes || counts || times || links || numbers)
		fputc('\n', f);
	if (sizes)
		fprintf(f, "SIZES   0,4,8 | 0..1024 (0, then powers of two) | "
			   "64..4096:x4 | 0..1M:+64k\n"
			   "        suffixes k, M, G (1024-based; 4k = 4kB = "
			   "4KiB)\n");
	if (counts)
		fprintf(f, "COUNTS  the same forms; suffixes k, M, G "
			   "(1000-based)\n");
	if (times)
		fprintf(f, "TIME    5 (seconds), 1.5s, 500ms, 100us (or µs), "
			   "250ns, 2m, 1h\n");
	if (numbers)
		fprintf(f, "NUMBERS decimal digits, a fraction only in times "
			   "and link rates; no sign,\n        space or hex; 0 "
			   "only where it means something (-w 0, delay=0,\n"
			   "        rate=0: no rate limit)\n");
	if (links)
		fprintf(f,
			"LINK    localhost (none), lan-100m, wifi-g, wan, "
			"serial-9600, serial-115200;\n        or "
			"delay=35ms,jitter=2ms,rate=10mbit,baud=9600,loss=1%%,"
			"mtu=1448,\n        overhead=90 (a preset then "
			"key=value items changes it)\n");
	if (sizes)
		fprintf(f, "\nA size of 0 is an empty datagram on udp, udp6, "
			   "unix-dgram and mq, and a\n1-byte token on byte "
			   "streams, unix-seqpacket and shm (rates count\n"
			   "payload bytes only).\n");
	if (cmd == CMD_LIST)
		fprintf(f, "\nexit status: 0.\n");
	else if (cmd == CMD_REPORT)
		fprintf(f, "\nFILE.json are results written with -f json; "
			   "several make one report.\n"
			   "\nexit status: 0 rendered; 1 the report could "
			   "not be written; 2 bad usage\nor a file that is "
			   "not an ipcperf result.\n");
	else
		fprintf(f, "\nexit status: 0 all measured; 1 a measurement "
			   "failed (the others are\nstill reported); 2 bad "
			   "usage or input.\n");
}

/* A command's arguments that are not options ("FILE..." for replay). */
static bool positional(const char *args)
{
	return args[0] && args[0] != '-';
}

static void help(FILE *f, enum cli_cmd cmd, const char *name)
{
	char left[40];

	if (cmd == CMD_SUITE) {
		fprintf(f,
			"usage: ipcperf [COMMAND] [OPTIONS]\n\n"
			"Measure how fast messages cross a channel: round-trip "
			"latency and\nthroughput of message passing over "
			"pipes, "
			"FIFOs, Unix sockets, TCP\nand UDP, shared memory, "
			"message queues, ptys and serial ports on this\n"
			"machine, with every payload checked.\n\ncommands:\n"
			"  %-8s %s\n",
			"(none)",
			"the quick suite: rr 1 B and stream 64 KiB on every "
			"transport");
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
		fprintf(f, "\noptions (see 'ipcperf COMMAND --help' for "
			   "each command's):\n");
	} else {
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (cmds[i].cmd == cmd)
				fprintf(f,
					"usage: ipcperf %s [OPTIONS]%s%s\n\n"
					"%s\n\noptions:\n",
					name,
					positional(cmds[i].args) ? " " : "",
					positional(cmds[i].args) ? cmds[i].args
								 : "",
					cmds[i].help);
	}
	for (size_t i = 0; i < nall; i++) {
		const struct cli_opt *o = all[i];

		char only[64] = "";

		if (!(o->cmds & cmd) && cmd != CMD_SUITE)
			continue;
		if (cmd == CMD_SUITE && o->cmds != ~0u &&
		    (o->cmds & CMD_MEASURE) != CMD_MEASURE)
			for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]);
			     k++)
				if (o->cmds & cmds[k].cmd)
					snprintf(only + strlen(only),
						 sizeof(only) - strlen(only),
						 "%s%s", only[0] ? "," : " (",
						 cmds[k].name);
		if (o->key)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key,
				 o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-24s %s%s%s\n", left, opt_help(o, cmd), only,
			only[0] ? ")" : "");
	}
	if (cmd == CMD_SERVER) {
		fprintf(f,
			"\nTIME    5 (seconds), 5s, 500ms, 2m, 1h\n"
			"\nEach test runs in a process of its own, on a data "
			"port "
			"of its own that\nonly the client holding the test's "
			"cookie may use.  Control protocol\nversion %d "
			"(docs/protocol.md).  Clients measure against it with "
			"--remote\nHOST[:PORT] (rr, stream, bulk, crr, load, "
			"replay).\n"
			"\nexit status: 0 stopped (Ctrl-C, SIGTERM, --once, "
			"--idle-timeout,\n--max-duration); 1 the server "
			"failed; "
			"2 bad usage (an address in use,\na key file that is "
			"not one).\n",
			IPC_REMOTE_PROTO);
		return;
	}
	if (cmd == CMD_COMPARE) {
		fprintf(f,
			"\nA.json and B.json are results written with -f json. "
			"Cases are matched by\ntheir parameters; one that "
			"differs between the files as a whole (say\nthe "
			"transport) is what is compared.\n"
			"\nEach file is one invocation. The machine drifts "
			"between invocations (by\nabout 10%% a minute on a "
			"shared VM), which the runs of one invocation\ncannot "
			"show: with one file a side a difference of the runs "
			"is "
			"\"undecided\"\nunless --drift says how much drift to "
			"allow. Give several files a side,\nA1.json A2.json "
			"... -- B1.json B2.json ..., best measured in turns "
			"(A B A B\n...): the verdict then compares the "
			"invocations (4 a side can tell).\n"
			"\nexit status: 0 compared; 1 --fail-if-slower found a "
			"slower case or one it\ncould not compare; 2 bad "
			"usage or a file that is not an ipcperf result.\n");
		return;
	}
	footer(f, cmd);
}

/*
 * Two commands may have an option of one name (--idle-timeout of server
 * and of http --serve; rr --matrix, a flag, and report --matrix M): getopt
 * finds the first of the name, the command's own is the one meant, and
 * getopt must be told whether that one takes a value.
 */
static size_t own_opt(size_t i, enum cli_cmd cmd)
{
	for (size_t j = 0; !(all[i]->cmds & cmd) && j < nall; j++)
		if (!strcmp(all[j]->name, all[i]->name) && (all[j]->cmds & cmd))
			return j;
	return i;
}

static int check_applies(const struct cli_config *c, const bool *given)
{
	char hint[64];

	snprintf(hint, sizeof(hint), "see 'ipcperf%s%s --help' for its options",
		 c->cmd == CMD_SUITE ? "" : " ",
		 c->cmd == CMD_SUITE ? "" : c->cmd_name);
	for (size_t i = 0; i < nall; i++) {
		if (!given[i] || (all[i]->cmds & c->cmd))
			continue;
		return usage_error(hint, "option --%s does not apply to %s",
				   all[i]->name,
				   c->cmd == CMD_SUITE ? "the quick suite "
							 "(no command)"
						       : c->cmd_name);
	}
	return 0;
}

static int one_default(struct ipc_u64_list *l, uint64_t v)
{
	if (l->n)
		return 0;
	l->v = malloc(sizeof(*l->v));
	if (!l->v)
		return cli_error("out of memory");
	l->v[0] = v;
	l->n = 1;
	return 0;
}

/* Fill what was not given with the command's defaults, then cross-check. */
static int core_validate(struct cli_config *c)
{
	if ((c->set & SET_ITER) && (c->set & SET_DUR))
		return usage_error("give one of them",
				   "conflicting options: --iterations %llu and "
				   "--duration",
				   (unsigned long long)c->ro.iterations);
	switch (c->cmd) {
	case CMD_SUITE:
		/*
		 * For a suite pattern whose runs are not sized by time (rr's
		 * and stream's are: ipc_suite_desc.run_ns).  14 transports x
		 * 2 tests x at least 5 runs must fit in 30 s even when a
		 * round trip takes 50 us (this VM on a bad day).
		 */
		c->ro.iterations = 2000;
		c->ro.warmup = 200;
		break;
	case CMD_RR:
		if (!(c->set & SET_ITER))
			c->ro.iterations = 10000;
		if (!(c->set & SET_WARM))
			c->ro.warmup = 1000;
		break;
	case CMD_CRR:
		if (!(c->set & SET_ITER))
			c->ro.iterations = 1000;
		if (!(c->set & SET_WARM))
			c->ro.warmup = 10;
		break;
	case CMD_LOAD:
	case CMD_HTTP:
		break; /* from the number of flows: opt_load.c */
	default:
		if (!(c->set & SET_ITER))
			c->ro.iterations = 10;
		if (!(c->set & SET_WARM))
			c->ro.warmup = 1;
		break;
	}
	if (c->set & SET_DUR)
		c->ro.iterations = 0;
	if (one_default(&c->req, 1) || one_default(&c->resp, 1) ||
	    one_default(&c->size, c->cmd == CMD_BULK ? 4096 : 65536) ||
	    one_default(&c->count, c->cmd == CMD_SUITE ? 256 : 1000))
		return EXIT_USAGE;
	if (!c->total)
		c->total = 4u << 20;
	if (c->cmd == CMD_BULK)
		for (size_t i = 0; i < c->size.n; i++)
			if (c->size.v[i] == 0)
				return usage_error(
					"a chunk must hold at least 1 byte",
					"--size: chunk size 0 is not possible "
					"for bulk");
	return 0;
}

/*
 * compare splits its files with "--", which getopt takes for the end of
 * the options: hand it on as cli_cmp_sep instead, so that options after
 * it still count.  @argv's strings are kept; the array is new.
 */
static char **compare_argv(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));

	for (int i = 0; v && i < argc; i++)
		v[i] = strcmp(argv[i], "--") ? argv[i] : (char *)cli_cmp_sep;
	return v;
}

int cli_parse(int argc, char **argv, struct cli_config *c)
{
	struct option lopts[MAXOPTS + 1];
	char shorts[3 * MAXOPTS + 2], *sp = shorts;
	bool given[MAXOPTS] = {false};
	int key, err;
	size_t i;

	memset(c, 0, sizeof(*c));
	ipc_runopts_default(&c->ro);
	c->transports = "all";
	c->engines = "blocking";
	c->format = "table";
	c->cmd = CMD_SUITE;
	c->cmd_name = "suite";
	flatten();
	if (argc > 1 && argv[1][0] != '-') {
		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[1], cmds[i].name))
				break;
		if (i == sizeof(cmds) / sizeof(cmds[0]))
			return usage_error(
				"commands: rr, stream, bulk, crr, "
				"load, replay, http, list, compare, report, "
				"server "
				"(none: the quick suite); see ipcperf "
				"--help",
				"unknown command '%s'", argv[1]);
		c->cmd = cmds[i].cmd;
		c->cmd_name = cmds[i].name;
		argv++;
		argc--;
	}
	/*
	 * The quick suite and rr are a first look: a flagged row says why
	 * (rr's remote peer only when asked: opt_explain.c).
	 */
	c->ro.explain_flagged = c->cmd == CMD_SUITE || c->cmd == CMD_RR;
	if (c->cmd == CMD_COMPARE) {
		c->cmp_argv = compare_argv(argc, argv);
		if (!c->cmp_argv) {
			cli_error("out of memory");
			return EXIT_MEASURE;
		}
		argv = c->cmp_argv;
	}
	*sp++ = ':'; /* report a missing argument as ':' */
	for (i = 0; i < nall; i++) {
		/* Long options answer 256 + their index, short ones their letter. */
		lopts[i] = (struct option){all[i]->name,
					   all[own_opt(i, c->cmd)]->arg
						   ? required_argument
						   : no_argument,
					   NULL, 256 + (int)i};
		if (all[i]->key) {
			*sp++ = (char)all[i]->key;
			if (all[i]->arg)
				*sp++ = ':';
		}
	}
	*sp = '\0';
	memset(&lopts[nall], 0, sizeof(lopts[nall]));
	opterr = 0;
	/* 0, not 1: glibc forgets a previous parse (a server parses many). */
	optind = 0;
	while ((key = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (key == '?')
			return usage_error("see ipcperf --help",
					   "unknown option '%s'",
					   argv[optind - 1]);
		if (key == ':')
			return usage_error("see ipcperf --help",
					   "option '%s' needs a value",
					   argv[optind - 1]);
		if (key >= 256)
			i = (size_t)key - 256;
		else
			for (i = 0; i < nall && all[i]->key != key; i++)
				;
		if (i >= nall)
			return usage_error("see ipcperf --help",
					   "unknown option '%s'",
					   argv[optind - 1]);
		/* Of two options of one name, the command's own is meant. */
		i = own_opt(i, c->cmd);
		if (!strcmp(all[i]->name, "help")) {
			help(stdout, c->cmd, c->cmd_name);
			return -1;
		}
		if (!strcmp(all[i]->name, "version")) {
			printf("ipcperf %s\n", IPCPERF_VERSION);
			return -1;
		}
		given[i] = true;
		err = all[i]->set(c, optarg);
		if (err)
			return EXIT_USAGE;
	}
	if (c->cmd == CMD_COMPARE) {
		err = cli_compare_args(c, argc - optind, argv + optind);
		if (err)
			return err;
		optind = argc;
	}
	if (optind < argc && (c->cmd & (CMD_REPLAY | CMD_REPORT))) {
		/* replay's and report's files, wherever they stood */
		c->files = argv + optind;
		c->nfiles = (size_t)(argc - optind);
		optind = argc;
	}
	if (optind < argc && c->cmd == CMD_HTTP && !c->http_url) {
		c->http_url = argv[optind++];
	}
	if (optind < argc)
		return usage_error("options start with - or --; see ipcperf "
				   "--help",
				   "unexpected argument '%s'", argv[optind]);
	err = check_applies(c, given);
	for (i = 0; !err && cli_optgroups[i]; i++)
		if (cli_optgroups[i]->validate)
			err = cli_optgroups[i]->validate(c);
	return err;
}

void cli_config_fini(struct cli_config *c)
{
	free(c->cmp_files);
	free(c->cmp_argv);
	ipc_u64_list_free(&c->req);
	ipc_u64_list_free(&c->resp);
	ipc_u64_list_free(&c->size);
	ipc_u64_list_free(&c->count);
	cli_link_fini(c);
	free(c->headers);
	if (c->key) {
		ipc_rkey_wipe(c->key);
		free(c->key);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * Throughput the way iperf3 users ask for it: parallel streams (-P) and
 * their direction (-R, --bidir), a paced sender (-b), and a time limit
 * for the whole command (--time) that its cases share.
 */
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "run/lib_internal.h"

#define TIME_CMDS (CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR)

/*
 * What a run costs beyond its measured time: a peer forked or a thread
 * started, the channel opened, the warm-up; about 10 to 30 ms here.
 */
#define RUN_OVERHEAD_NS 30000000ull
#define RUN_MIN_NS 10000000ull /* below this a run measures little */

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
	return cli_bad_value(
		"--bitrate",
		"give bits per second above 0, such as 45M, 1G or 500kbit");
}

static int set_time(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_TIME, a, 100000000ull, CLI_TIME_MAX,
		      &c->time_ns))
		return cli_bad_value(
			"--time",
			"give a time of 100ms or more, such as 10, 10s or 2m");
	return 0;
}

/*
 * Parallel streams and their direction.  Each stream is a channel and a
 * peer of its own: about PAR_FDS descriptors of this process (its socket
 * or ring, the peer's pidfd and stop, the watchdog's), so the
 * descriptor limit bounds them, and PAR_MAX (iperf3's limit as well)
 * bounds the threads.
 */
#define PAR_MAX 128
#define PAR_FDS 8
#define PAR_FDS_SPARE 64 /* the rest of the program's */

/* The most streams this process's descriptor limit allows, PAR_MAX at most. */
static uint64_t par_limit(uint64_t *nofile)
{
	struct rlimit rl;
	uint64_t n;

	*nofile = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY
			  ? UINT64_MAX
			  : (uint64_t)rl.rlim_cur;
	n = *nofile > PAR_FDS_SPARE ? (*nofile - PAR_FDS_SPARE) / PAR_FDS : 0;
	return n < PAR_MAX ? n : PAR_MAX;
}

static int set_parallel(struct cli_config *c, const char *a)
{
	uint64_t nofile, most = par_limit(&nofile);

	if (cli_units(IPC_UNIT_COUNT, a, 1, UINT64_MAX, &c->parallel))
		return cli_bad_value("--parallel",
				     "give a number of streams, 1 or more");
	if (c->parallel > most && most == PAR_MAX)
		return usage_error("give fewer streams",
				   "--parallel %llu: at most %d streams "
				   "(iperf3's limit too)",
				   (unsigned long long)c->parallel, PAR_MAX);
	if (c->parallel > most)
		return usage_error(
			"give fewer streams, or raise ulimit -n",
			"--parallel %llu: at most %llu streams here: each "
			"takes about %d of this process's %llu descriptors "
			"(ulimit -n)",
			(unsigned long long)c->parallel,
			(unsigned long long)most, PAR_FDS,
			(unsigned long long)nofile);
	return 0;
}

/* -R and --bidir: one direction, given once. */
static int set_dir(struct cli_config *c, unsigned dir)
{
	if (c->direction && c->direction != dir)
		return usage_error("give one of them",
				   "conflicting options: --reverse and "
				   "--bidir");
	c->direction = dir;
	return 0;
}

static int set_reverse(struct cli_config *c, const char *a)
{
	(void)a;
	return set_dir(c, IPC_DIR_REVERSE);
}

static int set_bidir(struct cli_config *c, const char *a)
{
	(void)a;
	return set_dir(c, IPC_DIR_BIDIR);
}

static const struct cli_opt tput_opts[] = {
	{"parallel", 'P', "N", CMD_STREAM | CMD_BULK,
	 "N streams at once, each on a channel and peer of its own: their "
	 "sum, slowest, fastest and fairness (Jain's index) [1]",
	 set_parallel},
	{"reverse", 'R', NULL, CMD_STREAM,
	 "the peer sends and the client receives and checks, as iperf3 -R "
	 "[the client sends]",
	 set_reverse},
	{"bidir", 0, NULL, CMD_STREAM,
	 "both directions at once, each a stream of its own (twice -P "
	 "streams), each reported [one way]",
	 set_bidir},
	{"bitrate", 'b', "RATE", CMD_STREAM,
	 "pace the sender at RATE bits/s (k, M, G as iperf3: 1000-based); "
	 "over udp the receiver keeps RFC 3550 jitter [as fast as it goes]",
	 set_bitrate},
	{"time", 0, "TIME", TIME_CMDS,
	 "the whole command takes about TIME: its cases share it, each run "
	 "sized so that every case gets the runs of an interval [none]",
	 set_time},
};

/* A paced stream faster than its emulated link would only fill the relay. */
static int tput_validate(struct cli_config *c)
{
	/* Its observer watches one client thread and one peer. */
	if ((c->parallel > 1 || c->direction == IPC_DIR_BIDIR) && c->ro.explain)
		return usage_error("explain one stream at a time",
				   "--explain with %s: one stream at a time",
				   c->parallel > 1 ? "--parallel" : "--bidir");
	if (c->time_ns && (c->set & (SET_ITER | SET_DUR | SET_BUDGET)))
		return usage_error("--time sizes the runs itself; give one of "
				   "them",
				   "conflicting options: --time and %s",
				   c->set & SET_ITER  ? "--iterations"
				   : c->set & SET_DUR ? "--duration"
						      : "--budget");
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

void cli_time_share(const struct cli_config *c, size_t ncases,
		    struct ipc_runopts *ro)
{
	uint64_t runs, share, per_run;

	if (!c->time_ns || !ncases)
		return;
	runs = ro->runs_auto ? ipc_sched_floor_runs(ro) : ro->runs;
	share = c->time_ns / ncases;
	per_run = share / (runs ? runs : 1);
	per_run = per_run > RUN_OVERHEAD_NS + RUN_MIN_NS
			  ? per_run - RUN_OVERHEAD_NS
			  : RUN_MIN_NS;
	ro->duration_ns = per_run;
	ro->iterations = 0;
	if (ro->runs_auto)
		ro->budget_ns = c->time_ns;
}

bool cli_time_short(const struct cli_config *c, size_t ncases,
		    const struct ipc_runopts *ro, uint64_t *need_ns)
{
	uint64_t runs = ro->runs_auto ? ipc_sched_floor_runs(ro) : ro->runs;

	*need_ns = ncases * runs * (RUN_OVERHEAD_NS + RUN_MIN_NS);
	return c->time_ns && *need_ns > c->time_ns;
}

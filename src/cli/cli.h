/* SPDX-License-Identifier: MIT */
/*
 * The command-line program's own declarations: its configuration, the one
 * option table that drives parsing and --help, the plan, and messages.
 */
#ifndef IPCPERF_CLI_H
#define IPCPERF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcperf/ipcperf.h"
#include "remote/lib_internal.h"
#include "report/lib_internal.h"

/* Exit codes, the same for every command. */
#define EXIT_OK 0
#define EXIT_MEASURE 1 /* a measurement failed; the others reported */
#define EXIT_USAGE 2   /* bad usage or bad input */

enum cli_cmd {
	CMD_SUITE = 1u << 0, /* no command: the quick suite */
	CMD_RR = 1u << 1,
	CMD_STREAM = 1u << 2,
	CMD_BULK = 1u << 3,
	CMD_LIST = 1u << 4,
	CMD_CRR = 1u << 5,
	CMD_LOAD = 1u << 6,
	CMD_COMPARE = 1u << 7,
	CMD_REPLAY = 1u << 8,
	CMD_REPORT = 1u << 9,
	CMD_SERVER = 1u << 10,
	CMD_HTTP = 1u << 11,
};
#define CMD_MEASURE                                                            \
	(CMD_SUITE | CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_LOAD |     \
	 CMD_REPLAY | CMD_HTTP)

#define CLI_LINKS_MAX 16  /* links in one --link list */
#define CLI_TARGETS_MAX 8 /* stubs in one --target list */
#define CLI_LISTEN_MAX 8  /* --listen addresses of a server */

/* One stub of --target (opt_target.c). */
struct cli_target {
	struct ipc_stub_cfg cfg; /* the case's own parameters */
	char hostport[128];	 /* gdb://HOST:PORT's HOST:PORT */
	bool own;		 /* "ipcperf": ipcperf's own stub */
	long stub_pid; /* with --stub-cpu: its process, found and checked
			  (0: not found, a stub elsewhere or hidden) */
};

/* Is HOST of "HOST:PORT" (or "[V6]:PORT") this machine's loopback? */
bool cli_loopback(const char *hostport);

/* Everything argv said, after defaults and validation. */
struct cli_config {
	enum cli_cmd cmd;
	const char *cmd_name;	/* "suite", "rr", ... */
	const char *transports; /* -t as given, "all" by default */
	const char *engines;	/* -e as given */
	struct ipc_u64_list req, resp, size, count;
	uint64_t total;
	struct ipc_runopts ro;
	enum cli_pin {
		PIN_AUTO = 0, /* each local case on one CPU and on two */
		PIN_NONE,     /* --pin none: the scheduler's choice */
		PIN_FIXED,    /* --pin C,S, same or split: ro's pins */
	} pin;
	const char *format; /* table, json, csv */
	const char *output; /* -o FILE, NULL for stdout */
	bool quiet;
	bool explain_flagged_set; /* --(no-)explain-flagged was given */
	int pm_qos_us;	  /* --pm-qos: the CPU latency request, -1 off [0] */
	unsigned set;	  /* OPT_* bits of options given explicitly */
	uint64_t flows;	  /* load: -c */
	uint64_t threads; /* load: --threads */
	uint64_t rate;	  /* load: --rate, requests/s in total, 0: closed */
	uint64_t bitrate_bps; /* stream: -b, bits/s, 0: not paced */
	uint64_t time_ns;     /* --time: the whole command's time, 0: none */
	unsigned zerocopy;    /* stream --zerocopy: its way (enum
				 ipc_zerocopy), or one by transport; 0: none */
	uint64_t under_load;  /* rr --under-load: streams beside, 0: none */
	uint64_t parallel;    /* stream, bulk: -P, streams at once, 0: one */
	unsigned direction;   /* stream: -R, --bidir (enum ipc_direction) */
	/* ipcperf compare (opt_compare.c) */
	char **cmp_argv;	  /* argv with "--" made cli_cmp_sep */
	char **cmp_files;	  /* A's files, then B's (allocated) */
	size_t cmp_na, cmp_nb;	  /* how many of each */
	double cmp_drift_pct;	  /* --drift PCT */
	bool cmp_drift_set;	  /* ... was given */
	const char *cmp_metric;	  /* p50, p99, mean, throughput; NULL: each
				     pattern's own */
	double cmp_threshold_pct; /* smaller changes are no difference */
	double cmp_fail_pct;	  /* --fail-if-slower PCT */
	bool cmp_fail_set;	  /* ... was given */
	/* ipcperf report --matrix (opt_matrix.c) */
	bool matrix;			  /* --matrix was given ... */
	enum ipc_mx_metric matrix_metric; /* ... with this metric */
	bool matrix_names;		  /* --names was given */
	bool size_matrix; /* rr --matrix, report --matrix sizes: req x resp */

	/* Links, framing and replay (opt_link.c). */
	struct ipc_link links[CLI_LINKS_MAX];  /* --link, in order */
	size_t nlinks;			       /* 0: no link */
	const struct ipc_framing_ops *framing; /* --framing (rr) */
	bool no_ack;			       /* --no-ack (gdb-rsp) */
	struct ipc_u64_list max_packet;	       /* --max-packet (replay) */
	char **files;			       /* replay: the trace files */
	size_t nfiles;
	struct ipc_trace **traces; /* each file at each --max-packet */
	size_t ntraces;

	/* ipcperf http (opt_http.c) */
	const char *http_url; /* the server to measure; NULL: built-in */
	struct ipc_http_serve_opts serve; /* the built-in target */
	bool serve_only;		  /* --serve: serve, measure nothing */
	struct ipc_http_cfg http;	  /* the http pattern's parameters */
	const char **headers;		  /* -H, in order */
	const void *pat_cfg; /* the pattern's own parameters, or NULL */
	/* The other end when it is not ours (a URL's server), or NULL. */
	const struct ipc_peer_ops *peer;
	const char *target;   /* ... its "HOST:PORT" */
	char target_buf[300]; /* target's storage */

	/* ipcperf server (opt_server.c) */
	const char *listen[CLI_LISTEN_MAX]; /* --listen, in order */
	size_t nlisten;
	bool once;		     /* --once */
	uint64_t idle_timeout_ns;    /* --idle-timeout, 0: never */
	uint64_t max_duration_ns;    /* --max-duration, 0: never */
	uint64_t control_timeout_ns; /* --control-timeout */
	uint64_t max_test_ns;	     /* --max-test */
	uint64_t max_clients;	     /* --max-clients */
	const char *key_file;	     /* --key FILE */
	bool daemon;		     /* --daemon */
	const char *pidfile;	     /* --pidfile FILE, NULL: none */
	const char *log;	     /* --log FILE or "syslog", NULL: stdout */
	/* remote mode's client (opt_server.c) */
	const char *remote;	   /* --remote HOST[:PORT], NULL: local */
	const char *server_engine; /* --server-engine */
	char remote_target[300];   /* --remote as HOST:PORT */
	struct ipc_rkey *key;	   /* loaded --key, NULL: none */
	struct ipc_remote_opts remote_opts; /* for the remote peer */

	/* A GDB stub at the other end (opt_target.c). */
	struct cli_target targets[CLI_TARGETS_MAX]; /* --target, in order */
	size_t ntargets;			    /* 0: ipcperf's peer */
	bool ack;				    /* --ack */
	bool stub_cpu_set; /* --stub-cpu given: a stub elsewhere runs on */
	int stub_cpu;	   /* ... this CPU, as its user pinned it */
};

/* Bits of cli_config.set, so defaults never overwrite what was typed. */
enum {
	SET_ITER = 1u << 0,
	SET_DUR = 1u << 1,
	SET_WARM = 1u << 2,
	SET_RUNS = 1u << 3,
	SET_REQ = 1u << 4,
	SET_RESP = 1u << 5,
	SET_SIZE = 1u << 6,
	SET_COUNT = 1u << 7,
	SET_TOTAL = 1u << 8,
	SET_PIN = 1u << 9,
	SET_ENGINE = 1u << 10,
	SET_MAXRUNS = 1u << 11,
	SET_BUDGET = 1u << 12,
	SET_CI = 1u << 13,
	SET_TP = 1u << 14,
	SET_TIMEOUT = 1u << 15,
	SET_PAGE = 1u << 16,
	SET_CHUNK = 1u << 17,
	SET_NO_KA = 1u << 18,
	SET_REQ_TIMEOUT = 1u << 19,
};

/*
 * One command-line option.  A feature's options live in a table of their
 * own (src/cli/opt_*.c), listed in cli_optgroups[] in options.c.
 */
struct cli_opt {
	const char *name; /* long name */
	int key;	  /* short letter, or 0 for a long option only */
	const char *arg;  /* metavariable; NULL for a flag */
	unsigned cmds;	  /* commands that accept it (CMD_* bits) */
	const char *help; /* one line; "[default]" at the end */
	/* Convert @arg into @c; EXIT_USAGE after printing why. */
	int (*set)(struct cli_config *c, const char *arg);
};

struct cli_optgroup {
	const struct cli_opt *opts;
	size_t n;
	/*
	 * After every option was set: fill defaults, check combinations.
	 * 0, or EXIT_USAGE after printing why.  May be NULL.
	 */
	int (*validate)(struct cli_config *c);
};

/*
 * The option table, for the shell completion's generator: every option
 * of every group (*@opts, the count returned), and the @i-th command's
 * name and bit (NULL past the last).
 */
size_t cli_options(const struct cli_opt *const **opts);
const char *cli_command(size_t i, unsigned *cmd);

extern const struct cli_optgroup cli_opts_core;
extern const struct cli_optgroup cli_opts_transport; /* opt_transport.c */
extern const struct cli_optgroup cli_opts_load;
extern const struct cli_optgroup cli_opts_testing;
extern const struct cli_optgroup cli_opts_trust;    /* opt_trust.c */
extern const struct cli_optgroup cli_opts_compare;  /* opt_compare.c */
extern const struct cli_optgroup cli_opts_http;	    /* opt_http.c */
extern const struct cli_optgroup cli_opts_zerocopy; /* opt_zerocopy.c */

/*
 * --zerocopy and --under-load: make @cs (a copy of a planned case) the
 * case with the option.  0 when neither applies to @cs's pattern; 1 when
 * it can run so; -1 when it cannot, with one sentence in @why.
 */
int cli_with(const struct cli_config *c, struct ipc_case *cs, char *why,
	     size_t why_len);

/* `ipcperf http --serve ADDR:PORT`: serve until stopped; 0 or 1. */
int cli_http_serve(const struct cli_config *c);

/*
 * compare's file arguments (the @n words left after the options): two, A
 * and B, or several a side split by cli_cmp_sep (the "--" the user typed,
 * which cli_parse replaces so that getopt does not take it for the end of
 * the options).  EXIT_OK, EXIT_USAGE after printing why, or EXIT_MEASURE
 * when memory ran out.
 */
int cli_compare_args(struct cli_config *c, int n, char **words);
extern const char cli_cmp_sep[];

/* `ipcperf compare A B`: 0, 1 (--fail-if-slower tripped) or 2. */
int cli_compare(const struct cli_config *c);

/*
 * The report's output: -o FILE (written whole or not at all) or stdout.
 * _open returns EXIT_OK, or EXIT_USAGE after saying why; _close commits
 * when @err is 0 and aborts otherwise, and returns EXIT_OK, or
 * EXIT_MEASURE after saying that the report could not be written.
 */
int cli_output_open(const struct cli_config *cfg, struct ipc_outfile *of);
int cli_output_close(const struct cli_config *cfg, struct ipc_outfile *of,
		     int err);

/*
 * Read the result document @path into *doc: 0, EXIT_USAGE after saying
 * what is wrong with it, or -ENOMEM (said too).  Shared by compare and
 * report.
 */
int cli_doc_load(const char *path, struct ipc_doc **doc);

/*
 * The @na files @a then the @nb files @b, read as cli_doc_load does into
 * a new array *@docs of na + nb (freed with cli_docs_free even when this
 * fails): EXIT_OK, EXIT_USAGE or EXIT_MEASURE, said.
 */
int cli_docs_load(char *const *a, size_t na, char *const *b, size_t nb,
		  struct ipc_doc ***docs);
void cli_docs_free(struct ipc_doc **docs, size_t n);

/*
 * What ipc_doc_read, ipc_doc_parse or ipc_file_read returned (@rc) with
 * their message @err, as cli_doc_load returns and says it.
 */
int cli_doc_error(int rc, const char *err);

/*
 * `ipcperf report FILE...`: the saved results of every file rendered by
 * the formatter of -f into -o, measuring nothing.  @argc, @argv: the
 * command line, for a report that merges several files.  0 or 2.
 */
int cli_report(const struct cli_config *c, int argc, char **argv);
extern const struct cli_optgroup cli_opts_link;
extern const struct cli_optgroup cli_opts_tput; /* opt_tput.c */

/*
 * --time: size @ro (one of @ncases cases' options) so that every case's
 * runs fit the command's time: each run measured for its share, the
 * budget the whole time.  Nothing without --time.
 */
void cli_time_share(const struct cli_config *c, size_t ncases,
		    struct ipc_runopts *ro);

/*
 * Does --time leave too little for @ncases cases of the runs an interval
 * needs, at the shortest run?  *@need_ns is what they need.
 */
bool cli_time_short(const struct cli_config *c, size_t ncases,
		    const struct ipc_runopts *ro, uint64_t *need_ns);
extern const struct cli_optgroup cli_opts_server; /* opt_server.c */
extern const struct cli_optgroup cli_opts_matrix; /* opt_matrix.c */

/* `ipcperf report --matrix M FILE...`, with the documents read. */
/*
 * `ipcperf compare A B` of two saved matrices: the exit status, or -1
 * when A is not a matrix (compare then reads them as results).
 */
int cli_compare_matrix(const struct cli_config *cfg);
int cli_report_matrix(const struct cli_config *cfg, struct ipc_doc *const *docs,
		      size_t n, const struct ipc_report_meta *meta);

/*
 * The device of --pm-qos's request: /dev/cpu_dma_latency, or for the
 * tests a file named by IPCPERF_PM_QOS_DEVICE.
 */
const char *cli_pmqos_device(void);

/*
 * The file naming the kernel's cpuidle driver, or for the tests one named
 * by IPCPERF_CPUIDLE_DRIVER_FILE; NULL: the kernel's.
 */
const char *cli_cpuidle_driver_file(void);

/* `ipcperf server`: 0 when it stopped as asked, 1 or 2. */
int cli_server(const struct cli_config *c);
extern const struct cli_optgroup cli_opts_target; /* opt_target.c */

/* --explain (opt_explain.c). */
extern const struct cli_optgroup cli_opts_explain;

/* The results of --target's cases, kept for the side-by-side (side.c). */
struct cli_side {
	struct ipc_result **res; /* copies, runs included, no histograms */
	size_t n;
};

/* Keep a copy of @res if it ran against a stub.  0 or -ENOMEM. */
int cli_side_keep(struct cli_side *s, const struct ipc_result *res);

/*
 * With several stubs and the table format: print the first stub's cases
 * against each other's (a comparison) to @out.  0 or -errno.
 */
int cli_side_print(const struct cli_side *s, const struct cli_config *cfg,
		   const struct ipc_report_meta *meta, FILE *out);
void cli_side_free(struct cli_side *s);

/* Free what the link, framing and replay options hold. */
void cli_link_fini(struct cli_config *c);

/* Scratch space for the parsers' one-sentence errors. */
extern char cli_err[256];

/* The command line's limits on numbers (the syntax is base.h's). */
#define CLI_SIZE_MAX (1ull << 30)		/* a size: 1 GiB */
#define CLI_COUNT_MAX (UINT64_MAX / 2)		/* a count */
#define CLI_TIME_MAX (86400ull * 1000000000ull) /* a time: 24 hours, ns */

/*
 * Parse @a as a number of @kind in [@min, @max] into *out with
 * ipc_units_parse; 0, or -EINVAL with the sentence in cli_err.
 */
int cli_units(enum ipc_unit_kind kind, const char *a, uint64_t min,
	      uint64_t max, uint64_t *out);

/*
 * The usage error for option @opt's refused value: one line, "@opt: " and
 * the sentence in cli_err, then @hint; EXIT_USAGE.
 */
int cli_bad_value(const char *opt, const char *hint);

/*
 * Option @opt's argument @a as a file name into *out: 0, or EXIT_USAGE
 * after one line saying it is empty, then @hint.
 */
int cli_file_arg(const char *opt, const char *hint, const char *a,
		 const char **out);

/*
 * Option @opt's argument @a as a time of at least 1 ns and at most
 * CLI_TIME_MAX into *ns: 0, or EXIT_USAGE after one line naming @a.
 */
int cli_duration(const char *opt, const char *a, uint64_t *ns);

/*
 * Parse argv into @cfg (defaults applied, values validated).  Returns
 * EXIT_OK to go on, EXIT_USAGE after printing one line naming the bad
 * value, or -1 when --help or --version was printed and the program should
 * exit 0.
 */
int cli_parse(int argc, char **argv, struct cli_config *cfg);
void cli_config_fini(struct cli_config *cfg);

/* A case list built from the configuration; skipped cases kept apart. */
struct cli_plan {
	struct ipc_case *cases;
	size_t ncases;
	struct ipc_skip *skips;
	size_t nskips;
	struct ipc_place places[2]; /* where each case's sides run */
	size_t nplaces;
	/*
	 * While expanding --target's cases: a stub elsewhere is not placed
	 * by ipcperf, so with several stubs ipcperf's own is measured as
	 * that one is, at the scheduler's choice (STUBS_ANY), unless
	 * --stub-cpu says where it runs (STUBS_TOLD: all placed).
	 */
	enum { STUBS_NONE = 0, STUBS_ANY, STUBS_TOLD } stubs;
	bool url; /* a URL's server: not placed by ipcperf, only the client */
};

/*
 * Expand @cfg into cases: transports x engines x sizes, leaving out (with
 * a reason) what cannot run here.  EXIT_OK, or EXIT_USAGE after printing
 * why (unknown name, nothing left to run).
 */
int cli_plan_build(const struct cli_config *cfg, struct cli_plan *plan);

/*
 * The options case @cs of the plan runs with: @cfg's, pinned as its
 * placement says.
 */
void cli_case_opts(const struct cli_config *cfg, const struct ipc_case *cs,
		   struct ipc_runopts *ro);
void cli_plan_free(struct cli_plan *plan);

/* `ipcperf list`. */
int cli_list(void);

/* Messages: "ipcperf: ..." on stderr. */
__attribute__((format(printf, 1, 2))) void cli_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int cli_error(const char *fmt, ...);
__attribute__((format(printf, 2, 3))) int usage_error(const char *hint,
						      const char *fmt, ...);

#endif

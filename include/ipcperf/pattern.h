/* SPDX-License-Identifier: MIT */
/*
 * Patterns: the measurement loops.  Each is written once against the engine
 * and transport interfaces: rr (ping-pong), stream (one-way batches), bulk
 * (one request, many bytes back), replay (a recorded conversation).  A
 * pattern knows what to time and what to check, not how bytes move or how
 * results print.
 */
#ifndef IPCPERF_PATTERN_H
#define IPCPERF_PATTERN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "engine.h"
#include "framing.h"
#include "link.h"
#include "stats.h"
#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ipc_pattern_ops;
struct ipc_peer_ops;

/*
 * Where the two sides of a case run: a parameter of the case, not noise.
 * On a VM a pipe round trip takes about 5 us with both sides on one CPU
 * and about 50 us with a CPU each (a cross-CPU wake-up each way), and the
 * scheduler picks one or the other by what else runs; so by default each
 * local case is measured pinned both ways (docs/methodology.md).
 */
enum ipc_cpus {
	IPC_CPUS_ANY = 0, /* the scheduler's choice (--pin none) */
	IPC_CPUS_ONE,	  /* both sides pinned to one CPU */
	IPC_CPUS_TWO,	  /* each side pinned to a CPU of its own */
};

struct ipc_place {
	enum ipc_cpus cpus;
	int client_cpu; /* ONE, TWO: the CPU the client is pinned to */
	int server_cpu; /* ... and the server */
	bool chosen;	/* ipcperf chose them (by default), not --pin */
	int smt;	/* TWO: 1 when the two CPUs are SMT siblings (one
			   core), 0 when not, -1 when unknown */
};

/*
 * One measurement: a pattern over a transport through an engine, sized.
 * Defined here, with the patterns that read it, so that they need nothing
 * from the run layer above them; the runner and the plan fill it.
 */
struct ipc_case {
	const struct ipc_pattern_ops *pat;
	const struct ipc_transport_ops *tp;
	const struct ipc_engine_ops *eng;
	size_t req_size;      /* rr: request bytes */
	size_t resp_size;     /* rr: response bytes */
	size_t msg_size;      /* stream: bytes per message */
	uint64_t count;	      /* stream: messages per batch */
	uint64_t total;	      /* bulk: bytes per transfer */
	size_t chunk_size;    /* bulk: bytes per message */
	uint64_t flows;	      /* load: concurrent flows (connections) */
	unsigned threads;     /* load: client threads the flows are spread on */
	uint64_t rate;	      /* load: requests/s in total, 0: closed loop */
	uint64_t bitrate_bps; /* stream: the sender paced at this many
				 bits/s (-b), 0: as fast as it goes */
	uint32_t zerocopy;    /* stream, bulk: how the sender sends without
				 copying (enum ipc_zerocopy), 0: it copies */
	uint64_t under_load;  /* rr: streams that saturate the same
				 transport while it measures, 0: none */
	uint64_t streams;     /* stream, bulk: streams at once (-P), each on
				 its own channel; 0 or 1: one */
	unsigned direction;   /* stream: enum ipc_direction */
	const struct ipc_framing_ops *framing; /* rr: frames, NULL: raw */
	bool framing_noack;		       /* gdb-rsp without '+' acks */
	const struct ipc_link *link;	       /* emulated link, NULL: none */
	const struct ipc_trace *trace;	       /* replay: the conversation */
	const void *cfg;	/* the pattern's own parameters (its cfg_size
			    bytes, described with IPC_IN_CFG), or NULL */
	struct ipc_place place; /* where the sides run */
	const struct ipc_peer_ops *peer; /* the other end (run.h), NULL: a
					    process or thread of ours, as
					    the run's placement says */
	const char *target;   /* where the other end is when it is not ours:
			       "HOST:PORT" (IPC_PEER_ELSEWHERE, run.h) */
	const void *peer_arg; /* the peer kind's own settings (remote: struct
				 ipc_remote_opts), NULL: none */
};

/*
 * How a stream's or bulk's sender (the client, or the peer with stream -R
 * and in bulk) sends without copying its payload into the kernel
 * (--zerocopy).  MSG: send with MSG_ZEROCOPY (tcp, tcp6), the kernel
 * reports on the error queue when it let go of the pages and whether it
 * copied them after all.  SENDFILE: the payload lives in a memfd and
 * sendfile(2) hands its pages over.  VMSPLICE: vmsplice(2) maps the
 * payload's pages into a pipe.  URING: io_uring's SEND_ZC (engine
 * io_uring), with a notification per send as MSG's.
 */
enum ipc_zerocopy {
	IPC_ZC_OFF = 0,
	IPC_ZC_MSG,
	IPC_ZC_SENDFILE,
	IPC_ZC_VMSPLICE,
	IPC_ZC_URING,
};

/*
 * Which way a stream's messages go.  SEND: the client sends and the peer
 * receives; REVERSE: the peer sends (iperf3's -R); BIDIR: both at once,
 * each direction a stream of its own (the runner makes the odd-numbered
 * streams REVERSE).
 */
enum ipc_direction {
	IPC_DIR_SEND = 0,
	IPC_DIR_REVERSE = 1,
	IPC_DIR_BIDIR = 2,
};

/* Where the peer runs (a pattern's needs can depend on it). */
enum ipc_placement {
	IPC_PLACE_PROCESS = 0, /* the peer is a forked process */
	IPC_PLACE_THREAD = 1,  /* the peer is a thread of this process */
};

/*
 * Bits of struct ipc_pattern_ops.flags.  OWN_EP: it opens and closes its
 * endpoints itself, through ipc_pctx.ch (crr, load).  FRAMED: it takes
 * --framing (ipc_case.framing).  TRACE: it plays a trace, one case per
 * trace.  LATE, REORDER: its loss counts late replies, reordering.
 * ANY_CLIENT: its server accepts on the listener itself and serves any
 * client (http: ab and wrk too), so a local run gives its connections no
 * token (run/runner.c).
 */
#define IPC_PAT_OWN_EP (1u << 0)
#define IPC_PAT_FRAMED (1u << 1)
#define IPC_PAT_TRACE (1u << 2)
#define IPC_PAT_LATE (1u << 3)
#define IPC_PAT_REORDER (1u << 4)
#define IPC_PAT_ANY_CLIENT (1u << 5)

/*
 * Loss on a lossy transport (IPC_TP_LOSSY), counted over the measured part
 * of a run.  Loss is data, not a failure.
 *
 * rr:     sent = requests sent; received = replies that came within
 *         --timeout; lost = requests that got none in time; late = replies
 *         that came after their request had timed out (told apart by
 *         sequence number) and were discarded.  sent = received + lost.
 * stream: sent = messages sent in batches the receiver reported on;
 *         received = messages the receiver counted; lost = sent -
 *         received; reordered = messages that arrived after a later one.
 */
struct ipc_loss {
	bool counted;	    /* the pattern kept these counts */
	bool reorder_known; /* messages carry enough sequence bytes to see
			       reordering (stream, 1 byte or more) */
	uint64_t sent;
	uint64_t received;
	uint64_t lost;
	uint64_t late;
	uint64_t reordered;
};

/*
 * Fairness between the flows of a load run (each flow's replies per
 * second over the run) or the streams of a parallel stream or bulk run
 * (each stream's payload bytes per second), summarized.  Jain's index is
 * (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one took all.
 */
struct ipc_flows {
	uint64_t flows;	     /* flows in the run, 0: not a many-flow pattern */
	double rate_min;     /* the slowest flow, replies/s (streams: B/s) */
	double rate_median;  /* the median flow */
	double rate_max;     /* the fastest flow */
	double jain;	     /* Jain's fairness index of the rates */
	uint64_t lag_max_ns; /* open loop: latest a send left after its
				intended time (the generator's own lag) */
};

/*
 * CPU used by the threads a side's pattern started for itself (load's and
 * http's client threads), summed over their lives; the runner adds it to
 * the side's cost, which otherwise counts only the thread it called the
 * pattern in.  Cycles, instructions and migrations stay that thread's.
 */
struct ipc_thread_cpu {
	uint64_t user_ns; /* user CPU time */
	uint64_t sys_ns;  /* system CPU time */
	uint64_t vcsw;	  /* voluntary context switches */
	uint64_t ivcsw;	  /* involuntary ones */
};

/*
 * Testing aids for the server side (--peer-drop, --peer-stall): faults
 * injected on purpose, so that tests can check that loss and stalls are
 * counted.  Zero everywhere means none.
 */
struct ipc_faults {
	unsigned drop_pct;    /* lossy transports: leave this percentage of
				 requests unanswered (rr) or messages
				 uncounted (stream), spread evenly */
	uint64_t stall_every; /* rr, crr, load: every Nth request ... */
	uint64_t stall_ns;    /* ... waits this long before its answer */
};
/*
 * What a pattern says about itself, so that the report, the planner and
 * the command line never ask for a pattern by name: its sample unit, the
 * metric its results are judged by, its case parameters (what they are
 * called, how they print, where the value is), the figures its table
 * shows and the extra figures it computes.  A new pattern is described
 * here and needs no change anywhere else.
 */

/* How a value prints; the report layer formats each kind. */
enum ipc_fmt {
	IPC_FMT_COUNT = 0, /* an integer as it is: 1000 */
	IPC_FMT_BYTES,	   /* a size: "64 B", "4 KiB"; in words 64, 4k, 1M */
	IPC_FMT_NS,	   /* a time in ns: "5.10 µs" */
	IPC_FMT_RATE,	   /* per second: "18.4 k/s"; in words "1000/s" */
	IPC_FMT_BPS,	   /* bytes per second: "812 MiB/s" */
	IPC_FMT_TEXT,	   /* a string */
	IPC_FMT_NAME,	   /* a bool or small enum shown as names[value] */
	IPC_FMT_LOOP,	   /* a rate of requests: 0 "closed" loop, else
			      "open" at that rate */
	IPC_FMT_LOSS,	   /* a count of lost ones: "38 (9.5%)" of sent */
	IPC_FMT_OVER,	   /* percent above another figure: "+3.2%" */
	IPC_FMT_RATIO,	   /* a fraction of 1: "0.998" */
};

/* The C type of a value where it lives. */
enum ipc_vtype {
	IPC_VT_NONE = 0,
	IPC_VT_U64,   /* uint64_t */
	IPC_VT_SIZE,  /* size_t */
	IPC_VT_U32,   /* unsigned, uint32_t */
	IPC_VT_BOOL,  /* bool */
	IPC_VT_STR,   /* char * */
	IPC_VT_CHARS, /* char[], NUL-terminated */
};

/* What a case parameter's offset is counted from. */
enum ipc_base {
	IPC_IN_CASE = 0, /* struct ipc_case */
	IPC_IN_TRACE,	 /* the case's trace (struct ipc_trace); a case
			    without one has no such value */
	IPC_IN_CFG,	 /* the pattern's own block (ipc_case.cfg), for
			    parameters no other pattern has */
};

/*
 * Bits of struct ipc_param.flags.  PAYLOAD: a payload size, where 0
 * travels as a 1-byte token on a byte stream.  WORD_DFLT, JSON_DFLT: the
 * case's words, its JSON, leave it out when it is dflt.  DERIVED: another
 * view of a value another parameter holds (load's loop from its rate),
 * neither read back nor a key of a case.
 */
#define IPC_PARAM_PAYLOAD (1u << 0)
#define IPC_PARAM_WORD_DFLT (1u << 1)
#define IPC_PARAM_JSON_DFLT (1u << 2)
#define IPC_PARAM_DERIVED (1u << 3)

/*
 * One parameter of a pattern's cases: req_size of rr, count of stream,
 * the trace of replay.  Words are how a case is named in messages and
 * comparisons ("rr tcp req=64 resp=1k"), the head is its table column.
 */
struct ipc_param {
	const char *key;    /* in JSON: "req_size" */
	const char *word;   /* in words: "req" ("req=64"); "": the value
			       alone; NULL: not in words */
	const char *head;   /* table column ("req"), NULL: none */
	const char *option; /* the command-line option whose list of
			       values the planner sweeps ("req"), NULL:
			       set otherwise */
	const char *vary;   /* a heading's word when the rows differ in it
			       ("COUNT"), NULL: the key in capitals */
	enum ipc_base in;
	enum ipc_vtype type;
	size_t off; /* offset of the value in its base */
	enum ipc_fmt fmt;
	size_t len;		  /* IPC_VT_CHARS: bytes of the array */
	const char *const *names; /* IPC_FMT_NAME: the name of each value,
				     NULL-terminated */
	uint64_t dflt;		  /* see IPC_PARAM_*_DFLT */
	unsigned flags;		  /* IPC_PARAM_* */
};

/*
 * A figure of a result, named by where the report finds it: in the
 * summary (or one run) of the result, or among the pattern's extras.
 * Reading one is ipc_result_value() (run.h).
 */
enum ipc_src {
	IPC_SRC_NONE = 0,
	IPC_SRC_P50, /* latency per sample, ns */
	IPC_SRC_P90,
	IPC_SRC_P99,
	IPC_SRC_P999,
	IPC_SRC_MAX,
	IPC_SRC_MIN,
	IPC_SRC_MEAN,
	IPC_SRC_SD,
	IPC_SRC_MSGS_PER_S,  /* messages (rr: round trips) per second */
	IPC_SRC_BYTES_PER_S, /* payload bytes per second */
	IPC_SRC_LOST,	     /* loss: lost (IPC_FMT_LOSS adds the share) */
	IPC_SRC_LATE,	     /* loss: late replies (rr) */
	IPC_SRC_REORDERED,   /* loss: reordered messages (stream) */
	IPC_SRC_FLOW_MIN,    /* fairness: the slowest flow, replies/s */
	IPC_SRC_FLOW_MEDIAN,
	IPC_SRC_FLOW_MAX,
	IPC_SRC_FAIRNESS, /* Jain's index over the flows or streams */
	IPC_SRC_LAG,	  /* open loop: the generator's own lag, ns */
	IPC_SRC_XP50,	  /* replay: per-exchange latency, ns */
	IPC_SRC_XP99,
	IPC_SRC_COUNT, /* samples counted (http: complete requests) */
	IPC_SRC_EXTRA, /* IPC_SRC_EXTRA + k: the pattern's extras[k] */
};

/* Extra figures a pattern computes, in ipc_run_stats.extra[]. */
#define IPC_EXTRA_MAX 24

/*
 * Bits of struct ipc_extra.flags.  RUN: the client counts it in every run
 * (ipc_pout.extra) and the summary adds the runs up; without it the
 * pattern's summarize() sets it in the summary, once per result.  INT: an
 * integer (JSON writes it so).
 */
#define IPC_EXTRA_RUN (1u << 0)
#define IPC_EXTRA_INT (1u << 1)
/*
 * PER: a sample is this many messages (rr-stub's packets per sample);
 * a comparison also gives its difference per message, in the extra's
 * "per" word.
 */
#define IPC_EXTRA_PER (1u << 2)
/*
 * SUM: a count, which parallel streams (-P) add up; without it the run's
 * figure is the streams' mean (a jitter, a window).
 */
#define IPC_EXTRA_SUM (1u << 3)
/*
 * PEER: the server counts it (its own ipc_pout.extra), as the sender of
 * stream -R and of bulk does; the runner takes the figure from a peer of
 * this process (process, thread), and leaves it not a number for one
 * elsewhere, whose figures do not come back.
 */
#define IPC_EXTRA_PEER (1u << 4)

/*
 * An extra figure: replay's link time, and what a pattern of the future
 * counts that no other does (an HTTP pattern's failures by reason).  A
 * value that is not a finite number was not measured.
 */
struct ipc_extra {
	const char *key; /* in JSON: "link_ns" */
	enum ipc_fmt fmt;
	unsigned flags;	 /* IPC_EXTRA_* */
	const char *per; /* IPC_EXTRA_PER: what a message is, "packet" */
};

/* Bits of struct ipc_column.flags. */
#define IPC_COL_IF_ANY (1u << 0) /* shown only when a row has the figure */

/* A column of a pattern's table after its parameters. */
struct ipc_column {
	const char *head;  /* "p50", "bandwidth" */
	enum ipc_src src;  /* the figure */
	enum ipc_fmt fmt;  /* how it prints */
	size_t per_off;	   /* divided by this uint64_t of struct
			      ipc_case (stream's time per message), 0: not */
	enum ipc_src over; /* IPC_FMT_OVER: the figure it is compared to */
	unsigned flags;	   /* IPC_COL_* */
};

/*
 * The metric a result is judged by (its run-to-run interval, the stopping
 * rule, compare's default), and the other ones compare can be asked for.
 */
struct ipc_metric {
	const char *name;   /* in JSON: "p50_ns", "bytes_per_s" */
	const char *word;   /* compare --metric: "p50", "throughput" */
	const char *unit;   /* compare's unit: "ns", "bytes_per_s" */
	bool higher_better; /* throughput; lower is better for times */
	bool integer;	    /* JSON writes it as an integer (ns) */
	enum ipc_fmt fmt;
	enum ipc_src src; /* the per-run figure */
	/* For a case that moved no payload byte (size 0), or NULL. */
	const struct ipc_metric *no_bytes;
};

/* Every metric above, NULL-terminated. */
extern const struct ipc_metric *const ipc_metrics[];

/* The metric called @name in JSON ("p50_ns"), or NULL. */
const struct ipc_metric *ipc_metric_find(const char *name);

/* How a pattern's results are laid out in the human table. */
enum ipc_layout {
	IPC_LAYOUT_SECTION = 0, /* one row per case under a heading */
	IPC_LAYOUT_PIVOT,	/* cases down by their parameters, links
				   across, the metric in each cell; then a
				   line of details per case */
};

/*
 * What a pattern adds to the quick suite's one-row-per-transport table:
 * its columns, the line that says what it measured (the @words template,
 * or @words_same when every value in @words prints alike), and the runs
 * it takes there: sized by time (@run_ns) or by count (@iterations).
 */
struct ipc_suite_desc {
	const char *words;	/* "request/response, {req_size} request,
				   {resp_size} response" */
	const char *words_same; /* "request/response, {req_size} each way" */
	const struct ipc_column *cols; /* ended by a NULL head */
	uint64_t run_ns;     /* runs measured this long (ns), 0: by count */
	uint64_t iterations; /* or runs of this many samples, 0: the suite's */
	uint64_t warmup;     /* with this warm-up, 0: the suite's */
};

/*
 * What one side of one run did.  Filled by the pattern; the runner turns
 * the client's into a run record.
 */
struct ipc_pout {
	uint64_t warmup_done;	/* warm-up iterations completed */
	uint64_t done;		/* measured iterations completed */
	uint64_t elapsed_ns;	/* time those iterations took */
	uint64_t messages;	/* measured messages moved */
	uint64_t bytes;		/* measured payload bytes moved */
	int err;		/* 0, or -errno of the failure */
	char what[160];		/* what failed, in words ("" when err == 0) */
	char mismatch[300];	/* replay --target: the first reply unlike
				   the trace's, in words, "" if none */
	char session[160];	/* http over TLS: the session in words, ""
				   if none */
	struct ipc_loss loss;	/* lossy transports */
	struct ipc_flows flows; /* many-flow patterns */
	double extra[IPC_EXTRA_MAX];   /* the pattern's IPC_EXTRA_RUN figures */
	struct ipc_thread_cpu helpers; /* its own threads' CPU, if any */
};

/*
 * One interval of a run (-i): what the client completed between two of
 * its clock reads, as iperf3's interval lines.  An interval ends at the
 * end of the first sample at or after its planned end, so its length is
 * the interval asked for plus at most one sample; the last one ends with
 * the run.  Sums over a run's intervals are the run's counts.
 */
struct ipc_interval {
	uint64_t start_ns;   /* from the measured part's start */
	uint64_t end_ns;     /* likewise */
	uint64_t iterations; /* samples completed in it */
	uint64_t messages;   /* messages they moved */
	uint64_t bytes;	     /* payload bytes they moved */
	uint64_t p50_ns;     /* of the samples in it, 0: none */
	uint64_t p99_ns;
	uint64_t lost;	    /* lossy transports: messages lost in it */
	uint64_t jitter_ns; /* paced udp stream: RFC 3550 jitter at its end */
	uint32_t run;	    /* in a result: the run it belongs to, 0-based */
	uint32_t stream;    /* told while a run of parallel streams runs:
			       its stream, 1-based; 0: the whole run */
};

/*
 * A client's intervals during one run, in storage the runner allocated
 * (the loops allocate nothing): cap entries, and a histogram to tell
 * one interval's samples from the run's.
 */
struct ipc_ivals {
	uint64_t len_ns;	/* -i, the interval asked for */
	uint64_t t0_ns;		/* the measured part's start (ipc_now_ns) */
	uint64_t end_ns;	/* ... and its end, 0: not ended */
	struct ipc_interval *v; /* n of cap entries */
	size_t n, cap;
	struct ipc_interval sum; /* counts of the intervals closed so far */
	struct ipc_hist *seen;	 /* the run's samples when the last closed */
	struct ipc_hist *tmp;	 /* scratch: one interval's samples */
	uint64_t jitter_ns;	 /* paced udp stream: as last reported */
	/* Told of each closed interval (between two samples), or NULL. */
	void (*on_close)(void *arg, const struct ipc_interval *iv);
	void *arg;
};

/*
 * The context of one side of one run, prepared by the runner: buffers are
 * allocated and the payload pattern written before the pattern is called,
 * so the loops allocate nothing.
 */
struct ipc_pctx {
	struct ipc_io io;	   /* this side's engine and endpoint */
	const struct ipc_case *cs; /* sizes and counts */
	enum ipc_side side;
	unsigned tp_caps;      /* the transport's IPC_TP_* bits */
	uint64_t warmup;       /* iterations run first and not recorded */
	uint64_t iterations;   /* measured iterations (UINT64_MAX: by time) */
	uint64_t duration_ns;  /* measure this long instead, 0: by count */
	bool verify;	       /* check every received payload */
	uint8_t *sbuf;	       /* send buffer, buf_bytes long */
	uint8_t *rbuf;	       /* receive buffer, buf_bytes long */
	const uint8_t *expect; /* the payload pattern, buf_bytes long */
	size_t buf_bytes;
	struct ipc_hist *hist; /* client: one sample per iteration */
	struct ipc_pout out;
	struct ipc_chan *ch; /* the channel (IPC_PAT_OWN_EP patterns open
				  their endpoints on it) */
	const struct ipc_faults *faults; /* server testing aids, never NULL */
	void *pat_priv;		/* the pattern's own state during one call */
	struct ipc_hist *xhist; /* replay client: one sample per exchange */
	uint64_t *measuring_ns; /* client by duration: where to say when the
				   measured part began (ipc_pctx_measuring),
				   NULL: nobody asks */
	uint64_t *window_ns;	/* client: where to store the measured
				   part's begin and end (ipc_now_ns) for the
				   kernel's observer (--explain), NULL: none */
	/* client, --explain: a pattern whose measuring thread is not the
	   one it was called in (load's) calls this from that thread before
	   its window, so that it is the client watched; NULL: none */
	void (*watch_self)(void *arg);
	void *watch_arg;
	struct ipc_ivals *ivals; /* client with -i: its intervals, NULL: none */
	uint64_t ival_next_ns;	 /* when the current interval ends (ns,
				    ipc_now_ns), 0: none now (warm-up) */
	/* client: called once its setup is over, before the warm-up
	   (msg_client_phases calls it); the streams of a parallel run wait
	   there for one another, so that they measure at the same time;
	   NULL: none */
	void (*ready)(void *arg);
	void *ready_arg;
};

/*
 * A case's summary as a pattern may see and change it once the runs are
 * done.  The runner fills it from the result, calls summarize, and copies
 * the outputs back, so that a pattern never reads the result record (the
 * run layer's).
 */
struct ipc_psum {
	size_t runs;	     /* in: runs completed */
	uint64_t iterations; /* in: iterations of every run */
	struct ipc_lat lat;  /* in: every run's samples summarized, ns */
	uint64_t elapsed_ns; /* in/out: the summary's elapsed time */
	double extra[IPC_EXTRA_MAX]; /* in/out: the summary's extras (the
					pattern's struct ipc_extra) */
};

struct ipc_pattern_ops {
	const char *name; /* the command: rr, stream, bulk */
	const char *help; /* one line for `ipcperf list` and --help */
	unsigned flags;	  /* IPC_PAT_* bits */

	/* What it is, for reports (see the types above). */
	const char *sample;    /* one sample: "round trip", "batch" */
	const char *samples;   /* after a count: "round trips", "requests
				 over all flows" */
	const char *cost_per;  /* what CPU cost is per: "round trip" */
	const char *cost_abbr; /* in a column head: "cpu/rt" */
	const char *title;     /* the table's heading, {key} is a
				  parameter's value common to the rows */
	const char *note;      /* under its table (the pivot: above the
				  details), or NULL */
	const char *loss_note; /* under a table with loss, or NULL */
	const struct ipc_metric *metric; /* what results are judged by */
	const struct ipc_metric *rate;	 /* its throughput */
	const struct ipc_param *params;	 /* ended by a NULL key */
	const struct ipc_column *cols;	 /* ended by a NULL head */
	const struct ipc_extra *extras;	 /* ended by a NULL key, or NULL */
	enum ipc_layout layout;
	const struct ipc_suite_desc *suite; /* NULL: not in the quick suite */
	size_t cfg_size; /* bytes of its own parameter block, 0: none */

	/*
	 * Optional: can @cs run with its peer at @placement at all?  0 if
	 * so; otherwise -errno and one sentence in @why, for the plan-time
	 * refusal (an engine without flow sets for load, a transport without
	 * connections for crr, more descriptors than the limit allows).
	 */
	int (*check)(const struct ipc_case *cs, enum ipc_placement placement,
		     char *why, size_t why_len);

	/* Bytes of buffer each side needs for @cs. */
	size_t (*buf_bytes)(const struct ipc_case *cs);

	/*
	 * Largest message either side sends for @cs (to check against the
	 * transport's limit at plan time).
	 */
	size_t (*max_msg)(const struct ipc_case *cs);

	/* The client's loop: warm-up, then measured iterations into hist. */
	int (*client)(struct ipc_pctx *c);

	/* The server's loop: answer until the client closes or stop is set. */
	int (*server)(struct ipc_pctx *c);

	/*
	 * After the runner summarized the runs of @cs into @ps: change what
	 * is particular to this pattern, such as its per-result extras in
	 * ps->extra[] (see struct ipc_psum).  May be NULL.
	 */
	void (*summarize)(const struct ipc_case *cs, struct ipc_psum *ps);
};

/*
 * The http pattern's own parameters (ipc_case.cfg): what is requested and
 * how, and the built-in target's page when no URL is given.
 */
struct ipc_http_cfg {
	char url[2048]; /* the URL measured, "" for the built-in target */
	char host[256]; /* ... its host, port, Host field and path */
	char port[8];
	char authority[272];
	char path[2048];
	char method[24];     /* "GET" */
	bool keepalive;	     /* false: a connection per request */
	uint32_t pipeline;   /* requests written at once per connection */
	uint64_t body;	     /* request body bytes (Content-Length) */
	uint64_t timeout_ns; /* a response not whole this long after its
				exchange began fails as "timeout" and its
				connection closes; 0: wait for ever */
	const char *const *headers; /* -H "Name: value", in order */
	size_t nheaders;
	uint64_t page;	      /* built-in target: the page's bytes */
	uint64_t chunk;	      /* ... written this many at a time, 0: at once */
	bool chunked;	      /* ... with Transfer-Encoding: chunked */
	bool tls;	      /* https: the URL's, or the built-in target's */
	bool insecure;	      /* do not verify the server's certificate */
	unsigned tls_version; /* 12 or 13: that TLS version only; 0: either */
	char cacert[256];     /* trusted CAs (PEM), "": the system's */
	char cert[256];	      /* built-in target: its certificate and key */
	char key[256];	      /* (PEM), "": one made for the run */
	bool http2;	      /* HTTP/2: h2c with prior knowledge on http://,
				 h2 by ALPN on https:// */
	uint32_t streams;     /* HTTP/2: streams opened at once per
				 connection, 0 counts as 1 */
};

/*
 * rr against a GDB stub (rr --target): its own parameters (ipc_case.cfg).
 * The stub is cs->target ("HOST:PORT") through the external peer, or
 * ipcperf's own stub served by the usual peer (target "ipcperf").
 * Acks follow gdb-rsp's: cs->framing_noack asks for QStartNoAckMode.
 */
struct ipc_stub_cfg {
	char target[160];    /* as given: "gdb://HOST:PORT[?addr=ADDR]" or
				"ipcperf" */
	uint64_t buf_addr;   /* ?addr=: the target buffer, 0: found below
				the stopped thread's stack pointer */
	uint64_t timeout_ns; /* longest wait for one reply, 0: 5 s */
};

/* The registry, NULL-terminated, and lookup by name (NULL if none). */
extern const struct ipc_pattern_ops *const ipc_patterns[];
const struct ipc_pattern_ops *ipc_pattern_find(const char *name);

/*
 * The built-in HTTP target: an HTTP/1.1 server of one page, for the http
 * pattern (in a thread or a process of its own) and for any client (ab,
 * wrk, curl, a browser) through `ipcperf http --serve`.  Every request,
 * whatever its method and path, gets the page (HEAD its head); requests
 * may be pipelined; HTTP/1.0 clients get keep-alive when they ask for it
 * (ab -k).  A malformed request gets 400 (a header over 80 KiB 431) and
 * the connection closes.  One thread, one epoll set, no signals: a stop
 * arrives through a descriptor.
 */
struct ipc_http_server;

struct ipc_http_serve_opts {
	const char *addr;     /* "HOST:PORT" to listen on ("127.0.0.1:0",
			     "[::1]:8080"), when listen_fd < 0 */
	int listen_fd;	      /* a listening socket to serve on (the server
			     takes it), or -1 */
	uint64_t page_bytes;  /* body of every answer */
	uint64_t chunk_bytes; /* body bytes per write, 0: all at once */
	bool chunked;	      /* Transfer-Encoding: chunked (HTTP/1.1
				 clients; 1.0 ones get a length) */
	uint64_t client_timeout_ns; /* a client sends each whole request,
				       and a blocked answer moves on,
				       within this; 0: 10 s */
	uint64_t max_duration_ns;   /* serve this long at most, 0: no limit */
	uint64_t idle_timeout_ns;   /* stop after this long without a
				       request, 0: no limit */
	uint32_t max_conns;	    /* open connections at most: a new one
				       pushes out the one idle longest, or
				       waits in the backlog when none is
				       idle; 0: 10000 */
	int stop_fd;		    /* readable: stop now; -1: none */
	const char *engine;	    /* how the loop waits, an engine's
				       name: "epoll" (NULL too), "poll"
				       or "busy" */
	bool tls;		    /* serve https (TLS 1.2 or 1.3) */
	const char *cert_file;	    /* ... with this certificate and key
				       (PEM); NULL: one made now, signed
				       by itself, for localhost */
	const char *key_file;
	const char *token; /* a request whose path begins "/TOKEN/" is the
			      load's own, others are counted as strangers'
			      (stats.strangers); NULL: all are own */
};

/* What a server did, counted since it opened. */
struct ipc_http_serve_stats {
	uint64_t conns;	     /* connections accepted */
	uint64_t requests;   /* requests answered, any status */
	uint64_t keepalive;  /* ... on a connection that had answered one */
	uint64_t bad;	     /* malformed requests answered 400 or 431 */
	uint64_t timeouts;   /* connections closed for a slow client */
	uint64_t resets;     /* connections that failed (reset, error) */
	uint64_t evicted;    /* idle ones closed for a new one (max_conns) */
	uint64_t bytes_in;   /* bytes read */
	uint64_t bytes_out;  /* bytes written */
	uint64_t tls_failed; /* TLS handshakes that failed */
	uint64_t strangers;  /* requests without the token (opts.token) */
	uint64_t h2;	     /* connections that spoke h2c */
};

/* Why ipc_http_serve_run returned. */
enum ipc_http_serve_end {
	IPC_SERVE_STOPPED = 0,	/* stop_fd became readable */
	IPC_SERVE_DURATION = 1, /* max_duration_ns passed */
	IPC_SERVE_IDLE = 2,	/* idle_timeout_ns without a request */
};

#ifdef __cplusplus
}
#endif

#endif

/*
 * Patterns: the measurement loops.  Each is written once against the engine
 * and transport interfaces: rr (ping-pong), stream (one-way batches), bulk
 * (one request, many bytes back), replay (a recorded conversation).  A
 * pattern knows what to time and what to check, not how bytes move or how
 * results print.
 */
#ifndef IPCPERF_PATTERN_H
#define IPCPERF_PATTERN_H

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

/*
 * One measurement: a pattern over a transport through an engine, sized.
 * Defined here, with the patterns that read it, so that they need nothing
 * from the run layer above them; the runner and the plan fill it.
 */
struct ipc_case {
	const struct ipc_pattern_ops *pat;
	const struct ipc_transport_ops *tp;
	const struct ipc_engine_ops *eng;
	size_t req_size;   /* rr: request bytes */
	size_t resp_size;  /* rr: response bytes */
	size_t msg_size;   /* stream: bytes per message */
	uint64_t count;	   /* stream: messages per batch */
	uint64_t total;	   /* bulk: bytes per transfer */
	size_t chunk_size; /* bulk: bytes per message */
	uint64_t flows;	   /* load: concurrent flows (connections) */
	unsigned threads;  /* load: client threads the flows are spread on */
	uint64_t rate;	   /* load: requests/s in total, 0: closed loop */
	const struct ipc_framing_ops *framing; /* rr: frames, NULL: raw */
	bool framing_noack;		       /* gdb-rsp without '+' acks */
	const struct ipc_link *link;	       /* emulated link, NULL: none */
	const struct ipc_trace *trace;	       /* replay: the conversation */
};

/* Where the peer runs (a pattern's needs can depend on it). */
enum ipc_placement {
	IPC_PLACE_PROCESS = 0, /* the peer is a forked process */
	IPC_PLACE_THREAD = 1,  /* the peer is a thread of this process */
};

/* Bits of struct ipc_pattern_ops.flags. */
#define IPC_PAT_OWN_EP                                                         \
	(1u << 0) /* opens and closes its endpoints itself,
				    through ipc_pctx.ch (crr, load) */

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
 * Fairness between the flows of a load run: each flow's replies per
 * second over the run, summarized.
 */
struct ipc_flows {
	uint64_t flows;	     /* flows in the run, 0: not a many-flow pattern */
	double rate_min;     /* the slowest flow, replies/s */
	double rate_median;  /* the median flow */
	double rate_max;     /* the fastest flow */
	uint64_t lag_max_ns; /* open loop: latest a send left after its
				intended time (the generator's own lag) */
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
/* Which per-run number a pattern's results are judged by. */
enum ipc_metric {
	IPC_METRIC_P50 = 0,	   /* median latency, lower is better */
	IPC_METRIC_THROUGHPUT = 1, /* bytes per second, higher is better */
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
	struct ipc_loss loss;	/* lossy transports */
	struct ipc_flows flows; /* many-flow patterns */
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
};

struct ipc_pattern_ops {
	const char *name; /* the command: rr, stream, bulk */
	const char *help; /* one line for `ipcperf list` and --help */
	enum ipc_metric metric;
	unsigned flags; /* IPC_PAT_* bits */

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
	 * is particular to this pattern (see struct ipc_psum).  May be NULL.
	 */
	void (*summarize)(const struct ipc_case *cs, struct ipc_psum *ps);
};

extern const struct ipc_pattern_ops ipc_pattern_rr;
extern const struct ipc_pattern_ops ipc_pattern_stream;
extern const struct ipc_pattern_ops ipc_pattern_bulk;
extern const struct ipc_pattern_ops ipc_pattern_crr;
extern const struct ipc_pattern_ops ipc_pattern_load;
extern const struct ipc_pattern_ops ipc_pattern_replay;

/* The registry, NULL-terminated, and lookup by name (NULL if none). */
extern const struct ipc_pattern_ops *const ipc_patterns[];
const struct ipc_pattern_ops *ipc_pattern_find(const char *name);

/*
 * What the link @l alone costs one replay of @t, in ns: the line time of
 * every write (cut in pieces of l->mtu) plus one delay each time the
 * conversation turns around.  The time a replay over that link cannot
 * beat; 0 without a link.
 */
uint64_t ipc_replay_link_ns(const struct ipc_trace *t,
			    const struct ipc_link *l);

/*
 * Fill @buf with the payload pattern used by every pattern: byte i is a
 * function of i with a period of 64 KiB, so shifted or spliced data does
 * not match.
 */
void ipc_payload_fill(uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif

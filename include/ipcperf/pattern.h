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

#include "engine.h"
#include "stats.h"
#include "transport.h"

struct ipc_case;
struct ipc_link;
struct ipc_result;
struct ipc_trace;

/* Which per-run number a pattern's results are judged by. */
enum ipc_metric {
	IPC_METRIC_P50 = 0,        /* median latency, lower is better */
	IPC_METRIC_THROUGHPUT = 1, /* bytes per second, higher is better */
};

/*
 * What one side of one run did.  Filled by the pattern; the runner turns
 * the client's into a run record.
 */
struct ipc_pout {
	uint64_t warmup_done; /* warm-up iterations completed */
	uint64_t done;       /* measured iterations completed */
	uint64_t elapsed_ns; /* time those iterations took */
	uint64_t messages;   /* measured messages moved */
	uint64_t bytes;      /* measured payload bytes moved */
	int err;             /* 0, or -errno of the failure */
	char what[160];      /* what failed, in words ("" when err == 0) */
};

/*
 * The context of one side of one run, prepared by the runner: buffers are
 * allocated and the payload pattern written before the pattern is called,
 * so the loops allocate nothing.
 */
struct ipc_pctx {
	struct ipc_io io;          /* this side's engine and endpoint */
	const struct ipc_case *cs; /* sizes and counts */
	enum ipc_side side;
	unsigned tp_caps;      /* the transport's IPC_TP_* bits */
	uint64_t warmup;       /* iterations run first and not recorded */
	uint64_t iterations;   /* measured iterations (UINT64_MAX: by time) */
	uint64_t duration_ns;  /* measure this long instead, 0: by count */
	bool verify;           /* check every received payload */
	uint8_t *sbuf;         /* send buffer, buf_bytes long */
	uint8_t *rbuf;         /* receive buffer, buf_bytes long */
	const uint8_t *expect; /* the payload pattern, buf_bytes long */
	size_t buf_bytes;
	struct ipc_hist *hist; /* client: one sample per iteration */
	struct ipc_pout out;
	struct ipc_hist *xhist; /* replay client: one sample per exchange */
};

struct ipc_pattern_ops {
	const char *name; /* the command: rr, stream, bulk */
	const char *help; /* one line for `ipcperf list` and --help */
	enum ipc_metric metric;

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
	 * After the runner summarized @res: fill what is particular to this
	 * pattern.  May be NULL.
	 */
	void (*summarize)(struct ipc_result *res);
};

extern const struct ipc_pattern_ops ipc_pattern_rr;
extern const struct ipc_pattern_ops ipc_pattern_stream;
extern const struct ipc_pattern_ops ipc_pattern_bulk;
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

#endif

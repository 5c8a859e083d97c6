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
struct ipc_runopts;

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
struct ipc_link;
struct ipc_result;
struct ipc_trace;

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

struct ipc_pattern_ops {
	const char *name; /* the command: rr, stream, bulk */
	const char *help; /* one line for `ipcperf list` and --help */
	enum ipc_metric metric;
	unsigned flags; /* IPC_PAT_* bits */

	/*
	 * Optional: can @cs run with @ro at all?  0 if so; otherwise -errno
	 * and one sentence in @why, for the plan-time refusal (an engine
	 * without flow sets for load, a transport without connections for
	 * crr, more descriptors than the limit allows).
	 */
	int (*check)(const struct ipc_case *cs, const struct ipc_runopts *ro,
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
	 * After the runner summarized @res: fill what is particular to this
	 * pattern.  May be NULL.
	 */
	void (*summarize)(struct ipc_result *res);
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
	uint32_t max_conns;	    /* open connections at most (others wait
				       in the backlog), 0: 10000 */
	int stop_fd;		    /* readable: stop now; -1: none */
};

/* What a server did, counted since it opened. */
struct ipc_http_serve_stats {
	uint64_t conns;	    /* connections accepted */
	uint64_t requests;  /* requests answered, any status */
	uint64_t keepalive; /* ... on a connection that had answered one */
	uint64_t bad;	    /* malformed requests answered 400 or 431 */
	uint64_t timeouts;  /* connections closed for a slow client */
	uint64_t resets;    /* connections that failed (reset, error) */
	uint64_t bytes_in;  /* bytes read */
	uint64_t bytes_out; /* bytes written */
};

/* Why ipc_http_serve_run returned. */
enum ipc_http_serve_end {
	IPC_SERVE_STOPPED = 0,	/* stop_fd became readable */
	IPC_SERVE_DURATION = 1, /* max_duration_ns passed */
	IPC_SERVE_IDLE = 2,	/* idle_timeout_ns without a request */
};

/*
 * Make a server: listen on o->addr (or take o->listen_fd) and lay out
 * the page.  0 and *out; -EINVAL with one sentence in @why for an address
 * that is not HOST:PORT or a host that does not resolve (bad input), or
 * another -errno with one sentence (cannot bind, no memory).
 */
int ipc_http_serve_open(struct ipc_http_server **out,
			const struct ipc_http_serve_opts *o, char *why,
			size_t why_len);

/* The address it listens on, "127.0.0.1:41234" or "[::1]:41234". */
void ipc_http_serve_addr(const struct ipc_http_server *s, char *buf,
			 size_t len);

/*
 * Serve until a stop, the duration or the idle time.  Returns an enum
 * ipc_http_serve_end, or -errno if the event loop itself failed.  The
 * connections open at the end are closed.  One thread at a time.
 */
int ipc_http_serve_run(struct ipc_http_server *s);

/* Its counts so far (call from the thread that runs it, or after). */
void ipc_http_serve_stats(const struct ipc_http_server *s,
			  struct ipc_http_serve_stats *st);

/* Close the listening socket and every connection; NULL is a no-op. */
void ipc_http_serve_free(struct ipc_http_server *s);

/*
 * The page's bytes: @len bytes of an HTML page of numbered lines, the
 * same for every length's prefix that fits the closing tags.
 */
void ipc_http_page_fill(char *dst, size_t len);

#endif

/*
 * Running measurements: cases, the options that shape every run, peers
 * (process or thread), warm-up, repeated runs on fresh endpoints, and
 * cleanup on every exit path.  The result records are what reports print.
 */
#ifndef IPCPERF_RUN_H
#define IPCPERF_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "engine.h"
#include "framing.h"
#include "link.h"
#include "pattern.h"
#include "stats.h"
#include "transport.h"

/* One measurement: a pattern over a transport through an engine, sized. */
struct ipc_case {
	const struct ipc_pattern_ops *pat;
	const struct ipc_transport_ops *tp;
	const struct ipc_engine_ops *eng;
	size_t req_size;   /* rr: request bytes */
	size_t resp_size;  /* rr: response bytes */
	size_t msg_size;   /* stream: bytes per message */
	uint64_t count;    /* stream: messages per batch */
	uint64_t total;    /* bulk: bytes per transfer */
	size_t chunk_size; /* bulk: bytes per message */
	const struct ipc_framing_ops *framing; /* rr: frames, NULL: raw */
	bool framing_noack;            /* gdb-rsp without '+' acks */
	const struct ipc_link *link;   /* emulated link, NULL: none */
	const struct ipc_trace *trace; /* replay: the conversation */
};

enum ipc_placement {
	IPC_PLACE_PROCESS = 0, /* the peer is a forked process */
	IPC_PLACE_THREAD = 1,  /* the peer is a thread of this process */
};

/* How every run of every case is done. */
struct ipc_runopts {
	uint64_t iterations;  /* measured iterations per run */
	uint64_t duration_ns; /* or measure each run this long (0: by count) */
	uint64_t warmup;      /* iterations discarded before each run */
	unsigned runs;        /* independent runs per case */
	enum ipc_placement placement;
	bool verify;          /* check every received payload */
	uint64_t timeout_ns;  /* longest wait for a datagram */
	int pin_client;       /* CPU for the client, -1: not pinned */
	int pin_server;       /* CPU for the server, -1: not pinned */
	struct ipc_tp_opts tp; /* socket options (dir and max_msg are set
				  by the runner) */
};

/* Fill @ro with the defaults (documented in --help). */
void ipc_runopts_default(struct ipc_runopts *ro);

enum ipc_status {
	IPC_STATUS_OK = 0,
	IPC_STATUS_ERROR = 1,   /* no run completed */
	IPC_STATUS_PARTIAL = 2, /* some runs or iterations completed */
};

/* What one run measured. */
struct ipc_run_stats {
	uint64_t iterations; /* round trips, batches or transfers */
	uint64_t messages;   /* messages moved one way or both */
	uint64_t bytes;      /* payload bytes moved */
	uint64_t elapsed_ns; /* time the measured iterations took */
	double msgs_per_s;   /* messages / elapsed (rr: round trips / s) */
	double bytes_per_s;  /* bytes / elapsed */
	struct ipc_lat lat;  /* per-iteration time, ns */
	uint64_t timer_ns;   /* cost of one clock read, measured before */
};

/* Everything measured for one case. */
struct ipc_result {
	struct ipc_case cs;
	struct ipc_runopts ro; /* the options the case ran with */
	enum ipc_status status;
	char error[512]; /* what went wrong, "" when status is ok */
	struct ipc_run_stats *runs; /* nruns completed runs */
	size_t nruns;
	size_t runs_cap;
	struct ipc_hist *hist;        /* every run's samples merged */
	struct ipc_run_stats summary; /* over all runs */
	struct ipc_runs_stats metric; /* run-to-run spread of the metric */
	struct ipc_hist *xhist; /* replay: every exchange's time, merged */
	struct ipc_lat xlat;    /* replay: summary of xhist, ns */
};

/* A new empty result for @cs, or NULL when out of memory. */
struct ipc_result *ipc_result_new(const struct ipc_case *cs);
void ipc_result_free(struct ipc_result *res);

/*
 * Describe @cs in words for error messages and progress lines, such as
 * "rr tcp req=64 resp=1024" (engine added when it is not blocking).
 * Returns @buf.
 */
char *ipc_case_describe(const struct ipc_case *cs, char *buf, size_t len);

/*
 * Run every run of @cs with @ro into @res.  Returns 0 when every run
 * completed; otherwise -errno of the first failure, with res->status and
 * res->error saying what happened (runs that completed stay in @res).
 * Always leaves no peer, descriptor or file behind.
 */
int ipc_run_case(const struct ipc_case *cs, const struct ipc_runopts *ro,
		 struct ipc_result *res);

/*
 * Set when the user asked to stop (SIGINT, SIGTERM, SIGHUP).  The runner
 * checks it between iterations' waits, never inside a timed interval.
 */
extern volatile sig_atomic_t ipc_interrupted;

/*
 * Install the handlers that set ipc_interrupted (without SA_RESTART, so a
 * blocked call returns EINTR and the run can end).  Returns 0 or -errno.
 */
int ipc_signals_install(void);

/*
 * Make (and later remove) the private directory that holds FIFOs and
 * socket files for this process: $TMPDIR/ipcperf.XXXXXX, mode 0700.
 * ipc_tmpdir_remove() is safe to call from any exit path, more than once.
 */
int ipc_tmpdir_create(void);
const char *ipc_tmpdir(void);
void ipc_tmpdir_remove(void);

/* Facts about this machine recorded with every result. */
struct ipc_host {
	char kernel[160];    /* uname -sr */
	char machine[72];    /* uname -m */
	char hostname[72];
	char cpu_model[128]; /* from /proc/cpuinfo, "" if unknown */
	int cpus;            /* online logical CPUs */
	uint64_t timer_ns;   /* cost of one CLOCK_MONOTONIC read */
};

void ipc_host_probe(struct ipc_host *h);

/* Cost of one clock_gettime(CLOCK_MONOTONIC), the median of many, in ns. */
uint64_t ipc_timer_cost_ns(void);

/* CLOCK_MONOTONIC now, in ns. */
static inline uint64_t ipc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif

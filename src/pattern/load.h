/* SPDX-License-Identifier: MIT */
/*
 * The many-flow client of load, shared with the patterns that speak a
 * protocol of their own over its flows (http): client threads, each
 * driving its flows through one flow set, closed or open loop, samples
 * into per-thread histograms merged after the run, fairness.  What one
 * exchange is (the bytes of a request, when a response is whole) is a
 * struct ld_proto; load's own is raw messages of --req and --resp bytes.
 */
#ifndef IPCPERF_PATTERN_LOAD_H
#define IPCPERF_PATTERN_LOAD_H

#include <pthread.h>

#include "ipcperf/pattern.h"

struct cflow;
struct lthread;
struct shared;

/*
 * An exchange on a flow.  start: put flow @f's next request in flight
 * (@t0: where its sample starts).  done: one completion of flow @f; when
 * the exchange is over, *@fin (and its sample recorded with ld_record
 * when @rec).  Both return 0, or -errno with th->pc.out set, which ends
 * the thread's run.
 */
struct ld_proto {
	size_t sbuf_bytes; /* each flow's send buffer */
	size_t rbuf_bytes; /* each flow's receive buffer */
	int (*start)(struct lthread *th, uint32_t f, uint64_t t0);
	int (*done)(struct lthread *th, const struct ipc_fdone *d, bool rec,
		    bool *fin);
	/* Optional: set up flow @x's buffers before its connection opens. */
	void (*init_flow)(const struct ld_proto *p, struct ipc_pctx *c,
			  struct cflow *x);
	/* Optional: open flow @x's connection (default: c->ch's client). */
	int (*open_flow)(const struct ld_proto *p, struct ipc_pctx *c,
			 struct cflow *x);
	/* Optional: after the threads, add what the protocol counted. */
	void (*gather)(struct ipc_pctx *c, struct shared *sh);
	/*
	 * Optional, with timeout_ns: flow @f's exchange has run timeout_ns
	 * since x->t0; give it up (its pending operations cancelled) and
	 * say *@fin, as done would.
	 */
	void (*expire)(struct lthread *th, uint32_t f, bool rec, bool *fin);
	uint64_t timeout_ns; /* 0: exchanges never expire */
	/*
	 * Optional, with -i: the payload bytes thread @th moved in its
	 * measured replies so far, read when an interval closes (default:
	 * the replies times the request and response sizes).
	 */
	uint64_t (*ival_bytes)(struct lthread *th);
	void *arg; /* the protocol's state, in shared.arg */
};

/* A client flow. */
struct cflow {
	struct ipc_ep ep;
	uint8_t *sbuf, *rbuf; /* this flow's request and response buffers */
	uint64_t g;	      /* flow number over all threads */
	uint64_t seq;	      /* sequence number of the current request */
	uint64_t left;	      /* requests left in this phase */
	uint64_t k;	      /* open loop: requests of this phase so far */
	uint64_t t0;	      /* when the current request began (sample) */
	uint64_t due;	      /* open loop: when the next one is due */
	uint64_t count;	      /* measured replies */
	uint64_t end;	      /* when its last measured reply came */
	size_t sent, got;     /* progress of the current exchange */
	bool busy;	      /* a request is in flight */
	void *priv;	      /* the protocol's state of this flow */
};

/*
 * What the client threads share.  They start behind a gate that opens once
 * every thread exists (or with abort set, when one could not be made), so
 * that the barriers count only threads that run.
 */
struct shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool open;		/* the gate */
	bool abort;		/* do not measure: a thread is missing or
				    failed during warm-up */
	int start_err;		/* -errno of the thread that did not start */
	unsigned start_failed;	/* which (1-based), or 0 */
	pthread_barrier_t warm; /* every thread finished warming up */
	pthread_barrier_t go;	/* the start time is set */
	uint64_t start_ns;	/* start of the measured phase */
	struct lthread *th;
	unsigned nth;
	const struct ld_proto *proto; /* what an exchange is */
	void *arg;		      /* the protocol's, for all threads */
};

/* A client thread and its flows [base, base + n). */
struct lthread {
	struct shared *sh;
	struct ipc_pctx pc; /* a copy: its out is this thread's */
	struct cflow *fl;
	uint32_t n;
	uint64_t base;
	struct ipc_fset *fs;
	struct ipc_hist *hist;
	uint32_t *heap; /* open loop: idle flows by due time */
	uint32_t hn;
	uint32_t *fins;	    /* flows just expired, th->n entries */
	uint64_t expiry_ns; /* when to look for expired exchanges next */
	uint64_t end_ns;    /* when its last reply arrived */
	uint64_t lag_max;   /* open loop: latest send after its due time */
	uint64_t replies, warm_replies;
	pthread_t t;
	bool started;
	struct ipc_thread_cpu cpu; /* what it used, over its life */
	void *priv;		   /* the protocol's state of this thread */
};

/*
 * Run the client side of @c with @proto: open the flows on c->ch, start
 * the threads, warm up, measure, merge into c->out and c->hist.  Returns
 * 0 or the first failure (c->out says what).
 */
int ld_run(struct ipc_pctx *c, const struct ld_proto *proto);

/* Flow @x's exchange ended at @t1: a sample (when @rec) or a warm-up one. */
void ld_record(struct lthread *th, struct cflow *x, bool rec, uint64_t t1);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of pattern and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/pattern.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_PATTERN_LIB_INTERNAL_H
#define IPCPERF_PATTERN_LIB_INTERNAL_H

#include "ipcperf/pattern.h"

extern const struct ipc_metric ipc_metric_p50;	       /* "p50_ns" */
extern const struct ipc_metric ipc_metric_p99;	       /* "p99_ns" */
extern const struct ipc_metric ipc_metric_mean;	       /* "mean_ns" */
extern const struct ipc_metric ipc_metric_bytes_per_s; /* falls back to
							  msgs_per_s */
extern const struct ipc_metric ipc_metric_msgs_per_s;

/*
 * The first metric compare knows by @word ("p50", "p99", "mean",
 * "throughput"), or NULL.  For "throughput" that is bytes_per_s: what a
 * case's throughput is depends on its pattern (ipc_pattern_ops.rate).
 */
const struct ipc_metric *ipc_metric_find_word(const char *word);

extern const struct ipc_pattern_ops ipc_pattern_rr;
extern const struct ipc_pattern_ops ipc_pattern_stream;
extern const struct ipc_pattern_ops ipc_pattern_bulk;
extern const struct ipc_pattern_ops ipc_pattern_crr;
extern const struct ipc_pattern_ops ipc_pattern_load;
extern const struct ipc_pattern_ops ipc_pattern_replay;
extern const struct ipc_pattern_ops ipc_pattern_http;

extern const struct ipc_pattern_ops ipc_pattern_rr_stub;

/*
 * Can stream's client send as @cs->zerocopy says over @cs's transport and
 * engine?  0 (also for IPC_ZC_OFF), or -EINVAL with one sentence in @why
 * naming what cannot.
 */
int ipc_zc_check(const struct ipc_case *cs, char *why, size_t why_len);

/*
 * Can rr measure with @cs->under_load streams beside it over @cs's
 * transport?  0 (also for none), or -EINVAL with one sentence in @why.
 */
int ipc_under_load_check(const struct ipc_case *cs, char *why, size_t why_len);

/* The most streams rr --under-load starts beside its round trips. */
#define IPC_UNDER_LOAD_MAX 64

/*
 * Reading and writing a case's parameters through their descriptions.
 * _u64 is the value of a number (0 when the case has no trace for an
 * IPC_IN_TRACE one); _str the text of a string (NULL when absent);
 * _set_u64 stores @v into a number (false when @p is not one or the case
 * has no trace); _word writes the value in words into @buf ("64", "4k",
 * "1000/s", a trace's name) and returns it.
 */
uint64_t ipc_param_u64(const struct ipc_case *cs, const struct ipc_param *p);
const char *ipc_param_str(const struct ipc_case *cs, const struct ipc_param *p);
bool ipc_param_set_u64(struct ipc_case *cs, const struct ipc_param *p,
		       uint64_t v);
char *ipc_param_word(const struct ipc_case *cs, const struct ipc_param *p,
		     char *buf, size_t len);

/*
 * The name of value @v of a named parameter (IPC_FMT_NAME), or NULL when
 * @p has no names or @v is past them (a case built by hand, or read from
 * a newer program): callers then show the number.
 */
const char *ipc_param_name(const struct ipc_param *p, uint64_t v);

/*
 * Where @p's value is for @cs (a struct ipc_trace is pointed to by the
 * case and is not const), or NULL when the case has no such base.
 */
void *ipc_param_at(const struct ipc_case *cs, const struct ipc_param *p);

/* Does @cs's description in words include @p? */
bool ipc_param_in_words(const struct ipc_case *cs, const struct ipc_param *p);

/* Is @p a number (of a type ipc_param_u64 reads)? */
bool ipc_param_is_number(const struct ipc_param *p);

/* How many extras @pat describes. */
size_t ipc_pattern_nextras(const struct ipc_pattern_ops *pat);

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
 * Make a server: listen on o->addr (or take o->listen_fd) and lay out
 * the page.  0 and *out; -EINVAL with one sentence in @why for an address
 * that is not HOST:PORT or a host that does not resolve (bad input), or
 * another -errno with one sentence (cannot bind, no memory).
 */
int ipc_http_serve_open(struct ipc_http_server **out,
			const struct ipc_http_serve_opts *o, char *why,
			size_t why_len);

/*
 * Can the server's loop wait as engine @engine (its -e name; NULL: the
 * default, epoll)?  0 or more if so (epoll, poll, busy), -EINVAL if not
 * (blocking waits on one descriptor; io_uring is not built in).
 */
int ipc_http_serve_engine(const char *engine);

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
 * The page's bytes: @len bytes of an HTML page of numbered lines (below
 * 85 bytes, the lines alone, without the page's tags).
 */
void ipc_http_page_fill(char *dst, size_t len);

/*
 * A client measuring for c->duration_ns says when its measured part began
 * (@start_ns, from ipc_now_ns), once, before its loop: the runner's
 * watchdog ends a wait that outlives that deadline by far (a peer stopped
 * or hung).  One store; a pattern that never calls it is not watched.
 */
static inline void ipc_pctx_measuring(struct ipc_pctx *c, uint64_t start_ns)
{
	if (c->measuring_ns)
		__atomic_store_n(c->measuring_ns, start_ns ? start_ns : 1,
				 __ATOMIC_RELEASE);
}

/*
 * The measured part begins (@end false) or ends at @ns: two plain stores
 * into memory the kernel's observer reads, outside any timed interval.
 */
static inline void ipc_pctx_window(struct ipc_pctx *c, bool end, uint64_t ns)
{
	if (!c->window_ns)
		return;
	if (!end)
		__atomic_store_n(&c->window_ns[1], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->window_ns[end], ns, __ATOMIC_RELEASE);
}

#endif

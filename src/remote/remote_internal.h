/* SPDX-License-Identifier: MIT */
/*
 * What the remote layer's files share and nobody else needs: hex helpers,
 * socket set-up of the server and its test processes, and the test
 * process's entry point.
 */
#ifndef IPCPERF_REMOTE_INTERNAL_H
#define IPCPERF_REMOTE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "remote/lib_internal.h"

/* Milliseconds from now to @deadline_ns for poll(): 0 when past. */
int rm_poll_ms(uint64_t deadline_ns);

/*
 * Wait until @fd is ready for @events (POLLIN or POLLOUT) before
 * @deadline_ns, or @stop_fd (-1: none) is readable.  0, -ETIMEDOUT,
 * -ECANCELED or -errno.  EINTR is retried.
 */
int rm_wait(int fd, short events, uint64_t deadline_ns, int stop_fd);

/* Write all @len bytes under the deadline.  0 or -errno as rm_wait. */
int rm_send_all(int fd, const void *buf, size_t len, uint64_t deadline_ns,
		int stop_fd);

/* Set the keep-alive and user timeout of a control socket (both sides). */
void rm_control_sockopts(int fd, uint64_t timeout_ns);

/*
 * Escape @s (a buffer of @size bytes) in place with ipc_text_escape and
 * @flags, whole characters only: IPC_TEXT_ASCII for error messages we
 * send, which may quote what a peer sent (jansson's "near '...'" can hold
 * any byte), since the peer's parser refuses control characters and
 * invalid UTF-8; 0 for what the server's events show on a terminal or in
 * its log.  At most IPC_RM_HOST_MAX bytes of @s are kept.
 */
void rm_safe(char *s, size_t size, unsigned flags);

/*
 * Copy the text @s into @dst (@len bytes), NUL-terminated, cut at a
 * character boundary.
 */
void rm_strlcpy(char *dst, const char *s, size_t len);

/* The name ipc_transport_find would take for @family and @type. */
const char *rm_data_transport(int family, int type);

/*
 * The data transports remote mode serves: their socket family and type.
 * 0, or -EPROTONOSUPPORT when @name is not one of tcp, tcp6, udp, udp6.
 */
int rm_transport_socket(const char *name, int *family, int *type);

struct ipc_trace;
struct ipc_case;
struct ipc_runopts;

/*
 * The test that asks a server to run @cs with @ro: names, sizes and the
 * options its side needs, as rm_test_case reads them back.  runs is 0.
 */
void rm_test_of(const struct ipc_case *cs, const struct ipc_runopts *ro,
		struct ipc_rtest *t);

/* Is @name one of the patterns a server runs for a client? */
bool rm_pattern_served(const char *name);

/*
 * @t as the server side's case @cs and options @ro, checked as the
 * command line checks a case of its plan (ipc_pair_check, ipc_case_check)
 * and against the protocol's own limits.  @trace: a replay's conversation
 * once it has arrived; before that (NULL) a replay's case is checked
 * without its pattern's check.  0, or -errno with one sentence in @why
 * (the `refused` error's message).  @cs points at @trace.
 */
int rm_test_case(const struct ipc_rtest *t, const struct ipc_trace *trace,
		 struct ipc_case *cs, struct ipc_runopts *ro, char *why,
		 size_t why_len);

/*
 * --explain over --remote (xremote.c).  The server's test process: the
 * sums of its serving thread's phases over the run, read from @x, as the
 * JSON object text of run_stats' "explain" (at most @len bytes), with
 * its window; @x NULL: {"why": @why}.  The client: that
 * text into @p's remote_x* fields (nothing when "" or not an object).
 */
struct ipc_explain;
struct ipc_peer;
void rm_xserve_text(struct ipc_explain *x, const char *why, char *out,
		    size_t len);
void rm_xclient_take(struct ipc_peer *p, const char *text);

/*
 * @t in the native trace format (docs/replay.md), every unit a record with
 * a timestamp that keeps its think time: what the client sends a server
 * for replay.  0 with a new NUL-terminated buffer in *out (free it), or
 * -ENOMEM.
 */
int rm_trace_text(const struct ipc_trace *t, char **out, size_t *len);

/* RLIMIT_DATA of a test process: twice the buffer budget. */
#define RM_TEST_DATA_MAX (2 * IPC_REMOTE_TEST_BYTES_MAX)

/* What the server hands a test process. */
struct rm_test_ctx {
	int ctl_fd;	     /* the control connection */
	int stop_fd;	     /* readable (EOF) when the server stops us */
	int status_fd;	     /* our record goes here, once, at the end */
	struct ipc_rmsg req; /* the test message */
	uint64_t test_id;
	const struct ipc_server_conf *conf;
	struct sockaddr_storage local; /* the control connection's local end */
	socklen_t local_len;
	volatile uint64_t *shared; /* [0] tests started, [1] running */
};

/*
 * The whole life of one test in its own process: accept, runs, bye.
 * Writes its record to ctx->status_fd and returns the exit status.
 */
int rm_test_main(struct rm_test_ctx *ctx);

/* The record a test process writes for the server: fixed-size, one write. */
struct rm_record {
	uint64_t runs;
	uint64_t others_max;
	uint64_t rejected;
	int status;    /* 0 ok, 1 error, 2 aborted */
	bool released; /* it took itself off the running count already */
	char reason[IPC_RM_TEXT_MAX];
};

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Remote mode: the control protocol between an ipcperf client and an
 * `ipcperf server` on another host, the server itself (accept loop, one
 * process per test, limits) and the client's side of the control exchange.
 * The protocol is described in docs/protocol.md; the measured loops never
 * touch the control connection.  The program's own: not installed, not
 * exported (docs/library.md).
 */
#ifndef IPCPERF_REMOTE_LIB_INTERNAL_H
#define IPCPERF_REMOTE_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ipcperf/base.h" /* ipc_random_bytes */

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol version this build speaks (docs/protocol.md). */
#define IPC_REMOTE_PROTO 2

/* The server's default TCP port for control connections. */
#define IPC_REMOTE_PORT 5301

/*
 * Hard cap on one control message body, in bytes.  A length prefix above
 * it ends the connection before a byte of the body is read or allocated.
 */
#define IPC_REMOTE_MSG_MAX (64u * 1024)

/*
 * Cap on the messages a server reads before a test is accepted (hello,
 * auth, test): they are small, and the server holds many such connections
 * at once, so each may buffer at most this much.
 */
#define IPC_REMOTE_HANDSHAKE_MAX 4096u

#define IPC_REMOTE_COOKIE_BYTES 16	 /* per-test data connection cookie */
#define IPC_REMOTE_CHUNK_MAX 32768	 /* bytes of trace in one message */
#define IPC_REMOTE_TRACE_MAX (16u << 20) /* bytes of one trace's text */
#define IPC_REMOTE_NONCE_BYTES 32	 /* challenge and client nonce */
#define IPC_REMOTE_MAC_BYTES 32		 /* HMAC-SHA-512-256 */
#define IPC_REMOTE_KEY_MIN 16		 /* shortest key file, bytes */
#define IPC_REMOTE_KEY_MAX 4096		 /* longest key file, bytes */

/* Default deadlines and limits of a server (ipcperf server --help). */
#define IPC_REMOTE_CONTROL_TIMEOUT_NS (10ull * 1000000000)
#define IPC_REMOTE_MAX_TEST_NS (3600ull * 1000000000)
#define IPC_REMOTE_MAX_CLIENTS 8
#define IPC_REMOTE_MAX_PENDING 1024

/*
 * The most buffer memory one test may ask the server to hold: sizes times
 * flows (docs/protocol.md).  Tests that need more are refused.
 */
#define IPC_REMOTE_TEST_BYTES_MAX (256ull << 20)

/* Message types; the wire name of each is in docs/protocol.md. */
enum ipc_rmsg_type {
	IPC_RM_NONE = 0,
	/* client to server */
	IPC_RM_HELLO,
	IPC_RM_AUTH,
	IPC_RM_TEST,
	IPC_RM_RUN,
	IPC_RM_RUN_END,
	IPC_RM_DONE,
	IPC_RM_TRACE,
	/* server to client */
	IPC_RM_WELCOME,
	IPC_RM_AUTH_OK,
	IPC_RM_ACCEPT,
	IPC_RM_READY,
	IPC_RM_RUN_STATS,
	IPC_RM_BYE,
	/* either way */
	IPC_RM_ERROR,
	IPC_RM_COUNT
};

/* Error codes of an "error" message. */
enum ipc_rerr {
	IPC_RERR_PROTOCOL = 0, /* malformed, unexpected or oversized message */
	IPC_RERR_VERSION,      /* protocol versions differ */
	IPC_RERR_AUTH,	       /* authentication required or failed */
	IPC_RERR_BUSY,	       /* --max-clients tests are running */
	IPC_RERR_REFUSED,      /* a test this server will not run */
	IPC_RERR_TIMEOUT,      /* a deadline passed */
	IPC_RERR_STOPPING,     /* the server is shutting down */
	IPC_RERR_FAILED,       /* the test failed on the server */
	IPC_RERR_ABORT,	       /* the client gave up */
	IPC_RERR_COUNT
};

/* "protocol", "version", ... (the wire names); NULL when out of range. */
const char *ipc_rerr_name(enum ipc_rerr code);

#define IPC_RM_NAME_MAX 32   /* pattern, transport, engine names */
#define IPC_RM_TEXT_MAX 256  /* free text: software, error messages */
#define IPC_RM_HOST_MAX 1024 /* the server's fingerprint as JSON text */

/*
 * A test as the client asks for it: what the server side must run.  Every
 * field is checked on arrival against the limits of docs/protocol.md.
 */
struct ipc_rtest {
	char pattern[IPC_RM_NAME_MAX];	 /* rr, stream, bulk, crr, load,
					    replay */
	char transport[IPC_RM_NAME_MAX]; /* tcp, tcp6, udp, udp6 */
	char engine[IPC_RM_NAME_MAX];	 /* the server side's engine */
	char framing[IPC_RM_NAME_MAX];	 /* "" for raw */
	bool no_ack;			 /* gdb-rsp without '+' acks */
	uint64_t req_size;		 /* rr, crr, load: bytes */
	uint64_t resp_size;		 /* bytes */
	uint64_t msg_size;		 /* stream: bytes per message */
	uint64_t count;			 /* stream: messages per batch */
	uint64_t total;			 /* bulk: bytes per transfer */
	uint64_t chunk_size;		 /* bulk: bytes per message */
	uint64_t flows;			 /* load: connections */
	uint64_t runs;			 /* runs the client plans, 0: unknown */
	bool verify;			 /* the server checks payloads */
	int64_t pin_cpu;		 /* server CPU, -1: not pinned */
	bool nodelay;			 /* TCP_NODELAY */
	uint64_t sndbuf;		 /* SO_SNDBUF bytes, 0: default */
	uint64_t rcvbuf;		 /* SO_RCVBUF bytes, 0: default */
	uint64_t busy_poll_us;		 /* SO_BUSY_POLL, 0: default */
	uint64_t timeout_ns;		 /* lossy transports' receive timeout */
	uint64_t trace_bytes; /* replay: the conversation's text follows in
				 trace messages, this many bytes */
	bool explain;	      /* --explain: the server side explains itself */
	bool reverse;	      /* stream -R: the server side sends */
	uint64_t bitrate_bps; /* stream -b: the client's pace, bits/s, 0:
				 none; over udp its datagrams carry send
				 times the server's side keeps jitter of */
};

/* What the server measured on its side of one run. */
struct ipc_rrun_stats {
	uint64_t run;	   /* the run's number, from 0 */
	uint64_t user_ns;  /* user CPU time of the server side */
	uint64_t sys_ns;   /* system CPU time */
	uint64_t vcsw;	   /* voluntary context switches */
	uint64_t ivcsw;	   /* involuntary ones */
	uint64_t messages; /* messages the server side moved */
	uint64_t bytes;	   /* payload bytes it moved */
	uint64_t others;   /* other tests the server ran during the run */
	uint64_t rejected; /* data connections or datagrams refused for a
			      wrong or missing cookie */
	int64_t err;	   /* 0, or the errno of the server side's failure */
	char what[IPC_RM_TEXT_MAX]; /* the failure in words, "" if none */
	/* --explain: the server side's phases over the run, a JSON object
	   as text (docs/protocol.md); "" when not asked for */
	char explain[IPC_RM_HOST_MAX];
};

/*
 * One control message, parsed.  Only the fields of its type are
 * meaningful; strings are NUL-terminated copies, so nothing points into
 * the wire buffer.
 */
struct ipc_rmsg {
	enum ipc_rmsg_type type;
	uint64_t proto;			/* hello, welcome */
	char software[IPC_RM_TEXT_MAX]; /* hello, welcome: "ipcperf v0.3" */
	bool auth;			/* welcome: a key is required */
	uint8_t nonce[IPC_REMOTE_NONCE_BYTES];	 /* welcome: challenge; auth:
						  the client's nonce */
	uint8_t mac[IPC_REMOTE_MAC_BYTES];	 /* auth, auth_ok */
	struct ipc_rtest test;			 /* test */
	uint64_t test_id;			 /* accept */
	uint8_t cookie[IPC_REMOTE_COOKIE_BYTES]; /* accept */
	uint64_t data_port;			 /* accept */
	uint64_t max_test_ns;			 /* accept: the server's cap */
	uint64_t running; /* accept: other tests running; error (busy) */
	uint64_t run;	  /* run, ready, run_end */
	struct ipc_rrun_stats stats;	    /* run_stats */
	char host[IPC_RM_HOST_MAX];	    /* bye: the server's fingerprint, a
					  JSON object as text */
	uint8_t data[IPC_REMOTE_CHUNK_MAX]; /* trace: a piece of the text */
	size_t data_len;
	enum ipc_rerr code;	       /* error */
	char message[IPC_RM_TEXT_MAX]; /* error: one sentence */
};

/* The wire name of @t ("hello", ...), or NULL when out of range. */
const char *ipc_rmsg_name(enum ipc_rmsg_type t);

/*
 * Parse the body of one message (@len bytes of JSON, no length prefix)
 * into @m.  Every field's JSON type and range is checked before it is
 * used; unknown, missing, duplicated or oversized fields are refused.
 * Returns 0, or -EPROTO (-EMSGSIZE when @len exceeds the cap) with one
 * sentence in @why naming what was wrong.  Allocates only inside the call.
 */
int ipc_rmsg_parse(const void *buf, size_t len, struct ipc_rmsg *m, char *why,
		   size_t why_len);

/*
 * Encode @m as a length-prefixed message into @buf (@cap bytes).  Returns
 * the bytes written (prefix included), or -EMSGSIZE when it does not fit
 * @cap or IPC_REMOTE_MSG_MAX, -EINVAL for an unknown type.
 */
int ipc_rmsg_encode(const struct ipc_rmsg *m, void *buf, size_t cap);

/*
 * Incremental reader of length-prefixed messages: a 4-byte big-endian
 * length, then that many bytes.  Feed it what arrives; it allocates the
 * body only once the prefix is complete and within @max.
 */
struct ipc_rframe {
	size_t max;	 /* largest body accepted */
	uint8_t hdr[4];	 /* the prefix as it arrives */
	size_t hdr_got;	 /* prefix bytes so far */
	uint32_t len;	 /* body length, once the prefix is complete */
	uint8_t *body;	 /* the body, len bytes, once allocated */
	size_t body_got; /* body bytes so far */
};

/* Start a reader for bodies of at most @max bytes. */
void ipc_rframe_init(struct ipc_rframe *f, size_t max);

/* Free the body and reset for the next message. */
void ipc_rframe_reset(struct ipc_rframe *f);

/*
 * Feed @n bytes at @p.  Sets *used to the bytes consumed.  Returns 1 when
 * a message is complete (f->body, f->len; call ipc_rframe_reset after
 * using it), 0 when more is needed, -EMSGSIZE for a length of 0 or above
 * f->max, -ENOMEM.
 */
int ipc_rframe_feed(struct ipc_rframe *f, const uint8_t *p, size_t n,
		    size_t *used);

/*
 * Blocking message I/O over a socket under a deadline (CLOCK_MONOTONIC,
 * ns): the whole message must be sent or received before @deadline_ns.
 * @stop_fd (or -1) ends the wait early when it becomes readable.  The
 * socket may be blocking or not.  Returns 0, -ETIMEDOUT (the deadline
 * passed), -ECANCELED (stop), -ECONNRESET (peer closed), -ENOLINK (the
 * kernel gave up on the peer: keep-alive, unreachable), -EMSGSIZE /
 * -EPROTO (bad message, with why), or -errno.
 */
int ipc_rwire_send(int fd, const struct ipc_rmsg *m, uint64_t deadline_ns,
		   int stop_fd);
int ipc_rwire_recv(int fd, struct ipc_rmsg *m, size_t max, uint64_t deadline_ns,
		   int stop_fd, char *why, size_t why_len);

/* A shared key for challenge-response authentication (--key FILE). */
struct ipc_rkey {
	uint8_t bytes[IPC_REMOTE_KEY_MAX];
	size_t len;
};

/*
 * Read a key file: its whole content is the key (16 to 4096 bytes); a
 * file that others than its owner may read is refused.  Returns 0, or
 * -errno with one sentence in @why.  Wipe the key with ipc_rkey_wipe.
 */
int ipc_rkey_load(const char *path, struct ipc_rkey *key, char *why,
		  size_t why_len);
void ipc_rkey_wipe(struct ipc_rkey *key);

/* Which side proves that it holds the key. */
enum ipc_rauth_role {
	IPC_RAUTH_CLIENT = 0, /* HMAC over "client", challenge, nonce */
	IPC_RAUTH_SERVER = 1, /* HMAC over "server", nonce, challenge */
};

/*
 * The proof of @role: HMAC-SHA-512-256 (libsodium) keyed with @key over a
 * label, the server's @challenge and the client's @nonce
 * (docs/protocol.md).  Fresh random values on both sides make an old
 * exchange worthless.
 */
void ipc_rauth_mac(const struct ipc_rkey *key, enum ipc_rauth_role role,
		   const uint8_t challenge[IPC_REMOTE_NONCE_BYTES],
		   const uint8_t nonce[IPC_REMOTE_NONCE_BYTES],
		   uint8_t mac[IPC_REMOTE_MAC_BYTES]);

/* Constant-time check of a proof.  True when it matches. */
bool ipc_rauth_check(const struct ipc_rkey *key, enum ipc_rauth_role role,
		     const uint8_t challenge[IPC_REMOTE_NONCE_BYTES],
		     const uint8_t nonce[IPC_REMOTE_NONCE_BYTES],
		     const uint8_t mac[IPC_REMOTE_MAC_BYTES]);

/*
 * Without resolving anything: 0 unless the host of @spec (as
 * ipc_addr_parse takes it) is a number in one of inet_aton's old forms
 * ("010", "1.5", "0x7f.1", "2130706433": whatever is not a.b.c.d with four
 * numbers 0..255 and no leading zeros), which ipc_addr_parse refuses too;
 * then -EINVAL and one sentence in @why.  For option checks.
 */
int ipc_addr_check(const char *spec, char *why, size_t why_len);

/*
 * Parse "ADDR[:PORT]", "[ADDR6]:PORT", "HOST[:PORT]" or ":PORT" into @ss
 * for @family (AF_UNSPEC: the first address the name gives), the port
 * defaulting to @port.  An empty ADDR is the wildcard (:: with @family
 * AF_UNSPEC or AF_INET6, 0.0.0.0 for AF_INET).  Returns 0 or -errno with
 * one sentence in @why.  May resolve a host name (blocking).
 */
int ipc_addr_parse(const char *spec, int family, uint16_t port,
		   struct sockaddr_storage *ss, socklen_t *len, char *why,
		   size_t why_len);

/* "10.0.0.1:5301" or "[fd00::1]:5301" into @buf; returns @buf. */
char *ipc_addr_format(const struct sockaddr *sa, socklen_t len, char *buf,
		      size_t buf_len);

/* ---- the server ---------------------------------------------------- */

struct ipc_server;

/* What the server tells its caller (who prints it). */
enum ipc_server_event_kind {
	IPC_SEV_LISTENING = 0, /* a listening address, port resolved */
	IPC_SEV_TEST,	       /* a test ended (any way) */
	IPC_SEV_REFUSED,       /* a client turned away: busy, auth, version */
	IPC_SEV_STOPPED,       /* the server stops: why in reason */
};

struct ipc_server_event {
	enum ipc_server_event_kind kind;
	char addr[80];		      /* listening address, or the client's */
	uint64_t test_id;	      /* IPC_SEV_TEST */
	struct ipc_rtest test;	      /* IPC_SEV_TEST: what was asked */
	const char *status;	      /* "ok", "error", "aborted" (test); the
				  error code's name (refused) */
	char reason[IPC_RM_TEXT_MAX]; /* what went wrong / why stopped */
	uint64_t runs;		      /* runs served */
	uint64_t duration_ns;	      /* the test's wall time */
	uint64_t others_max; /* most other tests running at once meanwhile */
	uint64_t rejected;   /* data connections refused for the cookie */
	int exit_status;     /* the test process's wait status */
};

struct ipc_server_conf {
	const char *const *listen; /* "ADDR[:PORT]" each; none: [::]:5301
				      (or 0.0.0.0:5301 without IPv6) */
	size_t nlisten;
	bool once;		     /* serve one test, then stop */
	uint64_t idle_timeout_ns;    /* stop after this long with no test,
					   0: never */
	uint64_t max_duration_ns;    /* stop after this long, 0: never */
	uint64_t control_timeout_ns; /* deadline of each control message */
	uint64_t max_test_ns;	     /* longest one test may take */
	unsigned max_clients;	     /* tests at once */
	unsigned max_pending;	     /* connections not yet in a test */
	const struct ipc_rkey *key;  /* NULL: no authentication */
	const char *software;	     /* "ipcperf v0.3", sent in welcome */
	/*
	 * The CPU latency request each test process holds while it serves
	 * (ipc_pmqos_hold: microseconds, -1 for none, the default) through
	 * pm_qos_device (NULL: IPC_PMQOS_DEVICE), the cpuidle driver read
	 * from cpuidle_file (NULL: the kernel's).
	 */
	int pm_qos_us;
	const char *pm_qos_device;
	const char *cpuidle_file;
	/* Every event, in the server's main process.  May be NULL. */
	void (*on_event)(void *arg, const struct ipc_server_event *ev);
	void *event_arg;
};

/* Fill @c with the defaults above. */
void ipc_server_conf_default(struct ipc_server_conf *c);

/*
 * Make a server: bind and listen on every address of @conf (which, with
 * the key, must outlive the server).  Returns 0 with *out set, or -errno
 * with one sentence in @why.  Prints nothing; events go to conf->on_event.
 */
int ipc_server_new(const struct ipc_server_conf *conf, struct ipc_server **out,
		   char *why, size_t why_len);

/*
 * Serve until stopped (ipc_server_stop), idle, past --max-duration, or
 * after the one test of --once.  Tests in flight when it stops are
 * aborted and reported.  Returns 0, or -errno of a failure of the server
 * itself (not of a test).
 */
int ipc_server_run(struct ipc_server *s);

/*
 * Ask the server to stop: async-signal-safe, callable from a signal
 * handler.  A second call while it stops kills the tests still running.
 * In a test's process it aborts that test only.
 */
void ipc_server_stop(struct ipc_server *s);

/* Close everything; NULL is a no-op.  Call after ipc_server_run. */
void ipc_server_free(struct ipc_server *s);

/* ---- the client's side ---------------------------------------------- */

/*
 * The remote peer kind (struct ipc_peer_ops, run.h): with cs->peer set
 * to it, cs->target "HOST[:PORT]" of an ipcperf server and cs->peer_arg
 * pointing to these options, every run's other end is that server.
 */
struct ipc_remote_opts {
	const struct ipc_rkey *key; /* NULL: no authentication */
	const char *server_engine;  /* the server side's engine, NULL: the
				       client's (-e) */
	uint64_t timeout_ns;	    /* deadline of each control message */
	const char *software;	    /* sent in hello */
};

struct ipc_peer_ops;
extern const struct ipc_peer_ops ipc_peer_remote;

/* ---- the client's side of the control exchange --------------------- */

struct ipc_rclient;

struct ipc_rclient_conf {
	const char *server;	    /* "HOST[:PORT]" */
	const struct ipc_rkey *key; /* NULL: no authentication */
	uint64_t timeout_ns;	    /* deadline of each control message */
	const char *software;	    /* sent in hello */
};

/*
 * Connect to the server, exchange hello and welcome, and authenticate
 * (both ways) when either side has a key.  Returns 0 with *out set, or
 * -errno with one sentence in @why ("busy, 2 tests running", "protocol
 * version 2 is not supported by this server (it speaks 1)", ...).
 */
int ipc_rclient_open(const struct ipc_rclient_conf *conf,
		     struct ipc_rclient **out, char *why, size_t why_len);

/*
 * Ask for @t.  On 0, @acc holds the accept message (test id, cookie,
 * data port).  -EBUSY when the server runs --max-clients tests (why says
 * how many), other -errno with why.
 */
int ipc_rclient_test(struct ipc_rclient *c, const struct ipc_rtest *t,
		     struct ipc_rmsg *acc, char *why, size_t why_len);

/*
 * Open the data endpoint of run @run of the accepted test: announce the
 * run, connect a socket of @family and @type (SOCK_STREAM or SOCK_DGRAM)
 * to the server's data port, present the cookie and wait until the server
 * is ready.  Returns the connected descriptor, or -errno with why.
 */
int ipc_rclient_run_begin(struct ipc_rclient *c, uint64_t run, int family,
			  int type, char *why, size_t why_len);

/*
 * For a client whose transport opens the data endpoint itself: announce
 * run @run and wait until the server is ready for it.  @udp_fd, a UDP
 * socket of the transport's family (-1 for TCP), is connected to the data
 * port and presents the cookie first.  0 or -errno with why.
 */
int ipc_rclient_run_start(struct ipc_rclient *c, uint64_t run, int udp_fd,
			  char *why, size_t why_len);

/* The data port's address for @family, after the test was accepted. */
int ipc_rclient_data_addr(const struct ipc_rclient *c, int family,
			  struct sockaddr_storage *ss, socklen_t *len,
			  char *why, size_t why_len);

/* The accepted test's cookie (IPC_REMOTE_COOKIE_BYTES). */
const uint8_t *ipc_rclient_cookie(const struct ipc_rclient *c);

/*
 * End run @run: tell the server, and read its side's figures into @st.
 * Returns 0 or -errno with why.
 */
int ipc_rclient_run_end(struct ipc_rclient *c, uint64_t run,
			struct ipc_rrun_stats *st, char *why, size_t why_len);

/*
 * Send the conversation to replay (@len bytes of text in the native trace
 * format, as many "trace" messages as it takes) after the test was
 * accepted with trace_bytes @len.  0 or -errno with why.
 */
int ipc_rclient_send_trace(struct ipc_rclient *c, const char *text, size_t len,
			   char *why, size_t why_len);

/* End the test: "done", then the server's "bye" (its fingerprint). */
int ipc_rclient_done(struct ipc_rclient *c, struct ipc_rmsg *bye, char *why,
		     size_t why_len);

/* The control socket (for tests), and the server's address as connected. */
int ipc_rclient_fd(const struct ipc_rclient *c);
const struct sockaddr *ipc_rclient_addr(const struct ipc_rclient *c,
					socklen_t *len);

/* Close the control connection; NULL is a no-op. */
void ipc_rclient_free(struct ipc_rclient *c);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Framing: how a message is wrapped on the wire.  raw sends the bytes as
 * they are (the patterns' own loops), len puts a 4-byte length in front,
 * gdb-rsp speaks the GDB remote serial protocol: $payload#checksum packets,
 * '+' acknowledgements, escapes and run-length encoding.  Recorded
 * conversations (GDB's remotelogfile and a native format) are read here
 * too, because replaying one means knowing where its packets end.
 */
#ifndef IPCPERF_FRAMING_H
#define IPCPERF_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a decoder found (the frame_feed result in *ev). */
enum ipc_frame_ev {
	IPC_FRAME_MORE = 0,   /* everything was consumed, nothing complete */
	IPC_FRAME_PACKET = 1, /* a whole frame: its payload is in dec->out */
	IPC_FRAME_ACK = 2,    /* '+' (gdb-rsp) */
	IPC_FRAME_NAK = 3,    /* '-' (gdb-rsp): resend asked for */
};

/* Flags of encode(). */
#define IPC_FRAME_RLE (1u << 0) /* gdb-rsp: run-length encode (stub side) */

/*
 * An incremental decoder: bytes go in as they arrive, in any pieces;
 * decoded payload bytes go to out.  Caller-owned storage, no allocation.
 */
struct ipc_frame_dec {
	uint8_t *out;	/* decoded payload */
	size_t cap;	/* bytes out can hold */
	size_t len;	/* decoded bytes so far */
	int state;	/* the framing's own */
	unsigned sum;	/* gdb-rsp: running checksum of the raw body */
	unsigned want;	/* gdb-rsp: checksum read from the frame */
	int prev;	/* gdb-rsp: previous raw body char, -1: none */
	uint32_t need;	/* len: payload bytes still to come */
	uint8_t hdr[4]; /* len: the length being read */
};

struct ipc_framing_ops {
	const char *name; /* as given to --framing */
	const char *help;
	bool acks; /* each frame is acknowledged ('+') unless no-ack */

	/* Largest frame for a payload of @len bytes. */
	size_t (*frame_max)(size_t len);

	/*
	 * Frame @len bytes of @payload into @dst (frame_max(len) bytes).
	 * Returns the frame's length.  NULL for raw: there is no frame.
	 */
	size_t (*encode)(uint8_t *dst, const uint8_t *payload, size_t len,
			 unsigned flags);

	/* Start decoding into @out (@cap bytes). */
	void (*dec_init)(struct ipc_frame_dec *d, uint8_t *out, size_t cap);

	/*
	 * Feed @len bytes of @in.  Returns how many were consumed (up to the
	 * end of the first complete event, reported in *ev) or -EBADMSG for
	 * a frame that breaks the protocol (a bad checksum) and -EMSGSIZE for
	 * a payload larger than the decoder's buffer.  After an
	 * IPC_FRAME_PACKET, dec->out[0, dec->len) holds the payload until the
	 * next feed; the decoder is then ready for the next frame.
	 */
	ssize_t (*dec_feed)(struct ipc_frame_dec *d, const uint8_t *in,
			    size_t len, enum ipc_frame_ev *ev);
};

extern const struct ipc_framing_ops ipc_framing_raw;
extern const struct ipc_framing_ops ipc_framing_len;
extern const struct ipc_framing_ops ipc_framing_rsp;

/* The registry, NULL-terminated, and lookup by name (NULL if none). */
extern const struct ipc_framing_ops *const ipc_framings[];
const struct ipc_framing_ops *ipc_framing_find(const char *name);

/* GDB remote protocol helpers, for tests and trace handling. */

/* The packet checksum: the sum of the bytes modulo 256. */
unsigned ipc_rsp_checksum(const uint8_t *buf, size_t len);

/* Does @c have to be escaped ('}' then c ^ 0x20) in a packet body? */
static inline bool ipc_rsp_must_escape(uint8_t c)
{
	return c == '$' || c == '#' || c == '}' || c == '*';
}

/*
 * A recorded conversation: a list of writes, each from the client to the
 * server or back, in the order they happened.  Consecutive writes in one
 * direction form a group; an exchange is a client group followed by a
 * server group.
 */
enum ipc_dir {
	IPC_C2S = 0, /* the client wrote it, the server reads it */
	IPC_S2C = 1,
};

struct ipc_trace_unit {
	size_t off, len;   /* the bytes: trace->bytes[off, off + len) */
	uint64_t think_ns; /* the writer waits this long first (timestamps) */
	uint32_t line;	   /* where it came from in the file */
	uint8_t dir;	   /* enum ipc_dir */
};

struct ipc_trace {
	char *path;    /* the file as given */
	char name[64]; /* its base name without the extension */
	bool gdb;      /* GDB remotelogfile format (else native) */
	uint8_t *bytes;
	size_t nbytes;
	struct ipc_trace_unit *units;
	size_t nunits;
	size_t max_unit;    /* longest write, bytes */
	uint64_t bytes_c2s; /* bytes the client writes */
	uint64_t bytes_s2c;
	uint64_t exchanges;  /* client groups answered by a server group */
	uint64_t think_ns;   /* total think time */
	uint32_t max_packet; /* 0, or the packet limit it was split for */
};

/*
 * Parse the conversation in @text (@len bytes) read from @path.  The
 * format is recognised from the first line that is not blank: "w ", "r "
 * or "c " is GDB's remotelogfile, ">" "<" or "#" the native format (see
 * docs/replay.md).  In a GDB log every line is cut into the writes a real
 * client or stub makes: each '+', '-' and $...#xx packet alone.
 *
 * Returns 0 and a new trace in *out, or -EINVAL with "LINE: problem" in
 * @err (the caller adds the file name), -ENOMEM.
 */
int ipc_trace_parse(const char *path, const char *text, size_t len,
		    struct ipc_trace **out, char *err, size_t err_len);

/*
 * Read and parse the file @path.  On failure @err says "PATH:LINE:
 * problem" or "PATH: problem" (cannot read).
 */
int ipc_trace_load(const char *path, struct ipc_trace **out, char *err,
		   size_t err_len);

/*
 * A copy of @t in which every server packet whose body is longer than
 * @max_packet bytes is cut into packets of at most that many, each but
 * the first fetched by one more request (a copy of the client's last
 * packet, acknowledged as the rest of the trace is), the way a client that
 * negotiated a smaller packet size reads a large object piece by piece.
 * 0 and *out, or -ENOMEM.
 */
int ipc_trace_split(const struct ipc_trace *t, uint32_t max_packet,
		    struct ipc_trace **out);

void ipc_trace_free(struct ipc_trace *t);

/*
 * HTTP/1.1 messages, over Debian's http_parser (the parser wrk and Node.js
 * used).  A parser takes bytes in any pieces and stops at the end of each
 * message, so pipelined messages come out one at a time; bodies are
 * counted, never copied.  Requests and responses are built by the
 * functions below them.  Nothing here allocates or prints.
 */

/* Header bytes (start line and fields) one message may have. */
#define IPC_HTTP_HDR_MAX (80u * 1024)

/* What the parser found out about the message it is in, or last ended. */
struct ipc_http_msg {
	unsigned status;      /* response: the status code */
	unsigned method;      /* request: http_parser's enum http_method */
	bool method_head;     /* request: the method is HEAD */
	unsigned short major; /* HTTP version */
	unsigned short minor;
	bool head_done;	       /* the header section is complete */
	bool keep_alive;       /* the connection may carry another message
				  (valid once head_done) */
	bool chunked;	       /* Transfer-Encoding: chunked */
	bool has_length;       /* a Content-Length was given ... */
	uint64_t length;       /* ... of this many bytes */
	bool expect_continue;  /* request: Expect: 100-continue (the feed
				  returns at the end of such a head, done
				  false, so that 100 Continue can be sent
				  before the body comes) */
	uint64_t header_bytes; /* start line and header fields, on the wire */
	uint64_t body_bytes;   /* body bytes, decoded (chunk framing out) */
	uint64_t wire_bytes;   /* every byte of the message on the wire */
	uint64_t interim;      /* response: 1xx answers skipped before it */
	bool token;	       /* request: its path begins "/TOKEN/", the
				  parser's token */
};

/*
 * A parser: caller-owned, no allocation.  The first member is room for
 * http_parser itself (checked at build time), kept opaque here so that
 * users of this header need not have http_parser.h.
 */
struct ipc_http_parser {
	union {
		unsigned char bytes[48];
		uint64_t align;
	} impl; /* http_parser (private) */
	struct ipc_http_msg msg;
	bool request;	   /* parses requests (else responses) */
	bool head;	   /* response: it answers a HEAD (no body follows) */
	bool in_msg;	   /* a message has begun and not ended */
	bool done;	   /* the last feed ended a message */
	int err;	   /* 0, or the -errno the stream failed with */
	uint8_t hdr;	   /* header field being matched (private) */
	uint8_t match;	   /* bytes of it matched so far (private) */
	bool bad_status;   /* the status code was not 3 digits (private) */
	const char *token; /* request: look for the path prefix "/TOKEN/"
			      (set after ipc_http_parser_init), NULL: no */
	uint8_t tmatch;	   /* bytes of it matched so far (private) */
};

/*
 * Start parsing requests (@request) or responses on a new connection.
 */
void ipc_http_parser_init(struct ipc_http_parser *p, bool request);

/*
 * Feed @len bytes of @buf.  Returns how many were consumed: all of them,
 * or fewer when a message ended inside @buf (then *@done is true and
 * p->msg describes it until the next feed, which begins the next message;
 * feed the rest then).  1xx interim responses are skipped and counted in
 * msg.interim.  Errors: -EBADMSG (not HTTP, or a message that breaks the
 * protocol, such as a bad chunk size or a bad Content-Length), -EMSGSIZE
 * (header section over IPC_HTTP_HDR_MAX), -EPROTO (a 101 Switching
 * Protocols or an Upgrade: this parser speaks HTTP/1.1 only).  After an
 * error the parser stays failed (p->err) until ipc_http_parser_init.
 */
ssize_t ipc_http_feed(struct ipc_http_parser *p, const char *buf, size_t len,
		      bool *done);

/*
 * The connection reached end of stream.  Returns 1 when that ended a
 * message (a response whose body runs to the close, as HTTP/1.0 allows),
 * 0 when no message had begun, or -EPIPE when a message was cut short
 * (p->msg says how far it got: head_done, body_bytes against length).
 */
int ipc_http_eof(struct ipc_http_parser *p);

/*
 * Start the next response as the answer to a HEAD request (@head) or not:
 * call before feeding its first byte.  A HEAD response has no body
 * whatever its Content-Length says.
 */
static inline void ipc_http_expect_head(struct ipc_http_parser *p, bool head)
{
	p->head = head;
}

/* A description of the parser's failure, for an error message. */
const char *ipc_http_strerror(const struct ipc_http_parser *p);

/* What a request looks like; the same bytes are sent every time. */
struct ipc_http_req_spec {
	const char *method;	    /* "GET", "POST", ... */
	const char *host;	    /* Host: value ("example.org:8080") */
	const char *path;	    /* "/index.html?q=1" */
	const char *const *headers; /* "Name: value" lines (-H), or NULL */
	size_t nheaders;
	uint64_t body_bytes; /* a Content-Length body this long, 0: none */
	bool close;	     /* Connection: close (a connection a request) */
};

/*
 * Write the head of the request @s (start line and header fields, ending
 * with the empty line) into @dst (@cap bytes); the caller sends
 * s->body_bytes of body after it.  A header given in s->headers replaces
 * the one this function would write with the same name (Host,
 * User-Agent, Accept, Connection).  Returns the length, -EINVAL with one
 * sentence in @why for a method, path or header that cannot be sent
 * (not a token, a line break in it, Content-Length or Transfer-Encoding
 * given by hand), or -ENOSPC.
 */
ssize_t ipc_http_req_head(char *dst, size_t cap,
			  const struct ipc_http_req_spec *s, char *why,
			  size_t why_len);

/*
 * Check one "Name: value" header as -H gives it: 0, or -EINVAL with one
 * sentence in @why.
 */
int ipc_http_header_check(const char *h, char *why, size_t why_len);

/* What a response head says. */
struct ipc_http_resp_spec {
	unsigned status;     /* 200 */
	bool http10;	     /* answer "HTTP/1.0" (else 1.1) */
	bool chunked;	     /* Transfer-Encoding: chunked, else length */
	uint64_t length;     /* Content-Length (when not chunked) */
	bool keep_alive;     /* the connection stays open after it */
	bool say_keep_alive; /* write Connection: keep-alive (HTTP/1.0
				clients such as ab -k need to see it) */
	const char *date;    /* an IMF-fixdate for the Date field, or NULL */
	const char *type;    /* Content-Type, or NULL */
};

/*
 * Write the head of the response @s into @dst (@cap bytes).  Returns the
 * length, or -ENOSPC.
 */
ssize_t ipc_http_resp_head(char *dst, size_t cap,
			   const struct ipc_http_resp_spec *s);

/* The reason phrase of a status code ("OK", "Bad Request", "" if unknown). */
const char *ipc_http_reason(unsigned status);

/*
 * The size line of a chunk of @len bytes ("3fa\r\n") into @dst (at least
 * 19 bytes).  Returns its length.  A chunk is that line, the bytes, and
 * "\r\n"; the last chunk is "0\r\n\r\n".
 */
size_t ipc_http_chunk_line(char *dst, uint64_t len);

/* The parts of an http:// or https:// URL. */
struct ipc_http_url {
	char host[256];	     /* name or address, IPv6 without brackets */
	char port[8];	     /* "80" when the URL has none */
	char authority[272]; /* host[:port] as the Host field wants it */
	char path[2048];     /* path and query, "/" when the URL has none */
	bool ipv6;	     /* host is an IPv6 literal */
	bool tls;	     /* https:// (port 443 when it has none) */
};

/*
 * Cut @url into @u.  0, or -EINVAL with one sentence in @why (not a URL,
 * a scheme other than http and https, no host, a part too long).
 */
int ipc_http_url_parse(const char *url, struct ipc_http_url *u, char *why,
		       size_t why_len);

/*
 * A client's session with a real GDB stub (gdbserver, a board's stub):
 * negotiation as gdb does it, memory reads and writes into a buffer of the
 * target, every reply checked, and what went wrong counted as data.  The
 * session never kills or resumes the target; closing it puts the buffer's
 * bytes back, so that the next session finds the target as it was.
 *
 *   client (ipcperf)                         stub
 *     $qSupported:multiprocess+;...#xx  ───>
 *                                       <───  +  $PacketSize=47ff;...#xx
 *     +  $QStartNoAckMode#b0            ───>        (unless --ack)
 *                                       <───  +  $OK#9a
 *     +  $?#3f  ...                     ───>        (no acks from here)
 *
 * Bytes move through the caller's functions, so the pattern layer puts its
 * engine under a session and tests a bare descriptor.  Every receive has a
 * deadline: a stub that stops answering is a timeout, never a hang.
 */
struct ipc_rsp_io {
	void *ctx;
	/* Send all @len bytes: 0 or -errno. */
	int (*send)(void *ctx, const void *buf, size_t len);
	/*
	 * Receive up to @len bytes, waiting until @deadline_ns
	 * (CLOCK_MONOTONIC) at most: the count, 0 at end of stream,
	 * -ETIMEDOUT past the deadline, -ECANCELED when asked to stop, or
	 * -errno.
	 */
	ssize_t (*recv)(void *ctx, void *buf, size_t len, uint64_t deadline_ns);
};

struct ipc_rsp_sess_opts {
	bool ack;	     /* keep '+' acks: no QStartNoAckMode (--ack) */
	bool no_binary;	     /* hex m/M even where x/X are supported */
	uint64_t timeout_ns; /* longest wait for one reply, 0: 5 s */
	size_t max_payload;  /* largest request or reply payload, bytes */
	uint64_t buf_addr;   /* the target buffer, 0: below the stack */
	size_t buf_len;	     /* bytes of target memory used, 0: as needed */
};

/* What the stub said about itself. */
struct ipc_rsp_stub_info {
	uint32_t packet_size; /* PacketSize (payload bytes), 0: not said */
	bool can_noack;	      /* QStartNoAckMode+ was listed */
	bool noack;	      /* no-ack mode is on */
	bool multiprocess;    /* pid.tid thread ids */
	bool has_X;	      /* binary writes (X) */
	bool has_x;	      /* binary reads (x) */
	bool x_prefix;	      /* x replies start with 'b' (GDB 16 style) */
	bool binary_write;    /* the session writes with X (else M) */
	bool binary_read;     /* the session reads with x (else m) */
	char arch[48];	      /* from the target description, "" if none */
	uint64_t pid;	      /* of the stopped thread, 0: unknown */
	uint64_t buf_addr;    /* the target buffer used */
	size_t buf_len;	      /* its length */
	bool buf_found;	      /* found below the stack pointer */
	char features[600];   /* the qSupported reply as received (cut) */
};

/* What went wrong, counted over a session (each is data, not a crash). */
struct ipc_rsp_counts {
	uint64_t packets;      /* request packets sent */
	uint64_t replies;      /* reply packets received */
	uint64_t bytes_out;    /* bytes sent, framing and acks included */
	uint64_t bytes_in;     /* bytes received, likewise */
	uint64_t errors;       /* Exx replies */
	uint64_t bad_checksum; /* reply frames with a wrong checksum */
	uint64_t malformed;    /* bad escapes, oversize or unexpected
				  replies (not the shape asked for) */
	uint64_t garbage;      /* bytes outside any packet */
	uint64_t naks;	       /* '-' from the stub: a packet sent again */
	uint64_t timeouts;     /* replies that did not come in time */
	uint64_t mismatches;   /* reads that did not return what was
				  written */
};

struct ipc_rsp_sess;

/*
 * A new session over @io (which must outlive it) with @o.  0 and *out, or
 * -ENOMEM / -EINVAL (max_payload 0).  Nothing is sent yet.
 */
int ipc_rsp_sess_new(struct ipc_rsp_sess **out, const struct ipc_rsp_io *io,
		     const struct ipc_rsp_sess_opts *o);

/* Free @s (NULL: nothing).  Sends nothing: close the session first. */
void ipc_rsp_sess_free(struct ipc_rsp_sess *s);

/*
 * Negotiate (qSupported, QStartNoAckMode unless opts.ack), ask why the
 * target stopped, find the buffer (below the stopped thread's stack
 * pointer unless opts.buf_addr is given), save its bytes, probe X and x,
 * and fill the buffer with the session's pattern.  0, or -errno with one
 * sentence in @err.
 */
int ipc_rsp_sess_open(struct ipc_rsp_sess *s, char *err, size_t err_len);

/*
 * Put the buffer's saved bytes back; with @detach also send D (the target
 * then runs on and a plain gdbserver exits).  Without it the caller's
 * closing the connection is gdb's `disconnect`: the target stays stopped
 * and gdbserver waits for the next client.  0 or -errno.
 */
int ipc_rsp_sess_close(struct ipc_rsp_sess *s, bool detach);

/*
 * Acks on or off from now on, without asking the stub: for a replay that
 * switches them as the recorded conversation did.
 */
void ipc_rsp_sess_set_acks(struct ipc_rsp_sess *s, bool on);

const struct ipc_rsp_stub_info *ipc_rsp_sess_info(const struct ipc_rsp_sess *s);
const struct ipc_rsp_counts *ipc_rsp_sess_counts(const struct ipc_rsp_sess *s);

/*
 * One exchange: send @len bytes of @payload as a packet and wait for the
 * reply packet (acks and resends handled as the mode says).  On 0,
 * *reply and *reply_len hold the reply's decoded payload until the next
 * call.  -ETIMEDOUT (no reply in time), -EBADMSG (a reply frame that
 * breaks the protocol: bad checksum, bad escape, too long), -EPROTO (a
 * resend asked for three times), -ECONNRESET (the stub closed the
 * connection), or -errno from the I/O.  Every failure is also counted.
 */
int ipc_rsp_exchange(struct ipc_rsp_sess *s, const uint8_t *payload, size_t len,
		     const uint8_t **reply, size_t *reply_len);

/*
 * Replay at the protocol level: send @len bytes as they are (a recorded
 * write: a packet, an ack), and receive the next event (a packet, '+' or
 * '-') before @deadline_ns.  ipc_rsp_next returns the event (> 0, the
 * packet's payload in *reply until the next call) or -errno as
 * ipc_rsp_exchange does; garbage between packets is skipped and counted.
 */
int ipc_rsp_send_raw(struct ipc_rsp_sess *s, const uint8_t *bytes, size_t len);
int ipc_rsp_next(struct ipc_rsp_sess *s, uint64_t deadline_ns,
		 const uint8_t **reply, size_t *reply_len);

/*
 * One sample of the request x response matrix against a stub.  A sample
 * is a write packet whose payload is req bytes (X ADDR,LEN:data, or M with
 * hex data), answered "OK", then a read packet whose reply payload is
 * resp bytes (m ADDR,LEN answered by 2 x LEN hex digits, or x answered by
 * LEN bytes): 1 or 2 round trips.  req 0 sends no write; a read is sent
 * when resp > 0 or when there is no write (req 0, resp 0: m ADDR,0, an
 * empty reply).  Where the protocol cannot make a size exactly (a write
 * smaller than its header, an odd reply of hex digits) the nearest one is
 * sent and the sizes below say what went on the wire.
 */
struct ipc_rsp_cell {
	size_t req, resp;  /* asked: payload bytes each way */
	bool write, read;  /* packets in a sample */
	size_t write_len;  /* target bytes written */
	size_t read_len;   /* target bytes read */
	size_t req_wire;   /* payload bytes sent per sample */
	size_t resp_wire;  /* payload bytes received per sample */
	unsigned packets;  /* round trips per sample: 1 or 2 */
	size_t whdr, rlen; /* the write's header, the read packet */
	uint8_t rpkt[40];  /* the read request */
	uint8_t whead[40]; /* the write request's header */
};

/*
 * Plan @c for req x resp bytes on the open session.  0, or -EMSGSIZE
 * (with one sentence in @why) when a packet would not fit the stub's
 * packet size or the buffer.
 */
int ipc_rsp_cell_plan(const struct ipc_rsp_sess *s, size_t req, size_t resp,
		      struct ipc_rsp_cell *c, char *why, size_t why_len);

/*
 * The timed part of sample @seq: the write (its data depends on @seq)
 * and the read, each reply's frame checked and the write's "OK".  0, or
 * -errno as ipc_rsp_exchange, or -EIO for an error reply (Exx), -EPROTO
 * for a reply of another shape (both counted).
 */
int ipc_rsp_cell_run(struct ipc_rsp_sess *s, const struct ipc_rsp_cell *c,
		     uint64_t seq);

/*
 * After every ipc_rsp_cell_run, whatever it returned, when the session
 * goes on (outside the timed interval): note what the write put in the
 * buffer (after a write whose outcome is unknown, write the whole buffer
 * again), and check that the bytes read back equal what the buffer holds.
 * 0, or -EBADMSG (counted as a mismatch, what differs said in @why), or
 * -errno when the buffer could not be written again.
 */
int ipc_rsp_cell_check(struct ipc_rsp_sess *s, const struct ipc_rsp_cell *c,
		       char *why, size_t why_len);

/*
 * The shape of a reply, for replaying a recorded conversation against a
 * live stub where addresses, thread ids and memory differ: its kind and
 * its length, not its bytes.
 */
enum ipc_rsp_kind {
	IPC_RSP_EMPTY = 0, /* "": not supported */
	IPC_RSP_OK,	   /* "OK" */
	IPC_RSP_ERROR,	   /* "Exx", "E.text" */
	IPC_RSP_HEX,	   /* hex digits only: memory, registers */
	IPC_RSP_STOP,	   /* T, S: the target stopped */
	IPC_RSP_EXIT,	   /* W, X: the process exited */
	IPC_RSP_XFER,	   /* qXfer data: 'm' or 'l' and bytes */
	IPC_RSP_FILE,	   /* vFile: "F" result */
	IPC_RSP_OUTPUT,	   /* "O" console output (hex) */
	IPC_RSP_OTHER,	   /* anything else: matched by first byte */
};

struct ipc_rsp_shape {
	enum ipc_rsp_kind kind;
	uint8_t first; /* the first byte (0 when empty) */
	bool last;     /* qXfer: 'l' (the last piece) */
	size_t len;    /* payload bytes */
};

/* The shape of the reply payload @p (@len bytes). */
void ipc_rsp_shape_of(const uint8_t *p, size_t len, struct ipc_rsp_shape *sh);

/*
 * Do @got and @want match structurally: the same kind (and the same first
 * byte for IPC_RSP_OTHER), and lengths of one class: within 16 bytes or a
 * factor of two of each other (so an address or a thread id of another
 * width does not count, a reply of another size does).  See
 * docs/replay.md for what this cannot catch.
 */
bool ipc_rsp_shape_match(const struct ipc_rsp_shape *got,
			 const struct ipc_rsp_shape *want);

/* "OK", "error", "hex", ... for reports. */
const char *ipc_rsp_kind_name(enum ipc_rsp_kind k);

/*
 * Parse a qSupported reply @p (@len bytes) into @info (packet_size,
 * has_X when "X+" is listed, multiprocess, the text in features).  Unknown
 * features are kept in the text and otherwise ignored.  0, or -EBADMSG
 * for a reply that is not a feature list (an error, a PacketSize that is
 * not a number).
 */
int ipc_rsp_parse_supported(const uint8_t *p, size_t len,
			    struct ipc_rsp_stub_info *info);

/*
 * Decode @n bytes of hex digits @hex into @out (n / 2 bytes).  0, or
 * -EBADMSG for an odd count or a character that is not a hex digit.
 */
int ipc_rsp_unhex(const uint8_t *hex, size_t n, uint8_t *out);

/*
 * The client side of a recorded conversation (a GDB remote log) played
 * against a live stub: the client's writes are sent as recorded, except
 * that the recorded process id is replaced by the live one (learned from
 * the live stop reply or qC answer) where a packet names a process or
 * thread, and the checksum made again; each reply is matched with the
 * recorded one by its shape, not its bytes (ipc_rsp_shape_match).
 * Mismatches are counted as data; only a reply that does not come (or a
 * frame that breaks the protocol) fails.
 */
struct ipc_rsp_replay_counts {
	uint64_t matched;	/* replies of the recorded shape */
	uint64_t mismatched;	/* replies of another shape */
	uint64_t cpu_dependent; /* ... to a request whose answer the
				   target's CPU decides (the target
				   description, registers), apart */
	uint64_t acks_missing;	/* a '+' recorded, a packet came */
	uint64_t acks_extra;	/* a '+' that was not recorded */
	uint64_t rewritten;	/* client packets whose ids were replaced */
	uint64_t pieces;	/* requests added by a smaller max packet */
};

struct ipc_rsp_replay;

/*
 * Prepare to play @t over @s (both must outlive the replay).  0 and *out,
 * -ENOMEM, or -EINVAL with one sentence in @err when @t is not a remote
 * protocol conversation (a server write that is neither a packet nor an
 * ack).
 */
int ipc_rsp_replay_new(struct ipc_rsp_replay **out, const struct ipc_trace *t,
		       struct ipc_rsp_sess *s, char *err, size_t err_len);
void ipc_rsp_replay_free(struct ipc_rsp_replay *r);

/*
 * Before a replay, on its connection, untimed: make the stub one that
 * several replays can share.  A recorded session ends by killing its
 * process (vKill), after which a plain gdbserver exits; in extended mode
 * ('!') it stays, and vRun with no file name starts its program again.
 * So: '!', then '?', and when no process is there (W or X) "vRun;",
 * which leaves a new one stopped at its first instruction, as gdbserver
 * PROGRAM does.  In the session's ack mode (acks on a new connection,
 * none after a replay that switched them off).
 * 0 (also when the stub has no extended mode or no program to run: the
 * replay then finds the stub as it is), or -errno from the I/O (a stub
 * that is gone or does not answer).
 */
int ipc_rsp_replay_prepare(struct ipc_rsp_sess *s);

/* A new connection: the live process id is unknown again. */
void ipc_rsp_replay_restart(struct ipc_rsp_replay *r);

/*
 * Read as a client that negotiated a smaller packet size would: a qXfer
 * read or an m read whose reply could be longer than @max_packet payload
 * bytes is asked for in pieces that fit (qXfer:OBJ:read:ANNEX:OFF,LEN
 * with the offset advanced, m with the address advanced) until the stub
 * says it is the last one or all of it came; their sum is matched with
 * the recorded reply.  0: as recorded.
 */
void ipc_rsp_replay_max_packet(struct ipc_rsp_replay *r, uint32_t max_packet);

/* Send client write @i of the trace (ids replaced).  0 or -errno. */
int ipc_rsp_replay_send(struct ipc_rsp_replay *r, size_t i);

/*
 * Receive what answers the server writes [@i, @j) of the trace, each
 * packet matched by shape, before @deadline_ns.  0, or -errno as
 * ipc_rsp_next (-ETIMEDOUT when a recorded reply did not come).
 */
int ipc_rsp_replay_recv(struct ipc_rsp_replay *r, size_t i, size_t j,
			uint64_t deadline_ns);

const struct ipc_rsp_replay_counts *
ipc_rsp_replay_counts(const struct ipc_rsp_replay *r);

/*
 * The first reply of another shape in words ("" when none), a counted
 * mismatch before one the CPU decides: "line LINE:
 * REQUEST: the stub answered KIND (N bytes: \"TEXT\") where the trace has
 * KIND (N bytes)", printable characters only.
 */
const char *ipc_rsp_replay_first(const struct ipc_rsp_replay *r);

/*
 * ipcperf's own GDB stub: the memory part of what gdbserver answers
 * (qSupported, QStartNoAckMode, '?', the target description's
 * architecture, m, M, x, X, D), served from a buffer of this process.
 * It does what a stub must do per packet (framing, checksums, hex
 * encoding, run-length encoding of replies) and nothing underneath (no
 * ptrace), so the same matrix against it and against gdbserver tells
 * what gdbserver adds per packet.  No allocation per packet.
 */
struct ipc_rsp_stub {
	uint8_t *mem; /* the memory served: MEM bytes ... */
	size_t mem_len;
	uint64_t pid;	 /* the id it reports (thread:pPID.PID) */
	uint64_t served; /* packets answered */
	uint8_t *rx, *dec, *reply, *frame; /* buffers */
	size_t cap;			   /* payload bytes the buffers hold */
};

/*
 * Buffers for @mem_len bytes of memory (at least 16 KiB, to hold a
 * buffer 4 KiB below the stack pointer it reports).  0 or -ENOMEM.
 */
int ipc_rsp_stub_init(struct ipc_rsp_stub *st, size_t mem_len);
void ipc_rsp_stub_fini(struct ipc_rsp_stub *st);

/*
 * Answer the client on @io until it leaves: 0 at end of stream or after
 * D, -ECANCELED when asked to stop, -EBADMSG for a frame that breaks the
 * protocol, or -errno from the I/O.  Receives wait without a deadline
 * (UINT64_MAX): the client decides when it is over.
 */
int ipc_rsp_stub_serve(struct ipc_rsp_stub *st, const struct ipc_rsp_io *io);

#ifdef __cplusplus
}
#endif

#endif

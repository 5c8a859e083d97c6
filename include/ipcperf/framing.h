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
	bool request;	 /* parses requests (else responses) */
	bool head;	 /* response: it answers a HEAD (no body follows) */
	bool in_msg;	 /* a message has begun and not ended */
	bool done;	 /* the last feed ended a message */
	int err;	 /* 0, or the -errno the stream failed with */
	uint8_t hdr;	 /* header field being matched (private) */
	uint8_t match;	 /* bytes of it matched so far (private) */
	bool bad_status; /* the status code was not 3 digits (private) */
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

/* The parts of an http:// URL. */
struct ipc_http_url {
	char host[256];	     /* name or address, IPv6 without brackets */
	char port[8];	     /* "80" when the URL has none */
	char authority[272]; /* host[:port] as the Host field wants it */
	char path[2048];     /* path and query, "/" when the URL has none */
	bool ipv6;	     /* host is an IPv6 literal */
};

/*
 * Cut @url into @u.  0, or -EINVAL with one sentence in @why (not a URL,
 * a scheme other than http, no host, a part too long).
 */
int ipc_http_url_parse(const char *url, struct ipc_http_url *u, char *why,
		       size_t why_len);

#ifdef __cplusplus
}
#endif

#endif

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

/* The registry, NULL-terminated, and lookup by name (NULL if none). */
extern const struct ipc_framing_ops *const ipc_framings[];
const struct ipc_framing_ops *ipc_framing_find(const char *name);

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

#ifdef __cplusplus
}
#endif

#endif

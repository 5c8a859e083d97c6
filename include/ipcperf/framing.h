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

#ifdef __cplusplus
}
#endif

#endif

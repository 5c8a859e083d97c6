/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of framing and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/framing.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_FRAMING_LIB_INTERNAL_H
#define IPCPERF_FRAMING_LIB_INTERNAL_H

#include "ipcperf/framing.h"

extern const struct ipc_framing_ops ipc_framing_raw;
extern const struct ipc_framing_ops ipc_framing_len;
extern const struct ipc_framing_ops ipc_framing_rsp;

/* The packet checksum: the sum of the bytes modulo 256. */
unsigned ipc_rsp_checksum(const uint8_t *buf, size_t len);

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

/* A description of the parser's failure, for an error message. */
const char *ipc_http_strerror(const struct ipc_http_parser *p);

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

/*
 * Cut @url into @u.  0, or -EINVAL with one sentence in @why (not a URL,
 * a scheme other than http and https, no host, a part too long).
 */
int ipc_http_url_parse(const char *url, struct ipc_http_url *u, char *why,
		       size_t why_len);

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

/*
 * Start the next response as the answer to a HEAD request (@head) or not:
 * call before feeding its first byte.  A HEAD response has no body
 * whatever its Content-Length says.
 */
static inline void ipc_http_expect_head(struct ipc_http_parser *p, bool head)
{
	p->head = head;
}

/* GDB remote protocol helpers, for tests and trace handling. */

/* Does @c have to be escaped ('}' then c ^ 0x20) in a packet body? */
static inline bool ipc_rsp_must_escape(uint8_t c)
{
	return c == '$' || c == '#' || c == '}' || c == '*';
}

#endif

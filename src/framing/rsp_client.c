/* SPDX-License-Identifier: MIT */
/*
 * A client's session with a real GDB stub: gdb's negotiation, memory
 * packets into a buffer of the stopped target, every reply checked and
 * every problem counted, and the shape of a reply for replays that cannot
 * compare bytes.  The framing itself (checksums, escapes, run-length
 * encoding) is the gdb-rsp framing's encoder and decoder.
 *
 * The buffer: unless given, it lies 4 KiB below the stack pointer of the
 * stopped thread (read from the stop reply, its register number from the
 * target description's architecture), where nothing lives while the
 * thread is stopped.  Its bytes are saved when the session opens and put
 * back when it closes.  Meanwhile it holds the session's pattern: bytes
 * whose two hex digits differ and that need no escape, so that neither
 * side's run-length encoding nor escaping changes a packet's size:
 *
 *   pattern 0x5b 0xc1 0x37 ...  ->  hex "5bc137..." (no run of 3 or more)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/base.h"
#include "ipcperf/framing.h"
#include "rsp_hex.h"
#include "framing/lib_internal.h"

/* A reply is awaited this long unless the options say otherwise. */
#define DEFAULT_TIMEOUT_NS 5000000000ull

/* A packet asked for again ('-') is sent at most this many times. */
#define MAX_TRIES 3

/* Setup reads and writes move this many target bytes per packet. */
#define SETUP_CHUNK 256

/* The buffer lies this far below the stack pointer, bytes. */
#define BELOW_SP 4096

/* Bytes whose hex digits differ and that need no escape: 256 - 16 - 4. */
#define NSAFE 236

struct ipc_rsp_sess {
	struct ipc_rsp_io io;
	struct ipc_rsp_sess_opts o;
	struct ipc_rsp_stub_info info;
	struct ipc_rsp_counts n;
	bool acks;	     /* '+' acks in force */
	uint64_t timeout_ns; /* per reply */
	size_t max_payload;  /* largest payload either way */
	struct ipc_frame_dec d;
	uint8_t *dec; /* decoded reply payload */
	size_t dec_cap;
	uint8_t *rx; /* received bytes not yet decoded */
	size_t rx_cap, rx_off, rx_len;
	bool in_pkt;   /* a '$' was fed, its '#xx' not yet */
	bool pkt_here; /* ... and it began in rx at pkt_start */
	size_t pkt_start;
	uint8_t *frame; /* an encoded request */
	size_t frame_cap;
	uint8_t *payload; /* a request being built */
	size_t payload_cap;
	uint8_t *pat;	 /* the pattern, NSAFE + buf_len bytes */
	uint8_t *hexpat; /* the same as hex digits */
	uint8_t *shadow; /* what the target buffer holds */
	uint8_t *saved;	 /* what it held before the session */
	bool have_saved;
	bool stale;	   /* a write's outcome is unknown */
	bool pend;	   /* the last sample's write got its OK ... */
	size_t pend_at;	   /* ... with the pattern from here */
	bool read_ok;	   /* the last sample's read reply is in dec */
	char addr_hex[20]; /* the buffer's address in hex */
};

int ipc_rsp_unhex(const uint8_t *hex, size_t n, uint8_t *out)
{
	if (n % 2)
		return -EBADMSG;
	for (size_t i = 0; i < n; i += 2) {
		int hi = ipc_esc_hexval(hex[i]),
		    lo = ipc_esc_hexval(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static bool all_hex(const uint8_t *p, size_t n)
{
	return rsp_hex_span(p, n) == n;
}

static bool is_error_reply(const uint8_t *p, size_t n)
{
	return (n == 3 && p[0] == 'E' && all_hex(p + 1, 2)) ||
	       (n >= 2 && p[0] == 'E' && p[1] == '.');
}

static bool is(const uint8_t *p, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(p, s, n);
}

/* The pattern: safe bytes in an order that mixes them. */
static void pattern_fill(uint8_t *pat, size_t len)
{
	uint8_t safe[NSAFE] = {0};
	size_t k = 0;

	for (unsigned v = 0; v < 256; v++)
		if ((v >> 4) != (v & 15) && !ipc_rsp_must_escape((uint8_t)v))
			safe[k++] = (uint8_t)v;
	for (size_t i = 0; i < len; i++)
		pat[i] = safe[(i * 97) % NSAFE]; /* 97 is prime to 236 */
}

int ipc_rsp_sess_new(struct ipc_rsp_sess **out, const struct ipc_rsp_io *io,
		     const struct ipc_rsp_sess_opts *o)
{
	struct ipc_rsp_sess *s;
	size_t p;

	*out = NULL;
	if (!o->max_payload)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->io = *io;
	s->o = *o;
	s->acks = true;
	s->timeout_ns = o->timeout_ns ? o->timeout_ns : DEFAULT_TIMEOUT_NS;
	p = o->max_payload < 256 ? 256 : o->max_payload;
	s->max_payload = p;
	s->info.buf_len = o->buf_len ? o->buf_len : p;
	/* Setup replies (the feature list, a target description) need 8K. */
	s->dec_cap = (p < 8192 ? 8192 : p) + 64;
	s->rx_cap = 2 * s->dec_cap;
	s->payload_cap = 2 * p + 64;
	s->frame_cap = ipc_framing_rsp.frame_max(s->payload_cap);
	s->dec = malloc(s->dec_cap);
	s->rx = malloc(s->rx_cap);
	s->payload = malloc(s->payload_cap);
	s->frame = malloc(s->frame_cap);
	s->pat = malloc(NSAFE + s->info.buf_len);
	s->hexpat = malloc(2 * (NSAFE + s->info.buf_len));
	s->shadow = malloc(s->info.buf_len);
	s->saved = malloc(s->info.buf_len);
	if (!s->dec || !s->rx || !s->payload || !s->frame || !s->pat ||
	    !s->hexpat || !s->shadow || !s->saved) {
		ipc_rsp_sess_free(s);
		return -ENOMEM;
	}
	pattern_fill(s->pat, NSAFE + s->info.buf_len);
	rsp_tohex(s->pat, NSAFE + s->info.buf_len, s->hexpat);
	ipc_framing_rsp.dec_init(&s->d, s->dec, s->dec_cap);
	*out = s;
	return 0;
}

void ipc_rsp_sess_free(struct ipc_rsp_sess *s)
{
	if (!s)
		return;
	free(s->dec);
	free(s->rx);
	free(s->payload);
	free(s->frame);
	free(s->pat);
	free(s->hexpat);
	free(s->shadow);
	free(s->saved);
	free(s);
}

void ipc_rsp_sess_set_acks(struct ipc_rsp_sess *s, bool on)
{
	s->acks = on;
	s->info.noack = !on;
}

const struct ipc_rsp_stub_info *ipc_rsp_sess_info(const struct ipc_rsp_sess *s)
{
	return &s->info;
}

const struct ipc_rsp_counts *ipc_rsp_sess_counts(const struct ipc_rsp_sess *s)
{
	return &s->n;
}

static int sess_send(struct ipc_rsp_sess *s, const uint8_t *buf, size_t len)
{
	int rc = s->io.send(s->io.ctx, buf, len);

	if (!rc)
		s->n.bytes_out += len;
	return rc;
}

int ipc_rsp_send_raw(struct ipc_rsp_sess *s, const uint8_t *bytes, size_t len)
{
	if (len && bytes[0] == '$')
		s->n.packets++;
	return sess_send(s, bytes, len);
}

/*
 * A frame the decoder refused: count it, and go on from the next '$'
 * after the bad frame's start (a body holds no bare '$', so that is the
 * next frame or noise).
 */
static void resync(struct ipc_rsp_sess *s, ssize_t err)
{
	if (err == -EBADMSG && s->d.want <= 0xff &&
	    (s->d.sum & 0xff) != s->d.want)
		s->n.bad_checksum++;
	else
		s->n.malformed++;
	ipc_framing_rsp.dec_init(&s->d, s->dec, s->dec_cap);
	if (s->pkt_here) {
		s->rx_len -= s->pkt_start + 1 - s->rx_off;
		s->rx_off = s->pkt_start + 1;
	}
	s->in_pkt = false;
	s->pkt_here = false;
}

int ipc_rsp_next(struct ipc_rsp_sess *s, uint64_t deadline_ns,
		 const uint8_t **reply, size_t *reply_len)
{
	enum ipc_frame_ev ev;
	ssize_t n;

	for (;;) {
		while (s->rx_len) {
			const uint8_t *p = s->rx + s->rx_off;

			if (!s->in_pkt) {
				/* Skip noise up to a frame or an ack. */
				size_t k = 0;

				while (k < s->rx_len && p[k] != '$' &&
				       p[k] != '+' && p[k] != '-')
					k++;
				s->n.garbage += k;
				s->rx_off += k;
				s->rx_len -= k;
				if (!s->rx_len)
					break;
				p += k;
				if (*p == '$') {
					s->in_pkt = true;
					s->pkt_here = true;
					s->pkt_start = s->rx_off;
					s->d.want = 0x100; /* none read yet */
				}
			}
			n = ipc_framing_rsp.dec_feed(&s->d, p, s->rx_len, &ev);
			if (n < 0) {
				resync(s, n); /* too long breaks it too */
				return -EBADMSG;
			}
			s->rx_off += (size_t)n;
			s->rx_len -= (size_t)n;
			if (ev == IPC_FRAME_MORE)
				continue;
			if (ev == IPC_FRAME_PACKET) {
				s->in_pkt = false;
				s->pkt_here = false;
				s->n.replies++;
				*reply = s->dec;
				*reply_len = s->d.len;
			}
			return (int)ev;
		}
		s->rx_off = 0;
		s->pkt_here = false;
		n = s->io.recv(s->io.ctx, s->rx, s->rx_cap, deadline_ns);
		if (n == -ETIMEDOUT)
			s->n.timeouts++;
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ECONNRESET;
		s->n.bytes_in += (uint64_t)n;
		s->rx_len = (size_t)n;
	}
}

static const uint8_t ack_byte = '+', nak_byte = '-';

int ipc_rsp_exchange(struct ipc_rsp_sess *s, const uint8_t *payload, size_t len,
		     const uint8_t **reply, size_t *reply_len)
{
	uint64_t deadline = ipc_now_ns() + s->timeout_ns;
	size_t flen = ipc_framing_rsp.encode(s->frame, payload, len, 0);
	unsigned tries = 0;
	bool acked = !s->acks;
	int rc;

send:
	if (++tries > MAX_TRIES)
		return -EPROTO;
	rc = ipc_rsp_send_raw(s, s->frame, flen);
	if (rc)
		return rc;
	for (;;) {
		rc = ipc_rsp_next(s, deadline, reply, reply_len);
		if (rc == IPC_FRAME_PACKET)
			break;
		if (rc == IPC_FRAME_ACK) {
			if (acked)
				s->n.garbage++; /* no ack was due */
			acked = true;
			continue;
		}
		if (rc == IPC_FRAME_NAK) {
			s->n.naks++;
			if (!s->acks)
				continue; /* noise: no-ack mode has no '-' */
			goto send;
		}
		if (rc == -EBADMSG && s->acks) {
			/* Ask for it again, as gdb does. */
			if (++tries > MAX_TRIES)
				return -EBADMSG;
			rc = sess_send(s, &nak_byte, 1);
			if (rc)
				return rc;
			continue;
		}
		return rc;
	}
	if (!s->acks)
		return 0;
	/* The reply is in: a stub gone after it (D) is not this one's fault. */
	rc = sess_send(s, &ack_byte, 1);
	return rc == -EPIPE || rc == -ECONNRESET ? 0 : rc;
}

/* One exchange whose payload is the text @req. */
static int ask(struct ipc_rsp_sess *s, const char *req, const uint8_t **r,
	       size_t *rlen)
{
	return ipc_rsp_exchange(s, (const uint8_t *)req, strlen(req), r, rlen);
}

static void say(char *err, size_t err_len, const char *doing, int rc)
{
	snprintf(err, err_len, "%s: %s", doing,
		 rc == -ETIMEDOUT    ? "no reply in time"
		 : rc == -EBADMSG    ? "a reply with a bad checksum or escape"
		 : rc == -ECONNRESET ? "the stub closed the connection"
		 : rc == -EPROTO     ? "the stub asked for the packet again "
				       "three times"
				     : strerror(-rc));
}

int ipc_rsp_parse_supported(const uint8_t *p, size_t len,
			    struct ipc_rsp_stub_info *info)
{
	size_t i = 0, cut;

	if (!len || is_error_reply(p, len))
		return -EBADMSG;
	cut = len < sizeof(info->features) - 1 ? len
					       : sizeof(info->features) - 1;
	memcpy(info->features, p, cut);
	info->features[cut] = '\0';
	while (i < len) {
		const uint8_t *f = p + i;
		const uint8_t *semi = memchr(f, ';', len - i);
		size_t n = semi ? (size_t)(semi - f) : len - i;
		uint64_t v;

		if (n > 11 && !memcmp(f, "PacketSize=", 11)) {
			if (rsp_hex_num(f + 11, n - 11, &v) || !v ||
			    v > UINT32_MAX)
				return -EBADMSG;
			info->packet_size = (uint32_t)v;
		} else if (is(f, n, "QStartNoAckMode+")) {
			info->can_noack = true;
		} else if (is(f, n, "multiprocess+")) {
			info->multiprocess = true;
		} else if (is(f, n, "X+")) {
			info->has_X = true;
		}
		i += n + 1;
	}
	return 0;
}

/*
 * The stack pointer's register number for an architecture named in a
 * target description (GDB's register numbering).
 */
static int sp_regnum(const char *arch)
{
	static const struct {
		const char *arch;
		int sp;
	} tab[] = {
		{"i386:x86-64", 7}, {"i386", 4},       {"aarch64", 31},
		{"arm", 13},	    {"riscv:rv64", 2}, {"riscv", 2},
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(arch, tab[i].arch))
			return tab[i].sp;
	return -1;
}

/* Read the architecture from the target description into info.arch. */
static int read_arch(struct ipc_rsp_sess *s)
{
	const uint8_t *r, *a, *e;
	size_t n;
	int rc = ask(s, "qXfer:features:read:target.xml:0,fff", &r, &n);

	if (rc)
		return rc;
	if (!n || (r[0] != 'm' && r[0] != 'l'))
		return 0; /* no description: arch stays "" */
	a = rsp_find(r, n, "<architecture>");
	if (!a)
		return 0;
	a += strlen("<architecture>");
	e = rsp_find(a, n - (size_t)(a - r), "</architecture>");
	if (!e || (size_t)(e - a) >= sizeof(s->info.arch))
		return 0;
	memcpy(s->info.arch, a, (size_t)(e - a));
	s->info.arch[e - a] = '\0';
	return 0;
}

/* A little-endian register value in hex: @n digits at @p. */
static int le_reg(const uint8_t *p, size_t n, uint64_t *v)
{
	uint8_t b[8];

	if (n % 2 || n > 16 || ipc_rsp_unhex(p, n, b))
		return -1;
	*v = 0;
	for (size_t i = n / 2; i-- > 0;)
		*v = *v << 8 | b[i];
	return 0;
}

/*
 * The stop reply @r (@n bytes): the pid (thread:pPID.TID), and the value
 * of register @reg if it is among the expedited ones.  -1: not a stop.
 */
static int parse_stop(struct ipc_rsp_sess *s, const uint8_t *r, size_t n,
		      int reg, uint64_t *regval, bool *have_reg)
{
	size_t i = 3;

	*have_reg = false;
	if (n < 3 || (r[0] != 'T' && r[0] != 'S') || !all_hex(r + 1, 2))
		return -1;
	while (r[0] == 'T' && i < n) {
		const uint8_t *f = r + i, *semi = memchr(f, ';', n - i);
		size_t len = semi ? (size_t)(semi - f) : n - i;
		const uint8_t *colon = memchr(f, ':', len);
		uint64_t v;

		i += len + 1;
		if (!colon)
			continue;
		if (colon - f == 6 && !memcmp(f, "thread", 6) && len > 8 &&
		    colon[1] == 'p') {
			const uint8_t *dot = memchr(colon + 2, '.', len - 8);
			size_t pl = dot ? (size_t)(dot - colon - 2) : len - 8;

			if (!rsp_hex_num(colon + 2, pl, &v))
				s->info.pid = v;
		} else if (reg >= 0 &&
			   !rsp_hex_num(f, (size_t)(colon - f), &v) &&
			   v == (uint64_t)reg &&
			   !le_reg(colon + 1, len - (size_t)(colon - f) - 1,
				   regval)) {
			*have_reg = true;
		}
	}
	return 0;
}

/* Find the buffer below the stack pointer of the stopped thread. */
static int find_buffer(struct ipc_rsp_sess *s, const uint8_t *stop,
		       size_t stop_len, char *err, size_t err_len)
{
	const uint8_t *r;
	size_t n;
	uint64_t sp = 0;
	bool have = false;
	int reg, rc;
	char req[24];

	rc = read_arch(s);
	if (rc) {
		say(err, err_len, "read the target description", rc);
		return rc;
	}
	reg = sp_regnum(s->info.arch);
	if (reg < 0) {
		snprintf(err, err_len,
			 "cannot find a buffer on a target of architecture "
			 "'%s': give one as gdb://HOST:PORT?addr=ADDRESS",
			 s->info.arch[0] ? s->info.arch : "unknown");
		return -EINVAL;
	}
	parse_stop(s, stop, stop_len, reg, &sp, &have);
	if (!have) {
		snprintf(req, sizeof(req), "p%x", (unsigned)reg);
		rc = ask(s, req, &r, &n);
		if (rc || le_reg(r, n, &sp)) {
			snprintf(err, err_len,
				 "cannot read the stack pointer (register "
				 "%d): give a buffer as "
				 "gdb://HOST:PORT?addr=ADDRESS",
				 reg);
			return rc ? rc : -EPROTO;
		}
	}
	if (sp < BELOW_SP + s->info.buf_len + 64) {
		snprintf(err, err_len,
			 "the stack pointer 0x%llx is too low "
			 "for a buffer below it",
			 (unsigned long long)sp);
		return -EINVAL;
	}
	s->info.buf_addr = (sp - BELOW_SP - s->info.buf_len) & ~(uint64_t)63;
	s->info.buf_found = true;
	return 0;
}

/* Read @len target bytes at buffer offset @off into @out with m. */
static int mem_read(struct ipc_rsp_sess *s, size_t off, size_t len,
		    uint8_t *out)
{
	const uint8_t *r;
	size_t n;
	char req[48];
	int rc;

	snprintf(req, sizeof(req), "m%llx,%zx",
		 (unsigned long long)(s->info.buf_addr + off), len);
	rc = ask(s, req, &r, &n);
	if (rc)
		return rc;
	if (is_error_reply(r, n)) {
		s->n.errors++;
		return -EIO;
	}
	if (n != 2 * len || ipc_rsp_unhex(r, n, out)) {
		s->n.malformed++;
		return -EPROTO;
	}
	return 0;
}

/* Write @len bytes of @in at buffer offset @off with M. */
static int mem_write(struct ipc_rsp_sess *s, size_t off, size_t len,
		     const uint8_t *in)
{
	const uint8_t *r;
	size_t n;
	int h, rc;

	h = snprintf((char *)s->payload, s->payload_cap,
		     "M%llx,%zx:", (unsigned long long)(s->info.buf_addr + off),
		     len);
	rsp_tohex(in, len, s->payload + h);
	rc = ipc_rsp_exchange(s, s->payload, (size_t)h + 2 * len, &r, &n);
	if (rc)
		return rc;
	if (is_error_reply(r, n)) {
		s->n.errors++;
		return -EIO;
	}
	if (!is(r, n, "OK")) {
		s->n.malformed++;
		return -EPROTO;
	}
	return 0;
}

/*
 * Read or write the whole buffer in setup-sized pieces: SETUP_CHUNK bytes,
 * fewer when the stub's PacketSize cannot hold their hex and a header.
 */
static int mem_all(struct ipc_rsp_sess *s, bool write, uint8_t *bytes)
{
	size_t chunk = SETUP_CHUNK;

	if (s->info.packet_size && s->info.packet_size < 2 * SETUP_CHUNK + 40)
		chunk = (s->info.packet_size - 40) / 2;
	for (size_t off = 0; off < s->info.buf_len; off += chunk) {
		size_t len = s->info.buf_len - off < chunk
				     ? s->info.buf_len - off
				     : chunk;
		int rc = write ? mem_write(s, off, len, bytes + off)
			       : mem_read(s, off, len, bytes + off);

		if (rc)
			return rc;
	}
	return 0;
}

/* Probe X and x with zero-length requests, as gdb and lldb do. */
static int probe_binary(struct ipc_rsp_sess *s)
{
	const uint8_t *r;
	size_t n;
	char req[48];
	int rc;

	snprintf(req, sizeof(req), "X%s,0:", s->addr_hex);
	rc = ask(s, req, &r, &n);
	if (rc)
		return rc;
	if (is(r, n, "OK"))
		s->info.has_X = true;
	snprintf(req, sizeof(req), "x%s,0", s->addr_hex);
	rc = ask(s, req, &r, &n);
	if (rc)
		return rc;
	if (is(r, n, "OK") || is(r, n, "b")) {
		s->info.has_x = true;
		s->info.x_prefix = n == 1;
	}
	s->info.binary_write = s->info.has_X && !s->o.no_binary;
	s->info.binary_read = s->info.has_x && !s->o.no_binary;
	return 0;
}

/* What the stub's answer to '?' says when there is no stopped thread. */
static int no_process(const uint8_t *r, size_t n, char *err, size_t err_len)
{
	snprintf(err, err_len,
		 "the stub has no stopped process to read memory of "
		 "(it answered '?' with \"%.*s\")",
		 (int)(n < 40 ? n : 40), (const char *)r);
	return -ESRCH;
}

int ipc_rsp_sess_open(struct ipc_rsp_sess *s, char *err, size_t err_len)
{
	static const char supported[] =
		"qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;"
		"fork-events+;vfork-events+;exec-events+;vContSupported+;"
		"QThreadEvents+;no-resumed+";
	uint8_t stop[1024];
	const uint8_t *r;
	size_t n, stop_len;
	uint64_t dummy;
	bool have;
	int rc;

	/* gdb starts with a '+', in case the stub waits for an ack. */
	rc = sess_send(s, &ack_byte, 1);
	if (!rc)
		rc = ask(s, supported, &r, &n);
	if (rc) {
		say(err, err_len, "qSupported", rc);
		return rc;
	}
	if (ipc_rsp_parse_supported(r, n, &s->info)) {
		snprintf(err, err_len,
			 "qSupported: the stub answered \"%.*s\", not a "
			 "feature list",
			 (int)(n < 40 ? n : 40), (const char *)r);
		return -EPROTO;
	}
	if (s->info.packet_size && s->info.packet_size < 64) {
		snprintf(err, err_len, "the stub's PacketSize %u is too small",
			 s->info.packet_size);
		return -EPROTO;
	}
	if (!s->o.ack && s->info.can_noack) {
		rc = ask(s, "QStartNoAckMode", &r, &n);
		if (rc) {
			say(err, err_len, "QStartNoAckMode", rc);
			return rc;
		}
		if (is(r, n, "OK")) {
			s->acks = false;
			s->info.noack = true;
		}
	}
	rc = ask(s, "?", &r, &n);
	if (rc) {
		say(err, err_len, "'?' (why the target stopped)", rc);
		return rc;
	}
	stop_len = n < sizeof(stop) ? n : sizeof(stop);
	memcpy(stop, r, stop_len);
	if (parse_stop(s, stop, stop_len, -1, &dummy, &have))
		return no_process(stop, stop_len, err, err_len);
	if (s->o.buf_addr) {
		s->info.buf_addr = s->o.buf_addr;
	} else {
		rc = find_buffer(s, stop, stop_len, err, err_len);
		if (rc)
			return rc;
	}
	snprintf(s->addr_hex, sizeof(s->addr_hex), "%llx",
		 (unsigned long long)s->info.buf_addr);
	rc = mem_all(s, false, s->saved);
	if (rc) {
		snprintf(err, err_len,
			 "the stub did not let read %zu bytes at 0x%s (%s): "
			 "give a buffer as gdb://HOST:PORT?addr=ADDRESS",
			 s->info.buf_len, s->addr_hex,
			 rc == -EIO ? "an error reply" : strerror(-rc));
		return rc;
	}
	s->have_saved = true;
	rc = probe_binary(s);
	if (!rc) {
		memcpy(s->shadow, s->pat, s->info.buf_len);
		rc = mem_all(s, true, s->shadow);
	}
	if (rc) {
		say(err, err_len, "fill the buffer", rc);
		return rc;
	}
	return 0;
}

int ipc_rsp_sess_close(struct ipc_rsp_sess *s, bool detach)
{
	const uint8_t *r;
	size_t n;
	char req[32];
	int rc = 0;

	if (s->have_saved) {
		rc = mem_all(s, true, s->saved);
		if (!rc)
			s->have_saved = false;
	}
	if (detach && !rc) {
		if (s->info.multiprocess && s->info.pid)
			snprintf(req, sizeof(req), "D;%llx",
				 (unsigned long long)s->info.pid);
		else
			snprintf(req, sizeof(req), "D");
		rc = ask(s, req, &r, &n);
		if (!rc && !is(r, n, "OK"))
			rc = is_error_reply(r, n) ? -EIO : -EPROTO;
	}
	return rc;
}

/* Hex digits of @v. */
static size_t hex_digits(size_t v)
{
	size_t d = 1;

	while (v >>= 4)
		d++;
	return d;
}

/*
 * The data length of a write whose payload should be @req bytes: header
 * "X" ADDR "," LEN ":" then LEN bytes (or 2 x LEN hex digits).
 */
static size_t write_len_for(size_t req, size_t alen, bool binary)
{
	for (size_t d = 1; d <= 16; d++) {
		size_t hdr = 3 + alen + d, len;

		if (req < hdr)
			break;
		len = binary ? req - hdr : (req - hdr) / 2;
		if (hex_digits(len) <= d)
			return len; /* < d digits: one byte short of req */
	}
	return 0;
}

int ipc_rsp_cell_plan(const struct ipc_rsp_sess *s, size_t req, size_t resp,
		      struct ipc_rsp_cell *c, char *why, size_t why_len)
{
	const struct ipc_rsp_stub_info *in = &s->info;
	size_t alen = strlen(s->addr_hex), limit;
	bool bin_r, stub;

	memset(c, 0, sizeof(*c));
	c->req = req;
	c->resp = resp;
	c->write = req > 0;
	c->read = resp > 0 || !c->write;
	if (c->write) {
		c->write_len = write_len_for(req, alen, in->binary_write);
		c->whdr = (size_t)snprintf(
			(char *)c->whead, sizeof(c->whead),
			"%c%s,%zx:", in->binary_write ? 'X' : 'M', s->addr_hex,
			c->write_len);
		c->req_wire =
			c->whdr + (in->binary_write ? 1 : 2) * c->write_len;
	}
	if (c->read) {
		/* A read of 0 bytes is m ADDR,0 whatever x does. */
		bin_r = in->binary_read && resp > (in->x_prefix ? 1u : 0u);
		if (bin_r)
			c->read_len = resp - (in->x_prefix ? 1 : 0);
		else
			c->read_len = resp / 2;
		c->resp_wire = bin_r ? c->read_len + (in->x_prefix ? 1 : 0)
				     : 2 * c->read_len;
		c->rlen = (size_t)snprintf((char *)c->rpkt, sizeof(c->rpkt),
					   "%c%s,%zx", bin_r ? 'x' : 'm',
					   s->addr_hex, c->read_len);
	}
	c->packets = (unsigned)c->write + (unsigned)c->read;
	stub = in->packet_size && in->packet_size < s->max_payload;
	limit = stub ? in->packet_size : s->max_payload;
	if (c->req_wire > limit || c->resp_wire > limit) {
		snprintf(why, why_len,
			 "req=%zu resp=%zu: a packet of %zu bytes is larger "
			 "than %s (%zu)",
			 req, resp,
			 c->req_wire > c->resp_wire ? c->req_wire
						    : c->resp_wire,
			 stub ? "the stub's PacketSize"
			      : "the largest payload planned for",
			 limit);
		return -EMSGSIZE;
	}
	if (c->write_len > in->buf_len || c->read_len > in->buf_len) {
		snprintf(why, why_len,
			 "req=%zu resp=%zu: more than the buffer's %zu bytes",
			 req, resp, in->buf_len);
		return -EMSGSIZE;
	}
	return 0;
}

/* The reply @r is not the one due: count it.  -EIO or -EPROTO. */
static int wrong_reply(struct ipc_rsp_sess *s, const uint8_t *r, size_t n)
{
	if (is_error_reply(r, n)) {
		s->n.errors++;
		return -EIO;
	}
	s->n.malformed++;
	return -EPROTO;
}

int ipc_rsp_cell_run(struct ipc_rsp_sess *s, const struct ipc_rsp_cell *c,
		     uint64_t seq)
{
	const size_t at = seq % NSAFE;
	const uint8_t *r;
	size_t n, plen;
	int rc;

	s->pend = false;
	s->read_ok = false;
	if (c->write) {
		memcpy(s->payload, c->whead, c->whdr);
		if (s->info.binary_write) {
			memcpy(s->payload + c->whdr, s->pat + at, c->write_len);
			plen = c->whdr + c->write_len;
		} else {
			memcpy(s->payload + c->whdr, s->hexpat + 2 * at,
			       2 * c->write_len);
			plen = c->whdr + 2 * c->write_len;
		}
		rc = ipc_rsp_exchange(s, s->payload, plen, &r, &n);
		if (rc || n != 2 || r[0] != 'O' || r[1] != 'K') {
			s->stale = true; /* written or not: unknown */
			return rc ? rc : wrong_reply(s, r, n);
		}
		s->pend = true;
		s->pend_at = at;
	}
	if (c->read) {
		rc = ipc_rsp_exchange(s, c->rpkt, c->rlen, &r, &n);
		if (rc)
			return rc;
		if (n != c->resp_wire)
			return wrong_reply(s, r, n);
		s->read_ok = true;
	}
	return 0;
}

int ipc_rsp_cell_check(struct ipc_rsp_sess *s, const struct ipc_rsp_cell *c,
		       char *why, size_t why_len)
{
	const uint8_t *got = s->dec;
	size_t k = 0;
	int rc;

	if (s->pend)
		memcpy(s->shadow, s->pat + s->pend_at, c->write_len);
	s->pend = false;
	if (s->stale) {
		/* Write the pattern again: then the buffer is known. */
		memcpy(s->shadow, s->pat, s->info.buf_len);
		rc = mem_all(s, true, s->shadow);
		if (rc) {
			say(why, why_len, "write the buffer again", rc);
			return rc;
		}
		s->stale = false;
		s->read_ok = false;
	}
	if (!s->read_ok || !c->read_len)
		return 0;
	s->read_ok = false;
	if (c->rpkt[0] == 'm') {
		if (ipc_rsp_unhex(s->dec, 2 * c->read_len, s->dec)) {
			s->n.malformed++;
			snprintf(why, why_len,
				 "the reply to %.*s is not hex digits",
				 (int)c->rlen, (const char *)c->rpkt);
			return -EBADMSG;
		}
	} else if (s->info.x_prefix) {
		got++;
	}
	while (k < c->read_len && got[k] == s->shadow[k])
		k++;
	if (k == c->read_len)
		return 0;
	s->n.mismatches++;
	snprintf(why, why_len,
		 "byte %zu read back at 0x%llx is 0x%02x where 0x%02x was "
		 "written",
		 k, (unsigned long long)(s->info.buf_addr + k), got[k],
		 s->shadow[k]);
	return -EBADMSG;
}

void ipc_rsp_shape_of(const uint8_t *p, size_t len, struct ipc_rsp_shape *sh)
{
	memset(sh, 0, sizeof(*sh));
	sh->len = len;
	if (!len) {
		sh->kind = IPC_RSP_EMPTY;
		return;
	}
	sh->first = p[0];
	if (is(p, len, "OK"))
		sh->kind = IPC_RSP_OK;
	else if (is_error_reply(p, len))
		sh->kind = IPC_RSP_ERROR;
	else if ((p[0] == 'T' || p[0] == 'S') && len >= 3 && all_hex(p + 1, 2))
		sh->kind = IPC_RSP_STOP;
	else if ((p[0] == 'W' || p[0] == 'X') && len >= 3 && all_hex(p + 1, 2))
		sh->kind = IPC_RSP_EXIT;
	else if (p[0] == 'F' && len >= 2 && (p[1] == '-' || all_hex(p + 1, 1)))
		sh->kind = IPC_RSP_FILE;
	else if (p[0] == 'O' && len >= 3 && all_hex(p + 1, len - 1))
		sh->kind = IPC_RSP_OUTPUT;
	else if (len % 2 == 0 && all_hex(p, len))
		sh->kind = IPC_RSP_HEX;
	else if (p[0] == 'm' || p[0] == 'l')
		sh->kind = IPC_RSP_XFER;
	else
		sh->kind = IPC_RSP_OTHER;
	sh->last = sh->kind == IPC_RSP_XFER && p[0] == 'l';
}

bool ipc_rsp_shape_match(const struct ipc_rsp_shape *got,
			 const struct ipc_rsp_shape *want)
{
	size_t a = got->len, b = want->len;

	if (got->kind != want->kind)
		return false;
	if (got->kind == IPC_RSP_OTHER && got->first != want->first)
		return false;
	if (got->kind == IPC_RSP_EXIT && got->first != want->first)
		return false;
	return (a > b ? a - b : b - a) <= 16 || (a <= 2 * b && b <= 2 * a);
}

const char *ipc_rsp_kind_name(enum ipc_rsp_kind k)
{
	static const char *const names[] = {
		[IPC_RSP_EMPTY] = "empty",   [IPC_RSP_OK] = "OK",
		[IPC_RSP_ERROR] = "error",   [IPC_RSP_HEX] = "hex",
		[IPC_RSP_STOP] = "stop",     [IPC_RSP_EXIT] = "exit",
		[IPC_RSP_XFER] = "qXfer",    [IPC_RSP_FILE] = "vFile",
		[IPC_RSP_OUTPUT] = "output", [IPC_RSP_OTHER] = "other",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

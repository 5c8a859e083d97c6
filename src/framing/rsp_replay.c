/* SPDX-License-Identifier: MIT */
/*
 * A recorded GDB conversation's client side played against a live stub.
 * Bytes cannot be compared with the recording (addresses, process and
 * thread ids, memory differ), so each reply is matched by its shape, and
 * the client's packets that name the recorded process are made to name the
 * live one, which gdbserver would otherwise refuse, or worse:
 *
 *   recorded   w $vCont;c:p694b.-1#e3      r $T05...;thread:p694b.694b;
 *   live       w $vCont;c:p2545.-1#..      r $T05...;thread:p2545.2545;
 *
 * (gdbserver 13 asserts and dies on a vCont for a process it does not
 * have.)  The live id is learned from the first live reply that names a
 * process: a stop reply's "thread:pPID.TID" or qC's "QCpPID.TID".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "rsp_hex.h"
#include "framing/lib_internal.h"

struct ipc_rsp_replay {
	const struct ipc_trace *t;
	struct ipc_rsp_sess *s;
	struct ipc_rsp_shape *shape; /* per unit: server packets' shapes */
	char rec_pid[17];	     /* the recorded process id, hex, "" */
	char live_pid[17];	     /* the live one, "" until learned */
	uint8_t *body;		     /* a client packet's payload */
	uint8_t *out;		     /* ... with the ids replaced */
	uint8_t *frame;		     /* ... framed */
	size_t cap;
	bool opening;	     /* the last packet sent: vFile:open */
	bool noack_asked;    /* ... QStartNoAckMode */
	uint32_t max_packet; /* 0: read as recorded */
	struct split {
		bool on;	/* the request in flight is in pieces */
		bool xfer;	/* qXfer (else m) */
		char head[256]; /* the request up to OFF (m: "m") */
		uint64_t at;	/* the next piece's offset or address */
		uint64_t left;	/* bytes still to ask for */
		uint64_t got;	/* bytes received */
		size_t piece;	/* bytes per piece */
	} sp;
	long fd_rec[8], fd_live[8]; /* vFile descriptors: recorded, live */
	unsigned nfd;
	bool cpu_dep; /* ... asks for what the target's CPU decides */
	char req[64]; /* ... in words, cut */
	struct ipc_rsp_replay_counts n;
	char first[300];
	bool first_cpu; /* ... is one the CPU decides */
};

/* The process a reply names ("thread:pPID." or "QCpPID") into @pid. */
static bool pid_of(const uint8_t *p, size_t n, char *pid)
{
	const uint8_t *a = rsp_find(p, n, "thread:p");
	size_t k = 0;

	if (a)
		a += 8;
	else if (n > 3 && !memcmp(p, "QCp", 3))
		a = p + 3;
	else
		return false;
	while (a + k < p + n && k < 16 && rsp_is_hex(a[k]))
		k++;
	if (!k || k == 16)
		return false;
	memcpy(pid, a, k);
	pid[k] = '\0';
	return true;
}

/* Decode the recorded packet @raw (@len bytes) into r->body. */
static ssize_t decode(struct ipc_rsp_replay *r, const uint8_t *raw, size_t len)
{
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev;
	ssize_t n;

	ipc_framing_rsp.dec_init(&d, r->body, r->cap);
	n = ipc_framing_rsp.dec_feed(&d, raw, len, &ev);
	if (n < 0 || ev != IPC_FRAME_PACKET)
		return -EBADMSG;
	return (ssize_t)d.len;
}

static bool is_packet(const uint8_t *b, size_t len)
{
	return len >= 4 && b[0] == '$' && b[len - 3] == '#';
}

static bool is_ack(const uint8_t *b, size_t len)
{
	return len == 1 && (b[0] == '+' || b[0] == '-');
}

int ipc_rsp_replay_new(struct ipc_rsp_replay **out, const struct ipc_trace *t,
		       struct ipc_rsp_sess *s, char *err, size_t err_len)
{
	struct ipc_rsp_replay *r;
	int rc = -ENOMEM;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->t = t;
	r->s = s;
	/* Escaped ids can double a payload; the frame doubles it again. */
	r->cap = 2 * t->max_unit + 64;
	r->shape = calloc(t->nunits, sizeof(*r->shape));
	r->body = malloc(r->cap);
	r->out = malloc(r->cap);
	r->frame = malloc(ipc_framing_rsp.frame_max(r->cap));
	if (!r->shape || !r->body || !r->out || !r->frame)
		goto fail;
	for (size_t i = 0; i < t->nunits; i++) {
		const struct ipc_trace_unit *u = &t->units[i];
		const uint8_t *b = t->bytes + u->off;
		ssize_t n;

		if (u->dir != IPC_S2C || is_ack(b, u->len))
			continue;
		n = is_packet(b, u->len) ? decode(r, b, u->len) : -EBADMSG;
		if (n < 0) {
			snprintf(err, err_len,
				 "%s:%u: the stub's write is not a remote "
				 "protocol packet with a good checksum, so "
				 "it cannot be matched with a live stub's",
				 t->path, u->line);
			rc = -EINVAL;
			goto fail;
		}
		ipc_rsp_shape_of(r->body, (size_t)n, &r->shape[i]);
		if (!r->rec_pid[0])
			pid_of(r->body, (size_t)n, r->rec_pid);
	}
	*out = r;
	return 0;
fail:
	if (rc == -ENOMEM)
		snprintf(err, err_len, "out of memory");
	ipc_rsp_replay_free(r);
	return rc;
}

/* Is @p (@n bytes) exactly the text @s? */
static bool is_text(const uint8_t *p, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(p, s, n);
}

int ipc_rsp_replay_prepare(struct ipc_rsp_sess *s)
{
	const uint8_t *r;
	size_t n;
	int rc;

	rc = ipc_rsp_exchange(s, (const uint8_t *)"!", 1, &r, &n);
	if (rc || !is_text(r, n, "OK"))
		return rc; /* no extended mode: nothing more to do */
	rc = ipc_rsp_exchange(s, (const uint8_t *)"?", 1, &r, &n);
	if (rc || !n || (r[0] != 'W' && r[0] != 'X'))
		return rc; /* a process is there (or an error to replay) */
	/* A stop reply, or an error when it has no program: either way. */
	return ipc_rsp_exchange(s, (const uint8_t *)"vRun;", 5, &r, &n);
}

void ipc_rsp_replay_free(struct ipc_rsp_replay *r)
{
	if (!r)
		return;
	free(r->shape);
	free(r->body);
	free(r->out);
	free(r->frame);
	free(r);
}

void ipc_rsp_replay_restart(struct ipc_rsp_replay *r)
{
	r->live_pid[0] = '\0';
	r->nfd = 0;
	r->opening = false;
	r->cpu_dep = false;
	r->req[0] = '\0';
	r->noack_asked = false;
	r->sp.on = false;
}

void ipc_rsp_replay_max_packet(struct ipc_rsp_replay *r, uint32_t max_packet)
{
	r->max_packet = max_packet;
}

/* The next piece's request into r->out: its length. */
static size_t piece_req(struct ipc_rsp_replay *r)
{
	uint64_t len = r->sp.left < r->sp.piece ? r->sp.left : r->sp.piece;

	return (size_t)snprintf((char *)r->out, r->cap, "%s%llx,%llx",
				r->sp.head, (unsigned long long)r->sp.at,
				(unsigned long long)len);
}

/*
 * Is the request in r->out (@n bytes) a read whose reply may exceed the
 * max packet?  Then start asking in pieces: the first piece's request
 * replaces it in r->out; its length, or 0 when it stays as it is.
 */
static size_t split(struct ipc_rsp_replay *r, size_t n)
{
	const uint8_t *b = r->out, *comma, *colon = NULL;
	uint64_t at, len;
	size_t head, piece;

	r->sp.on = false;
	if (!r->max_packet || n < 4)
		return 0;
	if (n > 6 && !memcmp(b, "qXfer:", 6) && rsp_find(b, n, ":read:")) {
		for (size_t k = 0; k < n; k++)
			if (b[k] == ':')
				colon = b + k;
		head = (size_t)(colon - b) + 1;
		piece = r->max_packet - 1; /* 'm' or 'l' and the data */
	} else if (b[0] == 'm') {
		head = 1;
		piece = r->max_packet / 2; /* two hex digits a byte */
	} else {
		return 0;
	}
	comma = memchr(b + head, ',', n - head);
	if (!comma || head >= sizeof(r->sp.head) ||
	    rsp_hex_num(b + head, (size_t)(comma - b) - head, &at) ||
	    rsp_hex_num(comma + 1, n - (size_t)(comma + 1 - b), &len) ||
	    len <= piece || !piece)
		return 0;
	memcpy(r->sp.head, b, head);
	r->sp.head[head] = '\0';
	r->sp.xfer = b[0] == 'q';
	r->sp.at = at;
	r->sp.left = len;
	r->sp.got = 0;
	r->sp.piece = piece;
	r->sp.on = true;
	return piece_req(r);
}

const struct ipc_rsp_replay_counts *
ipc_rsp_replay_counts(const struct ipc_rsp_replay *r)
{
	return &r->n;
}

const char *ipc_rsp_replay_first(const struct ipc_rsp_replay *r)
{
	return r->first;
}

/*
 * Replace the recorded pid by the live one in @n bytes of payload, where
 * a whole hex token follows 'p' (pPID.TID), '.' (a TID equal to the
 * PID, as in a single-threaded process), ':' or ';' (qAttached:PID,
 * vKill;PID, D;PID).  Data packets are left alone.  The new length, or 0
 * when nothing was replaced.
 */
static size_t rewrite(struct ipc_rsp_replay *r, size_t n)
{
	const uint8_t *b = r->body;
	size_t rl = strlen(r->rec_pid), ll = strlen(r->live_pid), o = 0;
	bool any = false;

	if (!n || b[0] == 'X' || b[0] == 'M' ||
	    (n > 6 && !memcmp(b, "vFile:", 6)) ||
	    (n > 5 && !memcmp(b, "qRcmd", 5)))
		return 0;
	for (size_t i = 0; i < n;) {
		if (i && strchr("p.:;", b[i - 1]) && i + rl <= n &&
		    !memcmp(b + i, r->rec_pid, rl) &&
		    (i + rl == n || !rsp_is_hex(b[i + rl]))) {
			memcpy(r->out + o, r->live_pid, ll);
			o += ll;
			i += rl;
			any = true;
			continue;
		}
		r->out[o++] = b[i++];
	}
	return any ? o : 0;
}

/*
 * vFile:setfs:PID (hex) makes the stub open files in that process's
 * mount namespace, as gdb asks with its default sysroot "target:"; with
 * the recorded pid gdbserver fails every open after it (F-1, errno 22 or
 * 3).  Make it the live one; setfs:0 (the stub's own) stays.  The new
 * length, or 0 when nothing was replaced.
 */
static size_t rewrite_setfs(struct ipc_rsp_replay *r, size_t n)
{
	static const char verb[] = "vFile:setfs:";
	size_t v = sizeof(verb) - 1, rl = strlen(r->rec_pid);

	if (n != v + rl || memcmp(r->body, verb, v) ||
	    memcmp(r->body + v, r->rec_pid, rl))
		return 0;
	memcpy(r->out, verb, v);
	memcpy(r->out + v, r->live_pid, strlen(r->live_pid));
	return v + strlen(r->live_pid);
}

/*
 * A vFile:open or vFile:readlink of a path under /proc names the process
 * in decimal, hex-encoded: "/proc/26881/task/26881/maps" (gdb reads the
 * live process's mappings so).  Replace "/REC/" (or a final "/REC") by
 * the live pid there.  The new length, or 0 when nothing was replaced.
 */
static size_t rewrite_path(struct ipc_rsp_replay *r, size_t n)
{
	static const char *const verbs[] = {"vFile:open:", "vFile:readlink:"};
	char path[512], rec[24], live[24], *q;
	const uint8_t *b = r->body;
	size_t v = 0, plen, end, o;
	unsigned long long rp = strtoull(r->rec_pid, NULL, 16);
	unsigned long long lp = strtoull(r->live_pid, NULL, 16);
	bool any = false;

	for (size_t k = 0; k < 2 && !v; k++)
		if (n > strlen(verbs[k]) &&
		    !memcmp(b, verbs[k], strlen(verbs[k])))
			v = strlen(verbs[k]);
	for (end = v; end < n && rsp_is_hex(b[end]); end++)
		;
	plen = (end - v) / 2;
	if (!v || plen >= sizeof(path) ||
	    ipc_rsp_unhex(b + v, end - v, (uint8_t *)path))
		return 0;
	path[plen] = '\0';
	snprintf(rec, sizeof(rec), "/%llu", rp);
	snprintf(live, sizeof(live), "/%llu", lp);
	memcpy(r->out, b, v);
	o = v;
	for (q = path; *q;) {
		size_t rl = strlen(rec);

		if (!strncmp(q, rec, rl) && (q[rl] == '/' || !q[rl])) {
			for (const char *l = live; *l; l++, o += 2)
				snprintf((char *)r->out + o, 3, "%02x",
					 (unsigned char)*l);
			q += rl;
			any = true;
			continue;
		}
		snprintf((char *)r->out + o, 3, "%02x", (unsigned char)*q++);
		o += 2;
	}
	memcpy(r->out + o, b + end, n - end);
	return any ? o + n - end : 0;
}

/*
 * A vFile:pread, pwrite, close or fstat names a descriptor the live stub
 * numbered differently ("F3" recorded, "F6" live): use the live one.  The
 * new length, or 0 when nothing was replaced.
 */
static size_t rewrite_fd(struct ipc_rsp_replay *r, size_t n)
{
	static const char *const verbs[] = {"vFile:pread:", "vFile:pwrite:",
					    "vFile:close:", "vFile:fstat:"};
	const uint8_t *b = r->body;
	size_t v = 0, e;
	long fd;
	int k;

	for (size_t i = 0; i < 4 && !v; i++)
		if (n > strlen(verbs[i]) &&
		    !memcmp(b, verbs[i], strlen(verbs[i])))
			v = strlen(verbs[i]);
	for (e = v; e < n && rsp_is_hex(b[e]); e++)
		;
	if (!v || e == v || e - v > 8)
		return 0;
	fd = (long)strtoul((const char *)b + v, NULL, 16);
	for (k = (int)r->nfd - 1; k >= 0 && r->fd_rec[k] != fd; k--)
		;
	if (k < 0 || r->fd_live[k] == fd)
		return 0;
	memcpy(r->out, b, v);
	v += (size_t)sprintf((char *)r->out + v, "%lx", r->fd_live[k]);
	memcpy(r->out + v, b + e, n - e);
	return v + n - e;
}

/*
 * Which requests a CPU decides the answer to: the target description
 * (qXfer:features:read:, whose XML and annexes list the registers the CPU
 * has, AVX-512's or not) and the register reads and writes it sizes (g, G,
 * p, P).  A trace recorded on a CPU with AVX-512 asks for parts of a
 * description that a CPU without it does not have.
 */
static bool cpu_decides(const uint8_t *b, size_t n)
{
	static const char xfer[] = "qXfer:features:read:";

	if (n >= sizeof(xfer) - 1 && !memcmp(b, xfer, sizeof(xfer) - 1))
		return true;
	return n &&
	       (b[0] == 'g' || b[0] == 'G' ||
		((b[0] == 'p' || b[0] == 'P') && n > 1 && rsp_is_hex(b[1])));
}

/* Bytes @p (@n) as text for a message: '?' for what would not print. */
static void printable(char *dst, size_t cap, const uint8_t *p, size_t n)
{
	size_t k;

	for (k = 0; k < n && k + 1 < cap; k++)
		dst[k] = p[k] >= 0x20 && p[k] < 0x7f && p[k] != '"' ? (char)p[k]
								    : '?';
	if (cap)
		dst[k] = '\0';
}

/* The request about to go out (r->body, @n bytes): what its reply is. */
static void note_request(struct ipc_rsp_replay *r, size_t n)
{
	r->cpu_dep = cpu_decides(r->body, n);
	printable(r->req, n + 1 < sizeof(r->req) ? n + 1 : sizeof(r->req),
		  r->body, n);
}

/* Is the payload in r->body (@n bytes) a vFile:open? */
static bool is_open(const struct ipc_rsp_replay *r, size_t n)
{
	return n > 11 && !memcmp(r->body, "vFile:open:", 11);
}

/* Live reply @p to a vFile:open recorded as unit @i: map the numbers. */
static void note_fd(struct ipc_rsp_replay *r, size_t i, const uint8_t *p,
		    size_t n)
{
	const struct ipc_trace_unit *u = &r->t->units[i];
	char rec[16] = "", live[16] = "";
	ssize_t m = decode(r, r->t->bytes + u->off, u->len);

	r->opening = false;
	if (m < 2 || n < 2 || r->body[0] != 'F' || p[0] != 'F' ||
	    (size_t)m >= sizeof(rec) || n >= sizeof(live) ||
	    r->nfd == sizeof(r->fd_rec) / sizeof(r->fd_rec[0]))
		return;
	memcpy(rec, r->body + 1, (size_t)m - 1);
	memcpy(live, p + 1, n - 1);
	if (rec[0] == '-' || live[0] == '-')
		return;
	r->fd_rec[r->nfd] = (long)strtoul(rec, NULL, 16);
	r->fd_live[r->nfd++] = (long)strtoul(live, NULL, 16);
}

int ipc_rsp_replay_send(struct ipc_rsp_replay *r, size_t i)
{
	const struct ipc_trace_unit *u = &r->t->units[i];
	const uint8_t *b = r->t->bytes + u->off;
	bool other = r->live_pid[0] && strcmp(r->rec_pid, r->live_pid);
	ssize_t n;
	size_t m = 0, k;

	r->sp.on = false;
	if (!is_packet(b, u->len))
		return ipc_rsp_send_raw(r->s, b, u->len);
	n = decode(r, b, u->len);
	if (n <= 0)
		return ipc_rsp_send_raw(r->s, b, u->len);
	r->opening = is_open(r, (size_t)n);
	note_request(r, (size_t)n);
	r->noack_asked = n == 15 && !memcmp(r->body, "QStartNoAckMode", 15);
	if (other)
		m = rewrite(r, (size_t)n);
	if (!m && other)
		m = rewrite_setfs(r, (size_t)n);
	if (!m && other)
		m = rewrite_path(r, (size_t)n);
	if (!m && r->nfd)
		m = rewrite_fd(r, (size_t)n);
	if (m)
		r->n.rewritten++;
	else
		memcpy(r->out, r->body, (size_t)n);
	k = split(r, m ? m : (size_t)n);
	if (!m && !k)
		return ipc_rsp_send_raw(r->s, b, u->len);
	return ipc_rsp_send_raw(
		r->s, r->frame,
		ipc_framing_rsp.encode(r->frame, r->out, k ? k : m, 0));
}

/*
 * A live reply of shape @got answers recorded unit @i.  One of another
 * shape is a mismatch, or, to a request whose answer the CPU decides,
 * counted apart; the first mismatch (else the first of the others) is
 * said in words: the request, what came, what the trace has.
 */
static void match_shape(struct ipc_rsp_replay *r, size_t i,
			const struct ipc_rsp_shape *got, const uint8_t *p,
			size_t n)
{
	const struct ipc_rsp_shape *want = &r->shape[i];
	char came[28];

	if (ipc_rsp_shape_match(got, want)) {
		r->n.matched++;
		return;
	}
	if (r->cpu_dep)
		r->n.cpu_dependent++;
	else
		r->n.mismatched++;
	/* A counted mismatch says more than one the CPU decides. */
	if (r->first[0] && (!r->first_cpu || r->cpu_dep))
		return;
	r->first_cpu = r->cpu_dep;
	printable(came, sizeof(came), p, n);
	snprintf(r->first, sizeof(r->first),
		 "line %u: %s: the stub answered %s%s (%zu bytes: \"%s\") "
		 "where the trace has %s%s (%zu bytes)%s",
		 r->t->units[i].line, r->req[0] ? r->req : "(no request)",
		 ipc_rsp_kind_name(got->kind), got->last ? ", last" : "",
		 got->len, came, ipc_rsp_kind_name(want->kind),
		 want->last ? ", last" : "", want->len,
		 r->cpu_dep ? "; not counted: the target's CPU decides it"
			    : "");
}

/*
 * The reply @p (@n bytes) to a piece: add it up.  True when another
 * piece is due.
 */
static bool piece_in(struct ipc_rsp_replay *r, const uint8_t *p, size_t n)
{
	uint64_t data;

	if (r->sp.xfer) {
		if (!n || (p[0] != 'm' && p[0] != 'l'))
			return false;
		data = n - 1;
		if (p[0] == 'l')
			r->sp.left = 0;
	} else {
		if (n % 2 || rsp_hex_span(p, n) != n)
			return false;
		data = n / 2;
	}
	r->sp.got += data;
	r->sp.at += data;
	r->sp.left = data < r->sp.left ? r->sp.left - data : 0;
	return r->sp.left && data;
}

/* The live reply @p (@n bytes) answers recorded unit @i. */
static int match(struct ipc_rsp_replay *r, size_t i, const uint8_t *p, size_t n)
{
	struct ipc_rsp_shape got;
	int rc;

	if (!r->live_pid[0] && r->rec_pid[0])
		pid_of(p, n, r->live_pid);
	if (r->opening)
		note_fd(r, i, p, n);
	if (r->noack_asked && n == 2 && !memcmp(p, "OK", 2))
		ipc_rsp_sess_set_acks(r->s, false);
	ipc_rsp_shape_of(p, n, &got);
	if (r->sp.on && piece_in(r, p, n)) {
		do {
			size_t q = piece_req(r);

			r->n.pieces++;
			rc = ipc_rsp_exchange(r->s, r->out, q, &p, &n);
			if (rc)
				return rc;
		} while (piece_in(r, p, n));
		/* The pieces stand for one reply of their sum. */
		got.len = r->sp.xfer ? 1 + r->sp.got : 2 * r->sp.got;
		got.last = got.last || (n && p[0] == 'l');
	}
	r->sp.on = false;
	match_shape(r, i, &got, p, n);
	return 0;
}

int ipc_rsp_replay_recv(struct ipc_rsp_replay *r, size_t i, size_t j,
			uint64_t deadline_ns)
{
	const uint8_t *p;
	size_t n;
	int ev = 0;
	bool have = false; /* a packet came while an ack was due */

	for (size_t k = i; k < j; k++) {
		const struct ipc_trace_unit *u = &r->t->units[k];
		const uint8_t *b = r->t->bytes + u->off;

		if (is_ack(b, u->len)) {
			ev = ipc_rsp_next(r->s, deadline_ns, &p, &n);
			if (ev < 0)
				return ev;
			if (ev != IPC_FRAME_PACKET)
				continue; /* '+' or '-': as recorded */
			r->n.acks_missing++;
			/* The packet answers the next recorded one. */
			while (k + 1 < j &&
			       is_ack(r->t->bytes + u[1].off, u[1].len)) {
				k++;
				u++;
			}
			if (k + 1 == j) {
				r->n.mismatched++;
				return 0;
			}
			k++;
			have = true;
		}
		while (!have) {
			ev = ipc_rsp_next(r->s, deadline_ns, &p, &n);
			if (ev < 0)
				return ev;
			if (ev == IPC_FRAME_PACKET)
				break;
			r->n.acks_extra++;
		}
		have = false;
		ev = match(r, k, p, n);
		if (ev)
			return ev;
	}
	return 0;
}

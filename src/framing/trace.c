/* SPDX-License-Identifier: MIT */
/*
 * Recorded conversations for `ipcperf replay`: GDB's remotelogfile and a
 * native format, both read into one list of writes.  GDB logs one line per
 * run of bytes in one direction; a real client or stub writes an ack and a
 * packet separately, so every line is cut at packet boundaries:
 *
 *   r +$OK#9a           ->  server writes "+", then "$OK#9a"
 *   w +$qTStatus#49     ->  client writes "+", then "$qTStatus#49"
 *
 * The formats are described in docs/replay.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "ipcperf/base.h"
#include "ipcperf/framing.h"
#include "base/lib_internal.h"
#include "framing/lib_internal.h"

/* Largest trace file read, to refuse a wrong file quickly: 256 MiB. */
#define TRACE_FILE_MAX (256u << 20)

/* A trace being built. */
struct tb {
	struct ipc_trace *t;
	size_t bcap, ucap;
};

static int tb_init(struct tb *b, const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t n;

	memset(b, 0, sizeof(*b));
	b->t = calloc(1, sizeof(*b->t));
	if (!b->t)
		return -ENOMEM;
	b->t->path = strdup(path);
	if (!b->t->path)
		return -ENOMEM;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n >= sizeof(b->t->name))
		n = sizeof(b->t->name) - 1;
	memcpy(b->t->name, base, n);
	b->t->name[n] = '\0';
	return 0;
}

/* Room for one more unit; 0 or -ENOMEM. */
static int tb_unit_room(struct tb *b)
{
	struct ipc_trace *t = b->t;

	if (t->nunits == b->ucap) {
		size_t cap = b->ucap ? 2 * b->ucap : 256;
		void *p = reallocarray(t->units, cap, sizeof(*t->units));

		if (!p)
			return -ENOMEM;
		t->units = p;
		b->ucap = cap;
	}
	return 0;
}

/* A write of the @len bytes already stored at @off. */
static int tb_ref(struct tb *b, enum ipc_dir dir, size_t off, size_t len,
		  uint64_t think_ns, uint32_t line)
{
	struct ipc_trace_unit *u;
	int rc = tb_unit_room(b);

	if (rc)
		return rc;
	u = &b->t->units[b->t->nunits++];
	u->off = off;
	u->len = len;
	u->think_ns = think_ns;
	u->line = line;
	u->dir = (uint8_t)dir;
	return 0;
}

/* A write of @len new bytes, copied into the store. */
static int tb_add(struct tb *b, enum ipc_dir dir, const uint8_t *bytes,
		  size_t len, uint64_t think_ns, uint32_t line)
{
	struct ipc_trace *t = b->t;
	int rc;

	if (!len)
		return 0;
	if (t->nbytes + len > b->bcap) {
		size_t cap = b->bcap ? b->bcap : 4096;
		void *p;

		while (cap < t->nbytes + len)
			cap *= 2;
		p = realloc(t->bytes, cap);
		if (!p)
			return -ENOMEM;
		t->bytes = p;
		b->bcap = cap;
	}
	rc = tb_ref(b, dir, t->nbytes, len, think_ns, line);
	if (rc)
		return rc;
	memcpy(t->bytes + t->nbytes, bytes, len);
	t->nbytes += len;
	return 0;
}

/* Counts and checks once every write is in.  0 or -EINVAL with @err. */
static int tb_finish(struct tb *b, char *err, size_t err_len)
{
	struct ipc_trace *t = b->t;

	if (!t->nunits) {
		snprintf(err, err_len, "%s: no bytes to replay", t->path);
		return -EINVAL;
	}
	if (t->units[0].dir != IPC_C2S) {
		snprintf(err, err_len,
			 "%s:%u: the conversation starts with the server's "
			 "bytes; a replay starts with the client's",
			 t->path, t->units[0].line);
		return -EINVAL;
	}
	for (size_t i = 0; i < t->nunits; i++) {
		const struct ipc_trace_unit *u = &t->units[i];

		if (u->dir == IPC_C2S)
			t->bytes_c2s += u->len;
		else
			t->bytes_s2c += u->len;
		if (u->len > t->max_unit)
			t->max_unit = u->len;
		t->think_ns += u->think_ns;
		if (u->dir == IPC_S2C && t->units[i - 1].dir == IPC_C2S)
			t->exchanges++;
	}
	return 0;
}

static void tb_fail(struct tb *b)
{
	ipc_trace_free(b->t);
	b->t = NULL;
}

/*
 * Where the remote-protocol write that starts at @b[i] ends: one '+',
 * '-' or ^C; a $...#xx packet or %...#xx notification (an escape or a
 * run-length pair skipped whole, so a '#' inside one does not end it);
 * anything else up to where one of those starts.
 */
static size_t rsp_unit_end(const uint8_t *b, size_t i, size_t n)
{
	size_t j;

	if (b[i] == '+' || b[i] == '-' || b[i] == 0x03)
		return i + 1;
	if (b[i] == '$' || b[i] == '%') {
		for (j = i + 1; j < n; j++) {
			if (b[j] == '}' || b[j] == '*')
				j++;
			else if (b[j] == '#')
				return j + 3 < n ? j + 3 : n;
		}
		return n;
	}
	for (j = i + 1; j < n; j++)
		if (b[j] == '+' || b[j] == '-' || b[j] == '$' || b[j] == '%' ||
		    b[j] == 0x03)
			break;
	return j;
}

/* GDB's markers for events that carry no bytes ("<Timeout: 2 seconds>"). */
static size_t gdb_marker(const char *s, size_t n)
{
	static const char *const fixed[] = {"<Eof>", "<Break>"};
	const char *end;

	for (size_t i = 0; i < 2; i++)
		if (n >= strlen(fixed[i]) &&
		    !strncmp(s, fixed[i], strlen(fixed[i])))
			return strlen(fixed[i]);
	if ((n > 10 && !strncmp(s, "<Timeout: ", 10)) ||
	    (n > 8 && !strncmp(s, "<Error: ", 8))) {
		end = memchr(s, '>', n);
		return end ? (size_t)(end - s) + 1 : 0;
	}
	return 0;
}

/* GDB's remotelogfile escapes: C's, and \xHH for the rest. */
static const struct ipc_esc_table gdb_escapes = {
	.from = "\\bfnrtv",
	.to = "\\\b\f\n\r\t\v",
	.n = 7,
	.skip = gdb_marker,
};

static int parse_gdb(struct tb *b, const char *text, size_t len, char *err,
		     size_t err_len)
{
	const char *p = text, *end = text + len;
	uint8_t *buf = NULL;
	char why[96];
	uint32_t line = 0;
	int rc = 0;

	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *s = p;
		enum ipc_dir dir;
		ssize_t got;

		p = nl ? nl + 1 : end;
		line++;
		if (n && s[n - 1] == '\r')
			n--; /* a CRLF file: GDB writes a CR as "\r" */
		if (!n || (n == 10 && !strncmp(s, "End of log", 10)))
			continue;
		if (s[0] == 'c' && (n == 1 || s[1] == ' '))
			continue; /* a command typed at the gdb prompt */
		if ((s[0] != 'w' && s[0] != 'r') || (n > 1 && s[1] != ' ')) {
			snprintf(err, err_len,
				 "%s:%u: a line of a GDB remote log starts "
				 "with 'w ', 'r ' or 'c ', not '%.*s'",
				 b->t->path, line, n > 12 ? 12 : (int)n, s);
			rc = -EINVAL;
			break;
		}
		dir = s[0] == 'w' ? IPC_C2S : IPC_S2C;
		got = n > 2 ? ipc_esc_decode(&gdb_escapes, s + 2, n - 2, NULL,
					     buf, why, sizeof(why))
			    : 0;
		if (got < 0) {
			snprintf(err, err_len, "%s:%u: %s", b->t->path, line,
				 why);
			rc = -EINVAL;
			break;
		}
		for (size_t i = 0; i < (size_t)got && !rc;) {
			size_t j = rsp_unit_end(buf, i, (size_t)got);

			rc = tb_add(b, dir, buf + i, j - i, 0, line);
			i = j;
		}
		if (rc)
			break;
	}
	free(buf);
	return rc;
}

/* A native-format string: "..." with \\ \" \n \r \t \0 \xHH escapes. */
static const struct ipc_esc_table native_escapes = {
	.from = "\\\"nrt0",
	.to = "\\\"\n\r\t\0",
	.n = 6,
	.end = '"',
};

static ssize_t native_string(const char *s, size_t n, size_t *used,
			     uint8_t *out, char *err, size_t err_len)
{
	ssize_t got;

	if (!n || s[0] != '"') {
		snprintf(err, err_len, "expected the bytes in double quotes");
		return -1;
	}
	got = ipc_esc_decode(&native_escapes, s + 1, n - 1, used, out, err,
			     err_len);
	if (got >= 0)
		*used += 1; /* the opening quote */
	return got;
}

/* "@1.25" seconds since the start, as ns. */
static int native_time(const char *s, size_t n, size_t *used, uint64_t *ns)
{
	char buf[32], *e;
	size_t k = 1;
	double x;

	while (k < n && s[k] != ' ' && s[k] != '\t')
		k++;
	if (k - 1 == 0 || k - 1 >= sizeof(buf))
		return -1;
	memcpy(buf, s + 1, k - 1);
	buf[k - 1] = '\0';
	x = strtod(buf, &e);
	if (*e || e == buf || !(x >= 0) || x > 1e6)
		return -1;
	*ns = (uint64_t)(x * 1e9 + 0.5);
	*used = k;
	return 0;
}

static int parse_native(struct tb *b, const char *text, size_t len, char *err,
			size_t err_len)
{
	const char *p = text, *end = text + len;
	uint8_t *buf = NULL;
	char why[96];
	uint32_t line = 0;
	uint64_t prev_ts = 0;
	bool have_prev = false;
	int rc = 0;

	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), k, used;
		const char *s = p;
		enum ipc_dir dir;
		uint64_t ts = 0, think = 0;
		ssize_t got;

		p = nl ? nl + 1 : end;
		line++;
		while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' ||
			     s[n - 1] == '\t'))
			n--;
		k = 0;
		while (k < n && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k == n || s[k] == '#')
			continue;
		if (s[k] != '>' && s[k] != '<') {
			snprintf(why, sizeof(why),
				 "a record starts with '>' (client to server) "
				 "or '<' (server to client)");
			goto bad;
		}
		dir = s[k] == '>' ? IPC_C2S : IPC_S2C;
		for (k++; k < n && (s[k] == ' ' || s[k] == '\t'); k++)
			;
		if (k < n && s[k] == '@') {
			if (native_time(s + k, n - k, &used, &ts)) {
				snprintf(why, sizeof(why),
					 "bad timestamp (seconds, such as "
					 "@0.0125)");
				goto bad;
			}
			if (have_prev && ts < prev_ts) {
				snprintf(why, sizeof(why),
					 "timestamp goes back in time");
				goto bad;
			}
			if (have_prev)
				think = ts - prev_ts;
			prev_ts = ts;
			have_prev = true;
			for (k += used; k < n && (s[k] == ' ' || s[k] == '\t');
			     k++)
				;
		}
		got = native_string(s + k, n - k, &used, buf, why, sizeof(why));
		if (got < 0)
			goto bad;
		if (k + used != n) {
			snprintf(why, sizeof(why),
				 "text after the closing '\"'");
			goto bad;
		}
		if (!got) {
			snprintf(why, sizeof(why), "an empty write");
			goto bad;
		}
		rc = tb_add(b, dir, buf, (size_t)got, think, line);
		continue;
bad:
		snprintf(err, err_len, "%s:%u: %s", b->t->path, line, why);
		rc = -EINVAL;
	}
	free(buf);
	return rc;
}

int ipc_trace_parse(const char *path, const char *text, size_t len,
		    struct ipc_trace **out, char *err, size_t err_len)
{
	struct tb b;
	const char *p = text, *end = text + len;
	int rc;

	*out = NULL;
	rc = tb_init(&b, path);
	if (rc) {
		tb_fail(&b);
		return rc;
	}
	/* The first line that is not blank says which format this is. */
	while (p < end && (*p == '\n' || *p == '\r' || *p == ' ' || *p == '\t'))
		p++;
	if (p + 1 < end && (*p == 'w' || *p == 'r' || *p == 'c') &&
	    p[1] == ' ') {
		b.t->gdb = true;
		rc = parse_gdb(&b, text, len, err, err_len);
	} else {
		rc = parse_native(&b, text, len, err, err_len);
	}
	if (!rc)
		rc = tb_finish(&b, err, err_len);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, err_len, "%s: out of memory", path);
		tb_fail(&b);
		return rc;
	}
	*out = b.t;
	return 0;
}

int ipc_trace_load(const char *path, struct ipc_trace **out, char *err,
		   size_t err_len)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	rc = ipc_file_read(path, TRACE_FILE_MAX, &text, &len, err, err_len);
	if (rc)
		return rc;
	rc = ipc_trace_parse(path, text, len, out, err, err_len);
	free(text);
	return rc;
}

/* Is unit @u a whole $...#xx packet? */
static bool is_packet(const struct ipc_trace *t, const struct ipc_trace_unit *u)
{
	const uint8_t *b = t->bytes + u->off;

	return u->len >= 4 && b[0] == '$' && b[u->len - 3] == '#';
}

/* Length of the body token at @b[i]: an escape pair or a char, and a run. */
static size_t body_token(const uint8_t *b, size_t i, size_t n)
{
	size_t k = b[i] == '}' && i + 1 < n ? 2 : 1;

	if (i + k + 1 < n && b[i + k] == '*')
		k += 2;
	return k;
}

/* Add "$" @body "#xx" to @b. */
static int add_packet(struct tb *b, enum ipc_dir dir, const uint8_t *body,
		      size_t len, uint32_t line, uint8_t *scratch)
{
	static const char hexdig[] = "0123456789abcdef";
	unsigned sum = ipc_rsp_checksum(body, len);

	scratch[0] = '$';
	memcpy(scratch + 1, body, len);
	scratch[len + 1] = '#';
	scratch[len + 2] = (uint8_t)hexdig[sum >> 4];
	scratch[len + 3] = (uint8_t)hexdig[sum & 15];
	return tb_add(b, dir, scratch, len + 4, 0, line);
}

/*
 * A split writes the client's request again for each piece, and an ack
 * each way: those point at bytes the new trace already holds (the
 * request where it was copied, one stored '+'), so a reply cut into
 * thousands of pieces costs a frame and a few units per piece, not a copy
 * of the request each (a 200 KB trace cut at 16 bytes took
 * 614 MB).
 */
struct splitter {
	struct tb b;
	size_t req_off, req_len; /* the request being answered, stored */
	size_t ack_off;		 /* a stored '+', or SIZE_MAX */
	uint8_t *scratch;	 /* one piece's frame */
};

static int add_ack(struct splitter *sp, enum ipc_dir dir, uint32_t line)
{
	static const uint8_t ack = '+';

	if (sp->ack_off != SIZE_MAX)
		return tb_ref(&sp->b, dir, sp->ack_off, 1, 0, line);
	sp->ack_off = sp->b.t->nbytes;
	return tb_add(&sp->b, dir, &ack, 1, 0, line);
}

/* The request again, acked as the trace acks: before a further piece. */
static int add_repeat(struct splitter *sp, bool acked, uint32_t line)
{
	int rc = acked ? add_ack(sp, IPC_C2S, line) : 0;

	if (!rc)
		rc = tb_ref(&sp->b, IPC_C2S, sp->req_off, sp->req_len, 0, line);
	if (!rc && acked)
		rc = add_ack(sp, IPC_S2C, line);
	return rc;
}

/* Server packet @u (body @body, @blen bytes) in pieces of @max_packet. */
static int split_reply(struct splitter *sp, const struct ipc_trace_unit *u,
		       const uint8_t *body, size_t blen, uint32_t max_packet,
		       bool acked)
{
	size_t start = 0, k = 0;
	int rc = 0;

	/* The first piece answers the original request, each further one a
	   repeat of it. */
	while (k < blen && !rc) {
		size_t tok = body_token(body, k, blen);

		if (k > start && k - start + tok > max_packet) {
			if (start)
				rc = add_repeat(sp, acked, u->line);
			if (!rc)
				rc = add_packet(&sp->b, IPC_S2C, body + start,
						k - start, u->line,
						sp->scratch);
			start = k;
		}
		k += tok;
	}
	if (!rc && start)
		rc = add_repeat(sp, acked, u->line);
	if (!rc)
		rc = add_packet(&sp->b, IPC_S2C, body + start, blen - start,
				u->line, sp->scratch);
	return rc;
}

int ipc_trace_split(const struct ipc_trace *t, uint32_t max_packet,
		    struct ipc_trace **out)
{
	struct splitter sp = {.ack_off = SIZE_MAX};
	bool asked = false, group_acked = false;
	char err[8];
	int rc;

	*out = NULL;
	rc = tb_init(&sp.b, t->path);
	if (rc)
		goto fail;
	sp.scratch = malloc(t->max_unit + 8);
	if (!sp.scratch) {
		rc = -ENOMEM;
		goto fail;
	}
	sp.b.t->gdb = t->gdb;
	snprintf(sp.b.t->name, sizeof(sp.b.t->name), "%s", t->name);
	for (size_t i = 0; i < t->nunits && !rc; i++) {
		const struct ipc_trace_unit *u = &t->units[i];
		const uint8_t *body = t->bytes + u->off + 1;
		size_t blen = u->len - 4;

		if (u->dir == IPC_C2S && is_packet(t, u)) {
			asked = true;
			sp.req_off = sp.b.t->nbytes;
			sp.req_len = u->len;
		}
		if (u->dir == IPC_S2C && (i == 0 || u[-1].dir == IPC_C2S))
			group_acked = u->len == 1 && t->bytes[u->off] == '+';
		if (u->dir != IPC_S2C || !asked || !is_packet(t, u) ||
		    blen <= max_packet)
			rc = tb_add(&sp.b, (enum ipc_dir)u->dir,
				    t->bytes + u->off, u->len, u->think_ns,
				    u->line);
		else
			rc = split_reply(&sp, u, body, blen, max_packet,
					 group_acked);
	}
	if (!rc)
		rc = tb_finish(&sp.b, err, sizeof(err));
	if (rc)
		goto fail;
	sp.b.t->max_packet = max_packet;
	free(sp.scratch);
	*out = sp.b.t;
	return 0;
fail:
	free(sp.scratch);
	tb_fail(&sp.b);
	return rc ? rc : -ENOMEM;
}

void ipc_trace_free(struct ipc_trace *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->bytes);
	free(t->units);
	free(t);
}

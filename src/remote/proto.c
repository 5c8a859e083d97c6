/* SPDX-License-Identifier: MIT */
/*
 * Control messages: one table per message type lists its fields, their
 * JSON types and limits; the parser and the encoder both walk it, so what
 * is accepted and what is sent cannot drift apart.  Every value is checked
 * for its JSON type and range before it is stored.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "remote/remote_internal.h"
#include "base/lib_internal.h"

/* Defined here, below wire.c, which parses through this file. */
void rm_strlcpy(char *dst, const char *s, size_t len)
{
	size_t n = ipc_text_cut(s, len - 1);

	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Kinds of field. */
enum fkind {
	F_U64,	/* integer 0..max */
	F_I64,	/* integer -1..max */
	F_BOOL, /* true or false */
	F_STR,	/* printable string, shorter than the C buffer */
	F_HEX,	/* exactly size bytes as 2 * size hex digits */
	F_CODE, /* an error code's name */
	F_HOST, /* an object of scalars (the server's fingerprint) */
	F_B64,	/* base64 of 1 to size bytes, into data and data_len */
};

#define OPT (1u << 0)	  /* may be absent (the default stays) */
#define IF_AUTH (1u << 1) /* present exactly when m->auth */
#define NO_NEG (1u << 2)  /* F_I64 stored signed, but never -1 */
#define IF_SET                                                                 \
	(1u << 3) /* F_BOOL sent only when true: a later field,
			     which a server without it would refuse */

struct field {
	const char *name;
	enum fkind kind;
	unsigned flags;
	size_t off;  /* into struct ipc_rmsg */
	size_t size; /* C size: buffer bytes (F_STR), bytes (F_HEX) */
	uint64_t max;
};

#define M(f) offsetof(struct ipc_rmsg, f)
#define SZ(f) sizeof(((struct ipc_rmsg *)0)->f)
#define U64(n, f, fl, mx)                                                      \
	{                                                                      \
		n, F_U64, fl, M(f), 0, mx                                      \
	}
#define STR(n, f, fl)                                                          \
	{                                                                      \
		n, F_STR, fl, M(f), SZ(f), 0                                   \
	}
#define HEX(n, f, fl)                                                          \
	{                                                                      \
		n, F_HEX, fl, M(f), SZ(f), 0                                   \
	}
#define BOOL(n, f, fl)                                                         \
	{                                                                      \
		n, F_BOOL, fl, M(f), 0, 0                                      \
	}

/*
 * Limits a client may ask for.  Sizes bound the buffers a test process
 * allocates (two per side of 64 MiB at most); flows bound its
 * descriptors.  Counts and times only bound how long a test may go on,
 * which --max-test bounds anyway.
 */
#define SIZE_MAX_B (64ull << 20)
#define TOTAL_MAX_B (1ull << 40)
#define COUNT_MAX (1ull << 32)
#define FLOWS_MAX 10000ull
#define RUNS_MAX 100000ull
#define NS_MAX (86400ull * 1000000000)
#define BIG (1ull << 62)

static const struct field hello_f[] = {
	U64("proto", proto, 0, 1u << 20),
	STR("software", software, 0),
	{0},
};

static const struct field welcome_f[] = {
	U64("proto", proto, 0, 1u << 20),
	STR("software", software, 0),
	BOOL("auth", auth, 0),
	HEX("challenge", nonce, IF_AUTH),
	{0},
};

static const struct field auth_f[] = {
	HEX("nonce", nonce, 0),
	HEX("mac", mac, 0),
	{0},
};

static const struct field auth_ok_f[] = {
	HEX("mac", mac, 0),
	{0},
};

static const struct field test_f[] = {
	STR("pattern", test.pattern, 0),
	STR("transport", test.transport, 0),
	STR("engine", test.engine, OPT),
	STR("framing", test.framing, OPT),
	BOOL("no_ack", test.no_ack, OPT),
	U64("req_size", test.req_size, OPT, SIZE_MAX_B),
	U64("resp_size", test.resp_size, OPT, SIZE_MAX_B),
	U64("msg_size", test.msg_size, OPT, SIZE_MAX_B),
	U64("count", test.count, OPT, COUNT_MAX),
	U64("total", test.total, OPT, TOTAL_MAX_B),
	U64("chunk_size", test.chunk_size, OPT, SIZE_MAX_B),
	U64("flows", test.flows, OPT, FLOWS_MAX),
	U64("runs", test.runs, OPT, RUNS_MAX),
	BOOL("verify", test.verify, OPT),
	{"pin_cpu", F_I64, OPT, M(test.pin_cpu), 0, 4095},
	BOOL("nodelay", test.nodelay, OPT),
	U64("sndbuf", test.sndbuf, OPT, 1u << 30),
	U64("rcvbuf", test.rcvbuf, OPT, 1u << 30),
	U64("busy_poll_us", test.busy_poll_us, OPT, 1000000),
	U64("timeout_ns", test.timeout_ns, OPT, NS_MAX),
	U64("trace_bytes", test.trace_bytes, OPT, IPC_REMOTE_TRACE_MAX),
	BOOL("explain", test.explain, OPT | IF_SET),
	{0},
};

static const struct field trace_f[] = {
	{"data", F_B64, 0, M(data), SZ(data), 0},
	{0},
};

static const struct field accept_f[] = {
	U64("test_id", test_id, 0, BIG),
	HEX("cookie", cookie, 0),
	U64("data_port", data_port, 0, 65535),
	U64("max_test_ns", max_test_ns, 0, BIG),
	U64("running", running, 0, BIG),
	{0},
};

static const struct field run_f[] = {
	U64("run", run, 0, RUNS_MAX),
	{0},
};

static const struct field stats_f[] = {
	U64("run", stats.run, 0, RUNS_MAX),
	U64("user_ns", stats.user_ns, 0, BIG),
	U64("sys_ns", stats.sys_ns, 0, BIG),
	U64("vcsw", stats.vcsw, 0, BIG),
	U64("ivcsw", stats.ivcsw, 0, BIG),
	U64("messages", stats.messages, 0, BIG),
	U64("bytes", stats.bytes, 0, BIG),
	U64("others", stats.others, 0, BIG),
	U64("rejected", stats.rejected, 0, BIG),
	{"err", F_I64, NO_NEG, M(stats.err), 0, 4095},
	STR("what", stats.what, OPT),
	{"explain", F_HOST, OPT, M(stats.explain), SZ(stats.explain), 0},
	{0},
};

static const struct field none_f[] = {
	{0},
};

static const struct field bye_f[] = {
	{"host", F_HOST, OPT, M(host), SZ(host), 0},
	{0},
};

static const struct field error_f[] = {
	{"code", F_CODE, 0, M(code), 0, 0},
	STR("message", message, 0),
	U64("running", running, OPT, BIG),
	{0},
};

static const struct {
	const char *name;
	const struct field *fields;
} types[IPC_RM_COUNT] = {
	[IPC_RM_HELLO] = {"hello", hello_f},
	[IPC_RM_AUTH] = {"auth", auth_f},
	[IPC_RM_TEST] = {"test", test_f},
	[IPC_RM_RUN] = {"run", run_f},
	[IPC_RM_RUN_END] = {"run_end", run_f},
	[IPC_RM_DONE] = {"done", none_f},
	[IPC_RM_TRACE] = {"trace", trace_f},
	[IPC_RM_WELCOME] = {"welcome", welcome_f},
	[IPC_RM_AUTH_OK] = {"auth_ok", auth_ok_f},
	[IPC_RM_ACCEPT] = {"accept", accept_f},
	[IPC_RM_READY] = {"ready", run_f},
	[IPC_RM_RUN_STATS] = {"run_stats", stats_f},
	[IPC_RM_BYE] = {"bye", bye_f},
	[IPC_RM_ERROR] = {"error", error_f},
};

static const char *const rerr_names[IPC_RERR_COUNT] = {
	[IPC_RERR_PROTOCOL] = "protocol", [IPC_RERR_VERSION] = "version",
	[IPC_RERR_AUTH] = "auth",	  [IPC_RERR_BUSY] = "busy",
	[IPC_RERR_REFUSED] = "refused",	  [IPC_RERR_TIMEOUT] = "timeout",
	[IPC_RERR_STOPPING] = "stopping", [IPC_RERR_FAILED] = "failed",
	[IPC_RERR_ABORT] = "abort",
};

const char *ipc_rerr_name(enum ipc_rerr code)
{
	return (unsigned)code < IPC_RERR_COUNT ? rerr_names[code] : NULL;
}

const char *ipc_rmsg_name(enum ipc_rmsg_type t)
{
	return (unsigned)t < IPC_RM_COUNT ? types[t].name : NULL;
}

__attribute__((format(printf, 3, 4))) static int fail(char *why, size_t why_len,
						      const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EPROTO;
}

/*
 * No control characters: C0 (below U+0020), DEL, and C1 (U+0080 to
 * U+009F, 0xc2 0x80..0x9f in UTF-8, which some terminals obey as escape
 * sequences), since these strings end up in logs and on terminals.
 * jansson has already refused invalid UTF-8.
 */
static bool printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return false;
	return true;
}

/* Exactly 2 * n hex digits into n bytes (libsodium's decoder). */
static bool unhex(const char *s, size_t slen, uint8_t *out, size_t n)
{
	size_t got = 0;
	const char *end = NULL;

	return slen == 2 * n &&
	       sodium_hex2bin(out, n, s, slen, NULL, &got, &end) == 0 &&
	       got == n && end == s + slen;
}

/* The server's fingerprint: a flat object of at most 40 scalars. */
static int take_host(const char *name, json_t *v, char *dst, size_t size,
		     char *why, size_t why_len)
{
	const char *k;
	json_t *x;
	char *text;
	size_t n;

	if (json_object_size(v) > 40)
		return fail(why, why_len, "'%s' has more than 40 fields", name);
	json_object_foreach(v, k, x)
	{
		if (json_is_object(x) || json_is_array(x))
			return fail(why, why_len,
				    "'%s.%s' is not a string, number, boolean "
				    "or null",
				    name, k);
		if (!printable(k) ||
		    (json_is_string(x) && !printable(json_string_value(x))))
			return fail(why, why_len,
				    "'%s' holds a control character", name);
	}
	text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return -ENOMEM;
	n = strlen(text);
	if (n >= size) {
		free(text);
		return fail(why, why_len, "'%s' is longer than %zu bytes", name,
			    size - 1);
	}
	memcpy(dst, text, n + 1);
	free(text);
	return 0;
}

static int take(const struct field *f, json_t *v, struct ipc_rmsg *m, char *why,
		size_t why_len)
{
	char *p = (char *)m + f->off;
	json_int_t i;
	int lo;
	const char *s, *end = NULL;
	size_t slen;

	switch (f->kind) {
	case F_U64:
	case F_I64:
		if (!json_is_integer(v))
			return fail(why, why_len, "'%s' is not an integer",
				    f->name);
		i = json_integer_value(v);
		lo = f->kind == F_I64 && !(f->flags & NO_NEG) ? -1 : 0;
		if (i < lo || (i >= 0 && (uint64_t)i > f->max))
			return fail(why, why_len,
				    "'%s' is %lld, outside %d..%llu", f->name,
				    (long long)i, lo,
				    (unsigned long long)f->max);
		if (f->kind == F_U64)
			*(uint64_t *)p = (uint64_t)i;
		else
			*(int64_t *)p = (int64_t)i;
		return 0;
	case F_BOOL:
		if (!json_is_boolean(v))
			return fail(why, why_len, "'%s' is not true or false",
				    f->name);
		*(bool *)p = json_is_true(v);
		return 0;
	case F_HOST:
		if (!json_is_object(v))
			return fail(why, why_len, "'%s' is not an object",
				    f->name);
		return take_host(f->name, v, p, f->size, why, why_len);
	default:
		break;
	}
	if (!json_is_string(v))
		return fail(why, why_len, "'%s' is not a string", f->name);
	s = json_string_value(v);
	slen = json_string_length(v);
	switch (f->kind) {
	case F_STR:
		/* Empty is absent, as the encoder writes it: the default. */
		if (!slen && (f->flags & OPT))
			return 0;
		if (slen >= f->size)
			return fail(why, why_len,
				    "'%s' is longer than %zu bytes", f->name,
				    f->size - 1);
		if (!printable(s))
			return fail(why, why_len,
				    "'%s' holds a control character", f->name);
		memset(p, 0, f->size);
		memcpy(p, s, slen);
		return 0;
	case F_HEX:
		if (!unhex(s, slen, (uint8_t *)p, f->size))
			return fail(why, why_len, "'%s' is not %zu hex digits",
				    f->name, 2 * f->size);
		return 0;
	case F_B64:
		if (sodium_base642bin((uint8_t *)p, f->size, s, slen, NULL,
				      &m->data_len, &end,
				      sodium_base64_VARIANT_ORIGINAL) ||
		    end != s + slen || m->data_len == 0)
			return fail(why, why_len,
				    "'%s' is not base64 of 1 to %zu bytes",
				    f->name, f->size);
		return 0;
	case F_CODE:
		for (int c = 0; c < IPC_RERR_COUNT; c++)
			if (!strcmp(s, rerr_names[c])) {
				*(enum ipc_rerr *)p = (enum ipc_rerr)c;
				return 0;
			}
		return fail(why, why_len, "'%s' is an unknown error code",
			    f->name);
	default:
		return fail(why, why_len, "'%s': bad field table", f->name);
	}
}

static void defaults(struct ipc_rmsg *m)
{
	memset(m, 0, sizeof(*m));
	rm_strlcpy(m->test.engine, "blocking", sizeof(m->test.engine));
	m->test.verify = true;
	m->test.nodelay = true;
	m->test.pin_cpu = -1;
}

static const struct field *find(const struct field *fs, const char *name)
{
	for (; fs->name; fs++)
		if (!strcmp(fs->name, name))
			return fs;
	return NULL;
}

static int parse_obj(json_t *root, struct ipc_rmsg *m, char *why,
		     size_t why_len)
{
	const struct field *fs, *f;
	json_t *t, *v;
	const char *k;
	int rc, ti;

	if (!json_is_object(root))
		return fail(why, why_len, "a message is not a JSON object");
	t = json_object_get(root, "type");
	if (!t)
		return fail(why, why_len, "the message has no 'type'");
	if (!json_is_string(t))
		return fail(why, why_len, "'type' is not a string");
	for (ti = 1; ti < IPC_RM_COUNT; ti++)
		if (!strcmp(json_string_value(t), types[ti].name))
			break;
	if (ti == IPC_RM_COUNT)
		return fail(why, why_len, "unknown message type '%.32s'",
			    printable(json_string_value(t))
				    ? json_string_value(t)
				    : "(unprintable)");
	m->type = (enum ipc_rmsg_type)ti;
	fs = types[ti].fields;
	json_object_foreach(root, k, v)
	{
		if (!strcmp(k, "type"))
			continue;
		f = find(fs, k);
		if (!f)
			return fail(why, why_len, "unknown field '%.32s' in %s",
				    printable(k) ? k : "(unprintable)",
				    types[ti].name);
		rc = take(f, v, m, why, why_len);
		if (rc)
			return rc;
	}
	for (f = fs; f->name; f++) {
		bool need = f->flags & IF_AUTH ? m->auth : !(f->flags & OPT);

		if (need && !json_object_get(root, f->name))
			return fail(why, why_len, "%s without '%s'",
				    types[ti].name, f->name);
		if ((f->flags & IF_AUTH) && !m->auth &&
		    json_object_get(root, f->name))
			return fail(why, why_len,
				    "%s has '%s' but no authentication",
				    types[ti].name, f->name);
	}
	return 0;
}

int ipc_rmsg_parse(const void *buf, size_t len, struct ipc_rmsg *m, char *why,
		   size_t why_len)
{
	json_error_t jerr;
	json_t *root;
	int rc;

	defaults(m);
	if (len > IPC_REMOTE_MSG_MAX) {
		fail(why, why_len,
		     "a message of %zu bytes is over the cap of %u", len,
		     IPC_REMOTE_MSG_MAX);
		return -EMSGSIZE;
	}
	/*
	 * Duplicated keys are refused by jansson itself; nesting is bounded
	 * by its parser (JSON_PARSER_MAX_DEPTH, 2048) and our cap on size.
	 */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(why, why_len, "not valid JSON: %s at byte %d",
			    jerr.text, jerr.position);
	rc = parse_obj(root, m, why, why_len);
	json_decref(root);
	if (rc)
		m->type = IPC_RM_NONE;
	return rc;
}

static json_t *field_json(const struct field *f, const struct ipc_rmsg *m)
{
	const char *p = (const char *)m + f->off;
	char hex[2 * 64 + 1];

	switch (f->kind) {
	case F_U64:
		return json_integer((json_int_t) * (const uint64_t *)p);
	case F_I64:
		return json_integer((json_int_t) * (const int64_t *)p);
	case F_BOOL:
		return json_boolean(*(const bool *)p);
	case F_STR:
		return json_string(p);
	case F_HEX:
		sodium_bin2hex(hex, sizeof(hex), (const uint8_t *)p, f->size);
		return json_string(hex);
	case F_CODE:
		return json_string(ipc_rerr_name(*(const enum ipc_rerr *)p));
	case F_HOST:
		return json_loads(p, 0, NULL);
	case F_B64: {
		size_t n = sodium_base64_ENCODED_LEN(
			m->data_len, sodium_base64_VARIANT_ORIGINAL);
		char *b = malloc(n);
		json_t *v;

		if (!b || m->data_len > f->size) {
			free(b);
			return NULL;
		}
		sodium_bin2base64(b, n, (const uint8_t *)p, m->data_len,
				  sodium_base64_VARIANT_ORIGINAL);
		v = json_string(b);
		free(b);
		return v;
	}
	}
	return NULL;
}

/* Optional fields left out when they hold nothing. */
static bool omitted(const struct field *f, const struct ipc_rmsg *m)
{
	const char *p = (const char *)m + f->off;

	if (f->flags & IF_AUTH)
		return !m->auth;
	if (f->flags & IF_SET)
		return !*(const bool *)p;
	if (!(f->flags & OPT))
		return false;
	if (f->kind == F_STR || f->kind == F_HOST)
		return !*p;
	return false;
}

int ipc_rmsg_encode(const struct ipc_rmsg *m, void *buf, size_t cap)
{
	const struct field *f;
	json_t *root, *v;
	size_t n;
	uint32_t be;
	int rc = -ENOMEM;

	if (m->type <= IPC_RM_NONE || m->type >= IPC_RM_COUNT)
		return -EINVAL;
	root = json_object();
	if (!root ||
	    json_object_set_new(root, "type", json_string(types[m->type].name)))
		goto out;
	for (f = types[m->type].fields; f->name; f++) {
		if (omitted(f, m))
			continue;
		v = field_json(f, m);
		if (!v || json_object_set_new(root, f->name, v))
			goto out;
	}
	rc = -EMSGSIZE;
	if (cap < 4)
		goto out;
	n = json_dumpb(root, (char *)buf + 4, cap - 4, JSON_COMPACT);
	if (n == 0 || n > cap - 4 || n > IPC_REMOTE_MSG_MAX)
		goto out;
	be = htonl((uint32_t)n);
	memcpy(buf, &be, 4);
	rc = (int)(n + 4);
out:
	json_decref(root);
	return rc;
}

void ipc_rframe_init(struct ipc_rframe *f, size_t max)
{
	memset(f, 0, sizeof(*f));
	f->max = max;
}

void ipc_rframe_reset(struct ipc_rframe *f)
{
	size_t max = f->max;

	free(f->body);
	ipc_rframe_init(f, max);
}

int ipc_rframe_feed(struct ipc_rframe *f, const uint8_t *p, size_t n,
		    size_t *used)
{
	size_t k;

	*used = 0;
	if (f->hdr_got < 4) {
		k = 4 - f->hdr_got < n ? 4 - f->hdr_got : n;
		memcpy(f->hdr + f->hdr_got, p, k);
		f->hdr_got += k;
		*used = k;
		if (f->hdr_got < 4)
			return 0;
		f->len = (uint32_t)f->hdr[0] << 24 | (uint32_t)f->hdr[1] << 16 |
			 (uint32_t)f->hdr[2] << 8 | f->hdr[3];
		/* Refused before a byte of the body is allocated. */
		if (f->len == 0 || f->len > f->max)
			return -EMSGSIZE;
		f->body = malloc(f->len);
		if (!f->body)
			return -ENOMEM;
		p += k;
		n -= k;
	}
	k = f->len - f->body_got < n ? f->len - f->body_got : n;
	memcpy(f->body + f->body_got, p, k);
	f->body_got += k;
	*used += k;
	return f->body_got == f->len;
}

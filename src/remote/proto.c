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
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "remote/remote_internal.h"
#include "base/field.h"
#include "base/lib_internal.h"

/* Defined here, below wire.c, which parses through this file. */
void rm_strlcpy(char *dst, const char *s, size_t len)
{
	size_t n = ipc_text_cut(s, len - 1);

	memcpy(dst, s, n);
	dst[n] = '\0';
}

/*
 * The engine's flags (base/field.h) as the protocol uses them: OPT may be
 * absent (the default stays), and an optional string or object is not
 * sent when empty; IF_SET sends a bool only when true (a later field,
 * which a server without it would refuse); IF_AUTH is present exactly
 * when m->auth.
 */
#define OPT IPC_FF_OPT
#define IF_SET (IPC_FF_OPT | IPC_FF_NONZERO)
#define NO_NEG IPC_FF_NO_NEG
#define IF_AUTH IPC_FF_USER
#define EMPTY_OUT(fl) ((fl)&OPT ? IPC_FF_NONZERO : 0u)

#define M(f) offsetof(struct ipc_rmsg, f)
#define SZ(f) sizeof(((struct ipc_rmsg *)0)->f)
#define U64(n, f, fl, mx)                                                      \
	{                                                                      \
		.key = (n), .kind = IPC_FK_U64, .off = M(f), .flags = (fl),    \
		.max = (mx)                                                    \
	}
#define I64(n, f, fl, mx)                                                      \
	{                                                                      \
		.key = (n), .kind = IPC_FK_I64, .off = M(f), .flags = (fl),    \
		.max = (mx)                                                    \
	}
#define STR(n, f, fl)                                                          \
	{                                                                      \
		.key = (n), .kind = IPC_FK_CHARS, .off = M(f),                 \
		.flags = (fl) | EMPTY_OUT(fl), .len = SZ(f)                    \
	}
#define HEX(n, f, fl)                                                          \
	{                                                                      \
		.key = (n), .kind = IPC_FK_HEX, .off = M(f), .flags = (fl),    \
		.len = SZ(f)                                                   \
	}
#define BOOL(n, f, fl)                                                         \
	{                                                                      \
		.key = (n), .kind = IPC_FK_BOOL, .off = M(f), .flags = (fl)    \
	}
/* The server's fingerprint and explanation: flat objects of scalars. */
#define FLAT(n, f, fl)                                                         \
	{                                                                      \
		.key = (n), .kind = IPC_FK_FLAT, .off = M(f),                  \
		.flags = (fl) | EMPTY_OUT(fl), .len = SZ(f), .max = 40         \
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
#define BITRATE_MAX 100000000000ull /* 100 Gbit/s: the most -b takes */

static const char *const rerr_names[IPC_RERR_COUNT + 1] = {
	[IPC_RERR_PROTOCOL] = "protocol", [IPC_RERR_VERSION] = "version",
	[IPC_RERR_AUTH] = "auth",	  [IPC_RERR_BUSY] = "busy",
	[IPC_RERR_REFUSED] = "refused",	  [IPC_RERR_TIMEOUT] = "timeout",
	[IPC_RERR_STOPPING] = "stopping", [IPC_RERR_FAILED] = "failed",
	[IPC_RERR_ABORT] = "abort",	  NULL,
};

static const struct ipc_field hello_f[] = {
	U64("proto", proto, 0, 1u << 20),
	STR("software", software, 0),
	{0},
};

static const struct ipc_field welcome_f[] = {
	U64("proto", proto, 0, 1u << 20),
	STR("software", software, 0),
	BOOL("auth", auth, 0),
	HEX("challenge", nonce, IF_AUTH),
	{0},
};

static const struct ipc_field auth_f[] = {
	HEX("nonce", nonce, 0),
	HEX("mac", mac, 0),
	{0},
};

static const struct ipc_field auth_ok_f[] = {
	HEX("mac", mac, 0),
	{0},
};

static const struct ipc_field test_f[] = {
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
	I64("pin_cpu", test.pin_cpu, OPT, 4095),
	BOOL("nodelay", test.nodelay, OPT),
	U64("sndbuf", test.sndbuf, OPT, 1u << 30),
	U64("rcvbuf", test.rcvbuf, OPT, 1u << 30),
	U64("busy_poll_us", test.busy_poll_us, OPT, 1000000),
	U64("timeout_ns", test.timeout_ns, OPT, NS_MAX),
	U64("trace_bytes", test.trace_bytes, OPT, IPC_REMOTE_TRACE_MAX),
	BOOL("explain", test.explain, OPT | IF_SET),
	BOOL("reverse", test.reverse, OPT | IF_SET),
	U64("bitrate_bps", test.bitrate_bps, OPT | IF_SET, BITRATE_MAX),
	{0},
};

static const struct ipc_field trace_f[] = {
	{.key = "data",
	 .kind = IPC_FK_B64,
	 .off = M(data),
	 .len = SZ(data),
	 .aux = M(data_len)},
	{0},
};

static const struct ipc_field accept_f[] = {
	U64("test_id", test_id, 0, BIG),
	HEX("cookie", cookie, 0),
	U64("data_port", data_port, 0, 65535),
	U64("max_test_ns", max_test_ns, 0, BIG),
	U64("running", running, 0, BIG),
	{0},
};

static const struct ipc_field run_f[] = {
	U64("run", run, 0, RUNS_MAX),
	{0},
};

static const struct ipc_field stats_f[] = {
	U64("run", stats.run, 0, RUNS_MAX),
	U64("user_ns", stats.user_ns, 0, BIG),
	U64("sys_ns", stats.sys_ns, 0, BIG),
	U64("vcsw", stats.vcsw, 0, BIG),
	U64("ivcsw", stats.ivcsw, 0, BIG),
	U64("messages", stats.messages, 0, BIG),
	U64("bytes", stats.bytes, 0, BIG),
	U64("others", stats.others, 0, BIG),
	U64("rejected", stats.rejected, 0, BIG),
	I64("err", stats.err, NO_NEG, 4095),
	STR("what", stats.what, OPT),
	FLAT("explain", stats.explain, OPT),
	{0},
};

static const struct ipc_field none_f[] = {
	{0},
};

static const struct ipc_field bye_f[] = {
	FLAT("host", host, OPT),
	{0},
};

static const struct ipc_field error_f[] = {
	{.key = "code",
	 .kind = IPC_FK_ENUM,
	 .off = M(code),
	 .names = rerr_names},
	STR("message", message, 0),
	U64("running", running, OPT, BIG),
	{0},
};

static const struct {
	const char *name;
	const struct ipc_field *fields;
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

/* @f's value @v into @m, or one sentence in @why naming what is wrong. */
static int take(const struct ipc_field *f, json_t *v, struct ipc_rmsg *m,
		char *why, size_t why_len)
{
	struct ipc_fbad b;
	const char *n = f->key;
	int rc = ipc_field_get(v, m, f, &b);

	if (rc != -EPROTO)
		return rc;
	switch (b.why) {
	case IPC_FB_TYPE:
		return fail(why, why_len, "'%s' is not %s", n,
			    ipc_field_wants(f));
	case IPC_FB_NEG:
		return fail(why, why_len, "'%s' is negative", n);
	case IPC_FB_RANGE:
		return fail(why, why_len, "'%s' is %lld, outside %lld..%llu", n,
			    b.got, b.lo, (unsigned long long)f->max);
	case IPC_FB_LONG:
		return fail(why, why_len, "'%s' is longer than %zu bytes", n,
			    f->len - 1);
	case IPC_FB_CTRL:
		return fail(why, why_len, "'%s' holds a control character", n);
	case IPC_FB_NAME: /* the only enum of the protocol */
		return fail(why, why_len, "'%s' is an unknown error code", n);
	case IPC_FB_HEX:
		return fail(why, why_len, "'%s' is not %zu hex digits", n,
			    2 * f->len);
	case IPC_FB_B64:
		return fail(why, why_len,
			    "'%s' is not base64 of 1 to %zu bytes", n, f->len);
	case IPC_FB_MEMBERS:
		return fail(why, why_len, "'%s' has more than %llu fields", n,
			    (unsigned long long)f->max);
	case IPC_FB_NESTED:
		return fail(why, why_len,
			    "'%s.%s' is not a string, number, boolean or null",
			    n, b.inner);
	default:
		return fail(why, why_len, "'%s' is missing", n);
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

static const struct ipc_field *find(const struct ipc_field *fs,
				    const char *name)
{
	for (; fs->key; fs++)
		if (!strcmp(fs->key, name))
			return fs;
	return NULL;
}

static int parse_obj(json_t *root, struct ipc_rmsg *m, char *why,
		     size_t why_len)
{
	const struct ipc_field *fs, *f;
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
			    ipc_text_printable(json_string_value(t))
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
				    ipc_text_printable(k) ? k : "(unprintable)",
				    types[ti].name);
		rc = take(f, v, m, why, why_len);
		if (rc)
			return rc;
	}
	for (f = fs; f->key; f++) {
		bool need = f->flags & IF_AUTH ? m->auth : !(f->flags & OPT);

		if (need && !json_object_get(root, f->key))
			return fail(why, why_len, "%s without '%s'",
				    types[ti].name, f->key);
		if ((f->flags & IF_AUTH) && !m->auth &&
		    json_object_get(root, f->key))
			return fail(why, why_len,
				    "%s has '%s' but no authentication",
				    types[ti].name, f->key);
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

int ipc_rmsg_encode(const struct ipc_rmsg *m, void *buf, size_t cap)
{
	const struct ipc_field *f;
	json_t *root;
	size_t n;
	uint32_t be;
	int rc = -ENOMEM;

	if (m->type <= IPC_RM_NONE || m->type >= IPC_RM_COUNT)
		return -EINVAL;
	root = json_object();
	if (!root ||
	    json_object_set_new(root, "type", json_string(types[m->type].name)))
		goto out;
	for (f = types[m->type].fields; f->key; f++)
		if ((!(f->flags & IF_AUTH) || m->auth) &&
		    ipc_field_put(root, m, f))
			goto out;
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

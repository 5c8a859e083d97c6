/* SPDX-License-Identifier: MIT */
/*
 * The field-table engine (src/base/field.h): every kind written and read
 * back unchanged, what is left out and what an absent or null value
 * stands for, and each refusal with its reason, on a record of its own.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../tap.h"
#include "base/field.h"

struct rec {
	uint64_t u;
	size_t sz;
	unsigned ui;
	int i;
	int64_t i64;
	bool b;
	double real, round, ropt;
	char s[8];
	char snull[8];
	int inull, tri;
	int64_t iopt;
	int e;
	uint8_t hex[4];
	uint8_t data[6];
	size_t data_len;
	char flat[32];
	int nz;
	int nznull;
};

static const char *const colours[] = {"red", "green", NULL};

#define F(k, m, kd, ...)                                                       \
	{                                                                      \
		.key = (k), .kind = (kd), .off = offsetof(struct rec, m),      \
		.len = sizeof(((struct rec *)0)->m), __VA_ARGS__               \
	}
static const struct ipc_field fields[] = {
	F("u", u, IPC_FK_U64, .max = 1000),
	F("sz", sz, IPC_FK_SIZE),
	F("ui", ui, IPC_FK_UINT),
	F("i", i, IPC_FK_INT),
	F("i64", i64, IPC_FK_I64, .max = 50),
	F("b", b, IPC_FK_BOOL),
	F("real", real, IPC_FK_REAL),
	F("round", round, IPC_FK_ROUND),
	F("ropt", ropt, IPC_FK_REAL_OPT),
	F("s", s, IPC_FK_CHARS),
	F("snull", snull, IPC_FK_CHARS_NULL),
	F("inull", inull, IPC_FK_INT_NULL),
	F("tri", tri, IPC_FK_TRI),
	F("iopt", iopt, IPC_FK_I64_OPT),
	F("e", e, IPC_FK_ENUM, .names = colours),
	F("hex", hex, IPC_FK_HEX),
	F("data", data, IPC_FK_B64, .aux = offsetof(struct rec, data_len)),
	F("flat", flat, IPC_FK_FLAT, .max = 2),
	F("nz", nz, IPC_FK_INT, .flags = IPC_FF_NONZERO),
	F("nznull", nznull, IPC_FK_INT_NULL, .flags = IPC_FF_NONZERO),
};
static const struct ipc_ftable table = {fields,
					sizeof(fields) / sizeof(fields[0])};

static const struct ipc_field *field(const char *key)
{
	for (size_t i = 0; i < table.n; i++)
		if (!strcmp(fields[i].key, key))
			return &fields[i];
	return NULL;
}

static void fill(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->u = 1000;
	r->sz = 7;
	r->ui = 9;
	r->i = -3;
	r->i64 = -1;
	r->b = true;
	r->real = 0.25;
	r->round = 12.6;
	r->ropt = 2.5;
	strcpy(r->s, "tcp");
	strcpy(r->snull, "x");
	r->inull = 4;
	r->tri = 0;
	r->iopt = 11;
	r->e = 1;
	r->nznull = 3;
	memcpy(r->hex, "\x01\xab\x00\xff", 4);
	memcpy(r->data, "hello", 5);
	r->data_len = 5;
	strcpy(r->flat, "{\"a\":1,\"b\":\"z\"}");
}

/* @json read as field @key: the rc, and the reason when refused. */
static int get(const char *key, const char *json, struct rec *r,
	       struct ipc_fbad *bad)
{
	json_t *v = json ? json_loads(json, JSON_DECODE_ANY, NULL) : NULL;
	int rc = ipc_field_get(v, r, field(key), bad);

	json_decref(v);
	return rc;
}

static void refused(const char *key, const char *json, enum ipc_fbad_why why,
		    const char *what)
{
	struct rec r;
	struct ipc_fbad bad = {0};

	memset(&r, 0, sizeof(r));
	is_int(get(key, json, &r, &bad), "==", -EPROTO, "%s: refused", what);
	is_int(bad.why, "==", why, "%s: the reason", what);
}

static void round_trip(void)
{
	struct rec a, b;
	json_t *o = json_object();
	char *text;
	int rc = 0;

	fill(&a);
	is_int(ipc_ftable_put(o, &a, &table), "==", 0, "a record is written");
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	is_str(text,
	       "{\"b\":true,\"data\":\"aGVsbG8=\",\"e\":\"green\","
	       "\"flat\":{\"a\":1,\"b\":\"z\"},\"hex\":\"01ab00ff\","
	       "\"i\":-3,\"i64\":-1,\"inull\":4,\"iopt\":11,\"nznull\":3,"
	       "\"real\":0.25,"
	       "\"ropt\":2.5,\"round\":13,\"s\":\"tcp\",\"snull\":\"x\","
	       "\"sz\":7,\"tri\":false,\"u\":1000,\"ui\":9}",
	       "each kind as JSON; a zero NONZERO field left out");
	free(text);
	memset(&b, 0, sizeof(b));
	for (size_t i = 0; i < table.n && !rc; i++) {
		struct ipc_fbad bad;

		rc = ipc_field_get(json_object_get(o, fields[i].key), &b,
				   &fields[i], &bad);
	}
	is_int(rc, "==", 0, "and read back");
	b.round = a.round; /* written rounded, on purpose */
	ok(!memcmp(&a, &b, sizeof(a)), "into the same record");
	json_decref(o);
}

static void left_out(void)
{
	struct rec r;
	json_t *o = json_object();

	memset(&r, 0, sizeof(r));
	r.real = NAN;
	r.round = -1;
	r.ropt = -1;
	r.iopt = -1;
	r.inull = -1;
	r.tri = -1;
	r.nz = 0;
	r.nznull = -1;
	ipc_field_put(o, &r, field("nznull"));
	r.nznull = 0;
	ipc_field_put(o, &r, field("nznull"));
	ipc_field_put(o, &r, field("real"));
	ipc_field_put(o, &r, field("round"));
	ipc_field_put(o, &r, field("ropt"));
	ipc_field_put(o, &r, field("iopt"));
	ipc_field_put(o, &r, field("nz"));
	is_int(json_object_size(o), "==", 0,
	       "not finite, negative, not counted, zero and unknown: left out");
	ipc_field_put(o, &r, field("inull"));
	ipc_field_put(o, &r, field("tri"));
	ipc_field_put(o, &r, field("snull"));
	ok(json_is_null(json_object_get(o, "inull")) &&
		   json_is_null(json_object_get(o, "tri")) &&
		   json_is_null(json_object_get(o, "snull")),
	   "unknown and empty: null");
	json_decref(o);
	r.e = 2;
	o = json_object();
	is_int(ipc_field_put(o, &r, field("e")), "==", -EINVAL,
	       "an enum out of range is not written");
	r.data_len = sizeof(r.data) + 1;
	is_int(ipc_field_put(o, &r, field("data")), "==", -EINVAL,
	       "nor base64 over its buffer");
	json_decref(o);
}

static void absent(void)
{
	struct rec r;
	struct ipc_fbad bad;

	fill(&r);
	is_int(get("real", NULL, &r, &bad), "==", 0, "a real may be absent");
	ok(isnan(r.real), "and stands for not measured (NAN)");
	get("iopt", NULL, &r, &bad);
	is_int(r.iopt, "==", -1, "an absent count stands for not counted");
	get("inull", "null", &r, &bad);
	get("tri", "null", &r, &bad);
	get("snull", "null", &r, &bad);
	ok(r.inull == -1 && r.tri == -1 && !r.snull[0],
	   "null stands for unknown and empty");
	refused("u", NULL, IPC_FB_MISSING, "a required field absent");
	is_int(get("nz", NULL, &r, &bad), "==", 0, "a NONZERO field may be");
}

int main(void)
{
	round_trip();
	left_out();
	absent();
	refused("u", "\"1\"", IPC_FB_TYPE, "a string for an integer");
	is_str(ipc_field_wants(field("u")), "an integer", "named so");
	refused("u", "1001", IPC_FB_RANGE, "an integer over max");
	refused("i64", "-2", IPC_FB_RANGE, "below -1");
	refused("sz", "-1", IPC_FB_NEG, "a negative count");
	refused("real", "-0.5", IPC_FB_NEG, "a negative real");
	refused("b", "1", IPC_FB_TYPE, "1 for a bool");
	refused("s", "\"12345678\"", IPC_FB_LONG, "a string over its buffer");
	refused("s", "\"a\\u001bb\"", IPC_FB_CTRL, "ESC in a string");
	refused("s", "\"a\\u009bb\"", IPC_FB_CTRL, "a C1 control");
	refused("e", "\"blue\"", IPC_FB_NAME, "a name not among the names");
	refused("hex", "\"01ab00f\"", IPC_FB_HEX, "an odd count of digits");
	refused("hex", "\"01ab00fg\"", IPC_FB_HEX, "a digit that is not hex");
	refused("data", "\"\"", IPC_FB_B64, "base64 of nothing");
	refused("data", "\"aGVsbG8gd29ybGQ=\"", IPC_FB_B64,
		"base64 over its buffer");
	refused("flat", "{\"a\":1,\"b\":2,\"c\":3}", IPC_FB_MEMBERS,
		"an object of too many members");
	refused("flat", "{\"a\":[1]}", IPC_FB_NESTED, "a nested array");
	refused("flat", "{\"a\":\"\\u0007\"}", IPC_FB_CTRL,
		"a control character in a member");
	refused("flat", "{\"a\":\"0123456789012345678901234567\"}", IPC_FB_LONG,
		"an object longer than its buffer");
	return done_testing();
}

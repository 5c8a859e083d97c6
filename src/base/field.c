/* SPDX-License-Identifier: MIT */
/*
 * The field-table engine (field.h): one writer and one reader for every
 * kind of field, so that a record's JSON form is decided by its table
 * alone, the same way for the result document and the control protocol.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "base/field.h"
#include "base/lib_internal.h"

json_t *ipc_json_uint(uint64_t v)
{
	return json_integer(v > (uint64_t)LLONG_MAX ? LLONG_MAX
						    : (json_int_t)v);
}

json_t *ipc_json_str(const char *s)
{
	json_t *v;
	char *copy, *p;

	if (!s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

/* A time or size held as a double (a mean): rounded to an integer. */
static json_t *jround(double v)
{
	return v >= 9.2e18 ? ipc_json_uint(UINT64_MAX)
			   : ipc_json_uint((uint64_t)llround(v));
}

static size_t count_names(const char *const *names)
{
	size_t n = 0;

	while (names[n])
		n++;
	return n;
}

static json_t *b64_json(const struct ipc_field *f, const void *rec,
			const char *p)
{
	size_t len = *(const size_t *)((const char *)rec + f->aux);
	size_t n =
		sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	char *b = malloc(n);
	json_t *v;

	if (!b)
		return NULL;
	sodium_bin2base64(b, n, (const uint8_t *)p, len,
			  sodium_base64_VARIANT_ORIGINAL);
	v = json_string(b);
	free(b);
	return v;
}

/*
 * The JSON value of @f; NULL with *@rc 1 when it is left out, -EINVAL
 * when the record holds what the kind cannot write, else 0 (jansson ran
 * out of memory).
 */
#define OMIT (*rc = 1, (json_t *)NULL)
static json_t *field_json(const struct ipc_field *f, const void *rec, int *rc)
{
	const void *p = (const char *)rec + f->off;
	const char *str = p;
	bool nz = f->flags & IPC_FF_NONZERO;
	uint64_t u = 0;
	double d;
	int i;
	char hex[2 * 64 + 1];

	*rc = 0;
	switch (f->kind) {
	case IPC_FK_U64:
		u = *(const uint64_t *)p;
		break;
	case IPC_FK_SIZE:
		u = *(const size_t *)p;
		break;
	case IPC_FK_UINT:
		u = *(const unsigned *)p;
		break;
	case IPC_FK_INT:
		i = *(const int *)p;
		return nz && !i ? OMIT : json_integer(i);
	case IPC_FK_I64:
		return json_integer((json_int_t) * (const int64_t *)p);
	case IPC_FK_BOOL:
		return nz && !*(const bool *)p ? OMIT
					       : json_boolean(*(const bool *)p);
	case IPC_FK_REAL:
	case IPC_FK_REAL_OPT:
		d = *(const double *)p;
		return !isfinite(d) || (f->kind == IPC_FK_REAL_OPT && d < 0)
			       ? OMIT
			       : json_real(d);
	case IPC_FK_ROUND:
		d = *(const double *)p;
		return !isfinite(d) || d < 0 ? OMIT : jround(d);
	case IPC_FK_CHARS:
		return nz && !str[0] ? OMIT : ipc_json_str(str);
	case IPC_FK_CHARS_NULL:
		return str[0] ? ipc_json_str(str) : json_null();
	case IPC_FK_INT_NULL:
		i = *(const int *)p;
		if (nz && i <= 0)
			return OMIT;
		return i < 0 ? json_null() : json_integer(i);
	case IPC_FK_TRI:
		i = *(const int *)p;
		return i < 0 ? json_null() : json_boolean(i);
	case IPC_FK_I64_OPT:
		if (*(const int64_t *)p < 0)
			return OMIT;
		return ipc_json_uint((uint64_t) * (const int64_t *)p);
	case IPC_FK_ENUM:
		i = *(const int *)p;
		if (i < 0 || (size_t)i >= count_names(f->names)) {
			*rc = -EINVAL;
			return NULL;
		}
		return json_string(f->names[i]);
	case IPC_FK_HEX:
		if (f->len > 64) {
			*rc = -EINVAL;
			return NULL;
		}
		sodium_bin2hex(hex, sizeof(hex), (const uint8_t *)p, f->len);
		return json_string(hex);
	case IPC_FK_B64:
		if (*(const size_t *)((const char *)rec + f->aux) > f->len) {
			*rc = -EINVAL;
			return NULL;
		}
		return b64_json(f, rec, str);
	case IPC_FK_FLAT:
		return nz && !str[0] ? OMIT : json_loads(str, 0, NULL);
	}
	if (nz && !u)
		return OMIT;
	return ipc_json_uint(u);
}
#undef OMIT

int ipc_field_put(json_t *o, const void *rec, const struct ipc_field *f)
{
	int rc;
	json_t *v = field_json(f, rec, &rc);

	if (!v)
		return rc == 1 ? 0 : rc ? rc : -ENOMEM;
	return json_object_set_new(o, f->key, v) < 0 ? -ENOMEM : 0;
}

int ipc_ftable_put(json_t *o, const void *rec, const struct ipc_ftable *t)
{
	for (size_t i = 0; i < t->n; i++) {
		int rc = ipc_field_put(o, rec, &t->f[i]);

		if (rc)
			return rc;
	}
	return 0;
}

/* The JSON type a kind is written as. */
enum jtype { J_INT, J_BOOL, J_NUM, J_OBJ, J_STR };

static enum jtype jtype_of(enum ipc_fkind k)
{
	switch (k) {
	case IPC_FK_U64:
	case IPC_FK_SIZE:
	case IPC_FK_UINT:
	case IPC_FK_INT:
	case IPC_FK_I64:
	case IPC_FK_INT_NULL:
	case IPC_FK_I64_OPT:
		return J_INT;
	case IPC_FK_BOOL:
	case IPC_FK_TRI:
		return J_BOOL;
	case IPC_FK_REAL:
	case IPC_FK_ROUND:
	case IPC_FK_REAL_OPT:
		return J_NUM;
	case IPC_FK_FLAT:
		return J_OBJ;
	default:
		return J_STR;
	}
}

const char *ipc_field_wants(const struct ipc_field *f)
{
	static const char *const wants[] = {
		[J_INT] = "an integer", [J_BOOL] = "true or false",
		[J_NUM] = "a number",	[J_OBJ] = "an object",
		[J_STR] = "a string",
	};

	return wants[jtype_of(f->kind)];
}

static int bad_is(struct ipc_fbad *bad, enum ipc_fbad_why why)
{
	bad->why = why;
	return -EPROTO;
}

/* What a field the writer left out stands for. */
static void store_absent(void *p, const struct ipc_field *f)
{
	switch (f->kind) {
	case IPC_FK_REAL:
	case IPC_FK_ROUND:
		*(double *)p = NAN;
		break;
	case IPC_FK_REAL_OPT:
		*(double *)p = -1;
		break;
	case IPC_FK_I64_OPT:
		*(int64_t *)p = -1;
		break;
	case IPC_FK_INT_NULL:
	case IPC_FK_TRI:
		*(int *)p = -1;
		break;
	case IPC_FK_CHARS_NULL:
		*(char *)p = '\0';
		break;
	default:
		break; /* stays as the record was: 0, "" or a default */
	}
}

/* May the writer have left @f out? */
static bool may_lack(const struct ipc_field *f)
{
	return (f->flags & (IPC_FF_OPT | IPC_FF_NONZERO)) ||
	       f->kind == IPC_FK_REAL || f->kind == IPC_FK_ROUND ||
	       f->kind == IPC_FK_REAL_OPT || f->kind == IPC_FK_I64_OPT;
}

/* A flat object of at most f->max scalars, kept as compact JSON text. */
static int get_flat(json_t *v, char *p, const struct ipc_field *f,
		    struct ipc_fbad *bad)
{
	const char *k;
	json_t *x;
	char *text;
	size_t n;

	if (json_object_size(v) > f->max)
		return bad_is(bad, IPC_FB_MEMBERS);
	json_object_foreach(v, k, x)
	{
		if (json_is_object(x) || json_is_array(x)) {
			bad->inner = k;
			return bad_is(bad, IPC_FB_NESTED);
		}
		if (!ipc_text_printable(k) ||
		    (json_is_string(x) &&
		     !ipc_text_printable(json_string_value(x))))
			return bad_is(bad, IPC_FB_CTRL);
	}
	text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return -ENOMEM;
	n = strlen(text);
	if (n >= f->len) {
		free(text);
		return bad_is(bad, IPC_FB_LONG);
	}
	memcpy(p, text, n + 1);
	free(text);
	return 0;
}

static int get_int(json_t *v, char *p, const struct ipc_field *f,
		   struct ipc_fbad *bad)
{
	json_int_t i;
	long long lo =
		f->kind == IPC_FK_I64 && !(f->flags & IPC_FF_NO_NEG) ? -1 : 0;

	if (!json_is_integer(v))
		return bad_is(bad, IPC_FB_TYPE);
	i = json_integer_value(v);
	if (f->kind == IPC_FK_INT || f->kind == IPC_FK_INT_NULL) {
		*(int *)p = (int)i;
		return 0;
	}
	if (i < lo && !f->max)
		return bad_is(bad, IPC_FB_NEG);
	if (i < lo || (f->max && i >= 0 && (uint64_t)i > f->max)) {
		bad->got = i;
		bad->lo = lo;
		return bad_is(bad, IPC_FB_RANGE);
	}
	if (f->kind == IPC_FK_U64)
		*(uint64_t *)p = (uint64_t)i;
	else if (f->kind == IPC_FK_SIZE)
		*(size_t *)p = (size_t)i;
	else if (f->kind == IPC_FK_UINT)
		*(unsigned *)p = (unsigned)i;
	else
		*(int64_t *)p = (int64_t)i;
	return 0;
}

static int get_string(json_t *v, void *rec, char *p, const struct ipc_field *f,
		      struct ipc_fbad *bad)
{
	const char *s = json_string_value(v), *end = NULL;
	size_t slen = json_string_length(v), got = 0;
	int i;

	switch (f->kind) {
	case IPC_FK_CHARS:
	case IPC_FK_CHARS_NULL:
		if (!slen && (f->flags & IPC_FF_NONZERO))
			return 0;
		if (slen >= f->len)
			return bad_is(bad, IPC_FB_LONG);
		if (!ipc_text_printable(s))
			return bad_is(bad, IPC_FB_CTRL);
		memset(p, 0, f->len);
		memcpy(p, s, slen);
		return 0;
	case IPC_FK_ENUM:
		for (i = 0; f->names[i]; i++)
			if (!strcmp(s, f->names[i])) {
				*(int *)p = i;
				return 0;
			}
		return bad_is(bad, IPC_FB_NAME);
	case IPC_FK_HEX:
		if (slen != 2 * f->len ||
		    sodium_hex2bin((uint8_t *)p, f->len, s, slen, NULL, &got,
				   &end) ||
		    got != f->len || end != s + slen)
			return bad_is(bad, IPC_FB_HEX);
		return 0;
	case IPC_FK_B64:
		if (sodium_base642bin((uint8_t *)p, f->len, s, slen, NULL,
				      (size_t *)((char *)rec + f->aux), &end,
				      sodium_base64_VARIANT_ORIGINAL) ||
		    end != s + slen || *(size_t *)((char *)rec + f->aux) == 0)
			return bad_is(bad, IPC_FB_B64);
		return 0;
	default:
		return bad_is(bad, IPC_FB_TYPE);
	}
}

int ipc_field_get(json_t *v, void *rec, const struct ipc_field *f,
		  struct ipc_fbad *bad)
{
	void *p = (char *)rec + f->off;
	double d;

	if (!v) {
		if (!may_lack(f))
			return bad_is(bad, IPC_FB_MISSING);
		store_absent(p, f);
		return 0;
	}
	if (json_is_null(v) &&
	    (f->kind == IPC_FK_INT_NULL || f->kind == IPC_FK_TRI ||
	     f->kind == IPC_FK_CHARS_NULL)) {
		store_absent(p, f);
		return 0;
	}
	switch (jtype_of(f->kind)) {
	case J_INT:
		return get_int(v, p, f, bad);
	case J_BOOL:
		if (!json_is_boolean(v))
			return bad_is(bad, IPC_FB_TYPE);
		if (f->kind == IPC_FK_BOOL)
			*(bool *)p = json_is_true(v);
		else
			*(int *)p = json_is_true(v);
		return 0;
	case J_NUM:
		if (!json_is_number(v))
			return bad_is(bad, IPC_FB_TYPE);
		d = json_number_value(v);
		if (d < 0) {
			bad->real = d;
			return bad_is(bad, IPC_FB_NEG);
		}
		*(double *)p = d;
		return 0;
	case J_OBJ:
		if (!json_is_object(v))
			return bad_is(bad, IPC_FB_TYPE);
		return get_flat(v, p, f, bad);
	case J_STR:
		break;
	}
	if (!json_is_string(v))
		return bad_is(bad, IPC_FB_TYPE);
	return get_string(v, rec, p, f, bad);
}

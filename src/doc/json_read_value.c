/* SPDX-License-Identifier: MIT */
/*
 * Reading one value of a result document: an object, an array, a number,
 * a string, a name among names, and every field of a schema table, each
 * checked for its type and named when it is wrong.  Also the store that
 * keeps what the records point to.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"

/* Keep @p to free with the document; NULL (and -ENOMEM) if it is NULL. */
void *jr_keep(struct rd *r, void *p)
{
	struct ipc_doc_store *st = r->st;

	if (p && st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 32;
		void **np = reallocarray(st->p, cap, sizeof(*np));

		if (!np) {
			free(p);
			p = NULL;
		} else {
			st->p = np;
			st->cap = cap;
		}
	}
	if (!p) {
		if (!r->rc) {
			r->rc = -ENOMEM;
			snprintf(r->err, r->err_len, "%s: out of memory",
				 r->file);
		}
		return NULL;
	}
	st->p[st->n++] = p;
	return p;
}

/*
 * @s with its control characters written out ("\x1b", "\u009b" for a C1
 * control in UTF-8), or NULL when it has none (or memory ran out: then
 * *failed).  A document's strings end up on terminals (names, errors,
 * hosts): printed raw, "\x1b]0;...\x07" or "\x1b[2J" would act on the
 * terminal instead of showing what the file holds.
 */
static char *escaped(const char *s, bool *failed)
{
	const unsigned char *p;
	size_t n = 0;
	bool dirty = false;
	char *out, *o;

	*failed = false;
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			n += 4;
			dirty = true;
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			n += 6;
			dirty = true;
			p++;
		} else {
			n++;
		}
	}
	if (!dirty)
		return NULL;
	out = malloc(n + 1);
	if (!out) {
		*failed = true;
		return NULL;
	}
	for (o = out, p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			o += sprintf(o, "\\x%02x", *p);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			o += sprintf(o, "\\u00%02x", p[1]);
			p++;
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
	return out;
}

const char *jr_clean(struct rd *r, const char *s)
{
	bool failed;
	char *e;

	if (!s)
		return NULL;
	e = escaped(s, &failed);
	if (failed)
		return jr_keep(r, NULL); /* -ENOMEM */
	return e ? jr_keep(r, e) : s;
}

char *jr_keep_str(struct rd *r, const char *s)
{
	bool failed;
	char *e = escaped(s ? s : "", &failed);

	if (failed)
		return jr_keep(r, NULL);
	return jr_keep(r, e ? e : strdup(s ? s : ""));
}

/* "FILE: AT.KEY: what is wrong"; only the first failure is kept. */
void jr_bad(struct rd *r, const char *at, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->rc)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->rc = -EINVAL;
	if (!at[0] && !key) /* the document as a whole */
		snprintf(r->err, r->err_len, "%s: %s", r->file, msg);
	else
		snprintf(r->err, r->err_len, "%s: %s%s%s: %s", r->file, at,
			 at[0] && key ? "." : "", key ? key : "", msg);
}

/* The path of a member: "results[2]" and "summary" give "results[2].summary". */
const char *jr_at(char *buf, size_t len, const char *at, const char *key)
{
	int n = snprintf(buf, len, "%s%s%s", at, at[0] ? "." : "", key);

	if (n < 0 || (size_t)n >= len)
		snprintf(buf, len, "%s", "(a path too deep to name)");
	return buf;
}

/* @key of @o as an object; NULL when absent (or wrong: then an error). */
json_t *jr_obj(struct rd *r, json_t *o, const char *at, const char *key,
	       bool required)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			jr_bad(r, at, key, "missing");
		return NULL;
	}
	if (!json_is_object(v)) {
		jr_bad(r, at, key, "not an object");
		return NULL;
	}
	return v;
}

json_t *jr_arr(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v && !json_is_array(v)) {
		jr_bad(r, at, key, "not an array");
		return NULL;
	}
	return v;
}

/* An unsigned integer at @key; false (with an error if @required) if not. */
bool jr_u64(struct rd *r, json_t *o, const char *at, const char *key,
	    bool required, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			jr_bad(r, at, key, "missing");
		return false;
	}
	if (!json_is_integer(v)) {
		jr_bad(r, at, key, "not an integer");
		return false;
	}
	if (json_integer_value(v) < 0) {
		jr_bad(r, at, key, "negative");
		return false;
	}
	*out = (uint64_t)json_integer_value(v);
	return true;
}

/*
 * A number at @key, NAN when absent (the writer left it out).  Every real
 * a document holds is a time, a rate, a share or a count: never negative.
 */
double jr_num(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		jr_bad(r, at, key, "not a number");
		return NAN;
	}
	if (json_number_value(v) < 0) {
		jr_bad(r, at, key, "%g is negative", json_number_value(v));
		return NAN;
	}
	return json_number_value(v);
}

/* A string at @key, NULL when absent or null. */
const char *jr_str(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		jr_bad(r, at, key, "not a string");
		return NULL;
	}
	return jr_clean(r, json_string_value(v));
}

/* The index of @s among @names (NULL-terminated), or -1 with an error. */
int jr_name_index(struct rd *r, const char *at, const char *key,
		  const char *const *names, const char *s)
{
	char known[128] = "";

	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	for (int i = 0; names[i]; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s%s", i ? ", " : "", names[i]);
	jr_bad(r, at, key, "'%s' is not one of %s", s, known);
	return -1;
}

/*
 * One field of a schema table, read by the field-table engine (the one
 * the writer and the control protocol use), its refusals in the reader's
 * words.  Strings alone are the reader's own: a document's are shown with
 * their control bytes escaped (jr_clean), where the protocol refuses them.
 */
static void get_field(struct rd *r, json_t *o, const char *at, void *base,
		      const struct jfield *f)
{
	json_t *j = json_object_get(o, f->key);
	struct ipc_fbad bad = {0};
	const char *s;
	int rc;

	if (j && json_is_string(j) &&
	    (f->kind == JK_CHARS || f->kind == JK_CHARS_NULL)) {
		s = jr_clean(r, json_string_value(j));
		if (!s)
			return;
		if (strlen(s) >= f->len)
			jr_bad(r, at, f->key, "longer than %zu bytes",
			       f->len - 1);
		else
			memcpy((char *)base + f->off, s, strlen(s) + 1);
		return;
	}
	rc = ipc_field_get(j, base, f, &bad);
	if (rc == -ENOMEM) {
		jr_keep(r, NULL);
		return;
	}
	if (!rc)
		return;
	switch (bad.why) {
	case IPC_FB_MISSING:
		jr_bad(r, at, f->key, "missing");
		return;
	case IPC_FB_NEG:
		if (f->kind == JK_REAL || f->kind == JK_ROUND ||
		    f->kind == JK_REAL_OPT)
			jr_bad(r, at, f->key, "%g is negative", bad.real);
		else
			jr_bad(r, at, f->key, "negative");
		return;
	case IPC_FB_RANGE:
		jr_bad(r, at, f->key, "%lld is out of range", bad.got);
		return;
	case IPC_FB_NAME:
		jr_name_index(r, at, f->key, f->names, json_string_value(j));
		return;
	default:
		jr_bad(r, at, f->key, "not %s", ipc_field_wants(f));
		return;
	}
}

void jr_table(struct rd *r, json_t *o, const char *at, void *base,
	      const struct jtable *t)
{
	for (size_t i = 0; i < t->n && !r->rc; i++)
		get_field(r, o, at, base, &t->f[i]);
}

bool jr_table_at(struct rd *r, json_t *o, const char *at, const char *key,
		 void *base, const struct jtable *t)
{
	json_t *x = jr_obj(r, o, at, key, false);
	char sat[96];

	if (!x)
		return false;
	jr_table(r, x, jr_at(sat, sizeof(sat), at, key), base, t);
	return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * The "explain" object of a JSON result (docs/json.md): the mean round
 * trip it explains, what the phases add up to, each phase per round trip
 * with its share and p99, and the other tasks that ran on a measured CPU;
 * or available false and why.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_json.h"
#include "jread.h"
#include "explain/lib_internal.h"

/* A time per round trip in whole ns; may be negative (the residue). */
static json_t *jns(double v)
{
	return json_integer(isfinite(v) ? (json_int_t)llround(v) : 0);
}

static int set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -ENOMEM;
}

static json_t *phase_obj(const struct ipc_xphase *p)
{
	json_t *o = json_object();
	int err;

	if (!o)
		return NULL;
	err = set(o, "name", json_string(p->name));
	err = err ?: set(o, "side", json_string(p->side));
	err = err ?: set(o, "ns", jns(p->ns));
	err = err
		      ?: set(o, "share",
			     json_real(isfinite(p->share) ? p->share : 0));
	if (!err && p->p99_ns >= 0)
		err = set(o, "p99_ns", jns(p->p99_ns));
	if (!err && p->behind[0])
		err = set(o, "behind", json_string(p->behind));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *other_obj(const struct ipc_xother *x)
{
	json_t *o = json_object();
	int err;

	if (!o)
		return NULL;
	err = set(o, "comm", json_string(x->comm));
	err = err ?: set(o, "pid", json_integer(x->pid));
	err = err ?: set(o, "ns", jns(x->ns));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int fill(json_t *e, const struct ipc_explain_result *x)
{
	json_t *phases, *others, *mig;
	size_t i;
	int err;

	if (!x->available) {
		err = set(e, "available", json_false());
		return err ?: set(e, "why", json_string(x->why));
	}
	err = set(e, "available", json_true());
	err = err ?: set(e, "measured_ns", jns(x->measured_ns));
	err = err ?: set(e, "sum_ns", jns(x->sum_ns));
	err = err ?: set(e, "window_ns", jns(x->window_ns));
	if (!err && x->cause[0])
		err = set(e, "cause", json_string(x->cause));
	if (!err && x->server_why[0])
		err = set(e, "server_why", json_string(x->server_why));
	if (!err && x->second_pass)
		err = set(e, "second_pass", json_integer(x->second_pass));
	err = err ?: set(e, "phases", phases = json_array());
	for (i = 0; !err && i < x->nphases; i++) {
		json_t *p = phase_obj(&x->phases[i]);

		err = p && !json_array_append_new(phases, p) ? 0 : -ENOMEM;
	}
	err = err ?: set(e, "others", others = json_array());
	for (i = 0; !err && i < x->nothers; i++) {
		json_t *p = other_obj(&x->others[i]);

		err = p && !json_array_append_new(others, p) ? 0 : -ENOMEM;
	}
	err = err ?: set(e, "migrations", mig = json_object());
	err = err
		      ?: set(mig, "client",
			     json_integer((json_int_t)x->migrations[0]));
	err = err
		      ?: set(mig, "server",
			     json_integer((json_int_t)x->migrations[1]));
	return err;
}

int explain_json_put(json_t *o, const struct ipc_explain_result *x)
{
	json_t *e;

	if (!x)
		return 0;
	e = json_object();
	if (!e || set(o, "explain", e))
		return -ENOMEM;
	return fill(e, x);
}

/* A number that may be negative (the unexplained residue); 0 if absent. */
static double snum(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_number(v)) {
		jr_bad(r, at, key, "not a number");
		return 0;
	}
	return json_number_value(v);
}

/* @key's string of @o into @buf; "" when absent. */
static void str_into(struct rd *r, json_t *o, const char *at, const char *key,
		     char *buf, size_t len)
{
	const char *s = jr_str(r, o, at, key);

	snprintf(buf, len, "%s", s ? jr_clean(r, s) : "");
}

static const char *const side_names[] = {"client", "server", "kernel", NULL};

static void phase_get(struct rd *r, json_t *o, const char *at, void *item)
{
	struct ipc_xphase *p = item;
	const char *side = jr_str(r, o, at, "side");
	int k;

	if (!json_is_object(o)) {
		jr_bad(r, at, NULL, "not an object");
		return;
	}
	str_into(r, o, at, "name", p->name, sizeof(p->name));
	if (!side) {
		jr_bad(r, at, "side", "missing");
		return;
	}
	k = jr_name_index(r, at, "side", side_names, side);
	p->side = k >= 0 ? side_names[k] : side_names[0];
	p->ns = snum(r, o, at, "ns");
	p->share = snum(r, o, at, "share");
	p->p99_ns =
		json_object_get(o, "p99_ns") ? jr_num(r, o, at, "p99_ns") : -1;
	str_into(r, o, at, "behind", p->behind, sizeof(p->behind));
}

static void other_get(struct rd *r, json_t *o, const char *at, void *item)
{
	struct ipc_xother *x = item;
	uint64_t pid = 0;

	if (!json_is_object(o)) {
		jr_bad(r, at, NULL, "not an object");
		return;
	}
	str_into(r, o, at, "comm", x->comm, sizeof(x->comm));
	jr_u64(r, o, at, "pid", false, &pid);
	x->pid = pid <= INT_MAX ? (int)pid : 0;
	x->ns = snum(r, o, at, "ns");
}

/* The phases or the others of @e: each item read by @get into @base. */
static size_t items_get(struct rd *r, json_t *e, const char *at,
			const char *key, size_t max, void *base, size_t size,
			void (*get)(struct rd *, json_t *, const char *,
				    void *))
{
	json_t *a = jr_arr(r, e, at, key), *v;
	char sat[160];
	size_t i;

	if (json_array_size(a) > max) {
		jr_bad(r, at, key, "%zu items, at most %zu", json_array_size(a),
		       max);
		return 0;
	}
	json_array_foreach(a, i, v)
	{
		snprintf(sat, sizeof(sat), "%s.%s[%zu]", at, key, i);
		get(r, v, sat, (char *)base + i * size);
	}
	return json_array_size(a);
}

int explain_json_get(struct rd *r, json_t *o, const char *at,
		     struct ipc_explain_result **out)
{
	struct ipc_explain_result *x;
	json_t *e = jr_obj(r, o, at, "explain", false), *v, *mig;
	uint64_t pass = 0;
	char eat[96];

	*out = NULL;
	if (!e || r->rc)
		return r->rc;
	jr_at(eat, sizeof(eat), at, "explain");
	v = json_object_get(e, "available");
	if (!json_is_boolean(v)) {
		jr_bad(r, eat, "available", "missing or not true/false");
		return r->rc;
	}
	x = ipc_explain_result_new();
	if (!x) {
		jr_keep(r, NULL);
		return r->rc;
	}
	x->available = json_is_true(v);
	str_into(r, e, eat, "why", x->why, sizeof(x->why));
	if (x->available) {
		x->measured_ns = snum(r, e, eat, "measured_ns");
		x->sum_ns = snum(r, e, eat, "sum_ns");
		x->window_ns = snum(r, e, eat, "window_ns");
		str_into(r, e, eat, "cause", x->cause, sizeof(x->cause));
		str_into(r, e, eat, "server_why", x->server_why,
			 sizeof(x->server_why));
		if (jr_u64(r, e, eat, "second_pass", false, &pass) &&
		    pass > 100000)
			jr_bad(r, eat, "second_pass",
			       "more runs than --max-runs allows (100000)");
		else
			x->second_pass = (unsigned)pass;
		x->nphases =
			items_get(r, e, eat, "phases",
				  sizeof(x->phases) / sizeof(x->phases[0]),
				  x->phases, sizeof(x->phases[0]), phase_get);
		x->nothers =
			items_get(r, e, eat, "others", IPC_XOTHERS, x->others,
				  sizeof(x->others[0]), other_get);
		mig = jr_obj(r, e, eat, "migrations", false);
		if (mig) {
			jr_u64(r, mig, eat, "client", false, &x->migrations[0]);
			jr_u64(r, mig, eat, "server", false, &x->migrations[1]);
		}
	}
	if (r->rc) {
		ipc_explain_result_free(x);
		return r->rc;
	}
	*out = x;
	return 0;
}

double ipc_xphase_total(const struct ipc_explain_result *x,
			const struct ipc_xphase *like)
{
	double sum = 0;

	for (size_t k = 0; k < x->nphases; k++)
		if (!strcmp(x->phases[k].side, like->side) &&
		    !strcmp(x->phases[k].name, like->name))
			sum += x->phases[k].ns;
	return sum;
}

bool ipc_xphase_small(const struct ipc_explain_result *x, size_t i)
{
	double share = x->phases[i].share;

	return share < IPC_XSMALL_SHARE && share > -IPC_XSMALL_SHARE &&
	       i + 1 < x->nphases;
}

double ipc_xphase_small_sum(const struct ipc_explain_result *x, size_t *n)
{
	double sum = 0;

	*n = 0;
	for (size_t i = 0; i < x->nphases; i++)
		if (ipc_xphase_small(x, i)) {
			sum += x->phases[i].ns;
			(*n)++;
		}
	return sum;
}

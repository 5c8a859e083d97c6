/* SPDX-License-Identifier: MIT */
/*
 * The "explain" object of a JSON result (docs/json.md): the mean round
 * trip it explains, what the phases add up to, each phase per round trip
 * with its share and p99, and the other tasks that ran on a measured CPU;
 * or available false and why.
 */
#include <errno.h>
#include <math.h>

#include "explain_json.h"

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

/* SPDX-License-Identifier: MIT */
/*
 * The "intervals" array of a run in a JSON result (docs/json.md): per
 * interval its start and end from the measured part's start, what it
 * completed, its rates and its samples' p50 and p99.  Rates are written
 * for readers and not read back: they follow from the counts.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intervals_json.h"
#include "jread.h"

static int set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -ENOMEM;
}

static json_t *ju(uint64_t v)
{
	return json_integer((json_int_t)v);
}

bool ival_in_bytes(const struct ipc_result *res)
{
	for (size_t i = 0; i < res->nivals; i++)
		if (res->ivals[i].bytes > 0)
			return true;
	return false;
}

double ival_rate(const struct ipc_interval *iv, bool bytes)
{
	double s = (double)(iv->end_ns - iv->start_ns) / 1e9;

	return s > 0 ? (double)(bytes ? iv->bytes : iv->messages) / s : 0;
}

static json_t *ival_obj(const struct ipc_interval *iv, bool lossy, bool jitter)
{
	json_t *o = json_object();
	int err;

	if (!o)
		return NULL;
	err = set(o, "start_ns", ju(iv->start_ns));
	err = err ?: set(o, "end_ns", ju(iv->end_ns));
	err = err ?: set(o, "iterations", ju(iv->iterations));
	err = err ?: set(o, "messages", ju(iv->messages));
	err = err ?: set(o, "bytes", ju(iv->bytes));
	err = err ?: set(o, "msgs_per_s", json_real(ival_rate(iv, false)));
	err = err ?: set(o, "bytes_per_s", json_real(ival_rate(iv, true)));
	err = err ?: set(o, "p50_ns", ju(iv->p50_ns));
	err = err ?: set(o, "p99_ns", ju(iv->p99_ns));
	if (!err && lossy)
		err = set(o, "lost", ju(iv->lost));
	if (!err && jitter)
		err = set(o, "jitter_ns", ju(iv->jitter_ns));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int intervals_json_put(json_t *run, const struct ipc_result *res, size_t k)
{
	const bool lossy = k < res->nruns && res->runs[k].loss.counted;
	const bool jitter = lossy && res->cs.pat && res->cs.pat->extras &&
			    !strcmp(res->cs.pat->extras[0].key, "jitter_ns") &&
			    isfinite(res->runs[k].extra[0]);
	json_t *a = NULL, *o;

	for (size_t i = 0; i < res->nivals; i++) {
		if (res->ivals[i].run != k)
			continue;
		if (!a && !(a = json_array()))
			return -ENOMEM;
		o = ival_obj(&res->ivals[i], lossy, jitter);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return -ENOMEM;
		}
	}
	return a ? set(run, "intervals", a) : 0;
}

static const char *const counts[] = {
	"start_ns", "end_ns", "iterations", "messages",
	"bytes",    "p50_ns", "p99_ns",
};

static void read_one(struct rd *r, json_t *o, const char *at,
		     struct ipc_interval *iv)
{
	uint64_t *f[] = {&iv->start_ns, &iv->end_ns, &iv->iterations,
			 &iv->messages, &iv->bytes,  &iv->p50_ns,
			 &iv->p99_ns};

	if (!json_is_object(o)) {
		jr_bad(r, at, NULL, "not an object");
		return;
	}
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		jr_u64(r, o, at, counts[i], true, f[i]);
	jr_u64(r, o, at, "lost", false, &iv->lost);
	jr_u64(r, o, at, "jitter_ns", false, &iv->jitter_ns);
	if (!r->rc && iv->end_ns < iv->start_ns)
		jr_bad(r, at, "end_ns", "%llu, before its start_ns %llu",
		       (unsigned long long)iv->end_ns,
		       (unsigned long long)iv->start_ns);
}

static int grow(struct ipc_result *res, size_t more)
{
	size_t cap = res->nivals + more;
	void *n;

	if (cap <= res->ivals_cap)
		return 0;
	n = realloc(res->ivals, cap * sizeof(*res->ivals));
	if (!n)
		return -ENOMEM;
	res->ivals = n;
	res->ivals_cap = cap;
	return 0;
}

int intervals_json_get(struct rd *r, json_t *runs, const char *at,
		       struct ipc_result *res)
{
	json_t *run, *a, *o;
	size_t k, i;
	uint64_t prev_end;
	char sat[128];

	json_array_foreach(runs, k, run)
	{
		snprintf(sat, sizeof(sat), "%s.runs[%zu]", at, k);
		a = json_is_object(run) ? jr_arr(r, run, sat, "intervals")
					: NULL;
		if (!a || r->rc)
			continue;
		if (grow(res, json_array_size(a))) {
			jr_keep(r, NULL);
			return r->rc;
		}
		prev_end = 0;
		json_array_foreach(a, i, o)
		{
			struct ipc_interval *iv = &res->ivals[res->nivals];

			snprintf(sat, sizeof(sat),
				 "%s.runs[%zu].intervals[%zu]", at, k, i);
			*iv = (struct ipc_interval){.run = (uint32_t)k};
			read_one(r, o, sat, iv);
			if (!r->rc && iv->start_ns < prev_end)
				jr_bad(r, sat, "start_ns",
				       "%llu, before the end of the interval "
				       "before it (%llu)",
				       (unsigned long long)iv->start_ns,
				       (unsigned long long)prev_end);
			if (r->rc)
				return r->rc;
			prev_end = iv->end_ns;
			res->nivals++;
		}
	}
	return r->rc;
}

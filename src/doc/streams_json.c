/* SPDX-License-Identifier: MIT */
/*
 * The "streams" array of a run in a JSON result (docs/json.md): per
 * stream of a parallel run its number, direction, what it moved and its
 * rates; the run's own figures are their sums.  Rates are read back as
 * written: they are each stream's own, over its own elapsed time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streams_json.h"
#include "jread.h"

/* enum ipc_direction of one stream (never bidir: that is two streams). */
static const char *const dirs[] = {"send", "reverse", NULL};

static int set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -ENOMEM;
}

static json_t *ju(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *stream_obj(const struct ipc_stream *s, bool lossy)
{
	json_t *o = json_object();
	int err;

	if (!o)
		return NULL;
	err = set(o, "stream", ju(s->index));
	err = err
		      ?: set(o, "direction",
			     json_string(s->direction < 2 ? dirs[s->direction]
							  : "send"));
	err = err ?: set(o, "iterations", ju(s->iterations));
	err = err ?: set(o, "messages", ju(s->messages));
	err = err ?: set(o, "bytes", ju(s->bytes));
	err = err ?: set(o, "elapsed_ns", ju(s->elapsed_ns));
	err = err ?: set(o, "msgs_per_s", json_real(s->msgs_per_s));
	err = err ?: set(o, "bytes_per_s", json_real(s->bytes_per_s));
	if (!err && lossy)
		err = set(o, "lost", ju(s->lost));
	if (!err && s->failed)
		err = set(o, "failed", json_true());
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int streams_json_put(json_t *run, const struct ipc_result *res, size_t k)
{
	const bool lossy = k < res->nruns && res->runs[k].loss.counted;
	json_t *a = NULL, *o;

	for (size_t i = 0; i < res->nstreams; i++) {
		if (res->streams[i].run != k)
			continue;
		if (!a && !(a = json_array()))
			return -ENOMEM;
		o = stream_obj(&res->streams[i], lossy);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return -ENOMEM;
		}
	}
	return a ? set(run, "streams", a) : 0;
}

static void read_one(struct rd *r, json_t *o, const char *at,
		     struct ipc_stream *s)
{
	uint64_t index = 0;
	const char *dir;
	json_t *failed;
	int d;

	if (!json_is_object(o)) {
		jr_bad(r, at, NULL, "not an object");
		return;
	}
	jr_u64(r, o, at, "stream", true, &index);
	s->index = (uint32_t)index;
	jr_u64(r, o, at, "iterations", true, &s->iterations);
	jr_u64(r, o, at, "messages", true, &s->messages);
	jr_u64(r, o, at, "bytes", true, &s->bytes);
	jr_u64(r, o, at, "elapsed_ns", true, &s->elapsed_ns);
	jr_u64(r, o, at, "lost", false, &s->lost);
	s->msgs_per_s = jr_num(r, o, at, "msgs_per_s");
	s->bytes_per_s = jr_num(r, o, at, "bytes_per_s");
	dir = jr_str(r, o, at, "direction");
	d = dir ? jr_name_index(r, at, "direction", dirs, dir) : 0;
	s->direction = d > 0 ? (unsigned)d : 0;
	failed = json_object_get(o, "failed");
	s->failed = json_is_true(failed);
	if (!r->rc && index > UINT32_MAX)
		jr_bad(r, at, "stream", "%llu, too large",
		       (unsigned long long)index);
}

int streams_json_get(struct rd *r, json_t *runs, const char *at,
		     struct ipc_result *res)
{
	json_t *run, *a, *o;
	size_t k, i, cap;
	char sat[128];
	void *n;

	json_array_foreach(runs, k, run)
	{
		snprintf(sat, sizeof(sat), "%s.runs[%zu]", at, k);
		a = json_is_object(run) ? jr_arr(r, run, sat, "streams") : NULL;
		if (!a || r->rc)
			continue;
		cap = res->nstreams + json_array_size(a);
		if (cap > res->streams_cap) {
			n = realloc(res->streams, cap * sizeof(*res->streams));
			if (!n) {
				jr_keep(r, NULL);
				return r->rc;
			}
			res->streams = n;
			res->streams_cap = cap;
		}
		json_array_foreach(a, i, o)
		{
			struct ipc_stream *s = &res->streams[res->nstreams];

			snprintf(sat, sizeof(sat), "%s.runs[%zu].streams[%zu]",
				 at, k, i);
			*s = (struct ipc_stream){.run = (uint32_t)k};
			read_one(r, o, sat, s);
			if (r->rc)
				return r->rc;
			res->nstreams++;
		}
	}
	return r->rc;
}

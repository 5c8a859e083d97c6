/* SPDX-License-Identifier: MIT */
/*
 * Reading a result's figures back: each run (counts, latency, loss,
 * flows, the pattern's extras, CPU cost, load) and the summary with its
 * interval and diagnosis, as the JSON formatter wrote them.
 */
#include <math.h>
#include <string.h>

#include "jread.h"

static void read_loss(struct rd *r, json_t *o, const char *at,
		      struct ipc_loss *l)
{
	json_t *x = jr_obj(r, o, at, KEY_LOSS, false);
	char sat[96];

	if (!x)
		return;
	jr_at(sat, sizeof(sat), at, KEY_LOSS);
	l->counted = true;
	jr_table(r, x, sat, l, &js_loss);
	jr_u64(r, x, sat, KEY_LATE, false, &l->late);
	l->reorder_known =
		jr_u64(r, x, sat, KEY_REORDERED, false, &l->reordered);
}

static void read_flows(struct rd *r, json_t *o, const char *at,
		       struct ipc_flows *f)
{
	json_t *x = jr_obj(r, o, at, KEY_FLOWS, false);
	char sat[96];

	if (!x)
		return;
	jr_at(sat, sizeof(sat), at, KEY_FLOWS);
	jr_table(r, x, sat, f, &js_flows);
	jr_u64(r, x, sat, KEY_LAG, false, &f->lag_max_ns);
}

/* The pattern's extras of @which kind into @s; NAN where left out. */
void jr_extras(struct rd *r, json_t *o, const char *at,
	       const struct ipc_case *cs, struct ipc_run_stats *s,
	       unsigned which)
{
	const struct ipc_extra *x = cs->pat->extras;

	for (size_t k = 0; x && x[k].key && k < IPC_EXTRA_MAX; k++)
		if ((x[k].flags & IPC_EXTRA_RUN) == which)
			s->extra[k] = jr_num(r, o, at, x[k].key);
}

/* A latency summary: every percentile is there, mean and sd if finite. */
static void read_lat(struct rd *r, json_t *o, const char *at, const char *key,
		     struct ipc_lat *l)
{
	json_t *x = jr_obj(r, o, at, key, true);
	char sat[96];

	if (x)
		jr_table(r, x, jr_at(sat, sizeof(sat), at, key), l, &js_lat);
}

/*
 * A run's rate is its count over elapsed_ns, as the runner computed it: a
 * rate of 1e308, 0 or -5 messages a second for 3,000 messages in 8 ms is
 * not a measurement, and compare would give it a verdict.
 */
static void rate_sane(struct rd *r, const char *at, const char *key, double v,
		      uint64_t count, const char *what, uint64_t elapsed_ns)
{
	double want = elapsed_ns ? (double)count / (elapsed_ns / 1e9) : 0;

	if (isfinite(v) && fabs(v - want) > 1e-6 * want + 1e-9)
		jr_bad(r, at, key,
		       "%g is not %llu %s over %llu ns (%g/s): a figure that "
		       "contradicts its counts",
		       v, (unsigned long long)count, what,
		       (unsigned long long)elapsed_ns, want);
}

/* Percentiles in order between min and max, mean and sd that fit them. */
static void lat_sane(struct rd *r, const char *at, const struct ipc_lat *l,
		     uint64_t iterations)
{
	char sat[96];

	jr_at(sat, sizeof(sat), at, KEY_LATENCY);
	if (!(l->min <= l->p50 && l->p50 <= l->p90 && l->p90 <= l->p99 &&
	      l->p99 <= l->p999 && l->p999 <= l->max))
		jr_bad(r, sat, NULL,
		       "min %llu, p50 %llu, p90 %llu, p99 %llu, p99.9 %llu and "
		       "max %llu are not in order",
		       (unsigned long long)l->min, (unsigned long long)l->p50,
		       (unsigned long long)l->p90, (unsigned long long)l->p99,
		       (unsigned long long)l->p999, (unsigned long long)l->max);
	else if (isfinite(l->mean) &&
		 (l->mean + 1 < (double)l->min || l->mean > (double)l->max + 1))
		jr_bad(r, sat, "mean", "%g is outside min %llu .. max %llu",
		       l->mean, (unsigned long long)l->min,
		       (unsigned long long)l->max);
	else if (isfinite(l->stddev) &&
		 l->stddev > (double)(l->max - l->min) + 1)
		jr_bad(r, sat, "stddev", "%g is more than max - min (%llu)",
		       l->stddev, (unsigned long long)(l->max - l->min));
	else if (iterations && !l->max)
		jr_bad(r, sat, "max",
		       "0 ns for %llu iterations: nothing was timed",
		       (unsigned long long)iterations);
}

/* What a run and the summary share: counts, rates, loss, flows, extras. */
static void read_counts(struct rd *r, json_t *o, const char *at,
			const struct ipc_case *cs, struct ipc_run_stats *s)
{
	jr_table(r, o, at, s, &js_counts);
	read_lat(r, o, at, KEY_LATENCY, &s->lat);
	read_flows(r, o, at, &s->flows);
	jr_extras(r, o, at, cs, s, IPC_EXTRA_RUN);
	if (!r->rc)
		lat_sane(r, at, &s->lat, s->iterations);
}

void jr_run(struct rd *r, json_t *o, const char *at, const struct ipc_case *cs,
	    struct ipc_run_stats *s)
{
	json_t *far;

	if (!json_is_object(o)) {
		jr_bad(r, at, NULL, "not an object");
		return;
	}
	read_counts(r, o, at, cs, s);
	far = json_object_get(o, KEY_OUTLIER);
	if (far && !json_is_boolean(far))
		jr_bad(r, at, KEY_OUTLIER, "not true or false");
	s->outlier = json_is_true(far);
	/*
	 * A run's rates are its counts over its elapsed_ns (a summary's need
	 * not be: replay's elapsed_ns is the median replay's).
	 */
	if (!r->rc)
		rate_sane(r, at, "msgs_per_s", s->msgs_per_s, s->messages,
			  "messages", s->elapsed_ns);
	if (!r->rc)
		rate_sane(r, at, "bytes_per_s", s->bytes_per_s, s->bytes,
			  "bytes", s->elapsed_ns);
	jr_u64(r, o, at, KEY_TIMER, true, &s->timer_ns);
	read_loss(r, o, at, &s->loss);
	jr_u64(r, o, at, KEY_WALL, false, &s->wall_ns);
	jr_u64(r, o, at, KEY_LOOP_MSGS, false, &s->loop_msgs);
	if (jr_table_at(r, o, at, KEY_CLIENT, &s->client, &js_side))
		s->client.valid = true;
	if (jr_table_at(r, o, at, KEY_SERVER, &s->server, &js_side))
		s->server.valid = true;
	if (jr_table_at(r, o, at, KEY_LOAD, s, &js_runload))
		s->have_load = true;
}

/* Two counts of the groups of bimodal runs, [lower, upper]. */
static void read_pair(struct rd *r, json_t *o, const char *at, const char *key,
		      size_t *out)
{
	json_t *a = jr_arr(r, o, at, key);

	for (size_t i = 0; a && i < 2; i++) {
		json_t *v = json_array_get(a, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			jr_bad(r, at, key, "not two counts");
		else
			out[i] = (size_t)json_integer_value(v);
	}
}

/* The stopping rule, modes, cost, placement and load of a summary. */
static void read_diag(struct rd *r, json_t *o, const char *at,
		      struct ipc_result *res)
{
	struct ipc_diag *d = &res->diag;
	const char *s;
	json_t *x;
	char sat[96];
	uint64_t u;
	int k;

	s = jr_str(r, o, at, KEY_METRIC);
	if (s && !(d->metric = ipc_metric_find(s)))
		jr_bad(r, at, KEY_METRIC, "unknown metric '%s'", s);
	d->estimate = jr_num(r, o, at, KEY_ESTIMATE);
	res->metric.median = d->estimate;
	x = jr_obj(r, o, at, KEY_TARGET, false);
	if (x) {
		jr_at(sat, sizeof(sat), at, KEY_TARGET);
		res->metric.ci_level = jr_num(r, x, sat, KEY_LEVEL);
		d->target_met = json_is_true(json_object_get(x, "met"));
		if (json_object_get(x, KEY_HALF))
			d->half_pct = jr_num(r, x, sat, KEY_HALF);
		s = jr_str(r, x, sat, KEY_STOP);
		for (k = IPC_STOP_NONE + 1; s && k <= IPC_STOP_OUT_OF_REACH;
		     k++)
			if (!strcmp(ipc_stop_name(k), s))
				d->stop = k;
		if (s && !d->stop)
			jr_bad(r, sat, KEY_STOP, "'%s' is unknown", s);
	}
	x = jr_obj(r, o, at, KEY_MODES, false);
	if (x) {
		jr_at(sat, sizeof(sat), at, KEY_MODES);
		d->modes.bimodal = true;
		d->modes.low = jr_num(r, x, sat, KEY_LOW);
		d->modes.high = jr_num(r, x, sat, KEY_HIGH);
		if (jr_u64(r, x, sat, KEY_NLOW, true, &u))
			d->modes.nlow = (size_t)u;
		if (jr_u64(r, x, sat, KEY_NHIGH, true, &u))
			d->modes.nhigh = (size_t)u;
		read_pair(r, x, sat, KEY_MODE_SAME, d->mode_same);
		read_pair(r, x, sat, KEY_MODE_SPLIT, d->mode_split);
	}
	if (jr_u64(r, o, at, KEY_OUTLIERS, false, &u))
		d->outliers = (size_t)u;
	if (json_object_get(o, KEY_EARLY_WAKE))
		d->early_wake_vcsw = jr_num(r, o, at, KEY_EARLY_WAKE);
	x = jr_obj(r, o, at, KEY_CPU, false);
	if (x) {
		jr_at(sat, sizeof(sat), at, KEY_CPU);
		if (jr_table_at(r, x, sat, KEY_CLIENT, &d->client, &js_cost))
			d->client.valid = true;
		if (jr_table_at(r, x, sat, KEY_SERVER, &d->server, &js_cost))
			d->server.valid = true;
	}
	jr_table_at(r, o, at, KEY_PLACEMENT, d, &js_place);
	x = jr_obj(r, o, at, KEY_LOAD, false);
	if (x) {
		jr_at(sat, sizeof(sat), at, KEY_LOAD);
		d->have_load = json_object_get(x, KEY_OTHER_CPUS) != NULL;
		d->other_cpus = jr_num(r, x, sat, KEY_OTHER_CPUS);
		d->steal_cpus = jr_num(r, x, sat, KEY_STEAL_CPUS);
		/* Older documents lack it: the figures' +- is unknown. */
		d->load_res_cpus = json_object_get(x, KEY_RES_CPUS)
					   ? jr_num(r, x, sat, KEY_RES_CPUS)
					   : -1;
		if (json_object_get(x, KEY_LOADAVG_1M))
			d->loadavg_1m = jr_num(r, x, sat, KEY_LOADAVG_1M);
		/* Older documents lack it: their runs read /proc/stat. */
		s = json_string_value(json_object_get(x, KEY_LOAD_SRC));
		k = s ? jr_name_index(r, sat, KEY_LOAD_SRC, js_load_src_names,
				      s)
		      : -1;
		if (k >= 0)
			d->load_src = (enum ipc_load_src)k;
	}
}

void jr_summary(struct rd *r, json_t *o, const char *at, struct ipc_result *res)
{
	struct ipc_run_stats *s = &res->summary;
	json_t *ci;
	char sat[96];

	res->diag.half_pct = -1;
	res->diag.loadavg_1m = -1;
	res->diag.load_res_cpus = -1;
	if (!o)
		return;
	read_loss(r, o, at, &s->loss);
	/* A case that measured nothing has no numbers at all. */
	if (!json_object_get(o, "iterations"))
		return;
	read_counts(r, o, at, &res->cs, s);
	if (json_object_get(o, KEY_XLATENCY)) {
		read_lat(r, o, at, KEY_XLATENCY, &res->xlat);
		res->xcount = s->messages ? s->messages : 1;
	}
	res->metric.n = res->nruns;
	res->metric.cv = jr_num(r, o, at, KEY_CV);
	ci = jr_obj(r, o, at, KEY_CI, false);
	if (ci) {
		jr_at(sat, sizeof(sat), at, KEY_CI);
		res->metric.have_ci = true;
		res->metric.ci_level = jr_num(r, ci, sat, KEY_LEVEL);
		res->metric.ci_low = jr_num(r, ci, sat, KEY_LOW);
		res->metric.ci_high = jr_num(r, ci, sat, KEY_HIGH);
	}
	read_diag(r, o, at, res);
}

/* @s into @buf, cut before a character that does not fit whole. */
static void copy_cut(char *buf, size_t len, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= len) {
		n = len - 1;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(buf, s ? s : "", n);
	buf[n] = '\0';
}

unsigned jr_flags(struct rd *r, json_t *o, const char *at, struct ipc_diag *d)
{
	json_t *a = jr_arr(r, o, at, KEY_FLAGS), *f, *why;
	unsigned unworded = 0;
	const char *name;
	size_t i;

	json_array_foreach(a, i, f)
	{
		name = json_string_value(json_object_get(f, KEY_FLAG));
		why = json_object_get(f, KEY_WHY);
		if (!name) {
			jr_bad(r, at, KEY_FLAGS, "a flag without its name");
			return 0;
		}
		if (why && !json_is_string(why)) {
			jr_bad(r, at, KEY_FLAGS, "%s: why is not a string",
			       jr_clean(r, name));
			return 0;
		}
		/* A flag a later ipcperf added is not this one's to show. */
		for (int k = 0; k < IPC_FLAG_COUNT; k++) {
			if (strcmp(ipc_flag_name(k), name))
				continue;
			d->flags |= 1u << k;
			if (why)
				copy_cut(d->why[k], sizeof(d->why[k]),
					 jr_clean(r, json_string_value(why)));
			else
				unworded |= 1u << k;
		}
	}
	return unworded;
}

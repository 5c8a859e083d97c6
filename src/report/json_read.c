/*
 * The reader of result documents: the JSON formatter's output turned back
 * into result records, through the same schema tables (schema.c) and the
 * same pattern descriptions that wrote it.  Every problem is one sentence
 * naming the file and the field.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/report.h"
#include "schema.h"

/* What the records of a document point into, freed with it. */
struct ipc_doc_store {
	void **p;
	size_t n, cap;
	struct ipc_host host;
	struct ipc_runopts ro;
};

struct rd {
	const char *file;
	char *err;
	size_t err_len;
	int rc; /* the first failure, 0 until then */
	struct ipc_doc_store *st;
};

/* Keep @p to free with the document; NULL (and -ENOMEM) if it is NULL. */
static void *keep(struct rd *r, void *p)
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

static char *keep_str(struct rd *r, const char *s)
{
	return keep(r, strdup(s ? s : ""));
}

/* "FILE: AT.KEY: what is wrong"; only the first failure is kept. */
__attribute__((format(printf, 4, 5))) static void
bad(struct rd *r, const char *at, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->rc)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->rc = -EINVAL;
	snprintf(r->err, r->err_len, "%s: %s%s%s: %s", r->file, at,
		 at[0] && key ? "." : "", key ? key : "", msg);
}

/* The path of a member: "results[2]" and "summary" give "results[2].summary". */
static const char *sub_at(char *buf, size_t len, const char *at,
			  const char *key)
{
	int n = snprintf(buf, len, "%s%s%s", at, at[0] ? "." : "", key);

	if (n < 0 || (size_t)n >= len)
		snprintf(buf, len, "%s", "(a path too deep to name)");
	return buf;
}

/* @key of @o as an object; NULL when absent (or wrong: then an error). */
static json_t *get_obj(struct rd *r, json_t *o, const char *at, const char *key,
		       bool required)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			bad(r, at, key, "missing");
		return NULL;
	}
	if (!json_is_object(v)) {
		bad(r, at, key, "not an object");
		return NULL;
	}
	return v;
}

static json_t *get_arr(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v && !json_is_array(v)) {
		bad(r, at, key, "not an array");
		return NULL;
	}
	return v;
}

/* An unsigned integer at @key; false (with an error if @required) if not. */
static bool get_u64(struct rd *r, json_t *o, const char *at, const char *key,
		    bool required, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			bad(r, at, key, "missing");
		return false;
	}
	if (!json_is_integer(v)) {
		bad(r, at, key, "not an integer");
		return false;
	}
	if (json_integer_value(v) < 0) {
		bad(r, at, key, "negative");
		return false;
	}
	*out = (uint64_t)json_integer_value(v);
	return true;
}

/* A number at @key, NAN when absent (the writer left it out). */
static double get_num(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		bad(r, at, key, "not a number");
		return NAN;
	}
	return json_number_value(v);
}

/* A string at @key, NULL when absent or null. */
static const char *get_str(struct rd *r, json_t *o, const char *at,
			   const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		bad(r, at, key, "not a string");
		return NULL;
	}
	return json_string_value(v);
}

/* The index of @s among @names (NULL-terminated), or -1 with an error. */
static int name_index(struct rd *r, const char *at, const char *key,
		      const char *const *names, const char *s)
{
	char known[128] = "";

	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	for (int i = 0; names[i]; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s%s", i ? ", " : "", names[i]);
	bad(r, at, key, "'%s' is not one of %s", s, known);
	return -1;
}

/* What a field left out by the writer stands for. */
static void field_absent(void *v, const struct jfield *f)
{
	switch (f->kind) {
	case JK_REAL:
	case JK_ROUND:
		*(double *)v = NAN;
		break;
	case JK_REAL_OPT:
		*(double *)v = -1;
		break;
	case JK_I64_OPT:
		*(int64_t *)v = -1;
		break;
	case JK_INT_NULL:
	case JK_TRI:
		*(int *)v = -1;
		break;
	default:
		break; /* stays as the record was: 0, "" or a default */
	}
}

/* May the writer have left @f out? */
static bool may_lack(const struct jfield *f)
{
	return (f->flags & (JF_OPT | JF_NONZERO)) || f->kind == JK_REAL ||
	       f->kind == JK_ROUND || f->kind == JK_REAL_OPT ||
	       f->kind == JK_I64_OPT;
}

static void get_field(struct rd *r, json_t *o, const char *at, void *base,
		      const struct jfield *f)
{
	void *v = (char *)base + f->off;
	json_t *j = json_object_get(o, f->key);
	uint64_t u = 0;
	int i;

	if (!j) {
		if (may_lack(f))
			field_absent(v, f);
		else
			bad(r, at, f->key, "missing");
		return;
	}
	if (json_is_null(j) && (f->kind == JK_INT_NULL || f->kind == JK_TRI ||
				f->kind == JK_CHARS_NULL)) {
		field_absent(v, f);
		if (f->kind == JK_CHARS_NULL)
			*(char *)v = '\0';
		return;
	}
	switch (f->kind) {
	case JK_U64:
	case JK_SIZE:
	case JK_UINT:
	case JK_I64_OPT:
		if (!get_u64(r, o, at, f->key, true, &u))
			return;
		if (f->kind == JK_U64)
			*(uint64_t *)v = u;
		else if (f->kind == JK_SIZE)
			*(size_t *)v = (size_t)u;
		else if (f->kind == JK_UINT)
			*(unsigned *)v = (unsigned)u;
		else
			*(int64_t *)v = (int64_t)u;
		return;
	case JK_INT:
	case JK_INT_NULL:
		if (!json_is_integer(j))
			bad(r, at, f->key, "not an integer");
		else
			*(int *)v = (int)json_integer_value(j);
		return;
	case JK_BOOL:
	case JK_TRI:
		if (!json_is_boolean(j))
			bad(r, at, f->key, "not true or false");
		else if (f->kind == JK_BOOL)
			*(bool *)v = json_is_true(j);
		else
			*(int *)v = json_is_true(j);
		return;
	case JK_REAL:
	case JK_ROUND:
	case JK_REAL_OPT:
		*(double *)v = get_num(r, o, at, f->key);
		return;
	case JK_CHARS:
	case JK_CHARS_NULL:
		if (!json_is_string(j))
			bad(r, at, f->key, "not a string");
		else if (json_string_length(j) >= f->len)
			bad(r, at, f->key, "longer than %zu bytes", f->len - 1);
		else
			memcpy(v, json_string_value(j),
			       json_string_length(j) + 1);
		return;
	case JK_ENUM:
		if (!json_is_string(j)) {
			bad(r, at, f->key, "not a string");
			return;
		}
		i = name_index(r, at, f->key, f->names, json_string_value(j));
		if (i >= 0)
			*(int *)v = i;
		return;
	}
}

static void get_table(struct rd *r, json_t *o, const char *at, void *base,
		      const struct jtable *t)
{
	for (size_t i = 0; i < t->n && !r->rc; i++)
		get_field(r, o, at, base, &t->f[i]);
}

static void read_host(struct rd *r, json_t *o, struct ipc_host *h)
{
	json_t *la, *perf;
	const char *s;

	memset(h, 0, sizeof(*h));
	h->cores = h->packages = h->smt = -1;
	h->loadavg[0] = h->loadavg[1] = h->loadavg[2] = -1;
	if (!o)
		return;
	get_table(r, o, "host", h, &js_host);
	la = get_arr(r, o, "host", KEY_LOADAVG);
	for (size_t i = 0; la && i < 3 && i < json_array_size(la); i++) {
		json_t *v = json_array_get(la, i);

		if (!json_is_number(v))
			bad(r, "host", KEY_LOADAVG, "not numbers");
		else
			h->loadavg[i] = json_number_value(v);
	}
	perf = get_obj(r, o, "host", KEY_PERF, false);
	if (perf) {
		h->perf_hw =
			json_is_true(json_object_get(perf, KEY_PERF_CYCLES));
		h->perf_sw = json_is_true(json_object_get(perf, KEY_PERF_MIGR));
		s = get_str(r, perf, "host.perf", KEY_PERF_NOTE);
		snprintf(h->perf, sizeof(h->perf), "%s", s ? s : "");
	}
	s = get_str(r, o, "host", KEY_STARTED);
	snprintf(h->started, sizeof(h->started), "%s", s ? s : "");
	s = get_str(r, o, "host", KEY_ENDED);
	snprintf(h->ended, sizeof(h->ended), "%s", s ? s : "");
}

/* The options of a case or of the whole document. */
static void read_config(struct rd *r, json_t *o, const char *at,
			struct ipc_runopts *ro)
{
	uint64_t runs;
	json_t *dev;

	ipc_runopts_default(ro);
	if (!o)
		return;
	get_table(r, o, at, ro, &js_config);
	get_table(r, o, at, ro, &js_config1);
	get_table(r, o, at, ro, &js_config2);
	if (get_u64(r, o, at, KEY_CFG_RUNS, false, &runs))
		ro->runs = (unsigned)runs;
	dev = json_object_get(o, KEY_CFG_DEVICE);
	if (json_is_array(dev) && json_array_size(dev) == 2 &&
	    json_is_string(json_array_get(dev, 0)) &&
	    json_is_string(json_array_get(dev, 1))) {
		ro->tp.device[0] =
			keep_str(r, json_string_value(json_array_get(dev, 0)));
		ro->tp.device[1] =
			keep_str(r, json_string_value(json_array_get(dev, 1)));
	} else if (dev && !json_is_null(dev)) {
		bad(r, at, KEY_CFG_DEVICE, "not two strings or null");
	}
}

/*
 * A transport or engine this build lacks (io_uring, a serial port of
 * another host): an entry that has its name and nothing else.
 */
static const void *stand_in(struct rd *r, size_t size, const char *name)
{
	void *ops = keep(r, calloc(1, size));

	/* Both ops structs start with their name. */
	if (ops)
		*(const char **)ops = keep_str(r, name);
	return ops;
}

static void read_link(struct rd *r, json_t *o, const char *at,
		      struct ipc_case *cs)
{
	const char *name = get_str(r, o, at, KEY_LINK);
	char sat[64];
	struct ipc_link *l;
	json_t *p;
	double loss;

	if (!name || !strcmp(name, "none"))
		return;
	l = keep(r, calloc(1, sizeof(*l)));
	if (!l)
		return;
	snprintf(l->name, sizeof(l->name), "%s", name);
	p = get_obj(r, o, at, KEY_LINK_PARAMS, false);
	if (p) {
		sub_at(sat, sizeof(sat), at, KEY_LINK_PARAMS);
		l->relay = true;
		get_table(r, p, sat, l, &js_link);
		get_table(r, p, sat, l, &js_link2);
		loss = get_num(r, p, sat, KEY_LINK_LOSS);
		l->loss_ppm = isfinite(loss) ? (uint32_t)lround(loss * 1e6) : 0;
	}
	cs->link = l;
}

/* The case's parameters, as its pattern describes them. */
static void read_params(struct rd *r, json_t *o, const char *at,
			struct ipc_case *cs)
{
	const struct ipc_param *p;
	const char *s;
	uint64_t v;
	int i;

	if (cs->pat->flags & IPC_PAT_TRACE)
		cs->trace = keep(r, calloc(1, sizeof(struct ipc_trace)));
	if (cs->pat->cfg_size)
		cs->cfg = keep(r, calloc(1, cs->pat->cfg_size));
	for (p = cs->pat->params; p && p->key && !r->rc; p++) {
		if ((p->flags & IPC_PARAM_DERIVED) || !ipc_param_at(cs, p))
			continue;
		if (p->type == IPC_VT_STR || p->type == IPC_VT_CHARS) {
			s = get_str(r, o, at, p->key);
			if (!s)
				bad(r, at, p->key, "missing");
			else if (p->type == IPC_VT_STR)
				*(char **)ipc_param_at(cs, p) = keep_str(r, s);
			else if (strlen(s) >= p->len)
				bad(r, at, p->key, "longer than %zu bytes",
				    p->len - 1);
			else
				strcpy(ipc_param_at(cs, p), s);
			continue;
		}
		if (p->fmt == IPC_FMT_NAME && p->names) {
			s = get_str(r, o, at, p->key);
			if (!s) {
				bad(r, at, p->key, "missing");
				continue;
			}
			for (i = 0; p->names[i] && strcmp(p->names[i], s); i++)
				;
			if (!p->names[i])
				bad(r, at, p->key, "'%s' is unknown", s);
			else
				ipc_param_set_u64(cs, p, (uint64_t)i);
			continue;
		}
		if (get_u64(r, o, at, p->key, !(p->flags & IPC_PARAM_JSON_DFLT),
			    &v))
			ipc_param_set_u64(cs, p, v);
		else if (!r->rc)
			ipc_param_set_u64(cs, p, p->dflt);
	}
}

static void read_loss(struct rd *r, json_t *o, const char *at,
		      struct ipc_loss *l)
{
	json_t *x = get_obj(r, o, at, KEY_LOSS, false);
	char sat[96];

	if (!x)
		return;
	sub_at(sat, sizeof(sat), at, KEY_LOSS);
	l->counted = true;
	get_table(r, x, sat, l, &js_loss);
	get_u64(r, x, sat, KEY_LATE, false, &l->late);
	l->reorder_known =
		get_u64(r, x, sat, KEY_REORDERED, false, &l->reordered);
}

static void read_flows(struct rd *r, json_t *o, const char *at,
		       struct ipc_flows *f)
{
	json_t *x = get_obj(r, o, at, KEY_FLOWS, false);
	char sat[96];

	if (!x)
		return;
	sub_at(sat, sizeof(sat), at, KEY_FLOWS);
	get_table(r, x, sat, f, &js_flows);
	get_u64(r, x, sat, KEY_LAG, false, &f->lag_max_ns);
}

/* The pattern's extras of @which kind into @s; NAN where left out. */
static void read_extras(struct rd *r, json_t *o, const char *at,
			const struct ipc_case *cs, struct ipc_run_stats *s,
			unsigned which)
{
	const struct ipc_extra *x = cs->pat->extras;

	for (size_t k = 0; x && x[k].key && k < IPC_EXTRA_MAX; k++)
		if ((x[k].flags & IPC_EXTRA_RUN) == which)
			s->extra[k] = get_num(r, o, at, x[k].key);
}

/* A latency summary: every percentile is there, mean and sd if finite. */
static void read_lat(struct rd *r, json_t *o, const char *at, const char *key,
		     struct ipc_lat *l)
{
	json_t *x = get_obj(r, o, at, key, true);
	char sat[96];

	if (x)
		get_table(r, x, sub_at(sat, sizeof(sat), at, key), l, &js_lat);
}

/* What a run and the summary share: counts, rates, loss, flows, extras. */
static void read_counts(struct rd *r, json_t *o, const char *at,
			const struct ipc_case *cs, struct ipc_run_stats *s)
{
	get_table(r, o, at, s, &js_counts);
	read_lat(r, o, at, KEY_LATENCY, &s->lat);
	read_flows(r, o, at, &s->flows);
	read_extras(r, o, at, cs, s, IPC_EXTRA_RUN);
}

static void read_side(struct rd *r, json_t *o, const char *at, const char *key,
		      struct ipc_side_cost *c)
{
	json_t *x = get_obj(r, o, at, key, false);
	char sat[96];

	if (!x)
		return;
	c->valid = true;
	get_table(r, x, sub_at(sat, sizeof(sat), at, key), c, &js_side);
}

static void read_run(struct rd *r, json_t *o, const char *at,
		     const struct ipc_case *cs, struct ipc_run_stats *s)
{
	json_t *ld;
	char sat[96];

	if (!json_is_object(o)) {
		bad(r, at, NULL, "not an object");
		return;
	}
	read_counts(r, o, at, cs, s);
	get_u64(r, o, at, KEY_TIMER, true, &s->timer_ns);
	read_loss(r, o, at, &s->loss);
	get_u64(r, o, at, KEY_WALL, false, &s->wall_ns);
	get_u64(r, o, at, KEY_LOOP_MSGS, false, &s->loop_msgs);
	read_side(r, o, at, KEY_CLIENT, &s->client);
	read_side(r, o, at, KEY_SERVER, &s->server);
	ld = get_obj(r, o, at, KEY_LOAD, false);
	if (ld) {
		s->have_load = true;
		get_table(r, ld, sub_at(sat, sizeof(sat), at, KEY_LOAD), s,
			  &js_runload);
	}
}

static void read_cost(struct rd *r, json_t *o, const char *at, const char *key,
		      struct ipc_cost *c)
{
	json_t *x = get_obj(r, o, at, key, false);
	char sat[96];

	if (!x)
		return;
	c->valid = true;
	get_table(r, x, sub_at(sat, sizeof(sat), at, key), c, &js_cost);
}

/* Two counts of the groups of bimodal runs, [lower, upper]. */
static void read_pair(struct rd *r, json_t *o, const char *at, const char *key,
		      size_t *out)
{
	json_t *a = get_arr(r, o, at, key);

	for (size_t i = 0; a && i < 2; i++) {
		json_t *v = json_array_get(a, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			bad(r, at, key, "not two counts");
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

	s = get_str(r, o, at, KEY_METRIC);
	if (s && !(d->metric = ipc_metric_find(s)))
		bad(r, at, KEY_METRIC, "unknown metric '%s'", s);
	d->estimate = get_num(r, o, at, KEY_ESTIMATE);
	res->metric.median = d->estimate;
	x = get_obj(r, o, at, KEY_TARGET, false);
	if (x) {
		sub_at(sat, sizeof(sat), at, KEY_TARGET);
		res->metric.ci_level = get_num(r, x, sat, KEY_LEVEL);
		d->target_met = json_is_true(json_object_get(x, "met"));
		if (json_object_get(x, KEY_HALF))
			d->half_pct = get_num(r, x, sat, KEY_HALF);
		s = get_str(r, x, sat, KEY_STOP);
		for (k = IPC_STOP_NONE + 1; s && k <= IPC_STOP_INTERRUPTED; k++)
			if (!strcmp(ipc_stop_name(k), s))
				d->stop = k;
		if (s && !d->stop)
			bad(r, sat, KEY_STOP, "'%s' is unknown", s);
	}
	x = get_obj(r, o, at, KEY_MODES, false);
	if (x) {
		sub_at(sat, sizeof(sat), at, KEY_MODES);
		d->modes.bimodal = true;
		d->modes.low = get_num(r, x, sat, KEY_LOW);
		d->modes.high = get_num(r, x, sat, KEY_HIGH);
		if (get_u64(r, x, sat, KEY_NLOW, true, &u))
			d->modes.nlow = (size_t)u;
		if (get_u64(r, x, sat, KEY_NHIGH, true, &u))
			d->modes.nhigh = (size_t)u;
		read_pair(r, x, sat, KEY_MODE_SAME, d->mode_same);
		read_pair(r, x, sat, KEY_MODE_SPLIT, d->mode_split);
	}
	if (get_u64(r, o, at, KEY_OUTLIERS, false, &u))
		d->outliers = (size_t)u;
	x = get_obj(r, o, at, KEY_CPU, false);
	if (x) {
		sub_at(sat, sizeof(sat), at, KEY_CPU);
		read_cost(r, x, sat, KEY_CLIENT, &d->client);
		read_cost(r, x, sat, KEY_SERVER, &d->server);
	}
	x = get_obj(r, o, at, KEY_PLACEMENT, false);
	if (x)
		get_table(r, x, sub_at(sat, sizeof(sat), at, KEY_PLACEMENT), d,
			  &js_place);
	x = get_obj(r, o, at, KEY_LOAD, false);
	if (x) {
		sub_at(sat, sizeof(sat), at, KEY_LOAD);
		d->have_load = json_object_get(x, KEY_OTHER_CPUS) != NULL;
		d->other_cpus = get_num(r, x, sat, KEY_OTHER_CPUS);
		d->steal_cpus = get_num(r, x, sat, KEY_STEAL_CPUS);
		if (json_object_get(x, KEY_LOADAVG_1M))
			d->loadavg_1m = get_num(r, x, sat, KEY_LOADAVG_1M);
	}
}

static void read_summary(struct rd *r, json_t *o, const char *at,
			 struct ipc_result *res)
{
	struct ipc_run_stats *s = &res->summary;
	json_t *ci;
	char sat[96];

	res->diag.half_pct = -1;
	res->diag.loadavg_1m = -1;
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
	res->metric.cv = get_num(r, o, at, KEY_CV);
	ci = get_obj(r, o, at, KEY_CI, false);
	if (ci) {
		sub_at(sat, sizeof(sat), at, KEY_CI);
		res->metric.have_ci = true;
		res->metric.ci_level = get_num(r, ci, sat, KEY_LEVEL);
		res->metric.ci_low = get_num(r, ci, sat, KEY_LOW);
		res->metric.ci_high = get_num(r, ci, sat, KEY_HIGH);
	}
	read_diag(r, o, at, res);
}

static void read_flags(struct rd *r, json_t *o, const char *at,
		       struct ipc_diag *d)
{
	json_t *a = get_arr(r, o, at, KEY_FLAGS), *f;
	const char *name;
	size_t i;

	json_array_foreach(a, i, f)
	{
		name = json_string_value(json_object_get(f, KEY_FLAG));
		if (!name) {
			bad(r, at, KEY_FLAGS, "a flag without its name");
			return;
		}
		/* A flag a later ipcperf added is not this one's to show. */
		for (int k = 0; k < IPC_FLAG_COUNT; k++)
			if (!strcmp(ipc_flag_name(k), name))
				d->flags |= 1u << k;
	}
}

/* The case a result is about: pattern, transport, engine, parameters. */
static void read_case(struct rd *r, json_t *o, const char *at,
		      struct ipc_case *cs)
{
	const char *pat = get_str(r, o, at, KEY_PATTERN);
	const char *tp = get_str(r, o, at, KEY_TRANSPORT);
	const char *eng = get_str(r, o, at, KEY_ENGINE);
	const char *fr;

	memset(cs, 0, sizeof(*cs));
	if (!pat || !tp || !eng) {
		bad(r, at,
		    !pat  ? KEY_PATTERN
		    : !tp ? KEY_TRANSPORT
			  : KEY_ENGINE,
		    "missing");
		return;
	}
	cs->pat = ipc_pattern_find(pat);
	if (!cs->pat) {
		bad(r, at, KEY_PATTERN, "unknown pattern '%s'", pat);
		return;
	}
	cs->tp = ipc_transport_find(tp);
	if (!cs->tp)
		cs->tp = stand_in(r, sizeof(*cs->tp), tp);
	cs->eng = ipc_engine_find(eng);
	if (!cs->eng)
		cs->eng = stand_in(r, sizeof(*cs->eng), eng);
	read_params(r, o, at, cs);
	read_link(r, o, at, cs);
	fr = get_str(r, o, at, KEY_FRAMING);
	if (fr && (cs->pat->flags & IPC_PAT_FRAMED)) {
		cs->framing = ipc_framing_find(fr);
		if (!cs->framing)
			bad(r, at, KEY_FRAMING, "unknown framing '%s'", fr);
		cs->framing_noack = json_is_false(json_object_get(o, KEY_ACKS));
	}
}

/* One result, or NULL (r->rc says why). */
static struct ipc_result *read_result(struct rd *r, json_t *o, size_t idx)
{
	struct ipc_result *res;
	struct ipc_case cs;
	json_t *runs, *run;
	const char *st, *err;
	char at[48], sat[96];
	int k;
	size_t i;

	snprintf(at, sizeof(at), "results[%zu]", idx);
	if (!json_is_object(o)) {
		bad(r, at, NULL, "not an object");
		return NULL;
	}
	read_case(r, o, at, &cs);
	if (r->rc)
		return NULL;
	res = ipc_result_new(&cs);
	if (!res) {
		keep(r, NULL);
		return NULL;
	}
	st = get_str(r, o, at, KEY_STATUS);
	k = st ? name_index(r, at, KEY_STATUS, js_status_names, st) : -1;
	if (!st)
		bad(r, at, KEY_STATUS, "missing");
	res->status = k >= 0 ? (enum ipc_status)k : IPC_STATUS_ERROR;
	err = get_str(r, o, at, KEY_ERROR);
	snprintf(res->error, sizeof(res->error), "%s", err ? err : "");
	read_extras(r, o, at, &res->cs, &res->summary, 0);
	read_config(r, get_obj(r, o, at, KEY_CONFIG, false),
		    sub_at(sat, sizeof(sat), at, KEY_CONFIG), &res->ro);
	runs = get_arr(r, o, at, KEY_RUNS);
	res->nruns = json_array_size(runs);
	if (res->nruns) {
		res->runs = calloc(res->nruns, sizeof(*res->runs));
		res->runs_cap = res->nruns;
		if (!res->runs) {
			res->nruns = 0;
			keep(r, NULL);
		}
	}
	json_array_foreach(runs, i, run)
	{
		if (!res->runs || r->rc)
			break;
		snprintf(sat, sizeof(sat), "%s.runs[%zu]", at, i);
		read_run(r, run, sat, &res->cs, &res->runs[i]);
	}
	run = get_obj(r, o, at, KEY_SOCKET, false);
	if (run && res->nruns) {
		res->runs[0].sock.valid = true;
		get_table(r, run, sub_at(sat, sizeof(sat), at, KEY_SOCKET),
			  &res->runs[0].sock, &js_sock);
	}
	read_summary(r, get_obj(r, o, at, KEY_SUMMARY, false),
		     sub_at(sat, sizeof(sat), at, KEY_SUMMARY), res);
	read_flags(r, o, at, &res->diag);
	if (r->rc) {
		ipc_result_free(res);
		return NULL;
	}
	return res;
}

/* The document's own fields: what ran, where and how. */
static void read_meta(struct rd *r, json_t *root, struct ipc_doc *doc)
{
	struct ipc_report_meta *m = &doc->meta;
	json_t *top = json_object_get(root, KEY_IPCPERF), *argv, *v;
	const char *s;
	char **words;
	size_t i;

	s = get_str(r, top, KEY_IPCPERF, KEY_VERSION);
	m->version = s ? keep_str(r, s) : NULL;
	s = get_str(r, top, KEY_IPCPERF, KEY_BUILD);
	m->build = s ? keep_str(r, s) : NULL;
	s = get_str(r, root, "", KEY_COMMAND);
	m->command = s ? keep_str(r, s) : NULL;
	read_host(r, get_obj(r, root, "", KEY_HOST, false), &r->st->host);
	m->host = &r->st->host;
	read_config(r, get_obj(r, root, "", KEY_CONFIG, false), KEY_CONFIG,
		    &r->st->ro);
	m->ro = &r->st->ro;
	argv = get_arr(r, root, "", KEY_ARGV);
	words = keep(r, calloc(json_array_size(argv) + 1, sizeof(*words)));
	json_array_foreach(argv, i, v)
	{
		if (!words)
			break;
		if (!json_is_string(v)) {
			bad(r, "", KEY_ARGV, "not strings");
			break;
		}
		words[i] = keep_str(r, json_string_value(v));
	}
	m->argv = words;
	m->argc = words ? (int)json_array_size(argv) : 0;
}

static void read_skips(struct rd *r, json_t *root, struct ipc_doc *doc)
{
	json_t *a = get_arr(r, root, "", KEY_SKIPPED), *s;
	const char *what, *why;
	size_t i;

	doc->skips =
		keep(r, calloc(json_array_size(a) + 1, sizeof(*doc->skips)));
	json_array_foreach(a, i, s)
	{
		if (!doc->skips)
			break;
		what = json_string_value(json_object_get(s, KEY_WHAT));
		why = json_string_value(json_object_get(s, KEY_WHY));
		if (!what || !why) {
			bad(r, "", KEY_SKIPPED,
			    "an entry without what and why");
			break;
		}
		snprintf(doc->skips[i].what, sizeof(doc->skips[i].what), "%s",
			 what);
		snprintf(doc->skips[i].why, sizeof(doc->skips[i].why), "%s",
			 why);
		doc->nskips++;
	}
}

void ipc_doc_free(struct ipc_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->nresults; i++)
		ipc_result_free(doc->results[i]);
	free(doc->results);
	if (doc->store) {
		for (size_t i = 0; i < doc->store->n; i++)
			free(doc->store->p[i]);
		free(doc->store->p);
		free(doc->store);
	}
	free(doc);
}

/* A document from its parsed JSON @root, into @doc. */
static void read_doc(struct rd *r, json_t *root, struct ipc_doc *doc)
{
	json_t *schema =
		json_object_get(json_object_get(root, KEY_IPCPERF), KEY_SCHEMA);
	json_t *results, *o;
	size_t i;

	if (!json_is_object(root) || !json_is_integer(schema)) {
		bad(r, "", NULL, "not an ipcperf result (no ipcperf.schema)");
		return;
	}
	if (json_integer_value(schema) != IPC_JSON_SCHEMA) {
		snprintf(r->err, r->err_len,
			 "%s: schema %lld, but this ipcperf reads schema %d",
			 r->file, (long long)json_integer_value(schema),
			 IPC_JSON_SCHEMA);
		r->rc = -EPROTO;
		return;
	}
	results = json_object_get(root, KEY_RESULTS);
	if (!json_is_array(results)) {
		bad(r, "", NULL, "not an ipcperf result (no results array)");
		return;
	}
	read_meta(r, root, doc);
	read_skips(r, root, doc);
	doc->results =
		calloc(json_array_size(results) + 1, sizeof(*doc->results));
	if (!doc->results) {
		keep(r, NULL);
		return;
	}
	json_array_foreach(results, i, o)
	{
		if (r->rc)
			break;
		doc->results[i] = read_result(r, o, i);
		if (doc->results[i])
			doc->nresults++;
	}
}

static int finish(struct rd *r, json_t *root, json_error_t *jerr,
		  struct ipc_doc *doc, struct ipc_doc **out)
{
	if (!root && jerr->line < 0) {
		/* Not a parse error: reading failed (a directory). */
		snprintf(r->err, r->err_len, "%s: cannot read: %s", r->file,
			 jerr->text);
		r->rc = -EIO;
	} else if (!root) {
		snprintf(r->err, r->err_len,
			 "%s: not valid JSON (line %d, column %d: %s)", r->file,
			 jerr->line, jerr->column, jerr->text);
		r->rc = -EINVAL;
	} else {
		read_doc(r, root, doc);
	}
	json_decref(root);
	if (r->rc) {
		ipc_doc_free(doc);
		return r->rc;
	}
	*out = doc;
	return 0;
}

/* A new empty document called @name, or NULL. */
static struct ipc_doc *doc_new(struct rd *r, const char *name)
{
	struct ipc_doc *doc = calloc(1, sizeof(*doc));

	if (doc)
		doc->store = calloc(1, sizeof(*doc->store));
	if (!doc || !doc->store) {
		free(doc);
		snprintf(r->err, r->err_len, "%s: out of memory", name);
		return NULL;
	}
	r->st = doc->store;
	doc->path = keep_str(r, name);
	r->file = doc->path ? doc->path : name;
	return doc;
}

int ipc_doc_parse(const char *text, size_t len, const char *name,
		  struct ipc_doc **out, char *err, size_t err_len)
{
	struct rd r = {.file = name, .err = err, .err_len = err_len};
	struct ipc_doc *doc = doc_new(&r, name);
	json_error_t jerr;

	if (!doc)
		return -ENOMEM;
	return finish(&r, json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr),
		      &jerr, doc, out);
}

int ipc_doc_read(const char *path, struct ipc_doc **out, char *err,
		 size_t err_len)
{
	struct rd r = {.file = path, .err = err, .err_len = err_len};
	struct ipc_doc *doc;
	json_error_t jerr;
	json_t *root;
	FILE *f = fopen(path, "r");
	int e = errno;

	if (!f) {
		snprintf(err, err_len, "%s: cannot read: %s", path,
			 strerror(e));
		return -e;
	}
	doc = doc_new(&r, path);
	if (!doc) {
		fclose(f);
		return -ENOMEM;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	return finish(&r, root, &jerr, doc, out);
}

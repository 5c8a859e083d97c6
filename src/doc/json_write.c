/* SPDX-License-Identifier: MIT */
/*
 * The JSON formatter: one document per invocation (schema version 1, see
 * docs/json.md), built as results arrive and written whole at the end, so
 * that what a program reads is always one valid document.  The keys are
 * schema.c's, which the reader (json_read.c) shares; a case's parameters
 * and a pattern's extra figures are written as its description says.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/doc.h"
#include "explain_json.h"
#include "intervals_json.h"
#include "streams_json.h"
#include "jread.h"
#include "schema.h"
#include "doc/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

/*
 * Numbers: times and sizes are integers in ns and bytes; rates are reals per
 * second, written with 15 significant digits (0.95, not 0.94999999999999996).
 * A real that is not finite (a rate over an elapsed time of 0) is left out
 * together with its key rather than written as 0, because a figure that was
 * not measured is never printed.  Nothing here writes NaN or Inf.
 */

struct ipc_doc_writer {
	json_t *root;
	json_t *results; /* borrowed from root */
	json_t *skipped; /* borrowed from root */
	int err;	 /* first failure (-ENOMEM), kept until end */
	bool suite;	 /* the quick suite's results (hints differ) */
};

/* Set @key of @obj to @v (stolen); a NULL @v means memory ran out. */
static void put(struct ipc_doc_writer *d, json_t *obj, const char *key,
		json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) < 0)
		d->err = -ENOMEM;
}

static void append(struct ipc_doc_writer *d, json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) < 0)
		d->err = -ENOMEM;
}

static void put_u64(struct ipc_doc_writer *d, json_t *obj, const char *key,
		    uint64_t v)
{
	put(d, obj, key, ipc_json_uint(v));
}

/* A rate or ratio: left out when not finite. */
static void put_real(struct ipc_doc_writer *d, json_t *obj, const char *key,
		     double v)
{
	if (isfinite(v))
		put(d, obj, key, json_real(v));
}

/* A time or size held as a double (a mean): rounded to an integer. */
static void put_round(struct ipc_doc_writer *d, json_t *obj, const char *key,
		      double v)
{
	if (!isfinite(v) || v < 0)
		return;
	put(d, obj, key,
	    v >= 9.2e18 ? ipc_json_uint(UINT64_MAX)
			: ipc_json_uint(llround(v)));
}

/* A value that is an integer (ns, bytes) or a real, as @integer says. */
static void put_num(struct ipc_doc_writer *d, json_t *o, const char *key,
		    bool integer, double v)
{
	if (integer)
		put_round(d, o, key, v);
	else
		put_real(d, o, key, v);
}

static json_t *obj_new(struct ipc_doc_writer *d)
{
	json_t *o = json_object();

	if (!o)
		d->err = -ENOMEM;
	return o;
}

static json_t *arr_new(struct ipc_doc_writer *d)
{
	json_t *a = json_array();

	if (!a)
		d->err = -ENOMEM;
	return a;
}

static void put_table(struct ipc_doc_writer *d, json_t *o, const void *base,
		      const struct ipc_ftable *t)
{
	if (ipc_ftable_put(o, base, t) < 0)
		d->err = -ENOMEM;
}

/* A new object holding the fields of @t from @base. */
static json_t *table_obj(struct ipc_doc_writer *d, const void *base,
			 const struct ipc_ftable *t)
{
	json_t *o = obj_new(d);

	if (o)
		put_table(d, o, base, t);
	return o;
}

static json_t *host_obj(struct ipc_doc_writer *d, const struct ipc_host *h)
{
	json_t *o = obj_new(d);

	if (!o || !h)
		return o;
	if (ipc_host_put(o, h, IPC_HOST_DOC))
		d->err = -ENOMEM;
	if (h->pm_qos.state != IPC_PMQOS_UNKNOWN)
		put(d, o, KEY_PM_QOS, table_obj(d, &h->pm_qos, &js_pmqos));
	if (h->started[0])
		put(d, o, KEY_STARTED, ipc_json_str(h->started));
	return o;
}

static json_t *config_obj(struct ipc_doc_writer *d,
			  const struct ipc_runopts *ro)
{
	json_t *o = obj_new(d), *dev;

	if (!o)
		return NULL;
	put_table(d, o, ro, &js_config);
	/* 0 with --runs auto: how many is in each result's summary. */
	put(d, o, KEY_CFG_RUNS, json_integer(ro->runs_auto ? 0 : ro->runs));
	put_table(d, o, ro, &js_config1);
	/* The serial ports, null when none was given. */
	if (ro->tp.device[0] && ro->tp.device[1]) {
		dev = arr_new(d);
		append(d, dev, ipc_json_str(ro->tp.device[0]));
		append(d, dev, ipc_json_str(ro->tp.device[1]));
	} else {
		dev = json_null();
	}
	put(d, o, KEY_CFG_DEVICE, dev);
	put_table(d, o, ro, &js_config2);
	return o;
}

/*
 * Loss on a lossy transport: the counts that apply to the pattern (late
 * responses, reordering), and the lost share in percent.
 */
static json_t *loss_obj(struct ipc_doc_writer *d, const struct ipc_loss *l,
			const struct ipc_pattern_ops *pat)
{
	json_t *o = table_obj(d, l, &js_loss);

	if (!o)
		return NULL;
	if (l->sent)
		put_real(d, o, KEY_LOST_PCT,
			 100.0 * (double)l->lost / (double)l->sent);
	if (pat && (pat->flags & IPC_PAT_LATE))
		put_u64(d, o, KEY_LATE, l->late);
	if (pat && (pat->flags & IPC_PAT_REORDER) && l->reorder_known)
		put_u64(d, o, KEY_REORDERED, l->reordered);
	return o;
}

/* Fairness between the flows of a load run. */
static json_t *flows_obj(struct ipc_doc_writer *d, const struct ipc_flows *f,
			 bool open_loop)
{
	json_t *o = table_obj(d, f, &js_flows);

	if (o && open_loop)
		put_u64(d, o, KEY_LAG, f->lag_max_ns);
	return o;
}

/* The pattern's extras of @which kind (IPC_EXTRA_RUN or not) from @s. */
static void put_extras(struct ipc_doc_writer *d, json_t *o,
		       const struct ipc_case *cs, const struct ipc_run_stats *s,
		       unsigned which)
{
	const struct ipc_extra *x = cs->pat ? cs->pat->extras : NULL;

	for (size_t k = 0; x && x[k].key && k < IPC_EXTRA_MAX; k++)
		if ((x[k].flags & IPC_EXTRA_RUN) == which)
			put_num(d, o, x[k].key, x[k].flags & IPC_EXTRA_INT,
				s->extra[k]);
}

/* The loss, fairness and per-run extras a run or summary has, if any. */
static void put_run_extras(struct ipc_doc_writer *d, json_t *o,
			   const struct ipc_case *cs,
			   const struct ipc_run_stats *s, bool loss)
{
	if (loss && s->loss.counted)
		put(d, o, KEY_LOSS, loss_obj(d, &s->loss, cs->pat));
	if (s->flows.flows)
		put(d, o, KEY_FLOWS, flows_obj(d, &s->flows, cs->rate != 0));
	put_extras(d, o, cs, s, IPC_EXTRA_RUN);
}

int ipc_doc_write_begin(const struct ipc_report_meta *m,
			struct ipc_doc_writer **out)
{
	struct ipc_doc_writer *d;
	json_t *top, *argv;
	int i;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->root = obj_new(d);
	if (!d->root)
		goto fail;

	top = obj_new(d);
	if (top) {
		put(d, top, KEY_VERSION,
		    ipc_json_str(m && m->version ? m->version : "unknown"));
		put(d, top, KEY_SCHEMA, json_integer(IPC_JSON_SCHEMA));
		if (m && m->build)
			put(d, top, KEY_BUILD, ipc_json_str(m->build));
	}
	put(d, d->root, KEY_IPCPERF, top);
	put(d, d->root, KEY_HOST, host_obj(d, m ? m->host : NULL));
	put(d, d->root, KEY_COMMAND, ipc_json_str(m ? m->command : NULL));
	d->suite = m && m->command && !strcmp(m->command, "suite");
	argv = arr_new(d);
	for (i = 0; argv && m && m->argv && i < m->argc; i++)
		append(d, argv, ipc_json_str(m->argv[i]));
	put(d, d->root, KEY_ARGV, argv);
	if (m && m->ro)
		put(d, d->root, KEY_CONFIG, config_obj(d, m->ro));
	d->results = arr_new(d);
	put(d, d->root, KEY_RESULTS, d->results);
	d->skipped = arr_new(d);
	put(d, d->root, KEY_SKIPPED, d->skipped);
	if (d->err)
		goto fail;
	*out = d;
	return 0;

fail:
	json_decref(d->root);
	free(d);
	return -ENOMEM;
}

int ipc_doc_write_skip(struct ipc_doc_writer *d, const struct ipc_skip *s)
{
	json_t *o;

	if (!d)
		return -EINVAL;
	o = obj_new(d);
	if (o) {
		put(d, o, KEY_WHAT, ipc_json_str(s->what));
		put(d, o, KEY_WHY, ipc_json_str(s->why));
	}
	append(d, d->skipped, o);
	return d->err;
}

/* The case's parameters, as its pattern describes them. */
static void put_params(struct ipc_doc_writer *d, json_t *o,
		       const struct ipc_case *cs)
{
	const struct ipc_param *p;
	uint64_t v;

	for (p = cs->pat ? cs->pat->params : NULL; p && p->key; p++) {
		if (!ipc_param_at(cs, p))
			continue;
		if (!ipc_param_is_number(p)) {
			put(d, o, p->key, ipc_json_str(ipc_param_str(cs, p)));
			continue;
		}
		v = ipc_param_u64(cs, p);
		if ((p->flags & IPC_PARAM_JSON_DFLT) && v == p->dflt)
			continue;
		if (p->fmt == IPC_FMT_NAME && ipc_param_name(p, v))
			put(d, o, p->key, json_string(ipc_param_name(p, v)));
		else if (p->fmt == IPC_FMT_LOOP)
			put(d, o, p->key, json_string(v ? "open" : "closed"));
		else
			put_u64(d, o, p->key, v);
	}
}

/*
 * The run-to-run interval: of the runs' p50 (ns, integers) for latency
 * patterns, of their throughput (bytes/s, reals) for the others.
 */
static json_t *ci_obj(struct ipc_doc_writer *d, const struct ipc_result *res)
{
	const struct ipc_runs_stats *m = &res->metric;
	const struct ipc_metric *mt = ipc_result_metric(res);
	json_t *o;

	if (!isfinite(m->ci_level) || !isfinite(m->ci_low) ||
	    !isfinite(m->ci_high))
		return NULL;
	o = obj_new(d);
	if (!o)
		return NULL;
	put(d, o, KEY_LEVEL, json_real(m->ci_level));
	put_num(d, o, KEY_LOW, mt->integer, m->ci_low);
	put_num(d, o, KEY_HIGH, mt->integer, m->ci_high);
	put(d, o, KEY_METRIC, json_string(mt->name));
	return o;
}

/* A run's cost, placement and the machine's load meanwhile. */
static void run_more(struct ipc_doc_writer *d, json_t *run,
		     const struct ipc_run_stats *s)
{
	if (s->wall_ns)
		put_u64(d, run, KEY_WALL, s->wall_ns);
	if (s->loop_msgs)
		put_u64(d, run, KEY_LOOP_MSGS, s->loop_msgs);
	if (s->client.valid)
		put(d, run, KEY_CLIENT, table_obj(d, &s->client, &js_side));
	if (s->server.valid)
		put(d, run, KEY_SERVER, table_obj(d, &s->server, &js_side));
	if (s->have_load)
		put(d, run, KEY_LOAD, table_obj(d, s, &js_runload));
	/* Always written, so that a reader can tell "none" from a document
	   written before the marks were kept. */
	put(d, run, KEY_OUTLIER, json_boolean(s->outlier));
}

/* The two groups of bimodal runs, and how each ran. */
static json_t *modes_obj(struct ipc_doc_writer *d, const struct ipc_result *res)
{
	const struct ipc_diag *g = &res->diag;
	bool integer = ipc_result_metric(res)->integer;
	json_t *o = obj_new(d), *same, *split;

	if (!o)
		return NULL;
	put_num(d, o, KEY_LOW, integer, g->modes.low);
	put_num(d, o, KEY_HIGH, integer, g->modes.high);
	put_u64(d, o, KEY_NLOW, g->modes.nlow);
	put_u64(d, o, KEY_NHIGH, g->modes.nhigh);
	same = arr_new(d);
	split = arr_new(d);
	for (int i = 0; same && split && i < 2; i++) {
		append(d, same, ipc_json_uint(g->mode_same[i]));
		append(d, split, ipc_json_uint(g->mode_split[i]));
	}
	put(d, o, KEY_MODE_SAME, same);
	put(d, o, KEY_MODE_SPLIT, split);
	return o;
}

/*
 * The headline: the number every format shows as the case's latency or
 * throughput (the estimate) with its interval, in one place so that a
 * formatter reading the document needs no rule of its own.
 */
static json_t *headline_obj(struct ipc_doc_writer *d,
			    const struct ipc_result *res)
{
	struct ipc_headline h;
	json_t *o;

	ipc_result_headline(res, &h);
	if (!h.valid)
		return NULL;
	o = obj_new(d);
	if (!o)
		return NULL;
	put(d, o, KEY_METRIC, json_string(h.metric->name));
	put_num(d, o, KEY_VALUE, h.metric->integer, h.value);
	put_u64(d, o, KEY_RUNS, h.runs);
	if (h.have_ci) {
		put_real(d, o, KEY_LEVEL, h.level);
		put_num(d, o, KEY_LOW, h.metric->integer, h.low);
		put_num(d, o, KEY_HIGH, h.metric->integer, h.high);
		if (h.half_pct >= 0)
			put_real(d, o, KEY_HALF, h.half_pct);
	}
	return o;
}

/* The stopping rule, the cost, placement and load, over all runs. */
static void summary_more(struct ipc_doc_writer *d, json_t *o,
			 const struct ipc_result *res)
{
	const struct ipc_diag *g = &res->diag;
	const struct ipc_metric *mt = ipc_result_metric(res);
	json_t *t, *c, *ld, *h;

	put(d, o, KEY_METRIC, json_string(mt->name));
	put_num(d, o, KEY_ESTIMATE, mt->integer, g->estimate);
	h = headline_obj(d, res);
	if (h)
		put(d, o, KEY_HEADLINE, h);
	t = obj_new(d);
	if (t) {
		put_real(d, t, KEY_LEVEL, res->metric.ci_level);
		put_real(d, t, KEY_PCT, res->ro.ci_pct);
		put(d, t, "met", json_boolean(g->target_met));
		if (g->half_pct >= 0)
			put_real(d, t, KEY_HALF, g->half_pct);
		if (g->stop)
			put(d, t, KEY_STOP,
			    json_string(ipc_stop_name(g->stop)));
	}
	put(d, o, KEY_TARGET, t);
	if (g->modes.bimodal)
		put(d, o, KEY_MODES, modes_obj(d, res));
	put_u64(d, o, KEY_OUTLIERS, g->outliers);
	if (g->early_wake_vcsw > 0)
		put_real(d, o, KEY_EARLY_WAKE, g->early_wake_vcsw);
	if (g->client.valid || g->server.valid) {
		c = obj_new(d);
		if (c) {
			put(d, c, KEY_PER, json_string(ipc_cost_unit(res)));
			if (g->client.valid)
				put(d, c, KEY_CLIENT,
				    table_obj(d, &g->client, &js_cost));
			if (g->server.valid)
				put(d, c, KEY_SERVER,
				    table_obj(d, &g->server, &js_cost));
		}
		put(d, o, KEY_CPU, c);
	}
	put(d, o, KEY_PLACEMENT, table_obj(d, g, &js_place));
	ld = obj_new(d);
	if (ld) {
		if (g->have_load) {
			put_real(d, ld, KEY_OTHER_CPUS, g->other_cpus);
			put_real(d, ld, KEY_STEAL_CPUS, g->steal_cpus);
			if (g->load_res_cpus >= 0)
				put_real(d, ld, KEY_RES_CPUS, g->load_res_cpus);
			put(d, ld, KEY_LOAD_SRC,
			    json_string(js_load_src_names[g->load_src]));
		}
		if (g->loadavg_1m >= 0)
			put_real(d, ld, KEY_LOADAVG_1M, g->loadavg_1m);
	}
	put(d, o, KEY_LOAD, ld);
}

static json_t *flags_arr(struct ipc_doc_writer *d, const struct ipc_result *res)
{
	json_t *a = arr_new(d), *f;
	char why[IPC_WHY_MAX];
	int k;

	for (k = 0; a && k < IPC_FLAG_COUNT; k++) {
		if (!(res->diag.flags & (1u << k)))
			continue;
		f = obj_new(d);
		if (!f)
			break;
		put(d, f, KEY_FLAG, json_string(ipc_flag_name(k)));
		put(d, f, KEY_WHY,
		    ipc_json_str(ipc_flag_why(res, k, why, sizeof(why))));
		put(d, f, KEY_HINT,
		    json_string(ipc_flag_hint_for(res, k, d->suite)));
		append(d, a, f);
	}
	return a;
}

/* The emulated link of a case: its name, and its figures when relayed. */
static void put_link(struct ipc_doc_writer *d, json_t *o,
		     const struct ipc_case *cs)
{
	const struct ipc_link *l = cs->link;
	json_t *p;

	put(d, o, KEY_LINK, ipc_json_str(l ? l->name : "none"));
	if (!l || !l->relay)
		return;
	p = table_obj(d, l, &js_link);
	if (!p)
		return;
	put_real(d, p, KEY_LINK_LOSS, l->loss_ppm / 1e6);
	put_table(d, p, l, &js_link2);
	put(d, o, KEY_LINK_PARAMS, p);
}

/*
 * Where the sides ran: "cpus" 1 or 2 when pinned (null: the scheduler's
 * choice), and "pin" the CPUs, who chose them, and whether the two are
 * SMT siblings (null: unknown).
 */
static void put_place(struct ipc_doc_writer *d, json_t *o,
		      const struct ipc_place *pl)
{
	json_t *p;

	if (pl->cpus == IPC_CPUS_ANY) {
		put(d, o, KEY_CPUS, json_null());
		return;
	}
	put(d, o, KEY_CPUS, json_integer(pl->cpus == IPC_CPUS_ONE ? 1 : 2));
	p = obj_new(d);
	if (!p)
		return;
	put(d, p, KEY_CLIENT, json_integer(pl->client_cpu));
	put(d, p, KEY_SERVER, json_integer(pl->server_cpu));
	put(d, p, KEY_PIN_BY, json_string(pl->chosen ? "ipcperf" : "user"));
	if (pl->cpus == IPC_CPUS_TWO)
		put(d, p, KEY_PIN_SMT,
		    pl->smt < 0 ? json_null() : json_boolean(pl->smt));
	put(d, o, KEY_PIN, p);
}

/* The framing of a pattern that takes one. */
static void put_framing(struct ipc_doc_writer *d, json_t *o,
			const struct ipc_case *cs)
{
	if (!cs->pat || !(cs->pat->flags & IPC_PAT_FRAMED))
		return;
	put(d, o, KEY_FRAMING,
	    ipc_json_str(cs->framing ? cs->framing->name : "raw"));
	if (cs->framing && cs->framing->acks)
		put(d, o, KEY_ACKS, json_boolean(!cs->framing_noack));
}

static json_t *summary_obj(struct ipc_doc_writer *d,
			   const struct ipc_result *res)
{
	const struct ipc_run_stats *s = &res->summary;
	json_t *o = obj_new(d), *ci;

	if (!o)
		return NULL;
	put_u64(d, o, KEY_RUNS, res->nruns);
	/* Loss is counted even over runs that failed: it was measured. */
	if (s->loss.counted)
		put(d, o, KEY_LOSS, loss_obj(d, &s->loss, res->cs.pat));

	/*
	 * A case that measured nothing gets no numbers at all: zeros here
	 * would read as a measurement.
	 */
	if (!res->nruns && !s->iterations)
		return o;
	put_table(d, o, s, &js_counts);
	put_run_extras(d, o, &res->cs, s, false);
	put(d, o, KEY_LATENCY, table_obj(d, &s->lat, &js_lat));
	/* The buckets, so that runs of many files can be merged. */
	if (res->hist && res->hist->total)
		put(d, o, KEY_HIST, jh_hist_obj(res->hist));
	if (res->xcount)
		put(d, o, KEY_XLATENCY, table_obj(d, &res->xlat, &js_lat));
	if (res->nruns >= 2)
		put_real(d, o, KEY_CV, res->metric.cv);
	if (res->metric.have_ci && res->nruns >= 2) {
		ci = ci_obj(d, res);
		if (ci)
			put(d, o, KEY_CI, ci);
	}
	summary_more(d, o, res);
	return o;
}

static json_t *run_obj(struct ipc_doc_writer *d, const struct ipc_case *cs,
		       const struct ipc_run_stats *s)
{
	json_t *run = table_obj(d, s, &js_counts);

	if (!run)
		return NULL;
	put_u64(d, run, KEY_TIMER, s->timer_ns);
	put(d, run, KEY_LATENCY, table_obj(d, &s->lat, &js_lat));
	put_run_extras(d, run, cs, s, true);
	run_more(d, run, s);
	return run;
}

/*
 * The other end when it ran on another host: the kind, its address, the
 * fingerprint it sent (as it sent it, an object; null when it sent none)
 * and how many other tests it ran meanwhile.
 */
static void put_peer(struct ipc_doc_writer *d, json_t *o,
		     const struct ipc_result *res)
{
	const struct ipc_case *cs = &res->cs;
	json_t *p, *host = NULL;

	if (!cs->peer || !(cs->peer->flags & IPC_PEER_ELSEWHERE))
		return;
	p = obj_new(d);
	if (!p)
		return;
	put(d, p, KEY_PEER_KIND, ipc_json_str(cs->peer->name));
	put(d, p, KEY_PEER_TARGET, ipc_json_str(cs->target ? cs->target : ""));
	if (res->peer_host[0])
		host = json_loads(res->peer_host, JSON_REJECT_DUPLICATES, NULL);
	if (host && !json_is_object(host)) {
		json_decref(host);
		host = NULL;
	}
	put(d, p, KEY_PEER_HOST, host ? host : json_null());
	put_u64(d, p, KEY_PEER_OTHERS, res->peer_others);
	put(d, o, KEY_PEER, p);
}

int ipc_doc_write_result(struct ipc_doc_writer *d, const struct ipc_result *res)
{
	const struct ipc_case *cs = &res->cs;
	json_t *o, *runs;
	size_t i;

	if (!d)
		return -EINVAL;
	o = obj_new(d);
	if (!o)
		return d->err;
	put(d, o, KEY_PATTERN, ipc_json_str(cs->pat ? cs->pat->name : "?"));
	put(d, o, KEY_TRANSPORT, ipc_json_str(cs->tp ? cs->tp->name : "?"));
	put(d, o, KEY_ENGINE, ipc_json_str(cs->eng ? cs->eng->name : "?"));
	put(d, o, KEY_STATUS, json_string(js_status_names[res->status]));
	if (res->status != IPC_STATUS_OK)
		put(d, o, KEY_ERROR,
		    ipc_json_str(res->error[0] ? res->error : "unknown error"));
	if (res->mismatch[0])
		put(d, o, "first_mismatch", ipc_json_str(res->mismatch));
	if (res->session[0])
		put(d, o, "tls_session", ipc_json_str(res->session));
	put_params(d, o, cs);
	put_place(d, o, &cs->place);
	put_link(d, o, cs);
	put_framing(d, o, cs);
	put_extras(d, o, cs, &res->summary, 0);
	/* The options this case ran with (the suite's differ per pattern). */
	put(d, o, KEY_CONFIG, config_obj(d, &res->ro));

	runs = arr_new(d);
	for (i = 0; runs && i < res->nruns; i++)
		append(d, runs, run_obj(d, cs, &res->runs[i]));
	for (i = 0; runs && i < res->nruns; i++)
		if (intervals_json_put(json_array_get(runs, i), res, i) ||
		    streams_json_put(json_array_get(runs, i), res, i))
			d->err = -ENOMEM;
	put(d, o, KEY_RUNS, runs);
	if (res->nruns && res->runs[0].sock.valid)
		put(d, o, KEY_SOCKET,
		    table_obj(d, &res->runs[0].sock, &js_sock));
	put(d, o, KEY_SUMMARY, summary_obj(d, res));
	put(d, o, KEY_FLAGS, flags_arr(d, res));
	if (res->refused)
		put_u64(d, o, KEY_REFUSED, res->refused);
	put_peer(d, o, res);
	if (explain_json_put(o, res->explain))
		d->err = -ENOMEM;
	append(d, d->results, o);
	return d->err;
}

int ipc_doc_write_end(struct ipc_doc_writer *d, const struct ipc_report_meta *m,
		      FILE *out)
{
	int err;

	if (!d)
		return -EINVAL;
	/* The end time is known only now. */
	if (m && m->host && m->host->ended[0])
		put(d, json_object_get(d->root, KEY_HOST), KEY_ENDED,
		    ipc_json_str(m->host->ended));
	err = d->err;
	if (!err && out) {
		errno = 0;
		if (json_dumpf(d->root, out,
			       JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 ||
		    fputc('\n', out) == EOF)
			err = errno ? -errno : -EIO;
	}
	json_decref(d->root);
	free(d);
	return err;
}

/*
 * The JSON formatter: one document per invocation (schema version 1, see
 * DESIGN.md), built as results arrive and written whole at the end, so that
 * what a program reads is always one valid document.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/report.h"

/*
 * Numbers: times and sizes are integers in ns and bytes; rates are reals per
 * second, written with 15 significant digits (0.95, not 0.94999999999999996).
 * A real that is not finite (a rate over an elapsed time of 0) is left out
 * together with its key rather than written as 0, because a figure that was
 * not measured is never printed.  Nothing here writes NaN or Inf.
 */

struct jdoc {
	json_t *root;
	json_t *results; /* borrowed from root */
	json_t *skipped; /* borrowed from root */
	int err;	 /* first failure (-ENOMEM), kept until end */
};

static json_t *juint(uint64_t v)
{
	return json_integer(v > (uint64_t)LLONG_MAX ? LLONG_MAX
						    : (json_int_t)v);
}

/*
 * A JSON string of @s.  jansson refuses bytes that are not UTF-8, and an
 * error message may carry any byte (a file name), so those become '?'.
 */
static json_t *jstr(const char *s)
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

/* Set @key of @obj to @v (stolen); a NULL @v means memory ran out. */
static void put(struct jdoc *d, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) < 0)
		d->err = -ENOMEM;
}

static void append(struct jdoc *d, json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) < 0)
		d->err = -ENOMEM;
}

static void put_u64(struct jdoc *d, json_t *obj, const char *key, uint64_t v)
{
	put(d, obj, key, juint(v));
}

/* A rate or ratio: left out when not finite. */
static void put_real(struct jdoc *d, json_t *obj, const char *key, double v)
{
	if (isfinite(v))
		put(d, obj, key, json_real(v));
}

/* A time or size held as a double (a mean): rounded to an integer. */
static void put_round(struct jdoc *d, json_t *obj, const char *key, double v)
{
	if (!isfinite(v) || v < 0)
		return;
	put(d, obj, key, v >= 9.2e18 ? juint(UINT64_MAX) : juint(llround(v)));
}

static json_t *obj_new(struct jdoc *d)
{
	json_t *o = json_object();

	if (!o)
		d->err = -ENOMEM;
	return o;
}

static json_t *arr_new(struct jdoc *d)
{
	json_t *a = json_array();

	if (!a)
		d->err = -ENOMEM;
	return a;
}

static json_t *lat_obj(struct jdoc *d, const struct ipc_lat *l)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put_u64(d, o, "min", l->min);
	put_round(d, o, "mean", l->mean);
	put_round(d, o, "stddev", l->stddev);
	put_u64(d, o, "p50", l->p50);
	put_u64(d, o, "p90", l->p90);
	put_u64(d, o, "p99", l->p99);
	put_u64(d, o, "p999", l->p999);
	put_u64(d, o, "max", l->max);
	return o;
}

/* The fields every run record and the summary share. */
static void put_counts(struct jdoc *d, json_t *o, const struct ipc_run_stats *s)
{
	put_u64(d, o, "iterations", s->iterations);
	put_u64(d, o, "messages", s->messages);
	put_u64(d, o, "bytes", s->bytes);
	put_u64(d, o, "elapsed_ns", s->elapsed_ns);
	put_real(d, o, "msgs_per_s", s->msgs_per_s);
	put_real(d, o, "bytes_per_s", s->bytes_per_s);
}

/* An integer that is -1 when unknown: null then. */
static json_t *jint_or_null(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* The fingerprint added with the noise diagnosis (see json.md). */
static void host_more(struct jdoc *d, json_t *o, const struct ipc_host *h)
{
	json_t *la, *perf;

	put(d, o, "cores", jint_or_null(h->cores));
	put(d, o, "packages", jint_or_null(h->packages));
	put(d, o, "smt", h->smt < 0 ? json_null() : json_boolean(h->smt));
	if (h->mem_bytes)
		put_u64(d, o, "mem_bytes", h->mem_bytes);
	put(d, o, "hypervisor", json_boolean(h->hypervisor));
	put(d, o, "virtualization", h->virt[0] ? jstr(h->virt) : json_null());
	if (h->clocksource[0])
		put(d, o, "clocksource", jstr(h->clocksource));
	if (h->governor[0])
		put(d, o, "cpufreq_governor", jstr(h->governor));
	if (h->loadavg[0] >= 0) {
		la = arr_new(d);
		for (int i = 0; la && i < 3; i++)
			append(d, la, json_real(h->loadavg[i]));
		put(d, o, "loadavg", la);
	}
	perf = obj_new(d);
	if (perf) {
		put(d, perf, "cycles", json_boolean(h->perf_hw));
		put(d, perf, "instructions", json_boolean(h->perf_hw));
		put(d, perf, "migrations", json_boolean(h->perf_sw));
		if (h->perf[0])
			put(d, perf, "note", jstr(h->perf));
	}
	put(d, o, "perf", perf);
	if (h->started[0])
		put(d, o, "started", jstr(h->started));
}

static json_t *host_obj(struct jdoc *d, const struct ipc_host *h)
{
	json_t *o = obj_new(d);

	if (!o || !h)
		return o;
	put(d, o, "kernel", jstr(h->kernel));
	put(d, o, "machine", jstr(h->machine));
	put(d, o, "hostname", jstr(h->hostname));
	put(d, o, "cpu_model", jstr(h->cpu_model));
	put(d, o, "cpus", json_integer(h->cpus));
	put_u64(d, o, "timer_ns", h->timer_ns);
	host_more(d, o, h);
	return o;
}

/* A CPU number, or null when that side is not pinned. */
static json_t *jcpu(int cpu)
{
	return cpu < 0 ? json_null() : json_integer(cpu);
}

/*
 * The transport options added with shm, mq, pty and serial: busy polling,
 * the shm ring, the serial ports (null when none was given).  Zero means
 * the system's or the transport's default, as for sndbuf and rcvbuf.
 */
static void tp_config(struct jdoc *d, json_t *o, const struct ipc_tp_opts *tp)
{
	json_t *dev;

	put(d, o, "busy_poll_us", json_integer(tp->busy_poll_us));
	put_u64(d, o, "shm_bytes", tp->shm_bytes);
	put(d, o, "shm_wait",
	    json_string(tp->shm_wait == IPC_SHM_SPIN ? "spin" : "futex"));
	if (tp->device[0] && tp->device[1]) {
		dev = arr_new(d);
		append(d, dev, jstr(tp->device[0]));
		append(d, dev, jstr(tp->device[1]));
	} else {
		dev = json_null();
	}
	put(d, o, "device", dev);
	put(d, o, "baud", json_integer(tp->baud));
}

/* The client socket's options as the kernel granted them (first run). */
static json_t *sock_obj(struct jdoc *d, const struct ipc_sock_info *si)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put(d, o, "sndbuf", json_integer(si->sndbuf));
	put(d, o, "rcvbuf", json_integer(si->rcvbuf));
	put(d, o, "busy_poll_us", json_integer(si->busy_poll_us));
	put(d, o, "nodelay",
	    si->nodelay < 0 ? json_null() : json_boolean(si->nodelay));
	return o;
}

static json_t *config_obj(struct jdoc *d, const struct ipc_runopts *ro)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put_u64(d, o, "iterations", ro->iterations);
	put_u64(d, o, "duration_ns", ro->duration_ns);
	put_u64(d, o, "warmup", ro->warmup);
	/* 0 with --runs auto: how many is in each result's summary. */
	put(d, o, "runs", json_integer(ro->runs_auto ? 0 : ro->runs));
	put(d, o, "placement",
	    json_string(ro->placement == IPC_PLACE_THREAD ? "thread"
							  : "process"));
	put(d, o, "verify", json_boolean(ro->verify));
	put_u64(d, o, "timeout_ns", ro->timeout_ns);
	put(d, o, "pin_client", jcpu(ro->pin_client));
	put(d, o, "pin_server", jcpu(ro->pin_server));
	put(d, o, "nodelay", json_boolean(ro->tp.nodelay));
	put(d, o, "sndbuf", json_integer(ro->tp.sndbuf));
	put(d, o, "rcvbuf", json_integer(ro->tp.rcvbuf));
	tp_config(d, o, &ro->tp);
	put(d, o, "peer_drop_pct", json_integer(ro->faults.drop_pct));
	put_u64(d, o, "peer_stall_every", ro->faults.stall_every);
	put_u64(d, o, "peer_stall_ns", ro->faults.stall_ns);
	put(d, o, "runs_auto", json_boolean(ro->runs_auto));
	put(d, o, "min_runs", json_integer(ro->min_runs));
	put(d, o, "max_runs", json_integer(ro->max_runs));
	put_real(d, o, "ci_level", ro->ci_level);
	put_real(d, o, "ci_pct", ro->ci_pct);
	put_u64(d, o, "budget_ns", ro->budget_ns);
	put(d, o, "interleave", json_boolean(ro->interleave));
	put(d, o, "perf", json_boolean(ro->perf));
	return o;
}

/*
 * Loss on a lossy transport: the counts that apply to the pattern (late
 * responses for rr, reordering for stream), and the lost share in percent.
 */
static json_t *loss_obj(struct jdoc *d, const struct ipc_loss *l,
			const char *pat)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put_u64(d, o, "sent", l->sent);
	put_u64(d, o, "received", l->received);
	put_u64(d, o, "lost", l->lost);
	if (l->sent)
		put_real(d, o, "lost_pct",
			 100.0 * (double)l->lost / (double)l->sent);
	if (!strcmp(pat, "rr"))
		put_u64(d, o, "late", l->late);
	if (!strcmp(pat, "stream") && l->reorder_known)
		put_u64(d, o, "reordered", l->reordered);
	return o;
}

/* Fairness between the flows of a load run. */
static json_t *flows_obj(struct jdoc *d, const struct ipc_flows *f,
			 bool open_loop)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put_u64(d, o, "flows", f->flows);
	put_real(d, o, "rate_min", f->rate_min);
	put_real(d, o, "rate_median", f->rate_median);
	put_real(d, o, "rate_max", f->rate_max);
	if (open_loop)
		put_u64(d, o, "lag_max_ns", f->lag_max_ns);
	return o;
}

/* The loss and fairness records a run or summary has, if any. */
static void put_extras(struct jdoc *d, json_t *o, const struct ipc_case *cs,
		       const struct ipc_run_stats *s)
{
	const char *p = cs->pat ? cs->pat->name : "";

	if (s->loss.counted)
		put(d, o, "loss", loss_obj(d, &s->loss, p));
	if (s->flows.flows)
		put(d, o, "flows", flows_obj(d, &s->flows, cs->rate != 0));
}

static int json_begin(struct ipc_report *r)
{
	const struct ipc_report_meta *m = r->meta;
	struct jdoc *d;
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
		put(d, top, "version",
		    jstr(m && m->version ? m->version : "unknown"));
		put(d, top, "schema", json_integer(IPC_JSON_SCHEMA));
		if (m && m->build)
			put(d, top, "build", jstr(m->build));
	}
	put(d, d->root, "ipcperf", top);
	put(d, d->root, "host", host_obj(d, m ? m->host : NULL));
	put(d, d->root, "command", jstr(m ? m->command : NULL));
	argv = arr_new(d);
	for (i = 0; argv && m && m->argv && i < m->argc; i++)
		append(d, argv, jstr(m->argv[i]));
	put(d, d->root, "argv", argv);
	if (m && m->ro)
		put(d, d->root, "config", config_obj(d, m->ro));
	d->results = arr_new(d);
	put(d, d->root, "results", d->results);
	d->skipped = arr_new(d);
	put(d, d->root, "skipped", d->skipped);
	if (d->err)
		goto fail;
	r->priv = d;
	return 0;

fail:
	json_decref(d->root);
	free(d);
	return -ENOMEM;
}

static int json_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	struct jdoc *d = r->priv;
	json_t *o;

	if (!d)
		return -EINVAL;
	o = obj_new(d);
	if (o) {
		put(d, o, "what", jstr(s->what));
		put(d, o, "why", jstr(s->why));
	}
	append(d, d->skipped, o);
	return d->err;
}

static const char *status_name(enum ipc_status st)
{
	switch (st) {
	case IPC_STATUS_OK:
		return "ok";
	case IPC_STATUS_PARTIAL:
		return "partial";
	default:
		return "error";
	}
}

static void put_sizes(struct jdoc *d, json_t *o, const struct ipc_case *cs)
{
	const char *p = cs->pat ? cs->pat->name : "";

	if (!strcmp(p, "rr")) {
		put_u64(d, o, "req_size", cs->req_size);
		put_u64(d, o, "resp_size", cs->resp_size);
	} else if (!strcmp(p, "stream")) {
		put_u64(d, o, "msg_size", cs->msg_size);
		put_u64(d, o, "count", cs->count);
	} else if (!strcmp(p, "bulk")) {
		put_u64(d, o, "total", cs->total);
		put_u64(d, o, "chunk_size", cs->chunk_size);
	} else if (!strcmp(p, "crr")) {
		put_u64(d, o, "req_size", cs->req_size);
		put_u64(d, o, "resp_size", cs->resp_size);
	} else if (!strcmp(p, "load")) {
		put_u64(d, o, "req_size", cs->req_size);
		put_u64(d, o, "resp_size", cs->resp_size);
		put_u64(d, o, "flows", cs->flows);
		put_u64(d, o, "threads", cs->threads);
		put(d, o, "loop", json_string(cs->rate ? "open" : "closed"));
		put_u64(d, o, "rate", cs->rate);
	}
}

/*
 * The run-to-run interval: of the runs' p50 (ns, integers) for latency
 * patterns, of their throughput (bytes/s, reals) for the others.
 */
static json_t *ci_obj(struct jdoc *d, const struct ipc_result *res)
{
	const struct ipc_runs_stats *m = &res->metric;
	bool p50 = !strcmp(ipc_metric_name(res), "p50_ns");
	json_t *o;

	if (!isfinite(m->ci_level) || !isfinite(m->ci_low) ||
	    !isfinite(m->ci_high))
		return NULL;
	o = obj_new(d);
	if (!o)
		return NULL;
	put(d, o, "level", json_real(m->ci_level));
	if (p50) {
		put_round(d, o, "low", m->ci_low);
		put_round(d, o, "high", m->ci_high);
	} else {
		put_real(d, o, "low", m->ci_low);
		put_real(d, o, "high", m->ci_high);
	}
	put(d, o, "metric", json_string(ipc_metric_name(res)));
	return o;
}

static json_t *side_obj(struct jdoc *d, const struct ipc_side_cost *c)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put_u64(d, o, "user_ns", c->user_ns);
	put_u64(d, o, "sys_ns", c->sys_ns);
	put_u64(d, o, "vcsw", c->vcsw);
	put_u64(d, o, "ivcsw", c->ivcsw);
	if (c->cycles >= 0)
		put_u64(d, o, "cycles", (uint64_t)c->cycles);
	if (c->instructions >= 0)
		put_u64(d, o, "instructions", (uint64_t)c->instructions);
	if (c->migrations >= 0)
		put_u64(d, o, "migrations", (uint64_t)c->migrations);
	put(d, o, "cpu_start", jint_or_null(c->cpu_start));
	put(d, o, "cpu_end", jint_or_null(c->cpu_end));
	if (c->allowed[0])
		put(d, o, "allowed", jstr(c->allowed));
	return o;
}

/* A run's cost, placement and the machine's load meanwhile. */
static void run_more(struct jdoc *d, json_t *run, const struct ipc_run_stats *s)
{
	json_t *load;

	if (s->wall_ns)
		put_u64(d, run, "wall_ns", s->wall_ns);
	if (s->loop_msgs)
		put_u64(d, run, "loop_messages", s->loop_msgs);
	if (s->client.valid)
		put(d, run, "client", side_obj(d, &s->client));
	if (s->server.valid)
		put(d, run, "server", side_obj(d, &s->server));
	if (s->have_load) {
		load = obj_new(d);
		if (load) {
			put_u64(d, load, "busy_ns", s->busy_ns);
			put_u64(d, load, "ours_ns", s->ours_ns);
			put_u64(d, load, "steal_ns", s->steal_ns);
		}
		put(d, run, "load", load);
	}
}

/* A time-like value of the metric: integer ns for p50, else a real. */
static void put_metric(struct jdoc *d, json_t *o, const char *key,
		       const struct ipc_result *res, double v)
{
	if (!strcmp(ipc_metric_name(res), "p50_ns"))
		put_round(d, o, key, v);
	else
		put_real(d, o, key, v);
}

static json_t *cost_obj(struct jdoc *d, const struct ipc_cost *c)
{
	json_t *o = obj_new(d);

	if (!o)
		return NULL;
	put_real(d, o, "user_ns", c->user_ns);
	put_real(d, o, "sys_ns", c->sys_ns);
	put_real(d, o, "vcsw", c->vcsw);
	put_real(d, o, "ivcsw", c->ivcsw);
	if (c->cycles >= 0)
		put_real(d, o, "cycles", c->cycles);
	if (c->instructions >= 0)
		put_real(d, o, "instructions", c->instructions);
	return o;
}

/* The stopping rule, the cost, placement and load, over all runs. */
static void summary_more(struct jdoc *d, json_t *o,
			 const struct ipc_result *res)
{
	const struct ipc_diag *g = &res->diag;
	json_t *t, *c, *pl, *ld, *md;

	put(d, o, "metric", json_string(ipc_metric_name(res)));
	put_metric(d, o, "estimate", res, g->estimate);
	t = obj_new(d);
	if (t) {
		put_real(d, t, "level", res->metric.ci_level);
		put_real(d, t, "pct", res->ro.ci_pct);
		put(d, t, "met", json_boolean(g->target_met));
		if (g->half_pct >= 0)
			put_real(d, t, "half_width_pct", g->half_pct);
		if (g->stop)
			put(d, t, "stop", json_string(ipc_stop_name(g->stop)));
	}
	put(d, o, "target", t);
	if (g->modes.bimodal) {
		md = obj_new(d);
		if (md) {
			put_metric(d, md, "low", res, g->modes.low);
			put_metric(d, md, "high", res, g->modes.high);
			put_u64(d, md, "nlow", g->modes.nlow);
			put_u64(d, md, "nhigh", g->modes.nhigh);
		}
		put(d, o, "modes", md);
	}
	put_u64(d, o, "outliers", g->outliers);
	if (g->client.valid || g->server.valid) {
		c = obj_new(d);
		if (c) {
			put(d, c, "per", json_string(ipc_cost_unit(res)));
			if (g->client.valid)
				put(d, c, "client", cost_obj(d, &g->client));
			if (g->server.valid)
				put(d, c, "server", cost_obj(d, &g->server));
		}
		put(d, o, "cpu", c);
	}
	pl = obj_new(d);
	if (pl) {
		put_u64(d, pl, "same_cpu_runs", g->same_cpu_runs);
		put_u64(d, pl, "split_cpu_runs", g->split_cpu_runs);
	}
	put(d, o, "placement", pl);
	ld = obj_new(d);
	if (ld) {
		if (g->have_load) {
			put_real(d, ld, "other_cpus", g->other_cpus);
			put_real(d, ld, "steal_cpus", g->steal_cpus);
		}
		if (g->loadavg_1m >= 0)
			put_real(d, ld, "loadavg_1m", g->loadavg_1m);
	}
	put(d, o, "load", ld);
}

static json_t *flags_arr(struct jdoc *d, const struct ipc_result *res)
{
	json_t *a = arr_new(d), *f;
	char why[256];
	int k;

	for (k = 0; a && k < IPC_FLAG_COUNT; k++) {
		if (!(res->diag.flags & (1u << k)))
			continue;
		f = obj_new(d);
		if (!f)
			break;
		put(d, f, "flag", json_string(ipc_flag_name(k)));
		put(d, f, "why", jstr(ipc_flag_why(res, k, why, sizeof(why))));
		put(d, f, "hint", json_string(ipc_flag_hint(k)));
		append(d, a, f);
	}
	return a;
}

/* The emulated link of a case: its name, and its figures when relayed. */
static void put_link(struct jdoc *d, json_t *o, const struct ipc_case *cs)
{
	const struct ipc_link *l = cs->link;
	json_t *p;

	put(d, o, "link", jstr(l ? l->name : "none"));
	if (!l || !l->relay)
		return;
	p = obj_new(d);
	if (!p)
		return;
	put_u64(d, p, "delay_ns", l->delay_ns);
	put_u64(d, p, "jitter_ns", l->jitter_ns);
	put_u64(d, p, "rate_bps", l->rate_bps);
	put_u64(d, p, "bits_per_byte", l->bits_per_byte);
	put_real(d, p, "loss", l->loss_ppm / 1e6);
	put_u64(d, p, "mtu", l->mtu);
	put_u64(d, p, "overhead", l->overhead);
	put(d, o, "link_params", p);
}

/* What only rr (framing) and replay (the conversation) results carry. */
static void put_pattern_extras(struct jdoc *d, json_t *o,
			       const struct ipc_case *cs)
{
	const char *p = cs->pat ? cs->pat->name : "";
	const struct ipc_trace *t = cs->trace;

	if (!strcmp(p, "rr")) {
		put(d, o, "framing",
		    jstr(cs->framing ? cs->framing->name : "raw"));
		if (cs->framing && cs->framing->acks)
			put(d, o, "acks", json_boolean(!cs->framing_noack));
	}
	if (strcmp(p, "replay") || !t)
		return;
	put(d, o, "trace", jstr(t->path));
	put(d, o, "trace_name", jstr(t->name));
	put(d, o, "trace_format", json_string(t->gdb ? "gdb" : "native"));
	if (t->max_packet)
		put_u64(d, o, "max_packet", t->max_packet);
	put_u64(d, o, "exchanges", t->exchanges);
	put_u64(d, o, "writes", t->nunits);
	put_u64(d, o, "bytes_c2s", t->bytes_c2s);
	put_u64(d, o, "bytes_s2c", t->bytes_s2c);
	if (t->think_ns)
		put_u64(d, o, "think_ns", t->think_ns);
	if (cs->link && cs->link->relay)
		put_u64(d, o, "link_ns", ipc_replay_link_ns(t, cs->link));
}

static json_t *summary_obj(struct jdoc *d, const struct ipc_result *res)
{
	const struct ipc_run_stats *s = &res->summary;
	json_t *o = obj_new(d), *ci;

	if (!o)
		return NULL;
	put_u64(d, o, "runs", res->nruns);
	/* Loss is counted even over runs that failed: it was measured. */
	if (s->loss.counted)
		put(d, o, "loss",
		    loss_obj(d, &s->loss,
			     res->cs.pat ? res->cs.pat->name : ""));

	/*
	 * A case that measured nothing gets no numbers at all: zeros here
	 * would read as a measurement.
	 */
	if (!res->nruns && !s->iterations)
		return o;
	put_counts(d, o, s);
	if (s->flows.flows)
		put(d, o, "flows", flows_obj(d, &s->flows, res->cs.rate != 0));
	put(d, o, "latency_ns", lat_obj(d, &s->lat));
	if (res->xhist && res->xhist->total)
		put(d, o, "exchange_latency_ns", lat_obj(d, &res->xlat));
	if (res->nruns >= 2)
		put_real(d, o, "cv", res->metric.cv);
	if (res->metric.have_ci && res->nruns >= 2) {
		ci = ci_obj(d, res);
		if (ci)
			put(d, o, "ci", ci);
	}
	summary_more(d, o, res);
	return o;
}

static int json_result(struct ipc_report *r, const struct ipc_result *res)
{
	struct jdoc *d = r->priv;
	const struct ipc_case *cs = &res->cs;
	json_t *o, *runs, *run;
	size_t i;

	if (!d)
		return -EINVAL;
	o = obj_new(d);
	if (!o)
		return d->err;
	put(d, o, "pattern", jstr(cs->pat ? cs->pat->name : "?"));
	put(d, o, "transport", jstr(cs->tp ? cs->tp->name : "?"));
	put(d, o, "engine", jstr(cs->eng ? cs->eng->name : "?"));
	put(d, o, "status", json_string(status_name(res->status)));
	if (res->status != IPC_STATUS_OK)
		put(d, o, "error",
		    jstr(res->error[0] ? res->error : "unknown error"));
	put_sizes(d, o, cs);
	put_link(d, o, cs);
	put_pattern_extras(d, o, cs);
	/* The options this case ran with (the suite's differ per pattern). */
	put(d, o, "config", config_obj(d, &res->ro));

	runs = arr_new(d);
	for (i = 0; runs && i < res->nruns; i++) {
		const struct ipc_run_stats *s = &res->runs[i];

		run = obj_new(d);
		if (!run)
			break;
		put_counts(d, run, s);
		put_u64(d, run, "timer_ns", s->timer_ns);
		put(d, run, "latency_ns", lat_obj(d, &s->lat));
		put_extras(d, run, cs, s);
		run_more(d, run, s);
		append(d, runs, run);
	}
	put(d, o, "runs", runs);
	if (res->nruns && res->runs[0].sock.valid)
		put(d, o, "socket", sock_obj(d, &res->runs[0].sock));
	put(d, o, "summary", summary_obj(d, res));
	put(d, o, "flags", flags_arr(d, res));
	append(d, d->results, o);
	return d->err;
}

static int json_end(struct ipc_report *r)
{
	struct jdoc *d = r->priv;
	int err;

	if (!d)
		return -EINVAL;
	/* The end time is known only now. */
	if (r->meta && r->meta->host && r->meta->host->ended[0])
		put(d, json_object_get(d->root, "host"), "ended",
		    jstr(r->meta->host->ended));
	err = d->err;
	if (!err) {
		errno = 0;
		if (json_dumpf(d->root, r->out,
			       JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 ||
		    fputc('\n', r->out) == EOF)
			err = errno ? -errno : -EIO;
	}
	json_decref(d->root);
	free(d);
	r->priv = NULL;
	return err;
}

const struct ipc_report_ops ipc_report_json = {
	.name = "json",
	.help = "one JSON document (schema 1) for programs",
	.begin = json_begin,
	.skip = json_skip,
	.result = json_result,
	.end = json_end,
};

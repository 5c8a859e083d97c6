/* SPDX-License-Identifier: MIT */
/*
 * The CSV formatter: a header line, then one row per case with the summary
 * over its runs, written as each case finishes.  Raw integers in ns and
 * bytes; a field that does not apply to the case, or was not measured, is
 * empty.  The patterns' own parameters and extra figures follow the fixed
 * columns, taken from their descriptions.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/report.h"
#include "doc/figures.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

static const char header[] =
	"schema,pattern,transport,engine,status,req_size,resp_size,msg_size,"
	"count,total,chunk_size,runs,iterations,elapsed_ns,msgs_per_s,"
	"bytes_per_s,lat_min_ns,lat_mean_ns,lat_stddev_ns,lat_p50_ns,"
	"lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,cv,ci_level,ci_low,"
	"ci_high,error,metric,estimate,target_met,half_width_pct,stop,flags,"
	"client_user_ns_per_msg,client_sys_ns_per_msg,client_csw_per_msg,"
	"server_user_ns_per_msg,server_sys_ns_per_msg,server_csw_per_msg,"
	"other_cpus,loadavg_1m,cpus,client_cpu,server_cpu";

/* The header's columns of case parameters, between status and runs. */
static const char *const param_cols[] = {
	"req_size", "resp_size", "msg_size", "count", "total", "chunk_size",
};

/*
 * After the fixed columns: every other parameter and extra figure that a
 * registered pattern describes, by its JSON key, parameters first, each
 * key once, in the registry's order; a row leaves empty those its
 * pattern does not have.  So the header does not depend on what was run.
 */
#define MORE_MAX 128

struct more {
	const char *key[MORE_MAX];
	bool extra[MORE_MAX]; /* an extra figure, else a parameter */
	size_t n;
};

static bool more_has(const struct more *m, const char *key)
{
	for (size_t i = 0; i < sizeof(param_cols) / sizeof(param_cols[0]); i++)
		if (!strcmp(param_cols[i], key))
			return true;
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->key[i], key))
			return true;
	return false;
}

static void more_add(struct more *m, const char *key, bool extra)
{
	if (m->n < MORE_MAX && !more_has(m, key)) {
		m->key[m->n] = key;
		m->extra[m->n++] = extra;
	}
}

static void more_cols(struct more *m)
{
	m->n = 0;
	for (size_t i = 0; ipc_patterns[i]; i++)
		for (const struct ipc_param *p = ipc_patterns[i]->params;
		     p && p->key; p++)
			more_add(m, p->key, false);
	for (size_t i = 0; ipc_patterns[i]; i++)
		for (const struct ipc_extra *x = ipc_patterns[i]->extras;
		     x && x->key; x++)
			more_add(m, x->key, true);
}

static int io_err(void)
{
	return errno ? -errno : -EIO;
}

/* ",text", quoted as RFC 4180 says when it holds a comma, quote or EOL. */
static void put_str(FILE *f, const char *s)
{
	const char *p;

	fputc(',', f);
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

static void put_u64(FILE *f, uint64_t v)
{
	fprintf(f, ",%" PRIu64, v);
}

/* A real, or an empty field when it is not finite. */
static void put_real(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.15g", v);
	else
		fputc(',', f);
}

/* A time held as a double (a mean, an interval bound), as integer ns. */
static void put_ns(FILE *f, double v)
{
	if (isfinite(v) && v >= 0)
		fprintf(f, ",%.0f", v);
	else
		fputc(',', f);
}

static void put_empty(FILE *f, int n)
{
	while (n-- > 0)
		fputc(',', f);
}

static int csv_begin(struct ipc_report *r)
{
	struct more m;

	errno = 0;
	more_cols(&m);
	fputs(header, r->out);
	for (size_t i = 0; i < m.n; i++)
		fprintf(r->out, ",%s", m.key[i]);
	fputs(",explain_measured_ns,explain_sum_ns,explain_phases,explain_why",
	      r->out);
	if (fputc('\n', r->out) == EOF || ferror(r->out))
		return io_err();
	return 0;
}

/* A row is a measured case; the table and the JSON document list skips. */
static int csv_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	(void)r;
	(void)s;
	return 0;
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

/* One side's CPU per message (ns) and context switches per message. */
static void put_cost(FILE *f, const struct ipc_cost *c)
{
	if (!c->valid) {
		put_empty(f, 3);
		return;
	}
	put_real(f, c->user_ns);
	put_real(f, c->sys_ns);
	put_real(f, ipc_cost_csw(c));
}

/*
 * The columns added with the noise diagnosis, after the original ones:
 * flags are joined with ';' so that the field needs no quotes.
 */
static void put_diag(FILE *f, const struct ipc_result *res)
{
	const struct ipc_diag *d = &res->diag;
	char flags[64] = "";
	size_t n = 0;
	int k;

	if (!res->nruns) {
		put_empty(f, 14);
		return;
	}
	put_str(f, ipc_metric_name(res));
	if (ipc_result_metric(res)->integer)
		put_ns(f, d->estimate);
	else
		put_real(f, d->estimate);
	put_str(f, d->target_met ? "true" : "false");
	if (d->half_pct >= 0)
		put_real(f, d->half_pct);
	else
		put_empty(f, 1);
	put_str(f, ipc_stop_name(d->stop));
	for (k = 0; k < IPC_FLAG_COUNT && n < sizeof(flags); k++)
		if (d->flags & (1u << k))
			n += (size_t)snprintf(flags + n, sizeof(flags) - n,
					      "%s%s", n ? ";" : "",
					      ipc_flag_name(k));
	put_str(f, flags);
	put_cost(f, &d->client);
	put_cost(f, &d->server);
	if (d->have_load)
		put_real(f, d->other_cpus);
	else
		put_empty(f, 1);
	if (d->loadavg_1m >= 0)
		put_real(f, d->loadavg_1m);
	else
		put_empty(f, 1);
}

/* Where the sides ran: 1 or 2 CPUs and which; empty: the scheduler's. */
static void put_place(FILE *f, const struct ipc_place *pl)
{
	if (pl->cpus == IPC_CPUS_ANY) {
		put_empty(f, 3);
		return;
	}
	put_u64(f, pl->cpus == IPC_CPUS_ONE ? 1 : 2);
	put_u64(f, (uint64_t)pl->client_cpu);
	put_u64(f, (uint64_t)pl->server_cpu);
}

/*
 * The case's parameters that have a column: those of the header's
 * parameter columns (JSON's keys) that the pattern describes.
 */
static void put_params(FILE *f, const struct ipc_case *cs)
{
	for (size_t i = 0; i < sizeof(param_cols) / sizeof(param_cols[0]);
	     i++) {
		const struct ipc_param *p = cs->pat ? cs->pat->params : NULL;

		while (p && p->key && strcmp(p->key, param_cols[i]))
			p++;
		if (p && p->key && ipc_param_is_number(p))
			put_u64(f, ipc_param_u64(cs, p));
		else
			put_empty(f, 1);
	}
}

/* Parameter @key of the case, as JSON writes it, or an empty field. */
static void put_param(FILE *f, const struct ipc_case *cs, const char *key)
{
	const struct ipc_param *p = cs->pat ? cs->pat->params : NULL;
	uint64_t v;

	while (p && p->key && strcmp(p->key, key))
		p++;
	if (!p || !p->key || !ipc_param_at(cs, p)) {
		put_empty(f, 1);
		return;
	}
	if (!ipc_param_is_number(p)) {
		put_str(f, ipc_param_str(cs, p));
		return;
	}
	v = ipc_param_u64(cs, p);
	if (p->fmt == IPC_FMT_NAME && p->names)
		put_str(f, p->names[v]);
	else if (p->fmt == IPC_FMT_LOOP)
		put_str(f, v ? "open" : "closed");
	else
		put_u64(f, v);
}

/* The summary's extra figure @key, or an empty field. */
static void put_extra(FILE *f, const struct ipc_result *res, const char *key)
{
	const struct ipc_extra *x = res->cs.pat ? res->cs.pat->extras : NULL;
	size_t k;

	for (k = 0; x && x[k].key && k < IPC_EXTRA_MAX; k++)
		if (!strcmp(x[k].key, key))
			break;
	if (!x || !x[k].key || k == IPC_EXTRA_MAX ||
	    (!res->nruns && !res->summary.iterations))
		put_empty(f, 1);
	else if (x[k].flags & IPC_EXTRA_INT)
		put_ns(f, res->summary.extra[k]);
	else
		put_real(f, res->summary.extra[k]);
}

static void put_more(FILE *f, const struct ipc_result *res)
{
	struct more m;

	more_cols(&m);
	for (size_t i = 0; i < m.n; i++) {
		if (m.extra[i])
			put_extra(f, res, m.key[i]);
		else
			put_param(f, &res->cs, m.key[i]);
	}
}

/*
 * --explain's breakdown in four fields: the mean it explains, what the
 * phases add up to, the phases as "side:name=ns" per round trip joined
 * with ';' (the residue may be negative), and why explain could not run.
 */
static void put_explain(FILE *f, const struct ipc_explain_result *x)
{
	char phases[IPC_XSIDES * IPC_XPHASES * 48] = "";
	size_t i, at = 0;

	if (!x || !x->available) {
		put_empty(f, 3);
		put_str(f, x ? x->why : NULL);
		return;
	}
	put_ns(f, x->measured_ns);
	put_ns(f, x->sum_ns);
	for (i = 0; i < x->nphases && at < sizeof(phases); i++)
		at += (size_t)snprintf(phases + at, sizeof(phases) - at,
				       "%s%s:%s=%.0f", i ? ";" : "",
				       x->phases[i].side, x->phases[i].name,
				       x->phases[i].ns);
	put_str(f, phases);
	put_str(f, "");
}

static int csv_result(struct ipc_report *r, const struct ipc_result *res)
{
	const struct ipc_case *cs = &res->cs;
	const struct ipc_run_stats *s = &res->summary;
	const struct ipc_lat *l = &s->lat;
	const struct ipc_runs_stats *m = &res->metric;
	FILE *f = r->out;

	errno = 0;
	fprintf(f, "%d", IPC_JSON_SCHEMA);
	put_str(f, cs->pat ? cs->pat->name : "?");
	put_str(f, cs->tp ? cs->tp->name : "?");
	put_str(f, cs->eng ? cs->eng->name : "?");
	put_str(f, status_name(res->status));
	put_params(f, cs);
	put_u64(f, res->nruns);

	/* Nothing measured: no numbers, not zeros. */
	if (!res->nruns && !s->iterations) {
		put_empty(f, 16);
	} else {
		put_u64(f, s->iterations);
		put_u64(f, s->elapsed_ns);
		put_real(f, s->msgs_per_s);
		put_real(f, s->bytes_per_s);
		put_u64(f, l->min);
		put_ns(f, l->mean);
		put_ns(f, l->stddev);
		put_u64(f, l->p50);
		put_u64(f, l->p90);
		put_u64(f, l->p99);
		put_u64(f, l->p999);
		put_u64(f, l->max);
		if (res->nruns >= 2)
			put_real(f, m->cv);
		else
			put_empty(f, 1);
		if (m->have_ci && res->nruns >= 2 && isfinite(m->ci_level) &&
		    isfinite(m->ci_low) && isfinite(m->ci_high)) {
			put_real(f, m->ci_level);
			if (ipc_result_metric(res)->integer) {
				put_ns(f, m->ci_low);
				put_ns(f, m->ci_high);
			} else {
				put_real(f, m->ci_low);
				put_real(f, m->ci_high);
			}
		} else {
			put_empty(f, 3);
		}
	}
	put_str(f, res->status == IPC_STATUS_OK ? "" : res->error);
	put_diag(f, res);
	put_place(f, &cs->place);
	put_more(f, res);
	put_explain(f, res->explain);
	if (fputc('\n', f) == EOF || ferror(f))
		return io_err();
	return 0;
}

static int csv_end(struct ipc_report *r)
{
	errno = 0;
	if (fflush(r->out) == EOF || ferror(r->out))
		return io_err();
	return 0;
}

const struct ipc_report_ops ipc_report_csv = {
	.name = "csv",
	.help = "one CSV row per case, raw integers (ns, bytes)",
	.begin = csv_begin,
	.skip = csv_skip,
	.result = csv_result,
	.end = csv_end,
};

/* SPDX-License-Identifier: MIT */
/*
 * Result records: one per case, holding every completed run, the merged
 * histogram and the summaries that reports print.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/run.h"
#include "explain/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

struct ipc_result *ipc_result_new(const struct ipc_case *cs)
{
	struct ipc_result *res = calloc(1, sizeof(*res));

	if (!res)
		return NULL;
	res->cs = *cs;
	res->hist = ipc_hist_new();
	res->xhist = ipc_hist_new();
	if (!res->hist || !res->xhist) {
		ipc_hist_free(res->hist);
		ipc_hist_free(res->xhist);
		free(res);
		return NULL;
	}
	return res;
}

void ipc_result_free(struct ipc_result *res)
{
	if (!res)
		return;
	ipc_hist_free(res->hist);
	ipc_hist_free(res->xhist);
	ipc_explain_result_free(res->explain);
	free(res->runs);
	free(res->ivals);
	free(res->streams);
	free(res);
}

void ipc_result_pattern_summary(struct ipc_result *res)
{
	struct ipc_psum ps;

	if (!res->cs.pat || !res->cs.pat->summarize)
		return;
	ps = (struct ipc_psum){
		.runs = res->nruns,
		.iterations = res->summary.iterations,
		.lat = res->summary.lat,
		.elapsed_ns = res->summary.elapsed_ns,
	};
	memcpy(ps.extra, res->summary.extra, sizeof(ps.extra));
	res->cs.pat->summarize(&res->cs, &ps);
	res->summary.elapsed_ns = ps.elapsed_ns;
	memcpy(res->summary.extra, ps.extra, sizeof(ps.extra));
}

/* The framing and the link, when they are not the plain ones. */
static void describe_more(const struct ipc_case *cs, char *buf, size_t len)
{
	size_t n = strlen(buf);

	if (cs->framing && cs->framing->encode && n < len)
		n += (size_t)snprintf(
			buf + n, len - n, " framing=%s%s", cs->framing->name,
			cs->framing->acks && cs->framing_noack ? ",no-ack"
							       : "");
	if (cs->link && n < len)
		snprintf(buf + n, len - n, " link=%s", cs->link->name);
}

char *ipc_case_describe(const struct ipc_case *cs, char *buf, size_t len)
{
	const struct ipc_param *p;
	char w[96];
	int n;

	n = snprintf(buf, len, "%s %s", cs->pat ? cs->pat->name : "?",
		     cs->tp ? cs->tp->name : "?");
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (cs->eng && strcmp(cs->eng->name, "blocking") != 0) {
		n += snprintf(buf + n, len - (size_t)n, " %s", cs->eng->name);
		if ((size_t)n >= len)
			return buf;
	}
	for (p = cs->pat ? cs->pat->params : NULL; p && p->key; p++) {
		if (!ipc_param_in_words(cs, p))
			continue;
		ipc_param_word(cs, p, w, sizeof(w));
		n += snprintf(buf + n, len - (size_t)n, " %s%s%s", p->word,
			      p->word[0] ? "=" : "", w);
		if ((size_t)n >= len)
			return buf;
	}
	n += snprintf(buf + n, len - (size_t)n, "%s",
		      ipc_place_word(&cs->place));
	if ((size_t)n >= len)
		return buf;
	describe_more(cs, buf, len);
	return buf;
}

/* A latency summary's figure. */
static double lat_value(const struct ipc_lat *l, enum ipc_src src)
{
	switch (src) {
	case IPC_SRC_P50:
		return (double)l->p50;
	case IPC_SRC_P90:
		return (double)l->p90;
	case IPC_SRC_P99:
		return (double)l->p99;
	case IPC_SRC_P999:
		return (double)l->p999;
	case IPC_SRC_MAX:
		return (double)l->max;
	case IPC_SRC_MIN:
		return (double)l->min;
	case IPC_SRC_MEAN:
		return l->mean;
	case IPC_SRC_SD:
		return l->stddev;
	default:
		return NAN;
	}
}

static double loss_value(const struct ipc_loss *l, enum ipc_src src)
{
	if (!l->counted)
		return NAN;
	switch (src) {
	case IPC_SRC_LOST:
		return (double)l->lost;
	case IPC_SRC_LATE:
		return (double)l->late;
	case IPC_SRC_REORDERED:
		return l->reorder_known ? (double)l->reordered : NAN;
	default:
		return NAN;
	}
}

static double flows_value(const struct ipc_case *cs, const struct ipc_flows *f,
			  enum ipc_src src)
{
	if (!f->flows)
		return NAN;
	switch (src) {
	case IPC_SRC_FLOW_MIN:
		return f->rate_min;
	case IPC_SRC_FLOW_MEDIAN:
		return f->rate_median;
	case IPC_SRC_FLOW_MAX:
		return f->rate_max;
	case IPC_SRC_FAIRNESS:
		return f->jain;
	case IPC_SRC_LAG:
		/* The generator's lag exists only against a schedule. */
		return cs->rate ? (double)f->lag_max_ns : NAN;
	default:
		return NAN;
	}
}

double ipc_result_value(const struct ipc_result *res,
			const struct ipc_run_stats *s, enum ipc_src src)
{
	if (src >= IPC_SRC_EXTRA)
		return src - IPC_SRC_EXTRA < IPC_EXTRA_MAX
			       ? s->extra[src - IPC_SRC_EXTRA]
			       : NAN;
	switch (src) {
	case IPC_SRC_MSGS_PER_S:
		return s->msgs_per_s;
	case IPC_SRC_BYTES_PER_S:
		return s->bytes_per_s;
	case IPC_SRC_LOST:
	case IPC_SRC_LATE:
	case IPC_SRC_REORDERED:
		return loss_value(&s->loss, src);
	case IPC_SRC_FLOW_MIN:
	case IPC_SRC_FLOW_MEDIAN:
	case IPC_SRC_FLOW_MAX:
	case IPC_SRC_FAIRNESS:
	case IPC_SRC_LAG:
		return flows_value(&res->cs, &s->flows, src);
	case IPC_SRC_XP50:
		return res->xcount ? (double)res->xlat.p50 : NAN;
	case IPC_SRC_XP99:
		return res->xcount ? (double)res->xlat.p99 : NAN;
	case IPC_SRC_COUNT:
		return (double)s->iterations;
	default:
		return lat_value(&s->lat, src);
	}
}

/* Did no run move a payload byte (size 0)? */
static bool no_bytes(const struct ipc_result *res)
{
	size_t i;

	for (i = 0; i < res->nruns; i++)
		if (res->runs[i].bytes)
			return false;
	return res->nruns > 0;
}

const struct ipc_metric *ipc_result_metric_as(const struct ipc_result *res,
					      const struct ipc_metric *m)
{
	if (!m)
		m = res->cs.pat && res->cs.pat->metric ? res->cs.pat->metric
						       : &ipc_metric_p50;
	if (m->no_bytes && no_bytes(res))
		m = m->no_bytes;
	return m;
}

const struct ipc_metric *ipc_result_metric(const struct ipc_result *res)
{
	return res->diag.metric ? res->diag.metric
				: ipc_result_metric_as(res, NULL);
}

double ipc_run_metric(const struct ipc_result *res, size_t run)
{
	return ipc_result_value(res, &res->runs[run],
				ipc_result_metric(res)->src);
}

const char *ipc_metric_name(const struct ipc_result *res)
{
	return ipc_result_metric(res)->name;
}

char *ipc_fmt_metric(const struct ipc_result *res, double v, char *buf,
		     size_t len)
{
	return ipc_fmt_value(ipc_result_metric(res)->fmt, v, buf, len);
}

char *ipc_fmt_value(enum ipc_fmt fmt, double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (fmt) {
	case IPC_FMT_BYTES:
		return ipc_fmt_bytes(v, buf, len);
	case IPC_FMT_NS:
		return ipc_fmt_ns(v, buf, len);
	case IPC_FMT_RATE:
		return ipc_fmt_rate(v, buf, len);
	case IPC_FMT_BPS:
		return ipc_fmt_bps(v, buf, len);
	case IPC_FMT_RATIO:
		snprintf(buf, len, "%.3f", v);
		return buf;
	default:
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
}

const char *ipc_cost_unit(const struct ipc_result *res)
{
	return res->cs.pat && res->cs.pat->cost_per ? res->cs.pat->cost_per
						    : "message";
}

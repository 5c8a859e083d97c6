/*
 * What every layout of the human table shares: a figure or a parameter in
 * words, the columns every table ends with (runs, spread, interval, CPU
 * cost, flags, status), the heading's words and the notes under a table.
 * Everything here reads the result and the pattern's description.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

const char tab_zero_note[] =
	"note: size 0 on a byte stream is carried as a 1-byte token; rates "
	"count payload bytes only";

int tab_grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	np = reallocarray(*p, ncap, size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

bool tab_measured(const struct trow *t)
{
	return t->res.status != IPC_STATUS_ERROR &&
	       (t->res.nruns || t->res.summary.iterations);
}

const char *tab_pat_name(const struct trow *t)
{
	return t->res.cs.pat ? t->res.cs.pat->name : "?";
}

const char *tab_tp_name(const struct trow *t)
{
	return t->res.cs.tp ? t->res.cs.tp->name : "?";
}

const char *tab_eng_name(const struct trow *t)
{
	return t->res.cs.eng ? t->res.cs.eng->name : "?";
}

const char *tab_link_name(const struct trow *t)
{
	return t->res.cs.link ? t->res.cs.link->name : "none";
}

const char *tab_one_engine(const struct trow *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(tab_eng_name(rows[i]), tab_eng_name(rows[0])))
			return NULL;
	return n ? tab_eng_name(rows[0]) : NULL;
}

const char *tab_one_link(const struct trow *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(tab_link_name(rows[i]), tab_link_name(rows[0])))
			return NULL;
	return n ? tab_link_name(rows[0]) : NULL;
}

bool tab_zero_on_stream(const struct trow *t)
{
	const struct ipc_case *cs = &t->res.cs;

	if (!cs->tp || !(cs->tp->caps & IPC_TP_STREAM) || !cs->pat)
		return false;
	if (cs->framing && cs->framing->encode)
		return false; /* a framed size 0 is an empty frame */
	for (const struct ipc_param *p = cs->pat->params; p && p->key; p++)
		if ((p->flags & IPC_PARAM_PAYLOAD) && !ipc_param_u64(cs, p))
			return true;
	return false;
}

void tab_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * "until the 95% CI is within ±1% (5 to 30 runs, budget 60 s)": the
 * stopping rule of --runs auto in words.
 */
static void auto_words(char *buf, size_t len, const struct ipc_runopts *ro)
{
	char t[32];

	tab_appendf(buf, len,
		    "until the %g%% CI is within ±%g%% (%u to %u runs",
		    ro->ci_level * 100, ro->ci_pct, ro->min_runs, ro->max_runs);
	if (ro->budget_ns)
		tab_appendf(buf, len, ", budget %s",
			    ipc_fmt_ns((double)ro->budget_ns, t, sizeof(t)));
	tab_appendf(buf, len, ")");
}

void tab_how_many(char *buf, size_t len, const struct ipc_runopts *ro,
		  size_t runs, uint64_t iters, const char *one,
		  const char *many)
{
	const char *unit = iters == 1 ? one : many;
	char t[32];

	if (ro && ro->runs_auto) {
		if (ro->duration_ns)
			tab_appendf(buf, len, "runs of %s ",
				    ipc_fmt_ns((double)ro->duration_ns, t,
					       sizeof(t)));
		else
			tab_appendf(buf, len, "runs of %llu %s ",
				    (unsigned long long)iters, unit);
		auto_words(buf, len, ro);
		return;
	}
	tab_appendf(buf, len, "%zu run%s", runs, runs == 1 ? "" : "s");
	if (ro && ro->duration_ns)
		tab_appendf(buf, len, " of %s each",
			    ipc_fmt_ns((double)ro->duration_ns, t, sizeof(t)));
	else
		tab_appendf(buf, len, " × %llu %s", (unsigned long long)iters,
			    unit);
}

void tab_where(char *buf, size_t len, const struct ipc_runopts *ro)
{
	tab_appendf(buf, len, "peer in %s",
		    ro->placement == IPC_PLACE_THREAD ? "a thread"
						      : "a separate process");
	if (ro->pin_client >= 0)
		tab_appendf(buf, len, ", client on CPU %d", ro->pin_client);
	if (ro->pin_server >= 0)
		tab_appendf(buf, len, ", server on CPU %d", ro->pin_server);
}

/* A parameter's value for people, into @buf. */
static void param_text(const struct ipc_case *cs, const struct ipc_param *p,
		       char *buf, size_t len)
{
	char r[32];
	const char *s;
	uint64_t v;

	if (!ipc_param_is_number(p)) {
		s = ipc_param_str(cs, p);
		snprintf(buf, len, "%s", s ? s : "-");
		return;
	}
	v = ipc_param_u64(cs, p);
	switch (p->fmt) {
	case IPC_FMT_BYTES:
		ipc_fmt_bytes((double)v, buf, len);
		break;
	case IPC_FMT_NS:
		ipc_fmt_ns((double)v, buf, len);
		break;
	case IPC_FMT_RATE:
		ipc_fmt_rate((double)v, buf, len);
		break;
	case IPC_FMT_BPS:
		ipc_fmt_bps((double)v, buf, len);
		break;
	case IPC_FMT_LOOP:
		if (v)
			snprintf(buf, len, "open, %s",
				 ipc_fmt_rate((double)v, r, sizeof(r)));
		else
			snprintf(buf, len, "closed");
		break;
	case IPC_FMT_NAME:
		snprintf(buf, len, "%s", p->names ? p->names[v] : "?");
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
}

bool tab_param_left(const struct ipc_param *p)
{
	return !ipc_param_is_number(p) || p->fmt == IPC_FMT_NAME ||
	       p->fmt == IPC_FMT_LOOP || p->fmt == IPC_FMT_TEXT;
}

void tab_param_cell(struct grid *g, char **cell, const struct ipc_case *cs,
		    const struct ipc_param *p)
{
	char buf[128];

	param_text(cs, p, buf, sizeof(buf));
	grid_set(g, cell, "%s", buf);
}

/* The parameter called @key (@n bytes) of @pat, or NULL. */
static const struct ipc_param *param_named(const struct ipc_pattern_ops *pat,
					   const char *key, size_t n)
{
	for (const struct ipc_param *p = pat ? pat->params : NULL; p && p->key;
	     p++)
		if (strlen(p->key) == n && !strncmp(p->key, key, n))
			return p;
	return NULL;
}

/* Do all @rows hold the same value of @p? */
static bool rows_share(const struct ipc_param *p,
		       const struct trow *const *rows, size_t n)
{
	char a[128], b[128];

	for (size_t i = 1; i < n; i++) {
		if (ipc_param_is_number(p)) {
			if (ipc_param_u64(&rows[i]->res.cs, p) !=
			    ipc_param_u64(&rows[0]->res.cs, p))
				return false;
			continue;
		}
		param_text(&rows[i]->res.cs, p, a, sizeof(a));
		param_text(&rows[0]->res.cs, p, b, sizeof(b));
		if (strcmp(a, b))
			return false;
	}
	return true;
}

bool tab_words(char *buf, size_t len, const char *tmpl,
	       const struct ipc_pattern_ops *pat,
	       const struct trow *const *rows, size_t n)
{
	char val[128], first[128] = "";
	bool alike = true, any = false;
	const char *s = tmpl, *e;
	const struct ipc_param *p;

	buf[0] = '\0';
	while (s && *s) {
		e = strchr(s, '{');
		if (!e) {
			tab_appendf(buf, len, "%s", s);
			break;
		}
		tab_appendf(buf, len, "%.*s", (int)(e - s), s);
		s = e + 1;
		e = strchr(s, '}');
		if (!e)
			break;
		p = param_named(pat, s, (size_t)(e - s));
		if (!p || !n)
			snprintf(val, sizeof(val), "%.*s", (int)(e - s), s);
		else if (rows_share(p, rows, n))
			param_text(&rows[0]->res.cs, p, val, sizeof(val));
		else if (p->vary)
			snprintf(val, sizeof(val), "%s", p->vary);
		else
			for (size_t i = 0; i < sizeof(val); i++)
				if (!(val[i] =
					      (char)(p->key[i] >= 'a' &&
								     p->key[i] <=
									     'z'
							     ? p->key[i] - 'a' +
								       'A'
							     : p->key[i])))
					break;
		tab_appendf(buf, len, "%s", val);
		if (any && strcmp(val, first))
			alike = false;
		if (!any)
			snprintf(first, sizeof(first), "%s", val);
		any = true;
		s = e + 1;
	}
	return alike;
}

bool tab_col_has(const struct ipc_column *c, const struct ipc_result *res)
{
	return isfinite(ipc_result_value(res, &res->summary, c->src));
}

void tab_col_cell(struct grid *g, char **cell, const struct ipc_column *c,
		  const struct ipc_result *res)
{
	double v = ipc_result_value(res, &res->summary, c->src), ref;
	const struct ipc_loss *l = &res->summary.loss;
	char buf[64];

	if (c->per_off) {
		uint64_t per = *(const uint64_t *)((const char *)&res->cs +
						   c->per_off);

		v = per ? v / (double)per : NAN;
	}
	if (c->fmt == IPC_FMT_LOSS && isfinite(v) && l->sent) {
		grid_set(g, cell, "%.0f (%.3g%%)", v,
			 100.0 * v / (double)l->sent);
		return;
	}
	if (c->fmt == IPC_FMT_OVER) {
		ref = ipc_result_value(res, &res->summary, c->over);
		if (isfinite(v) && isfinite(ref) && ref > 0)
			grid_set(g, cell, "%+.1f%%", 100.0 * (v - ref) / ref);
		else
			grid_set(g, cell, "-");
		return;
	}
	grid_set(g, cell, "%s", ipc_fmt_value(c->fmt, v, buf, sizeof(buf)));
}

void tab_tail_init(struct tab_tail *tt, const struct ipc_pattern_ops *pat,
		   const struct trow *const *rows, size_t n)
{
	const char *u = pat && pat->cost_abbr ? pat->cost_abbr : "msg";

	memset(tt, 0, sizeof(*tt));
	for (size_t i = 0; i < n; i++) {
		const struct ipc_result *r = &rows[i]->res;

		if (!tab_measured(rows[i]))
			continue;
		tt->flags |= r->diag.flags;
		tt->cost |= r->diag.client.valid && r->diag.server.valid;
		tt->cycles |= r->diag.client.cycles >= 0 &&
			      r->diag.server.cycles >= 0;
		/* The column is named after the first interval's level. */
		if (!tt->ci && r->metric.have_ci && r->nruns >= 2) {
			tt->ci = true;
			snprintf(tt->ci_head, sizeof(tt->ci_head), "%.0f%% CI",
				 isfinite(r->metric.ci_level)
					 ? r->metric.ci_level * 100
					 : 0.0);
		}
	}
	/* "cpu/rt": per round trip, per message, per chunk. */
	snprintf(tt->cpu_head, sizeof(tt->cpu_head), "cpu/%s", u);
	snprintf(tt->csw_head, sizeof(tt->csw_head), "csw/%s", u);
	snprintf(tt->cyc_head, sizeof(tt->cyc_head), "cycles/%s", u);
	snprintf(tt->ins_head, sizeof(tt->ins_head), "instr/%s", u);
	for (size_t k = 0; k < sizeof(tt->col) / sizeof(tt->col[0]); k++)
		tt->col[k] = -1;
}

enum { T_RUNS, T_CV, T_CI, T_CPU, T_CSW, T_CYC, T_INS, T_FLAGS, T_STATUS };

void tab_tail_cols(struct tab_tail *tt, struct grid *g, bool cost_cols,
		   bool flags_col)
{
	tt->col[T_RUNS] = grid_col(g, "runs", false);
	tt->col[T_CV] = grid_col(g, "cv", false);
	if (tt->ci)
		tt->col[T_CI] = grid_col(g, tt->ci_head, false);
	if (cost_cols && tt->cost) {
		tt->col[T_CPU] = grid_col(g, tt->cpu_head, false);
		tt->col[T_CSW] = grid_col(g, tt->csw_head, false);
		if (tt->cycles) {
			tt->col[T_CYC] = grid_col(g, tt->cyc_head, false);
			tt->col[T_INS] = grid_col(g, tt->ins_head, false);
		}
	}
	if (flags_col && tt->flags)
		tt->col[T_FLAGS] = grid_col(g, "flags", true);
	tt->col[T_STATUS] = grid_col(g, "status", true);
}

/* The cell of tail column @k of line @l, or NULL when not shown. */
static char **tcell(const struct tab_tail *tt, struct grid_line *l, int k)
{
	return tt->col[k] >= 0 ? &l->cell[tt->col[k]] : NULL;
}

/* A count people can read at a glance: 812, 12.1k, 3.40M. */
static void count_word(double v, char *buf, size_t len)
{
	if (v < 999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 999500)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.3gM", v / 1e6);
}

/* "12.1k+11.8k", or "-" when a side did not count it. */
static void cell_counts(struct grid *g, char **dst, double a, double b)
{
	char x[24], y[24];

	if (a < 0 || b < 0) {
		grid_set(g, dst, "-");
		return;
	}
	count_word(a, x, sizeof(x));
	count_word(b, y, sizeof(y));
	grid_set(g, dst, "%s+%s", x, y);
}

typedef char *(*fmt_fn)(double v, char *buf, size_t len);

/*
 * "4.80–5.02 µs" when both ends share a unit, else "980 ns–1.02 µs"; "a+b"
 * likewise with @sep "+".  The unit is what follows the last space.
 */
static void pair(struct grid *g, char **dst, fmt_fn fmt, double lo, double hi,
		 const char *sep)
{
	char a[32], b[32];
	const char *ua, *ub;

	fmt(lo, a, sizeof(a));
	fmt(hi, b, sizeof(b));
	ua = strrchr(a, ' ');
	ub = strrchr(b, ' ');
	if (ua && ub && !strcmp(ua, ub))
		grid_set(g, dst, "%.*s%s%s", (int)(ua - a), a, sep, b);
	else
		grid_set(g, dst, "%s%s%s", a, sep, b);
}

/* "2.10+1.95 µs": client + server CPU (user + system) per message. */
static void cost_cells(const struct tab_tail *tt, struct grid *g,
		       struct grid_line *l, const struct ipc_diag *d)
{
	const struct ipc_cost *cl = &d->client, *sv = &d->server;

	if (!cl->valid || !sv->valid) {
		grid_set(g, tcell(tt, l, T_CPU), "-");
		grid_set(g, tcell(tt, l, T_CSW), "-");
		grid_set(g, tcell(tt, l, T_CYC), "-");
		grid_set(g, tcell(tt, l, T_INS), "-");
		return;
	}
	if (tt->col[T_CPU] >= 0)
		pair(g, tcell(tt, l, T_CPU), ipc_fmt_ns,
		     cl->user_ns + cl->sys_ns, sv->user_ns + sv->sys_ns, "+");
	grid_set(g, tcell(tt, l, T_CSW), "%.2g+%.2g", cl->vcsw + cl->ivcsw,
		 sv->vcsw + sv->ivcsw);
	if (tt->col[T_CYC] >= 0) {
		cell_counts(g, tcell(tt, l, T_CYC), cl->cycles, sv->cycles);
		cell_counts(g, tcell(tt, l, T_INS), cl->instructions,
			    sv->instructions);
	}
}

/* The interval of the metric with its half-width: "4.80–5.02 µs ±2.3%". */
static void ci_cell(struct grid *g, char **cell, const struct trow *t)
{
	const struct ipc_runs_stats *m = &t->res.metric;
	const struct ipc_metric *mt = ipc_result_metric(&t->res);
	double half = t->res.diag.half_pct;
	fmt_fn fmt = mt->fmt == IPC_FMT_RATE  ? ipc_fmt_rate
		     : mt->fmt == IPC_FMT_BPS ? ipc_fmt_bps
					      : ipc_fmt_ns;

	if (!cell)
		return;
	if (!m->have_ci || t->res.nruns < 2) {
		grid_set(g, cell, "-");
		return;
	}
	if (!isfinite(m->ci_low) || !isfinite(m->ci_high) || m->ci_low < 0 ||
	    m->ci_high < 0)
		grid_set(g, cell, "-");
	else
		pair(g, cell, fmt, m->ci_low, m->ci_high, "–");
	if (half >= 0 && *cell)
		grid_set(g, cell, "%s ±%.*f%%", *cell,
			 half < 10 ? 2 - (half >= 1) : 0, half);
}

void tab_tail_cells(const struct tab_tail *tt, struct grid *g,
		    struct grid_line *l, const struct trow *t)
{
	const struct ipc_result *r = &t->res;
	char **flags = tcell(tt, l, T_FLAGS);
	size_t n = 0;

	grid_set(g, tcell(tt, l, T_RUNS), "%zu", r->nruns);
	if (r->nruns >= 2 && isfinite(r->metric.cv) && r->metric.cv >= 0)
		grid_set(g, tcell(tt, l, T_CV), "%.1f%%", r->metric.cv * 100);
	else
		grid_set(g, tcell(tt, l, T_CV), "-");
	ci_cell(g, tcell(tt, l, T_CI), t);
	cost_cells(tt, g, l, &r->diag);
	grid_set(g, flags, "%s", "");
	for (int k = 0; flags && k < IPC_FLAG_COUNT; k++) {
		if (!(r->diag.flags & (1u << k)) || !*flags)
			continue;
		grid_set(g, flags, "%s%s%s", *flags, n ? "," : "",
			 ipc_flag_name(k));
		n++;
	}
	if (r->status == IPC_STATUS_OK)
		grid_set(g, tcell(tt, l, T_STATUS), "ok");
	else
		grid_set(g, tcell(tt, l, T_STATUS), "%s: %s",
			 r->status == IPC_STATUS_PARTIAL ? "partial" : "error",
			 r->error[0] ? r->error : "unknown error");
}

void tab_case_cells(struct grid *g, struct grid_line *l, const struct trow *t,
		    const int *pcol, const struct ipc_column *cols,
		    const int *ccol, const struct tab_tail *tt)
{
	const struct ipc_result *r = &t->res;
	size_t k = 0;

	for (const struct ipc_param *p = r->cs.pat->params; p && p->key;
	     p++, k++)
		if (pcol[k] >= 0)
			tab_param_cell(g, &l->cell[pcol[k]], &r->cs, p);
	if (!tab_measured(t)) {
		tab_span_failed(g, l, t);
		return;
	}
	for (k = 0; cols && cols[k].head; k++)
		if (ccol[k] >= 0)
			tab_col_cell(g, &l->cell[ccol[k]], &cols[k], r);
	tab_tail_cells(tt, g, l, t);
}

void tab_span_failed(struct grid *g, struct grid_line *l, const struct trow *t)
{
	const struct ipc_result *r = &t->res;

	if (r->status == IPC_STATUS_OK)
		grid_set(g, &l->span, "nothing was measured");
	else
		grid_set(g, &l->span, "%s: %s",
			 r->status == IPC_STATUS_PARTIAL ? "partial" : "error",
			 r->error[0] ? r->error : "unknown error");
}

void tab_cost_note(FILE *out, const struct ipc_report_meta *meta,
		   const struct tab_tail *tt, const char *unit)
{
	const struct ipc_host *h = meta ? meta->host : NULL;
	bool asked = meta && meta->ro && meta->ro->perf;

	fprintf(out,
		"%s: CPU time (user + system) per %s, client+server; "
		"%s: their context switches",
		tt->cpu_head, unit, tt->csw_head);
	if (tt->cycles)
		fprintf(out, "; %s, %s: perf counts", tt->cyc_head,
			tt->ins_head);
	else if (!asked)
		fprintf(out, "; --perf adds cycles and instructions");
	fputc('\n', out);
	if (!tt->cycles && asked)
		fprintf(out, "%s\n",
			h && h->perf[0]
				? h->perf
				: "cycles and instructions: not counted");
}

/* At most this many "case: flag: why" lines under a table. */
#define MAX_WHY_LINES 12

void tab_flag_notes(FILE *out, const struct trow *const *rows, size_t n,
		    unsigned flags)
{
	char what[128], why[256];
	size_t i, lines = 0, more = 0;
	int k;

	if (!flags)
		return;
	for (i = 0; i < n; i++) {
		if (!tab_measured(rows[i]))
			continue;
		for (k = 0; k < IPC_FLAG_COUNT; k++) {
			if (!(rows[i]->res.diag.flags & (1u << k)))
				continue;
			if (lines++ >= MAX_WHY_LINES) {
				more++;
				continue;
			}
			fprintf(out, "%s: %s: %s\n",
				ipc_case_describe(&rows[i]->res.cs, what,
						  sizeof(what)),
				ipc_flag_name(k),
				ipc_flag_why(&rows[i]->res, k, why,
					     sizeof(why)));
		}
	}
	if (more)
		fprintf(out, "... and %zu more (-f json has them all)\n", more);
	for (k = 0; k < IPC_FLAG_COUNT; k++)
		if (flags & (1u << k))
			fprintf(out, "hint for %s: %s\n", ipc_flag_name(k),
				ipc_flag_hint(k));
}

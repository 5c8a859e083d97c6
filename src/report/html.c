/* SPDX-License-Identifier: MIT */
/*
 * The HTML formatter: one self-contained page with what was run (command
 * line, version, build, host fingerprint), then per pattern the table's
 * section (flags with their reasons under it) and its charts: a sweep
 * chart chosen by what varies (doc/chartplan.c), the per-run values of every
 * case as strips with the estimate and its interval, and every case's
 * percentile spectrum.  Comparisons get a forest plot of their ratios.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doc/chartplan.h"
#include "doc/compare.h"
#include "doc/explain_json.h"
#include "doc/figures.h"
#include "html_page.h"
#include "ivals_chart.h"
#include "svg.h"
#include "table.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"
#include "stats/lib_internal.h"

/* Cases per strip chart and series per spectrum, so each stays legible. */
#define STRIP_ROWS 36
#define SPECTRUM_SERIES 6
#define MAXKEYS 24

/* What the page keeps of each result beyond the table's record. */
struct hrun {
	double *v; /* the per-run values of its metric */
	bool *far; /* outliers among them */
	size_t n;
};

struct html {
	struct tab *t;
	struct hrun *runs; /* parallel to t->rows */
	size_t nruns, cap;
	FILE *out;
	const struct ipc_report_meta *meta;
};

/* The unit formatter of a figure kind, for chart axes and tooltips. */
static svg_fmt_fn *fmt_of(enum ipc_fmt f)
{
	switch (f) {
	case IPC_FMT_NS:
		return ipc_fmt_ns;
	case IPC_FMT_BYTES:
		return ipc_fmt_bytes;
	case IPC_FMT_RATE:
		return ipc_fmt_rate;
	case IPC_FMT_BPS:
		return ipc_fmt_bps;
	default:
		return NULL;
	}
}

/* Figures in bytes tick at powers of 1024. */
static bool binary(enum ipc_fmt f)
{
	return f == IPC_FMT_BYTES || f == IPC_FMT_BPS;
}

static int html_begin_(struct ipc_report *r)
{
	struct html *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->t = calloc(1, sizeof(*h->t));
	if (!h->t) {
		free(h);
		return -ENOMEM;
	}
	h->t->style = TAB_HTML;
	h->t->matrix = r->matrix;
	r->priv = h;
	return 0;
}

static int html_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	struct html *h = r->priv;

	return h ? tab_keep_skip(h->t, s) : -EINVAL;
}

static int html_result(struct ipc_report *r, const struct ipc_result *res)
{
	struct html *h = r->priv;
	struct hrun *hr;
	size_t i;
	int err;

	if (!h)
		return -EINVAL;
	err = tab_keep(h->t, res);
	if (err)
		return err;
	if (tab_grow((void **)&h->runs, &h->cap, h->nruns, sizeof(*hr)))
		return -ENOMEM;
	hr = &h->runs[h->nruns++];
	memset(hr, 0, sizeof(*hr));
	if (!res->nruns)
		return 0;
	hr->v = calloc(res->nruns, sizeof(*hr->v));
	hr->far = calloc(res->nruns, sizeof(*hr->far));
	if (!hr->v || !hr->far)
		return -ENOMEM;
	for (i = 0; i < res->nruns; i++) {
		hr->v[i] = ipc_run_metric(res, i);
		hr->far[i] = res->runs[i].outlier;
	}
	hr->n = res->nruns;
	return 0;
}

static const struct hrun *runs_of(const struct html *h, const struct trow *t)
{
	size_t i = (size_t)(t - h->t->rows);

	return i < h->nruns ? &h->runs[i] : NULL;
}

/* "rr tcp req=64 resp=1k": the case in words. */
static char *case_words(const struct trow *t, char *buf, size_t len)
{
	return ipc_case_describe(&t->res.cs, buf, len);
}

/*
 * The percentile spectrum of up to SPECTRUM_SERIES cases at a time: the
 * summary's percentiles its samples can show (doc/figures.c).
 */
static void spectra(struct html *h, const struct trow *const *rows, size_t n)
{
	struct ipc_spectrum sp[SPECTRUM_SERIES];
	char names[SPECTRUM_SERIES][128], title[160];
	struct svg_series s[SPECTRUM_SERIES];
	struct svg_frame fr = {.title = title,
			       .xlabel = "percentile",
			       .ylabel = "time per sample",
			       .fmt_y = ipc_fmt_ns};
	size_t i, ns = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && tab_measured(rows[i])) {
			ipc_spectrum_of(&rows[i]->res.summary, &sp[ns]);
			case_words(rows[i], names[ns], sizeof(names[ns]));
			s[ns] = (struct svg_series){names[ns], sp[ns].q,
						    sp[ns].ns, sp[ns].n,
						    sp[ns].name};
			ns++;
		}
		if (ns && (ns == SPECTRUM_SERIES || i == n)) {
			snprintf(title, sizeof(title),
				 "percentile spectrum%s%s", ns == 1 ? ": " : "",
				 ns == 1 ? names[0] : "");
			fputs("<figure>", h->out);
			svg_spectrum(h->out, &fr, s, ns);
			fputs("</figure>\n", h->out);
			ns = 0;
		}
	}
}

/* The per-run values, STRIP_ROWS cases to a chart. */
static void strips(struct html *h, const struct trow *const *rows, size_t n,
		   const struct ipc_metric *m)
{
	struct svg_strip_row sr[STRIP_ROWS];
	char names[STRIP_ROWS][128], title[128];
	struct svg_frame fr = {.title = title,
			       .fmt_x = fmt_of(m->fmt),
			       .bin_x = binary(m->fmt)};
	size_t i, ns = 0;
	char xl[96];

	snprintf(xl, sizeof(xl), "%s of each run",
		 m->word ? m->word : "metric");
	fr.xlabel = xl;
	snprintf(title, sizeof(title),
		 "runs: each dot one run, the bar the estimate, the band "
		 "its interval");
	for (i = 0; i <= n; i++) {
		const struct hrun *hr = i < n ? runs_of(h, rows[i]) : NULL;

		if (hr && hr->n) {
			const struct ipc_result *r = &rows[i]->res;

			case_words(rows[i], names[ns], sizeof(names[ns]));
			sr[ns] = (struct svg_strip_row){
				names[ns],
				hr->v,
				hr->n,
				r->diag.estimate,
				r->metric.have_ci ? r->metric.ci_low : NAN,
				r->metric.have_ci ? r->metric.ci_high : NAN,
				r->diag.modes.bimodal ? r->diag.modes.cut : NAN,
				hr->far};
			ns++;
		}
		if (ns && (ns == STRIP_ROWS || i == n)) {
			fputs("<figure>", h->out);
			svg_strip(h->out, &fr, sr, ns);
			fputs("</figure>\n", h->out);
			ns = 0;
		}
	}
}

/*
 * The sweep's keys: the pattern's own that name a case, then transport,
 * engine, placement and link (so bars group by a trace before a link).
 */
enum fixed_key { FK_PARAM = 0, FK_TRANSPORT, FK_ENGINE, FK_CPUS, FK_LINK };

struct keys {
	struct cp_key k[MAXKEYS];
	char name[MAXKEYS][32]; /* the JSON key in words: "req size" */
	const struct ipc_param *p[MAXKEYS]; /* FK_PARAM: which */
	enum fixed_key fixed[MAXKEYS];
	size_t n;
};

static void sweep_keys(struct keys *ks, const struct ipc_pattern_ops *pat)
{
	const struct ipc_param *p;

	memset(ks, 0, sizeof(*ks));
	for (p = pat->params; p && p->key && ks->n < MAXKEYS - 4; p++) {
		/*
		 * Only what names a case ("req=64", a trace's name): the
		 * figures a case merely has (a trace's bytes) vary with it.
		 */
		if ((p->flags & IPC_PARAM_DERIVED) || !p->word)
			continue;
		ks->p[ks->n] = p;
		snprintf(ks->name[ks->n], sizeof(ks->name[0]), "%s", p->key);
		for (char *c = ks->name[ks->n]; *c; c++)
			if (*c == '_')
				*c = ' ';
		ks->k[ks->n] = (struct cp_key){
			ks->name[ks->n], *p->word ? p->word : "",
			p->fmt == IPC_FMT_BYTES && ipc_param_is_number(p)};
		ks->n++;
	}
	ks->fixed[ks->n] = FK_TRANSPORT;
	ks->k[ks->n++] = (struct cp_key){"transport", "", false};
	ks->fixed[ks->n] = FK_ENGINE;
	ks->k[ks->n++] = (struct cp_key){"engine", "engine", false};
	ks->fixed[ks->n] = FK_CPUS;
	ks->k[ks->n++] = (struct cp_key){"cpus", "cpus", false};
	ks->fixed[ks->n] = FK_LINK;
	ks->k[ks->n++] = (struct cp_key){"link", "link", false};
}

/* Each case's labels and numbers for the keys, in one allocation. */
struct sweep {
	struct cp_case *c;
	char (*lab)[MAXKEYS][64];
	const char *(*labp)[MAXKEYS];
	double (*num)[MAXKEYS];
};

/* Case @t's value of key @k in words (and as a number, if it is one). */
static void key_value(const struct keys *ks, size_t k, const struct trow *t,
		      char *lab, size_t len, double *num)
{
	const struct ipc_case *cs = &t->res.cs;

	*num = NAN;
	switch (ks->fixed[k]) {
	case FK_TRANSPORT:
		snprintf(lab, len, "%s", tab_tp_name(t));
		return;
	case FK_ENGINE:
		snprintf(lab, len, "%s", tab_eng_name(t));
		return;
	case FK_CPUS:
		snprintf(lab, len, "%s",
			 cs->place.cpus == IPC_CPUS_ONE	  ? "1"
			 : cs->place.cpus == IPC_CPUS_TWO ? "2"
							  : "any");
		return;
	case FK_LINK:
		snprintf(lab, len, "%s", tab_link_name(t));
		return;
	case FK_PARAM:
		break;
	}
	ipc_param_word(cs, ks->p[k], lab, len);
	if (ipc_param_is_number(ks->p[k]))
		*num = (double)ipc_param_u64(cs, ks->p[k]);
}

static int sweep_cases(struct sweep *sw, const struct keys *ks,
		       const struct trow *const *rows, size_t n)
{
	size_t i, k;

	sw->c = calloc(n, sizeof(*sw->c));
	sw->lab = calloc(n, sizeof(*sw->lab));
	sw->labp = calloc(n, sizeof(*sw->labp));
	sw->num = calloc(n, sizeof(*sw->num));
	if (!sw->c || !sw->lab || !sw->labp || !sw->num)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (k = 0; k < ks->n; k++) {
			key_value(ks, k, rows[i], sw->lab[i][k],
				  sizeof(sw->lab[i][k]), &sw->num[i][k]);
			sw->labp[i][k] = sw->lab[i][k];
		}
		sw->c[i].label = sw->labp[i];
		sw->c[i].num = sw->num[i];
	}
	return 0;
}

static void sweep_free(struct sweep *sw)
{
	free(sw->c);
	free(sw->lab);
	free(sw->labp);
	free(sw->num);
}

/* A measured case's estimate, NaN otherwise: nothing drawn for it. */
static double estimate(const struct trow *t)
{
	return tab_measured(t) ? t->res.diag.estimate : NAN;
}

static void draw_heat(struct html *h, const struct cp_chart *c,
		      const struct sweep *sw, const struct keys *ks,
		      const struct trow *const *rows, struct svg_frame *fr)
{
	size_t ri[64], ci[64], nr, nc, i, r, col;
	char rl[64][32], cl[64][32];
	const char *rp[64], *cp[64];
	double *v;

	nr = cp_values(c, sw->c, ks->k, c->y, ri, 64);
	nc = cp_values(c, sw->c, ks->k, c->x, ci, 64);
	v = malloc(nr * nc * sizeof(*v) + 1);
	if (!v)
		return;
	for (i = 0; i < nr * nc; i++)
		v[i] = NAN;
	for (r = 0; r < nr; r++) {
		ipc_fmt_bytes(sw->num[ri[r]][c->y], rl[r], sizeof(rl[r]));
		rp[r] = rl[r];
	}
	for (col = 0; col < nc; col++) {
		ipc_fmt_bytes(sw->num[ci[col]][c->x], cl[col], sizeof(cl[col]));
		cp[col] = cl[col];
	}
	for (i = 0; i < c->ncases; i++) {
		size_t k = c->cases[i];

		for (r = 0;
		     r < nr && strcmp(sw->lab[ri[r]][c->y], sw->lab[k][c->y]);
		     r++)
			;
		for (col = 0; col < nc &&
			      strcmp(sw->lab[ci[col]][c->x], sw->lab[k][c->x]);
		     col++)
			;
		if (r < nr && col < nc)
			v[r * nc + col] = estimate(rows[k]);
	}
	fr->xlabel = ks->k[c->x].name;
	fr->ylabel = ks->k[c->y].name;
	fputs("<figure>", h->out);
	svg_heatmap(h->out, fr, &(struct svg_heat){rp, cp, nr, nc, v});
	fputs("</figure>\n", h->out);
	free(v);
}

static void draw_lines(struct html *h, const struct cp_chart *c,
		       const struct sweep *sw, const struct keys *ks,
		       const struct trow *const *rows, struct svg_frame *fr)
{
	struct svg_series *s = calloc(c->nseries, sizeof(*s));
	double *x = calloc(c->ncases + 1, sizeof(*x));
	double *y = calloc(c->ncases + 1, sizeof(*y));
	size_t i, k, m = 0;

	if (!s || !x || !y)
		goto out;
	/* Each series' points together, by size. */
	for (k = 0; k < c->nseries; k++) {
		size_t start = m;

		for (i = 0; i < c->ncases; i++) {
			size_t ci = c->cases[i], j;

			if (c->series_of[i] != k)
				continue;
			for (j = m; j > start && x[j - 1] > sw->num[ci][c->x];
			     j--) {
				x[j] = x[j - 1];
				y[j] = y[j - 1];
			}
			x[j] = sw->num[ci][c->x];
			y[j] = estimate(rows[ci]);
			m++;
		}
		s[k] = (struct svg_series){c->series[k], x + start, y + start,
					   m - start, NULL};
	}
	fr->xlabel = ks->k[c->x].name;
	fputs("<figure>", h->out);
	svg_lines(h->out, fr, s, c->nseries);
	fputs("</figure>\n", h->out);
out:
	free(s);
	free(x);
	free(y);
}

static void draw_bars(struct html *h, const struct cp_chart *c,
		      const struct sweep *sw, const struct keys *ks,
		      const struct trow *const *rows, struct svg_frame *fr)
{
	size_t gi[64], ng, i, g, n;
	const char *gp[64];
	double *v, *lo, *hi;

	ng = cp_values(c, sw->c, ks->k, c->x, gi, 64);
	n = ng * c->nseries;
	v = malloc(3 * n * sizeof(*v) + 1);
	if (!v)
		return;
	lo = v + n;
	hi = lo + n;
	for (i = 0; i < 3 * n; i++)
		v[i] = NAN;
	for (g = 0; g < ng; g++)
		gp[g] = sw->lab[gi[g]][c->x];
	for (i = 0; i < c->ncases; i++) {
		const struct ipc_result *r = &rows[c->cases[i]]->res;
		size_t k = c->cases[i], at;

		for (g = 0;
		     g < ng && strcmp(sw->lab[gi[g]][c->x], sw->lab[k][c->x]);
		     g++)
			;
		if (g == ng)
			continue;
		at = g * c->nseries + c->series_of[i];
		v[at] = estimate(rows[k]);
		if (tab_measured(rows[k]) && r->metric.have_ci) {
			lo[at] = r->metric.ci_low;
			hi[at] = r->metric.ci_high;
		}
	}
	fr->xlabel = ks->k[c->x].name;
	fputs("<figure>", h->out);
	svg_bars(h->out, fr,
		 &(struct svg_bars){gp, ng, (const char *const *)c->series,
				    c->nseries, v, lo, hi});
	fputs("</figure>\n", h->out);
	free(v);
}

/* The sweep charts of one pattern's rows. */
static void sweeps(struct html *h, const struct trow *const *rows, size_t n,
		   const struct ipc_metric *m)
{
	const struct ipc_pattern_ops *pat = rows[0]->res.cs.pat;
	const char *one_tp = tab_tp_name(rows[0]);
	struct sweep sw = {0};
	struct cp_chart *c = NULL;
	struct keys ks;
	size_t nc = 0, i;
	char title[256];
	struct svg_frame fr = {.title = title,
			       .ylabel = m->word,
			       .fmt_y = fmt_of(m->fmt),
			       .bin_y = binary(m->fmt)};

	for (i = 1; i < n && one_tp; i++)
		if (strcmp(one_tp, tab_tp_name(rows[i])))
			one_tp = NULL;
	sweep_keys(&ks, pat);
	if (sweep_cases(&sw, &ks, rows, n) ||
	    cp_plan(ks.k, ks.n, sw.c, n, &c, &nc))
		goto out;
	for (i = 0; i < nc; i++) {
		/* "rr tcp: p50": the transport all its cases share, if one. */
		snprintf(title, sizeof(title), "%s%s%s%s%s: %s", pat->name,
			 one_tp ? " " : "", one_tp ? one_tp : "",
			 c[i].title[0] ? " " : "", c[i].title,
			 m->word ? m->word : "");
		fr.ylabel = m->word;
		fr.fmt_x = c[i].kind == CP_LINES ? ipc_fmt_bytes : NULL;
		fr.bin_x = c[i].kind == CP_LINES;
		fr.fmt_y = fmt_of(m->fmt);
		switch (c[i].kind) {
		case CP_HEAT:
			draw_heat(h, &c[i], &sw, &ks, rows, &fr);
			break;
		case CP_LINES:
			draw_lines(h, &c[i], &sw, &ks, rows, &fr);
			break;
		case CP_BARS:
			draw_bars(h, &c[i], &sw, &ks, rows, &fr);
			break;
		}
	}
out:
	cp_free(c, nc);
	sweep_free(&sw);
}

/* After each pattern's table: its charts. */
static int section_charts(void *arg, const struct trow *const *rows, size_t n)
{
	struct html *h = arg;
	const struct ipc_metric *m = ipc_result_metric(&rows[0]->res);

	fputs("<div class=\"charts\">\n", h->out);
	sweeps(h, rows, n, m);
	strips(h, rows, n, m);
	spectra(h, rows, n);
	ivals_charts(h->out, rows, n);
	fputs("</div>\n", h->out);
	/* A failed write is seen by ipc_report_end, with its errno. */
	return 0;
}

/* A row of the facts table, escaped; nothing when @v is empty. */
static void fact(FILE *out, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	fputs("<tr><th>", out);
	svg_escape(out, k);
	fputs("</th><td>", out);
	svg_escape(out, v);
	fputs("</td></tr>\n", out);
}

/* A command line, escaped, as one line of code. */
static void argv_line(FILE *out, const struct ipc_report_meta *m)
{
	fputs("<pre class=\"argv\">", out);
	for (int i = 0; i < m->argc; i++) {
		if (i)
			fputc(' ', out);
		svg_escape(out, m->argv[i]);
	}
	fputs("</pre>\n", out);
}

/* The host's fingerprint as a table. */
static void host_facts(FILE *out, const struct ipc_host *h)
{
	char buf[IPC_PMQOS_WORDS];
	size_t n;

	fputs("<table class=\"facts\">\n", out);
	fact(out, "hostname", h->hostname);
	fact(out, "kernel", h->kernel);
	fact(out, "machine", h->machine);
	fact(out, "CPU", h->cpu_model);
	n = (size_t)snprintf(buf, sizeof(buf), "%d logical", h->cpus);
	if (h->cores > 0 && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", %d cores",
				      h->cores);
	if (h->packages > 0 && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", %d socket%s",
				      h->packages, h->packages == 1 ? "" : "s");
	if (h->smt >= 0 && n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, ", SMT %s",
			 h->smt ? "on" : "off");
	fact(out, "CPUs", buf);
	if (h->mem_bytes)
		fact(out, "memory",
		     ipc_fmt_bytes((double)h->mem_bytes, buf, sizeof(buf)));
	fact(out, "virtualization",
	     h->virt[0]	     ? h->virt
	     : h->hypervisor ? "hypervisor"
			     : "");
	fact(out, "clock source", h->clocksource);
	fact(out, "cpufreq governor", h->governor);
	if (h->loadavg[0] >= 0) {
		snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", h->loadavg[0],
			 h->loadavg[1], h->loadavg[2]);
		fact(out, "load average at the start", buf);
	}
	if (h->timer_ns) {
		snprintf(buf, sizeof(buf), "%llu ns per CLOCK_MONOTONIC read",
			 (unsigned long long)h->timer_ns);
		fact(out, "clock cost", buf);
	}
	if (ipc_pmqos_words(&h->pm_qos, buf, sizeof(buf)))
		fact(out, "idle states", buf);
	fact(out, "perf counters",
	     h->perf[0] ? h->perf : "cycles and instructions countable");
	fact(out, "started", h->started);
	fact(out, "ended", h->ended);
	fputs("</table>\n", out);
}

/* One measurement's command line, build and host. */
static void about_one(FILE *out, const struct ipc_report_meta *m)
{
	argv_line(out, m);
	fputs("<table class=\"facts\">\n", out);
	fact(out, "ipcperf", m->version);
	fact(out, "built with", m->build);
	fputs("</table>\n", out);
	if (m->host) {
		fputs("<h3>Host</h3>\n", out);
		host_facts(out, m->host);
	}
}

/*
 * What was run, where, with what: the command line and the host, or for
 * a report of several documents this command line and each one's.
 */
static void about(FILE *out, const struct ipc_report_meta *meta)
{
	size_t i;

	fputs("<h2>What was run</h2>\n", out);
	if (!meta->nsources) {
		about_one(out, meta);
		return;
	}
	argv_line(out, meta);
	for (i = 0; i < meta->nsources; i++) {
		fprintf(out, "<h3>Source %zu of %zu</h3>\n", i + 1,
			meta->nsources);
		about_one(out, meta->sources[i]);
	}
}

static void html_free(struct html *h)
{
	size_t i;

	for (i = 0; i < h->nruns; i++) {
		free(h->runs[i].v);
		free(h->runs[i].far);
	}
	free(h->runs);
	tab_free(h->t);
	free(h);
}

/* Phases kept apart in one chart; the rest would repeat colours. */
#define STACK_PARTS 32

/* The index of phase "side name" among @parts, added when new. */
static size_t part_of(char (*parts)[48], size_t *n, const struct ipc_xphase *p)
{
	char name[48];
	size_t k;

	snprintf(name, sizeof(name), "%s %s", p->side, p->name);
	for (k = 0; k < *n; k++)
		if (!strcmp(parts[k], name))
			return k;
	if (*n == STACK_PARTS)
		return SIZE_MAX;
	snprintf(parts[*n], sizeof(parts[*n]), "%s", name);
	return (*n)++;
}

/*
 * --explain: a stacked bar per explained case, its phases per round trip
 * against the measured mean they explain (the table says the same in
 * numbers).  Nothing when no case was explained.
 */
static void explain_chart(struct html *h)
{
	struct svg_frame fr = {.title = "Where the time goes, per round trip",
			       .xlabel = "time per round trip",
			       .fmt_x = ipc_fmt_ns};
	char(*parts)[48] = calloc(STACK_PARTS, sizeof(*parts));
	char(*labels)[128] = calloc(STRIP_ROWS, sizeof(*labels));
	const char *names[STACK_PARTS];
	double *v = calloc(STRIP_ROWS * STACK_PARTS, sizeof(*v));
	struct svg_stack_row rows[STRIP_ROWS];
	size_t i, k, n = 0, np = 0;

	for (i = 0; v && parts && labels && i < h->t->nrows && n < STRIP_ROWS;
	     i++) {
		const struct ipc_explain_result *x = h->t->rows[i].res.explain;

		if (!x || !x->available || !x->nphases)
			continue;
		rows[n] = (struct svg_stack_row){
			.label = case_words(&h->t->rows[i], labels[n],
					    sizeof(labels[n])),
			.v = v + n * STACK_PARTS,
			.whole = x->measured_ns};
		for (k = 0; k < x->nphases; k++) {
			size_t at = part_of(parts, &np, &x->phases[k]);

			if (at != SIZE_MAX)
				v[n * STACK_PARTS + at] =
					ipc_xphase_total(x, &x->phases[k]);
		}
		n++;
	}
	for (k = 0; k < np; k++)
		names[k] = parts[k];
	if (n) {
		/* Rows are STACK_PARTS apart: parts a row lacks stay 0. */
		struct svg_stack st = {names, np, rows, n};

		fputs("<h2>Where the time goes</h2>\n<div class=\"charts\">"
		      "<figure>",
		      h->out);
		svg_stack(h->out, &fr, &st);
		fputs("</figure></div>\n", h->out);
	}
	free(parts);
	free(labels);
	free(v);
}

static int html_end_(struct ipc_report *r)
{
	struct html *h = r->priv;
	const struct ipc_report_meta *meta = r->meta;
	struct tab_hook hook = {section_charts, h};
	struct tab_out out;
	char title[256];
	int err, err2;

	if (!h)
		return -EINVAL;
	h->out = r->out;
	snprintf(title, sizeof(title), "ipcperf %s%s%s",
		 meta && meta->command ? meta->command : "report",
		 meta && meta->host && meta->host->hostname[0] ? " on " : "",
		 meta && meta->host ? meta->host->hostname : "");
	html_begin(r->out, title);
	fputs("<h1>", r->out);
	svg_escape(r->out, title);
	fputs("</h1>\n", r->out);
	if (meta)
		about(r->out, meta);
	fputs("<h2>Results</h2>\n", r->out);
	tab_out_init(&out, r->out, TAB_HTML);
	err = tab_print(&out, meta, h->t, &hook);
	err2 = tab_out_fini(&out);
	explain_chart(h);
	html_end(r->out);
	html_free(h);
	r->priv = NULL;
	return err ? err : err2;
}

/* A pair's row of the forest plot. */
static void forest_row(const struct ipc_comparison *c, const struct cpair *p,
		       struct svg_forest_row *row, char *label, size_t llen,
		       char *note, size_t nlen)
{
	bool few = p->v.few;

	cmp_label(c, p->a, true, label, llen);
	row->label = label;
	row->ratio = p->cmp.have_ratio ? p->cmp.ratio : NAN;
	/* The interval the verdict rests on (widened by drift, say). */
	row->lo = p->v.have_ci ? p->v.lo : NAN;
	row->hi = p->v.have_ci ? p->v.hi : NAN;
	row->verdict = p->v.verdict;
	if (p->cmp.have_ratio && p->v.have_ci)
		snprintf(note, nlen, "%.3g\xc3\x97 [%.3g, %.3g] %s%s",
			 p->cmp.ratio, p->v.lo, p->v.hi,
			 ipc_verdict_name(p->v.verdict),
			 few ? (p->v.basis == IPC_BASIS_INVOCATIONS
					? " (too few invocations)"
					: " (too few runs)")
			     : "");
	else
		snprintf(note, nlen, "%s", ipc_verdict_name(p->v.verdict));
	row->note = note;
}

int cmp_print_html(FILE *out, const struct ipc_comparison *c)
{
	struct svg_forest_row *rows = calloc(c->npairs + 1, sizeof(*rows));
	char(*labels)[160] = calloc(c->npairs + 1, sizeof(*labels));
	char(*notes)[160] = calloc(c->npairs + 1, sizeof(*notes));
	struct svg_frame fr = {
		.title = "B / A: each case's ratio with its interval",
		.xlabel = "ratio of the medians B/A (log scale)"};
	struct tab_out o;
	size_t i;
	int err = 0, err2;

	if (!rows || !labels || !notes) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < c->npairs; i++)
		forest_row(c, &c->pairs[i], &rows[i], labels[i],
			   sizeof(labels[i]), notes[i], sizeof(notes[i]));
	html_begin(out, "ipcperf compare");
	fputs("<h1>ipcperf compare</h1>\n<div class=\"charts\"><figure>", out);
	svg_forest(out, &fr, rows, c->npairs, c->opts.threshold_pct);
	fputs("</figure></div>\n", out);
	tab_out_init(&o, out, TAB_HTML);
	err = cmp_print_styled(&o, c);
	err2 = tab_out_fini(&o);
	if (!err)
		err = err2;
	/* What each side measured, where: as a report of it would say. */
	fputs("<h2>A</h2>\n", out);
	for (i = 0; i < c->a.ndocs; i++)
		about_one(out, &c->a.docs[i]->meta);
	fputs("<h2>B</h2>\n", out);
	for (i = 0; i < c->b.ndocs; i++)
		about_one(out, &c->b.docs[i]->meta);
	html_end(out);
out:
	free(rows);
	free(labels);
	free(notes);
	return err;
}

const struct ipc_report_ops ipc_report_html = {
	.name = "html",
	.help = "one self-contained page: tables, charts, host and flags",
	.begin = html_begin_,
	.skip = html_skip,
	.result = html_result,
	.end = html_end_,
	.compare = cmp_print_html,
};

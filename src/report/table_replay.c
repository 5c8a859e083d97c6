/*
 * The replay tables.  First the seed report's shape: one row per recorded
 * conversation, one column per link, the median wall time of one replay
 * in each cell.  Then one line per case with what explains the cell: the
 * conversation's exchanges and bytes, the time the emulated link alone
 * accounts for (line time and delays), how far the replay was above it,
 * and the per-exchange latency.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table_replay.h"

#define MAXC 16 /* columns of the detail table */

/* A small table of strings: cells[r * ncols + c], row 0 the header. */
struct sgrid {
	char **cells;
	size_t ncols, nrows, cap;
	bool left[64]; /* words left-aligned, numbers right */
	int err;
};

static char **sg_row(struct sgrid *g)
{
	if (g->err)
		return NULL;
	if (g->nrows == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		char **p = reallocarray(g->cells, cap * g->ncols, sizeof(*p));

		if (!p) {
			g->err = -ENOMEM;
			return NULL;
		}
		g->cells = p;
		g->cap = cap;
	}
	memset(&g->cells[g->nrows * g->ncols], 0, g->ncols * sizeof(char *));
	return &g->cells[g->nrows++ * g->ncols];
}

__attribute__((format(printf, 3, 4))) static void
sg_set(struct sgrid *g, char **cell, const char *fmt, ...)
{
	va_list ap;

	if (!cell)
		return;
	va_start(ap, fmt);
	if (vasprintf(cell, fmt, ap) < 0) {
		*cell = NULL;
		g->err = -ENOMEM;
	}
	va_end(ap);
}

/* Terminal columns of a UTF-8 string. */
static size_t dwidth(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void sg_print(struct sgrid *g, FILE *out)
{
	size_t w[64] = {0}, r, c;

	for (r = 0; r < g->nrows; r++)
		for (c = 0; c < g->ncols; c++) {
			size_t k = dwidth(g->cells[r * g->ncols + c]);

			if (k > w[c])
				w[c] = k;
		}
	for (r = 0; r < g->nrows; r++) {
		size_t last = g->ncols;

		/* No padding after the last cell that has something. */
		while (last > 1 && !g->cells[r * g->ncols + last - 1])
			last--;
		for (c = 0; c < last; c++) {
			const char *s = g->cells[r * g->ncols + c];
			size_t gap = w[c] - dwidth(s);

			if (c)
				fputs("  ", out);
			if (!g->left[c])
				fprintf(out, "%*s", (int)gap, "");
			fputs(s ? s : "", out);
			if (g->left[c] && c + 1 < last)
				fprintf(out, "%*s", (int)gap, "");
		}
		fputc('\n', out);
	}
}

static void sg_free(struct sgrid *g)
{
	for (size_t i = 0; i < g->nrows * g->ncols; i++)
		free(g->cells[i]);
	free(g->cells);
	memset(g, 0, sizeof(*g));
}

static const char *link_name(const struct replay_row *r)
{
	return r->cs->link ? r->cs->link->name : "no link";
}

/* The row label of a case: "gdbserver-true", "gdbserver-true max=256". */
static void trace_label(const struct replay_row *r, char *buf, size_t len)
{
	const struct ipc_trace *t = r->cs->trace;

	if (!t)
		snprintf(buf, len, "?");
	else if (t->max_packet)
		snprintf(buf, len, "%s max=%u", t->name, t->max_packet);
	else
		snprintf(buf, len, "%s", t->name);
}

static bool measured(const struct replay_row *r)
{
	return r->status != IPC_STATUS_ERROR && (r->nruns || r->sum.iterations);
}

/* Do two rows belong to the same pivot row (conversation, tp, engine)? */
static bool same_row(const struct replay_row *a, const struct replay_row *b)
{
	return a->cs->trace == b->cs->trace && a->cs->tp == b->cs->tp &&
	       a->cs->eng == b->cs->eng;
}

static bool varies_tp(const struct replay_row *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (rows[i].cs->tp != rows[0].cs->tp)
			return true;
	return false;
}

static bool varies_eng(const struct replay_row *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (rows[i].cs->eng != rows[0].cs->eng)
			return true;
	return false;
}

static void heading(FILE *out, const struct ipc_report_meta *meta,
		    const struct replay_row *rows, size_t n)
{
	const struct ipc_runopts *ro = meta ? meta->ro : NULL;
	const struct replay_row *ref = NULL;
	char t[32];

	for (size_t i = 0; i < n && !ref; i++)
		if (rows[i].nruns)
			ref = &rows[i];
	fputs("replay: wall time of one replay, the median", out);
	if (ref && ro && ro->duration_ns)
		fprintf(out, " — %zu run%s of %s each", ref->nruns,
			ref->nruns == 1 ? "" : "s",
			ipc_fmt_ns((double)ro->duration_ns, t, sizeof(t)));
	else if (ref)
		fprintf(out, " — %zu run%s × %llu replay%s", ref->nruns,
			ref->nruns == 1 ? "" : "s",
			(unsigned long long)ref->run_iters,
			ref->run_iters == 1 ? "" : "s");
	if (ro && ro->warmup)
		fprintf(out, " after %llu warm-up",
			(unsigned long long)ro->warmup);
	if (!varies_tp(rows, n))
		fprintf(out, ", over %s", rows[0].cs->tp->name);
	if (!varies_eng(rows, n) && strcmp(rows[0].cs->eng->name, "blocking"))
		fprintf(out, ", engine %s", rows[0].cs->eng->name);
	if (ro)
		fprintf(out, ", peer in %s",
			ro->placement == IPC_PLACE_THREAD
				? "a thread"
				: "a separate process");
	fputc('\n', out);
}

/* The pivot: conversations down, links across. */
static int print_pivot(FILE *out, const struct replay_row *rows, size_t n)
{
	const char *links[64];
	size_t nl = 0, i, k, c;
	bool tp = varies_tp(rows, n), eng = varies_eng(rows, n);
	size_t lead = 1 + tp + eng;
	struct sgrid g = {0};
	bool *done = calloc(n ? n : 1, sizeof(*done));
	char **row, label[96], buf[32];
	int err;

	if (!done)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (k = 0; k < nl; k++)
			if (!strcmp(links[k], link_name(&rows[i])))
				break;
		if (k == nl && nl < 64 - lead)
			links[nl++] = link_name(&rows[i]);
	}
	g.ncols = lead + nl;
	for (c = 0; c < lead; c++)
		g.left[c] = true;
	row = sg_row(&g);
	if (row) {
		sg_set(&g, &row[0], "trace");
		if (tp)
			sg_set(&g, &row[1], "transport");
		if (eng)
			sg_set(&g, &row[1 + tp], "engine");
		for (k = 0; k < nl; k++)
			sg_set(&g, &row[lead + k], "%s", links[k]);
	}
	for (i = 0; i < n && !g.err; i++) {
		if (done[i])
			continue;
		row = sg_row(&g);
		if (!row)
			break;
		trace_label(&rows[i], label, sizeof(label));
		sg_set(&g, &row[0], "%s", label);
		if (tp)
			sg_set(&g, &row[1], "%s", rows[i].cs->tp->name);
		if (eng)
			sg_set(&g, &row[1 + tp], "%s", rows[i].cs->eng->name);
		for (size_t j = i; j < n; j++) {
			const struct replay_row *r = &rows[j];

			if (done[j] || !same_row(r, &rows[i]))
				continue;
			done[j] = true;
			for (k = 0; k < nl; k++)
				if (!strcmp(links[k], link_name(r)))
					break;
			if (k == nl || row[lead + k])
				continue;
			if (!measured(r))
				sg_set(&g, &row[lead + k], "error");
			else
				sg_set(&g, &row[lead + k], "%s%s",
				       ipc_fmt_ns((double)r->sum.lat.p50, buf,
						  sizeof(buf)),
				       r->status == IPC_STATUS_OK ? "" : "*");
		}
		for (k = 0; k < nl; k++)
			if (!row[lead + k])
				sg_set(&g, &row[lead + k], "-");
	}
	if (!g.err)
		sg_print(&g, out);
	err = g.err;
	sg_free(&g);
	free(done);
	return err;
}

/* "4.80–5.02 ms" when both ends share a unit, else "980 µs–1.02 ms". */
static void ci_range(struct sgrid *g, char **cell, double lo, double hi)
{
	char a[32], b[32];
	const char *ua, *ub;

	ipc_fmt_ns(lo, a, sizeof(a));
	ipc_fmt_ns(hi, b, sizeof(b));
	ua = strrchr(a, ' ');
	ub = strrchr(b, ' ');
	if (ua && ub && !strcmp(ua, ub))
		sg_set(g, cell, "%.*s–%s", (int)(ua - a), a, b);
	else
		sg_set(g, cell, "%s–%s", a, b);
}

/* One line per case: the counts and times behind each cell. */
static int print_details(FILE *out, const struct replay_row *rows, size_t n)
{
	enum {
		TRACE,
		LINK,
		TP,
		ENG,
		EXCH,
		C2S,
		S2C,
		LINKT,
		P50,
		OVER,
		XP50,
		XP99,
		RUNS,
		CV,
		CI,
		STATUS
	};
	static const char *const head[] = {
		"trace",      "link",	   "transport",	   "engine",
		"exchanges",  "c2s",	   "s2c",	   "link time",
		"replay p50", "over link", "exchange p50", "exchange p99",
		"runs",	      "cv",	   "95% CI",	   "status",
	};
	bool tp = varies_tp(rows, n), eng = varies_eng(rows, n), ci = false;
	size_t map[MAXC], nc = 0, i;
	struct sgrid g = {0};
	char **row, label[96], a[32];
	int err;

	for (i = 0; i < n; i++)
		ci |= rows[i].metric.have_ci && rows[i].nruns >= 2 &&
		      measured(&rows[i]);
	for (int c = TRACE; c <= STATUS; c++) {
		if ((c == TP && !tp) || (c == ENG && !eng) || (c == CI && !ci))
			continue;
		g.left[nc] = c == TRACE || c == LINK || c == TP || c == ENG ||
			     c == STATUS;
		map[c] = nc++;
	}
	g.ncols = nc;
	row = sg_row(&g);
	for (int c = TRACE; row && c <= STATUS; c++)
		if (!((c == TP && !tp) || (c == ENG && !eng) ||
		      (c == CI && !ci)))
			sg_set(&g, &row[map[c]], "%s", head[c]);
	for (i = 0; i < n && !g.err; i++) {
		const struct replay_row *r = &rows[i];
		const struct ipc_trace *t = r->cs->trace;
		uint64_t lt = ipc_replay_link_ns(t, r->cs->link);

		row = sg_row(&g);
		if (!row)
			break;
		trace_label(r, label, sizeof(label));
		sg_set(&g, &row[map[TRACE]], "%s", label);
		sg_set(&g, &row[map[LINK]], "%s", link_name(r));
		if (tp)
			sg_set(&g, &row[map[TP]], "%s", r->cs->tp->name);
		if (eng)
			sg_set(&g, &row[map[ENG]], "%s", r->cs->eng->name);
		sg_set(&g, &row[map[EXCH]], "%llu",
		       (unsigned long long)(t ? t->exchanges : 0));
		sg_set(&g, &row[map[C2S]], "%s",
		       ipc_fmt_bytes(t ? (double)t->bytes_c2s : 0, a,
				     sizeof(a)));
		sg_set(&g, &row[map[S2C]], "%s",
		       ipc_fmt_bytes(t ? (double)t->bytes_s2c : 0, a,
				     sizeof(a)));
		if (lt)
			sg_set(&g, &row[map[LINKT]], "%s",
			       ipc_fmt_ns((double)lt, a, sizeof(a)));
		else
			sg_set(&g, &row[map[LINKT]], "-");
		if (!measured(r)) {
			sg_set(&g, &row[map[STATUS]], "%s: %s",
			       r->status == IPC_STATUS_PARTIAL ? "partial"
							       : "error",
			       r->error && r->error[0] ? r->error
						       : "unknown error");
			continue;
		}
		sg_set(&g, &row[map[P50]], "%s",
		       ipc_fmt_ns((double)r->sum.lat.p50, a, sizeof(a)));
		if (lt)
			sg_set(&g, &row[map[OVER]], "%+.1f%%",
			       100.0 * ((double)r->sum.lat.p50 - (double)lt) /
				       (double)lt);
		else
			sg_set(&g, &row[map[OVER]], "-");
		if (r->xcount) {
			sg_set(&g, &row[map[XP50]], "%s",
			       ipc_fmt_ns((double)r->xlat.p50, a, sizeof(a)));
			sg_set(&g, &row[map[XP99]], "%s",
			       ipc_fmt_ns((double)r->xlat.p99, a, sizeof(a)));
		} else {
			sg_set(&g, &row[map[XP50]], "-");
			sg_set(&g, &row[map[XP99]], "-");
		}
		sg_set(&g, &row[map[RUNS]], "%zu", r->nruns);
		if (r->nruns >= 2 && isfinite(r->metric.cv))
			sg_set(&g, &row[map[CV]], "%.1f%%", r->metric.cv * 100);
		else
			sg_set(&g, &row[map[CV]], "-");
		if (ci && r->metric.have_ci && r->nruns >= 2 &&
		    isfinite(r->metric.ci_low) && isfinite(r->metric.ci_high))
			ci_range(&g, &row[map[CI]], r->metric.ci_low,
				 r->metric.ci_high);
		else if (ci)
			sg_set(&g, &row[map[CI]], "-");
		if (r->status == IPC_STATUS_OK)
			sg_set(&g, &row[map[STATUS]], "ok");
		else
			sg_set(&g, &row[map[STATUS]], "partial: %s",
			       r->error ? r->error : "");
	}
	if (!g.err)
		sg_print(&g, out);
	err = g.err;
	sg_free(&g);
	return err;
}

int table_replay_print(FILE *out, const struct ipc_report_meta *meta,
		       const struct replay_row *rows, size_t n)
{
	bool partial = false;
	int err;

	if (!n)
		return 0;
	heading(out, meta, rows, n);
	err = print_pivot(out, rows, n);
	for (size_t i = 0; i < n; i++)
		partial |= rows[i].status == IPC_STATUS_PARTIAL &&
			   measured(&rows[i]);
	if (!err && partial)
		fputs("* partial: some runs failed, see below\n", out);
	if (!err) {
		fputs("\nper case: the link time is what the emulated link "
		      "alone takes (line time of\nevery write, one delay per "
		      "turn); exchanges are timed from the client's first\n"
		      "write to the last byte of the answer\n",
		      out);
		err = print_details(out, rows, n);
	}
	return err;
}

/*
 * The human table: results are kept until the end, then printed as one
 * aligned table per pattern (or one summary table for the quick suite),
 * each under a line that says what was measured and how, with units scaled
 * for reading.  Skipped cases and caveats are listed under the tables.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/report.h"
#include "table_replay.h"

/* What the table keeps of one result; the caller frees the result. */
struct trow {
	struct ipc_case cs;
	enum ipc_status status;
	char error[512];
	size_t nruns;
	uint64_t run_iters; /* iterations of the first run */
	struct ipc_run_stats sum;
	struct ipc_runs_stats metric;
	struct ipc_diag diag;	       /* flags, cost, target */
	char why[IPC_FLAG_COUNT][200]; /* each flag's reason, in words */
	char unit[16];		       /* what CPU cost is per */
	char metric_name[16];	       /* "p50_ns", "bytes_per_s", ... */
	struct ipc_lat xlat;	       /* replay: per exchange */
	uint64_t xcount;	       /* replay: exchanges timed */
};

struct tab {
	struct trow *rows;
	size_t nrows, rows_cap;
	struct ipc_skip *skips;
	size_t nskips, skips_cap;
};

/* Every column any layout uses; a layout picks and orders some of them. */
enum col {
	C_TRANSPORT,
	C_ENGINE,
	C_REQ,
	C_RESP,
	C_SIZE,
	C_COUNT,
	C_TOTAL,
	C_CHUNK,
	C_P50,
	C_P90,
	C_P99,
	C_P999,
	C_MAX,
	C_MEAN,
	C_SD,
	C_TRANS,
	C_BATCH,
	C_PERMSG,
	C_XFER,
	C_MSGS,
	C_BW,
	C_RUNS,
	C_CV,
	C_CI,
	C_STATUS,
	C_RR_P50,
	C_RR_P99,
	C_RR_RATE,
	C_ST_BW,
	C_ST_MSGS,
	C_NOTES,
	C_FLOWS,
	C_THREADS,
	C_LOOP,
	C_RPS,
	C_FMIN,
	C_FMED,
	C_FMAX,
	C_LAG,
	C_LOST,
	C_LATE,
	C_REORD,
	C_CPU,
	C_CSW,
	C_CYC,
	C_INS,
	C_FLAGS,
	C_LINK,
	NCOL
};

static const struct {
	const char *head;
	bool left; /* words are left-aligned, numbers right-aligned */
} cols[NCOL] = {
	[C_TRANSPORT] = {"transport", true},
	[C_ENGINE] = {"engine", true},
	[C_REQ] = {"req", false},
	[C_RESP] = {"resp", false},
	[C_SIZE] = {"size", false},
	[C_COUNT] = {"count", false},
	[C_TOTAL] = {"total", false},
	[C_CHUNK] = {"chunk", false},
	[C_P50] = {"p50", false},
	[C_P90] = {"p90", false},
	[C_P99] = {"p99", false},
	[C_P999] = {"p99.9", false},
	[C_MAX] = {"max", false},
	[C_MEAN] = {"mean", false},
	[C_SD] = {"sd", false},
	[C_TRANS] = {"trans/s", false},
	[C_BATCH] = {"batch p50", false},
	[C_PERMSG] = {"per msg", false},
	[C_XFER] = {"transfer p50", false},
	[C_MSGS] = {"msgs/s", false},
	[C_BW] = {"bandwidth", false},
	[C_RUNS] = {"runs", false},
	[C_CV] = {"cv", false},
	[C_CI] = {"CI", false},
	[C_STATUS] = {"status", true},
	[C_RR_P50] = {"rr p50", false},
	[C_RR_P99] = {"rr p99", false},
	[C_RR_RATE] = {"round trips/s", false},
	[C_ST_BW] = {"stream bandwidth", false},
	[C_ST_MSGS] = {"stream msgs/s", false},
	[C_NOTES] = {"notes", true},
	[C_FLOWS] = {"flows", false},
	[C_THREADS] = {"threads", false},
	[C_LOOP] = {"loop", true},
	[C_RPS] = {"replies/s", false},
	[C_FMIN] = {"flow min", false},
	[C_FMED] = {"flow median", false},
	[C_FMAX] = {"flow max", false},
	[C_LAG] = {"send lag", false},
	[C_LOST] = {"lost", false},
	[C_LATE] = {"late", false},
	[C_REORD] = {"reordered", false},
	[C_CPU] = {"cpu/msg", false},
	[C_CSW] = {"csw/msg", false},
	[C_CYC] = {"cycles/msg", false},
	[C_INS] = {"instr/msg", false},
	[C_FLAGS] = {"flags", true},
	[C_LINK] = {"link", true},
};

#define MAXCOLS 24

/* One printed row: cells by column id, or one text over the measured part. */
struct line {
	char *cell[NCOL]; /* NULL prints as empty */
	char *span;	  /* "error: ..." after the identifying columns */
};

/* A table being laid out. */
struct grid {
	enum col order[MAXCOLS];
	size_t ncols;
	size_t nid;	   /* identifying columns, left of a span */
	char ci_head[24];  /* "95% CI" */
	char cpu_head[24]; /* "cpu/rt" */
	char csw_head[24]; /* "csw/rt" */
	char cyc_head[24]; /* "cycles/rt" */
	char ins_head[24]; /* "instr/rt" */
	size_t width[MAXCOLS];
	struct line *lines;
	size_t nlines, cap;
	int err; /* -ENOMEM once anything failed */
};

static const char dgram_note[] =
	"note: over udp the receiver counts what arrives and reports it at "
	"the end of each batch; msgs/s and bandwidth count delivered "
	"messages";

static const char zero_note[] =
	"note: size 0 on a byte stream is carried as a 1-byte token; rates "
	"count payload bytes only";

/* Grow @*p (of @size-byte items) so that it holds @n + 1 of them. */
static int grow(void **p, size_t *cap, size_t n, size_t size)
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

/*
 * Columns a string takes on a terminal: one per UTF-8 character, so "µs"
 * is three bytes long and two columns wide.
 */
static size_t dwidth(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

static void grid_col(struct grid *g, enum col c)
{
	if (g->ncols < MAXCOLS)
		g->order[g->ncols++] = c;
}

/* The percentile columns every latency section starts with. */
static const enum col pct_cols[] = {C_P50, C_P90, C_P99, C_P999, C_MAX};

static void grid_cols(struct grid *g, const enum col *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		grid_col(g, c[i]);
}

static struct line *grid_line(struct grid *g)
{
	struct line *l;

	if (g->err)
		return NULL;
	if (grow((void **)&g->lines, &g->cap, g->nlines, sizeof(*l))) {
		g->err = -ENOMEM;
		return NULL;
	}
	l = &g->lines[g->nlines++];
	memset(l, 0, sizeof(*l));
	return l;
}

__attribute__((format(printf, 3, 4))) static void
setf(struct grid *g, char **dst, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		g->err = -ENOMEM;
		s = NULL;
	}
	va_end(ap);
	free(*dst);
	*dst = s;
}

static void grid_free(struct grid *g)
{
	size_t i, c;

	for (i = 0; i < g->nlines; i++) {
		for (c = 0; c < NCOL; c++)
			free(g->lines[i].cell[c]);
		free(g->lines[i].span);
	}
	free(g->lines);
	memset(g, 0, sizeof(*g));
}

static const char *head_of(const struct grid *g, enum col c)
{
	if (c == C_CPU && g->cpu_head[0])
		return g->cpu_head;
	if (c == C_CSW && g->csw_head[0])
		return g->csw_head;
	if (c == C_CYC && g->cyc_head[0])
		return g->cyc_head;
	if (c == C_INS && g->ins_head[0])
		return g->ins_head;
	return c == C_CI ? g->ci_head : cols[c].head;
}

/* Width of the columns from @from to the last, separators included. */
static size_t width_from(const struct grid *g, size_t from)
{
	size_t w = 0, i;

	for (i = from; i < g->ncols; i++)
		w += g->width[i] + (i > from ? 2 : 0);
	return w;
}

/*
 * Widths from the content.  A span that is wider than the columns it
 * covers widens the last column, so that every line of the table has the
 * same width and the columns stay aligned.
 */
static void grid_measure(struct grid *g)
{
	size_t i, c, w, avail;

	for (c = 0; c < g->ncols; c++)
		g->width[c] = dwidth(head_of(g, g->order[c]));
	for (i = 0; i < g->nlines; i++) {
		const struct line *l = &g->lines[i];

		for (c = 0; c < g->ncols; c++) {
			if (l->span && c >= g->nid)
				break;
			w = dwidth(l->cell[g->order[c]]);
			if (w > g->width[c])
				g->width[c] = w;
		}
	}
	for (i = 0; i < g->nlines; i++) {
		if (!g->lines[i].span || g->nid >= g->ncols)
			continue;
		w = dwidth(g->lines[i].span);
		avail = width_from(g, g->nid);
		if (w > avail)
			g->width[g->ncols - 1] += w - avail;
	}
}

/* A cell; the last one of a line gets no padding after it. */
static void print_cell(FILE *out, const char *s, size_t width, bool left,
		       bool last)
{
	size_t w = dwidth(s);
	size_t gap = width > w ? width - w : 0;

	if (!left)
		pad(out, gap);
	fputs(s ? s : "", out);
	if (left && !last)
		pad(out, gap);
}

static void grid_print(struct grid *g, FILE *out)
{
	size_t i, c;

	grid_measure(g);
	for (c = 0; c < g->ncols; c++) {
		if (c)
			fputs("  ", out);
		print_cell(out, head_of(g, g->order[c]), g->width[c],
			   cols[g->order[c]].left, c + 1 == g->ncols);
	}
	fputc('\n', out);
	for (i = 0; i < g->nlines; i++) {
		const struct line *l = &g->lines[i];

		for (c = 0; c < g->ncols; c++) {
			const char *cell = l->cell[g->order[c]];

			if (c + 1 == g->ncols && !l->span &&
			    (!cell || !*cell) && cols[g->order[c]].left)
				break; /* nothing to align after the last */
			if (c)
				fputs("  ", out);
			if (l->span && c == g->nid) {
				print_cell(out, l->span, width_from(g, c), true,
					   true);
				break;
			}
			print_cell(out, l->cell[g->order[c]], g->width[c],
				   cols[g->order[c]].left, c + 1 == g->ncols);
		}
		fputc('\n', out);
	}
}

static const char *pat_name(const struct trow *t)
{
	return t->cs.pat ? t->cs.pat->name : "?";
}

static const char *tp_name(const struct trow *t)
{
	return t->cs.tp ? t->cs.tp->name : "?";
}

static const char *eng_name(const struct trow *t)
{
	return t->cs.eng ? t->cs.eng->name : "?";
}

/* Did this case measure anything?  Never show zeros that were not. */
static bool measured(const struct trow *t)
{
	return t->status != IPC_STATUS_ERROR && (t->nruns || t->sum.iterations);
}

/* A size 0 on a byte stream travels as a 1-byte token. */
static bool zero_on_stream(const struct trow *t)
{
	const char *p = pat_name(t);
	bool zero;

	if (!t->cs.tp || !(t->cs.tp->caps & IPC_TP_STREAM))
		return false;
	if (t->cs.framing && t->cs.framing->encode)
		return false; /* a framed size 0 is an empty frame */
	if (!strcmp(p, "rr"))
		zero = !t->cs.req_size || !t->cs.resp_size;
	else if (!strcmp(p, "stream"))
		zero = !t->cs.msg_size;
	else if (!strcmp(p, "bulk"))
		zero = !t->cs.chunk_size || !t->cs.total;
	else
		zero = false;
	return zero;
}

typedef char *(*fmt_fn)(double v, char *buf, size_t len);

/*
 * "4.80–5.02 µs" when both ends share a unit, else "980 ns–1.02 µs".  The
 * unit is what follows the last space of each formatted end.
 */
static void range(struct grid *g, char **dst, fmt_fn fmt, double lo, double hi)
{
	char a[32], b[32];
	const char *ua, *ub;

	if (!isfinite(lo) || !isfinite(hi) || lo < 0 || hi < 0) {
		setf(g, dst, "-");
		return;
	}
	fmt(lo, a, sizeof(a));
	fmt(hi, b, sizeof(b));
	ua = strrchr(a, ' ');
	ub = strrchr(b, ' ');
	if (ua && ub && !strcmp(ua, ub))
		setf(g, dst, "%.*s–%s", (int)(ua - a), a, b);
	else
		setf(g, dst, "%s–%s", a, b);
}

static void cell_ns(struct grid *g, char **dst, double ns)
{
	char buf[32];

	setf(g, dst, "%s", ipc_fmt_ns(ns, buf, sizeof(buf)));
}

static void cell_bytes(struct grid *g, char **dst, double bytes)
{
	char buf[32];

	setf(g, dst, "%s", ipc_fmt_bytes(bytes, buf, sizeof(buf)));
}

static void cell_rate(struct grid *g, char **dst, double per_s)
{
	char buf[32];

	setf(g, dst, "%s", ipc_fmt_rate(per_s, buf, sizeof(buf)));
}

static void cell_bps(struct grid *g, char **dst, double bps)
{
	char buf[32];

	setf(g, dst, "%s", ipc_fmt_bps(bps, buf, sizeof(buf)));
}

/*
 * Loss cells: "38 (9.5%)" lost, late responses, reordered messages; "-"
 * where the case counted none.  Filled even for a case that measured no
 * latency: loss was still counted.
 */
static void fill_loss(struct grid *g, char **c, const struct trow *t)
{
	const struct ipc_loss *l = &t->sum.loss;

	if (!l->counted) {
		setf(g, &c[C_LOST], "-");
		setf(g, &c[C_LATE], "-");
		setf(g, &c[C_REORD], "-");
		return;
	}
	if (l->sent)
		setf(g, &c[C_LOST], "%llu (%.3g%%)",
		     (unsigned long long)l->lost,
		     100.0 * (double)l->lost / (double)l->sent);
	else
		setf(g, &c[C_LOST], "%llu", (unsigned long long)l->lost);
	setf(g, &c[C_LATE], "%llu", (unsigned long long)l->late);
	if (l->reorder_known)
		setf(g, &c[C_REORD], "%llu", (unsigned long long)l->reordered);
	else
		setf(g, &c[C_REORD], "-");
}

/* Does any row count loss? */
static bool any_loss(const struct trow *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i]->sum.loss.counted)
			return true;
	return false;
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
		setf(g, dst, "-");
		return;
	}
	count_word(a, x, sizeof(x));
	count_word(b, y, sizeof(y));
	setf(g, dst, "%s+%s", x, y);
}

/* "2.10+1.95 µs": client + server CPU (user + system) per message. */
static void fill_diag(struct grid *g, char **c, const struct trow *t)
{
	const struct ipc_cost *cl = &t->diag.client, *sv = &t->diag.server;
	char a[32], b[32], *u;
	size_t n = 0;
	int k;

	if (cl->valid && sv->valid) {
		ipc_fmt_ns(cl->user_ns + cl->sys_ns, a, sizeof(a));
		ipc_fmt_ns(sv->user_ns + sv->sys_ns, b, sizeof(b));
		u = strrchr(a, ' ');
		if (u && strrchr(b, ' ') && !strcmp(u, strrchr(b, ' ')))
			setf(g, &c[C_CPU], "%.*s+%s", (int)(u - a), a, b);
		else
			setf(g, &c[C_CPU], "%s+%s", a, b);
		setf(g, &c[C_CSW], "%.2g+%.2g", cl->vcsw + cl->ivcsw,
		     sv->vcsw + sv->ivcsw);
		cell_counts(g, &c[C_CYC], cl->cycles, sv->cycles);
		cell_counts(g, &c[C_INS], cl->instructions, sv->instructions);
	} else {
		setf(g, &c[C_CPU], "-");
		setf(g, &c[C_CSW], "-");
		setf(g, &c[C_CYC], "-");
		setf(g, &c[C_INS], "-");
	}
	setf(g, &c[C_FLAGS], "%s", "");
	for (k = 0; k < IPC_FLAG_COUNT; k++) {
		if (!(t->diag.flags & (1u << k)) || !c[C_FLAGS])
			continue;
		setf(g, &c[C_FLAGS], "%s%s%s", c[C_FLAGS], n ? "," : "",
		     ipc_flag_name(k));
		n++;
	}
}

/* Every cell a result can fill; a layout shows the ones it has columns for. */
static void fill_line(struct grid *g, struct line *l, const struct trow *t)
{
	const struct ipc_lat *lat = &t->sum.lat;
	const struct ipc_runs_stats *m = &t->metric;
	char **c = l->cell;
	double half;

	setf(g, &c[C_TRANSPORT], "%s", tp_name(t));
	setf(g, &c[C_ENGINE], "%s", eng_name(t));
	setf(g, &c[C_LINK], "%s", t->cs.link ? t->cs.link->name : "none");
	cell_bytes(g, &c[C_REQ], (double)t->cs.req_size);
	cell_bytes(g, &c[C_RESP], (double)t->cs.resp_size);
	cell_bytes(g, &c[C_SIZE], (double)t->cs.msg_size);
	setf(g, &c[C_COUNT], "%llu", (unsigned long long)t->cs.count);
	cell_bytes(g, &c[C_TOTAL], (double)t->cs.total);
	cell_bytes(g, &c[C_CHUNK], (double)t->cs.chunk_size);
	setf(g, &c[C_FLOWS], "%llu", (unsigned long long)t->cs.flows);
	setf(g, &c[C_THREADS], "%u", t->cs.threads);
	if (t->cs.rate) {
		char r[32];

		setf(g, &c[C_LOOP], "open, %s",
		     ipc_fmt_rate((double)t->cs.rate, r, sizeof(r)));
	} else {
		setf(g, &c[C_LOOP], "closed");
	}
	fill_loss(g, c, t);

	if (!measured(t)) {
		if (t->status == IPC_STATUS_OK)
			setf(g, &l->span, "nothing was measured");
		else
			setf(g, &l->span, "%s: %s",
			     t->status == IPC_STATUS_PARTIAL ? "partial"
							     : "error",
			     t->error[0] ? t->error : "unknown error");
		return;
	}
	cell_ns(g, &c[C_P50], (double)lat->p50);
	cell_ns(g, &c[C_P90], (double)lat->p90);
	cell_ns(g, &c[C_P99], (double)lat->p99);
	cell_ns(g, &c[C_P999], (double)lat->p999);
	cell_ns(g, &c[C_MAX], (double)lat->max);
	cell_ns(g, &c[C_MEAN], lat->mean);
	cell_ns(g, &c[C_SD], lat->stddev);
	cell_rate(g, &c[C_TRANS], t->sum.msgs_per_s);
	cell_ns(g, &c[C_BATCH], (double)lat->p50);
	if (t->cs.count)
		cell_ns(g, &c[C_PERMSG],
			(double)lat->p50 / (double)t->cs.count);
	else
		setf(g, &c[C_PERMSG], "-");
	cell_ns(g, &c[C_XFER], (double)lat->p50);
	cell_rate(g, &c[C_MSGS], t->sum.msgs_per_s);
	cell_bps(g, &c[C_BW], t->sum.bytes_per_s);
	cell_rate(g, &c[C_RPS], t->sum.msgs_per_s);
	if (t->sum.flows.flows) {
		cell_rate(g, &c[C_FMIN], t->sum.flows.rate_min);
		cell_rate(g, &c[C_FMED], t->sum.flows.rate_median);
		cell_rate(g, &c[C_FMAX], t->sum.flows.rate_max);
	}
	if (t->cs.rate)
		cell_ns(g, &c[C_LAG], (double)t->sum.flows.lag_max_ns);
	else
		setf(g, &c[C_LAG], "-");
	setf(g, &c[C_RUNS], "%zu", t->nruns);
	if (t->nruns >= 2 && isfinite(m->cv) && m->cv >= 0)
		setf(g, &c[C_CV], "%.1f%%", m->cv * 100);
	else
		setf(g, &c[C_CV], "-");
	if (m->have_ci && t->nruns >= 2) {
		if (t->cs.pat && t->cs.pat->metric == IPC_METRIC_P50)
			range(g, &c[C_CI], ipc_fmt_ns, m->ci_low, m->ci_high);
		else if (!strcmp(t->metric_name, "msgs_per_s"))
			range(g, &c[C_CI], ipc_fmt_rate, m->ci_low, m->ci_high);
		else
			range(g, &c[C_CI], ipc_fmt_bps, m->ci_low, m->ci_high);
		ipc_runs_target_met(m, 0, &half);
		if (half >= 0 && c[C_CI])
			setf(g, &c[C_CI], "%s ±%.*f%%", c[C_CI],
			     half < 10 ? 2 - (half >= 1) : 0, half);
	} else {
		setf(g, &c[C_CI], "-");
	}
	fill_diag(g, c, t);
	if (t->status == IPC_STATUS_OK)
		setf(g, &c[C_STATUS], "ok");
	else
		setf(g, &c[C_STATUS], "%s: %s",
		     t->status == IPC_STATUS_PARTIAL ? "partial" : "error",
		     t->error[0] ? t->error : "unknown error");
}

/* Append to the string in @buf, truncating at @len. */
__attribute__((format(printf, 3, 4))) static void appendf(char *buf, size_t len,
							  const char *fmt, ...)
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
 * "runs until the 95% CI is within ±1% (5 to 30 runs, budget 60 s)": the
 * stopping rule of --runs auto in words.
 */
static void auto_words(char *buf, size_t len, const struct ipc_runopts *ro)
{
	char t[32];

	appendf(buf, len, "until the %g%% CI is within ±%g%% (%u to %u runs",
		ro->ci_level * 100, ro->ci_pct, ro->min_runs, ro->max_runs);
	if (ro->budget_ns)
		appendf(buf, len, ", budget %s",
			ipc_fmt_ns((double)ro->budget_ns, t, sizeof(t)));
	appendf(buf, len, ")");
}

/* "3 runs × 10000 iterations" or "3 runs of 2.00 s each". */
static void how_many(char *buf, size_t len, const struct ipc_runopts *ro,
		     size_t runs, uint64_t iters, const char *unit)
{
	char t[32];

	if (ro && ro->runs_auto) {
		if (ro->duration_ns)
			appendf(buf, len, "runs of %s ",
				ipc_fmt_ns((double)ro->duration_ns, t,
					   sizeof(t)));
		else
			appendf(buf, len, "runs of %llu %s ",
				(unsigned long long)iters, unit);
		auto_words(buf, len, ro);
		return;
	}

	appendf(buf, len, "%zu run%s", runs, runs == 1 ? "" : "s");
	if (ro && ro->duration_ns)
		appendf(buf, len, " of %s each",
			ipc_fmt_ns((double)ro->duration_ns, t, sizeof(t)));
	else
		appendf(buf, len, " × %llu %s", (unsigned long long)iters,
			unit);
}

/* "peer in a separate process, server on CPU 2" */
static void where(char *buf, size_t len, const struct ipc_runopts *ro)
{
	appendf(buf, len, "peer in %s",
		ro->placement == IPC_PLACE_THREAD ? "a thread"
						  : "a separate process");
	if (ro->pin_client >= 0)
		appendf(buf, len, ", client on CPU %d", ro->pin_client);
	if (ro->pin_server >= 0)
		appendf(buf, len, ", server on CPU %d", ro->pin_server);
}

/*
 * " — 3 runs × 10000 iterations after 1000 warm-up, peer in a separate
 * process": how every case was run, from the effective options.
 */
static void how_run(char *buf, size_t len, const struct ipc_runopts *ro,
		    const char *unit)
{
	buf[0] = '\0';
	if (!ro)
		return;
	appendf(buf, len, " — ");
	how_many(buf, len, ro, ro->runs, ro->iterations, unit);
	if (ro->warmup)
		appendf(buf, len, " after %llu warm-up",
			(unsigned long long)ro->warmup);
	appendf(buf, len, ", ");
	where(buf, len, ro);
}

/* The distinct engine of a set of rows, or NULL when there are several. */
static const char *one_engine(const struct trow *const *rows, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (strcmp(eng_name(rows[i]), eng_name(rows[0])))
			return NULL;
	return n ? eng_name(rows[0]) : NULL;
}

/* The link all rows share ("none" for none), or NULL when they differ. */
static const char *one_link(const struct trow *const *rows, size_t n)
{
	const char *l0 =
		n && rows[0]->cs.link ? rows[0]->cs.link->name : "none";

	for (size_t i = 1; i < n; i++)
		if (strcmp(rows[i]->cs.link ? rows[i]->cs.link->name : "none",
			   l0))
			return NULL;
	return n ? l0 : NULL;
}

/* Do all rows share one batch count (stream) or one total (bulk)? */
static bool same_count(const struct trow *const *rows, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (rows[i]->cs.count != rows[0]->cs.count)
			return false;
	return true;
}

static bool same_total(const struct trow *const *rows, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (rows[i]->cs.total != rows[0]->cs.total)
			return false;
	return true;
}

static void heading(FILE *out, const struct ipc_report_meta *meta,
		    const char *pat, const struct trow *const *rows, size_t n)
{
	const struct ipc_runopts *ro = meta ? meta->ro : NULL;
	const char *eng = one_engine(rows, n);
	char how[256], b[32];

	if (!strcmp(pat, "rr")) {
		how_run(how, sizeof(how), ro, "iterations");
		fprintf(out, "rr: request/response round trips%s", how);
	} else if (!strcmp(pat, "stream")) {
		how_run(how, sizeof(how), ro, "batches");
		fputs("stream: one-way batches of ", out);
		if (same_count(rows, n))
			fprintf(out, "%llu",
				(unsigned long long)rows[0]->cs.count);
		else
			fputs("COUNT", out);
		fprintf(out,
			" messages; time per batch includes the "
			"receiver's 1-byte ack%s",
			how);
	} else if (!strcmp(pat, "bulk")) {
		how_run(how, sizeof(how), ro, "transfers");
		fputs("bulk: one request, then ", out);
		if (same_total(rows, n))
			fputs(ipc_fmt_bytes((double)rows[0]->cs.total, b,
					    sizeof(b)),
			      out);
		else
			fputs("TOTAL bytes", out);
		fprintf(out, " back in chunks%s", how);
	} else if (!strcmp(pat, "crr")) {
		how_run(how, sizeof(how), ro, "transactions");
		fprintf(out,
			"crr: connect, request, response, close per "
			"transaction%s",
			how);
	} else if (!strcmp(pat, "load")) {
		how_run(how, sizeof(how), ro, "requests over all flows");
		fprintf(out,
			"load: many flows at once; latency per request "
			"from its send (closed loop) or its due time (open "
			"loop)%s",
			how);
	} else {
		how_run(how, sizeof(how), ro, "iterations");
		fprintf(out, "%s%s", pat, how);
	}
	if (eng && strcmp(eng, "blocking"))
		fprintf(out, ", engine %s", eng);
	if (one_link(rows, n) && strcmp(one_link(rows, n), "none"))
		fprintf(out, ", link %s", one_link(rows, n));
	if (n && rows[0]->cs.framing && rows[0]->cs.framing->encode)
		fprintf(out, ", framing %s%s", rows[0]->cs.framing->name,
			!rows[0]->cs.framing->acks  ? ""
			: rows[0]->cs.framing_noack ? " without acks"
						    : " with acks");
	fputc('\n', out);
}

/*
 * What the cost columns mean, and where cycles and instructions are, when
 * they are not there: asked for but not countable here, or not asked for.
 */
static void cost_note(FILE *out, const struct ipc_report_meta *meta,
		      const struct grid *g, const char *unit, bool cycles)
{
	const struct ipc_host *h = meta ? meta->host : NULL;
	bool asked = meta && meta->ro && meta->ro->perf;

	fprintf(out,
		"%s: CPU time (user + system) per %s, client+server; "
		"%s: their context switches",
		g->cpu_head, unit, g->csw_head);
	if (cycles)
		fprintf(out, "; %s, %s: perf counts", g->cyc_head, g->ins_head);
	else if (!asked)
		fprintf(out, "; --perf adds cycles and instructions");
	fputc('\n', out);
	if (!cycles && asked)
		fprintf(out, "%s\n",
			h && h->perf[0]
				? h->perf
				: "cycles and instructions: not counted");
}

/* At most this many "case: flag: why" lines under a table. */
#define MAX_WHY_LINES 12

/*
 * Under a table: why each flagged case has its flags, then what to do
 * about each kind of flag (once per kind).
 */
static void flag_notes(FILE *out, const struct trow *const *rows, size_t n,
		       unsigned flags)
{
	char what[128];
	size_t i, lines = 0, more = 0;
	int k;

	if (!flags)
		return;
	for (i = 0; i < n; i++) {
		if (!measured(rows[i]))
			continue;
		for (k = 0; k < IPC_FLAG_COUNT; k++) {
			if (!(rows[i]->diag.flags & (1u << k)))
				continue;
			if (lines++ >= MAX_WHY_LINES) {
				more++;
				continue;
			}
			fprintf(out, "%s: %s: %s\n",
				ipc_case_describe(&rows[i]->cs, what,
						  sizeof(what)),
				ipc_flag_name(k), rows[i]->why[k]);
		}
	}
	if (more)
		fprintf(out, "... and %zu more (-f json has them all)\n", more);
	for (k = 0; k < IPC_FLAG_COUNT; k++)
		if (flags & (1u << k))
			fprintf(out, "hint for %s: %s\n", ipc_flag_name(k),
				ipc_flag_hint(k));
}

/* replay's section has a layout of its own (table_replay.c). */
static int print_replay(FILE *out, const struct ipc_report_meta *meta,
			const struct trow *const *rows, size_t n)
{
	struct replay_row *rr = calloc(n ? n : 1, sizeof(*rr));
	int err;

	if (!rr)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		rr[i].cs = &rows[i]->cs;
		rr[i].status = rows[i]->status;
		rr[i].error = rows[i]->error;
		rr[i].nruns = rows[i]->nruns;
		rr[i].run_iters = rows[i]->run_iters;
		rr[i].sum = rows[i]->sum;
		rr[i].metric = rows[i]->metric;
		rr[i].xlat = rows[i]->xlat;
		rr[i].xcount = rows[i]->xcount;
	}
	err = table_replay_print(out, meta, rr, n);
	free(rr);
	return err;
}

/* One pattern's section: heading, table, footnote. */
static int print_section(FILE *out, const struct ipc_report_meta *meta,
			 const char *pat, const struct trow *const *rows,
			 size_t n)
{
	struct grid g = {0};
	bool ci = false, zero = false, cost = false, cycles = false;
	unsigned flags = 0;
	size_t i;
	int err;

	if (!strcmp(pat, "replay"))
		return print_replay(out, meta, rows, n);

	for (i = 0; i < n; i++) {
		const struct ipc_runs_stats *m = &rows[i]->metric;

		if (measured(rows[i])) {
			flags |= rows[i]->diag.flags;
			cost |= rows[i]->diag.client.valid &&
				rows[i]->diag.server.valid;
			cycles |= rows[i]->diag.client.cycles >= 0 &&
				  rows[i]->diag.server.cycles >= 0;
		}

		/* The column is named after the first interval's level. */
		if (!ci && measured(rows[i]) && m->have_ci &&
		    rows[i]->nruns >= 2) {
			ci = true;
			snprintf(g.ci_head, sizeof(g.ci_head), "%.0f%% CI",
				 isfinite(m->ci_level) ? m->ci_level * 100
						       : 0.0);
		}
		zero |= zero_on_stream(rows[i]);
	}

	grid_col(&g, C_TRANSPORT);
	if (!one_engine(rows, n))
		grid_col(&g, C_ENGINE);
	if (!one_link(rows, n))
		grid_col(&g, C_LINK);
	if (!strcmp(pat, "rr")) {
		grid_col(&g, C_REQ);
		grid_col(&g, C_RESP);
		g.nid = g.ncols;
		grid_cols(&g, pct_cols, sizeof(pct_cols) / sizeof(pct_cols[0]));
		grid_col(&g, C_MEAN);
		grid_col(&g, C_SD);
		grid_col(&g, C_TRANS);
		if (any_loss(rows, n)) {
			grid_col(&g, C_LOST);
			grid_col(&g, C_LATE);
		}
	} else if (!strcmp(pat, "stream")) {
		grid_col(&g, C_SIZE);
		grid_col(&g, C_COUNT);
		g.nid = g.ncols;
		grid_col(&g, C_BATCH);
		grid_col(&g, C_PERMSG);
		grid_col(&g, C_MSGS);
		grid_col(&g, C_BW);
		if (any_loss(rows, n)) {
			grid_col(&g, C_LOST);
			grid_col(&g, C_REORD);
		}
	} else if (!strcmp(pat, "crr")) {
		grid_col(&g, C_REQ);
		grid_col(&g, C_RESP);
		g.nid = g.ncols;
		grid_cols(&g, pct_cols, sizeof(pct_cols) / sizeof(pct_cols[0]));
		grid_col(&g, C_MEAN);
		grid_col(&g, C_TRANS);
	} else if (!strcmp(pat, "load")) {
		bool open = false;

		for (i = 0; i < n; i++)
			open |= rows[i]->cs.rate != 0;
		grid_col(&g, C_FLOWS);
		grid_col(&g, C_THREADS);
		grid_col(&g, C_LOOP);
		grid_col(&g, C_REQ);
		grid_col(&g, C_RESP);
		g.nid = g.ncols;
		grid_cols(&g, pct_cols, sizeof(pct_cols) / sizeof(pct_cols[0]));
		grid_col(&g, C_RPS);
		grid_col(&g, C_FMIN);
		grid_col(&g, C_FMED);
		grid_col(&g, C_FMAX);
		if (open)
			grid_col(&g, C_LAG);
	} else if (!strcmp(pat, "bulk")) {
		grid_col(&g, C_TOTAL);
		grid_col(&g, C_CHUNK);
		g.nid = g.ncols;
		grid_col(&g, C_XFER);
		grid_col(&g, C_MSGS);
		grid_col(&g, C_BW);
	} else {
		g.nid = g.ncols;
		grid_col(&g, C_P50);
		grid_col(&g, C_P99);
		grid_col(&g, C_MSGS);
		grid_col(&g, C_BW);
	}
	grid_col(&g, C_RUNS);
	grid_col(&g, C_CV);
	if (ci)
		grid_col(&g, C_CI);
	if (cost) {
		/* "cpu/rt": per round trip, per message, per chunk. */
		const char *u = !strcmp(pat, "rr")     ? "rt"
				: !strcmp(pat, "bulk") ? "chunk"
						       : "msg";

		snprintf(g.cpu_head, sizeof(g.cpu_head), "cpu/%s", u);
		snprintf(g.csw_head, sizeof(g.csw_head), "csw/%s", u);
		snprintf(g.cyc_head, sizeof(g.cyc_head), "cycles/%s", u);
		snprintf(g.ins_head, sizeof(g.ins_head), "instr/%s", u);
		grid_col(&g, C_CPU);
		grid_col(&g, C_CSW);
		if (cycles) {
			grid_col(&g, C_CYC);
			grid_col(&g, C_INS);
		}
	}
	if (flags)
		grid_col(&g, C_FLAGS);
	grid_col(&g, C_STATUS);

	for (i = 0; i < n; i++) {
		struct line *l = grid_line(&g);

		if (!l)
			break;
		fill_line(&g, l, rows[i]);
	}
	if (!g.err) {
		heading(out, meta, pat, rows, n);
		grid_print(&g, out);
		if (zero)
			fprintf(out, "%s\n", zero_note);
		if (!strcmp(pat, "stream") && any_loss(rows, n))
			fprintf(out, "%s\n", dgram_note);
		if (cost)
			cost_note(out, meta, &g, rows[0]->unit, cycles);
		flag_notes(out, rows, n, flags);
	}
	err = g.err;
	grid_free(&g);
	return err;
}

/* One row of the quick suite: a transport (and engine) and its notes. */
struct srow {
	char tp[64];
	const char *eng;       /* NULL for a row made by a skip */
	const struct trow *rr; /* the first rr result, or NULL */
	const struct trow *st; /* the first stream result, or NULL */
	char *notes;	       /* "rr failed: ...; stream skipped: ..." */
	bool zero;
};

struct suite {
	struct srow *rows;
	size_t n, cap;
	int err;
};

static struct srow *suite_row(struct suite *s, const char *tp, const char *eng)
{
	struct srow *r;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->rows[i].tp, tp) &&
		    (!eng || !s->rows[i].eng || !strcmp(s->rows[i].eng, eng))) {
			if (!s->rows[i].eng)
				s->rows[i].eng = eng;
			return &s->rows[i];
		}
	if (grow((void **)&s->rows, &s->cap, s->n, sizeof(*r))) {
		s->err = -ENOMEM;
		return NULL;
	}
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->tp, sizeof(r->tp), "%s", tp);
	r->eng = eng;
	return r;
}

__attribute__((format(printf, 3, 4))) static void
add_note(struct suite *s, struct srow *r, const char *fmt, ...)
{
	va_list ap;
	char *note, *all;

	va_start(ap, fmt);
	if (vasprintf(&note, fmt, ap) < 0) {
		va_end(ap);
		s->err = -ENOMEM;
		return;
	}
	va_end(ap);
	if (!r->notes) {
		r->notes = note;
		return;
	}
	if (asprintf(&all, "%s; %s", r->notes, note) < 0) {
		s->err = -ENOMEM;
		free(note);
		return;
	}
	free(note);
	free(r->notes);
	r->notes = all;
}

static void note_status(struct suite *s, struct srow *r, const struct trow *t)
{
	if (t->status == IPC_STATUS_OK)
		return;
	add_note(s, r, "%s %s: %s", pat_name(t),
		 t->status == IPC_STATUS_PARTIAL ? "partial" : "failed",
		 t->error[0] ? t->error : "unknown error");
}

/* "rr unstable, bimodal": a measured test's flags in the row's notes. */
static void note_flags(struct suite *s, struct srow *r, const struct trow *t)
{
	char names[64] = "";
	size_t n = 0;
	int k;

	if (!measured(t) || !t->diag.flags)
		return;
	for (k = 0; k < IPC_FLAG_COUNT && n < sizeof(names); k++)
		if (t->diag.flags & (1u << k))
			n += (size_t)snprintf(names + n, sizeof(names) - n,
					      "%s%s", n ? ", " : "",
					      ipc_flag_name(k));
	add_note(s, r, "%s %s", pat_name(t), names);
}

/*
 * The transport a skip is about, from its words: "transport tcp6", "epoll
 * on fifo", or a case ("stream udp size=64K").  On success @label says
 * what was skipped ("skipped", "epoll skipped", "stream skipped").
 * Returns false for skips of no one transport ("engine io_uring").
 */
static bool skip_transport(const char *what, char *tp, size_t tplen,
			   char *label, size_t labellen)
{
	const char *w[3];
	int n[3], i;

	for (i = 0; i < 3; i++) {
		what += strspn(what, " ");
		w[i] = what;
		n[i] = (int)strcspn(what, " ");
		what += n[i];
	}
	if (!n[0] || !n[1])
		return false;
	if (n[0] == 6 && !strncmp(w[0], "engine", 6))
		return false;
	if (n[0] == 9 && !strncmp(w[0], "transport", 9)) {
		snprintf(label, labellen, "skipped");
		snprintf(tp, tplen, "%.*s", n[1], w[1]);
		return true;
	}
	snprintf(label, labellen, "%.*s skipped", n[0], w[0]);
	if (n[1] == 2 && !strncmp(w[1], "on", 2)) {
		if (!n[2])
			return false;
		snprintf(tp, tplen, "%.*s", n[2], w[2]);
	} else {
		snprintf(tp, tplen, "%.*s", n[1], w[1]);
	}
	return true;
}

/*
 * The first rr (or stream) result of the suite that completed a run (it
 * says how many runs of how many iterations), else the first at all.
 */
static const struct trow *suite_ref(const struct suite *s, bool rr)
{
	const struct trow *any = NULL, *t;
	size_t i;

	for (i = 0; i < s->n; i++) {
		t = rr ? s->rows[i].rr : s->rows[i].st;
		if (t && t->nruns)
			return t;
		if (t && !any)
			any = t;
	}
	return any;
}

/*
 * The suite's heading: where the peer ran, then one line per test saying
 * what it measures and how many runs of how many iterations it took.  Those
 * come from the results, because the suite runs fewer stream batches than
 * the options say (each batch is large).
 */
static void suite_heading(FILE *out, const struct ipc_report_meta *meta,
			  const struct suite *s, const char *eng)
{
	const struct ipc_runopts *ro = meta ? meta->ro : NULL;
	const struct trow *rr = suite_ref(s, true), *st = suite_ref(s, false);
	char buf[256], a[32], b[32];

	buf[0] = '\0';
	if (ro) {
		appendf(buf, sizeof(buf), " — ");
		where(buf, sizeof(buf), ro);
	}
	if (eng && strcmp(eng, "blocking"))
		appendf(buf, sizeof(buf), ", engine %s", eng);
	fprintf(out, "quick suite%s\n", buf);
	if (rr) {
		ipc_fmt_bytes((double)rr->cs.req_size, a, sizeof(a));
		ipc_fmt_bytes((double)rr->cs.resp_size, b, sizeof(b));
		buf[0] = '\0';
		if (rr->nruns) {
			appendf(buf, sizeof(buf), " — ");
			how_many(buf, sizeof(buf), ro, rr->nruns, rr->run_iters,
				 "round trips");
		}
		if (!strcmp(a, b))
			fprintf(out,
				"  rr:     request/response, %s each way%s\n",
				a, buf);
		else
			fprintf(out,
				"  rr:     request/response, %s request, "
				"%s response%s\n",
				a, b, buf);
	}
	if (st) {
		buf[0] = '\0';
		if (st->nruns) {
			appendf(buf, sizeof(buf), " — ");
			how_many(buf, sizeof(buf), ro, st->nruns, st->run_iters,
				 "batches");
		}
		fprintf(out,
			"  stream: one-way batches of %llu messages of "
			"%s, timed with the receiver's 1-byte ack%s\n",
			(unsigned long long)st->cs.count,
			ipc_fmt_bytes((double)st->cs.msg_size, a, sizeof(a)),
			buf);
	}
}

static void suite_line(struct grid *g, const struct srow *r)
{
	struct line *l = grid_line(g);
	char **c;

	if (!l)
		return;
	c = l->cell;
	setf(g, &c[C_TRANSPORT], "%s", r->tp);
	setf(g, &c[C_ENGINE], "%s", r->eng ? r->eng : "-");
	if (r->rr && measured(r->rr)) {
		cell_ns(g, &c[C_RR_P50], (double)r->rr->sum.lat.p50);
		cell_ns(g, &c[C_RR_P99], (double)r->rr->sum.lat.p99);
		cell_rate(g, &c[C_RR_RATE], r->rr->sum.msgs_per_s);
	} else {
		setf(g, &c[C_RR_P50], "-");
		setf(g, &c[C_RR_P99], "-");
		setf(g, &c[C_RR_RATE], "-");
	}
	if (r->st && measured(r->st)) {
		cell_bps(g, &c[C_ST_BW], r->st->sum.bytes_per_s);
		cell_rate(g, &c[C_ST_MSGS], r->st->sum.msgs_per_s);
	} else {
		setf(g, &c[C_ST_BW], "-");
		setf(g, &c[C_ST_MSGS], "-");
	}
	setf(g, &c[C_NOTES], "%s", r->notes ? r->notes : "");
}

/*
 * The quick suite: one row per transport with the two tests side by side.
 * Results of other patterns go to the list @rest for the usual sections;
 * skips that name no transport are printed under the table.  Sets
 * *printed when anything was printed.
 */
static int print_suite(FILE *out, const struct ipc_report_meta *meta,
		       const struct tab *t, const struct trow **rest,
		       size_t *nrest, bool *printed)
{
	struct suite s = {0};
	struct grid g = {0};
	char tp[64], label[64];
	bool multi = false, zero = false;
	unsigned flags = 0;
	const char *eng0 = NULL;
	size_t i;
	int err;

	*nrest = 0;
	for (i = 0; i < t->nrows && !s.err; i++) {
		const struct trow *tr = &t->rows[i];
		const char *p = pat_name(tr);
		struct srow *r;
		bool is_rr = !strcmp(p, "rr");

		if (!is_rr && strcmp(p, "stream")) {
			rest[(*nrest)++] = tr;
			continue;
		}
		if (!eng0)
			eng0 = eng_name(tr);
		multi |= !!strcmp(eng0, eng_name(tr));
		r = suite_row(&s, tp_name(tr), eng_name(tr));
		if (!r)
			break;
		if (is_rr && !r->rr)
			r->rr = tr;
		else if (!is_rr && !r->st)
			r->st = tr;
		note_status(&s, r, tr);
		note_flags(&s, r, tr);
		if (measured(tr))
			flags |= tr->diag.flags;
		r->zero |= zero_on_stream(tr);
		zero |= r->zero;
	}
	for (i = 0; i < t->nskips && !s.err; i++) {
		const struct ipc_skip *sk = &t->skips[i];
		struct srow *r;

		if (!skip_transport(sk->what, tp, sizeof(tp), label,
				    sizeof(label)))
			continue;
		r = suite_row(&s, tp, NULL);
		if (!r)
			break;
		add_note(&s, r, "%s: %s", label, sk->why);
	}

	grid_col(&g, C_TRANSPORT);
	if (multi)
		grid_col(&g, C_ENGINE);
	grid_col(&g, C_RR_P50);
	grid_col(&g, C_RR_P99);
	grid_col(&g, C_RR_RATE);
	grid_col(&g, C_ST_BW);
	grid_col(&g, C_ST_MSGS);
	grid_col(&g, C_NOTES);
	g.nid = g.ncols;
	for (i = 0; i < s.n; i++)
		suite_line(&g, &s.rows[i]);

	err = s.err ? s.err : g.err;
	*printed = false;
	if (!err && s.n) {
		suite_heading(out, meta, &s, multi ? NULL : eng0);
		grid_print(&g, out);
		if (zero)
			fprintf(out, "%s\n", zero_note);
		for (int k = 0; k < IPC_FLAG_COUNT; k++)
			if (flags & (1u << k))
				fprintf(out, "hint for %s: %s\n",
					ipc_flag_name(k), ipc_flag_hint(k));
		*printed = true;
	}
	for (i = 0; i < t->nskips && !err; i++) {
		if (skip_transport(t->skips[i].what, tp, sizeof(tp), label,
				   sizeof(label)))
			continue;
		fprintf(out, "skipped: %s: %s\n", t->skips[i].what,
			t->skips[i].why);
		*printed = true;
	}
	for (i = 0; i < s.n; i++)
		free(s.rows[i].notes);
	free(s.rows);
	grid_free(&g);
	return err;
}

/* Sections per pattern, in the order the patterns first appear. */
static int print_sections(FILE *out, const struct ipc_report_meta *meta,
			  const struct trow **rows, size_t n, bool blank)
{
	const struct trow **sec;
	bool *done;
	size_t i, j, k;
	int err = 0;

	if (!n)
		return 0;
	sec = calloc(n, sizeof(*sec));
	done = calloc(n, sizeof(*done));
	if (!sec || !done) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !err; i++) {
		if (done[i])
			continue;
		for (j = i, k = 0; j < n; j++) {
			if (done[j] ||
			    strcmp(pat_name(rows[j]), pat_name(rows[i])))
				continue;
			sec[k++] = rows[j];
			done[j] = true;
		}
		if (blank)
			fputc('\n', out);
		blank = true;
		err = print_section(out, meta, pat_name(rows[i]), sec, k);
	}
out:
	free(done);
	free(sec);
	return err;
}

/*
 * Copy @src without control characters: a tab or a newline in an error
 * message would break the alignment of every line after it.
 */
static void copy_text(char *dst, size_t len, const char *src)
{
	size_t i;

	snprintf(dst, len, "%s", src);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = ' ';
}

static int table_begin(struct ipc_report *r)
{
	r->priv = calloc(1, sizeof(struct tab));
	return r->priv ? 0 : -ENOMEM;
}

static int table_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	struct tab *t = r->priv;

	if (!t)
		return -EINVAL;
	if (grow((void **)&t->skips, &t->skips_cap, t->nskips, sizeof(*s)))
		return -ENOMEM;
	copy_text(t->skips[t->nskips].what, sizeof(s->what), s->what);
	copy_text(t->skips[t->nskips].why, sizeof(s->why), s->why);
	t->nskips++;
	return 0;
}

static int table_result(struct ipc_report *r, const struct ipc_result *res)
{
	struct tab *t = r->priv;
	struct trow *row;

	if (!t)
		return -EINVAL;
	if (grow((void **)&t->rows, &t->rows_cap, t->nrows, sizeof(*row)))
		return -ENOMEM;
	row = &t->rows[t->nrows++];
	row->cs = res->cs;
	row->status = res->status;
	copy_text(row->error, sizeof(row->error), res->error);
	row->nruns = res->nruns;
	row->run_iters = res->nruns ? res->runs[0].iterations : 0;
	row->sum = res->summary;
	row->metric = res->metric;
	row->diag = res->diag;
	for (int k = 0; k < IPC_FLAG_COUNT; k++) {
		row->why[k][0] = '\0';
		if (res->diag.flags & (1u << k))
			ipc_flag_why(res, k, row->why[k], sizeof(row->why[k]));
	}
	snprintf(row->unit, sizeof(row->unit), "%s", ipc_cost_unit(res));
	snprintf(row->metric_name, sizeof(row->metric_name), "%s",
		 ipc_metric_name(res));
	row->xlat = res->xlat;
	row->xcount = res->xhist ? res->xhist->total : 0;
	return 0;
}

static int table_end(struct ipc_report *r)
{
	const struct ipc_report_meta *meta = r->meta;
	struct tab *t = r->priv;
	const struct trow **rest = NULL;
	size_t i, nrest = 0;
	bool suite = meta && meta->command && !strcmp(meta->command, "suite");
	bool printed = false;
	int err = 0;

	if (!t)
		return -EINVAL;
	if (t->nrows) {
		rest = calloc(t->nrows, sizeof(*rest));
		if (!rest) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (suite) {
		err = print_suite(r->out, meta, t, rest, &nrest, &printed);
		if (!err)
			err = print_sections(r->out, meta, rest, nrest,
					     printed);
	} else {
		for (i = 0; i < t->nrows; i++)
			rest[nrest++] = &t->rows[i];
		err = print_sections(r->out, meta, rest, nrest, false);
		if (!err && t->nskips && nrest)
			fputc('\n', r->out);
		for (i = 0; !err && i < t->nskips; i++)
			fprintf(r->out, "skipped: %s: %s\n", t->skips[i].what,
				t->skips[i].why);
	}
	/* The timer's own cost: every sample holds one clock read. */
	if (!err && t->nrows && meta && meta->host && meta->host->timer_ns)
		fprintf(r->out,
			"clock: one CLOCK_MONOTONIC read costs %llu ns here; "
			"each sample includes one\n",
			(unsigned long long)meta->host->timer_ns);
out:
	free(rest);
	free(t->rows);
	free(t->skips);
	free(t);
	r->priv = NULL;
	return err;
}

const struct ipc_report_ops ipc_report_table = {
	.name = "table",
	.help = "aligned tables for people, units scaled (default)",
	.begin = table_begin,
	.skip = table_skip,
	.result = table_result,
	.end = table_end,
};

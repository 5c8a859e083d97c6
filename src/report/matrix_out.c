/* SPDX-License-Identifier: MIT */
/*
 * Writing host x host matrices: each case as a grid (rows the host that
 * measured, columns the host it measured against, each cell the value
 * with its interval) and a list of the pairs that failed or are flagged,
 * as a text table, Markdown, HTML or CSV (JSON: doc/matrix_json.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_page.h"
#include "ipcperf/report.h"
#include "doc/matrix.h"
#include "grid.h"
#include "mdtable.h"
#include "report/lib_internal.h"
#include "run/lib_internal.h"

/* "bimodal, load", or "" without flags. */
static char *flag_words(unsigned flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < IPC_FLAG_COUNT; k++)
		if (flags & (1u << k) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", ipc_flag_name(k));
	return buf;
}

/* "12.3 µs [12.1, 12.6]", "failed", "-": a cell in words for tables. */
static char *mx_cell_words(const struct mx_cell *cell, char *buf, size_t len)
{
	char v[32], lo[32], hi[32];

	if (cell->state == MX_NONE) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (!isfinite(cell->value)) {
		snprintf(buf, len, "failed");
		return buf;
	}
	ipc_fmt_value(cell->fmt, cell->value, v, sizeof(v));
	if (cell->st.have_ci)
		snprintf(buf, len, "%s [%s, %s]%s", v,
			 ipc_fmt_value(cell->fmt, cell->st.ci_low, lo,
				       sizeof(lo)),
			 ipc_fmt_value(cell->fmt, cell->st.ci_high, hi,
				       sizeof(hi)),
			 cell->state == MX_PARTIAL ? " partial" : "");
	else
		snprintf(buf, len, "%s%s", v,
			 cell->state == MX_PARTIAL ? " partial" : "");
	if (cell->flags && strlen(buf) + 2 < len)
		strcat(buf, " !");
	return buf;
}

/*
 * One case as two grids: the matrix (a row per host, a column per host it
 * measured against) and the notes (pair, status, flags, reason) of the
 * pairs that failed or were flagged.
 */
struct sheet {
	struct grid cells, notes;
};

static void sheet_free(struct sheet *s)
{
	grid_free(&s->cells);
	grid_free(&s->notes);
}

static int sheet_make(const struct ipc_matrix *m, const struct mx_case *c,
		      struct sheet *s)
{
	static const char *const note_head[] = {"pair", "status", "flags",
						"why"};
	struct grid_line *l;
	char buf[320], fl[96];
	size_t f, t;

	memset(s, 0, sizeof(*s));
	grid_col(&s->cells, "from \\ to", true);
	for (f = 0; f < m->nhosts; f++)
		grid_col(&s->cells, m->hosts[f], false);
	for (f = 0; f < 4; f++)
		grid_col(&s->notes, note_head[f], true);
	for (f = 0; f < m->nhosts && (l = grid_line(&s->cells)); f++) {
		grid_set(&s->cells, &l->cell[0], "%s", m->hosts[f]);
		for (t = 0; t < m->nhosts; t++)
			grid_set(&s->cells, &l->cell[t + 1], "%s",
				 mx_cell_words(mx_at(m, c, f, t), buf,
					       sizeof(buf)));
	}
	for (f = 0; f < m->nhosts; f++)
		for (t = 0; t < m->nhosts; t++) {
			const struct mx_cell *cell = mx_at(m, c, f, t);

			if (cell->state < MX_PARTIAL && !cell->flags)
				continue;
			l = grid_line(&s->notes);
			if (!l)
				break;
			grid_set(&s->notes, &l->cell[0], "%s -> %s",
				 m->hosts[f], m->hosts[t]);
			grid_set(&s->notes, &l->cell[1], "%s",
				 mx_state_names[cell->state]);
			grid_set(&s->notes, &l->cell[2], "%s",
				 flag_words(cell->flags, fl, sizeof(fl)));
			grid_set(&s->notes, &l->cell[3], "%s", cell->why);
		}
	return s->cells.err ? s->cells.err : s->notes.err;
}

/* What the values are, in one sentence. */
static void about(const struct ipc_matrix *m, const struct mx_case *c,
		  char *buf, size_t len)
{
	snprintf(buf, len,
		 "%s: %s%s, from the host in the row to the host in the "
		 "column; [95%% interval of the median of every run], "
		 "! flagged",
		 c->name, m->word,
		 m->metric == IPC_MX_THROUGHPUT
			 ? " (median of every run)"
			 : " of every sample (merged histograms)");
}

static void text_case(FILE *out, const struct ipc_matrix *m,
		      const struct mx_case *c, struct sheet *s)
{
	char line[512];

	about(m, c, line, sizeof(line));
	fprintf(out, "%s\n\n", line);
	/* On a terminal the cells read as words, left-aligned. */
	for (size_t k = 0; k < s->cells.ncols; k++)
		s->cells.left[k] = true;
	grid_print(&s->cells, out);
	for (size_t i = 0; i < s->notes.nlines; i++) {
		char **n = s->notes.lines[i].cell;

		fprintf(out, "%s  %s: %s%s%s%s%s\n", i ? "" : "\n", n[0], n[1],
			n[2][0] ? ", flagged " : "", n[2], n[3][0] ? ": " : "",
			n[3]);
	}
	fputc('\n', out);
}

static int grid_case(FILE *out, const struct ipc_matrix *m,
		     const struct mx_case *c, struct sheet *s, bool html)
{
	char line[512];
	int err;

	about(m, c, line, sizeof(line));
	if (html) {
		s->cells.caption = line;
		s->notes.caption = "failed or flagged pairs";
		err = grid_print_html(&s->cells, out);
		if (!err && s->notes.nlines)
			err = grid_print_html(&s->notes, out);
		return err;
	}
	fprintf(out, "### ");
	md_escape(out, c->name);
	fprintf(out, "\n\n");
	md_escape(out, line);
	fprintf(out, "\n\n");
	err = grid_print_md(&s->cells, out);
	if (!err && s->notes.nlines) {
		fputc('\n', out);
		err = grid_print_md(&s->notes, out);
	}
	fputc('\n', out);
	return err;
}

static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, ",%.17g", v);
	else
		fputc(',', out);
}

static void csv_cells(FILE *out, const struct ipc_matrix *m,
		      const struct mx_case *c)
{
	char fl[96];

	for (size_t f = 0; f < m->nhosts; f++)
		for (size_t t = 0; t < m->nhosts; t++) {
			const struct mx_cell *cell = mx_at(m, c, f, t);

			if (cell->state == MX_NONE)
				continue;
			csv_str(out, c->name);
			fprintf(out, ",%s,%s,", m->word,
				cell->unit ? cell->unit : "");
			csv_str(out, m->hosts[f]);
			fputc(',', out);
			csv_str(out, m->hosts[t]);
			fprintf(out, ",%s", mx_state_names[cell->state]);
			csv_num(out, cell->value);
			csv_num(out,
				cell->st.have_ci ? cell->st.ci_level : NAN);
			csv_num(out, cell->st.have_ci ? cell->st.ci_low : NAN);
			csv_num(out, cell->st.have_ci ? cell->st.ci_high : NAN);
			fprintf(out, ",%zu,%zu,%llu,", cell->nvals,
				cell->results,
				(unsigned long long)(cell->hist
							     ? cell->hist->total
							     : 0));
			csv_str(out, flag_words(cell->flags, fl, sizeof(fl)));
			fputc(',', out);
			csv_str(out, cell->why);
			fputc('\n', out);
		}
}

int ipc_matrix_write(FILE *out, const struct ipc_matrix *m, const char *format)
{
	bool html = !strcmp(format, "html"), md = !strcmp(format, "markdown");
	struct sheet s;
	int err = 0;

	if (!strcmp(format, "json"))
		return mx_write_json(out, m);
	if (!strcmp(format, "csv")) {
		fprintf(out, "case,metric,unit,from,to,status,value,ci_level,"
			     "ci_low,ci_high,runs,results,samples,flags,"
			     "error\n");
		for (size_t i = 0; i < m->ncases; i++)
			csv_cells(out, m, &m->cases[i]);
		return ferror(out) ? -EIO : 0;
	}
	if (!html && !md && strcmp(format, "table"))
		return -EINVAL;
	if (html)
		html_begin(out, "ipcperf host matrix");
	for (size_t i = 0; !err && i < m->ncases; i++) {
		err = sheet_make(m, &m->cases[i], &s);
		if (!err && !html && !md)
			text_case(out, m, &m->cases[i], &s);
		else if (!err)
			err = grid_case(out, m, &m->cases[i], &s, html);
		sheet_free(&s);
	}
	if (html)
		html_end(out);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

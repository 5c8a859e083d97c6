/* SPDX-License-Identifier: MIT */
/*
 * Writing host x host matrices: each case as a grid (rows the host that
 * measured, columns the host it measured against, each cell the value
 * with its interval) and a list of the pairs that failed or are flagged,
 * as a text table, Markdown, HTML, CSV or JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "html_page.h"
#include "ipcperf/report.h"
#include "doc/jread.h"
#include "doc/matrix.h"
#include "mdtable.h"

static const char *const state_names[] = {"none", "ok", "partial", "failed"};

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
 * One case as strings: the grid (nhosts rows of 1 + nhosts cells) and
 * the notes (pair, status, flags, reason), every string allocated.
 */
struct sheet {
	char **grid, **head;
	char **notes;
	size_t nnotes;
};

static void sheet_free(struct sheet *s, size_t ngrid)
{
	for (size_t i = 0; s->grid && i < ngrid; i++)
		free(s->grid[i]);
	for (size_t i = 0; s->notes && i < 4 * s->nnotes; i++)
		free(s->notes[i]);
	free(s->grid);
	free(s->head);
	free(s->notes);
}

static int sheet_make(const struct ipc_matrix *m, const struct mx_case *c,
		      struct sheet *s)
{
	size_t w = m->nhosts + 1, f, t;
	char buf[320], pair[160], fl[96];

	memset(s, 0, sizeof(*s));
	s->grid = calloc(m->nhosts * w, sizeof(*s->grid));
	s->head = calloc(w, sizeof(*s->head));
	s->notes = calloc(4 * m->nhosts * m->nhosts + 1, sizeof(*s->notes));
	if (!s->grid || !s->head || !s->notes)
		return -ENOMEM;
	s->head[0] = "from \\ to";
	for (f = 0; f < m->nhosts; f++) {
		s->head[f + 1] = m->hosts[f];
		s->grid[f * w] = strdup(m->hosts[f]);
		for (t = 0; t < m->nhosts; t++)
			s->grid[f * w + t + 1] = strdup(mx_cell_words(
				mx_at(m, c, f, t), buf, sizeof(buf)));
	}
	for (f = 0; f < m->nhosts; f++)
		for (t = 0; t < m->nhosts; t++) {
			const struct mx_cell *cell = mx_at(m, c, f, t);
			char **n = &s->notes[4 * s->nnotes];

			if (cell->state < MX_PARTIAL && !cell->flags)
				continue;
			snprintf(pair, sizeof(pair), "%s -> %s", m->hosts[f],
				 m->hosts[t]);
			n[0] = strdup(pair);
			n[1] = strdup(state_names[cell->state]);
			n[2] = strdup(flag_words(cell->flags, fl, sizeof(fl)));
			n[3] = strdup(cell->why);
			s->nnotes++;
		}
	for (f = 0; f < m->nhosts * w; f++)
		if (!s->grid[f])
			return -ENOMEM;
	for (f = 0; f < 4 * s->nnotes; f++)
		if (!s->notes[f])
			return -ENOMEM;
	return 0;
}

static const char *const note_head[] = {"pair", "status", "flags", "why"};

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

/* Display width of UTF-8 text: bytes that do not continue a character. */
static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void text_row(FILE *out, const char *const *cells, size_t n,
		     const size_t *wd)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = cells[i] ? cells[i] : "";

		fprintf(out, "%s%s", i ? "  " : "", s);
		for (size_t k = width(s); i + 1 < n && k < wd[i]; k++)
			fputc(' ', out);
	}
	fputc('\n', out);
}

static void text_case(FILE *out, const struct ipc_matrix *m,
		      const struct mx_case *c, const struct sheet *s)
{
	size_t w = m->nhosts + 1, wd[w];
	char line[512];

	about(m, c, line, sizeof(line));
	fprintf(out, "%s\n\n", line);
	for (size_t k = 0; k < w; k++) {
		wd[k] = width(s->head[k]);
		for (size_t r = 0; r < m->nhosts; r++)
			if (width(s->grid[r * w + k]) > wd[k])
				wd[k] = width(s->grid[r * w + k]);
	}
	text_row(out, (const char *const *)s->head, w, wd);
	for (size_t r = 0; r < m->nhosts; r++)
		text_row(out, (const char *const *)s->grid + r * w, w, wd);
	for (size_t i = 0; i < s->nnotes; i++) {
		char **n = s->notes + 4 * i;

		fprintf(out, "%s  %s: %s%s%s%s%s\n", i ? "" : "\n", n[0], n[1],
			n[2][0] ? ", flagged " : "", n[2], n[3][0] ? ": " : "",
			n[3]);
	}
	fputc('\n', out);
}

static int grid_case(FILE *out, const struct ipc_matrix *m,
		     const struct mx_case *c, const struct sheet *s, bool html)
{
	size_t w = m->nhosts + 1;
	enum md_align al[w];
	char line[512];
	int err;

	for (size_t k = 0; k < w; k++)
		al[k] = k ? MD_RIGHT : MD_LEFT;
	about(m, c, line, sizeof(line));
	if (html) {
		err = html_table(out, line, w, (const char *const *)s->head, al,
				 (const char *const *)s->grid, m->nhosts);
		if (!err && s->nnotes)
			err = html_table(
				out, "failed or flagged pairs", 4, note_head,
				NULL, (const char *const *)s->notes, s->nnotes);
		return err;
	}
	fprintf(out, "### ");
	md_escape(out, c->name);
	fprintf(out, "\n\n");
	md_escape(out, line);
	fprintf(out, "\n\n");
	err = md_table(out, w, (const char *const *)s->head, al,
		       (const char *const *)s->grid, m->nhosts);
	if (!err && s->nnotes) {
		fputc('\n', out);
		err = md_table(out, 4, note_head, NULL,
			       (const char *const *)s->notes, s->nnotes);
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
			fprintf(out, ",%s", state_names[cell->state]);
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

static json_t *cell_obj(const struct ipc_matrix *m, const struct mx_cell *cell,
			size_t f, size_t t)
{
	json_t *o = json_object(), *a = json_array(), *ci;
	int bad = !o || !a;

	bad |= json_object_set_new(o, "from", json_string(m->hosts[f]));
	bad |= json_object_set_new(o, "to", json_string(m->hosts[t]));
	bad |= json_object_set_new(o, "status",
				   json_string(state_names[cell->state]));
	if (cell->why[0])
		bad |= json_object_set_new(o, "error", json_string(cell->why));
	if (isfinite(cell->value)) {
		bad |= json_object_set_new(o, "value", json_real(cell->value));
		bad |= json_object_set_new(
			o, "basis",
			json_string(cell->from_hist ? "merged histogram"
						    : "median of runs"));
	}
	bad |= json_object_set_new(o, "results",
				   json_integer((json_int_t)cell->results));
	bad |= json_object_set_new(o, "runs",
				   json_integer((json_int_t)cell->nvals));
	if (cell->st.have_ci) {
		ci = json_pack("{s:f, s:f, s:f}", "level", cell->st.ci_level,
			       "low", cell->st.ci_low, "high",
			       cell->st.ci_high);
		bad |= json_object_set_new(o, "ci", ci);
	}
	for (int k = 0; a && k < IPC_FLAG_COUNT; k++)
		if (cell->flags & (1u << k))
			bad |= json_array_append_new(
				a, json_string(ipc_flag_name(k)));
	bad |= json_object_set_new(o, "flags", a);
	a = json_array();
	for (size_t i = 0; a && i < cell->nvals; i++)
		bad |= json_array_append_new(a, json_real(cell->vals[i]));
	bad |= json_object_set_new(o, "run_values", a);
	if (cell->hist && cell->hist->total)
		bad |= json_object_set_new(o, "histogram",
					   jh_hist_obj(cell->hist));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *case_obj(const struct ipc_matrix *m, const struct mx_case *c)
{
	json_t *o = json_object(), *cells = json_array(), *x;
	const char *unit = NULL;
	int bad = !o || !cells;

	for (size_t f = 0; !bad && f < m->nhosts; f++)
		for (size_t t = 0; !bad && t < m->nhosts; t++) {
			const struct mx_cell *cell = mx_at(m, c, f, t);

			if (cell->state == MX_NONE)
				continue;
			unit = unit ? unit : cell->unit;
			x = cell_obj(m, cell, f, t);
			bad |= !x || json_array_append_new(cells, x);
		}
	bad |= json_object_set_new(o, "case", json_string(c->name));
	bad |= json_object_set_new(o, "unit", json_string(unit ? unit : ""));
	bad |= json_object_set_new(o, "cells", cells);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int write_json(FILE *out, const struct ipc_matrix *m)
{
	json_t *root = json_object(), *hosts = json_array(),
	       *cases = json_array(), *files = json_array(), *x;
	const struct ipc_report_meta *meta = m->meta;
	int bad = !root || !hosts || !cases || !files;

	for (size_t i = 0; !bad && i < m->nhosts; i++)
		bad |= json_array_append_new(hosts, json_string(m->hosts[i]));
	for (size_t i = 0; !bad && i < m->ncases; i++) {
		x = case_obj(m, &m->cases[i]);
		bad |= !x || json_array_append_new(cases, x);
	}
	bad |= json_object_set_new(
		root, "ipcperf",
		json_pack("{s:s, s:i}", "version",
			  meta && meta->version ? meta->version : "", "schema",
			  IPC_JSON_SCHEMA));
	bad |= json_object_set_new(root, "command", json_string("matrix"));
	bad |= json_object_set_new(root, "metric", json_string(m->word));
	bad |= json_object_set_new(root, "hosts", hosts);
	bad |= json_object_set_new(root, "matrices", cases);
	if (bad) {
		json_decref(root);
		json_decref(files);
		return -ENOMEM;
	}
	json_decref(files);
	errno = 0;
	bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) <
		      0 ||
	      fputc('\n', out) == EOF;
	json_decref(root);
	return bad ? (errno ? -errno : -EIO) : 0;
}

int ipc_matrix_write(FILE *out, const struct ipc_matrix *m, const char *format)
{
	bool html = !strcmp(format, "html"), md = !strcmp(format, "markdown");
	struct sheet s;
	int err = 0;

	if (!strcmp(format, "json"))
		return write_json(out, m);
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
		sheet_free(&s, m->nhosts * (m->nhosts + 1));
	}
	if (html)
		html_end(out);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

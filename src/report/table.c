/* SPDX-License-Identifier: MIT */
/*
 * The human table: results are kept until the end, then printed as one
 * table per pattern in the layout its description asks for (or the quick
 * suite's one table), each under a line that says what was measured and
 * how, with units scaled for reading.  Skipped cases, the clock's cost and
 * caveats are listed under the tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doc/compare.h"
#include "explain_out.h"
#include "table.h"
#include "explain/lib_internal.h"
#include "run/lib_internal.h"

/* One pattern's rows, in the layout its description asks for. */
static int print_section(struct tab_out *out,
			 const struct ipc_report_meta *meta,
			 const struct trow *const *rows, size_t n, bool matrix)
{
	switch (rows[0]->res.cs.pat->layout) {
	case IPC_LAYOUT_PIVOT:
		return table_pivot_print(out, meta, rows, n);
	default:
		return table_section_print(out, meta, rows, n, matrix);
	}
}

/* Sections per pattern, in the order the patterns first appear. */
static int print_sections(struct tab_out *out,
			  const struct ipc_report_meta *meta,
			  const struct trow **rows, size_t n, bool blank,
			  bool matrix, const struct tab_hook *hook)
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
			    rows[j]->res.cs.pat != rows[i]->res.cs.pat)
				continue;
			sec[k++] = rows[j];
			done[j] = true;
		}
		if (blank)
			tab_puts(out, "\n");
		blank = true;
		err = print_section(out, meta, sec, k, matrix);
		if (!err && hook && hook->section)
			err = hook->section(hook->arg, sec, k);
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

static int begin(struct ipc_report *r, enum tab_style style)
{
	struct tab *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->style = style;
	t->matrix = r->matrix;
	r->priv = t;
	return 0;
}

static int table_begin(struct ipc_report *r)
{
	return begin(r, TAB_TEXT);
}

static int markdown_begin(struct ipc_report *r)
{
	return begin(r, TAB_MARKDOWN);
}

int tab_keep_skip(struct tab *t, const struct ipc_skip *s)
{
	if (!t)
		return -EINVAL;
	if (tab_grow((void **)&t->skips, &t->skips_cap, t->nskips, sizeof(*s)))
		return -ENOMEM;
	copy_text(t->skips[t->nskips].what, sizeof(s->what), s->what);
	copy_text(t->skips[t->nskips].why, sizeof(s->why), s->why);
	t->nskips++;
	return 0;
}

/*
 * Keep the record without what the caller frees (its runs and
 * histograms); what the table prints of the runs is resolved now.
 */
int tab_keep(struct tab *t, const struct ipc_result *res)
{
	struct trow *row;

	if (!t || !res->cs.pat)
		return -EINVAL;
	if (tab_grow((void **)&t->rows, &t->rows_cap, t->nrows, sizeof(*row)))
		return -ENOMEM;
	row = &t->rows[t->nrows++];
	row->res = *res;
	row->res.diag.metric = ipc_result_metric(res);
	row->res.runs = NULL;
	row->res.runs_cap = 0;
	/* The intervals are copied: the HTML page draws them. */
	row->res.ivals = NULL;
	row->res.ivals_cap = 0;
	if (res->nivals) {
		row->res.ivals = malloc(res->nivals * sizeof(*res->ivals));
		if (!row->res.ivals)
			row->res.nivals = 0;
		else
			memcpy(row->res.ivals, res->ivals,
			       res->nivals * sizeof(*res->ivals));
	}
	row->res.streams = NULL; /* the table prints their summary */
	row->res.nstreams = 0;
	row->res.streams_cap = 0;
	row->res.hist = NULL;
	row->res.xhist = NULL;
	row->res.explain = explain_keep(res->explain);
	copy_text(row->res.error, sizeof(row->res.error), res->error);
	row->run_iters = res->nruns ? res->runs[0].iterations : 0;
	return 0;
}

int tab_print(struct tab_out *out, const struct ipc_report_meta *meta,
	      struct tab *t, const struct tab_hook *hook)
{
	const struct trow **rest = NULL;
	size_t i, nrest = 0;
	bool suite = meta && meta->command && !strcmp(meta->command, "suite");
	bool printed = false;
	char idle[IPC_PMQOS_WORDS];
	int err = 0;

	if (t->nrows) {
		rest = calloc(t->nrows, sizeof(*rest));
		if (!rest)
			return -ENOMEM;
	}
	if (suite) {
		err = table_suite_print(out, meta, t, rest, &nrest, &printed);
		if (!err)
			err = print_sections(out, meta, rest, nrest, printed,
					     t->matrix, hook);
	} else {
		for (i = 0; i < t->nrows; i++)
			rest[nrest++] = &t->rows[i];
		err = print_sections(out, meta, rest, nrest, false, t->matrix,
				     hook);
		if (!err && t->nskips && nrest)
			tab_puts(out, "\n");
		for (i = 0; !err && i < t->nskips; i++)
			tab_printf(out, "skipped: %s: %s\n", t->skips[i].what,
				   t->skips[i].why);
	}
	if (!err)
		explain_table_print(out, t->rows, t->nrows);
	/* The timer's own cost: every sample holds one clock read. */
	if (!err && t->nrows && meta && meta->host && meta->host->timer_ns)
		tab_printf(
			out,
			"clock: one CLOCK_MONOTONIC read costs %llu ns here; "
			"each sample includes one\n",
			(unsigned long long)meta->host->timer_ns);
	if (!err && t->nrows && meta && meta->host &&
	    ipc_pmqos_words(&meta->host->pm_qos, idle, sizeof(idle)))
		tab_printf(out, "idle: %s\n", idle);
	free(rest);
	return err;
}

void tab_free(struct tab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++) {
		ipc_explain_result_free(t->rows[i].res.explain);
		free(t->rows[i].res.ivals);
	}
	free(t->rows);
	free(t->skips);
	free(t);
}

static int table_skip(struct ipc_report *r, const struct ipc_skip *s)
{
	return tab_keep_skip(r->priv, s);
}

static int table_result(struct ipc_report *r, const struct ipc_result *res)
{
	return tab_keep(r->priv, res);
}

static int table_end(struct ipc_report *r)
{
	struct tab *t = r->priv;
	struct tab_out out;
	int err, err2;

	if (!t)
		return -EINVAL;
	tab_out_init(&out, r->out, t->style);
	err = tab_print(&out, r->meta, t, NULL);
	err2 = tab_out_fini(&out);
	tab_free(t);
	r->priv = NULL;
	return err ? err : err2;
}

const struct ipc_report_ops ipc_report_table = {
	.name = "table",
	.help = "aligned tables for people, units scaled (default)",
	.begin = table_begin,
	.skip = table_skip,
	.result = table_result,
	.end = table_end,
	.compare = cmp_print_table,
};

const struct ipc_report_ops ipc_report_markdown = {
	.name = "markdown",
	.help = "the tables in GitHub-flavoured Markdown, to paste",
	.begin = markdown_begin,
	.skip = table_skip,
	.result = table_result,
	.end = table_end,
	.compare = cmp_print_markdown,
};

/* SPDX-License-Identifier: MIT */
/*
 * The Markdown table writer: the exact text of a small table, padding by
 * characters (not bytes), and every escape, so that a cell reads the same
 * once GitHub renders it (tests/e2e/markdown.sh renders with cmark-gfm).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tap.h"
#include "report/mdtable.h"

static char *table(size_t ncols, const char *const *head,
		   const enum md_align *align, const char *const *cells,
		   size_t nrows, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = md_table(f, ncols, head, align, cells, nrows);
	fclose(f);
	return buf;
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	md_escape(f, s);
	fclose(f);
	return buf;
}

int main(void)
{
	static const char *const head[] = {"case", "p50", "ok"};
	static const enum md_align al[] = {MD_LEFT, MD_RIGHT, MD_CENTER};
	static const char *const cells[] = {
		"rr tcp req=64", "4.56 \xc2\xb5s", "yes",
		"rr fifo",	 "12.3 ms",	   NULL,
	};
	static const char *const h2[] = {"a", "b"};
	static const char *const c2[] = {"x | y", "a\\b"};
	char *t, *e;
	int rc;

	t = table(3, head, al, cells, 2, &rc);
	is_int(rc, "==", 0, "a table is written");
	is_str(t,
	       "| case          |     p50 | ok  |\n"
	       "| :------------ | ------: | :-: |\n"
	       "| rr tcp req=64 | 4.56 \xc2\xb5s | yes |\n"
	       "| rr fifo       | 12.3 ms |     |\n",
	       "header, alignment row, rows padded by characters");
	free(t);

	t = table(2, h2, NULL, c2, 1, &rc);
	is_str(t,
	       "| a      | b    |\n"
	       "| :----- | :--- |\n"
	       "| x \\| y | a\\\\b |\n",
	       "no alignment given: left; '|' and '\\' escaped");
	free(t);

	e = escaped("  two\nlines\tand\r\nmore  ");
	is_str(e, "two lines and more",
	       "line breaks and tabs become spaces, "
	       "ends trimmed");
	free(e);
	e = escaped("`code` *bold* <b> [link](x) ~~gone~~");
	is_str(e, "\\`code\\` \\*bold\\* \\<b> \\[link\\](x) \\~\\~gone\\~\\~",
	       "code, emphasis, HTML, links and strike-through escaped");
	free(e);
	e = escaped("gdb_step_1.log _em_ a_");
	is_str(e, "gdb_step_1.log \\_em\\_ a\\_",
	       "'_' escaped only at a word's edge");
	free(e);
	e = escaped(NULL);
	is_str(e, "", "NULL is an empty cell");
	free(e);

	t = table(0, head, NULL, NULL, 0, &rc);
	is_int(rc, "==", -EINVAL, "no columns: -EINVAL");
	free(t);
	t = table(1, head, NULL, NULL, 3, &rc);
	is_int(rc, "==", -EINVAL, "rows without cells: -EINVAL");
	free(t);
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/*
 * Tables in GitHub-flavoured Markdown, as hyperfine's --export-markdown
 * writes them, from rows of strings: for pasting into a review or a
 * mailing-list post.  Private to the report layer.
 */
#ifndef IPCPERF_REPORT_MDTABLE_H
#define IPCPERF_REPORT_MDTABLE_H

#include <stddef.h>
#include <stdio.h>

enum md_align {
	MD_LEFT = 0,
	MD_RIGHT,
	MD_CENTER,
};

/*
 * Write a table of @ncols columns: the header row @head, the alignment row
 * (from @align; NULL: every column left), then @nrows rows whose cells are
 * cells[r * ncols + c] (NULL: empty).  Cell text is escaped so that it
 * reads the same once rendered: '|' and '\' and the characters that would
 * start code, emphasis, a link or HTML get a backslash, line breaks become
 * spaces.  Columns are padded to one width (in characters) so that the
 * plain text lines up too.  Returns 0, -EINVAL, or -ENOMEM.
 */
int md_table(FILE *out, size_t ncols, const char *const *head,
	     const enum md_align *align, const char *const *cells,
	     size_t nrows);

/* Write @s escaped for a Markdown table cell (as md_table does). */
void md_escape(FILE *out, const char *s);

#endif

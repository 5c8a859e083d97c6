/* SPDX-License-Identifier: MIT */
/*
 * The frame of an HTML report: one self-contained page (its stylesheet
 * inline, with print rules; no script, font or image from anywhere else),
 * headings and tables whose every string is escaped.  Private to the
 * report layer; the charts in it come from svg.h.
 */
#ifndef IPCPERF_REPORT_HTML_PAGE_H
#define IPCPERF_REPORT_HTML_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include "mdtable.h"

/* <!DOCTYPE html> up to <body>, titled @title (escaped). */
void html_begin(FILE *out, const char *title);

/* </body></html>. */
void html_end(FILE *out);

/*
 * A table: @ncols columns headed @head, aligned as @align (NULL: left),
 * @nrows rows of cells[r * ncols + c] (NULL: empty), every cell escaped.
 * @caption (may be NULL) above it.  Returns 0 or -EINVAL.
 */
int html_table(FILE *out, const char *caption, size_t ncols,
	       const char *const *head, const enum md_align *align,
	       const char *const *cells, size_t nrows);

/* The page's stylesheet (exposed for tests). */
extern const char html_css[];

#endif

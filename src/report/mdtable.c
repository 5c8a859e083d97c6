/* SPDX-License-Identifier: MIT */
/*
 * The Markdown table writer: escaping that survives GitHub's renderer, and
 * columns padded so that the raw text is a table as well.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mdtable.h"

/*
 * Whether byte @i of @s needs a backslash.  '|' ends a cell and '\'
 * escapes; '`', '*', '<', '[', ']' and '~' start code, emphasis, HTML, a
 * link or strike-through.  '_' emphasizes only at a word's edge (GFM
 * leaves "gdb_step_1.log" alone), so only there is it escaped.
 */
static bool needs_escape(const char *s, size_t i)
{
	unsigned char prev = i ? (unsigned char)s[i - 1] : ' ';
	unsigned char next = (unsigned char)s[i + 1];

	if (strchr("|\\`*<[]~", s[i]))
		return true;
	return s[i] == '_' && !(isalnum(prev) && isalnum(next));
}

/*
 * Walk @s as it will be written: call @put (if not NULL) for each piece,
 * return the width in characters.  Leading and trailing blanks are dropped
 * (the renderer drops them), line breaks and tabs become one space.
 */
static size_t walk(FILE *out, const char *s)
{
	size_t i, end, width = 0;

	if (!s)
		return 0;
	while (*s && isspace((unsigned char)*s))
		s++;
	end = strlen(s);
	while (end && isspace((unsigned char)s[end - 1]))
		end--;
	for (i = 0; i < end; i++) {
		if (s[i] == '\r' && s[i + 1] == '\n')
			continue; /* CR LF is one line break */
		if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
			if (out)
				fputc(' ', out);
			width++;
			continue;
		}
		if (needs_escape(s, i)) {
			if (out)
				fputc('\\', out);
			width++;
		}
		if (out)
			fputc(s[i], out);
		/* A character is its first byte: continuation bytes add 0. */
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			width++;
	}
	return width;
}

void md_escape(FILE *out, const char *s)
{
	walk(out, s);
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/* One row: "| a   |  1.5 |" with each cell padded as its column aligns. */
static void row(FILE *out, const char *const *cells, size_t ncols,
		const enum md_align *align, const size_t *width)
{
	enum md_align a;
	size_t c, w, room;

	for (c = 0; c < ncols; c++) {
		a = align ? align[c] : MD_LEFT;
		w = walk(NULL, cells[c]);
		room = width[c] - w;
		fputs("| ", out);
		pad(out, a == MD_RIGHT ? room : a == MD_CENTER ? room / 2 : 0);
		walk(out, cells[c]);
		pad(out, a == MD_LEFT	  ? room
			 : a == MD_CENTER ? room - room / 2
					  : 0);
		fputc(' ', out);
	}
	fputs("|\n", out);
}

int md_table(FILE *out, size_t ncols, const char *const *head,
	     const enum md_align *align, const char *const *cells, size_t nrows)
{
	enum md_align a;
	size_t *width, r, c, i;

	if (!out || !ncols || !head || (nrows && !cells))
		return -EINVAL;
	width = calloc(ncols, sizeof(*width));
	if (!width)
		return -ENOMEM;
	/* The alignment row needs three dashes and its colons. */
	for (c = 0; c < ncols; c++) {
		width[c] = walk(NULL, head[c]);
		if (width[c] < 3)
			width[c] = 3;
		for (r = 0; r < nrows; r++) {
			i = walk(NULL, cells[r * ncols + c]);
			if (i > width[c])
				width[c] = i;
		}
	}
	row(out, head, ncols, align, width);
	/* "| :---- |", "| ----: |", "| :---: |": as wide as the column. */
	for (c = 0; c < ncols; c++) {
		a = align ? align[c] : MD_LEFT;
		fputs(a == MD_RIGHT ? "| -" : "| :", out);
		for (i = 2; i < width[c]; i++)
			fputc('-', out);
		fputs(a == MD_LEFT ? "- " : ": ", out);
	}
	fputs("|\n", out);
	for (r = 0; r < nrows; r++)
		row(out, cells + r * ncols, ncols, align, width);
	free(width);
	return 0;
}

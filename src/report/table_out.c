/* SPDX-License-Identifier: MIT */
/*
 * Where the table layouts write: plain text for a terminal, Markdown to
 * paste, or HTML for the report page.  The layouts write lines and grids;
 * each finished line comes out in the chosen style (a heading, a line of
 * text, escaped as the style needs), each grid as that style's table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "html_page.h"
#include "mdtable.h"
#include "svg.h"
#include "table.h"

void tab_out_init(struct tab_out *o, FILE *f, enum tab_style style)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->style = style;
}

/* Write the line held in o->line (without its newline) in the style. */
static void emit(struct tab_out *o)
{
	const char *s = o->line ? o->line : "";
	bool empty = !o->len;

	switch (o->style) {
	case TAB_TEXT:
		fprintf(o->f, "%s\n", s);
		break;
	case TAB_MARKDOWN:
		if (empty) {
			fputc('\n', o->f);
			o->para = false;
			break;
		}
		if (o->heading) {
			fputs(o->para ? "\n### " : "### ", o->f);
			md_escape(o->f, s);
			fputs("\n\n", o->f);
			o->para = false;
			break;
		}
		/* A line that would start a list, quote or heading: not. */
		while (*s == ' ')
			s++;
		if (strchr("#-+>=", *s) && *s)
			fputc('\\', o->f);
		md_escape(o->f, s);
		/* Two spaces: a line break inside the paragraph. */
		fputs("  \n", o->f);
		o->para = true;
		break;
	case TAB_HTML:
		if (empty)
			break;
		fputs(o->heading ? "<h3>" : "<p class=\"note\">", o->f);
		svg_escape(o->f, s);
		fputs(o->heading ? "</h3>\n" : "</p>\n", o->f);
		break;
	}
	o->heading = false;
	o->len = 0;
	if (o->line)
		o->line[0] = '\0';
}

/* Append @n bytes of @s to the line, writing each line it completes. */
static void add(struct tab_out *o, const char *s, size_t n)
{
	const char *nl;
	size_t k;

	while (n) {
		nl = memchr(s, '\n', n);
		k = nl ? (size_t)(nl - s) : n;
		if (o->len + k + 1 > o->cap) {
			size_t cap = (o->len + k + 1) * 2;
			char *p = realloc(o->line, cap);

			if (!p) {
				o->err = -ENOMEM;
				return;
			}
			o->line = p;
			o->cap = cap;
		}
		memcpy(o->line + o->len, s, k);
		o->len += k;
		o->line[o->len] = '\0';
		if (!nl)
			return;
		emit(o);
		s += k + 1;
		n -= k + 1;
	}
}

void tab_printf(struct tab_out *o, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = -ENOMEM;
		return;
	}
	add(o, s, (size_t)n);
	free(s);
}

void tab_puts(struct tab_out *o, const char *s)
{
	add(o, s, strlen(s));
}

void tab_heading(struct tab_out *o)
{
	o->heading = true;
}

void tab_grid(struct tab_out *o, struct grid *g)
{
	int err = 0;

	if (o->len)
		emit(o);
	switch (o->style) {
	case TAB_TEXT:
		grid_print(g, o->f);
		break;
	case TAB_MARKDOWN:
		if (o->para)
			fputc('\n', o->f);
		err = grid_print_md(g, o->f);
		fputc('\n', o->f);
		o->para = false;
		break;
	case TAB_HTML:
		err = grid_print_html(g, o->f);
		break;
	}
	if (err && !o->err)
		o->err = err;
}

int tab_out_fini(struct tab_out *o)
{
	if (o->len)
		emit(o);
	free(o->line);
	o->line = NULL;
	o->cap = 0;
	return o->err;
}

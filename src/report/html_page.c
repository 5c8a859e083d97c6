/* SPDX-License-Identifier: MIT */
/*
 * The HTML page around the charts: its stylesheet, for the screen and for
 * print, and tables.  Nothing in the page is fetched from elsewhere.
 */
#include <errno.h>

#include "html_page.h"
#include "svg.h"

/*
 * System fonts only (no web font to fetch), tables of numbers in tabular
 * figures, charts that shrink to the page.  In print: black on white, no
 * chart or table row split across pages, the address of nothing printed.
 */
const char html_css[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:75em;"
	"padding:0 1em;color:#222;background:#fff;line-height:1.4}\n"
	"h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.5em;"
	"border-bottom:1px solid #ccc}h3{font-size:1.05em}\n"
	"table{border-collapse:collapse;margin:.5em 0 1em;"
	"font-variant-numeric:tabular-nums}\n"
	"th,td{padding:.15em .6em;border-bottom:1px solid #e4e4e4;"
	"vertical-align:top}\n"
	"th{text-align:left;border-bottom:2px solid #999}\n"
	"td.r,th.r{text-align:right;white-space:nowrap}"
	"td.c,th.c{text-align:center}\n"
	"p.note{margin:.15em 0}\n"
	"caption{text-align:left;font-weight:bold;padding:.3em 0}\n"
	"code,pre{font-family:monospace;font-size:.95em}\n"
	"pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;"
	"padding:.5em}\n"
	".charts{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}\n"
	"figure{margin:0 0 1em}\n"
	".flag{color:#a33}.ok{color:#1a6}.bad{color:#a33;font-weight:bold}\n"
	"@media print{\n"
	"body{max-width:none;margin:0;font-size:10pt}\n"
	"figure,table,tr,.case{break-inside:avoid}\n"
	"h2,h3{break-after:avoid}\n"
	"pre{background:none;border:1px solid #ccc}\n"
	"svg.chart{max-width:100%}\n"
	"}\n"
	"@page{margin:1.5cm}\n";

void html_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n"
	      "<title>",
	      out);
	svg_escape(out, title);
	fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n",
		html_css, svg_css);
}

void html_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
}

static const char *align_class(const enum md_align *align, size_t c)
{
	if (!align || align[c] == MD_LEFT)
		return "";
	return align[c] == MD_RIGHT ? " class=\"r\"" : " class=\"c\"";
}

int html_table(FILE *out, const char *caption, size_t ncols,
	       const char *const *head, const enum md_align *align,
	       const char *const *cells, size_t nrows)
{
	size_t r, c;

	if (!out || !ncols || !head || (nrows && !cells))
		return -EINVAL;
	fputs("<table>\n", out);
	if (caption) {
		fputs("<caption>", out);
		svg_escape(out, caption);
		fputs("</caption>\n", out);
	}
	fputs("<thead><tr>", out);
	for (c = 0; c < ncols; c++) {
		fprintf(out, "<th%s>", align_class(align, c));
		svg_escape(out, head[c]);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (r = 0; r < nrows; r++) {
		fputs("<tr>", out);
		for (c = 0; c < ncols; c++) {
			fprintf(out, "<td%s>", align_class(align, c));
			svg_escape(out, cells[r * ncols + c]);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
	return 0;
}

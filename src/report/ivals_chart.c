/* SPDX-License-Identifier: MIT */
/*
 * Interval time series: one line per run (the first few, so the chart
 * stays legible), x the interval's end in seconds from the measured part's
 * start, y its bytes per second, or messages per second for a case that
 * moves no payload.
 */
#include <stdlib.h>

#include "doc/intervals_json.h"
#include "ivals_chart.h"
#include "svg.h"
#include "svg_draw.h"

#define IVAL_SERIES 6

static char *fmt_s(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.3g s", v);
	return buf;
}

/* Chart geometry, px: the plot inside margins for the axes' labels. */
#define W 660
#define H 260
#define L 90
#define R 20
#define T 30
#define B 40

/*
 * Linear axes from 0, since time runs evenly and a dip in throughput
 * should look as deep as it is; one polyline per run.
 */
static void draw(FILE *out, const char *title, const struct svg_series *s,
		 size_t ns, bool bytes)
{
	double xmax = 0, ymax = 0, px, py;
	char buf[32] = "";
	size_t k, i;

	for (k = 0; k < ns; k++)
		for (i = 0; i < s[k].n; i++) {
			xmax = s[k].x[i] > xmax ? s[k].x[i] : xmax;
			ymax = s[k].y[i] > ymax ? s[k].y[i] : ymax;
		}
	if (!(xmax > 0) || !(ymax > 0))
		return;
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart "
		"series\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\" font-family=\"sans-serif\" font-size=\"12\">"
		"<title>",
		W, H, W, H);
	svg_escape(out, title);
	fprintf(out,
		"</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
		"\n<text x=\"8\" y=\"16\" font-weight=\"bold\">",
		W, H);
	svg_escape(out, title);
	fputs("</text>\n", out);
	for (i = 0; i <= 4; i++) {
		py = H - B - (double)i / 4 * (H - T - B);
		(bytes ? ipc_fmt_bps : ipc_fmt_rate)(ymax * (double)i / 4, buf,
						     sizeof(buf));
		fprintf(out,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>\n",
			L, py, W - R, py, L - 6, py + 4, buf);
		px = L + (double)i / 4 * (W - L - R);
		fmt_s(xmax * (double)i / 4, buf, sizeof(buf));
		fprintf(out,
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s"
			"</text>\n",
			px, H - B + 16, buf);
	}
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time in the "
		"run</text>\n",
		(L + W - R) / 2, H - 6);
	for (k = 0; k < ns; k++) {
		fprintf(out,
			"<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.5\" points=\"",
			svg_color(k));
		for (i = 0; i < s[k].n; i++)
			fprintf(out, "%.1f,%.1f ",
				L + s[k].x[i] / xmax * (W - L - R),
				H - B - s[k].y[i] / ymax * (H - T - B));
		fputs("\"><title>", out);
		svg_escape(out, s[k].name);
		fprintf(out,
			"</title></polyline>\n<text x=\"%d\" y=\"%d\" "
			"fill=\"%s\">",
			W - R - 60, T + 14 * (int)k, svg_color(k));
		svg_escape(out, s[k].name);
		fputs("</text>\n", out);
	}
	fputs("</svg>", out);
}

static void one_case(FILE *out, const struct ipc_result *res)
{
	struct svg_series s[IVAL_SERIES];
	char names[IVAL_SERIES][24], what[128], title[192];
	double *x = calloc(res->nivals, sizeof(*x));
	double *y = calloc(res->nivals, sizeof(*y));
	bool bytes = ival_in_bytes(res);
	size_t i, ns = 0;

	if (!x || !y)
		goto out;
	for (i = 0; i < res->nivals; i++) {
		const struct ipc_interval *iv = &res->ivals[i];

		if (!ns || iv->run != res->ivals[i - 1].run) {
			if (ns == IVAL_SERIES)
				break;
			snprintf(names[ns], sizeof(names[ns]), "run %u",
				 iv->run + 1);
			s[ns] = (struct svg_series){names[ns], x + i, y + i, 0,
						    NULL};
			ns++;
		}
		x[i] = (double)iv->end_ns / 1e9;
		y[i] = ival_rate(iv, bytes);
		s[ns - 1].n++;
	}
	snprintf(title, sizeof(title), "%s: %s per interval",
		 ipc_case_describe(&res->cs, what, sizeof(what)),
		 bytes ? "throughput" : "messages/s");
	fputs("<figure>", out);
	draw(out, title, s, ns, bytes);
	fputs("</figure>\n", out);
out:
	free(x);
	free(y);
}

void ivals_charts(FILE *out, const struct trow *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i]->res.nivals)
			one_case(out, &rows[i]->res);
}

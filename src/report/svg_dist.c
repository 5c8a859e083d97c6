/* SPDX-License-Identifier: MIT */
/*
 * Charts of one case's distribution: the percentile spectrum of its
 * samples, and the strip of its per-run values with the estimate and the
 * interval the stopping rule judged.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "svg_draw.h"

int svg_spectrum(FILE *out, const struct svg_frame *fr,
		 const struct svg_series *s, size_t ns)
{
	enum svg_axis_kind ykind;
	double lo = 0, hi = 0, qmax = 0, t, d0, d1, right;
	struct plot p;
	size_t i, k;

	if (!out || !fr || (!s && ns))
		return -EINVAL;
	if (!svg_series_yrange(s, ns, &lo, &hi))
		return -ENODATA;
	for (k = 0; k < ns; k++)
		for (i = 0; i < s[k].n; i++) {
			t = svg_transform(SVG_QUANTILE, s[k].x[i]);
			if (isfinite(t) && t > qmax)
				qmax = t;
		}
	ykind = svg_wide(lo, hi, 30) ? SVG_LOG10 : SVG_LINEAR;
	right = plot_legend_px(s, ns);
	plot_open(&p, out, fr, "spectrum", (int)(96 + 392 + right), 300, 96,
		  right, 30, 44);
	/* At least to 99%, and on to the decade that holds the last point. */
	plot_xscale(&p, SVG_QUANTILE, 0, fmax(2, ceil(qmax - 1e-9)));
	svg_domain(ykind, lo, hi, true, &d0, &d1);
	plot_yscale(&p, ykind, d0, d1);
	plot_xaxis(&p);
	plot_yaxis(&p);
	for (k = 0; k < ns; k++)
		plot_series(&p, &s[k], k);
	if (ns > 1)
		plot_legend(&p, p.x1 + 12, p.y0 + 10, s, ns);
	plot_close(&p);
	return 0;
}

/* The value range of every row's values, estimate and interval. */
static bool strip_range(const struct svg_strip_row *rows, size_t nrows,
			double *lo, double *hi)
{
	double extra[3];
	bool any = false;
	double a, b;
	size_t r;

	for (r = 0; r < nrows; r++) {
		extra[0] = rows[r].estimate;
		extra[1] = rows[r].lo;
		extra[2] = rows[r].hi;
		if (rows[r].v && svg_range(rows[r].v, rows[r].n, &a, &b)) {
			if (!any || a < *lo)
				*lo = a;
			if (!any || b > *hi)
				*hi = b;
			any = true;
		}
		if (any && svg_range(extra, 3, &a, &b)) {
			*lo = fmin(*lo, a);
			*hi = fmax(*hi, b);
		}
	}
	return any;
}

/* Vertical offset of run @i in its row: spread evenly, never random. */
static double jitter(size_t i)
{
	double f = fmod((double)i * 0.6180339887, 1.0);

	return (f - 0.5) * 14;
}

static void strip_row(struct plot *p, const struct svg_strip_row *row,
		      double yc)
{
	char tip[160], a[64], b[64];
	const char *fill;
	double x, x2;
	size_t i;

	if (isfinite(row->lo) && isfinite(row->hi) &&
	    isfinite(svg_transform(p->xs.kind, row->lo))) {
		x = plot_x(p, row->lo);
		x2 = plot_x(p, row->hi);
		fprintf(p->out,
			"<rect class=\"interval\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"22\" fill=\"#0072b2\" "
			"fill-opacity=\"0.15\">",
			x, yc - 11, fmax(x2 - x, 1));
		snprintf(tip, sizeof(tip), "interval %s to %s",
			 plot_fmt(p->fr->fmt_x, row->lo, a, sizeof(a)),
			 plot_fmt(p->fr->fmt_x, row->hi, b, sizeof(b)));
		plot_tip(p, tip);
		fputs("</rect>\n", p->out);
	}
	if (isfinite(row->estimate) &&
	    isfinite(svg_transform(p->xs.kind, row->estimate))) {
		x = plot_x(p, row->estimate);
		fprintf(p->out,
			"<line class=\"estimate\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
			"stroke-width=\"2\">",
			x, yc - 12, x, yc + 12);
		snprintf(tip, sizeof(tip), "estimate %s",
			 plot_fmt(p->fr->fmt_x, row->estimate, a, sizeof(a)));
		plot_tip(p, tip);
		fputs("</line>\n", p->out);
	}
	for (i = 0; i < row->n; i++) {
		if (!isfinite(row->v[i]) ||
		    !isfinite(svg_transform(p->xs.kind, row->v[i])))
			continue;
		/* Two groups in two colours; an outlier as a red ring. */
		fill = isfinite(row->cut) && row->v[i] > row->cut ? "#e69f00"
								  : "#0072b2";
		if (row->far && row->far[i])
			fprintf(p->out,
				"<circle class=\"mark outlier\" cx=\"%.1f\" "
				"cy=\"%.1f\" r=\"4\" fill=\"none\" "
				"stroke=\"#d55e00\" stroke-width=\"2\">",
				plot_x(p, row->v[i]), yc + jitter(i));
		else
			fprintf(p->out,
				"<circle class=\"mark\" cx=\"%.1f\" "
				"cy=\"%.1f\" "
				"r=\"3.5\" fill=\"%s\" fill-opacity=\"0.8\">",
				plot_x(p, row->v[i]), yc + jitter(i), fill);
		snprintf(tip, sizeof(tip), "run %zu: %s%s", i + 1,
			 plot_fmt(p->fr->fmt_x, row->v[i], a, sizeof(a)),
			 row->far && row->far[i] ? " (outlier)" : "");
		plot_tip(p, tip);
		fputs("</circle>\n", p->out);
	}
}

int svg_strip(FILE *out, const struct svg_frame *fr,
	      const struct svg_strip_row *rows, size_t nrows)
{
	double lo = 0, hi = 0, d0, d1, left = 0, yc;
	enum svg_axis_kind kind;
	struct plot p;
	size_t r;

	if (!out || !fr || (!rows && nrows))
		return -EINVAL;
	if (!strip_range(rows, nrows, &lo, &hi))
		return -ENODATA;
	for (r = 0; r < nrows; r++)
		left = fmax(left, svg_text_px(rows[r].label));
	left = fmin(left, 240) + 16;
	kind = svg_wide(lo, hi, 10) ? SVG_LOG10 : SVG_LINEAR;
	plot_open(&p, out, fr, "strip", (int)left + 420,
		  30 + 28 * (int)nrows + 44, left, 20, 30, 44);
	/* The axis is zoomed on the values: the spread is what is shown. */
	svg_domain(kind, lo, hi, false, &d0, &d1);
	plot_xscale(&p, kind, d0, d1);
	plot_xaxis(&p);
	for (r = 0; r < nrows; r++) {
		yc = p.y0 + 14 + 28 * (double)r;
		plot_text_fit(&p, p.x0 - 8, yc + 4, "end", rows[r].label,
			      left - 16);
		strip_row(&p, &rows[r], yc);
	}
	plot_close(&p);
	return 0;
}

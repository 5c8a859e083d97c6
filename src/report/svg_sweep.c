/* SPDX-License-Identifier: MIT */
/*
 * Charts of a size sweep: values against size as lines (the FreeBSD FIFO
 * table, one line per count) and a request x response matrix as a heat map
 * (the LLDB packet table).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "svg_draw.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The distinct finite x values of every series, sorted, in a new array
 * (*n of them); NULL when out of memory or when there are none.
 */
static double *distinct_x(const struct svg_series *s, size_t ns, size_t *n)
{
	size_t total = 0, k, i, m = 0;
	double *x;

	for (k = 0; k < ns; k++)
		total += s[k].n;
	x = total ? malloc(total * sizeof(*x)) : NULL;
	if (!x)
		return NULL;
	for (k = 0; k < ns; k++)
		for (i = 0; i < s[k].n; i++)
			if (isfinite(s[k].x[i]) && s[k].x[i] >= 0)
				x[m++] = s[k].x[i];
	qsort(x, m, sizeof(*x), cmp_double);
	for (i = 0, total = 0; i < m; i++)
		if (!total || x[i] != x[total - 1])
			x[total++] = x[i];
	*n = total;
	if (!total) {
		free(x);
		return NULL;
	}
	return x;
}

int svg_lines(FILE *out, const struct svg_frame *fr, const struct svg_series *s,
	      size_t ns)
{
	double lo = 0, hi = 0, d0, d1, xlo, xhi, right, *xs;
	enum svg_axis_kind ykind;
	struct plot p;
	size_t nx, k;

	if (!out || !fr || (!s && ns))
		return -EINVAL;
	if (!svg_series_yrange(s, ns, &lo, &hi))
		return -ENODATA;
	xs = distinct_x(s, ns, &nx);
	if (!xs)
		return nx ? -ENOMEM : -ENODATA;
	ykind = svg_wide(lo, hi, 30) ? SVG_LOG10 : SVG_LINEAR;
	right = plot_legend_px(s, ns);
	plot_open(&p, out, fr, "lines", (int)(96 + 472 + right), 320, 96, right,
		  30, 44);
	/*
	 * Sizes double from one to the next: a log2 axis spaces them evenly.
	 * 0 has no logarithm; it is drawn one step left of the smallest
	 * positive size (or at 1 B when it is alone).
	 */
	xlo = xs[0] > 0 ? xs[0] : nx > 1 ? xs[1] : 1;
	xhi = xs[nx - 1] > 0 ? xs[nx - 1] : 1;
	svg_domain(SVG_LOG2, xs[0] > 0 ? xlo : xlo / 2, xhi, false, &d0, &d1);
	plot_xscale(&p, SVG_LOG2, d0, d1);
	if (xs[0] == 0)
		p.zero_x = svg_scale_at(&p.xs, xlo / 2);
	svg_domain(ykind, lo, hi, true, &d0, &d1);
	plot_yscale(&p, ykind, d0, d1);
	plot_xticks(&p, xs, nx);
	plot_yaxis(&p);
	for (k = 0; k < ns; k++)
		plot_series(&p, &s[k], k);
	if (ns > 1)
		plot_legend(&p, p.x1 + 12, p.y0 + 10, s, ns);
	plot_close(&p);
	free(xs);
	return 0;
}

/*
 * Viridis (perceptually even, readable in greyscale) as five stops,
 * interpolated: @t in [0, 1] to "#rrggbb" in @buf.  *dark says whether
 * white text reads better on it.
 */
static const char *heat_color(double t, char *buf, size_t len, bool *dark)
{
	static const unsigned char stop[5][3] = {{0x44, 0x01, 0x54},
						 {0x3b, 0x52, 0x8b},
						 {0x21, 0x91, 0x8c},
						 {0x5e, 0xc9, 0x62},
						 {0xfd, 0xe7, 0x25}};
	double f, c[3];
	size_t i, j;

	t = t < 0 ? 0 : t > 1 ? 1 : t;
	i = t >= 1 ? 3 : (size_t)(t * 4);
	f = t * 4 - (double)i;
	for (j = 0; j < 3; j++)
		c[j] = stop[i][j] + (stop[i + 1][j] - stop[i][j]) * f;
	*dark = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 140;
	snprintf(buf, len, "#%02x%02x%02x", (unsigned)lround(c[0]),
		 (unsigned)lround(c[1]), (unsigned)lround(c[2]));
	return buf;
}

/* Where @v lies between @lo and @hi, on a log scale when both are > 0. */
static double heat_t(double v, double lo, double hi)
{
	if (hi <= lo)
		return 0.5;
	if (lo > 0)
		return (log(v) - log(lo)) / (log(hi) - log(lo));
	return (v - lo) / (hi - lo);
}

static void heat_cell(struct plot *p, const struct svg_heat *h, size_t r,
		      size_t c, double x, double y, double cw, double ch,
		      double lo, double hi)
{
	char col[8], val[64], tip[256];
	double v = h->v[r * h->ncols + c];
	bool dark;

	if (!isfinite(v)) {
		fprintf(p->out,
			"<rect class=\"missing\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"#eee\" "
			"stroke=\"#fff\">",
			x, y, cw, ch);
		snprintf(tip, sizeof(tip), "%s %s, %s %s: not measured",
			 p->fr->ylabel ? p->fr->ylabel : "row", h->rows[r],
			 p->fr->xlabel ? p->fr->xlabel : "column", h->cols[c]);
		plot_tip(p, tip);
		fputs("</rect>\n", p->out);
		plot_text(p, x + cw / 2, y + ch / 2 + 4, "middle", NULL,
			  "\xe2\x80\x94");
		return;
	}
	heat_color(heat_t(v, lo, hi), col, sizeof(col), &dark);
	plot_fmt(p->fr->fmt_y, v, val, sizeof(val));
	fprintf(p->out,
		"<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\" stroke=\"#fff\">",
		x, y, cw, ch, col);
	snprintf(tip, sizeof(tip), "%s %s, %s %s: %s",
		 p->fr->ylabel ? p->fr->ylabel : "row", h->rows[r],
		 p->fr->xlabel ? p->fr->xlabel : "column", h->cols[c], val);
	plot_tip(p, tip);
	fputs("</rect>\n", p->out);
	plot_text(p, x + cw / 2, y + ch / 2 + 4, "middle",
		  dark ? "font-size=\"11\" style=\"fill:#fff\""
		       : "font-size=\"11\" style=\"fill:#000\"",
		  val);
}

/* The colour scale: 24 steps from the smallest value up to the largest. */
static void heat_legend(struct plot *p, double x, double y0, double y1,
			double lo, double hi)
{
	char col[8], lab[64];
	double step = (y1 - y0) / 24, t;
	bool dark;
	int i;

	for (i = 0; i < 24; i++) {
		t = 1 - (i + 0.5) / 24;
		fprintf(p->out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" "
			"height=\"%.1f\" fill=\"%s\"/>\n",
			x, y0 + step * i, step + 0.5,
			heat_color(t, col, sizeof(col), &dark));
	}
	plot_text(p, x + 18, y0 + 10, "start", NULL,
		  plot_fmt(p->fr->fmt_y, hi, lab, sizeof(lab)));
	plot_text(p, x + 18, y1, "start", NULL,
		  plot_fmt(p->fr->fmt_y, lo, lab, sizeof(lab)));
}

int svg_heatmap(FILE *out, const struct svg_frame *fr, const struct svg_heat *h)
{
	double lo = 0, hi = 0, left = 0, cw = 60, ch = 26, x, y;
	char attrs[96];
	struct plot p;
	size_t r, c;

	if (!out || !fr || !h || !h->v || !h->rows || !h->cols)
		return -EINVAL;
	if (!h->nrows || !h->ncols ||
	    !svg_range(h->v, h->nrows * h->ncols, &lo, &hi))
		return -ENODATA;
	for (r = 0; r < h->nrows; r++)
		left = fmax(left, svg_text_px(h->rows[r]));
	left = fmin(left, 120) + 40;
	plot_open(&p, out, fr, "heatmap", (int)(left + cw * h->ncols + 110),
		  (int)(30 + ch * h->nrows + 48), left, 110, 30, 48);
	for (r = 0; r < h->nrows; r++) {
		y = p.y0 + ch * (double)r;
		plot_text(&p, p.x0 - 6, y + ch / 2 + 4, "end", NULL,
			  h->rows[r]);
		for (c = 0; c < h->ncols; c++)
			heat_cell(&p, h, r, c, p.x0 + cw * (double)c, y, cw, ch,
				  lo, hi);
	}
	for (c = 0; c < h->ncols; c++) {
		x = p.x0 + cw * ((double)c + 0.5);
		plot_text(&p, x, p.y1 + 16, "middle", NULL, h->cols[c]);
	}
	if (fr->xlabel)
		plot_text(&p, p.x0 + cw * (double)h->ncols / 2, p.y1 + 36,
			  "middle", NULL, fr->xlabel);
	if (fr->ylabel) {
		snprintf(attrs, sizeof(attrs),
			 "transform=\"rotate(-90 14 %.1f)\"",
			 (p.y0 + p.y1) / 2);
		plot_text(&p, 14, (p.y0 + p.y1) / 2, "middle", attrs,
			  fr->ylabel);
	}
	heat_legend(&p, p.x0 + cw * (double)h->ncols + 16, p.y0,
		    fmin(p.y1, p.y0 + 240), lo, hi);
	plot_close(&p);
	return 0;
}

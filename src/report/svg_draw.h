/* SPDX-License-Identifier: MIT */
/*
 * What the chart files share: a plot (the SVG element, its plot area and
 * scales), axes with ticks and grid lines, a legend, text that is always
 * escaped, and the colours.  Private to the SVG charts.
 */
#ifndef IPCPERF_REPORT_SVG_DRAW_H
#define IPCPERF_REPORT_SVG_DRAW_H

#include "svg.h"

/* Text is drawn at 12 px; a character is about 0.6 of that wide. */
#define SVG_FONT_PX 12
#define SVG_CHAR_PX 7.2

/* One chart being written. */
struct plot {
	FILE *out;
	const struct svg_frame *fr;
	int w, h;	       /* the whole chart, px */
	double x0, x1, y0, y1; /* plot area: left, right, top, bottom */
	struct svg_scale xs, ys;
	double zero_x; /* log x axes: where 0 is drawn, NaN: nowhere */
};

/*
 * Start chart @kind ("spectrum", "strip", ...) of @w x @h px with the
 * plot area inset by the margins @left, @right, @top and @bottom; writes
 * the <svg> element, its <title> and the title line.
 */
void plot_open(struct plot *p, FILE *out, const struct svg_frame *fr,
	       const char *kind, int w, int h, double left, double right,
	       double top, double bottom);
void plot_close(struct plot *p);

/* Scales of the plot area: x across, y upwards; domain already transformed. */
void plot_xscale(struct plot *p, enum svg_axis_kind kind, double d0, double d1);
void plot_yscale(struct plot *p, enum svg_axis_kind kind, double d0, double d1);

/* Ticks, labels and grid lines of each axis, with the frame's axis name. */
void plot_xaxis(struct plot *p);
void plot_yaxis(struct plot *p);

/* The x axis with ticks at the @n values @t (sizes of a sweep). */
void plot_xticks(struct plot *p, const double *t, size_t n);

/* Where x value @v lands in px (0 at zero_x on a log axis). */
double plot_x(const struct plot *p, double v);

/* Room on the right for a legend of @n series (a margin when n < 2). */
double plot_legend_px(const struct svg_series *s, size_t n);

/*
 * Series @k (the k-th colour) as a line through its points and a dot per
 * point, with a tooltip "name, p99: 12.6 µs"; points without a place on
 * the axes are left out (the line breaks there).
 */
void plot_series(struct plot *p, const struct svg_series *s, size_t k);

/* The y range of every series' finite values; false when none. */
bool svg_series_yrange(const struct svg_series *s, size_t ns, double *lo,
		       double *hi);

/* A legend of @n series names, in a column from (@x, @y). */
void plot_legend(struct plot *p, double x, double y, const struct svg_series *s,
		 size_t n);

/*
 * <text> at (@x, @y) with anchor "start", "middle" or "end", extra
 * attributes @attrs (trusted, may be NULL) and the escaped string @s.
 */
void plot_text(struct plot *p, double x, double y, const char *anchor,
	       const char *attrs, const char *s);

/* plot_text cut to @max_px with an ellipsis, the whole of @s as tooltip. */
void plot_text_fit(struct plot *p, double x, double y, const char *anchor,
		   const char *s, double max_px);

/* <title>@s</title>, escaped: the tooltip of the element it is in. */
void plot_tip(struct plot *p, const char *s);

/* @v formatted by @fmt, or as a plain number when @fmt is NULL. */
char *plot_fmt(svg_fmt_fn *fmt, double v, char *buf, size_t len);

/* Colour (and dash pattern, "" for solid) of series @i. */
const char *svg_color(size_t i);
const char *svg_dash(size_t i);

/* Width in px of @s at the chart font, by its characters (UTF-8). */
double svg_text_px(const char *s);

/* The domain [*lo, *hi] of the finite values, false when there is none. */
bool svg_range(const double *v, size_t n, double *lo, double *hi);

/* True when the positive range [lo, hi] spans more than @ratio times. */
bool svg_wide(double lo, double hi, double ratio);

/*
 * A padded domain for values in [lo, hi] on an axis of @kind: linear from
 * 0 (when @zero) or around the values; log with a margin either side.
 * Writes the transformed domain into *d0 and *d1.
 */
void svg_domain(enum svg_axis_kind kind, double lo, double hi, bool zero,
		double *d0, double *d1);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Charts as inline SVG, drawn from plain arrays of numbers and strings (no
 * result records), for the HTML report.  Every string from the input is
 * escaped; every chart is one <svg class="chart KIND"> element whose data
 * marks carry class "mark", so that a test can count them.
 */
#ifndef IPCPERF_REPORT_SVG_H
#define IPCPERF_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ipcperf/stats.h"

/*
 * Writes @v in its unit ("4.91 µs", "812 MiB/s") into @buf and returns
 * @buf.  Axis ticks and tooltips of a chart are written through one.
 */
typedef char *svg_fmt_fn(double v, char *buf, size_t len);

/* What every chart has: a title, axis names and the units of its axes. */
struct svg_frame {
	const char *title;  /* drawn above the plot, and its <title> */
	const char *xlabel; /* name of the x axis ("percentile", "size") */
	const char *ylabel; /* name of the y axis ("latency") */
	svg_fmt_fn *fmt_x;  /* NULL: plain numbers */
	svg_fmt_fn *fmt_y;
	int width, height; /* in px; 0: the chart's default */
	bool bin_x, bin_y; /* values in bytes: ticks at 1, 2 or 5 times a
			      power of 1024, or at powers of two on a log
			      axis ("256 MiB/s", not "238 MiB/s") */
};

/* One line of a multi-line chart: @n points (x[i], y[i]); NaN y: a gap. */
struct svg_series {
	const char *name; /* in the legend and tooltips */
	const double *x;
	const double *y;
	size_t n;
	const char *const *tips; /* each point's name in its tooltip ("p99",
				    "max"); NULL: its x value */
};

/*
 * The percentile spectrum, as HdrHistogram plots it: each series' points
 * are (quantile in [0, 1), value); x is drawn on a log 1/(1-p) axis so
 * that 90%, 99% and 99.9% are equally far apart.  A quantile of 1 (the
 * maximum) has no place on that axis: give the maximum at 1 - 1/samples.
 * y is linear from 0, or logarithmic when the values span more than 30x.
 * Returns 0, -ENODATA when no point can be drawn (nothing is written), or
 * -EINVAL.
 */
int svg_spectrum(FILE *out, const struct svg_frame *fr,
		 const struct svg_series *s, size_t ns);

/*
 * One row of a strip chart: a case's per-run values with the estimate and
 * its interval.  NaN for what is unknown (no interval, no cut).
 */
struct svg_strip_row {
	const char *label;
	const double *v; /* the per-run values, in run order */
	size_t n;
	double estimate; /* drawn as a vertical bar */
	double lo, hi;	 /* the interval, drawn as a band */
	double cut;	 /* bimodal: values <= cut form the lower group */
	const bool *far; /* outliers (may be NULL) */
};

/*
 * Per-run values as dots along a value axis, one row per case, so that two
 * groups of runs or a lone outlier show at a glance.  The axis spans the
 * values, estimates and intervals (log when they span more than 10x).
 * Returns 0, -ENODATA or -EINVAL.
 */
int svg_strip(FILE *out, const struct svg_frame *fr,
	      const struct svg_strip_row *rows, size_t nrows);

/*
 * Values against size: x on a log2 axis (a size of 0 sits one step left of
 * the smallest size, marked as such), one line per series (one per count in
 * the FreeBSD table), y log when it spans more than 30x.  Returns 0,
 * -ENODATA or -EINVAL.
 */
int svg_lines(FILE *out, const struct svg_frame *fr, const struct svg_series *s,
	      size_t ns);

/*
 * A matrix of values: cell (r, c) is v[r * ncols + c] (NaN: not measured or
 * failed, drawn grey), colour on a log scale between the smallest and the
 * largest, each cell labelled with its value; rows are ylabel (request
 * size), columns xlabel (response size).  Returns 0, -ENODATA or -EINVAL.
 */
struct svg_heat {
	const char *const *rows; /* nrows labels */
	const char *const *cols; /* ncols labels */
	size_t nrows, ncols;
	const double *v;
};

int svg_heatmap(FILE *out, const struct svg_frame *fr,
		const struct svg_heat *h);

/*
 * Grouped bars on a log y axis: group g (a trace) has one bar per series
 * s (a link), value v[g * nseries + s], with an optional interval lo/hi
 * (NULL, or NaN per bar: none).  NaN value: no bar (not measured).
 * Returns 0, -ENODATA or -EINVAL.
 */
struct svg_bars {
	const char *const *groups;
	size_t ngroups;
	const char *const *series;
	size_t nseries;
	const double *v;
	const double *lo, *hi;
};

int svg_bars(FILE *out, const struct svg_frame *fr, const struct svg_bars *b);

/*
 * Stacked bars, one per row: the row's @nparts values end to end (a part
 * that is not positive is left out: a negative residue shows as the gap
 * to the whole), coloured by part with a legend, and @whole, what they
 * should add up to, marked across the bar (NaN: none).  The axis is
 * linear from 0.  Returns 0, -ENODATA, -ENOMEM or -EINVAL.
 */
struct svg_stack_row {
	const char *label;
	const double *v; /* nparts values */
	double whole;
};

struct svg_stack {
	const char *const *parts; /* the parts' names */
	size_t nparts;
	const struct svg_stack_row *rows;
	size_t nrows;
};

int svg_stack(FILE *out, const struct svg_frame *fr, const struct svg_stack *s);

/* One row of a forest plot: a ratio B/A with its interval (NaN: none). */
struct svg_forest_row {
	const char *label;
	double ratio, lo, hi;
	enum ipc_verdict verdict; /* as compare judged it */
	const char *note; /* the verdict in words, shown beside the row */
};

/*
 * Ratios on a log axis centred on 1, each with its interval and coloured
 * by its verdict; @threshold_pct > 0 shades the band of changes too small
 * to count.  Returns 0, -ENODATA or -EINVAL.
 */
int svg_forest(FILE *out, const struct svg_frame *fr,
	       const struct svg_forest_row *rows, size_t nrows,
	       double threshold_pct);

/*
 * Write @s escaped for HTML and XML text and attribute values: & < > " '
 * as entities, control characters and bytes that are not UTF-8 as U+FFFD.
 * NULL writes nothing.
 */
void svg_escape(FILE *out, const char *s);

/* The stylesheet rules the charts expect of the page around them. */
extern const char svg_css[];

/*
 * Scales and ticks, exposed for tests.  A scale maps [d0, d1] (in data
 * units, already through log10 when log) onto [r0, r1] in px.
 */
enum svg_axis_kind {
	SVG_LINEAR,
	SVG_LOG10,
	SVG_LOG2,
	SVG_QUANTILE, /* log10(1 / (1 - p)) */
};

struct svg_scale {
	enum svg_axis_kind kind;
	double d0, d1; /* domain, transformed */
	double r0, r1; /* range, px */
	bool binary;   /* ticks in powers of 1024 (linear) or 2 (log10) */
};

/* Where @v lands in px (a value the scale cannot take lands at r0). */
double svg_scale_at(const struct svg_scale *sc, double v);

/* @v through the scale's transform (log10, log2, quantile); NaN if none. */
double svg_transform(enum svg_axis_kind kind, double v);

/*
 * Up to @max tick values (in data units) for the domain of @sc, stored in
 * @ticks; returns how many.  Linear: 1, 2 or 5 times a power of ten (of
 * 1024 when binary); log10: decades, with 2 and 5 between them over a
 * short span (powers of two when binary); quantile: 0, 90%, 99%, ...
 */
size_t svg_ticks(const struct svg_scale *sc, double *ticks, size_t max);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Charts that set cases side by side: grouped bars (replay time per trace
 * per link) and a forest plot of compare's ratios with their intervals and
 * verdicts.
 */
#include <errno.h>
#include <math.h>

#include "svg_draw.h"

static void bar(struct plot *p, const struct svg_bars *b, size_t g, size_t s,
		double x, double bw)
{
	size_t i = g * b->nseries + s;
	char tip[320], v[64], lo[64], hi[64];
	double y, base = p->y1;
	bool iv = b->lo && b->hi && isfinite(b->lo[i]) && isfinite(b->hi[i]) &&
		  isfinite(svg_transform(p->ys.kind, b->lo[i]));

	if (!isfinite(b->v[i]) || !isfinite(svg_transform(p->ys.kind, b->v[i])))
		return;
	y = svg_scale_at(&p->ys, b->v[i]);
	plot_fmt(p->fr->fmt_y, b->v[i], v, sizeof(v));
	if (iv)
		snprintf(tip, sizeof(tip), "%s over %s: %s [%s, %s]",
			 b->groups[g], b->series[s], v,
			 plot_fmt(p->fr->fmt_y, b->lo[i], lo, sizeof(lo)),
			 plot_fmt(p->fr->fmt_y, b->hi[i], hi, sizeof(hi)));
	else
		snprintf(tip, sizeof(tip), "%s over %s: %s", b->groups[g],
			 b->series[s], v);
	fprintf(p->out,
		"<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\">",
		x, y, bw, fmax(base - y, 1), svg_color(s));
	plot_tip(p, tip);
	fputs("</rect>\n", p->out);
	if (iv)
		fprintf(p->out,
			"<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
			x + bw / 2, svg_scale_at(&p->ys, b->lo[i]), x + bw / 2,
			svg_scale_at(&p->ys, b->hi[i]));
}

int svg_bars(FILE *out, const struct svg_frame *fr, const struct svg_bars *b)
{
	/* Zeroed: one series is measured as two (a legend even for one). */
	struct svg_series legend[16] = {{.name = NULL}};
	double lo = 0, hi = 0, a, z, d0, d1, gw, bw = 16, x, right;
	size_t g, s, n;
	struct plot p;

	if (!out || !fr || !b || !b->v || !b->groups || !b->series)
		return -EINVAL;
	n = b->ngroups * b->nseries;
	if (!n || !svg_range(b->v, n, &lo, &hi))
		return -ENODATA;
	if (b->lo && svg_range(b->lo, n, &a, &z))
		lo = fmin(lo, a);
	if (b->hi && svg_range(b->hi, n, &a, &z))
		hi = fmax(hi, z);
	for (s = 0; s < b->nseries && s < 16; s++)
		legend[s] = (struct svg_series){.name = b->series[s]};
	gw = bw * (double)b->nseries + 16;
	if (gw < 90)
		gw = 90;
	/* A legend even for one link: it names what the bars are. */
	right = plot_legend_px(legend, s < 2 ? 2 : s);
	plot_open(&p, out, fr, "bars",
		  (int)(96 + gw * (double)b->ngroups + right), 300, 96, right,
		  30, 44);
	/* Times of a replay span seconds to microseconds across links. */
	if (lo > 0) {
		svg_domain(SVG_LOG10, lo, hi, false, &d0, &d1);
		plot_yscale(&p, SVG_LOG10, d0, d1);
	} else {
		svg_domain(SVG_LINEAR, lo, hi, true, &d0, &d1);
		plot_yscale(&p, SVG_LINEAR, d0, d1);
	}
	plot_yaxis(&p);
	fprintf(p.out,
		"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#444\"/>\n",
		p.x0, p.y1, p.x1, p.y1);
	bw = (gw - 16) / (double)b->nseries;
	for (g = 0; g < b->ngroups; g++) {
		x = p.x0 + gw * (double)g + 8;
		for (s = 0; s < b->nseries; s++)
			bar(&p, b, g, s, x + bw * (double)s, bw - 2);
		plot_text_fit(&p, x + (gw - 16) / 2, p.y1 + 16, "middle",
			      b->groups[g], gw - 8);
	}
	if (fr->xlabel)
		plot_text(&p, (p.x0 + p.x1) / 2, p.y1 + 34, "middle", NULL,
			  fr->xlabel);
	plot_legend(&p, p.x1 + 12, p.y0 + 10, legend,
		    b->nseries < 16 ? b->nseries : 16);
	plot_close(&p);
	return 0;
}

/* The fill of a verdict: green better, vermillion worse, grey neither. */
static const char *verdict_color(enum ipc_verdict v)
{
	switch (v) {
	case IPC_VERDICT_FASTER:
		return "#009e73";
	case IPC_VERDICT_SLOWER:
		return "#d55e00";
	case IPC_VERDICT_SAME:
	case IPC_VERDICT_UNDECIDED:
		break;
	}
	return "#666666";
}

static const char *verdict_class(enum ipc_verdict v)
{
	switch (v) {
	case IPC_VERDICT_FASTER:
		return "faster";
	case IPC_VERDICT_SLOWER:
		return "slower";
	case IPC_VERDICT_SAME:
		return "same";
	case IPC_VERDICT_UNDECIDED:
		break;
	}
	return "undecided";
}

static void forest_row(struct plot *p, const struct svg_forest_row *row,
		       double yc, double note_x)
{
	const char *col = verdict_color(row->verdict);
	char tip[320];
	double x;

	if (isfinite(row->lo) && isfinite(row->hi) && row->lo > 0)
		fprintf(p->out,
			"<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n",
			svg_scale_at(&p->xs, row->lo), yc,
			svg_scale_at(&p->xs, row->hi), yc, col);
	if (isfinite(row->ratio) && row->ratio > 0) {
		x = svg_scale_at(&p->xs, row->ratio);
		fprintf(p->out,
			"<rect class=\"mark %s\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"10\" height=\"10\" fill=\"%s\" "
			"stroke=\"%s\" stroke-width=\"1.5\">",
			verdict_class(row->verdict), x - 5, yc - 5,
			row->verdict == IPC_VERDICT_UNDECIDED ? "#fff" : col,
			col);
		if (isfinite(row->lo) && isfinite(row->hi))
			snprintf(tip, sizeof(tip), "%s: %.3g [%.3g, %.3g]",
				 row->label ? row->label : "", row->ratio,
				 row->lo, row->hi);
		else
			snprintf(tip, sizeof(tip), "%s: %.3g",
				 row->label ? row->label : "", row->ratio);
		plot_tip(p, tip);
		fputs("</rect>\n", p->out);
	}
	if (row->note)
		plot_text(p, note_x, yc + 4, "start", NULL, row->note);
}

/*
 * Ratios people read: 1 and the usual steps either side of it, each at
 * least 50 px from the last (a log axis around 1 rarely holds two of 1, 2
 * and 5).
 */
static const double nice_ratio[] = {0.01, 0.02, 0.05, 0.1,  0.2, 0.5,  0.67,
				    0.8,  0.9,	0.95, 1.05, 1.1, 1.25, 1.5,
				    2,	  5,	10,   20,   50,	 100};
#define NRATIO (sizeof(nice_ratio) / sizeof(nice_ratio[0]))

static void forest_ticks(struct plot *p)
{
	double below[NRATIO], t[NRATIO + 1], x, one, last;
	size_t i, n = 0, nb = 0;

	one = svg_scale_at(&p->xs, 1);
	last = one;
	for (i = NRATIO; i-- > 0;) {
		if (nice_ratio[i] > 1 || log10(nice_ratio[i]) < p->xs.d0)
			continue;
		x = svg_scale_at(&p->xs, nice_ratio[i]);
		if (last - x >= 50) {
			below[nb++] = nice_ratio[i];
			last = x;
		}
	}
	while (nb)
		t[n++] = below[--nb];
	t[n++] = 1;
	last = one;
	for (i = 0; i < NRATIO; i++) {
		if (nice_ratio[i] < 1 || log10(nice_ratio[i]) > p->xs.d1)
			continue;
		x = svg_scale_at(&p->xs, nice_ratio[i]);
		if (x - last >= 50) {
			t[n++] = nice_ratio[i];
			last = x;
		}
	}
	plot_xticks(p, t, n);
}

int svg_forest(FILE *out, const struct svg_frame *fr,
	       const struct svg_forest_row *rows, size_t nrows,
	       double threshold_pct)
{
	double m = log10(1.05), left = 0, right = 0, yc, t, a, b;
	struct plot p;
	size_t r, drawn = 0;

	if (!out || !fr || (!rows && nrows))
		return -EINVAL;
	for (r = 0; r < nrows; r++) {
		double v[3] = {rows[r].ratio, rows[r].lo, rows[r].hi};

		for (size_t i = 0; i < 3; i++)
			if (isfinite(v[i]) && v[i] > 0)
				m = fmax(m, fabs(log10(v[i])));
		drawn += isfinite(rows[r].ratio) && rows[r].ratio > 0;
		left = fmax(left, svg_text_px(rows[r].label));
		right = fmax(right, svg_text_px(rows[r].note));
	}
	if (!drawn)
		return -ENODATA;
	left = fmin(left, 260) + 16;
	right = fmin(right, 320) + 24;
	plot_open(&p, out, fr, "forest", (int)(left + 360 + right),
		  30 + 26 * (int)nrows + 44, left, right, 30, 44);
	/* Symmetric in log: 0.5 and 2 equally far from 1. */
	plot_xscale(&p, SVG_LOG10, -m * 1.1, m * 1.1);
	if (threshold_pct > 0) {
		a = svg_scale_at(&p.xs, 1 / (1 + threshold_pct / 100));
		b = svg_scale_at(&p.xs, 1 + threshold_pct / 100);
		fprintf(p.out,
			"<rect class=\"threshold\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"#000\" "
			"fill-opacity=\"0.06\"/>\n",
			fmax(a, p.x0), p.y0, fmin(b, p.x1) - fmax(a, p.x0),
			p.y1 - p.y0);
	}
	forest_ticks(&p);
	t = svg_scale_at(&p.xs, 1);
	fprintf(p.out,
		"<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#000\"/>\n",
		t, p.y0, t, p.y1);
	for (r = 0; r < nrows; r++) {
		yc = p.y0 + 13 + 26 * (double)r;
		plot_text_fit(&p, p.x0 - 8, yc + 4, "end", rows[r].label,
			      left - 16);
		forest_row(&p, &rows[r], yc, p.x1 + 12);
	}
	plot_close(&p);
	return 0;
}

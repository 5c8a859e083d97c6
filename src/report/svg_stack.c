/* SPDX-License-Identifier: MIT */
/*
 * Stacked bars: one bar per row, its parts end to end on a linear axis
 * from 0, each part in its own colour with a legend, and the whole the
 * parts should add up to marked across the bar (--explain: the phases of
 * a round trip against the measured mean).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "svg_draw.h"

/* The largest of each row's positive parts summed and its whole. */
static double stack_max(const struct svg_stack *s)
{
	double most = 0, sum;
	size_t r, k;

	for (r = 0; r < s->nrows; r++) {
		sum = 0;
		for (k = 0; k < s->nparts; k++)
			if (s->rows[r].v[k] > 0)
				sum += s->rows[r].v[k];
		most = fmax(most, sum);
		if (isfinite(s->rows[r].whole))
			most = fmax(most, s->rows[r].whole);
	}
	return most;
}

static void stack_row(struct plot *p, const struct svg_stack *s,
		      const struct svg_stack_row *row, double yc)
{
	char tip[192], a[64];
	double at = 0, v, x;
	size_t k;

	for (k = 0; k < s->nparts; k++) {
		v = row->v[k];
		if (!(v > 0))
			continue;
		x = plot_x(p, at);
		fprintf(p->out,
			"<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"18\" fill=\"%s\">",
			x, yc - 9, fmax(plot_x(p, at + v) - x, 0.5),
			svg_color(k));
		snprintf(tip, sizeof(tip), "%s: %s", s->parts[k],
			 plot_fmt(p->fr->fmt_x, v, a, sizeof(a)));
		plot_tip(p, tip);
		fputs("</rect>\n", p->out);
		at += v;
	}
	if (!isfinite(row->whole))
		return;
	x = plot_x(p, row->whole);
	fprintf(p->out,
		"<line class=\"whole\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\">",
		x, yc - 13, x, yc + 13);
	snprintf(tip, sizeof(tip), "measured %s",
		 plot_fmt(p->fr->fmt_x, row->whole, a, sizeof(a)));
	plot_tip(p, tip);
	fputs("</line>\n", p->out);
}

int svg_stack(FILE *out, const struct svg_frame *fr, const struct svg_stack *s)
{
	struct svg_series *names;
	double most, left = 0, right, d0, d1;
	struct plot p;
	size_t r, k;

	if (!out || !fr || !s || (!s->rows && s->nrows) ||
	    (!s->parts && s->nparts))
		return -EINVAL;
	most = stack_max(s);
	if (!s->nrows || !(most > 0))
		return -ENODATA;
	names = calloc(s->nparts + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (k = 0; k < s->nparts; k++)
		names[k].name = s->parts[k];
	for (r = 0; r < s->nrows; r++)
		left = fmax(left, svg_text_px(s->rows[r].label));
	left = fmin(left, 240) + 16;
	right = plot_legend_px(names, s->nparts < 2 ? 2 : s->nparts);
	plot_open(&p, out, fr, "stack", (int)(left + 420 + right),
		  30 + 28 * (int)(s->nrows > s->nparts ? s->nrows : s->nparts) +
			  44,
		  left, right, 30, 44);
	svg_domain(SVG_LINEAR, 0, most, true, &d0, &d1);
	plot_xscale(&p, SVG_LINEAR, d0, d1);
	plot_xaxis(&p);
	for (r = 0; r < s->nrows; r++) {
		double yc = p.y0 + 14 + 28 * (double)r;

		plot_text_fit(&p, p.x0 - 8, yc + 4, "end", s->rows[r].label,
			      left - 16);
		stack_row(&p, s, &s->rows[r], yc);
	}
	plot_legend(&p, p.x1 + 16, p.y0 + 12, names, s->nparts);
	plot_close(&p);
	free(names);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Figures a formatter prints that the document does not hold as such but
 * that follow from what it holds: a column's value per message, a share
 * or a change in percent, a side's CPU time, the percentiles its samples
 * can show, the largest early wake-up among results.  Worked out here so
 * that every format prints the same number and none of them computes.
 */
#ifndef IPCPERF_DOC_FIGURES_H
#define IPCPERF_DOC_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcperf/run.h"

/*
 * Column @c's figure of @res's summary; for a column per message
 * (c->per_off: stream's time per message) divided by that count of the
 * case.  NaN when not measured or when the count is 0.
 */
double ipc_col_value(const struct ipc_column *c, const struct ipc_result *res);

/* @part of @whole in percent: NaN when @whole is 0 or @part no number. */
double ipc_pct_of(double part, uint64_t whole);

/*
 * How far @v is above @ref in percent, negative below: NaN unless both
 * are numbers and @ref is above 0 (no change against nothing).
 */
double ipc_pct_over(double v, double ref);

/*
 * A drift between invocations (the spread of the log of their values)
 * as the percentage it moves a value by.
 */
double ipc_drift_pct(double drift);

/* A side's CPU time per message, user + system; NaN if not measured. */
double ipc_cost_cpu_ns(const struct ipc_cost *c);

/*
 * A side's context switches per message, voluntary and involuntary; NaN
 * if not measured.
 */
double ipc_cost_csw(const struct ipc_cost *c);

/*
 * The percentiles of a summary that its samples can tell apart from the
 * maximum (quantile q needs 1 / (1 - q) samples: p99.9 a thousand), in
 * order, with the minimum and the maximum; the maximum is placed at
 * 1 - 1/n, the quantile its one sample of n stands for.
 */
#define IPC_SPECTRUM_MAX 6
struct ipc_spectrum {
	size_t n;
	double q[IPC_SPECTRUM_MAX];	    /* where each is placed, 0 to 1 */
	double ns[IPC_SPECTRUM_MAX];	    /* its time per sample */
	const char *name[IPC_SPECTRUM_MAX]; /* "min", "p50", ..., "max" */
};

/* @sm's spectrum into @sp: sp->n, 0 with fewer than two samples. */
size_t ipc_spectrum_of(const struct ipc_run_stats *sm, struct ipc_spectrum *sp);

/*
 * Results whose side blocked more than once a round trip (a unix stream
 * reader woken before its data: diag.early_wake_vcsw), counted one by
 * one from a zeroed tally, and the most blocks a round trip among them.
 */
struct ipc_wake_tally {
	size_t cases;
	double most;
};

/* Count @r in @t when it woke early: true when it did. */
bool ipc_wake_tally_add(struct ipc_wake_tally *t, const struct ipc_result *r);

#endif

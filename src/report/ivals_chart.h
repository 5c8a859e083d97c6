/* SPDX-License-Identifier: MIT */
/*
 * The HTML page's time series of -i: for each case whose runs have
 * intervals, its throughput per interval across each run.
 */
#ifndef IPCPERF_REPORT_IVALS_CHART_H
#define IPCPERF_REPORT_IVALS_CHART_H

#include <stdio.h>

#include "table.h"

/* A chart per case of @rows that has intervals, into @out. */
void ivals_charts(FILE *out, const struct trow *const *rows, size_t n);

#endif

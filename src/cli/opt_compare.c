/* SPDX-License-Identifier: MIT */
/*
 * Options and files of `ipcperf compare A.json B.json` (or several files
 * a side, split by --): which metric, which changes are too small to
 * matter, the drift to allow for, and the regression gate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "doc/lib_internal.h"

static bool percent(const char *a, double *v)
{
	uint64_t ppm;
	bool good = !cli_units(IPC_UNIT_PCT, a, 0, 9999999, &ppm);

	*v = good ? ppm / 1e4 : *v;
	return good;
}

static int set_metric(struct cli_config *c, const char *a)
{
	if (!ipc_compare_metric_ok(a))
		return usage_error("use p50, p99, mean or throughput",
				   "--metric: unknown metric '%s'", a);
	c->cmp_metric = a;
	return 0;
}

static int set_threshold(struct cli_config *c, const char *a)
{
	if (!percent(a, &c->cmp_threshold_pct))
		return usage_error("give a percentage such as 2 or 2%",
				   "--threshold: bad value '%s'", a);
	return 0;
}

static int set_fail(struct cli_config *c, const char *a)
{
	if (!percent(a, &c->cmp_fail_pct))
		return usage_error("give a percentage such as 5 or 5%",
				   "--fail-if-slower: bad value '%s'", a);
	c->cmp_fail_set = true;
	return 0;
}

static int set_drift(struct cli_config *c, const char *a)
{
	if (!percent(a, &c->cmp_drift_pct) || c->cmp_drift_pct >= 100)
		return usage_error("give a percentage under 100 such as 10 or "
				   "10%",
				   "--drift: bad value '%s'", a);
	c->cmp_drift_set = true;
	return 0;
}

static const struct cli_opt compare_opts[] = {
	{"metric", 0, "M", CMD_COMPARE,
	 "p50, p99, mean or throughput [each pattern's: p50, stream/bulk "
	 "throughput]",
	 set_metric},
	{"threshold", 0, "PCT", CMD_COMPARE,
	 "call changes smaller than PCT% no difference [0]", set_threshold},
	{"fail-if-slower", 0, "PCT", CMD_COMPARE,
	 "exit 1 when a case of B is slower than A by PCT% or more, or "
	 "cannot be compared",
	 set_fail},
	{"drift", 0, "PCT", CMD_COMPARE,
	 "with one file a side, allow for invocations drifting by PCT% (sd); "
	 "0 trusts the runs alone [11.5]",
	 set_drift},
};

/* Formats that print comparisons have a compare hook. */
static int compare_validate(struct cli_config *c)
{
	const struct ipc_report_ops *ops;

	if (c->cmd != CMD_COMPARE)
		return 0;
	ops = ipc_report_find(c->format);
	if (ops && !ops->compare)
		return usage_error("compare writes table, json, markdown or "
				   "html",
				   "--format: %s is not available for "
				   "compare",
				   c->format);
	return 0;
}

/* Not a file name anyone types: "--" as cli_parse hands it on. */
const char cli_cmp_sep[] = "\x1f--";

int cli_compare_args(struct cli_config *c, int n, char **words)
{
	int sep = -1, i;

	for (i = 0; i < n && sep < 0; i++)
		if (!strcmp(words[i], cli_cmp_sep))
			sep = i;
	for (i = sep + 1; sep >= 0 && i < n; i++)
		if (!strcmp(words[i], cli_cmp_sep))
			return usage_error("one -- between A's files and B's",
					   "compare: -- given twice");
	if (sep < 0 && n != 2)
		return usage_error(
			"ipcperf compare A.json B.json, or several "
			"invocations a side: ipcperf compare "
			"A1.json A2.json ... -- B1.json B2.json ...",
			n < 2 ? "compare needs two result files, "
				"got %d"
			      : "compare takes two result files, "
				"got %d (put -- between A's and B's)",
			n);
	if (sep == 0 || sep == n - 1)
		return usage_error("ipcperf compare A1.json A2.json ... -- "
				   "B1.json B2.json ...",
				   "compare: no file %s --",
				   sep ? "after" : "before");
	c->cmp_files = calloc((size_t)n, sizeof(*c->cmp_files));
	if (!c->cmp_files) {
		cli_error("out of memory");
		return EXIT_MEASURE;
	}
	c->cmp_na = sep < 0 ? 1 : (size_t)sep;
	c->cmp_nb = sep < 0 ? 1 : (size_t)(n - sep - 1);
	for (i = 0; i < n; i++)
		if (i != sep)
			c->cmp_files[i - (sep >= 0 && i > sep)] = words[i];
	return 0;
}

const struct cli_optgroup cli_opts_compare = {
	.opts = compare_opts,
	.n = sizeof(compare_opts) / sizeof(compare_opts[0]),
	.validate = compare_validate,
};

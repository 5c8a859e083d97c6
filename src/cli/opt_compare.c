/*
 * Options of `ipcperf compare A.json B.json`: which metric, which changes
 * are too small to matter, and the regression gate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool percent(const char *a, double *v)
{
	char *end;

	if (!*a || *a == ' ')
		return false;
	*v = strtod(a, &end);
	if (*end == '%')
		end++;
	return *end == '\0' && end != a && isfinite(*v) && *v >= 0 && *v < 1000;
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

int cli_compare_args(struct cli_config *c, int n, char **words)
{
	if (n != 2)
		return usage_error("ipcperf compare A.json B.json (results "
				   "written with -f json)",
				   n < 2 ? "compare needs two result files, "
					   "got %d"
					 : "compare takes two result files, "
					   "got %d",
				   n);
	c->cmp_files[0] = words[0];
	c->cmp_files[1] = words[1];
	return 0;
}

const struct cli_optgroup cli_opts_compare = {
	.opts = compare_opts,
	.n = sizeof(compare_opts) / sizeof(compare_opts[0]),
	.validate = compare_validate,
};

/* SPDX-License-Identifier: MIT */
/*
 * An option's value as a number with its unit, and the one buffer that
 * says what was wrong with it: what every option table (options.c and
 * opt_*.c) parses with, in a file of its own so that the tables depend on
 * it and options.c, which lists the tables, on them.
 */
#include "cli.h"

char cli_err[256];

int cli_units(enum ipc_unit_kind kind, const char *a, uint64_t min,
	      uint64_t max, uint64_t *out)
{
	return ipc_units_parse(kind, a, min, max, out, cli_err,
			       sizeof(cli_err));
}

int cli_bad_value(const char *opt, const char *hint)
{
	return usage_error(hint, "%s: %s", opt, cli_err);
}

int cli_file_arg(const char *opt, const char *hint, const char *a,
		 const char **out)
{
	if (!*a)
		return usage_error(hint, "%s: empty file name", opt);
	*out = a;
	return 0;
}

int cli_duration(const char *opt, const char *a, uint64_t *ns)
{
	if (cli_units(IPC_UNIT_TIME, a, 1, CLI_TIME_MAX, ns))
		return cli_bad_value(opt,
				     "give a time such as 30s, 500ms or 10m");
	return 0;
}

/*
 * The report's file (-o) or standard output, opened before anything is
 * measured or read and committed whole at the end: shared by the
 * measuring commands and report.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

int cli_output_open(const struct cli_config *cfg, struct ipc_outfile *of)
{
	int err = ipc_outfile_open(of, cfg->output);

	if (err)
		return usage_error("check that the directory exists and is "
				   "writable",
				   "--output: cannot write '%s': %s",
				   cfg->output, strerror(-err));
	return EXIT_OK;
}

int cli_output_close(const struct cli_config *cfg, struct ipc_outfile *of,
		     int err)
{
	if (!err)
		err = ipc_outfile_commit(of);
	else
		ipc_outfile_abort(of);
	if (!err)
		return EXIT_OK;
	cli_error("cannot write the report%s%s: %s", cfg->output ? " to " : "",
		  cfg->output ? cfg->output : "", strerror(-err));
	return EXIT_MEASURE;
}

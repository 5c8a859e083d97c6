/* SPDX-License-Identifier: MIT */
/*
 * The report's file (-o) or standard output, opened before anything is
 * measured or read and committed whole at the end: shared by the
 * measuring commands and report.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "report/lib_internal.h"

int cli_output_open(const struct cli_config *cfg, struct ipc_outfile *of)
{
	int err = ipc_outfile_open(of, cfg->output);
	const char *hint;

	switch (err) {
	case 0:
		return EXIT_OK;
	case -EISDIR:
		hint = "give a file name, not a directory";
		break;
	case -ENOENT:
	case -ENOTDIR:
		hint = "check that the directory exists";
		break;
	case -EACCES:
		hint = "the file is write-protected or its directory is not "
		       "writable; remove the file or choose another";
		break;
	case -EPERM:
		hint = "the file belongs to another user in a sticky directory "
		       "(such as /tmp) and cannot be replaced; choose another";
		break;
	default:
		hint = "choose another file";
		break;
	}
	return usage_error(hint, "--output: cannot write '%s': %s", cfg->output,
			   strerror(-err));
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

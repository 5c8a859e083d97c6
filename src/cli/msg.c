/* Messages of the command-line program, all on stderr, all one line. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("ipcperf: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ipcperf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int usage_error(const char *hint, const char *fmt, ...)
{
	va_list ap;

	fputs("ipcperf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (hint)
		fprintf(stderr, "  hint: %s\n", hint);
	return EXIT_USAGE;
}

int cli_outfile_open(struct ipc_outfile *of, const char *path)
{
	int err = ipc_outfile_open(of, path);
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
	return usage_error(hint, "--output: cannot write '%s': %s", path,
			   strerror(-err));
}

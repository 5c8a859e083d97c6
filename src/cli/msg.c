/* SPDX-License-Identifier: MIT */
/* Messages of the command-line program, all on stderr, all one line. */
#include <stdarg.h>
#include <stdio.h>

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

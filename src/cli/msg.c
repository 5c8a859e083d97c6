/* SPDX-License-Identifier: MIT */
/*
 * Messages of the command-line program, all on stderr, each one line:
 * what they quote (option values, names from result files, a peer's
 * words) is escaped, so that no byte of it moves the cursor or breaks the
 * line.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "base/lib_internal.h"

/* Bytes of a message before and after escaping. */
#define MSG_MAX 2048

__attribute__((format(printf, 2, 0))) static void
say(const char *prefix, const char *fmt, va_list ap)
{
	char raw[MSG_MAX], safe[4 * MSG_MAX];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	ipc_text_escape(safe, sizeof(safe), raw, 0);
	fprintf(stderr, "%s%s\n", prefix, safe);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("ipcperf: warning: ", fmt, ap);
	va_end(ap);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("ipcperf: ", fmt, ap);
	va_end(ap);
	return -1;
}

int usage_error(const char *hint, const char *fmt, ...)
{
	va_list ap;
	char safe[4 * MSG_MAX];

	va_start(ap, fmt);
	say("ipcperf: ", fmt, ap);
	va_end(ap);
	if (hint) {
		ipc_text_escape(safe, sizeof(safe), hint, 0);
		fprintf(stderr, "  hint: %s\n", safe);
	}
	return EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the command line: the input is cut at NUL bytes
 * into words, which are parsed as argv (after "ipcperf") with every
 * option's converter and the groups' validation, as main() does before
 * anything runs.  A parse answers go on, usage error (2) or help printed
 * (-1), and leaves nothing allocated once the configuration is freed.
 * Words with a '/' are not tried, so that replay reads only files in the
 * directory it runs in (make runs it in the source tree's top).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define WORDS 32

static void check(bool cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/*
	 * The messages go nowhere: libFuzzer and the sanitizers keep the
	 * real stderr (they took it before this runs, or write to fd 2).
	 */
	stdout = fopen("/dev/null", "w");
	stderr = fopen("/dev/null", "w");
	if (!stdout || !stderr)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cli_config cfg;
	char *buf, *argv[WORDS + 2];
	int argc = 1, rc;

	if (size > 4096 || memchr(data, '/', size))
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "ipcperf";
	for (size_t i = 0; i < size && argc <= WORDS; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	rc = cli_parse(argc, argv, &cfg);
	check(rc == EXIT_OK || rc == EXIT_USAGE || rc == -1);
	cli_config_fini(&cfg);
	free(buf);
	return 0;
}

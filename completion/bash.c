/* SPDX-License-Identifier: MIT */
/*
 * Write ipcperf's bash completion to standard output, from the option
 * table that drives parsing and --help (src/cli/options.c): each command,
 * the options each command accepts, which of them take a value, and for
 * some values the names the library knows (transports, engines, formats)
 * or the words the metavariable spells out (N|auto: auto).
 * The build runs it; nothing is written by hand, so a new option is
 * completed once it is in the table.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* The long and short spellings of every option @cmd accepts. */
static void put_opts(const struct cli_opt *const *o, size_t n, unsigned cmd)
{
	const char *sep = "";

	for (size_t i = 0; i < n; i++) {
		if (!(o[i]->cmds & cmd))
			continue;
		printf("%s--%s", sep, o[i]->name);
		sep = " ";
		if (o[i]->key)
			printf(" -%c", o[i]->key);
	}
}

/* The case pattern of the options whose metavariable contains @word. */
static bool put_valued(const struct cli_opt *const *o, size_t n,
		       const char *word, const char *name)
{
	const char *sep = "\t";
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!o[i]->arg || (word && !strstr(o[i]->arg, word)) ||
		    (name && strcmp(o[i]->name, name)))
			continue;
		printf("%s--%s", sep, o[i]->name);
		sep = " | ";
		if (o[i]->key)
			printf(" | -%c", o[i]->key);
		any = true;
	}
	return any;
}

/*
 * Values spelt out in a metavariable such as "N|auto" or "FILE|syslog":
 * its lower-case alternatives are words to complete as they are, the
 * upper-case ones stand for what the user types (FILE: a file name).
 */
static void put_literals(const struct cli_opt *const *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *a = o[i]->arg, *p;
		bool files = false, any = false;

		if (!a || !strchr(a, '|'))
			continue;
		printf("\t--%s", o[i]->name);
		if (o[i]->key)
			printf(" | -%c", o[i]->key);
		printf(")\n\t\tCOMPREPLY=($(compgen -W \"");
		for (p = a; *p;) {
			size_t len = strcspn(p, "|");
			bool lower = true;

			for (size_t k = 0; k < len; k++)
				if (!((p[k] >= 'a' && p[k] <= 'z') ||
				      p[k] == '-'))
					lower = false;
			if (lower && len) {
				printf("%s%.*s", any ? " " : "", (int)len, p);
				any = true;
			}
			if (len == 4 && !strncmp(p, "FILE", 4))
				files = true;
			p += len + (p[len] == '|');
		}
		printf("\" -- \"$cur\")%s)\n\t\treturn ;;\n",
		       files ? " $(compgen -f -- \"$cur\")" : "");
	}
}

#define NAMES(arr)                                                             \
	do {                                                                   \
		for (size_t k = 0; (arr)[k]; k++)                              \
			printf("%s%s", k ? " " : "", (arr)[k]->name);          \
	} while (0)

int main(void)
{
	const struct cli_opt *const *o;
	size_t n = cli_options(&o);
	const char *name;
	unsigned cmd;

	printf("# SPDX-License-Identifier: MIT\n"
	       "# bash completion for ipcperf, generated from its option "
	       "table by\n"
	       "# completion/bash.c: do not edit.\n"
	       "_ipcperf()\n{\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
	       "prev=${COMP_WORDS[COMP_CWORD-1]} cmd=suite opts\n\n"
	       "\t# The command is the first word, when it is not an "
	       "option.\n"
	       "\tif [ \"$COMP_CWORD\" -gt 1 ]; then\n"
	       "\t\tcase ${COMP_WORDS[1]} in\n\t\t");
	for (size_t i = 0; (name = cli_command(i, &cmd)); i++)
		printf("%s%s", i ? " | " : "", name);
	printf(") cmd=${COMP_WORDS[1]} ;;\n\t\tesac\n\tfi\n\n");

	/* An option's value: names the library knows, files, or nothing. */
	printf("\tcase $prev in\n");
	if (put_valued(o, n, NULL, "transport")) {
		printf(")\n\t\tCOMPREPLY=($(compgen -W \"all ");
		NAMES(ipc_transports);
		printf("\" -- \"$cur\"))\n\t\treturn ;;\n");
	}
	if (put_valued(o, n, NULL, "engine")) {
		printf(")\n\t\tCOMPREPLY=($(compgen -W \"");
		NAMES(ipc_engines);
		printf("\" -- \"$cur\"))\n\t\treturn ;;\n");
	}
	if (put_valued(o, n, "FMT", NULL)) {
		printf(")\n\t\tCOMPREPLY=($(compgen -W \"");
		NAMES(ipc_reports);
		printf("\" -- \"$cur\"))\n\t\treturn ;;\n");
	}
	put_literals(o, n);
	if (put_valued(o, n, "FILE", NULL))
		printf(")\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		       "\t\treturn ;;\n");
	/* Any other value is the user's to type. */
	if (put_valued(o, n, NULL, NULL))
		printf(")\n\t\tCOMPREPLY=()\n\t\treturn ;;\n");
	printf("\tesac\n\n");

	printf("\tcase $cmd in\n");
	for (size_t i = 0; (name = cli_command(i, &cmd)); i++) {
		printf("\t%s) opts=\"", name);
		put_opts(o, n, cmd);
		printf("\" ;;\n");
	}
	printf("\t*) opts=\"");
	put_opts(o, n, CMD_SUITE);
	printf("\" ;;\n\tesac\n\n");

	/* After ipcperf: a command, or the suite's options. */
	printf("\tif [ \"$COMP_CWORD\" = 1 ] && [ \"${cur#-}\" = \"$cur\" ]; "
	       "then\n\t\tCOMPREPLY=($(compgen -W \"");
	for (size_t i = 0; (name = cli_command(i, &cmd)); i++)
		printf("%s%s", i ? " " : "", name);
	printf("\" -- \"$cur\"))\n"
	       "\telif [ \"${cur#-}\" != \"$cur\" ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	       "\telse\n"
	       "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\tfi\n}\n"
	       "complete -F _ipcperf ipcperf\n");
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Write ipcperf's zsh completion (an _ipcperf function for fpath) to
 * standard output, from the same option table as the bash one: each
 * command, the options each accepts with their one-line help, and what a
 * value completes to (the names the library knows, files, the words a
 * metavariable spells out, or nothing: a number is typed).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* @s inside single quotes and an _arguments description: ' [ ] : \ escaped. */
static void put_quoted(const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	}
}

#define NAMES(arr)                                                             \
	do {                                                                   \
		for (size_t k = 0; (arr)[k]; k++)                              \
			printf(" %s", (arr)[k]->name);                         \
	} while (0)

/*
 * What the value of @o completes to, as an _arguments action: the
 * library's names, the lower-case words of "N|auto" (with files when
 * FILE is one of the alternatives), files, or " " (nothing offered).
 */
static void put_action(const struct cli_opt *o)
{
	const char *a = o->arg, *p;
	bool files = false, any = false;

	if (!strcmp(o->name, "transport")) {
		fputs("(all", stdout);
		NAMES(ipc_transports);
		fputs(")", stdout);
		return;
	}
	if (!strcmp(o->name, "engine")) {
		fputs("(", stdout);
		NAMES(ipc_engines);
		fputs(")", stdout);
		return;
	}
	if (strstr(a, "FMT")) {
		fputs("(", stdout);
		NAMES(ipc_reports);
		fputs(")", stdout);
		return;
	}
	if (!strchr(a, '|')) {
		fputs(strstr(a, "FILE") ? "_files" : " ", stdout);
		return;
	}
	fputs("{compadd --", stdout);
	for (p = a; *p;) {
		size_t len = strcspn(p, "|");
		bool lower = len > 0;

		for (size_t k = 0; k < len; k++)
			if (!((p[k] >= 'a' && p[k] <= 'z') || p[k] == '-'))
				lower = false;
		if (lower) {
			printf(" %.*s", (int)len, p);
			any = true;
		}
		if (len == 4 && !strncmp(p, "FILE", 4))
			files = true;
		p += len + (p[len] == '|');
	}
	printf("%s%s}", any ? "" : " ", files ? "; _files" : "");
}

/*
 * One _arguments spec per spelling of @o: '--name=[help]:METAVAR:action'
 * (the value after = or as the next word), '-k+[help]:...' (glued or
 * next), a flag without the value part.
 */
static void put_spec(const struct cli_opt *o, bool longname)
{
	fputs("\t\t'", stdout);
	if (longname)
		printf("--%s%s", o->name, o->arg ? "=" : "");
	else
		printf("-%c%s", o->key, o->arg ? "+" : "");
	fputs("[", stdout);
	put_quoted(o->help ? o->help : "");
	fputs("]", stdout);
	if (o->arg) {
		fputs(":", stdout);
		put_quoted(o->arg);
		fputs(":", stdout);
		put_action(o);
	}
	fputs("'\n", stdout);
}

static void put_specs(const struct cli_opt *const *o, size_t n, unsigned cmd)
{
	for (size_t i = 0; i < n; i++) {
		if (!(o[i]->cmds & cmd))
			continue;
		put_spec(o[i], true);
		if (o[i]->key)
			put_spec(o[i], false);
	}
}

int main(void)
{
	const struct cli_opt *const *o;
	size_t n = cli_options(&o);
	const char *name;
	unsigned cmd;

	printf("#compdef ipcperf\n"
	       "# SPDX-License-Identifier: MIT\n"
	       "# zsh completion for ipcperf, generated from its option "
	       "table by\n"
	       "# completion/zsh.c: do not edit.\n\n"
	       "local -a cmds opts\n"
	       "local cmd=suite\n"
	       "cmds=(");
	for (size_t i = 0; (name = cli_command(i, &cmd)); i++)
		printf("%s%s", i ? " " : "", name);
	printf(")\n\n"
	       "# After ipcperf: a command, or the suite's options.\n"
	       "if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then\n"
	       "\tcompadd -a cmds\n"
	       "\treturn\n"
	       "fi\n"
	       "if (( ${cmds[(Ie)$words[2]]} )); then\n"
	       "\tcmd=$words[2]\n"
	       "\tshift words\n"
	       "\t(( CURRENT-- ))\n"
	       "fi\n\n"
	       "case $cmd in\n");
	for (size_t i = 0; (name = cli_command(i, &cmd)); i++) {
		printf("%s)\n\topts=(\n", name);
		put_specs(o, n, cmd);
		printf("\t) ;;\n");
	}
	printf("*)\n\topts=(\n");
	put_specs(o, n, CMD_SUITE);
	printf("\t) ;;\n"
	       "esac\n"
	       "# Words that are not options: files (results, traces).\n"
	       "_arguments -s -S : $opts '*:file:_files'\n");
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}

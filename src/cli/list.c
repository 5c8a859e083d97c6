/* SPDX-License-Identifier: MIT */
/* `ipcperf list`: what this build can measure on this machine, and why not. */
#include <stdio.h>

#include "cli.h"

static void caps_words(unsigned caps, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s",
		 caps & IPC_TP_STREAM ? "stream" : "messages",
		 caps & IPC_TP_LOSSY ? ", lossy" : "",
		 caps & IPC_TP_CONNECT ? ", connections" : "",
		 caps & IPC_TP_FD ? "" : ", no fd");
}

int cli_list(void)
{
	char why[192], caps[64];
	struct ipc_runopts ro;

	/* check() with the default options: what works without any. */
	ipc_runopts_default(&ro);
	printf("transports:\n");
	for (size_t i = 0; ipc_transports[i]; i++) {
		const struct ipc_transport_ops *tp = ipc_transports[i];
		bool ok = (!tp->probe || !tp->probe(why, sizeof(why))) &&
			  (!tp->check || !tp->check(&ro.tp, why, sizeof(why)));

		caps_words(tp->caps, caps, sizeof(caps));
		printf("  %-15s %-4s %-24s %s\n", tp->name, ok ? "ok" : "no",
		       caps, ok ? tp->help : why);
	}
	printf("engines:\n");
	for (size_t i = 0; ipc_engines[i]; i++) {
		const struct ipc_engine_ops *e = ipc_engines[i];
		bool ok = !e->probe || !e->probe(why, sizeof(why));

		printf("  %-15s %-4s %s\n", e->name, ok ? "ok" : "no",
		       ok ? e->help : why);
	}
	printf("patterns:\n");
	for (size_t i = 0; ipc_patterns[i]; i++)
		printf("  %-15s %s\n", ipc_patterns[i]->name,
		       ipc_patterns[i]->help);
	printf("framings (rr --framing):\n");
	for (size_t i = 0; ipc_framings[i]; i++)
		printf("  %-15s %s\n", ipc_framings[i]->name,
		       ipc_framings[i]->help);
	printf("links (--link; docs/links.md has the sources):\n");
	for (size_t i = 0; ipc_link_presets[i].name; i++)
		printf("  %-15s %s%s%s\n", ipc_link_presets[i].name,
		       ipc_link_presets[i].help,
		       ipc_link_presets[i].spec[0] ? ": " : "",
		       ipc_link_presets[i].spec);
	printf("formats:\n");
	for (size_t i = 0; ipc_reports[i]; i++)
		printf("  %-15s %s\n", ipc_reports[i]->name,
		       ipc_reports[i]->help);
	return 0;
}

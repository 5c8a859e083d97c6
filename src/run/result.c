/*
 * Result records: one per case, holding every completed run, the merged
 * histogram and the summaries that reports print.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/run.h"

struct ipc_result *ipc_result_new(const struct ipc_case *cs)
{
	struct ipc_result *res = calloc(1, sizeof(*res));

	if (!res)
		return NULL;
	res->cs = *cs;
	res->hist = ipc_hist_new();
	res->xhist = ipc_hist_new();
	if (!res->hist || !res->xhist) {
		ipc_hist_free(res->hist);
		ipc_hist_free(res->xhist);
		free(res);
		return NULL;
	}
	return res;
}

void ipc_result_free(struct ipc_result *res)
{
	if (!res)
		return;
	ipc_hist_free(res->hist);
	ipc_hist_free(res->xhist);
	free(res->runs);
	free(res);
}

/* Sizes in words the way a person types them: 64, 4k, 1M. */
static const char *size_word(uint64_t v, char *buf, size_t len)
{
	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%lluk", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* The framing and the link, when they are not the plain ones. */
static void describe_more(const struct ipc_case *cs, char *buf, size_t len)
{
	size_t n = strlen(buf);

	if (cs->framing && cs->framing->encode && n < len)
		n += (size_t)snprintf(
			buf + n, len - n, " framing=%s%s", cs->framing->name,
			cs->framing->acks && cs->framing_noack ? ",no-ack"
							       : "");
	if (cs->link && n < len)
		snprintf(buf + n, len - n, " link=%s", cs->link->name);
}

char *ipc_case_describe(const struct ipc_case *cs, char *buf, size_t len)
{
	char a[24], b[24];
	int n;

	n = snprintf(buf, len, "%s %s", cs->pat ? cs->pat->name : "?",
		     cs->tp ? cs->tp->name : "?");
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (cs->eng && strcmp(cs->eng->name, "blocking") != 0) {
		n += snprintf(buf + n, len - (size_t)n, " %s", cs->eng->name);
		if ((size_t)n >= len)
			return buf;
	}
	if (!cs->pat)
		return buf;
	if (!strcmp(cs->pat->name, "load")) {
		n += snprintf(buf + n, len - (size_t)n, " flows=%llu",
			      (unsigned long long)cs->flows);
		if (cs->threads > 1 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " threads=%u",
				      cs->threads);
		if (cs->rate && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " rate=%llu/s",
				      (unsigned long long)cs->rate);
		if ((size_t)n >= len)
			return buf;
	}
	if (!strcmp(cs->pat->name, "rr") || !strcmp(cs->pat->name, "crr") ||
	    !strcmp(cs->pat->name, "load"))
		snprintf(buf + n, len - (size_t)n, " req=%s resp=%s",
			 size_word(cs->req_size, a, sizeof(a)),
			 size_word(cs->resp_size, b, sizeof(b)));
	else if (!strcmp(cs->pat->name, "stream"))
		snprintf(buf + n, len - (size_t)n, " size=%s count=%llu",
			 size_word(cs->msg_size, a, sizeof(a)),
			 (unsigned long long)cs->count);
	else if (!strcmp(cs->pat->name, "bulk"))
		snprintf(buf + n, len - (size_t)n, " total=%s size=%s",
			 size_word(cs->total, a, sizeof(a)),
			 size_word(cs->chunk_size, b, sizeof(b)));
	else if (!strcmp(cs->pat->name, "replay") && cs->trace)
		snprintf(
			buf + n, len - (size_t)n, " %s%s%s", cs->trace->name,
			cs->trace->max_packet ? " max-packet=" : "",
			cs->trace->max_packet
				? size_word(cs->trace->max_packet, a, sizeof(a))
				: "");
	describe_more(cs, buf, len);
	return buf;
}

/* SPDX-License-Identifier: MIT */
/*
 * What the patterns' self-descriptions rest on: the metrics results are
 * judged by, and reading or writing a case's parameters through their
 * descriptions, so that no other layer needs to know which field of a case
 * a pattern uses.
 */
#include <stdio.h>
#include <string.h>

#include "ipcperf/pattern.h"
#include "pattern/lib_internal.h"

const struct ipc_metric ipc_metric_p50 = {
	.name = "p50_ns",
	.word = "p50",
	.unit = "ns",
	.integer = true,
	.fmt = IPC_FMT_NS,
	.src = IPC_SRC_P50,
};

const struct ipc_metric ipc_metric_p99 = {
	.name = "p99_ns",
	.word = "p99",
	.unit = "ns",
	.integer = true,
	.fmt = IPC_FMT_NS,
	.src = IPC_SRC_P99,
};

const struct ipc_metric ipc_metric_mean = {
	.name = "mean_ns",
	.word = "mean",
	.unit = "ns",
	.integer = true,
	.fmt = IPC_FMT_NS,
	.src = IPC_SRC_MEAN,
};

const struct ipc_metric ipc_metric_msgs_per_s = {
	.name = "msgs_per_s",
	.word = "throughput",
	.unit = "msgs_per_s",
	.higher_better = true,
	.fmt = IPC_FMT_RATE,
	.src = IPC_SRC_MSGS_PER_S,
};

const struct ipc_metric ipc_metric_bytes_per_s = {
	.name = "bytes_per_s",
	.word = "throughput",
	.unit = "bytes_per_s",
	.higher_better = true,
	.fmt = IPC_FMT_BPS,
	.src = IPC_SRC_BYTES_PER_S,
	.no_bytes = &ipc_metric_msgs_per_s,
};

const struct ipc_metric *const ipc_metrics[] = {
	&ipc_metric_p50,	 &ipc_metric_p99,	 &ipc_metric_mean,
	&ipc_metric_bytes_per_s, &ipc_metric_msgs_per_s, NULL,
};

const struct ipc_metric *ipc_metric_find(const char *name)
{
	for (size_t i = 0; name && ipc_metrics[i]; i++)
		if (!strcmp(ipc_metrics[i]->name, name))
			return ipc_metrics[i];
	return NULL;
}

const struct ipc_metric *ipc_metric_find_word(const char *word)
{
	for (size_t i = 0; word && ipc_metrics[i]; i++)
		if (!strcmp(ipc_metrics[i]->word, word))
			return ipc_metrics[i];
	return NULL;
}

size_t ipc_pattern_nextras(const struct ipc_pattern_ops *pat)
{
	size_t n = 0;

	while (pat && pat->extras && pat->extras[n].key && n < IPC_EXTRA_MAX)
		n++;
	return n;
}

void *ipc_param_at(const struct ipc_case *cs, const struct ipc_param *p)
{
	switch (p->in) {
	case IPC_IN_CASE:
		return (char *)cs + p->off;
	case IPC_IN_TRACE:
		return cs->trace ? (char *)cs->trace + p->off : NULL;
	case IPC_IN_CFG:
		return cs->cfg ? (char *)cs->cfg + p->off : NULL;
	default:
		return NULL;
	}
}

bool ipc_param_is_number(const struct ipc_param *p)
{
	return p->type == IPC_VT_U64 || p->type == IPC_VT_SIZE ||
	       p->type == IPC_VT_U32 || p->type == IPC_VT_BOOL;
}

uint64_t ipc_param_u64(const struct ipc_case *cs, const struct ipc_param *p)
{
	const void *v = ipc_param_at(cs, p);

	if (!v)
		return 0;
	switch (p->type) {
	case IPC_VT_U64:
		return *(const uint64_t *)v;
	case IPC_VT_SIZE:
		return *(const size_t *)v;
	case IPC_VT_U32:
		return *(const uint32_t *)v;
	case IPC_VT_BOOL:
		return *(const bool *)v;
	default:
		return 0;
	}
}

const char *ipc_param_str(const struct ipc_case *cs, const struct ipc_param *p)
{
	const void *v = ipc_param_at(cs, p);

	if (!v)
		return NULL;
	if (p->type == IPC_VT_STR)
		return *(char *const *)v;
	if (p->type == IPC_VT_CHARS)
		return v;
	return NULL;
}

bool ipc_param_set_u64(struct ipc_case *cs, const struct ipc_param *p,
		       uint64_t v)
{
	void *dst = ipc_param_at(cs, p);

	if (!dst)
		return false;
	switch (p->type) {
	case IPC_VT_U64:
		*(uint64_t *)dst = v;
		return true;
	case IPC_VT_SIZE:
		*(size_t *)dst = (size_t)v;
		return true;
	case IPC_VT_U32:
		*(uint32_t *)dst = (uint32_t)v;
		return true;
	case IPC_VT_BOOL:
		*(bool *)dst = v != 0;
		return true;
	default:
		return false;
	}
}

/* Sizes the way a person types them: 64, 4k, 1M. */
static void size_word(uint64_t v, char *buf, size_t len)
{
	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%lluk", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

char *ipc_param_word(const struct ipc_case *cs, const struct ipc_param *p,
		     char *buf, size_t len)
{
	const char *s;
	uint64_t v;

	buf[0] = '\0';
	if (!ipc_param_is_number(p)) {
		s = ipc_param_str(cs, p);
		snprintf(buf, len, "%s", s ? s : "");
		return buf;
	}
	v = ipc_param_u64(cs, p);
	switch (p->fmt) {
	case IPC_FMT_BYTES:
		size_word(v, buf, len);
		break;
	case IPC_FMT_RATE:
		snprintf(buf, len, "%llu/s", (unsigned long long)v);
		break;
	case IPC_FMT_NAME:
		if (ipc_param_name(p, v))
			snprintf(buf, len, "%s", ipc_param_name(p, v));
		else
			snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	case IPC_FMT_LOOP:
		snprintf(buf, len, "%s", v ? "open" : "closed");
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
	return buf;
}

const char *ipc_param_name(const struct ipc_param *p, uint64_t v)
{
	if (!p->names)
		return NULL;
	for (uint64_t i = 0; p->names[i]; i++)
		if (i == v)
			return p->names[i];
	return NULL;
}

bool ipc_param_in_words(const struct ipc_case *cs, const struct ipc_param *p)
{
	const char *s;

	if (!p->word || !ipc_param_at(cs, p))
		return false;
	/* An empty text (http's built-in target has no url) says nothing. */
	if (!ipc_param_is_number(p) && (!(s = ipc_param_str(cs, p)) || !s[0]))
		return false;
	if ((p->flags & IPC_PARAM_WORD_DFLT) && ipc_param_is_number(p) &&
	    ipc_param_u64(cs, p) == p->dflt)
		return false;
	return true;
}

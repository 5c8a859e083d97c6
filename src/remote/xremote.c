/* SPDX-License-Identifier: MIT */
/*
 * --explain over --remote: the server's test process explains its own
 * serving thread when the client asked (and where it may load BPF), and
 * sends the sums of its phases back in run_stats' "explain" object, keyed
 * by phase name, with the p99 of one event of each phase that had events
 * ("p99 NAME"); the client takes them into its peer record.  Nothing here
 * runs during a run: the sums are read after it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipcperf/explain.h"
#include "ipcperf/run.h"
#include "remote_internal.h"
#include "explain/lib_internal.h"

/* The protocol's bounds on the object (docs/protocol.md, "Explain"). */
#define XFIELDS_MAX 40

/*
 * The p99s into @o, in the phases' order, while the object stays within
 * the protocol's bounds: a p99 left out is only a figure less, the sums
 * are whole.
 */
static void put_p99s(json_t *o, const struct ipc_explain_counts *c, size_t len)
{
	char key[40], *text;
	bool fits;

	for (unsigned ph = 0; ph < IPC_XPHASES; ph++) {
		double v = ipc_explain_p99(c->bucket[IPC_XCLIENT][ph], NULL);

		if (v < 0 || !c->ns[IPC_XCLIENT][ph])
			continue;
		if (json_object_size(o) >= XFIELDS_MAX)
			return;
		snprintf(key, sizeof(key), "p99 %s",
			 ipc_explain_phase_name(ph));
		json_object_set_new(o, key, json_integer((json_int_t)v));
		text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		fits = text && strlen(text) < len;
		free(text);
		if (!fits) {
			json_object_del(o, key);
			return;
		}
	}
}

void rm_xserve_text(struct ipc_explain *x, const char *why, char *out,
		    size_t len)
{
	struct ipc_explain_counts *c = NULL;
	json_t *o = json_object();
	char *text = NULL;
	int err = -ENOMEM;

	out[0] = '\0';
	if (!o)
		return;
	if (x) {
		c = malloc(sizeof(*c));
		err = c ? ipc_explain_read(x, c) : -ENOMEM;
	}
	if (!x) {
		json_object_set_new(o, "why", json_string(why));
	} else if (err) {
		json_object_set_new(o, "why", json_string(strerror(-err)));
	} else {
		json_object_set_new(o, "window_ns",
				    json_integer((json_int_t)c->window_ns));
		/* The serving thread is watched as the side counted whole. */
		for (unsigned ph = 0; ph < IPC_XPHASES; ph++)
			if (c->ns[IPC_XCLIENT][ph])
				json_object_set_new(
					o, ipc_explain_phase_name(ph),
					json_integer(
						(json_int_t)c
							->ns[IPC_XCLIENT][ph]));
		put_p99s(o, c, len);
	}
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (text && strlen(text) < len)
		memcpy(out, text, strlen(text) + 1);
	free(text);
	free(c);
	json_decref(o);
}

void rm_xclient_take(struct ipc_peer *p, const char *text)
{
	json_t *o, *v;
	const char *k;

	p->remote_xwindow_ns = 0;
	p->remote_xwhy[0] = '\0';
	memset(p->remote_xns, 0, sizeof(p->remote_xns));
	memset(p->remote_xp99, 0, sizeof(p->remote_xp99));
	if (!text[0])
		return;
	o = json_loads(text, 0, NULL);
	if (!o)
		return;
	v = json_object_get(o, "why");
	if (json_is_string(v))
		snprintf(p->remote_xwhy, sizeof(p->remote_xwhy), "%s",
			 json_string_value(v));
	json_object_foreach(o, k, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			continue;
		if (!strcmp(k, "window_ns")) {
			p->remote_xwindow_ns = (uint64_t)json_integer_value(v);
			continue;
		}
		for (unsigned ph = 0; ph < IPC_XPHASES; ph++) {
			const char *name = ipc_explain_phase_name(ph);

			if (!strcmp(k, name))
				p->remote_xns[ph] =
					(uint64_t)json_integer_value(v);
			else if (!strncmp(k, "p99 ", 4) && !strcmp(k + 4, name))
				p->remote_xp99[ph] =
					(uint64_t)json_integer_value(v);
		}
	}
	json_decref(o);
}

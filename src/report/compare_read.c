/*
 * A saved comparison read back: which two files it compared and with
 * which options, so that ipcperf report can make it again and print it in
 * any format (its ratios and verdicts are computed, not stored results).
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ipcperf/report.h"

/*
 * @name as compare was given it when that file is there, else next to
 * the comparison @path (a comparison moved with its two files).
 */
static void locate(const char *path, const char *name, char *out, size_t len)
{
	char dir[4096];

	snprintf(out, len, "%s", name);
	if (name[0] == '/' || access(name, R_OK) == 0)
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(out, len, "%s/%s", dirname(dir), name);
	if (access(out, R_OK) != 0)
		snprintf(out, len, "%s", name);
}

/* The "file" of side @key ("a", "b"), or NULL. */
static const char *side_file(json_t *root, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(root, key), "file"));
}

int ipc_cmp_saved_parse(const char *text, size_t len, const char *path,
			struct ipc_cmp_saved *out, char *err, size_t err_len)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *cmd, *a, *b, *metric;
	json_t *th;

	memset(out, 0, sizeof(*out));
	if (!root) {
		snprintf(err, err_len, "%s: %s", path, jerr.text);
		return -EINVAL;
	}
	cmd = json_string_value(json_object_get(root, "command"));
	a = side_file(root, "a");
	b = side_file(root, "b");
	if (!cmd || strcmp(cmd, "compare") || !a || !b) {
		snprintf(err, err_len,
			 "%s: not a comparison written by ipcperf compare -f "
			 "json",
			 path);
		json_decref(root);
		return -EINVAL;
	}
	locate(path, a, out->a, sizeof(out->a));
	locate(path, b, out->b, sizeof(out->b));
	metric = json_string_value(json_object_get(root, "metric"));
	snprintf(out->metric, sizeof(out->metric), "%s", metric ? metric : "");
	th = json_object_get(root, "threshold_pct");
	out->threshold_pct = json_is_number(th) ? json_number_value(th) : 0;
	json_decref(root);
	return 0;
}

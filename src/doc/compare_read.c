/* SPDX-License-Identifier: MIT */
/*
 * A saved comparison read back: which files it compared (one or several
 * a side) and with which options, so that ipcperf report can make it
 * again and print it in any format (its ratios and verdicts are computed,
 * not stored results).
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ipcperf/doc.h"
#include "doc/lib_internal.h"

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

/*
 * The files of side @key ("a", "b"): its "files" array, or its "file"
 * alone (a comparison of one file a side, as written before sides had
 * several).  Into *@out, @n of them; 0, -EINVAL when there is none, or
 * -ENOMEM.
 */
static int side_files(const char *path, json_t *root, const char *key,
		      char ***out, size_t *n)
{
	json_t *side = json_object_get(root, key);
	json_t *files = json_object_get(side, "files");
	const char *one = json_string_value(json_object_get(side, "file"));
	size_t k = json_is_array(files) ? json_array_size(files) : 0;
	size_t want = k ? k : one != NULL;

	*out = NULL;
	*n = 0;
	if (!want)
		return -EINVAL;
	*out = calloc(want, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < want; i++) {
		const char *name =
			k ? json_string_value(json_array_get(files, i)) : one;

		if (!name)
			return -EINVAL;
		(*out)[i] = malloc(4096);
		if (!(*out)[i])
			return -ENOMEM;
		(*n)++;
		locate(path, name, (*out)[i], 4096);
	}
	return 0;
}

void ipc_cmp_saved_fini(struct ipc_cmp_saved *sv)
{
	for (size_t i = 0; sv->a && i < sv->na; i++)
		free(sv->a[i]);
	for (size_t i = 0; sv->b && i < sv->nb; i++)
		free(sv->b[i]);
	free(sv->a);
	free(sv->b);
	sv->a = sv->b = NULL;
	sv->na = sv->nb = 0;
}

int ipc_cmp_saved_parse(const char *text, size_t len, const char *path,
			struct ipc_cmp_saved *out, char *err, size_t err_len)
{
	json_error_t jerr;
	json_t *root = NULL, *th, *dr;
	const char *cmd, *metric;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ipc_doc_values_check(text, len, path, err, err_len);
	if (rc)
		return rc;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		snprintf(err, err_len, "%s: %s", path, jerr.text);
		return -EINVAL;
	}
	cmd = json_string_value(json_object_get(root, "command"));
	rc = cmd && !strcmp(cmd, "compare") ? 0 : -EINVAL;
	if (!rc)
		rc = side_files(path, root, "a", &out->a, &out->na);
	if (!rc)
		rc = side_files(path, root, "b", &out->b, &out->nb);
	if (rc) {
		if (rc == -EINVAL)
			snprintf(err, err_len,
				 "%s: not a comparison written by ipcperf "
				 "compare -f json",
				 path);
		else
			snprintf(err, err_len, "%s: out of memory", path);
		ipc_cmp_saved_fini(out);
		json_decref(root);
		return rc;
	}
	metric = json_string_value(json_object_get(root, "metric"));
	snprintf(out->metric, sizeof(out->metric), "%s", metric ? metric : "");
	th = json_object_get(root, "threshold_pct");
	out->threshold_pct = json_is_number(th) ? json_number_value(th) : 0;
	dr = json_object_get(root, "drift_pct");
	out->drift_set = json_is_number(dr);
	out->drift_pct = out->drift_set ? json_number_value(dr) : 0;
	json_decref(root);
	return 0;
}

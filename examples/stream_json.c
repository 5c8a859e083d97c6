/* SPDX-License-Identifier: MIT */
/*
 * Throughput of 1 KiB messages streamed over a Unix socket, written to
 * standard output as ipcperf's JSON document (the library's own writer, so
 * ipcperf compare and ipcperf report read it).
 *
 *   cc -std=c11 stream_json.c $(pkg-config --cflags --libs ipcperf)
 */
#include <stdio.h>
#include <stdlib.h>

#include <ipcperf/ipcperf.h>

static int write_result(void *arg, size_t i, const struct ipc_result *res)
{
	(void)i;
	return ipc_report_result(arg, res);
}

int main(int argc, char **argv)
{
	struct ipc_case cs = {0};
	struct ipc_runopts ro;
	struct ipc_host host;
	struct ipc_report_meta meta = {0};
	struct ipc_report rep = {0};
	struct ipc_plan_hooks hooks = {.arg = &rep, .done = write_result};
	struct ipc_run *run;
	int err, measured;

	cs.pat = ipc_pattern_find("stream");
	cs.tp = ipc_transport_find("unix");
	cs.eng = ipc_engine_find("blocking");
	cs.msg_size = 1024;
	cs.count = 1000;
	ipc_runopts_default(&ro);
	ro.iterations = 20; /* batches of count messages */
	ro.warmup = 1;
	ro.runs = 3;
	ro.runs_auto = false;
	rep.ops = ipc_report_find("json");
	if (!cs.pat || !cs.tp || !cs.eng || !rep.ops) {
		fprintf(stderr, "stream_json: this library lacks stream, unix, "
				"blocking or json\n");
		return 1;
	}
	err = ipc_run_new(&run);
	if (err) {
		fprintf(stderr, "stream_json: cannot prepare: error %d\n",
			-err);
		return 1;
	}
	ipc_host_probe(&host);
	meta.version = "stream_json example";
	meta.command = "stream";
	meta.argc = argc;
	meta.argv = argv;
	meta.host = &host;
	meta.ro = &ro;
	meta.build = "";
	rep.out = stdout;
	rep.meta = &meta;
	err = ipc_report_begin(&rep);
	measured = err ? 0 : ipc_run_plan(run, &cs, &ro, 1, &hooks);
	ipc_run_free(run);
	ipc_host_finish(&host);
	if (!err && measured >= 0)
		err = ipc_report_end(&rep);
	if (err || measured) {
		fprintf(stderr, "stream_json: %s\n",
			err || measured < 0 ? "cannot write the report"
					    : "the measurement failed");
		return 1;
	}
	return 0;
}

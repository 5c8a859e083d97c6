/*
 * The run object: a running plan's stop, its private directory and the
 * names of its channels, owned by the caller instead of kept in globals.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_internal.h"

/* ipc_run_stop with no signal: "interrupted", without a name. */
#define BY_CALL (-1)

struct ipc_run {
	/*
	 * The client's stop: fired by ipc_run_stop, and by a peer that ended
	 * before the client was done (then only for that measurement: it is
	 * made fresh before the next one).  The client's thread watches it.
	 */
	struct ipc_cancel client;
	int stop_sig;	/* atomic: 0, the signal that stopped it, BY_CALL */
	char dir[256];	/* $TMPDIR/ipcperf.XXXXXX */
	unsigned nchan; /* channels named so far */
};

static int dir_make(char *dir, size_t len)
{
	const char *base = getenv("TMPDIR");

	if (!base || !*base)
		base = "/tmp";
	if ((size_t)snprintf(dir, len, "%s/ipcperf.XXXXXX", base) >= len - 40) {
		dir[0] = '\0';
		return -ENAMETOOLONG; /* socket paths must fit in 108 bytes */
	}
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -errno;
	}
	return 0;
}

/* The directory and whatever a failed teardown left in it. */
static void dir_remove(const char *dir)
{
	DIR *d;
	struct dirent *e;

	if (!dir[0])
		return;
	d = opendir(dir);
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

int ipc_run_new(struct ipc_run **out)
{
	struct ipc_run *run;
	int err;

	*out = NULL;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	err = ipc_cancel_init(&run->client);
	if (err)
		goto fail;
	err = dir_make(run->dir, sizeof(run->dir));
	if (err)
		goto fail;
	*out = run;
	return 0;
fail:
	ipc_cancel_fini(&run->client);
	free(run);
	return err;
}

void ipc_run_free(struct ipc_run *run)
{
	if (!run)
		return;
	dir_remove(run->dir);
	ipc_cancel_fini(&run->client);
	free(run);
}

/*
 * The signal is recorded before the cancel is fired, so that
 * run_client_fresh, which looks at it after making the cancel fresh,
 * never loses a stop that raced with it.
 */
void ipc_run_stop(struct ipc_run *run, int sig)
{
	int none = 0;

	__atomic_compare_exchange_n(&run->stop_sig, &none,
				    sig > 0 ? sig : BY_CALL, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	ipc_cancel_fire(&run->client);
}

bool ipc_run_stopped(const struct ipc_run *run)
{
	return __atomic_load_n(&run->stop_sig, __ATOMIC_SEQ_CST) != 0;
}

const char *ipc_run_dir(const struct ipc_run *run)
{
	return run->dir;
}

struct ipc_cancel *run_client_stop(struct ipc_run *run)
{
	return &run->client;
}

void run_client_fresh(struct ipc_run *run)
{
	ipc_cancel_reset(&run->client);
	if (ipc_run_stopped(run))
		ipc_cancel_fire(&run->client);
}

void run_chan_name(struct ipc_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "%u", run->nchan++);
}

char *run_stop_words(const struct ipc_run *run, char *buf, size_t len)
{
	int sig = __atomic_load_n(&run->stop_sig, __ATOMIC_SEQ_CST);
	const char *name = sig > 0 ? sigabbrev_np(sig) : NULL;

	if (name)
		snprintf(buf, len, "interrupted by SIG%s", name);
	else
		snprintf(buf, len, "interrupted");
	return buf;
}

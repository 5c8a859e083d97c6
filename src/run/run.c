/* SPDX-License-Identifier: MIT */
/*
 * The run object: a running plan's stop, its private directory and the
 * names of its channels, owned by the caller instead of kept in globals.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_internal.h"
#include "base/lib_internal.h"
#include "explain/lib_internal.h"
#include "run/lib_internal.h"

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
	int dir_fd;	/* the directory, flock()ed while the run lives */
	unsigned nchan; /* channels named so far */
	/* --explain's program, loaded by the first case that asks. */
	struct ipc_explain *explain;
	bool explain_tried;
	char explain_why[160]; /* why it could not be loaded */
	/* The plan's hook for a second pass's runs, and the case's index. */
	const struct ipc_plan_hooks *hooks;
	size_t hook_case;
};

void run_hooks_set(struct ipc_run *run, const struct ipc_plan_hooks *hooks,
		   size_t i)
{
	run->hooks = hooks;
	run->hook_case = i;
}

void run_again_hook(const struct ipc_run *run, const struct ipc_result *res,
		    unsigned k, unsigned runs)
{
	if (run->hooks && run->hooks->again)
		run->hooks->again(run->hooks->arg, run->hook_case, res, k,
				  runs);
}

struct ipc_explain *run_explain(struct ipc_run *run, const char **why)
{
	if (!run->explain_tried) {
		run->explain_tried = true;
		ipc_explain_open(&run->explain, run->explain_why,
				 sizeof(run->explain_why));
	}
	*why = run->explain_why;
	return run->explain;
}

/*
 * A run's directory is locked (flock on the directory itself) for as long
 * as its process, or a peer it forked, lives: the kernel lets go of the
 * lock when they die, SIGKILL included.  The file MARK is made inside only
 * once the lock is held, so a directory that has MARK and whose lock can
 * be taken is provably a dead run's: ipc_run_new removes those of the
 * user's that it finds in $TMPDIR.  (One without MARK may be a run
 * between mkdtemp and flock: it is left alone.)
 */
#define MARK "locked"
#define DIR_PREFIX "ipcperf."
#define DIR_NAME_LEN (sizeof(DIR_PREFIX) - 1 + 6) /* mkdtemp's XXXXXX */

/* Remove what is in the directory @fd (its entries are files). */
static void dir_empty(int fd)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(fd, e->d_name, 0);
	closedir(d);
}

/*
 * @name in the directory @tmp: when it is a dead run's directory of ours
 * (ours: owner and mode 0700; dead: MARK in it and its lock free), remove
 * it.  Everything through descriptors, so that no link is followed.
 */
static void stale_remove(int tmp, const char *name)
{
	struct stat st;
	int fd = openat(tmp, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_uid == geteuid() &&
	    (st.st_mode & 07777) == 0700 &&
	    !fstatat(fd, MARK, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISREG(st.st_mode) && !flock(fd, LOCK_EX | LOCK_NB)) {
		dir_empty(fd);
		unlinkat(tmp, name, AT_REMOVEDIR);
	}
	close(fd); /* and its lock */
}

/* The directories that killed runs of this user left in @base. */
static void stale_clean(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strlen(e->d_name) == DIR_NAME_LEN &&
		    !strncmp(e->d_name, DIR_PREFIX, sizeof(DIR_PREFIX) - 1) &&
		    (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
			stale_remove(dirfd(d), e->d_name);
	closedir(d);
}

/* Make the run's directory, lock it, then mark it (see MARK). */
static int dir_make(char *dir, size_t len, int *fd)
{
	const char *base = getenv("TMPDIR");
	int mark, err;

	*fd = -1;
	if (!base || !*base)
		base = "/tmp";
	if ((size_t)snprintf(dir, len, "%s/" DIR_PREFIX "XXXXXX", base) >=
	    len - 40) {
		dir[0] = '\0';
		return -ENAMETOOLONG; /* socket paths must fit in 108 bytes */
	}
	stale_clean(base);
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -errno;
	}
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0 || flock(*fd, LOCK_EX) < 0)
		goto fail;
	mark = openat(*fd, MARK, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (mark < 0)
		goto fail;
	close(mark);
	return 0;
fail:
	err = -errno;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	rmdir(dir);
	dir[0] = '\0';
	return err;
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
	err = dir_make(run->dir, sizeof(run->dir), &run->dir_fd);
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
	if (run->dir_fd >= 0)
		close(run->dir_fd); /* the lock goes with it, once empty */
	ipc_cancel_fini(&run->client);
	ipc_explain_free(run->explain);
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
	snprintf(buf, len, "%u",
		 __atomic_fetch_add(&run->nchan, 1, __ATOMIC_RELAXED));
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

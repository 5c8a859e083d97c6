/*
 * Report files that appear whole or not at all: the report is written to a
 * temporary file in the target's directory and renamed over the target only
 * once every byte is known to be on disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcperf/report.h"

/* -errno after a call that failed, never 0 (-EIO when errno was not set). */
static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/*
 * The permissions the file would have had if created directly: the old
 * file's when it is being replaced, else 0666 less the umask.  umask() can
 * only be read by setting it, so it is set back at once; open is called
 * before any thread starts.
 */
static mode_t final_mode(const char *path)
{
	struct stat st;
	mode_t mask;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

int ipc_outfile_open(struct ipc_outfile *of, const char *path)
{
	const char *slash, *base;
	struct stat st;
	int dirlen, n, fd, err;

	memset(of, 0, sizeof(*of));
	if (!path || !strcmp(path, "-")) {
		of->fp = stdout;
		of->is_stdout = true;
		snprintf(of->path, sizeof(of->path), "-");
		return 0;
	}
	if (!*path)
		return -ENOENT;
	n = snprintf(of->path, sizeof(of->path), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(of->path))
		return -ENAMETOOLONG;

	/* A directory would only be refused by rename, after the run. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!*base)
		return -EISDIR;
	dirlen = slash ? (int)(slash - path) + 1 : 0;

	/* "out/r.json" is written as "out/.r.json.XXXXXX" first. */
	n = snprintf(of->tmp, sizeof(of->tmp), "%.*s.%s.XXXXXX", dirlen, path,
		     base);
	if (n < 0 || (size_t)n >= sizeof(of->tmp)) {
		of->tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		err = neg_errno();
		of->tmp[0] = '\0';
		return err;
	}
	if (fchmod(fd, final_mode(path)) < 0)
		goto fail;
	of->fp = fdopen(fd, "w");
	if (!of->fp)
		goto fail;
	return 0;

fail:
	err = neg_errno();
	close(fd);
	unlink(of->tmp);
	of->tmp[0] = '\0';
	return err;
}

/* Make the rename itself durable; a failure here loses nothing written. */
static void sync_dir(const struct ipc_outfile *of)
{
	const char *path = of->path, *slash = strrchr(path, '/');
	char dir[sizeof(of->path)];
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	fsync(fd);
	close(fd);
}

int ipc_outfile_commit(struct ipc_outfile *of)
{
	int err = 0;

	if (!of->fp)
		return -EINVAL;
	if (of->is_stdout) {
		if (fflush(of->fp) == EOF)
			err = neg_errno();
		else if (ferror(of->fp))
			err = -EIO;
		of->fp = NULL;
		return err;
	}

	/*
	 * Every step is checked: with a full disk the error shows up in
	 * fflush (ENOSPC) or only in fsync or close on some filesystems.
	 */
	errno = 0;
	if (fflush(of->fp) == EOF)
		err = neg_errno();
	else if (ferror(of->fp))
		err = -EIO;
	else if (fsync(fileno(of->fp)) < 0)
		err = neg_errno();
	if (fclose(of->fp) == EOF && !err)
		err = neg_errno();
	of->fp = NULL;
	if (!err && rename(of->tmp, of->path) < 0)
		err = neg_errno();
	if (err)
		unlink(of->tmp);
	else
		sync_dir(of);
	of->tmp[0] = '\0';
	return err;
}

void ipc_outfile_abort(struct ipc_outfile *of)
{
	if (!of->fp)
		return;
	if (of->is_stdout) {
		fflush(of->fp);
	} else {
		fclose(of->fp);
		unlink(of->tmp);
		of->tmp[0] = '\0';
	}
	of->fp = NULL;
}

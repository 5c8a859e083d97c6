/* SPDX-License-Identifier: MIT */
/*
 * Output files (reports, matrices) that appear whole or not at all.
 * Everything is checked when the file is opened, before the run: then the
 * report is kept in memory and, once it is complete, written to a
 * temporary file in the target's directory and renamed over it.  A target that is not a regular
 * file (a terminal, /dev/null, a FIFO, /dev/stdout) is written through, as
 * the shell's redirection would write it.
 *
 *   -o r.json            r.json replaced at the end (".r.json.XXXXXX" for
 *                        the few milliseconds of the write)
 *   -o link -> d/r.json  d/r.json replaced; the link stays a link
 *   -o /dev/null         opened and written, never replaced
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lib_internal.h"

/* -errno after a call that failed, never 0 (-EIO when errno was not set). */
static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/* The directory part of @path into @dir: "." or "/" or "a/b". */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/*
 * Follow the symbolic links of @path to the name the data should end up
 * at, into @out (which may then not exist yet: a dangling link is made
 * good, as the shell does).  A link into /proc (/dev/stdout is
 * /proc/self/fd/1) names an open file, not a place: *through is set and
 * the path is used as it is.  0 or -errno (-ELOOP past 40 links).
 */
static int resolve(const char *path, char *out, size_t len, bool *through)
{
	char target[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	ssize_t n;
	int hops;

	*through = false;
	if ((size_t)snprintf(out, len, "%s", path) >= len)
		return -ENAMETOOLONG;
	for (hops = 0; hops < 40; hops++) {
		if (lstat(out, &st) < 0)
			return errno == ENOENT ? 0 : neg_errno();
		if (!S_ISLNK(st.st_mode))
			return 0;
		n = readlink(out, target, sizeof(target) - 1);
		if (n < 0)
			return neg_errno();
		target[n] = '\0';
		if (!strncmp(target, "/proc/", 6)) {
			*through = true;
			snprintf(out, len, "%s", path);
			return 0;
		}
		if (target[0] == '/') {
			if ((size_t)snprintf(out, len, "%s", target) >= len)
				return -ENAMETOOLONG;
			continue;
		}
		dir_of(out, dir, sizeof(dir));
		if ((size_t)snprintf(out, len, "%s/%s", dir, target) >= len)
			return -ENAMETOOLONG;
	}
	return -ELOOP;
}

/* 0666 less the umask: what a new file would get. */
static mode_t new_file_mode(void)
{
	/* umask() can only be read by setting it: set back at once. */
	mode_t mask = umask(022);

	umask(mask);
	return 0666 & ~mask;
}

/*
 * Could a new file in @dir replace @st (NULL: none yet) by rename?  The
 * directory must be writable and searchable; in a sticky directory (/tmp)
 * only the file's or the directory's owner may replace a file.
 */
static int can_replace(const char *dir, const struct stat *st)
{
	struct stat ds;

	if (stat(dir, &ds) < 0)
		return neg_errno();
	if (!S_ISDIR(ds.st_mode))
		return -ENOTDIR;
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
		return neg_errno();
	if (st && (ds.st_mode & S_ISVTX) && geteuid() != 0 &&
	    st->st_uid != geteuid() && ds.st_uid != geteuid())
		return -EPERM;
	return 0;
}

/* @final is a regular file or nothing: check, and buffer the report. */
static int open_replace(struct ipc_outfile *of)
{
	char dir[sizeof(of->final)];
	struct stat st;
	bool exists = stat(of->final, &st) == 0;
	int err;

	if (!exists && errno != ENOENT)
		return neg_errno();
	if (exists) {
		/* A write-protected file says "keep me", to root as well. */
		if (faccessat(AT_FDCWD, of->final, W_OK, AT_EACCESS) < 0)
			return neg_errno();
		if (!(st.st_mode & 0222))
			return -EACCES;
		/* The old permissions, never its setuid and setgid bits. */
		of->mode = st.st_mode & 0777;
		of->uid = st.st_uid;
		of->gid = st.st_gid;
		of->owned = true;
	} else {
		of->mode = new_file_mode();
	}
	dir_of(of->final, dir, sizeof(dir));
	err = can_replace(dir, exists ? &st : NULL);
	if ((err == -EACCES || err == -EPERM) && exists)
		of->late = true; /* a writable file we may not replace */
	else if (err)
		return err;
	of->fp = open_memstream(&of->buf, &of->len);
	return of->fp ? 0 : neg_errno();
}

int ipc_outfile_open(struct ipc_outfile *of, const char *path)
{
	struct stat st;
	bool through;
	int err;

	memset(of, 0, sizeof(*of));
	if (!path || !strcmp(path, "-")) {
		of->fp = stdout;
		of->is_stdout = true;
		snprintf(of->path, sizeof(of->path), "-");
		return 0;
	}
	if (!*path)
		return -ENOENT;
	if ((size_t)snprintf(of->path, sizeof(of->path), "%s", path) >=
	    sizeof(of->path))
		return -ENAMETOOLONG;
	err = resolve(path, of->final, sizeof(of->final), &through);
	if (err)
		return err;
	if (path[strlen(path) - 1] == '/' ||
	    (stat(of->final, &st) == 0 && S_ISDIR(st.st_mode)))
		return -EISDIR;
	if (!through && (stat(of->final, &st) < 0 || S_ISREG(st.st_mode)))
		return open_replace(of);

	/* A device, a FIFO, an open file of /proc: written through. */
	of->fd = open(of->final, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	if (of->fd < 0)
		return neg_errno();
	of->through = true;
	of->fp = open_memstream(&of->buf, &of->len);
	if (!of->fp) {
		err = neg_errno();
		close(of->fd);
		return err;
	}
	return 0;
}

/* Write @len bytes of @buf to @fd; 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? neg_errno() : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make the rename itself durable; a failure here loses nothing written. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	fsync(fd);
	close(fd);
}

/* The buffered report into a new file renamed over the target. */
static int replace(struct ipc_outfile *of)
{
	char dir[sizeof(of->final)], tmp[sizeof(of->final) + NAME_MAX + 16];
	const char *base = strrchr(of->final, '/');
	int fd, err;

	base = base ? base + 1 : of->final;
	dir_of(of->final, dir, sizeof(dir));
	/* ".r.json.XXXXXX", the name cut so that it fits NAME_MAX. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%.*s.XXXXXX", dir,
			     NAME_MAX - 8, base) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return neg_errno();
	err = write_all(fd, of->buf, of->len);
	if (!err && fchmod(fd, (mode_t)of->mode) < 0)
		err = neg_errno();
	if (!err && of->owned && geteuid() == 0 &&
	    fchown(fd, (uid_t)of->uid, (gid_t)of->gid) < 0)
		err = neg_errno();
	/* A full disk may show only in fsync or close (NFS). */
	if (!err && fsync(fd) < 0)
		err = neg_errno();
	if (close(fd) < 0 && !err)
		err = neg_errno();
	if (!err && rename(tmp, of->final) < 0)
		err = neg_errno();
	if (err)
		unlink(tmp);
	else
		sync_dir(dir);
	return err;
}

/* A writable file whose directory is not: truncated and written. */
static int overwrite(struct ipc_outfile *of)
{
	int fd = open(of->final, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return neg_errno();
	err = write_all(fd, of->buf, of->len);
	if (!err && fsync(fd) < 0)
		err = neg_errno();
	if (close(fd) < 0 && !err)
		err = neg_errno();
	return err;
}

int ipc_outfile_commit(struct ipc_outfile *of)
{
	int err = 0;

	if (!of->fp)
		return -EINVAL;
	if (of->is_stdout) {
		errno = 0;
		if (fflush(of->fp) == EOF)
			err = neg_errno();
		else if (ferror(of->fp))
			err = -EIO;
		/* Said once, by the caller: what could not go is dropped. */
		if (err) {
			__fpurge(of->fp);
			clearerr(of->fp);
		}
		of->fp = NULL;
		return err;
	}
	/* The memory stream: a write error there is only ever ENOMEM. */
	if (ferror(of->fp))
		err = -ENOMEM;
	if (fclose(of->fp) == EOF && !err)
		err = -ENOMEM;
	of->fp = NULL;
	if (!err && of->through)
		err = write_all(of->fd, of->buf, of->len);
	else if (!err)
		err = of->late ? overwrite(of) : replace(of);
	if (of->through && close(of->fd) < 0 && !err)
		err = neg_errno();
	free(of->buf);
	of->buf = NULL;
	return err;
}

void ipc_outfile_abort(struct ipc_outfile *of)
{
	if (!of->fp)
		return;
	if (of->is_stdout) {
		/* The caller says why it aborts: a write error is its. */
		if (fflush(of->fp) == EOF || ferror(of->fp)) {
			__fpurge(of->fp);
			clearerr(of->fp);
		}
	} else {
		fclose(of->fp);
		if (of->through)
			close(of->fd);
	}
	of->fp = NULL;
	free(of->buf);
	of->buf = NULL;
}

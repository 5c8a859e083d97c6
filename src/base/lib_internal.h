/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of base and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/base.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_BASE_LIB_INTERNAL_H
#define IPCPERF_BASE_LIB_INTERNAL_H

#include <signal.h>
#include <stdio.h>

#include "ipcperf/base.h"

/*
 * The length of @s cut to at most @max bytes at a character boundary
 * (UTF-8), so that a cut text stays valid.
 */
size_t ipc_text_cut(const char *s, size_t max);

/*
 * Raise this process's soft limit on open descriptors (RLIMIT_NOFILE) to
 * its hard limit, for patterns with many flows.  Returns the soft limit in
 * force afterwards (0 when it cannot be read); *hard (if not NULL) gets the
 * hard limit.  Changes the whole process: call it before threads that open
 * descriptors start, or accept that they see either limit.
 */
uint64_t ipc_nofile_raise(uint64_t *hard);

/* The hard limit on open descriptors (0 if unknown), changing nothing. */
uint64_t ipc_nofile_hard(void);

/*
 * Read the file @path whole into a new NUL-terminated buffer *text (*len
 * bytes, the NUL not counted; free it).  A regular file or a pipe (a FIFO,
 * /dev/stdin when it is one) is read, at most @max bytes; the open never
 * blocks, so a FIFO without a writer is -ENODATA at once.  Returns 0, or
 * -errno with "PATH: problem" in @err: -EFBIG past @max, -EISDIR, -EINVAL
 * for a device or socket, -ENODATA for a pipe that gave nothing, -ENOMEM,
 * or what open and read said.
 */
int ipc_file_read(const char *path, size_t max, char **text, size_t *len,
		  char *err, size_t err_len);

/*
 * Make @c ready (its eventfd open, not fired).  0 or -errno (nothing left
 * open).  The library's wake signal gets its handler here if it has none
 * yet (ipc_wake_signal).
 */
int ipc_cancel_init(struct ipc_cancel *c);

/*
 * Close what init opened.  No thread may watch @c any more, and nothing
 * may fire it concurrently.  Safe twice, and on a cancel whose init
 * failed.
 */
void ipc_cancel_fini(struct ipc_cancel *c);

/*
 * Ask the side to stop: set the flag, make the eventfd readable, and start
 * the timer of every watching thread (the wake signal at once, then every
 * 10 ms until that thread stops watching).  Idempotent; thread-safe and
 * async-signal-safe (atomics, write(2) and timer_settime(2) only), so a
 * signal handler may call it.
 */
void ipc_cancel_fire(struct ipc_cancel *c);

/*
 * Make a fired cancel fresh again, for the next use by its owner.  Only
 * when nothing can fire it concurrently and no thread waits on it (the
 * run re-checks its own stop right after, see ipc_run_stop).
 */
void ipc_cancel_reset(struct ipc_cancel *c);

/*
 * The calling thread makes blocking calls for the side of @c: from now on
 * a firing interrupts them (see above), also a firing that already
 * happened.  The wake signal must not be blocked in the thread (helper
 * threads of ipc_thread_start leave it open).  Returns a watch number for
 * ipc_cancel_unwatch, or -errno: -EBUSY when IPC_CANCEL_WATCHERS threads
 * already watch, or timer_create's error.
 */
int ipc_cancel_watch(struct ipc_cancel *c);

/*
 * The thread's blocking calls for @c are over: stop and delete its timer.
 * Call it from the watching thread; @w from ipc_cancel_watch (< 0: no-op).
 */
void ipc_cancel_unwatch(struct ipc_cancel *c, int w);

/*
 * The wake signal: the one signal the library sends, SIGRTMIN + 8, always
 * aimed at one of its own threads (a watcher's timer, the blocking
 * engine's receive watchdog) or at a peer process it forked.  Its handler
 * does nothing and is installed without SA_RESTART, so that the call it
 * lands in returns EINTR.  The library
 * installs that handler once per process, the first time it needs it
 * (this is the one process-wide thing it changes), unless a handler is
 * already there: then init and watch fail with -EBUSY, since a foreign
 * handler might restart the calls it must break.
 */
int ipc_wake_signal(void);

/*
 * A POSIX timer (CLOCK_MONOTONIC) that sends the wake signal to the
 * calling thread, created disarmed into *@t: for a thread that bounds its
 * own blocking calls (the blocking engine's receive watchdog).  Installs
 * the wake signal's handler as ipc_cancel_init does.  Returns 0, or
 * -errno (-EBUSY: a foreign handler holds the signal; timer_create's
 * error).  The caller arms it (timer_settime) and deletes it
 * (timer_delete) from any thread of the process.
 */
int ipc_wake_timer_new(timer_t *t);

/*
 * Start a helper thread of the library (a peer, the link relay, load's
 * client threads, a peer's watcher) with one signal mask, whatever the
 * caller's: every signal blocked but the wake signal and the synchronous
 * faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS).  So the
 * user's Ctrl-C, SIGTERM or SIGCHLD always reach the caller's threads and
 * their handlers; the wake signal reaches a helper only when aimed at it;
 * and a write to a pipe whose reader is gone returns EPIPE to the helper,
 * its SIGPIPE left pending and dropped when the thread ends.  Returns 0
 * or -errno (pthread_create's).
 */
int ipc_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * Block SIGPIPE in the calling thread, its mask before kept in *@old: a
 * write into a socket or pipe whose reader is gone (OpenSSL's write(2)
 * as well as ours) then returns EPIPE instead of ending the process,
 * whatever the caller's handlers.  ipc_sigpipe_release takes back a
 * SIGPIPE left pending by such a write, unless the caller had it blocked
 * already, and restores the mask.
 */
void ipc_sigpipe_hold(sigset_t *old);
void ipc_sigpipe_release(const sigset_t *old);

/*
 * @n bytes from the system's cryptographic random source (libsodium's),
 * for names and tokens another local user must not guess.  Thread-safe.
 */
void ipc_random_bytes(void *buf, size_t n);

/*
 * Copy @src into @dst (@dst_len bytes, NUL-terminated) for one line of a
 * terminal or a log: printable ASCII and other UTF-8 characters as they
 * are; control bytes as \n, \t, \r or \xNN, bytes that are not UTF-8
 * as \xNN, and the code points that change how a line shows (C1
 * controls, bidirectional overrides such as U+202E, U+2028 and U+2029,
 * zero-width marks, U+FEFF) as \uNNNN.  With IPC_TEXT_ASCII every
 * non-ASCII character is escaped so.  A copy that does not fit ends
 * before the first character or escape that would not fit whole.
 * Returns the bytes written.
 */
#define IPC_TEXT_ASCII (1u << 0)
size_t ipc_text_escape(char *dst, size_t dst_len, const char *src,
		       unsigned flags);

/*
 * Whether @s (UTF-8) has no control character: C0 (below U+0020), DEL,
 * or C1 (U+0080 to U+009F, 0xc2 0x80..0x9f, which some terminals obey as
 * escape sequences).  Strings taken from a peer must pass it before they
 * reach a log or a terminal.
 */
bool ipc_text_printable(const char *s);

/*
 * Output that appears whole or not at all.  open() checks, before anything
 * runs, that @path can be written: a regular file (or a new one) must be
 * writable and not write-protected, and its directory one where a file can
 * be replaced; symbolic links are followed to the file they name.  The
 * report then goes to memory, and commit() writes it to a temporary file
 * next to the target, fsyncs it and renames it over the target (with the
 * old file's permissions less setuid/setgid, or 0666 less the umask); a
 * writable file in a directory that is not is truncated and written
 * instead.  A target that is not a regular file (a device, a FIFO,
 * /dev/stdout) is opened by open(), as the shell would open it, and
 * commit() writes the report into it.  abort() leaves a regular target
 * as it was.  With path "-" or NULL the
 * stream is stdout and commit/abort only flush.  Each returns 0 or -errno
 * (-EISDIR, -ENOENT, -EACCES, -EPERM, ...; -ENOSPC from commit).
 */
struct ipc_outfile {
	FILE *fp;	   /* where the report is written */
	char path[4096];   /* as given */
	char final[4096];  /* the file it names, links followed */
	char *buf;	   /* the report, until commit */
	size_t len;	   /* bytes of buf */
	unsigned mode;	   /* of the new file */
	unsigned uid, gid; /* of the old file, when owned */
	bool owned;	   /* a file was there: keep its owner (root) */
	bool late;	   /* overwrite at commit instead of a rename */
	int fd;		   /* the target, when through */
	bool through;	   /* written into fd, not renamed over */
	bool is_stdout;
};
int ipc_outfile_open(struct ipc_outfile *of, const char *path);
int ipc_outfile_commit(struct ipc_outfile *of);
void ipc_outfile_abort(struct ipc_outfile *of);

#endif

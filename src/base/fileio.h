/* gpusizer: file I/O in one place: read a whole file with a size limit,
 * write a file atomically (temporary + rename), test and create paths, join
 * them. Every failure is a gs_error naming the path. */
#ifndef GS_FILEIO_H
#define GS_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"

/* Read a whole file (at most max bytes) into a NUL-terminated malloc'd
 * buffer the caller frees (*out; *len its length when len is non-NULL).
 * Regular files only (after following links): a FIFO, device or directory
 * is GS_EINPUT "not a regular file" and is never opened for a blocking
 * read. Errors name the path: GS_ENOFILE when it does not exist,
 * GS_EINPUT when it is larger than max or not a regular file, GS_EIO
 * otherwise. */
gs_err gs_read_file(const char *path, size_t max, char **out, size_t *len, gs_error *e);

/*
 * Atomic file write: gs_atomic_open creates "<path>.tmp.<pid>.XXXXXX" in
 * the same directory; gs_atomic_commit flushes, fsyncs and renames it over
 * path; gs_atomic_abort closes and unlinks it. Every temporary is also
 * removed at exit or on SIGINT/SIGTERM/SIGHUP if still open. When path is
 * a symbolic link to an existing file, the link's target is the file
 * replaced (w->path is the resolved target; the temporary sits beside it,
 * on its file system) and the link is kept: a linked file is one the user
 * chose to share. A file replaced keeps its mode; a new one follows the
 * umask (gs_new_file_mode).
 */
typedef struct gs_atomic {
	FILE *fp;
	char path[4096];
	char tmp[4096];
	FILE *raw;  /* gs_atomic_open_gz: the temporary file under fp */
	void *gz;   /* ... and the deflate stream between them */
} gs_atomic;
gs_err gs_atomic_open(gs_atomic *w, const char *path, gs_error *e);
/* The same, with what is written to w->fp gzip-compressed on its way to
 * the file (zlib, level 6, no name and mtime 0 in the header: the same
 * bytes give the same file). Commit and abort as above. */
gs_err gs_atomic_open_gz(gs_atomic *w, const char *path, gs_error *e);
gs_err gs_atomic_commit(gs_atomic *w, gs_error *e);
void gs_atomic_abort(gs_atomic *w);
/* gs_read_file, and a file that is gzip data (it starts with 1f 8b: what
 * gs_atomic_open_gz writes) inflated: *out is the inflated text, at most max
 * bytes, NUL-terminated, malloc'd; corrupt or truncated data is GS_EINPUT
 * naming path. */
gs_err gs_read_file_gz(const char *path, size_t max, char **out, size_t *len, gs_error *e);
/* Write a whole buffer atomically. */
gs_err gs_write_file_atomic(const char *path, const void *buf, size_t len, gs_error *e);

/*
 * Advisory locks between gpusizer runs (flock(2); released by the kernel
 * when the process dies, so a killed run never leaves a lock behind).
 * path is an existing directory (locked itself) or a lock file, created
 * (0666 less the umask) when missing and never removed. gs_lock_acquire waits up to wait_s
 * seconds (0: try once), printing one "waiting for" line to stderr after
 * the first second; past the wait it fails GS_EBUSY naming the path.
 * gs_lock_wait_default() is $GPUSIZER_LOCK_WAIT seconds when set to a
 * number >= 0, else GS_LOCK_WAIT_DEFAULT. The lock is held until
 * gs_lock_release (safe on a released or zeroed lock). The descriptor is
 * close-on-exec, so children (the harness) never inherit it.
 */
#define GS_LOCK_WAIT_DEFAULT 600.0
typedef struct gs_lock {
	int fd; /* -1 (or 0 in a zeroed struct, never a lock) when not held */
	int held;
	char path[4096];
} gs_lock;
gs_err gs_lock_acquire(gs_lock *l, const char *path, double wait_s, gs_error *e);
void gs_lock_release(gs_lock *l);
double gs_lock_wait_default(void);

/* Whether path names a regular file / a directory (following links). */
bool gs_is_file(const char *path);
bool gs_is_dir(const char *path);

/* The mode a new file gets: 0666 less the process's umask, as open(2)
 * would give it (gs_atomic_open: a file that did not exist). */
mode_t gs_new_file_mode(void);

/*
 * Remove path and everything under it, as rm -rf and systemd's rm_rf do
 * it: each step is relative to a directory descriptor opened with
 * O_NOFOLLOW | O_DIRECTORY and checked to be the directory examined, so a
 * symbolic link is removed and never followed, whatever is swapped in
 * meanwhile; an entry the running user does not own, or on another file
 * system, is left, with the directories that hold it. For gpusizer's own
 * temporary directories only. True when path is gone.
 */
bool gs_rm_tree(const char *path);

/* mkdir -p (new directories 0777 less the umask); GS_EIO naming the path. */
gs_err gs_mkdirs(const char *path, gs_error *e);

/* "dir/name" followed by suffix (NULL: none) into buf[n]. GS_EIO
 * "dir/name: path too long" when it does not fit. */
gs_err gs_path_join(char *buf, size_t n, const char *dir, const char *name, const char *suffix,
                    gs_error *e);

#endif

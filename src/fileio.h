/* gpusizer: file I/O in one place: read a whole file with a size limit,
 * write a file atomically (temporary + rename), test and create paths, join
 * them. Every failure is a gs_error naming the path. */
#ifndef GS_FILEIO_H
#define GS_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

/* Read a whole file (at most max bytes) into a NUL-terminated malloc'd
 * buffer the caller frees (*out; *len its length when len is non-NULL).
 * Errors name the path: GS_ENOTFOUND when it does not exist, GS_EINPUT
 * when it is larger than max, GS_EIO otherwise. */
gs_err gs_read_file(const char *path, size_t max, char **out, size_t *len, gs_error *e);

/*
 * Atomic file write: gs_atomic_open creates "<path>.tmp.<pid>.XXXXXX" in
 * the same directory; gs_atomic_commit flushes, fsyncs and renames it over
 * path; gs_atomic_abort closes and unlinks it. Every temporary is also
 * removed at exit or on SIGINT/SIGTERM/SIGHUP if still open.
 */
typedef struct gs_atomic {
	FILE *fp;
	char path[4096];
	char tmp[4096];
} gs_atomic;
gs_err gs_atomic_open(gs_atomic *w, const char *path, gs_error *e);
gs_err gs_atomic_commit(gs_atomic *w, gs_error *e);
void gs_atomic_abort(gs_atomic *w);
/* Write a whole buffer atomically. */
gs_err gs_write_file_atomic(const char *path, const void *buf, size_t len, gs_error *e);

/* Whether path names a regular file / a directory (following links). */
bool gs_is_file(const char *path);
bool gs_is_dir(const char *path);

/* mkdir -p; GS_EIO naming the path. */
gs_err gs_mkdirs(const char *path, gs_error *e);

/* "dir/name" followed by suffix (NULL: none) into buf[n]. GS_EIO
 * "dir/name: path too long" when it does not fit. */
gs_err gs_path_join(char *buf, size_t n, const char *dir, const char *name, const char *suffix,
                    gs_error *e);

#endif

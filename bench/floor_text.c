/* gpusizer bench: the floor of the text formats (Markdown, SVG, HTML, JSON,
 * CSV, the manifest): the same files of the same sizes written again with
 * plain stdio, read from SRC (the page cache) 64 KiB at a time. Each file
 * goes to DST/PATH.tmp, is flushed, fsync'ed and renamed, as
 * gs_atomic_commit does; a PATH ending in .gz holds the plain text and is
 * gzipped on the way with the settings of gs_atomic_open_gz (deflate level
 * 6, gzip header, memLevel 8). */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "floor.h"

#define CHUNK (64 * 1024)

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* fwrite's equivalent through deflate (flush Z_FINISH at the end). */
static int gz_put(z_stream *z, FILE *out, const unsigned char *p, size_t n, int flush)
{
	unsigned char o[CHUNK];
	z->next_in = (unsigned char *)p;
	z->avail_in = (uInt)n;
	do {
		z->next_out = o;
		z->avail_out = sizeof o;
		if (deflate(z, flush) == Z_STREAM_ERROR)
			return 1;
		size_t have = sizeof o - z->avail_out;
		if (have && fwrite(o, 1, have, out) != have)
			return 1;
	} while (z->avail_out == 0);
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	static unsigned char buf[CHUNK];
	char tmp[4096];
	int gz = ends_with(to, ".gz"), bad = 0;
	z_stream z;
	FILE *in = fopen(from, "rb"), *out;
	size_t n;

	snprintf(tmp, sizeof tmp, "%s.tmp", to);
	out = in != NULL ? fopen(tmp, "wb") : NULL;
	if (out == NULL) {
		fprintf(stderr, "floor_text: %s: %s\n", in ? tmp : from, strerror(errno));
		if (in)
			fclose(in);
		return 1;
	}
	memset(&z, 0, sizeof z);
	if (gz && deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		bad = 1;
	while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0)
		bad = gz ? gz_put(&z, out, buf, n, Z_NO_FLUSH) : fwrite(buf, 1, n, out) != n;
	if (gz) {
		if (!bad)
			bad = gz_put(&z, out, NULL, 0, Z_FINISH);
		deflateEnd(&z);
	}
	bad |= ferror(in) != 0;
	fclose(in);
	bad |= fflush(out) != 0 || fsync(fileno(out)) != 0;
	bad |= fclose(out) != 0;
	bad |= !bad && rename(tmp, to) != 0;
	if (bad) {
		fprintf(stderr, "floor_text: %s: write failed\n", to);
		unlink(tmp);
	}
	return bad;
}

int floor_text(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int bad = 0;

	if (d == NULL || (mkdir(dst, 0777) != 0 && errno != EEXIST)) {
		fprintf(stderr, "floor_text: %s: %s\n", d ? dst : src, strerror(errno));
		if (d)
			closedir(d);
		return 1;
	}
	while (!bad && (e = readdir(d)) != NULL) {
		char from[4096], to[4096];
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(from, sizeof from, "%s/%s", src, e->d_name);
		snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
		if (lstat(from, &st) != 0)
			bad = 1;
		else if (S_ISDIR(st.st_mode))
			bad = floor_text(from, to);
		else if (S_ISREG(st.st_mode))
			bad = copy_file(from, to);
	}
	closedir(d);
	return bad;
}

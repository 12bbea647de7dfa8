/* gpusizer: the writer registry, one row per output format (report.h,
 * gs_writer_ops). Its own file so that what reads the names (the spec)
 * links the writers only through it. */
#include "report.h"

#include <stdio.h>
#include <string.h>

static const gs_writer_ops writers[] = {
	{ "md", true, gs_writer_md, "index.md", false },
	{ "html", true, gs_writer_html, "html/index.html", false },
	{ "xlsx", true, gs_writer_xlsx, "gpusizer.xlsx", true },
	{ "json", true, gs_writer_json, "sizing.json", true },
	{ "csv", true, gs_writer_csv, "sizing.csv", true },
	{ "json.gz", false, gs_writer_json_gz, "sizing.json.gz", true },
	{ "csv.gz", false, gs_writer_csv_gz, "sizing.csv.gz", true },
};

#define N_WRITERS (sizeof writers / sizeof writers[0])

const gs_writer_ops *gs_writer_registry(size_t *n)
{
	*n = N_WRITERS;
	return writers;
}

const gs_writer_ops *gs_writer_find(const char *s)
{
	for (size_t i = 0; s != NULL && i < N_WRITERS; i++)
		if (strcmp(writers[i].name, s) == 0)
			return &writers[i];
	return NULL;
}

void gs_writer_names(char *buf, size_t n)
{
	size_t used = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < N_WRITERS && used < n; i++) {
		int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", writers[i].name);
		used += w > 0 ? (size_t)w : 0;
	}
}

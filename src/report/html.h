/* gpusizer: the HTML page renderer of the HTML writer (html.c),
 * for the writer's sink and the tests. The writer itself is
 * gs_writer_html (report.h). */
#ifndef GS_REPORT_HTML_H
#define GS_REPORT_HTML_H

#include <stddef.h>

#include "mdgen.h"
#include "template.h"

#include <stdint.h>

/* What a report page shows beside its Markdown, on a line under its first
 * heading. The strings are borrowed for the call. */
typedef struct gs_html_frame {
	const char *up; /* from the page to the report's directory: "../" for
	                   html/index.html; the downloads are linked under it */
	int64_t epoch;  /* the report's date (gs_report_meta.epoch), shown as
	                   YYYY-MM-DD (UTC); <= 0: no date */
	const char *const *downloads; /* NULL-terminated file names in the
	                   report's directory to link ("gpusizer.xlsx",
	                   "sizing.csv"); NULL: none */
} gs_html_frame;

/* Render Markdown md (len bytes; NULL is empty) with cmark-gfm (table
 * extension, safe mode: raw HTML omitted, dangerous URLs dropped) into a
 * self-contained HTML page titled title, and append the page to out:
 * each chart's SVG inline where the Markdown shows its image; each table
 * in a scroll box (div.tw, bounded height) whose header row and first
 * column stick, each body row an id "t<T>r<R>" (the page's T-th table, its
 * R-th row, from 1) for fragment links, each verdict cell a class v-fits,
 * v-tight, v-nofit or v-norun (the workbook's colours) by its text; with f
 * (NULL: none) the line of the report's date and the links to the
 * workbook, sizing.csv and sizing.json. */
void gs_html_page(gs_tbuf *out, const gs_html_frame *f, const char *title, const char *md,
                  size_t len, const gs_mdchart *charts, size_t ncharts);

#endif

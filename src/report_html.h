/* gpusizer: the HTML page renderer of the HTML writer (report_html.c),
 * for the writer's sink and the tests. The writer itself is
 * gs_writer_html (report.h). */
#ifndef GS_REPORT_HTML_H
#define GS_REPORT_HTML_H

#include <stddef.h>

#include "report_mdgen.h"
#include "template.h"

/* Render Markdown md (len bytes; NULL is empty) with cmark-gfm (table
 * extension, safe mode: raw HTML omitted, dangerous URLs dropped) into a
 * self-contained HTML page titled title, put each chart's SVG inline where
 * the Markdown shows its image, and append the page to out. */
void gs_html_page(gs_tbuf *out, const char *title, const char *md, size_t len,
                  const gs_mdchart *charts, size_t ncharts);

#endif

/* gpusizer: internal interface between the Markdown writer (report_md.c),
 * which builds every page's content from templates/, and the HTML writer
 * (report_html.c), which renders that same Markdown through cmark-gfm.
 * One code path for content; two ways to write it out. */
#ifndef GS_REPORT_MDGEN_H
#define GS_REPORT_MDGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "report.h"
#include "template.h"

/* A chart of a page: the file name the Markdown references (relative to
 * the page, e.g. "meta-llama--Llama-3.1-8B-components.svg") and its SVG
 * text. Both borrowed. */
typedef struct gs_mdchart {
	const char *file;
	const char *svg;
	size_t len;
} gs_mdchart;

/* The content writer: html false writes out/index.md and out/models/<slug>.md
 * with the charts as .svg files beside them; html true writes
 * out/html/index.html and out/html/models/<slug>.html with the charts
 * inline. The caller frees it with w->free(w). */
gs_writer *gs_mdgen_writer(bool html);

/* Where templates are read from: $GPUSIZER_TEMPLATES, else
 * gs_data_path(GS_DATA_TEMPLATES) (paths.h). Writes at most n bytes to buf. */
void gs_mdgen_templates_dir(char *buf, size_t n);

/* report_html.c: render Markdown md (len bytes) with cmark-gfm (table
 * extension, safe mode) into a self-contained HTML page titled title,
 * put each chart's SVG inline where the Markdown shows its image, and
 * append the page to out. */
void gs_html_page(gs_tbuf *out, const char *title, const char *md, size_t len,
                  const gs_mdchart *charts, size_t ncharts);

#endif

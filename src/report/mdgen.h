/* gpusizer: internal interface of the Markdown report generator
 * (md.c), which builds every page's Markdown from templates/, and
 * the sinks that write those pages out, in the manner of cmark's render.c
 * (one generator; each output passes in its own callbacks): the Markdown
 * writer's sink (md.c) writes .md files and .svg charts, the HTML
 * writer's (html.c) renders the Markdown through cmark-gfm. One code
 * path for content; two ways to write it out. The generator knows nothing
 * of HTML. */
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

/* Where the generated pages go. Pages are named by rel: "index" or
 * "models/<slug>"; links between them end in "." ext. Everything the
 * callbacks get is borrowed for the call. */
typedef struct gs_mdsink gs_mdsink;
struct gs_mdsink {
	const char *name; /* the writer's name: "md", "html" */
	const char *ext;  /* the pages' file extension, without the dot: "md", "html" */
	/* Before the first page: create the directories the pages go in under
	 * out_dir. */
	gs_err (*begin)(const gs_mdsink *s, const char *out_dir, gs_error *e);
	/* One page is done: its title, Markdown (md, len bytes) and the charts
	 * it shows (ncharts, possibly none). Writes it under out_dir. */
	gs_err (*page)(const gs_mdsink *s, const char *out_dir, const char *rel, const char *title,
	               const char *md, size_t len, const gs_mdchart *charts, size_t ncharts,
	               gs_error *e);
};

/* The content writer over a sink (borrowed: it must outlive the writer;
 * the sinks are static). The caller frees it with w->free(w). */
gs_writer *gs_mdgen_writer(const gs_mdsink *sink);

/* Where templates are read from: $GPUSIZER_TEMPLATES, else
 * gs_data_path(GS_DATA_TEMPLATES) (paths.h). Writes at most n bytes to buf. */
void gs_mdgen_templates_dir(char *buf, size_t n);

#endif

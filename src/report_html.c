/* gpusizer: HTML writer: the Markdown generator's pages (report_md.c)
 * through this file's sink: rendered by cmark-gfm (table extension, safe
 * mode), one self-contained page each, charts inline. */
#include "report_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "fileio.h"
#include "mdesc.h"
#include "report_mdgen.h"
#include "template.h"
#include "util.h"

static const char css[] =
	"body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
	"margin:2em auto;max-width:1400px;padding:0 1em;color:#1f2328;line-height:1.45}\n"
	"table{border-collapse:collapse;margin:1em 0;font-size:13px;display:block;overflow-x:auto}\n"
	"th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}\n"
	"th{background:#f6f8fa;position:sticky;top:0}\n"
	"tr:nth-child(even) td{background:#fbfbfc}\n"
	"code{background:#f6f8fa;padding:0 3px}\n"
	"svg{max-width:100%;height:auto;display:block;margin:1em 0}\n"
	"a{color:#0969da}\n";

/* Render Markdown to an HTML fragment (caller frees). Safe mode: raw HTML
 * in the input is omitted and dangerous URLs are dropped. */
static char *md_to_html(const char *md, size_t len)
{
	cmark_parser *p;
	cmark_syntax_extension *table;
	cmark_node *doc;
	char *html;

	cmark_gfm_core_extensions_ensure_registered();
	p = cmark_parser_new(CMARK_OPT_DEFAULT);
	table = cmark_find_syntax_extension("table");
	if (table)
		cmark_parser_attach_syntax_extension(p, table);
	cmark_parser_feed(p, md, len);
	doc = cmark_parser_finish(p);
	html = cmark_render_html(doc, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(p));
	cmark_node_free(doc);
	cmark_parser_free(p);
	return html;
}

void gs_html_page(gs_tbuf *out, const char *title, const char *md, size_t len,
                  const gs_mdchart *charts, size_t ncharts)
{
	char *body = md_to_html(md ? md : "", md ? len : 0);
	const char *p = body ? body : "";

	gs_tbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	                  "<title>");
	gs_xml_escape(out, title);
	gs_tbuf_puts(out, "</title>\n<style>\n");
	gs_tbuf_puts(out, css);
	gs_tbuf_puts(out, "</style>\n</head>\n<body>\n");
	/* Replace each chart's <img src="FILE" ... /> (as cmark writes it) by
	 * the SVG itself: cmark's safe mode would drop a data:image/svg+xml
	 * URL, and an inline SVG keeps the page self-contained. */
	for (;;) {
		const char *img = strstr(p, "<img src=\"");
		const char *best = NULL, *end;
		size_t i, bi = 0;

		if (img == NULL)
			break;
		for (i = 0; i < ncharts; i++) {
			size_t fl = strlen(charts[i].file);
			if (strncmp(img + 10, charts[i].file, fl) == 0 && img[10 + fl] == '"') {
				best = img;
				bi = i;
				break;
			}
		}
		end = strstr(img, "/>");
		if (best == NULL || end == NULL) {
			size_t n = (size_t)(img - p) + 10;
			gs_tbuf_add(out, p, n);
			p += n;
			continue;
		}
		gs_tbuf_add(out, p, (size_t)(img - p));
		gs_tbuf_add(out, charts[bi].svg, charts[bi].len);
		p = end + 2;
	}
	gs_tbuf_puts(out, p);
	gs_tbuf_puts(out, "</body>\n</html>\n");
	free(body);
}

/* ---------------------------------------------------- the HTML sink */

static gs_err html_begin(const gs_mdsink *s, const char *out_dir, gs_error *e)
{
	char path[4096];
	gs_err err;

	(void)s;
	err = gs_path_join(path, sizeof path, out_dir, "html/models", NULL, e);
	if (!err)
		err = gs_mkdirs(path, e);
	return err;
}

/* The page as out_dir/html/<rel>.html, its charts inline. */
static gs_err html_page(const gs_mdsink *s, const char *out_dir, const char *rel,
                        const char *title, const char *md, size_t len, const gs_mdchart *charts,
                        size_t ncharts, gs_error *e)
{
	gs_tbuf page = { 0 };
	char path[4096], hrel[4096];
	gs_err err;

	(void)s;
	gs_html_page(&page, title, md, len, charts, ncharts);
	snprintf(hrel, sizeof hrel, "html/%s", rel);
	err = gs_path_join(path, sizeof path, out_dir, hrel, ".html", e);
	if (!err && page.too_big)
		err = gs_fail(e, GS_EIO, "%s: page too large", path);
	if (!err)
		err = gs_write_file_atomic(path, page.p, page.len, e);
	gs_tbuf_free(&page);
	return err;
}

static const gs_mdsink html_sink = { "html", "html", html_begin, html_page };

gs_writer *gs_writer_html(void)
{
	return gs_mdgen_writer(&html_sink);
}

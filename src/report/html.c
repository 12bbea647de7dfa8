/* gpusizer: HTML writer: the Markdown generator's pages (md.c)
 * through this file's sink: rendered by cmark-gfm (table extension, safe
 * mode), one self-contained page each, charts inline, tables in scroll
 * boxes with a sticky header row and first column, verdicts coloured. */
#define _POSIX_C_SOURCE 200809L
#include "html.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "fileio.h"
#include "mdesc.h"
#include "report.h"
#include "mdgen.h"
#include "template.h"
#include "util.h"

/* The verdict colours are the workbook's (xlsx.c): fill and text. */
static const char css[] =
	"body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
	"margin:0 auto;max-width:1400px;padding:0 1em 2em;color:#1f2328;line-height:1.45}\n"
	".gen{color:#57606a;font-size:14px;margin:.2em 0 1em}\n"
	".tw{overflow:auto;max-height:80vh;margin:1em 0;border:1px solid #d0d7de}\n"
	".tw table{border-collapse:separate;border-spacing:0;font-size:13px}\n"
	".tw:has(tr:target) .tail{height:30vh}\n"
	"th,td{border:0 solid #d0d7de;border-width:0 1px 1px 0;padding:4px 8px;"
	"vertical-align:top;background:#ffffff}\n"
	"thead th{position:sticky;top:0;z-index:2;background:#dbe4ee;text-align:left}\n"
	".tw td{white-space:nowrap}\n"
	"thead th{min-width:5em}\n"
	"th:first-child,td:first-child{position:sticky;left:0;z-index:1;background:#f6f8fa;"
	"white-space:normal;min-width:min(20em,40vw)}\n"
	"thead th:first-child{z-index:3;background:#dbe4ee}\n"
	"tbody tr{scroll-margin-top:50vh}\n"
	"tbody tr:nth-child(even) td{background:#fbfbfc}\n"
	"tbody tr:nth-child(even) td:first-child{background:#f0f2f4}\n"
	".tw td.v-fits{background:#C6EFCE;color:#006100}\n"
	".tw td.v-tight{background:#FFEB9C;color:#9C5700}\n"
	".tw td.v-nofit{background:#FFC7CE;color:#9C0006}\n"
	".tw td.v-norun{background:#D9D9D9;color:#404040}\n"
	"code{background:#f6f8fa;padding:0 3px}\n"
	"svg{width:100%;max-width:560px;height:auto;display:block;margin:1em 0}\n"
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

/* ------------------------------------------- post-processing of tables */

/* A table with more body rows than this gets a spacer after it inside its
 * scroll box, shown while one of its rows is the fragment's target, so a
 * link to any row (even the last) scrolls the row to the middle of the
 * box: the box's top, and its sticky header, at the top of the screen. */
#define LONG_TABLE_ROWS 20

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The text of cell markup p..end without its tags (<strong>, <a>, ...),
 * leading blanks dropped; at most n - 1 bytes. */
static void cell_text(const char *p, const char *end, char *buf, size_t n)
{
	size_t k = 0;
	bool tag = false;

	for (; p < end && k + 1 < n; p++) {
		if (*p == '<')
			tag = true;
		else if (*p == '>')
			tag = false;
		else if (!tag && !(k == 0 && (*p == ' ' || *p == '\n')))
			buf[k++] = *p;
	}
	buf[k] = '\0';
}

/* Whether a header cell's text is a number (a context length: the column
 * of a summary or plan table). */
static bool numeric(const char *t)
{
	if (*t == '\0')
		return false;
	for (; *t; t++)
		if (*t < '0' || *t > '9')
			return false;
	return true;
}

/* Whether t reads "<count> x <class>...", the smallest GPU an answer
 * names ("1 x 24 GB (NVIDIA L4)"). */
static bool count_x_class(const char *t)
{
	const char *p = t;

	while (*p >= '0' && *p <= '9')
		p++;
	return p > t && starts(p, " x ");
}

/* The short cells of a matrix: a symbol, then the headroom or the GiB
 * over; "—" is "not runnable" in a matrix (and "nothing swept" in a
 * summary table, where it gets no colour). */
static const char *const symbol[GS_VERDICT_MAX] = { "\u2713", "\u2248", "\u2717", "\u2014" };

/* The CSS class of a cell by its text: the verdict names of a matrix
 * ("fits 22%", "does not fit (2.1 GiB over)") or its symbols ("✓ 22%",
 * "≈ 8%", "✗ 2.1", and "—" in a table with verdicts), the answers of the
 * summaries ("1 x 24 GB (NVIDIA L4)", "..., tight", "none fits"), and under
 * a context column the plan view's ("4 (zero3, tight)", "none up to 64",
 * "needs bf16"). NULL: no colour. */
static const char *verdict_class(const char *t, bool context_column, bool verdict_table)
{
	static const char *const cls[GS_VERDICT_MAX] = { "v-fits", "v-tight", "v-nofit",
		                                         "v-norun" };

	for (int v = GS_VERDICT_MAX - 1; v >= 0; v--) /* "not runnable" before "fits" */
		if (starts(t, gs_verdict_name((gs_verdict)v)))
			return cls[v];
	if (count_x_class(t)) /* an answer: "1 x 24 GB (NVIDIA L4)", ", tight" */
		return strstr(t, "tight") ? cls[GS_TIGHT] : cls[GS_FITS];
	if (strcmp(t, "none fits") == 0)
		return cls[GS_NO_FIT];
	if (context_column) {
		if (starts(t, "none "))
			return cls[GS_NO_FIT];
		if (starts(t, "needs ") || starts(t, "no estimate"))
			return cls[GS_NOT_RUNNABLE];
		if (*t >= '0' && *t <= '9')
			return strstr(t, "tight") ? cls[GS_TIGHT] : cls[GS_FITS];
	}
	for (int v = 0; v < GS_VERDICT_MAX; v++)
		if (starts(t, symbol[v]) && (v != GS_NOT_RUNNABLE || (verdict_table && !context_column)))
			return cls[v];
	return NULL;
}

/* Whether the table starting at p has a cell that starts with a verdict
 * symbol ✓ ≈ ✗ (then "—" in it means "not runnable"). */
static bool has_verdict_symbols(const char *p)
{
	const char *end = strstr(p, "</table>");

	for (int v = 0; v < GS_NOT_RUNNABLE; v++) {
		const char *q = strstr(p, symbol[v]);
		if (q != NULL && (end == NULL || q < end) && q > p &&
		    (q[-1] == '>' || q[-1] == ' '))
			return true;
	}
	return false;
}

/* Count the body rows of the table starting at p (up to its </table>). */
static size_t body_rows(const char *p)
{
	const char *end = strstr(p, "</table>"), *q = strstr(p, "<tbody>");
	size_t n = 0;

	if (q == NULL || end == NULL || q > end)
		return 0;
	while ((q = strstr(q + 1, "<tr>")) != NULL && q < end)
		n++;
	return n;
}

#define MAX_COLS 512

/* Copy cmark's HTML in to out with its tables made readable: each table in
 * a scroll box (div.tw: the sticky header and first column stick to it),
 * each body row an id "t<table>r<row>" (1-based on the page) for fragment
 * links, and each verdict cell a class for its colour. */
static void tables(gs_tbuf *out, const char *in)
{
	const char *p = in;
	bool numcol[MAX_COLS];
	size_t ntab = 0, nrow = 0, col = 0, rows = 0;
	bool in_head = false, symbols = false;

	for (;;) {
		const char *t = strchr(p, '<');
		char text[256];

		if (t == NULL)
			break;
		gs_tbuf_add(out, p, (size_t)(t - p));
		p = t;
		if (starts(p, "<table>")) {
			ntab++;
			nrow = 0;
			rows = body_rows(p);
			symbols = has_verdict_symbols(p);
			memset(numcol, 0, sizeof numcol);
			gs_tbuf_printf(out, "<div class=\"tw%s\"><table>", rows > LONG_TABLE_ROWS ? " long" : "");
			p += 7;
		} else if (starts(p, "</table>")) {
			gs_tbuf_printf(out, "</table>%s</div>",
			               rows > LONG_TABLE_ROWS ? "<div class=\"tail\"></div>" : "");
			p += 8;
		} else if (starts(p, "<thead>") || starts(p, "<tbody>")) {
			in_head = p[2] == 'h';
			gs_tbuf_add(out, p, 7);
			p += 7;
		} else if (starts(p, "<tr>")) {
			col = 0;
			if (!in_head && ntab > 0)
				gs_tbuf_printf(out, "<tr id=\"t%zur%zu\">", ntab, ++nrow);
			else
				gs_tbuf_puts(out, "<tr>");
			p += 4;
		} else if ((starts(p, "<th") || starts(p, "<td")) && (p[3] == '>' || p[3] == ' ')) {
			const char *gt = strchr(p, '>');
			const char *close = strstr(p, p[2] == 'h' ? "</th>" : "</td>");
			const char *cls = NULL;

			if (gt == NULL || close == NULL)
				break;
			cell_text(gt + 1, close, text, sizeof text);
			if (p[2] == 'h') {
				if (col < MAX_COLS)
					numcol[col] = numeric(text);
			} else {
				cls = col == 0 ? NULL : verdict_class(text, col < MAX_COLS && numcol[col], symbols);
			}
			col++;
			if (cls) {
				gs_tbuf_printf(out, "<td class=\"%s\"", cls);
				gs_tbuf_add(out, p + 3, (size_t)(gt + 1 - (p + 3)));
			} else {
				gs_tbuf_add(out, p, (size_t)(gt + 1 - p));
			}
			p = gt + 1;
		} else {
			gs_tbuf_putc(out, '<');
			p++;
		}
	}
	gs_tbuf_puts(out, p);
}

/* Copy in to out with each chart's <img src="FILE" ... /> (as cmark writes
 * it) replaced by the SVG itself: cmark's safe mode would drop a
 * data:image/svg+xml URL, and an inline SVG keeps the page self-contained. */
static void inline_charts(gs_tbuf *out, const char *p, const gs_mdchart *charts, size_t ncharts)
{
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
}

/* The line under the first heading: the report's date and the downloads. */
static void frame_line(gs_tbuf *out, const gs_html_frame *f)
{
	size_t k = 0;

	if (f->epoch <= 0 && (f->downloads == NULL || f->downloads[0] == NULL))
		return;
	gs_tbuf_puts(out, "<p class=\"gen\">");
	if (f->epoch > 0) {
		time_t t = (time_t)f->epoch;
		struct tm tm;
		char date[32] = "";

		if (gmtime_r(&t, &tm) != NULL)
			strftime(date, sizeof date, "%Y-%m-%d", &tm);
		gs_tbuf_puts(out, "Generated ");
		gs_xml_escape(out, date);
	}
	for (const char *const *d = f->downloads; d && *d; d++, k++) {
		gs_tbuf_puts(out, k == 0 ? (f->epoch > 0 ? ". Every configuration: " : "Every configuration: ")
		                         : " · ");
		gs_tbuf_puts(out, "<a href=\"");
		gs_xml_escape(out, f->up ? f->up : "");
		gs_xml_escape(out, *d);
		gs_tbuf_puts(out, "\">");
		gs_xml_escape(out, *d);
		gs_tbuf_puts(out, "</a>");
		if (strstr(*d, ".xlsx"))
			gs_tbuf_puts(out, " (the workbook)");
	}
	gs_tbuf_puts(out, "</p>\n");
}

void gs_html_page(gs_tbuf *out, const gs_html_frame *f, const char *title, const char *md,
                  size_t len, const gs_mdchart *charts, size_t ncharts)
{
	char *body = md_to_html(md ? md : "", md ? len : 0);
	gs_tbuf tab = { 0 }, full = { 0 };
	const char *p, *h1;

	tables(&tab, body ? body : "");
	free(body);
	inline_charts(&full, tab.p ? tab.p : "", charts, ncharts);
	p = full.p ? full.p : "";
	gs_tbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	                  "<title>");
	gs_xml_escape(out, title);
	gs_tbuf_puts(out, "</title>\n<style>\n");
	gs_tbuf_puts(out, css);
	gs_tbuf_puts(out, "</style>\n</head>\n<body>\n");
	h1 = strstr(p, "</h1>\n");
	if (f && h1) {
		gs_tbuf_add(out, p, (size_t)(h1 + 6 - p));
		p = h1 + 6;
	}
	if (f)
		frame_line(out, f);
	gs_tbuf_puts(out, p);
	gs_tbuf_puts(out, "</body>\n</html>\n");
	if (tab.too_big || full.too_big)
		out->too_big = true;
	gs_tbuf_free(&tab);
	gs_tbuf_free(&full);
}

/* ---------------------------------------------------- the HTML sink */

/* The sink with the report's date: gs_writer_html wraps the generator's
 * writer to learn it at begin. The sink is the first member, so a sink
 * callback gets back its html_state from its gs_mdsink pointer. */
typedef struct html_state {
	gs_mdsink sink;
	int64_t epoch;
	gs_writer *inner; /* the generator's writer over sink; owned */
} html_state;

/* The downloads the report holds beside the pages: the writer registry's
 * download files (gs_writer_ops.download) whose file, or its temporary
 * (fileio.h: "<name>.tmp.*"), is in out_dir, in file-name order. Every
 * writer opens its file at begin, before any page is written, so the
 * answer is the same on every page and every run. found has room for the
 * registry's rows and a NULL. */
static void find_downloads(const char *out_dir, const char **found)
{
	size_t n = 0, nw;
	const gs_writer_ops *w = gs_writer_registry(&nw);
	DIR *d = opendir(out_dir);
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL)
		for (size_t i = 0; i < nw; i++) {
			size_t l = strlen(w[i].file), k;
			if (!w[i].download || strncmp(de->d_name, w[i].file, l) != 0 ||
			    (de->d_name[l] != '\0' && strncmp(de->d_name + l, ".tmp.", 5) != 0))
				continue;
			for (k = 0; k < n && strcmp(found[k], w[i].file) != 0; k++)
				;
			if (k < n)
				continue; /* the file and its temporary */
			/* insert in file-name order */
			for (k = n; k > 0 && strcmp(found[k - 1], w[i].file) > 0; k--)
				found[k] = found[k - 1];
			found[k] = w[i].file;
			n++;
		}
	if (d)
		closedir(d);
	found[n] = NULL;
}

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
	const html_state *st = (const html_state *)s;
	gs_tbuf page = { 0 };
	char path[4096], hrel[4096], up[256] = "../";
	size_t nw;
	const char **downloads;
	gs_html_frame f;
	gs_err err;

	gs_writer_registry(&nw);
	downloads = gs_xcalloc(nw + 1, sizeof *downloads);

	/* From out_dir/html/<rel>.html back to out_dir: one "../" per '/'. */
	for (const char *c = rel; *c; c++)
		if (*c == '/' && strlen(up) + 3 < sizeof up)
			strcat(up, "../");
	f.up = up;
	f.epoch = st->epoch;
	find_downloads(out_dir, downloads);
	f.downloads = downloads;
	gs_html_page(&page, &f, title, md, len, charts, ncharts);
	snprintf(hrel, sizeof hrel, "html/%s", rel);
	err = gs_path_join(path, sizeof path, out_dir, hrel, ".html", e);
	if (!err && page.too_big)
		err = gs_fail(e, GS_EIO, "%s: page too large", path);
	if (!err)
		err = gs_write_file_atomic(path, page.p, page.len, e);
	gs_tbuf_free(&page);
	free(downloads);
	return err;
}

static gs_err hw_begin(gs_writer *w, const gs_report_meta *m, gs_error *e)
{
	html_state *st = w->state;

	st->epoch = m->epoch;
	return st->inner->begin(st->inner, m, e);
}

static gs_err hw_model_begin(gs_writer *w, const gs_model *model, gs_error *e)
{
	html_state *st = w->state;
	return st->inner->model_begin(st->inner, model, e);
}

static gs_err hw_row(gs_writer *w, const gs_row *r, gs_error *e)
{
	html_state *st = w->state;
	return st->inner->row(st->inner, r, e);
}

static gs_err hw_model_end(gs_writer *w, const gs_model *model, gs_error *e)
{
	html_state *st = w->state;
	return st->inner->model_end(st->inner, model, e);
}

static gs_err hw_end(gs_writer *w, gs_error *e)
{
	html_state *st = w->state;
	return st->inner->end(st->inner, e);
}

static void hw_free(gs_writer *w)
{
	html_state *st = w->state;

	st->inner->free(st->inner);
	free(st);
	free(w);
}

gs_writer *gs_writer_html(void)
{
	html_state *st = gs_xcalloc(1, sizeof *st);
	gs_writer *w = gs_xcalloc(1, sizeof *w);

	st->sink.name = "html";
	st->sink.ext = "html";
	st->sink.begin = html_begin;
	st->sink.page = html_page;
	st->inner = gs_mdgen_writer(&st->sink);
	w->name = "html";
	w->begin = hw_begin;
	w->model_begin = hw_model_begin;
	w->row = hw_row;
	w->model_end = hw_model_end;
	w->end = hw_end;
	w->free = hw_free;
	w->state = st;
	return w;
}

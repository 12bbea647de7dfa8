/* gpusizer: hand-written SVG charts (stacked components, memory vs context).
 *
 * The layout is sized for a phone: a viewBox 460 units wide whose text is
 * 14 units, so a chart shrunk to a 390 px screen (about 358 px of page)
 * still shows 11 px text; the HTML and GitHub scale it by its width. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdesc.h"
#include "palette.h"
#include "util.h"

#define W_ 460       /* viewBox width */
#define PH 260       /* plot height */
#define ML 46        /* left margin (tick labels, the axis title) */
#define MR 78        /* right margin (capacity labels) */
#define FT 16        /* title font size */
#define FS 14        /* every other text */
#define LH 18        /* line height of FS text */
#define LABEL_GAP 16 /* capacity labels at least this far apart */
#define CHAR_W 0.58  /* a character's width in em, to wrap text (DejaVu/Helvetica average) */
#define BOLD_W 0.66  /* the same for the bold title */

static const char *const part_name[GS_SVG_PARTS] = { "W weights", "G gradients",
	                                              "O optimizer", "A activations",
	                                              "B other" };
static const unsigned part_rgb[GS_SVG_PARTS] = { GS_PALETTE_W, GS_PALETTE_G, GS_PALETTE_O,
	                                          GS_PALETTE_A, GS_PALETTE_B };
static const char *const line_color[] = { "#4e79a7", "#e15759", "#59a14f", "#b07aa1",
	                                  "#f28e2b", "#76b7b2", "#9c755f", "#edc948" };
#define NLINE_COLORS (sizeof line_color / sizeof line_color[0])

/* Append a coordinate with one decimal. */
static void num(gs_tbuf *o, double v)
{
	char b[48];
	gs_tbuf_puts(o, gs_fmt_fixed(b, sizeof b, v, 1));
}

static void text(gs_tbuf *o, double x, double y, const char *anchor, const char *extra,
                 const char *s)
{
	gs_tbuf_puts(o, "<text x=\"");
	num(o, x);
	gs_tbuf_puts(o, "\" y=\"");
	num(o, y);
	gs_tbuf_printf(o, "\" text-anchor=\"%s\"%s>", anchor, extra);
	gs_xml_escape(o, s);
	gs_tbuf_puts(o, "</text>\n");
}

static void line(gs_tbuf *o, double x1, double y1, double x2, double y2, const char *style)
{
	gs_tbuf_puts(o, "<line x1=\"");
	num(o, x1);
	gs_tbuf_puts(o, "\" y1=\"");
	num(o, y1);
	gs_tbuf_puts(o, "\" x2=\"");
	num(o, x2);
	gs_tbuf_puts(o, "\" y2=\"");
	num(o, y2);
	gs_tbuf_printf(o, "\" %s/>\n", style);
}

static void rect(gs_tbuf *o, double x, double y, double w, double h, const char *fill)
{
	gs_tbuf_puts(o, "<rect x=\"");
	num(o, x);
	gs_tbuf_puts(o, "\" y=\"");
	num(o, y);
	gs_tbuf_puts(o, "\" width=\"");
	num(o, w);
	gs_tbuf_puts(o, "\" height=\"");
	num(o, h);
	gs_tbuf_printf(o, "\" fill=\"%s\"/>\n", fill);
}

/* Text s in lines of at most width units at font size fs (FT: the bold
 * title), left-aligned at x from baseline y, breaking at spaces (a longer
 * word gets a line of its own). Returns the baseline after the last line. */
static double wrapped(gs_tbuf *o, double x, double y, double width, int fs, const char *extra,
                      const char *s)
{
	size_t max = (size_t)(width / (fs * (fs == FT ? BOLD_W : CHAR_W)));
	char buf[1024];

	if (s == NULL)
		return y;
	if (max < 8)
		max = 8;
	while (*s) {
		size_t n = strlen(s), cut = n;

		if (n > max) {
			for (cut = max; cut > 0 && s[cut] != ' '; cut--)
				;
			if (cut == 0)
				for (cut = max; cut < n && s[cut] != ' '; cut++)
					;
		}
		if (cut >= sizeof buf)
			cut = sizeof buf - 1;
		memcpy(buf, s, cut);
		buf[cut] = '\0';
		text(o, x, y, "start", extra, buf);
		y += fs + 4;
		s += cut;
		while (*s == ' ')
			s++;
	}
	return y;
}

/* The number of lines wrapped() writes for s (the same breaks). */
static int wrapped_lines(double width, int fs, const char *s)
{
	gs_tbuf dummy = { 0 };
	int n = (int)((wrapped(&dummy, 0, 0, width, fs, "", s) + 0.5) / (fs + 4));
	gs_tbuf_free(&dummy);
	return n;
}

/* Open the <svg> of height h, with its title (wrapped, bold, top left). */
static void open_svg(gs_tbuf *o, const char *title, double h)
{
	gs_tbuf_printf(o,
	               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
	               "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"%d\" "
	               "role=\"img\">\n<title>",
	               W_, h, W_, h, FS);
	gs_xml_escape(o, title);
	gs_tbuf_printf(o, "</title>\n<rect width=\"%d\" height=\"%.0f\" fill=\"#ffffff\"/>\n", W_, h);
	wrapped(o, 8, FT + 6, W_ - 16, FT, " font-size=\"16\" font-weight=\"bold\"", title);
}

/* The top of the plot under a title of so many lines. */
static double plot_top(const char *title)
{
	return FT + 6 + (FT + 4) * (wrapped_lines(W_ - 16, FT, title) - 1) + 22;
}

/* Pick a tick step (GiB) of 1, 2 or 5 x 10^k giving at most 6 ticks. */
static double tick_step(double max_gib)
{
	double step = 0.001;
	static const double m[] = { 1, 2, 5 };
	int i;

	for (;;) {
		for (i = 0; i < 3; i++)
			if (max_gib / (step * m[i]) <= 6)
				return step * m[i];
		step *= 10;
	}
}

/* The y range: max(top, first capacity above top), plus 5%. */
static double y_range(uint64_t top, const gs_svg_cap *caps, size_t ncaps)
{
	uint64_t best = top;
	uint64_t above = 0;
	size_t i;

	for (i = 0; i < ncaps; i++)
		if (caps[i].bytes > top && (above == 0 || caps[i].bytes < above))
			above = caps[i].bytes;
	if (above)
		best = above;
	if (best == 0)
		best = UINT64_C(1) << 30;
	return (double)best / GS_GIB * 1.05;
}

static double y_of(double gib, double mt, double ymax)
{
	return mt + PH * (1 - gib / ymax);
}

static void y_axis(gs_tbuf *o, double mt, double ymax)
{
	double step = tick_step(ymax), v;
	char b[48];
	int dec = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;
	int k;

	for (k = 0; (v = k * step) <= ymax + 1e-9; k++) {
		double y = y_of(v, mt, ymax);
		line(o, ML, y, W_ - MR, y, "stroke=\"#e0e0e0\"");
		text(o, ML - 5, y + 5, "end", "", gs_fmt_fixed(b, sizeof b, v, dec));
	}
	line(o, ML, mt, ML, mt + PH, "stroke=\"#333333\"");
	line(o, ML, mt + PH, W_ - MR, mt + PH, "stroke=\"#333333\"");
	gs_tbuf_puts(o, "<text x=\"14\" y=\"");
	num(o, mt + PH / 2.0);
	gs_tbuf_puts(o, "\" text-anchor=\"middle\" transform=\"rotate(-90 14 ");
	num(o, mt + PH / 2.0);
	gs_tbuf_puts(o, ")\">GiB per GPU</text>\n");
}

/* Capacity lines (caps ascending) up to ymax, each labelled by its class
 * at the right. The labels keep LABEL_GAP between them: pushed apart from
 * their lines' heights as little as possible, each joined to its own line
 * by a leader when it moved, so no label sits beside the wrong line. */
static void caps_draw(gs_tbuf *o, double mt, double ymax, const gs_svg_cap *caps, size_t ncaps)
{
	double ly[64], ty[64];
	size_t idx[64], n = 0, i;
	double top = mt + 6, bottom = mt + PH + 10, gap = LABEL_GAP;

	/* From the top down (caps are ascending in bytes: descending in y). */
	for (i = ncaps; i-- > 0 && n < 64;) {
		double gib = (double)caps[i].bytes / GS_GIB;
		if (gib > ymax)
			continue;
		ly[n] = y_of(gib, mt, ymax);
		ty[n] = ly[n] + 5;
		idx[n++] = i;
	}
	if (n > 1 && (bottom - top) / (double)(n - 1) < gap)
		gap = (bottom - top) / (double)(n - 1);
	for (i = 1; i < n; i++) /* push down */
		if (ty[i] < ty[i - 1] + gap)
			ty[i] = ty[i - 1] + gap;
	if (n > 0 && ty[n - 1] > bottom)
		ty[n - 1] = bottom;
	for (i = n; i-- > 1;) /* then up, from the bottom */
		if (ty[i - 1] > ty[i] - gap)
			ty[i - 1] = ty[i] - gap;
	for (i = 0; i < n; i++) {
		const gs_svg_cap *c = &caps[idx[i]];
		double x0 = W_ - MR;

		line(o, ML, ly[i], x0, ly[i], "stroke=\"#444444\" stroke-dasharray=\"6 4\"");
		gs_tbuf_puts(o, "<polyline fill=\"none\" stroke=\"#888888\" points=\"");
		num(o, x0);
		gs_tbuf_putc(o, ',');
		num(o, ly[i]);
		gs_tbuf_putc(o, ' ');
		num(o, x0 + 10);
		gs_tbuf_putc(o, ',');
		num(o, ty[i] - 5);
		gs_tbuf_putc(o, ' ');
		num(o, x0 + 14);
		gs_tbuf_putc(o, ',');
		num(o, ty[i] - 5);
		gs_tbuf_puts(o, "\"/>\n");
		text(o, x0 + 16, ty[i], "start", "", c->label ? c->label : "");
	}
}

/* The usable memory of every capacity line drawn, as a caption. */
static void caps_caption(char *buf, size_t n, double ymax, const gs_svg_cap *caps, size_t ncaps)
{
	size_t k = 0;
	bool any = false;

	k += (size_t)snprintf(buf, n, "Dashed: usable GiB per GPU class:");
	for (size_t i = 0; i < ncaps && k < n; i++) {
		double gib = (double)caps[i].bytes / GS_GIB;
		char g[48];
		if (gib > ymax)
			continue;
		k += (size_t)snprintf(buf + k, n - k, "%s %s %s", any ? "," : "",
		                      caps[i].label ? caps[i].label : "", gs_fmt_fixed(g, sizeof g, gib, 1));
		any = true;
	}
	if (!any)
		snprintf(buf, n, "No GPU class within the scale.");
	else if (k < n)
		snprintf(buf + k, n - k, ".");
}

/* The end of a chart: the capacities' caption line under the caption so
 * far (o, ending at y), then the <svg> element of the height that makes,
 * o's body and the close, into out; o is freed. */
static void finish_svg(gs_tbuf *out, gs_tbuf *o, const char *title, double y, double ymax,
                       const gs_svg_cap *caps, size_t ncaps)
{
	char cap[2048];

	caps_caption(cap, sizeof cap, ymax, caps, ncaps);
	y = wrapped(o, 10, y, W_ - 20, FS, " fill=\"#333333\"", cap);
	open_svg(out, title, y + 4);
	gs_tbuf_add(out, o->p ? o->p : "", o->len);
	gs_tbuf_puts(out, "</svg>\n");
	if (o->too_big)
		out->too_big = true;
	gs_tbuf_free(o);
}

/* How many GPUs a settings label runs on: its "<N>x..." token ("8xzero3"),
 * else 1. */
static long label_gpus(const char *s)
{
	for (const char *p = s; p && *p; p++) {
		if ((p == s || p[-1] == ' ') && *p >= '1' && *p <= '9') {
			const char *q = p;
			long v = 0;
			while (*q >= '0' && *q <= '9' && v < 1000000)
				v = v * 10 + (*q++ - '0');
			if (*q == 'x')
				return v;
		}
	}
	return 1;
}

/* head + config with its GPU count: "... sdpa on 1 GPU: 18.08 GiB" (the
 * count before the config's last ": ", else at its end; none when config
 * names GPUs already). */
static void config_line(char *buf, size_t n, const char *head, const char *config)
{
	long g = label_gpus(config);
	const char *colon = NULL;

	for (const char *p = strstr(config, ": "); p; p = strstr(p + 1, ": "))
		colon = p;
	if (strstr(config, "GPU"))
		snprintf(buf, n, "%s%s", head, config);
	else if (colon)
		snprintf(buf, n, "%s%.*s on %ld GPU%s%s", head, (int)(colon - config), config, g,
		         g == 1 ? "" : "s", colon);
	else
		snprintf(buf, n, "%s%s on %ld GPU%s", head, config, g, g == 1 ? "" : "s");
}

static void no_data(gs_tbuf *o, const char *title)
{
	double mt = plot_top(title);

	open_svg(o, title, mt + 60);
	text(o, W_ / 2.0, mt + 20, "middle", "", "no data");
	gs_tbuf_puts(o, "</svg>\n");
}

/* The legend of W/G/O/A/B swatches, three to a row, from baseline y.
 * Returns the baseline after it. */
static double parts_legend(gs_tbuf *o, double y)
{
	for (int p = 0; p < GS_SVG_PARTS; p++) {
		double x = 10 + 150.0 * (p % 3), yy = y + LH * (double)(p / 3);
		char fill[16];
		snprintf(fill, sizeof fill, "#%06x", part_rgb[p]);
		rect(o, x, yy - 12, 13, 13, fill);
		text(o, x + 18, yy, "start", "", part_name[p]);
	}
	return y + LH * ((GS_SVG_PARTS + 2) / 3);
}

void gs_svg_stacked(gs_tbuf *out, const char *title, const gs_svg_bar *bars, size_t nbars,
                    const gs_svg_cap *caps, size_t ncaps)
{
	gs_tbuf o = { 0 };
	uint64_t top = 0;
	double ymax, mt, plot_w = W_ - ML - MR, slot, bw, y;
	char cap[2048];
	size_t i;
	int p;

	if (nbars == 0) {
		no_data(out, title);
		return;
	}
	mt = plot_top(title);
	for (i = 0; i < nbars; i++) {
		uint64_t t = 0;
		for (p = 0; p < GS_SVG_PARTS; p++)
			if (!gs_add_u64(t, bars[i].part[p], &t))
				t = UINT64_MAX;
		if (t > top)
			top = t;
	}
	ymax = y_range(top, caps, ncaps);
	y_axis(&o, mt, ymax);
	slot = plot_w / (double)nbars;
	bw = slot * 0.6;
	if (bw > 60)
		bw = 60;
	caps_draw(&o, mt, ymax, caps, ncaps);
	for (i = 0; i < nbars; i++) {
		double x = ML + slot * (double)i + (slot - bw) / 2, acc = 0;
		gs_tbuf_puts(&o, "<g>\n<title>");
		gs_xml_escape(&o, bars[i].tooltip ? bars[i].tooltip : bars[i].label);
		gs_tbuf_puts(&o, "</title>\n");
		for (p = 0; p < GS_SVG_PARTS; p++) {
			double gib = (double)bars[i].part[p] / GS_GIB, y0, y1;
			if (bars[i].part[p] == 0)
				continue;
			y0 = y_of(acc, mt, ymax);
			acc += gib;
			y1 = y_of(acc, mt, ymax);
			char fill[16];
			snprintf(fill, sizeof fill, "#%06x", part_rgb[p]);
			rect(&o, x, y1, bw, y0 - y1, fill);
		}
		gs_tbuf_puts(&o, "</g>\n");
		text(&o, x + bw / 2, mt + PH + 20, "middle", "", bars[i].label ? bars[i].label : "");
	}
	y = parts_legend(&o, mt + PH + 46);
	/* The caption: what each bar shows, and the capacities. */
	y = wrapped(&o, 10, y + 4, W_ - 20, FS, "", "Each bar, at the peak, per GPU:");
	for (i = 0; i < nbars; i++) {
		config_line(cap, sizeof cap, "",
		            bars[i].tooltip ? bars[i].tooltip : bars[i].label ? bars[i].label : "");
		y = wrapped(&o, 10, y, W_ - 20, FS, " fill=\"#333333\"", cap);
	}
	finish_svg(out, &o, title, y, ymax, caps, ncaps);
}

/* A context as a tick label: "512", "2k", "128k" (k = 1024), "1M". */
static void ctx_label(char *b, size_t n, int64_t v)
{
	if (v >= 1048576 && v % 1048576 == 0)
		snprintf(b, n, "%lldM", (long long)(v / 1048576));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%lldk", (long long)(v / 1024));
	else
		snprintf(b, n, "%lld", (long long)v);
}

/* The distinct x values of the series (> 0), ascending; returns the count.
 * xs has room for every point. */
static size_t distinct_x(const gs_svg_series *s, size_t ns, int64_t *xs)
{
	size_t n = 0;

	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < s[i].n; j++) {
			int64_t v = s[i].x[j];
			size_t k;
			if (v <= 0)
				continue;
			for (k = 0; k < n && xs[k] < v; k++)
				;
			if (k < n && xs[k] == v)
				continue;
			memmove(&xs[k + 1], &xs[k], (n - k) * sizeof *xs);
			xs[k] = v;
			n++;
		}
	return n;
}

/* One context only: a bar per series (its colour, its value on top). */
static void lines_as_bars(gs_tbuf *o, double mt, double ymax, const gs_svg_series *s, size_t ns)
{
	double slot = (W_ - ML - MR) / (double)(ns ? ns : 1), bw = slot * 0.6;
	char b[48];

	if (bw > 60)
		bw = 60;
	for (size_t i = 0; i < ns; i++) {
		double x = ML + slot * (double)i + (slot - bw) / 2, gib, y1;
		size_t j;

		for (j = 0; j < s[i].n && s[i].x[j] <= 0; j++)
			;
		text(o, x + bw / 2, mt + PH + 20, "middle", "", s[i].label ? s[i].label : "");
		if (j == s[i].n)
			continue;
		gib = (double)s[i].y[j] / GS_GIB;
		y1 = y_of(gib, mt, ymax);
		gs_tbuf_puts(o, "<g>\n<title>");
		gs_xml_escape(o, s[i].label);
		gs_tbuf_puts(o, "</title>\n");
		rect(o, x, y1, bw, mt + PH - y1, line_color[i % NLINE_COLORS]);
		gs_tbuf_puts(o, "</g>\n");
		text(o, x + bw / 2, y1 - 4, "middle", "", gs_fmt_fixed(b, sizeof b, gib, 1));
	}
}

void gs_svg_lines(gs_tbuf *out, const char *title, const char *xlabel, const gs_svg_series *s,
                  size_t ns, const gs_svg_cap *caps, size_t ncaps)
{
	gs_svg_lines_ex(out, title, xlabel, s, NULL, ns, caps, ncaps);
}

void gs_svg_lines_ex(gs_tbuf *out, const char *title, const char *xlabel, const gs_svg_series *s,
                     const char *const *config, size_t ns, const gs_svg_cap *caps, size_t ncaps)
{
	gs_tbuf o = { 0 };
	uint64_t top = 0;
	double ymax, mt, plot_w = W_ - ML - MR - 24, y, lx0, lx1, last_end = -1e9;
	size_t i, j, npts = 0, nx;
	int64_t *xs;
	char b[2048];

	for (i = 0; i < ns; i++)
		npts += s[i].n;
	xs = gs_xcalloc(npts + 1, sizeof *xs);
	nx = distinct_x(s, ns, xs);
	if (nx == 0) {
		free(xs);
		no_data(out, title);
		return;
	}
	mt = plot_top(title);
	for (i = 0; i < ns; i++)
		for (j = 0; j < s[i].n; j++)
			if (s[i].x[j] > 0 && s[i].y[j] > top)
				top = s[i].y[j];
	ymax = y_range(top, caps, ncaps);
	y_axis(&o, mt, ymax);
	caps_draw(&o, mt, ymax, caps, ncaps);
	if (nx == 1) {
		lines_as_bars(&o, mt, ymax, s, ns);
		snprintf(b, sizeof b, "One context swept: %lld tokens; a bar per method.",
		         (long long)xs[0]);
		y = wrapped(&o, 10, mt + PH + 44, W_ - 20, FS, "", b);
	} else {
		lx0 = log2((double)xs[0]);
		lx1 = log2((double)xs[nx - 1]);
#define XPOS(v) (ML + 12 + plot_w * (log2((double)(v)) - lx0) / (lx1 - lx0))
		/* A tick at every context; a label where it does not touch the last. */
		for (i = 0; i < nx; i++) {
			double x = XPOS(xs[i]), half;
			line(&o, x, mt + PH, x, mt + PH + 4, "stroke=\"#333333\"");
			ctx_label(b, sizeof b, xs[i]);
			half = strlen(b) * FS * 0.62 / 2;
			if (x - half < last_end + 4)
				continue;
			text(&o, x, mt + PH + 20, "middle", "", b);
			last_end = x + half;
		}
		text(&o, ML + (W_ - ML - MR) / 2.0, mt + PH + 40, "middle", "", xlabel ? xlabel : "");
		for (i = 0; i < ns; i++) {
			const char *col = line_color[i % NLINE_COLORS];
			bool first = true;
			if (s[i].n == 0)
				continue;
			gs_tbuf_puts(&o, "<g>\n<title>");
			gs_xml_escape(&o, s[i].label);
			gs_tbuf_printf(&o, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"",
			               col);
			for (j = 0; j < s[i].n; j++) {
				if (s[i].x[j] <= 0)
					continue;
				if (!first)
					gs_tbuf_putc(&o, ' ');
				first = false;
				num(&o, XPOS(s[i].x[j]));
				gs_tbuf_putc(&o, ',');
				num(&o, y_of((double)s[i].y[j] / GS_GIB, mt, ymax));
			}
			gs_tbuf_puts(&o, "\"/>\n");
			for (j = 0; j < s[i].n; j++) {
				if (s[i].x[j] <= 0)
					continue;
				gs_tbuf_puts(&o, "<circle cx=\"");
				num(&o, XPOS(s[i].x[j]));
				gs_tbuf_puts(&o, "\" cy=\"");
				num(&o, y_of((double)s[i].y[j] / GS_GIB, mt, ymax));
				gs_tbuf_printf(&o, "\" r=\"3.5\" fill=\"%s\"/>\n", col);
			}
			gs_tbuf_puts(&o, "</g>\n");
		}
#undef XPOS
		y = mt + PH + 44;
	}
	/* The legend (for lines: the colour per method), then the caption. */
	for (i = 0; i < ns && nx > 1; i++) {
		double x = 10 + 112.0 * (double)(i % 4), yy = y + 18 + LH * (double)(i / 4);
		char style[64];
		snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"3\"", line_color[i % NLINE_COLORS]);
		line(&o, x, yy - 5, x + 16, yy - 5, style);
		text(&o, x + 20, yy, "start", "", s[i].label ? s[i].label : "");
	}
	if (nx > 1)
		y += 18 + LH * (double)((ns + 3) / 4);
	snprintf(b, sizeof b, "Per method, device memory per GPU%s%s",
	         nx > 1 && xs[nx - 1] >= 1024 ? " (1k = 1024 tokens)" : "",
	         config ? ":" : ", other settings fixed as listed with the chart.");
	y = wrapped(&o, 10, y + 4, W_ - 20, FS, "", b);
	for (i = 0; config && i < ns; i++) {
		char head[64];
		snprintf(head, sizeof head, "%s: ", s[i].label ? s[i].label : "");
		config_line(b, sizeof b, head, config[i] ? config[i] : "");
		y = wrapped(&o, 10, y, W_ - 20, FS, " fill=\"#333333\"", b);
	}
	finish_svg(out, &o, title, y, ymax, caps, ncaps);
	free(xs);
}

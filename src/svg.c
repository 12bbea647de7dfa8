/* gpusizer: hand-written SVG charts (stacked components, memory vs context). */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "mdesc.h"
#include "util.h"

#define W_ 760
#define H_ 420
#define ML 64   /* margins: left (axis labels) */
#define MR 170  /* right (legend, capacity labels) */
#define MT 44
#define MB 72

static const char *const part_name[GS_SVG_PARTS] = { "W weights", "G gradients",
	                                              "O optimizer", "A activations",
	                                              "B other" };
static const char *const part_color[GS_SVG_PARTS] = { "#4e79a7", "#f28e2b", "#e15759",
	                                               "#76b7b2", "#59a14f" };
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

static void open_svg(gs_tbuf *o, const char *title)
{
	gs_tbuf_printf(o,
	               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" "
	               "role=\"img\">\n<title>",
	               W_, H_, W_, H_);
	gs_xml_escape(o, title);
	gs_tbuf_printf(o, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W_, H_);
	text(o, W_ / 2.0, 24, "middle", " font-size=\"14\" font-weight=\"bold\"", title);
}

/* Pick a tick step (GiB) of 1, 2 or 5 x 10^k giving at most 8 ticks. */
static double tick_step(double max_gib)
{
	double step = 0.001;
	static const double m[] = { 1, 2, 5 };
	int i;

	for (;;) {
		for (i = 0; i < 3; i++)
			if (max_gib / (step * m[i]) <= 8)
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

static void y_axis(gs_tbuf *o, double ymax)
{
	double step = tick_step(ymax), v;
	char b[48];
	int dec = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;
	int k;

	for (k = 0; (v = k * step) <= ymax + 1e-9; k++) {
		double y = MT + (H_ - MT - MB) * (1 - v / ymax);
		line(o, ML, y, W_ - MR, y, "stroke=\"#e0e0e0\"");
		text(o, ML - 6, y + 4, "end", "", gs_fmt_fixed(b, sizeof b, v, dec));
	}
	line(o, ML, MT, ML, H_ - MB, "stroke=\"#333333\"");
	line(o, ML, H_ - MB, W_ - MR, H_ - MB, "stroke=\"#333333\"");
	gs_tbuf_puts(o, "<text x=\"16\" y=\"");
	num(o, MT + (H_ - MT - MB) / 2.0);
	gs_tbuf_puts(o, "\" text-anchor=\"middle\" transform=\"rotate(-90 16 ");
	num(o, MT + (H_ - MT - MB) / 2.0);
	gs_tbuf_puts(o, ")\">GiB per GPU (2^30 bytes)</text>\n");
}

/* Capacity lines (caps ascending) with their labels at the right; a label
 * that would overlap the one below moves up (at least 12 px apart). */
static void caps_draw(gs_tbuf *o, double ymax, const gs_svg_cap *caps, size_t ncaps)
{
	size_t i;
	char b[160];
	double prev = 1e9;

	for (i = 0; i < ncaps; i++) {
		double gib = (double)caps[i].bytes / GS_GIB, y, ty;
		char g[48];
		if (gib > ymax)
			continue;
		y = MT + (H_ - MT - MB) * (1 - gib / ymax);
		line(o, ML, y, W_ - MR, y, "stroke=\"#444444\" stroke-dasharray=\"6 4\"");
		snprintf(b, sizeof b, "%s (%s GiB)", caps[i].label ? caps[i].label : "",
		         gs_fmt_fixed(g, sizeof g, gib, 1));
		ty = y + 4;
		if (ty > prev - 12)
			ty = prev - 12;
		prev = ty;
		text(o, W_ - MR + 4, ty, "start", " font-size=\"11\"", b);
	}
}

static void no_data(gs_tbuf *o)
{
	text(o, W_ / 2.0, H_ / 2.0, "middle", "", "no data");
	gs_tbuf_puts(o, "</svg>\n");
}

void gs_svg_stacked(gs_tbuf *o, const char *title, const gs_svg_bar *bars, size_t nbars,
                    const gs_svg_cap *caps, size_t ncaps)
{
	uint64_t top = 0;
	double ymax, plot_w = W_ - ML - MR, slot, bw, ph = H_ - MT - MB;
	size_t i;
	int p;

	open_svg(o, title);
	if (nbars == 0) {
		no_data(o);
		return;
	}
	for (i = 0; i < nbars; i++) {
		uint64_t t = 0;
		for (p = 0; p < GS_SVG_PARTS; p++)
			if (!gs_add_u64(t, bars[i].part[p], &t))
				t = UINT64_MAX;
		if (t > top)
			top = t;
	}
	ymax = y_range(top, caps, ncaps);
	y_axis(o, ymax);
	slot = plot_w / (double)nbars;
	bw = slot * 0.6;
	if (bw > 80)
		bw = 80;
	for (i = 0; i < nbars; i++) {
		double x = ML + slot * (double)i + (slot - bw) / 2, acc = 0;
		gs_tbuf_puts(o, "<g>\n<title>");
		gs_xml_escape(o, bars[i].tooltip ? bars[i].tooltip : bars[i].label);
		gs_tbuf_puts(o, "</title>\n");
		for (p = 0; p < GS_SVG_PARTS; p++) {
			double gib = (double)bars[i].part[p] / GS_GIB, y0, y1;
			if (bars[i].part[p] == 0)
				continue;
			y0 = MT + ph * (1 - acc / ymax);
			acc += gib;
			y1 = MT + ph * (1 - acc / ymax);
			gs_tbuf_puts(o, "<rect x=\"");
			num(o, x);
			gs_tbuf_puts(o, "\" y=\"");
			num(o, y1);
			gs_tbuf_puts(o, "\" width=\"");
			num(o, bw);
			gs_tbuf_puts(o, "\" height=\"");
			num(o, y0 - y1);
			gs_tbuf_printf(o, "\" fill=\"%s\"/>\n", part_color[p]);
		}
		gs_tbuf_puts(o, "</g>\n");
		text(o, x + bw / 2, H_ - MB + 16, "middle", "", bars[i].label ? bars[i].label : "");
	}
	caps_draw(o, ymax, caps, ncaps);
	for (p = 0; p < GS_SVG_PARTS; p++) {
		double y = H_ - MB + 36;
		double x = ML + 4 + p * 124.0;
		gs_tbuf_puts(o, "<rect x=\"");
		num(o, x);
		gs_tbuf_puts(o, "\" y=\"");
		num(o, y - 10);
		gs_tbuf_printf(o, "\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", part_color[p]);
		text(o, x + 16, y, "start", " font-size=\"11\"", part_name[p]);
	}
	gs_tbuf_puts(o, "</svg>\n");
}

void gs_svg_lines(gs_tbuf *o, const char *title, const char *xlabel, const gs_svg_series *s,
                  size_t ns, const gs_svg_cap *caps, size_t ncaps)
{
	uint64_t top = 0;
	int64_t xmin = 0, xmax = 0;
	double ymax, plot_w = W_ - ML - MR - 20, ph = H_ - MT - MB, lx0, lx1;
	size_t i, j;
	bool any = false;
	char b[64];

	open_svg(o, title);
	for (i = 0; i < ns; i++) {
		for (j = 0; j < s[i].n; j++) {
			if (s[i].x[j] <= 0)
				continue;
			if (!any || s[i].x[j] < xmin)
				xmin = s[i].x[j];
			if (!any || s[i].x[j] > xmax)
				xmax = s[i].x[j];
			if (s[i].y[j] > top)
				top = s[i].y[j];
			any = true;
		}
	}
	if (!any) {
		no_data(o);
		return;
	}
	ymax = y_range(top, caps, ncaps);
	y_axis(o, ymax);
	lx0 = log2((double)xmin);
	lx1 = log2((double)xmax);
#define XPOS(v) (lx1 > lx0 ? ML + 10 + plot_w * (log2((double)(v)) - lx0) / (lx1 - lx0) \
                           : ML + 10 + plot_w / 2)
	/* x ticks at every x value used (they are few: context lengths). */
	{
		int64_t last = -1;
		for (i = 0; i < ns; i++) {
			for (j = 0; j < s[i].n; j++) {
				int64_t v = s[i].x[j];
				size_t a, c;
				bool seen = false;
				if (v <= 0 || v == last)
					continue;
				for (a = 0; a < i && !seen; a++)
					for (c = 0; c < s[a].n && !seen; c++)
						seen = s[a].x[c] == v;
				for (c = 0; c < j && !seen; c++)
					seen = s[i].x[c] == v;
				if (seen)
					continue;
				last = v;
				line(o, XPOS(v), H_ - MB, XPOS(v), H_ - MB + 4, "stroke=\"#333333\"");
				snprintf(b, sizeof b, "%lld", (long long)v);
				text(o, XPOS(v), H_ - MB + 16, "middle", " font-size=\"11\"", b);
			}
		}
	}
	text(o, ML + (W_ - ML - MR) / 2.0, H_ - MB + 34, "middle", "", xlabel ? xlabel : "");
	caps_draw(o, ymax, caps, ncaps);
	for (i = 0; i < ns; i++) {
		const char *col = line_color[i % NLINE_COLORS];
		bool first = true;
		if (s[i].n == 0)
			continue;
		gs_tbuf_puts(o, "<g>\n<title>");
		gs_xml_escape(o, s[i].label);
		gs_tbuf_printf(o, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		               col);
		for (j = 0; j < s[i].n; j++) {
			if (s[i].x[j] <= 0)
				continue;
			if (!first)
				gs_tbuf_putc(o, ' ');
			first = false;
			num(o, XPOS(s[i].x[j]));
			gs_tbuf_putc(o, ',');
			num(o, MT + ph * (1 - (double)s[i].y[j] / GS_GIB / ymax));
		}
		gs_tbuf_puts(o, "\"/>\n");
		for (j = 0; j < s[i].n; j++) {
			if (s[i].x[j] <= 0)
				continue;
			gs_tbuf_puts(o, "<circle cx=\"");
			num(o, XPOS(s[i].x[j]));
			gs_tbuf_puts(o, "\" cy=\"");
			num(o, MT + ph * (1 - (double)s[i].y[j] / GS_GIB / ymax));
			gs_tbuf_printf(o, "\" r=\"3\" fill=\"%s\"/>\n", col);
		}
		gs_tbuf_puts(o, "</g>\n");
		/* Legend entry under the x axis label, four to a row. */
		{
			double y = H_ - MB + 52 + 14.0 * (double)(i / 4);
			double x = ML + 4 + 150.0 * (double)(i % 4);
			gs_tbuf_puts(o, "<line x1=\"");
			num(o, x);
			gs_tbuf_puts(o, "\" y1=\"");
			num(o, y - 4);
			gs_tbuf_puts(o, "\" x2=\"");
			num(o, x + 14);
			gs_tbuf_puts(o, "\" y2=\"");
			num(o, y - 4);
			gs_tbuf_printf(o, "\" stroke=\"%s\" stroke-width=\"3\"/>\n", col);
			text(o, x + 18, y, "start", " font-size=\"11\"", s[i].label);
		}
	}
#undef XPOS
	gs_tbuf_puts(o, "</svg>\n");
}

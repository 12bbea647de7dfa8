/* gpusizer: hand-written SVG charts for the reports. Deterministic (fixed
 * sizes, coordinates with one decimal, no locale), self-contained (no
 * external references, no scripts), no XML declaration (so the same text
 * can be a .svg file or inline in HTML). Labels are XML-escaped here.
 * A chart is 460 units wide (a viewBox: it scales with the page) with
 * text of 14 units, legible on a phone; its height follows its content.
 * Under the plot each chart says what it shows: the configuration of each
 * bar or line with its GPU count (the "<N>x..." token of a settings label,
 * else 1 GPU), and the usable memory of each capacity line drawn. */
#ifndef GS_SVG_H
#define GS_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "template.h"

#define GS_SVG_PARTS 5 /* W, G, O, A, B */

/* One stacked bar: parts in bytes (W G O A B), a short label under it and a
 * longer tooltip: the configuration it shows (a settings label, with
 * whatever follows, e.g. "full amp-bf16 ... 8xzero3: 49.41 GiB"), also
 * its caption line. Strings are borrowed. */
typedef struct gs_svg_bar {
	const char *label;
	const char *tooltip;
	uint64_t part[GS_SVG_PARTS];
} gs_svg_bar;

/* A horizontal capacity line (a GPU class's usable memory). Pass caps in
 * ascending order of bytes. Each label sits at the right of its own line,
 * moved apart from its neighbours when lines crowd and then joined to its
 * line by a leader; at most 64 are drawn. */
typedef struct gs_svg_cap {
	const char *label; /* e.g. "24 GB" */
	uint64_t bytes;
} gs_svg_cap;

/* One line series: n points (x[i], y[i] bytes); x ascending and > 0. */
typedef struct gs_svg_series {
	const char *label;
	size_t n;
	const int64_t *x;
	const uint64_t *y;
} gs_svg_series;

/* Stacked W/G/O/A/B bars (GiB) against capacity lines. The y axis reaches
 * the first capacity above the tallest bar; higher capacities are left out.
 * Appends the <svg> element to out. */
void gs_svg_stacked(gs_tbuf *out, const char *title, const gs_svg_bar *bars, size_t nbars,
                    const gs_svg_cap *caps, size_t ncaps);

/* Lines of memory (GiB) against x on a log2 axis (context length), with
 * the same capacity lines; when every point has the same x (a model swept
 * at one context), a bar per series instead, its value on top. config
 * (NULL: not known) holds per series the configuration it shows, without
 * x (a settings label), for the caption; borrowed. Appends the <svg>
 * element to out. */
void gs_svg_lines_ex(gs_tbuf *out, const char *title, const char *xlabel, const gs_svg_series *s,
                     const char *const *config, size_t ns, const gs_svg_cap *caps, size_t ncaps);
/* gs_svg_lines_ex without the configurations (the caption refers to the
 * page's list). */
void gs_svg_lines(gs_tbuf *out, const char *title, const char *xlabel, const gs_svg_series *s,
                  size_t ns, const gs_svg_cap *caps, size_t ncaps);

#endif

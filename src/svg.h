/* gpusizer: hand-written SVG charts for the reports. Deterministic (fixed
 * sizes, coordinates with one decimal, no locale), self-contained (no
 * external references, no scripts), no XML declaration (so the same text
 * can be a .svg file or inline in HTML). Labels are XML-escaped here. */
#ifndef GS_SVG_H
#define GS_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "template.h"

#define GS_SVG_PARTS 5 /* W, G, O, A, B */

/* One stacked bar: parts in bytes (W G O A B), a short label under it and a
 * longer tooltip. Strings are borrowed. */
typedef struct gs_svg_bar {
	const char *label;
	const char *tooltip;
	uint64_t part[GS_SVG_PARTS];
} gs_svg_bar;

/* A horizontal capacity line (a GPU class's usable memory). Pass caps in
 * ascending order of bytes (labels are spaced from the lowest up). */
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
 * the same capacity lines. Appends the <svg> element to out. */
void gs_svg_lines(gs_tbuf *out, const char *title, const char *xlabel, const gs_svg_series *s,
                  size_t ns, const gs_svg_cap *caps, size_t ncaps);

#endif

/* gpusizer: JSON text out (see jw.h). */
#include "jw.h"

#include <math.h>

#include "numfmt.h"

void gs_json_num(FILE *fp, double v, int digits)
{
	/* JSON has no NaN or infinity: an unknown figure is null */
	if (!isfinite(v))
		fputs("null", fp);
	else
		fprintf(fp, "%.*g", digits, v);
}

void gs_put_u64(FILE *fp, uint64_t v)
{
	char b[GS_INT_CHARS];

	fwrite(b, 1, gs_fmt_u64(b, v), fp);
}

void gs_json_str(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;

	fputc('"', fp);
	/* runs that need no escape go out whole (a row has dozens of strings) */
	for (;; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		fwrite(run, 1, (size_t)(p - run), fp);
		if (*p == '\0')
			break;
		switch (*p) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		default: fprintf(fp, "\\u%04x", *p);
		}
		run = p + 1;
	}
	fputc('"', fp);
}

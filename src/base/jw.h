/* gpusizer: JSON text written to a stream: decimal integers, reals (never
 * NaN or infinity) and strings, escaped (the writers of sizing.json, estimate --json and the records). */
#ifndef GS_JW_H
#define GS_JW_H

#include <stdint.h>
#include <stdio.h>

/* A real as %.<digits>g, or null when it is NaN or infinite (JSON has
 * neither): every real a JSON writer prints goes through here. */
void gs_json_num(FILE *fp, double v, int digits);

/* Decimal integers (numfmt.h) written to fp. */
void gs_put_u64(FILE *fp, uint64_t v);

/* Write s as a JSON string (quotes, \" \\ \n \r \t, other control
 * characters below 0x20 as \u00XX; bytes >= 0x80 pass through: the callers' text is
 * UTF-8). NULL is written as "". */
void gs_json_str(FILE *fp, const char *s);

#endif

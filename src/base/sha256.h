/* gpusizer: SHA-256 (FIPS 180-4), for the output manifest's record of the
 * bytes gpusizer wrote (outdir.h). Pure: no allocation, no I/O. */
#ifndef GS_SHA256_H
#define GS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct gs_sha256 {
	uint32_t h[8];
	uint64_t len;          /* bytes hashed so far */
	unsigned char buf[64]; /* the block being filled */
	size_t fill;
} gs_sha256;

/* Start, add bytes, and finish into 64 lower-case hex digits and a NUL. */
void gs_sha256_init(gs_sha256 *c);
void gs_sha256_update(gs_sha256 *c, const void *data, size_t n);
void gs_sha256_hex(gs_sha256 *c, char hex[65]);

#endif

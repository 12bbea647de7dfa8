/* gpusizer bench: the text formats' floor (bench/floor_text.c), used by
 * bench/floor_xlsx.c. */
#ifndef GS_BENCH_FLOOR_H
#define GS_BENCH_FLOOR_H
/* Writes every regular file under SRC again under DST (see floor_xlsx.c's
 * head); 0 on success, else 1 with a line on stderr. */
int floor_text(const char *src, const char *dst);
#endif

/* gpusizer bench: the floors for `make bench` (bench/b_report.sh), programs
 * that do the same output work as `gpusizer report` and nothing else (no
 * sweep, no engine, no plan, no layout):
 *   floor_xlsx xlsx MIX OUT.xlsx  replays a real workbook's cell mix, as
 *                                 bench/xlsx_mix.py prints it (one "sheet"
 *                                 line per worksheet), in constant-memory
 *                                 mode: the same sheets and rows, rows of
 *                                 the same mean width, exactly the same
 *                                 counts of numbers, formulas (cached number
 *                                 or string results), strings, booleans,
 *                                 blanks and formatted cells, and numbers,
 *                                 strings and formulas of the same mean
 *                                 lengths; written to OUT.xlsx.tmp and
 *                                 renamed, as ours is. It draws no charts
 *                                 (ours has one small chart per model).
 *   floor_xlsx cells CELLS OUT.xlsx   replays a real workbook's cells
 *                                 verbatim, as bench/xlsx_cells.py dumps
 *                                 them: the same sheets, cells, numbers,
 *                                 strings, formulas and cached results, a
 *                                 style per style id (one of 8 formats), in
 *                                 constant-memory mode, so that deflate
 *                                 compresses the same text as in ours. The
 *                                 dump is read and parsed as
 *                                 part of the floor's work, a line at a
 *                                 time.
 *   floor_xlsx text SRC DST       writes every file under SRC again under DST
 *                                 with plain fwrite from a 64 KiB buffer,
 *                                 each to a temporary, fsync'ed and renamed
 *                                 (as gs_atomic_commit does); a file whose
 *                                 name ends in .gz holds the plain text and
 *                                 is gzipped on the way (zlib level 6, as
 *                                 ours).
 *   floor_xlsx job CELLS OUT.xlsx SRC DST   cells and text, in one process
 *                                 (the floor of the whole job: every
 *                                 format).
 *   floor_xlsx --run CMD...       runs CMD (stdout to /dev/null) and prints
 *                                 "wall_seconds peak_rss_kib" of that child
 *                                 alone (fork from this small process, then
 *                                 wait4). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "floor.h"

static int run(char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "floor_xlsx --run: %s failed\n", argv[0]);
		return 1;
	}
	printf("%.3f %ld\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_maxrss);
	return 0;
}

/* One worksheet's mix (bench/xlsx_mix.py's columns). */
enum { K_NUM, K_FNUM, K_FSTR, K_FBOOL, K_STR, K_BOOL, K_BLANK, K_TYPES };
typedef struct {
	long long rows, cols, n[K_TYPES], fmt, slen, flen, rlen;
	double nlen;
} sheet_mix;

#define N_FORMATS 8
#define N_STRINGS 1024

/* The I-th number of a sheet whose numbers are NLEN characters long on
 * average (as %.16G writes them): integers of the lengths that make that
 * mean, a fraction where they are 16 or more; KEY picks the value. */
static double number(long long i, long long key, double nlen)
{
	long long len = (long long)((double)(i + 1) * nlen) - (long long)((double)i * nlen), lo = 1;
	if (len >= 16)
		return 1.0 + (double)(key % 1499) / 7.0;
	for (long long j = 1; j < len; j++)
		lo *= 10;
	return len <= 1 ? (double)(key % 10) : (double)(lo + key % (9 * lo));
}

/* N_STRINGS different strings of LEN bytes each (text like ours, a number
 * in the last bytes). */
static char **strings_of(long long len)
{
	static const char text[] = "openai-community/gpt2 full amp-bf16 adamw b1 ckpt sdpa does not fit "
	                           "NVIDIA GeForce RTX 4090 24 GB Qwen/Qwen2.5-72B-Instruct zero3 ";
	char **v = calloc(N_STRINGS, sizeof *v);
	if (v == NULL)
		return NULL;
	for (int i = 0; i < N_STRINGS; i++) {
		v[i] = malloc((size_t)len + 1);
		if (v[i] == NULL)
			return NULL;
		for (long long j = 0; j < len; j++)
			v[i][j] = text[(size_t)(i * 7 + j) % (sizeof text - 1)];
		v[i][len] = '\0';
		if (len >= 6)
			snprintf(v[i] + len - 5, 6, " %04d", i);
	}
	return v;
}

static void strings_free(char **v)
{
	for (int i = 0; v != NULL && i < N_STRINGS; i++)
		free(v[i]);
	free(v);
}

/* A formula of about LEN bytes in the shape of ours: a verdict IF over
 * another sheet's cells (a row per column, as ours has a GPUs row per GPU
 * class) and this row's, cut or padded with a string literal to LEN. A
 * number result (STR 0) is a comparison of the same cells. */
static void formula(char *out, size_t cap, long long len, unsigned row, unsigned col, int str)
{
	unsigned g = 5 + 4 * (col % 22);
	const char *close = str ? "\")))" : "\"))))";
	int n = snprintf(out, cap,
	                 str ? "IF(NOT(Sheet1!$F$%u),\"not runnable\",IF($C%u>Sheet1!$E$%u,\"does not fit\","
	                       "IF(1-$C%u/Sheet1!$E$%u>=Sheet1!$B$2,\"fits\",\""
	                     : "IF(NOT(Sheet1!$F$%u),0,IF($C%u>Sheet1!$E$%u,1,IF(1-$C%u/Sheet1!$E$%u>=Sheet1!$B$2,2,LEN(\"",
	                 g, row + 1, g, row + 1, g);
	if (n + (long long)strlen(close) > len) { /* ours is shorter: one IF */
		close = str ? "\")" : "\"))";
		n = snprintf(out, cap, str ? "IF($C%u>Sheet1!$E$%u,\"fits\",\"" : "IF($C%u>Sheet1!$E$%u,1,LEN(\"", row + 1, g);
	}
	for (long long j = 0, pad = len - n - (long long)strlen(close); j < pad && (size_t)n + 6 < cap; j++)
		out[n++] = "tight"[j % 5];
	snprintf(out + n, cap - (size_t)n, "%s", close);
}

/* One sheet of the mix. Like ours, a column keeps its type and format
 * down the rows and values repeat down a column: a row template of the
 * sheet's mean row width has the types in their proportions (error
 * diffusion); a type used up gives way to the one with most cells left, so
 * the counts of every type and of formatted cells are exactly the mix's. */
static int replay_sheet(lxw_workbook *wb, const sheet_mix *m, lxw_format **fmts)
{
	lxw_worksheet *ws = workbook_add_worksheet(wb, NULL);
	long long total = 0, left[K_TYPES], acc[K_TYPES] = {0}, done = 0, fleft = m->fmt, facc = 0, nums = 0;
	char **str = strings_of(m->slen), **res = strings_of(m->rlen);
	size_t fcap = (size_t)m->flen + 256;
	char *f = malloc(fcap);
	lxw_error err = LXW_NO_ERROR;

	for (int t = 0; t < K_TYPES; t++)
		total += left[t] = m->n[t];
	long long w = (total + m->rows - 1) / m->rows;
	if (m->cols > 0 && w > m->cols)
		w = m->cols;
	if (w < 1)
		w = 1;
	signed char *tmpl = malloc((size_t)w), *tfmt = malloc((size_t)w);
	if (ws == NULL || str == NULL || res == NULL || f == NULL || tmpl == NULL || tfmt == NULL)
		return 1;
	for (long long c = 0; c < w; c++) {
		int t = 0;
		for (int k = 0; k < K_TYPES; k++) {
			acc[k] += m->n[k];
			if (acc[k] > acc[t])
				t = k;
		}
		acc[t] -= total;
		tmpl[c] = (signed char)t;
		facc += m->fmt;
		tfmt[c] = facc >= total;
		if (facc >= total)
			facc -= total;
	}
	for (lxw_col_t c = 0; c < (lxw_col_t)m->cols; c++)
		worksheet_set_column(ws, c, c, 10 + c % 7, NULL);
	worksheet_freeze_panes(ws, 1, 2);
	for (long long r = 0; r < m->rows && err == LXW_NO_ERROR; r++) {
		long long in_row = total * (r + 1) / m->rows - total * r / m->rows;
		if (in_row > w)
			in_row = w;
		if (r == m->rows - 1)
			in_row = total - done; /* whatever is left */
		for (long long c = 0; c < in_row && err == LXW_NO_ERROR; c++, done++) {
			int t = tmpl[c % w];
			if (left[t] == 0)
				for (int k = 0; k < K_TYPES; k++)
					if (left[k] > left[t])
						t = k;
			left[t]--;
			lxw_format *fm = NULL;
			if (fleft > 0 && (tfmt[c % w] || fleft >= total - done)) {
				fleft--;
				fm = fmts[c % N_FORMATS];
			}
			lxw_row_t row = (lxw_row_t)r;
			lxw_col_t col = (lxw_col_t)c;
			long long key = c * 131 + r / 8;
			switch (t) {
			case K_NUM:
				err = worksheet_write_number(ws, row, col, number(nums++, key, m->nlen), fm);
				break;
			case K_FNUM:
			case K_FBOOL:
				formula(f, fcap, m->flen, row, col, 0);
				err = worksheet_write_formula_num(ws, row, col, f, fm, t == K_FBOOL ? 1 : (double)(key % 7));
				break;
			case K_FSTR:
				formula(f, fcap, m->flen, row, col, 1);
				err = worksheet_write_formula_str(ws, row, col, f, fm, res[key % N_STRINGS]);
				break;
			case K_STR:
				err = worksheet_write_string(ws, row, col, str[key % N_STRINGS], fm);
				break;
			case K_BOOL:
				err = worksheet_write_boolean(ws, row, col, (int)(key & 1), fm);
				break;
			default:
				err = worksheet_write_blank(ws, row, col, fm != NULL ? fm : fmts[0]);
				break;
			}
		}
	}
	free(tmpl);
	free(tfmt);
	strings_free(str);
	strings_free(res);
	free(f);
	if (err != LXW_NO_ERROR)
		fprintf(stderr, "floor_xlsx: %s\n", lxw_strerror(err));
	return err != LXW_NO_ERROR;
}

/* A constant-memory workbook writing to OUT.tmp (tmp; its temporary files
 * in OUT's directory, dir; both 4096 bytes), with N_FORMATS formats. */
static lxw_workbook *new_book(const char *out, char *tmp, char *dir, lxw_format **fmts)
{
	lxw_workbook_options opt = { .constant_memory = LXW_TRUE, .tmpdir = dir };
	lxw_workbook *wb;
	char *slash;

	snprintf(tmp, 4096, "%s.tmp", out);
	snprintf(dir, 4096, "%s", out);
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		snprintf(dir, 4096, ".");
	if ((wb = workbook_new_opt(tmp, &opt)) == NULL)
		return NULL;
	for (int i = 0; i < N_FORMATS; i++) {
		static const char *nf[] = {"0.00", "0", "0.0%", "#,##0", "0.000", "@", "0.0", "General"};
		fmts[i] = workbook_add_format(wb);
		format_set_num_format(fmts[i], nf[i]);
		if (i & 1)
			format_set_bold(fmts[i]);
		if (i & 2)
			format_set_bg_color(fmts[i], 0xC6EFCE + (lxw_color_t)i);
	}
	return wb;
}

/* The floor of our workbook: MIX's sheets replayed into OUT (via OUT.tmp). */
static int floor_xlsx(const char *mix, const char *out)
{
	char tmp[4096], dir[4096], line[512];
	lxw_format *fmts[N_FORMATS];
	lxw_workbook *wb;
	FILE *fp = fopen(mix, "r");
	int bad = 0, sheets = 0;

	if (fp == NULL) {
		perror(mix);
		return 1;
	}
	if ((wb = new_book(out, tmp, dir, fmts)) == NULL) {
		fclose(fp);
		return 1;
	}
	while (!bad && fgets(line, sizeof line, fp) != NULL) {
		sheet_mix m;
		if (strncmp(line, "sheet ", 6) != 0)
			continue;
		if (sscanf(line + 6, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lf", &m.rows,
		           &m.cols, &m.n[K_NUM], &m.n[K_FNUM], &m.n[K_FSTR], &m.n[K_FBOOL], &m.n[K_STR], &m.n[K_BOOL],
		           &m.n[K_BLANK], &m.fmt, &m.slen, &m.flen, &m.rlen, &m.nlen) != 14) {
			fprintf(stderr, "floor_xlsx: %s: bad line: %s", mix, line);
			bad = 1;
			break;
		}
		if (m.rows > 0)
			bad = replay_sheet(wb, &m, fmts);
		else
			bad = workbook_add_worksheet(wb, NULL) == NULL;
		sheets++;
	}
	fclose(fp);
	if (workbook_close(wb) != LXW_NO_ERROR || bad || sheets == 0) {
		unlink(tmp);
		fprintf(stderr, "floor_xlsx: %s: no workbook written\n", out);
		return 1;
	}
	return rename(tmp, out) != 0;
}

/* One field of a bench/xlsx_cells.py line, unescaped in place (\\ \t \n);
 * *p moves past it and its TAB or newline. */
static char *field(char **p)
{
	char *s = *p, *w = s, *r = s;

	for (; *r != '\t' && *r != '\n' && *r != '\0'; r++) {
		if (*r == '\\' && r[1] != '\0') {
			r++;
			*w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
		} else {
			*w++ = *r;
		}
	}
	*p = *r != '\0' ? r + 1 : r;
	*w = '\0';
	return s;
}

/* The floor of our workbook, cell for cell: CELLS replayed into OUT (read
 * a line at a time, so that its memory stays flat, as ours does). */
static int floor_cells(const char *cells, const char *out)
{
	char tmp[4096], dir[4096];
	lxw_format *fmts[N_FORMATS];
	lxw_worksheet *ws = NULL;
	lxw_workbook *wb;
	lxw_error err = LXW_NO_ERROR;
	FILE *fp = fopen(cells, "rb");
	char *line = NULL;
	size_t cap = 0;
	int sheets = 0, ended = 0;

	if (fp == NULL) {
		perror(cells);
		return 1;
	}
	if ((wb = new_book(out, tmp, dir, fmts)) == NULL) {
		fclose(fp);
		return 1;
	}
	while (err == LXW_NO_ERROR && !ended && getline(&line, &cap, fp) > 0) {
		char kind = line[0], *p = line, *end;
		if (kind == 'S') {
			if ((ws = workbook_add_worksheet(wb, NULL)) == NULL)
				break;
			worksheet_freeze_panes(ws, 1, 2);
			sheets++;
			continue;
		}
		if (kind == 'E') {
			ended = 1;
			break;
		}
		if (ws == NULL || line[1] != ' ')
			break;
		unsigned long row = strtoul(p + 2, &end, 10), col = strtoul(end, &end, 10), sty = strtoul(end, &end, 10);
		if (*end != '\t')
			break;
		p = end + 1;
		char *t = field(&p), *res = (kind == 'f' || kind == 't' || kind == 'b' || kind == 'a') ? field(&p) : "";
		lxw_format *fm = sty ? fmts[sty % N_FORMATS] : NULL;
		lxw_row_t r = (lxw_row_t)row;
		lxw_col_t c = (lxw_col_t)col;
		switch (kind) {
		case 'n': err = worksheet_write_number(ws, r, c, strtod(t, NULL), fm); break;
		case 'f':
		case 'b': err = worksheet_write_formula_num(ws, r, c, t, fm, strtod(res, NULL)); break;
		case 't': err = worksheet_write_formula_str(ws, r, c, t, fm, res); break;
		case 'a': err = worksheet_write_array_formula_num(ws, r, c, r, c, t, fm, strtod(res, NULL)); break;
		case 's': err = worksheet_write_string(ws, r, c, t, fm); break;
		case 'o': err = worksheet_write_boolean(ws, r, c, t[0] == '1', fm); break;
		default: err = worksheet_write_blank(ws, r, c, fm != NULL ? fm : fmts[0]); break;
		}
	}
	free(line);
	fclose(fp);
	if (err != LXW_NO_ERROR)
		fprintf(stderr, "floor_xlsx: %s\n", lxw_strerror(err));
	if (workbook_close(wb) != LXW_NO_ERROR || err != LXW_NO_ERROR || sheets == 0 || !ended) {
		unlink(tmp);
		fprintf(stderr, "floor_xlsx: %s: no workbook written (%s cut short?)\n", out, cells);
		return 1;
	}
	return rename(tmp, out) != 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--run") == 0)
		return run(argv + 2);
	if (argc == 4 && strcmp(argv[1], "xlsx") == 0)
		return floor_xlsx(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "text") == 0)
		return floor_text(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "cells") == 0)
		return floor_cells(argv[2], argv[3]);
	if (argc == 6 && strcmp(argv[1], "job") == 0)
		return floor_cells(argv[2], argv[3]) || floor_text(argv[4], argv[5]);
	fprintf(stderr, "usage: floor_xlsx xlsx MIX OUT.xlsx | cells CELLS OUT.xlsx | text SRC DST | job CELLS OUT.xlsx SRC DST | --run CMD...\n");
	return 2;
}

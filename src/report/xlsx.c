/* gpusizer: XLSX writer for the sizing matrix (libxlsxwriter, constant-
 * memory mode). Sheets: Summary (the answers' pivot), Answers (its rows:
 * one per model, method and context), Plan, GPUs, Assumptions, Charts, then
 * one sheet per model whose verdict cells are live formulas over the GPUs
 * sheet.
 *
 * Streaming: rows are written as they arrive (constant-memory mode keeps
 * one row of each sheet in memory); what the Summary needs is kept small
 * (one entry per model, method and context) and written at the end, to a
 * sheet created first. Strings from outside are cleaned to valid UTF-8 and
 * written with worksheet_write_string, never as formulas. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <xlsxwriter.h>
#include <zlib.h>

#include "constants.h"
#include "palette.h"
#include "plan_view.h"
#include "xlsx.h"
#include "settings.h"
#include "timefields.h"
#include "timing.h"
#include "utf8.h"
#include "util.h"
#include "fileio.h"
#include "numfmt.h"

/* Longest text Excel keeps in a cell, in characters. */
#define XL_CELL_CHARS 32767
/* Charts on the Charts sheet (one per model, the first ones). */
#define XL_CHARTS_MAX 100
#define XL_CHART_ROWS_APART 24
/* Charts sheet: the first column of each chart's table, right of the chart. */
#define CH_T0 13
/* A paragraph's column (the Assumptions), characters; a verdict column's:
 * its longest value, "does not fit" or "not runnable", and a little. */
#define XL_PARA_CHARS 110
#define XL_VERDICT_CHARS 12.5
/* The Summary's model and context columns: seven contexts print one page
 * wide at XL_SCALE_MIN (a longer id or answer wraps). */
#define XL_SUM_MODEL 24
#define XL_SUM_CTX 16

/* GPUs sheet layout (0-based rows; formulas use Excel's 1-based rows). */
#define GPU_ROW_TIGHT 1 /* B2: the tight headroom */
#define GPU_ROW_HEAD 3
#define GPU_ROW0 4 /* first GPU: Excel row 5 */
enum { GC_ID, GC_NAME, GC_CLASS, GC_TOTAL, GC_USABLE, GC_BF16, GC_FP8, GC_BW, GC_TFLOPS, GC_PRICE, GC_SOURCE,
       GC_MAX };

/* Model sheet: fixed front columns, one verdict column per GPU, then the
 * detail columns (offset by n_gpus): the model, every setting of the
 * settings table but those shown up front (GS_SF_XLSX_MATRIX: GPUs), and
 * the estimate's columns (D_PTOTAL on, offset by xl_set_cols()). */
enum { MC_ID, MC_CONFIG, MC_DEVICE, MC_GPUS, MC_V0 };
enum {
	D_MODEL, /* then one column per setting (xl_set_cols), then: */
	D_PTOTAL, D_PTRAIN, D_PACTIVE, D_W, D_G, D_O, D_A, D_B, D_BPPW, D_BPPG, D_BPPO, D_RECIPE,
	D_PHASE, D_STEP, D_ALLOC, D_RESERVED, D_HOST, D_MEAS_GIB, D_MEAS_TEXT, D_COOKBOOK, D_THUMB, D_ZERO1, D_NEED_BF16,
	D_NEED_FP8, D_NOTE, D_ERROR, D_MAX
};

static const struct {
	const char *head;
	double width;
} detail_cols[D_MAX] = {
	[D_MODEL] = {"Model", 30},
	[D_PTOTAL] = {"Params total", 16},
	[D_PTRAIN] = {"Params trainable", 16},
	[D_PACTIVE] = {"Params active per token", 16},
	[D_W] = {"W weights GiB", 10},
	[D_G] = {"G gradients GiB", 10},
	[D_O] = {"O optimizer states GiB", 10},
	[D_A] = {"A activations GiB", 10},
	[D_B] = {"B other GiB", 10},
	[D_BPPW] = {"W bytes/param", 9},
	[D_BPPG] = {"G bytes/trainable param", 9},
	[D_BPPO] = {"O bytes/trainable param", 9},
	[D_RECIPE] = {"Recipe", 40},
	[D_PHASE] = {"Peak phase", 10},
	[D_STEP] = {"Peak step", 6},
	[D_ALLOC] = {"Allocated GiB per GPU", 10},
	[D_RESERVED] = {"Reserved GiB per GPU", 10},
	[D_HOST] = {"Host GiB (offload)", 10},
	[D_MEAS_GIB] = {"Measured GiB (gpusizer verify)", 10},
	[D_MEAS_TEXT] = {"Measured on a real GPU", 40},
	[D_COOKBOOK] = {"Cookbook rule GiB (one-GPU rows)", 10},
	[D_THUMB] = {"52 bytes per param rule GiB (4 + 4 x m with Adam's m 12; full fine-tune, one GPU)", 12},
	[D_ZERO1] = {"36 bytes per param rule GiB (2 x 18; full fine-tune, one GPU)", 12},
	[D_NEED_BF16] = {"Needs bf16", 7},
	[D_NEED_FP8] = {"Needs fp8", 7},
	[D_NOTE] = {"Note", 40},
	[D_ERROR] = {"Error", 30},
};

/* The settings shown among the details, and how many. */
static bool xl_set_col(const gs_setting *d)
{
	return !(d->flags & GS_SF_XLSX_MATRIX);
}

static lxw_col_t xl_set_cols(void)
{
	lxw_col_t n = 0;

	for (size_t i = 0; i < gs_settings_count(); i++)
		n += xl_set_col(&gs_settings_table()[i]);
	return n;
}

/* Detail columns in all: the model, the settings, the estimate's. */
static size_t xl_detail_cols(void)
{
	return (size_t)D_MAX + xl_set_cols();
}

static uint32_t data_rows_max = GS_XLSX_DATA_ROWS_MAX;

void gs_xlsx_set_data_rows_max(uint32_t rows)
{
	data_rows_max = rows == 0 || rows > GS_XLSX_DATA_ROWS_MAX ? GS_XLSX_DATA_ROWS_MAX : rows;
}

/* A Summary entry: the model's answer for one method and context (the
 * row evaluation's, gs_answer: the best (smallest) fitting GPU class and
 * count over every configuration of that method at that context), copied
 * at the model's end, and where its rows are on the model's sheets. */
typedef struct xl_best {
	size_t model_no;
	gs_method method;
	int64_t seq;
	bool seen;            /* a row with an estimate was written */
	size_t n_configs;
	uint64_t min_device;  /* smallest per-GPU device of any configuration */
	bool found, tight;
	size_t gpu;           /* index in meta->gpus */
	int64_t count;
	uint64_t device;      /* per GPU, of the chosen configuration */
	double headroom;      /* as the workbook computes it (1 - $G/$H) */
	char label[160];
	char row_id[64];
	double step_s, tokens; /* the time model of the chosen row on its class (0: none) */
	/* Where its rows are (for the Summary's live formulas): the parts
	 * (sheets, 1-based) of its first and last rows, the first row's
	 * position in its part, the chosen row's position in its part. */
	int part_first, part_last;
	uint32_t first_pos, best_pos;
} xl_best;

/* The configuration a model's chart shows for one method: the sweep's
 * first of that method with an estimate (as the plan view's). */
typedef struct xl_pick {
	bool set;
	char sheet[LXW_MAX_SHEETNAME_LENGTH + 16];
	lxw_row_t row;       /* 0-based row on that sheet */
	char label[160];
	uint64_t part[GS_PALETTE_PARTS]; /* W, G, O, A, B bytes */
} xl_pick;

typedef struct xl_model {
	char *id;      /* cleaned */
	char *source;  /* cleaned param_source, or NULL */
	char *sheet;   /* first sheet's name */
	size_t rows;
	xl_pick pick[GS_METHOD_MAX];
	char **part_name;      /* the sheets it is on, in order (part k at k - 1) */
	uint32_t *part_rows;   /* their data rows */
	int n_parts;
} xl_model;

typedef struct xl_state {
	const gs_report_meta *m;
	char path[4096];
	gs_atomic out;
	bool out_open;
	lxw_workbook *wb;
	lxw_worksheet *summary, *answers, *charts, *plan;
	lxw_row_t plan_row;   /* next row of the Plan sheet */
	char **vf_text;       /* [class x 4 + needs]: verdict_formula's texts, owned */
	size_t n_vf_text;
	lxw_error lerr; /* first libxlsxwriter failure */
	lxw_format *f_title, *f_head, *f_gib, *f_int, *f_dec, *f_usd, *f_pct, *f_wrap, *f_top, *f_link_top, *f_key,
		*f_verdict[GS_VERDICT_MAX];

	char **names; /* sheet names in use */
	size_t n_names;

	/* GPUs as Excel reads them back. */
	char **gpu_head; /* verdict column headings */
	size_t n_gpu_head;   /* entries of gpu_head (the meta may be gone at free) */
	double *usable_gib;
	double tight;

	/* The Summary's key (see key_formula): per GPU, its value on the
	 * GPUs sheet's key row (KEY_NONE when the plan excludes the class),
	 * the model sheets' key, method and context columns, and whether the
	 * sweep stays in the key's ranges (else the Summary is static). */
	uint64_t *gpu_key;
	lxw_col_t key_col, method_col, seq_col;
	bool live;
	bool keyed;   /* the GPUs sheet has the key row: the model sheets the column */
	/* The time fields the Summary's time and cost read (timefields.h): a
	 * row's step on a class, and the tokens it processes. */
	const gs_time_field *tf_step, *tf_tokens;

	/* The model being written. */
	xl_model *models;
	size_t n_models, cap_models;
	bool in_model;
	lxw_worksheet *ws, *first_ws;
	char ws_name[LXW_MAX_SHEETNAME_LENGTH + 16]; /* ws's name */
	int part;
	uint32_t part_rows;  /* data rows on ws */
	size_t best0;        /* this model's first summary entry */
	size_t last_best;    /* the entry the previous row used */
	xl_best *best;
	size_t n_best, cap_best;
	size_t n_charts;
	bool done;
} xl_state;

/* ---- strings ---------------------------------------------------------- */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Copy s into out (n >= 8 bytes, always NUL-terminated) as text Excel reads
 * back unchanged: bytes that are not valid UTF-8 and control characters
 * other than tab and newline become U+FFFD, at most max_chars characters
 * (whole characters). With esc (for cell text, which Excel decodes), a
 * literal "_xHHHH_" is escaped as "_x005F_xHHHH_"; sheet names and chart
 * titles are not decoded, and text kept for later is stored unescaped.
 * NULL reads as "".
 */
static void xl_clean(const char *s, char *out, size_t n, size_t max_chars, bool esc)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0, chars = 0;

	while (*p != '\0' && chars < max_chars) {
		uint32_t cp = 0;
		size_t len = gs_utf8_decode((const char *)p, GS_UTF8_NUL, &cp);
		const char *emit = NULL;
		size_t elen;

		if (cp == 0xFFFE || cp == 0xFFFF)
			len = 0; /* not allowed in XML */
		if (len == 0 || (cp < 0x20 && cp != '\t' && cp != '\n')) {
			emit = GS_UTF8_REPLACEMENT;
			elen = 3;
			len = len ? len : 1;
		} else if (esc && cp == '_' && p[1] == 'x' && is_hex((char)p[2]) && is_hex((char)p[3]) &&
		           is_hex((char)p[4]) && is_hex((char)p[5]) && p[6] == '_') {
			emit = "_x005F_";
			elen = 7;
		} else {
			emit = (const char *)p;
			elen = len;
		}
		if (o + elen + 1 > n)
			break;
		memcpy(out + o, emit, elen);
		o += elen;
		p += len;
		chars++;
	}
	out[o] = '\0';
}

/* Malloc'd cleaned copy (caller frees). */
static char *xl_clean_dup(const char *s, size_t max_chars, bool esc)
{
	size_t len = s ? strlen(s) : 0;
	size_t n = len * 7 + 8;
	char *out = gs_xmalloc(n);

	xl_clean(s, out, n, max_chars, esc);
	return out;
}

/* ---- cells ------------------------------------------------------------ */

static void note_err(xl_state *st, lxw_error rc)
{
	if (rc != LXW_NO_ERROR && st->lerr == LXW_NO_ERROR)
		st->lerr = rc;
}

/* An outside (or any) string, cleaned; always a string cell. */
static void put_str(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                    lxw_format *f)
{
	char buf[2048];

	if (s == NULL || *s == '\0')
		return;
	if (strlen(s) < sizeof buf / 8) {
		xl_clean(s, buf, sizeof buf, XL_CELL_CHARS, true);
		note_err(st, worksheet_write_string(ws, r, c, buf, f));
	} else {
		char *big = xl_clean_dup(s, XL_CELL_CHARS, true);
		note_err(st, worksheet_write_string(ws, r, c, big, f));
		free(big);
	}
}

/* Outside text as a link to cell A1 of one of our sheets. */
static void put_sheet_link(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c,
                           const char *text, const char *sheet, lxw_format *f)
{
	char url[256], shown[2048];
	size_t k = (size_t)snprintf(url, sizeof url, "internal:'");

	for (const char *p = sheet; *p != '\0' && k + 8 < sizeof url; p++) {
		if (*p == '\'')
			url[k++] = '\'';
		url[k++] = *p;
	}
	snprintf(url + k, sizeof url - k, "'!A1");
	xl_clean(text, shown, sizeof shown, XL_CELL_CHARS, true);
	note_err(st, worksheet_write_url_opt(ws, r, c, url, f, shown, NULL));
}

/* A string we made (names, headings): known clean, no copy. */
static void put_lit(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                    lxw_format *f)
{
	note_err(st, worksheet_write_string(ws, r, c, s, f));
}

/* A paragraph of our own text in row r, across columns 0..c1 (width
 * chars in all), wrapped, the row as tall as its lines. */
static void put_para(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c1, double width,
                     const char *text)
{
	double lines = (double)strlen(text) / (width > 20 ? width * 1.1 : 20) + 1;

	worksheet_set_row(ws, r, 15 * (double)(int)lines, NULL);
	if (c1 == 0) {
		put_str(st, ws, r, 0, text, st->f_wrap);
		return;
	}
	note_err(st, worksheet_merge_range(ws, r, 0, r, c1, text, st->f_wrap));
}

static void put_num(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v,
                    lxw_format *f)
{
	note_err(st, worksheet_write_number(ws, r, c, v, f));
}

static void put_gib(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, uint64_t bytes)
{
	note_err(st, worksheet_write_number(ws, r, c, (double)bytes / GS_GIB, st->f_gib));
}

static void put_bool(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, bool v)
{
	note_err(st, worksheet_write_boolean(ws, r, c, v ? 1 : 0, NULL));
}

/* The value Excel reads back from a number cell: libxlsxwriter writes
 * numbers with "%.16G". Cached verdicts are computed from these. */
static double as_stored(double v)
{
	char buf[40];

	snprintf(buf, sizeof buf, "%.16G", v);
	return strtod(buf, NULL);
}

/* ---- verdicts --------------------------------------------------------- */

/* The verdict formula's value, evaluated as Excel does from the stored
 * cells (see verdict_formula). */
static gs_verdict cached_verdict(double dev_gib, double usable_gib, double tight, bool nb, bool nf,
                                 const gs_gpu *g)
{
	if ((nb && !g->bf16) || (nf && !g->fp8))
		return GS_NOT_RUNNABLE;
	if (dev_gib > usable_gib || !(usable_gib > 0))
		return GS_NO_FIT;
	return 1 - dev_gib / usable_gib >= tight ? GS_FITS : GS_TIGHT;
}

/*
 * The live verdict of row r (0-based sheet row) on GPU gi: the rule of
 * gs_verdict_of over the GPUs sheet's usable GiB (E), bf16 (F), fp8 (G)
 * and tight headroom (B2) and this row's device GiB (C):
 *   =IF(NOT(GPUs!$F$5),"not runnable",
 *       IF($C2>GPUs!$E$5,"does not fit",IF(1-$C2/GPUs!$E$5>=GPUs!$B$2,"fits","tight")))
 * The bf16/fp8 test is there only when the row needs it (its Needs columns
 * say so), which keeps a sweep's workbook small; a usable memory edited to
 * 0 reads as "does not fit".
 */
static void verdict_text(char *buf, size_t n, const char *r, size_t gi, bool nb, bool nf)
{
	unsigned g = GPU_ROW0 + 1 + (unsigned)gi;
	char need[96];
	int k = 0;

	if (nb && nf)
		snprintf(need, sizeof need, "OR(NOT(GPUs!$F$%u),NOT(GPUs!$G$%u))", g, g);
	else if (nb || nf)
		snprintf(need, sizeof need, "NOT(GPUs!$%c$%u)", nb ? 'F' : 'G', g);
	if (nb || nf)
		k = snprintf(buf, n, "=IF(%s,\"%s\",", need, gs_verdict_name(GS_NOT_RUNNABLE));
	else
		k = snprintf(buf, n, "=");
	if (k < 0 || (size_t)k >= n)
		return;
	snprintf(buf + k, n - (size_t)k, "IF($C%s>GPUs!$E$%u,\"%s\",IF(1-$C%s/GPUs!$E$%u>=GPUs!$B$%u,"
	         "\"%s\",\"%s\"))%s", r, g, gs_verdict_name(GS_NO_FIT), r, g, GPU_ROW_TIGHT + 1,
	         gs_verdict_name(GS_FITS), gs_verdict_name(GS_TIGHT), nb || nf ? ")" : "");
}

/* The formula of (0-based) sheet row `row` on class gi: verdict_text once
 * per class and needs with a '\1' for the row number, kept, and the row's
 * number put in its place (a sweep writes one per row and class). */
static void verdict_formula(xl_state *st, char *buf, size_t n, lxw_row_t row, size_t gi, bool nb, bool nf)
{
	char **t = &st->vf_text[gi * 4 + (nb ? 2 : 0) + (nf ? 1 : 0)];
	char rs[GS_INT_CHARS];
	size_t rl = gs_fmt_u64(rs, (uint64_t)row + 1), k = 0;

	if (n == 0)
		return;
	if (*t == NULL) {
		char tmp[512];
		verdict_text(tmp, sizeof tmp, "\1", gi, nb, nf);
		*t = gs_xstrdup(tmp);
	}
	for (const char *p = *t; *p != '\0'; p++) {
		size_t add = *p == '\1' ? rl : 1;
		if (k + add >= n)
			break;
		if (*p == '\1')
			memcpy(buf + k, rs, rl);
		else
			buf[k] = *p;
		k += add;
	}
	buf[k] = '\0';
}

/* ---- the Summary's key ------------------------------------------------ */

/*
 * The Summary is live: formulas over one more column of each model sheet,
 * the "Summary key", and the GPUs sheet. A row's key is the rank of its
 * best GPU under the Summary's rule (gs_best_offer), as one
 * integer that sorts as the rule does, so the Summary takes the least key
 * of its rows (MINIFS) and decodes it:
 *
 *   key = tier + count x P(gpu) + gpu        tier: fits 0, tight KEY_TIGHT
 *   fewest-gpus:  P = 1E+11 + MiB x 1000     (count, then count x MiB)
 *   least-memory: P = MiB x 1E+7 + 1000      (count x MiB, then count)
 *
 * MiB: the GPU's usable memory in whole MiB (ROUND(usable GiB x 1024, 0));
 * gpu: its 0-based row on the GPUs sheet, the last tie-break. No candidate
 * (nothing fits or is tight on a class the plan allows): KEY_NONE. The key
 * is exact (below 2^53) while count < KEY_COUNT_MAX, count x MiB <
 * KEY_MIB_MAX and there are fewer than KEY_GPUS_MAX classes; a sweep past
 * them gets the static Summary (the row evaluation's answers, as written).
 *
 * The GPUs sheet's key row holds Q = P + gpu per class (KEY_NONE for a class
 * the plan excludes), named GPU_KEY; a row's key is then
 *   MIN(IF(COUNTIF(V,"fits"),D*Qf-(D-1)*MOD(Qf,1000),9E+15),
 *       IF(COUNTIF(V,"tight"),3E+15+D*Qt-(D-1)*MOD(Qt,1000),9E+15),9E+15)
 * with V the row's verdicts, D its GPU count and Qf (Qt) =
 * MINIFS(GPU_KEY,V,"fits") ("tight"): the least Q among its fitting
 * (tight) classes, whose count x P + gpu is the row's best. Every P is a
 * multiple of 1000, so the gpu is the key's MOD 1000.
 */
#define KEY_TIGHT 3000000000000000ULL
#define KEY_NONE 9000000000000000ULL
#define KEY_TIGHT_F "3E+15"
#define KEY_NONE_F "9E+15"
#define KEY_COUNT_MAX 10000
#define KEY_MIB_MAX 100000000ULL
#define KEY_GPUS_MAX 1000
/* A model split over more sheets than this gets the static Summary. */
#define KEY_PARTS_MAX 8

/* The GPUs sheet's key row (0-based; its label is on the row above) and
 * first column (B: column A lists only GPU ids). */
#define GPU_KEY_ROW(n_gpus) (GPU_ROW0 + (lxw_row_t)(n_gpus) + 2)
#define GPU_KEY_COL 1

static uint64_t usable_mib(double usable_gib)
{
	double x = usable_gib * 1024;

	return x > 0 && x < 1e15 ? (uint64_t)(x + 0.5) : 0;
}

/* Q of GPU gi as the GPUs sheet computes it (see above). */
static uint64_t gpu_key_value(const xl_state *st, size_t gi)
{
	uint64_t mib = usable_mib(st->usable_gib[gi]);

	if (!gs_plan_opts_eligible(st->m->plan, &st->m->gpus[gi]))
		return KEY_NONE;
	if (gs_plan_opts_rank(st->m->plan) == GS_RANK_LEAST_MEMORY)
		return mib * 10000000ULL + 1000 + gi;
	return 100000000000ULL + mib * 1000 + gi;
}

/* The key of GPU gi at count GPUs, tight or not (see above). */
static uint64_t key_of(const xl_state *st, size_t gi, int64_t count, bool tight)
{
	uint64_t q = st->gpu_key[gi];

	if (q >= KEY_NONE || count < 1)
		return KEY_NONE;
	q = (uint64_t)count * (q - gi) + gi + (tight ? KEY_TIGHT : 0);
	return q < KEY_NONE ? q : KEY_NONE;
}

/* The GPUs sheet's key cell formula of GPU gi. */
static void gpu_key_formula(const xl_state *st, char *buf, size_t n, size_t gi)
{
	unsigned g = GPU_ROW0 + 1 + (unsigned)gi;

	if (gs_plan_opts_rank(st->m->plan) == GS_RANK_LEAST_MEMORY)
		snprintf(buf, n, "=ROUND(GPUs!$E$%u*1024,0)*1E+7+%zu", g, 1000 + gi);
	else
		snprintf(buf, n, "=1E+11+ROUND(GPUs!$E$%u*1024,0)*1000+%zu", g, gi);
}

/* A model sheet row's key formula (row 0-based). */
static void key_formula(const xl_state *st, char *buf, size_t n, lxw_row_t row)
{
	char last[16], v[48];
	unsigned r = (unsigned)row + 1;

	lxw_col_to_name(last, (lxw_col_t)(MC_V0 + st->m->n_gpus - 1), 0);
	snprintf(v, sizeof v, "E%u:%s%u", r, last, r);
	snprintf(buf, n,
	         "=MIN(IF(COUNTIF(%s,\"fits\"),$D%u*_xlfn.MINIFS(GPU_KEY,%s,\"fits\")-($D%u-1)*"
	         "MOD(_xlfn.MINIFS(GPU_KEY,%s,\"fits\"),1000)," KEY_NONE_F "),"
	         "IF(COUNTIF(%s,\"tight\")," KEY_TIGHT_F "+$D%u*_xlfn.MINIFS(GPU_KEY,%s,\"tight\")-($D%u-1)*"
	         "MOD(_xlfn.MINIFS(GPU_KEY,%s,\"tight\"),1000)," KEY_NONE_F ")," KEY_NONE_F ")",
	         v, r, v, r, v, v, r, v, r, v);
}

/* A sheet name quoted for a reference: 'name', quotes doubled. */
static void sheet_ref(char *buf, size_t n, const char *name)
{
	size_t k = 0;

	if (n < 3)
		return;
	buf[k++] = '\'';
	for (const char *p = name; *p != '\0' && k + 3 < n; p++) {
		if (*p == '\'')
			buf[k++] = '\'';
		buf[k++] = *p;
	}
	buf[k++] = '\'';
	buf[k] = '\0';
}

/* ---- sheet names ------------------------------------------------------ */

static bool name_taken(const xl_state *st, const char *name)
{
	static const char *const reserved[] = {"Summary", "Answers", "Plan", "GPUs", "Assumptions", "Charts", "History"};

	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strcasecmp(reserved[i], name) == 0)
			return true;
	for (size_t i = 0; i < st->n_names; i++)
		if (strcasecmp(st->names[i], name) == 0)
			return true;
	return false;
}

/* A sheet name from outside text that every spreadsheet reads back in a
 * reference: ASCII punctuation other than " ._-()+" (Excel's []:*?/\ and
 * also ' ! and the like, which some readers mis-parse in quoted references)
 * becomes '_'; at most 31 characters. */
static void sheet_base(const char *text, char *out, size_t n)
{
	char *p, *q;

	xl_clean(text, out, n, LXW_SHEETNAME_MAX, false);
	for (p = out; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x80 && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                  (c >= '0' && c <= '9') || strchr(" ._-()+", c) != NULL))
			*p = '_';
	}
	for (p = out; *p == '\''; p++)
		;
	memmove(out, p, strlen(p) + 1);
	for (q = out + strlen(out); q > out && q[-1] == '\''; q--)
		q[-1] = '\0';
	gs_utf8_cut(out, LXW_SHEETNAME_MAX);
	for (q = out + strlen(out); q > out && q[-1] == '\''; q--)
		q[-1] = '\0';
	if (out[0] == '\0')
		snprintf(out, n, "Model");
}

/* Add a worksheet named base, or "base (k)" for the first free k >= start
 * (base cut to fit 31 characters). NULL with st->lerr set when impossible. */
static lxw_worksheet *add_sheet(xl_state *st, const char *base, int start, char *name, size_t n)
{
	for (int k = start; k < start + 10000; k++) {
		lxw_worksheet *ws;

		if (k <= 1) {
			snprintf(name, n, "%s", base);
		} else {
			char suffix[16];
			int sl = snprintf(suffix, sizeof suffix, " (%d)", k);
			snprintf(name, n, "%s", base);
			gs_utf8_cut(name, LXW_SHEETNAME_MAX - (size_t)sl);
			for (size_t len = strlen(name); len > 0 && name[len - 1] == '\''; len--)
				name[len - 1] = '\0';
			if (strlen(name) + (size_t)sl + 1 > n)
				continue;
			strcat(name, suffix);
		}
		if (name_taken(st, name) || workbook_validate_sheet_name(st->wb, name) != LXW_NO_ERROR)
			continue;
		ws = workbook_add_worksheet(st->wb, name);
		if (ws == NULL)
			continue;
		st->names = gs_xrealloc(st->names, (st->n_names + 1) * sizeof *st->names);
		st->names[st->n_names++] = gs_xstrdup(name);
		return ws;
	}
	note_err(st, LXW_ERROR_SHEETNAME_ALREADY_USED);
	return NULL;
}

/* ---- errors ----------------------------------------------------------- */

static gs_err lxw_fail(xl_state *st, lxw_error rc, gs_error *e)
{
	gs_err code;

	switch (rc) {
	case LXW_ERROR_MEMORY_MALLOC_FAILED:
		code = GS_ENOMEM;
		break;
	case LXW_ERROR_CREATING_XLSX_FILE:
	case LXW_ERROR_CREATING_TMPFILE:
	case LXW_ERROR_READING_TMPFILE:
	case LXW_ERROR_ZIP_FILE_OPERATION:
	case LXW_ERROR_ZIP_PARAMETER_ERROR:
	case LXW_ERROR_ZIP_BAD_ZIP_FILE:
	case LXW_ERROR_ZIP_INTERNAL_ERROR:
	case LXW_ERROR_ZIP_FILE_ADD:
	case LXW_ERROR_ZIP_CLOSE:
		code = GS_EIO;
		break;
	default:
		code = GS_EINTERNAL;
		break;
	}
	return gs_fail(e, code, "%s: libxlsxwriter: %s (previous file kept)", st->path,
	               lxw_strerror(rc));
}

static gs_err check(xl_state *st, gs_error *e)
{
	return st->lerr == LXW_NO_ERROR ? GS_OK : lxw_fail(st, st->lerr, e);
}

/* ---- begin: workbook, formats, GPUs and Assumptions sheets ------------ */

static lxw_format *verdict_format(lxw_workbook *wb, lxw_color_t bg, lxw_color_t fg)
{
	lxw_format *f = workbook_add_format(wb);

	format_set_bg_color(f, bg);
	format_set_font_color(f, fg);
	/* a Summary answer ("1 x 24 GB (NVIDIA GeForce RTX 4090)") wraps in
	 * its column rather than running under the next */
	format_set_text_wrap(f);
	format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
	return f;
}

static void make_formats(xl_state *st)
{
	lxw_workbook *wb = st->wb;

	st->f_title = workbook_add_format(wb);
	format_set_bold(st->f_title);
	format_set_font_size(st->f_title, 14);
	st->f_head = workbook_add_format(wb);
	format_set_bold(st->f_head);
	format_set_text_wrap(st->f_head);
	format_set_align(st->f_head, LXW_ALIGN_VERTICAL_TOP);
	format_set_bottom(st->f_head, LXW_BORDER_THIN);
	format_set_bg_color(st->f_head, 0xDDEBF7);
	st->f_gib = workbook_add_format(wb);
	format_set_num_format(st->f_gib, "0.00");
	st->f_int = workbook_add_format(wb);
	format_set_num_format(st->f_int, "#,##0");
	st->f_dec = workbook_add_format(wb);
	format_set_num_format(st->f_dec, "0.0");
	st->f_usd = workbook_add_format(wb);
	format_set_num_format(st->f_usd, "#,##0.00");
	st->f_key = workbook_add_format(wb);
	format_set_num_format(st->f_key, "0");
	st->f_pct = workbook_add_format(wb);
	format_set_num_format(st->f_pct, "0%");
	st->f_wrap = workbook_add_format(wb);
	format_set_text_wrap(st->f_wrap);
	format_set_align(st->f_wrap, LXW_ALIGN_VERTICAL_TOP);
	st->f_top = workbook_add_format(wb);
	format_set_align(st->f_top, LXW_ALIGN_VERTICAL_TOP);
	/* the hyperlink look libxlsxwriter gives a link (0x0563C1, underlined), top-aligned */
	st->f_link_top = workbook_add_format(wb);
	format_set_font_color(st->f_link_top, 0x0563C1);
	format_set_underline(st->f_link_top, LXW_UNDERLINE_SINGLE);
	format_set_align(st->f_link_top, LXW_ALIGN_VERTICAL_TOP);
	st->f_verdict[GS_FITS] = verdict_format(wb, 0xC6EFCE, 0x006100);
	st->f_verdict[GS_TIGHT] = verdict_format(wb, 0xFFEB9C, 0x9C5700);
	st->f_verdict[GS_NO_FIT] = verdict_format(wb, 0xFFC7CE, 0x9C0006);
	st->f_verdict[GS_NOT_RUNNABLE] = verdict_format(wb, 0xD9D9D9, 0x404040);
}

/* Colour a block of verdict cells by their text (live: follows the formulas). */
static void colour_verdicts(xl_state *st, lxw_worksheet *ws, lxw_row_t r0, lxw_col_t c0,
                            lxw_row_t r1, lxw_col_t c1)
{
	for (int v = 0; v < GS_VERDICT_MAX; v++) {
		char text[48];
		lxw_conditional_format cf;

		snprintf(text, sizeof text, "\"%s\"", gs_verdict_name((gs_verdict)v));
		memset(&cf, 0, sizeof cf);
		cf.type = LXW_CONDITIONAL_TYPE_CELL;
		cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
		cf.value_string = text;
		cf.format = st->f_verdict[v];
		note_err(st, worksheet_conditional_format_range(ws, r0, c0, r1, c1, &cf));
	}
}

/* The printed page: A4 landscape less the side margins (0.4 in each),
 * in points; the least scale a sheet prints at, so that its 11 pt text
 * prints at 7.7 pt or more (every format of the workbook is 11 pt but
 * the 14 pt titles). A4's width is the narrower one: Letter landscape
 * (11 in) prints the same pages a little wider. */
#define XL_PAGE_PT (72 * (11.69 - 0.8))
#define XL_SCALE_MIN 0.72

/* A column of w characters on paper at 100%, in points, as wide as the
 * widest reader draws it: a width counts the default font's digits, and
 * where Calibri is missing LibreOffice measures DejaVu Sans's (0.636 em
 * at 11 pt: 7 pt, against Calibri's 5.25), plus the cell's padding. */
static double col_pt(double w)
{
	return w * 7.35 + 4;
}

/* Print set-up of every sheet: A4 landscape; fit to one page wide (as
 * many tall as it takes) when its printed columns (width_pt on paper at
 * 100%, col_pt's) fit one at XL_SCALE_MIN, else printed at XL_SCALE_MIN
 * over as many pages wide as they need (fit-to-width to more pages would
 * round the scale up to 100%: more pages for no reader); header rows
 * head0..head1 repeated on every page (none when head1 < head0), the
 * report's date and page numbers in the footer. */
static void print_setup(xl_state *st, lxw_worksheet *ws, int head0, int head1, double width_pt)
{
	/* the scale fit-to-width picks is at least pages x page / width:
	 * a page's slack for the column that does not fit whole */

	char footer[160], date[16] = "";
	time_t t = (time_t)(st->m->epoch > 0 ? st->m->epoch : 0);
	struct tm tm;

	if (gmtime_r(&t, &tm) != NULL)
		strftime(date, sizeof date, "%Y-%m-%d", &tm);
	worksheet_set_landscape(ws);
	worksheet_set_paper(ws, 9); /* A4 */
	worksheet_set_margins(ws, 0.4, 0.4, 0.5, 0.6);
	if (width_pt * XL_SCALE_MIN <= XL_PAGE_PT)
		worksheet_fit_to_pages(ws, 1, 0); /* one page wide, at XL_SCALE_MIN or more */
	else
		worksheet_set_print_scale(ws, (uint16_t)(XL_SCALE_MIN * 100)); /* as many wide as it needs */
	if (head1 >= head0 && head0 >= 0)
		note_err(st, worksheet_repeat_rows(ws, (lxw_row_t)head0, (lxw_row_t)head1));
	snprintf(footer, sizeof footer, "&Lgpusizer %s, %s&C&A&RPage &P of &N",
	         st->m->tool_version ? st->m->tool_version : "", date);
	note_err(st, worksheet_set_footer(ws, footer));
}

/* Input validation on a block of GPU cells: a decimal in [lo, hi], or
 * (bool) TRUE/FALSE, with the message Excel and LibreOffice show. */
static void validate_cells(xl_state *st, lxw_worksheet *ws, lxw_row_t r0, lxw_col_t c, lxw_row_t r1,
                           bool is_bool, double lo, double hi, const char *msg)
{
	lxw_data_validation v;
	char *list[] = { "TRUE", "FALSE", NULL };
	char title[] = "gpusizer";

	memset(&v, 0, sizeof v);
	if (is_bool) {
		v.validate = LXW_VALIDATION_TYPE_LIST;
		v.value_list = list;
	} else {
		v.validate = LXW_VALIDATION_TYPE_DECIMAL;
		v.criteria = LXW_VALIDATION_CRITERIA_BETWEEN;
		v.minimum_number = lo;
		v.maximum_number = hi;
	}
	v.error_title = title;
	v.error_message = (char *)msg;
	note_err(st, worksheet_data_validation_range(ws, r0, c, r1, c, &v));
}

static void write_gpus_sheet(xl_state *st, lxw_worksheet *ws)
{
	static const char *const heads[GC_MAX] = {
		[GC_ID] = "Id", [GC_NAME] = "Name", [GC_CLASS] = "Class",
		[GC_TOTAL] = "Total GiB (driver)", [GC_USABLE] = "Usable GiB (one process)",
		[GC_BF16] = "bf16", [GC_FP8] = "fp8", [GC_BW] = "Bandwidth GB/s",
		[GC_TFLOPS] = "Dense bf16 TFLOPS", [GC_PRICE] = "Price USD per GPU-hour (edit)",
		[GC_SOURCE] = "Source",
	};
	static const double widths[GC_MAX] = {16, 34, 9, 11, 11, 7, 7, 11, 11, 12, 80};
	const gs_report_meta *m = st->m;
	lxw_row_t last = GPU_ROW0 + (lxw_row_t)m->n_gpus - 1;

	for (int c = 0; c < GC_MAX; c++)
		worksheet_set_column(ws, (lxw_col_t)c, (lxw_col_t)c, widths[c], NULL);
	put_lit(st, ws, 0, 0, st->keyed ? "GPU classes: edit a usable memory, bf16, fp8 or the tight "
	        "headroom below and every verdict on the model sheets, and the Summary and Answers, "
	        "recalculate; a price, and the Answers sheet's costs do." :
	        "GPU classes: edit a usable memory, bf16, fp8 or the tight headroom below and "
	        "every verdict on the model sheets recalculates.", st->f_title);
	put_lit(st, ws, GPU_ROW_TIGHT, 0, "Tight below headroom", NULL);
	put_num(st, ws, GPU_ROW_TIGHT, 1, st->tight, st->f_pct);
	put_lit(st, ws, GPU_ROW_TIGHT, 2, "(a configuration fits with at least this share of usable "
	        "memory left; under it, tight)", NULL);
	put_lit(st, ws, 2, 0, "Memory in GiB (2^30 bytes). Usable: what one process can allocate. "
	        "bf16/fp8: TRUE or FALSE. Price: the rent of one GPU for an hour, USD (blank: none).", NULL);
	worksheet_set_row(ws, GPU_ROW_HEAD, 32, NULL);
	for (int c = 0; c < GC_MAX; c++)
		put_lit(st, ws, GPU_ROW_HEAD, (lxw_col_t)c, heads[c], st->f_head);
	for (size_t i = 0; i < m->n_gpus; i++) {
		const gs_gpu *g = &m->gpus[i];
		lxw_row_t r = GPU_ROW0 + (lxw_row_t)i;

		put_str(st, ws, r, GC_ID, g->id, NULL);
		put_str(st, ws, r, GC_NAME, g->name, NULL);
		put_str(st, ws, r, GC_CLASS, g->klass, NULL);
		put_gib(st, ws, r, GC_TOTAL, g->total_bytes);
		put_gib(st, ws, r, GC_USABLE, g->usable_bytes);
		put_bool(st, ws, r, GC_BF16, g->bf16);
		put_bool(st, ws, r, GC_FP8, g->fp8);
		put_num(st, ws, r, GC_BW, g->bandwidth_gbs, st->f_int);
		put_num(st, ws, r, GC_TFLOPS, g->bf16_tflops, st->f_dec);
		if (g->price_usd_hour > 0)
			put_num(st, ws, r, GC_PRICE, g->price_usd_hour, st->f_usd);
		put_str(st, ws, r, GC_SOURCE, g->source, NULL);
	}
	worksheet_freeze_panes(ws, GPU_ROW0, 2);
	note_err(st, worksheet_autofilter(ws, GPU_ROW_HEAD, 0, m->n_gpus ? last : GPU_ROW_HEAD,
	                                  GC_MAX - 1));
	/* What an edit may hold: text such as "10 GB" would turn every verdict
	 * of the GPU into #VALUE!. */
	validate_cells(st, ws, GPU_ROW_TIGHT, 1, GPU_ROW_TIGHT, false, 0, 1,
	               "The tight headroom is a fraction from 0 to 1 (0.1 is 10%).");
	if (m->n_gpus > 0) {
		validate_cells(st, ws, GPU_ROW0, GC_TOTAL, last, false, 0, 1e6,
		               "Total memory in GiB: a number, 0 or more (no unit).");
		validate_cells(st, ws, GPU_ROW0, GC_USABLE, last, false, 0, 1e6,
		               "Usable memory in GiB: a number, 0 or more (no unit).");
		validate_cells(st, ws, GPU_ROW0, GC_BF16, last, true, 0, 0, "bf16: TRUE or FALSE.");
		validate_cells(st, ws, GPU_ROW0, GC_FP8, last, true, 0, 0, "fp8: TRUE or FALSE.");
		validate_cells(st, ws, GPU_ROW0, GC_PRICE, last, false, 0, GS_PRICE_MAX_USD_HOUR,
		               "Price: USD for one GPU for an hour, a number (no unit), or blank for none.");
	}
	{
		double w = 0;
		for (int c = 0; c < GC_MAX; c++)
			w += col_pt(widths[c]);
		print_setup(st, ws, GPU_ROW_HEAD, GPU_ROW_HEAD, w);
	}
	/* on paper the table (not the Summary's key row below it) */
	note_err(st, worksheet_print_area(ws, 0, 0, m->n_gpus ? last : GPU_ROW_HEAD, GC_MAX - 1));
	/* The Summary's key row, last (constant memory: the filter and the
	 * validations above check their rows against the rows written). */
	if (st->keyed) {
		lxw_row_t kr = GPU_KEY_ROW(m->n_gpus);
		char f[160], first[16], lastc[16], name[64];

		put_lit(st, ws, kr - 1, GPU_KEY_COL, "Summary key per GPU class, in the order above "
		        "(formulas over the usable GiB; the Summary ranks the classes by them: see its "
		        "text). Do not edit.", NULL);
		for (size_t i = 0; i < m->n_gpus; i++) {
			lxw_col_t c = (lxw_col_t)(GPU_KEY_COL + i);
			if (st->gpu_key[i] >= KEY_NONE) {
				put_num(st, ws, kr, c, (double)KEY_NONE, st->f_key); /* excluded by the plan */
				continue;
			}
			gpu_key_formula(st, f, sizeof f, i);
			note_err(st, worksheet_write_formula_num(ws, kr, c, f, st->f_key, (double)st->gpu_key[i]));
		}
		lxw_col_to_name(first, GPU_KEY_COL, 1);
		lxw_col_to_name(lastc, (lxw_col_t)(GPU_KEY_COL + m->n_gpus - 1), 1);
		snprintf(f, sizeof f, "=GPUs!%s$%u:%s$%u", first, (unsigned)kr + 1, lastc, (unsigned)kr + 1);
		snprintf(name, sizeof name, "GPU_KEY");
		note_err(st, workbook_define_name(st->wb, name, f));
	}
}

static void write_assumptions_sheet(xl_state *st, lxw_worksheet *ws)
{
	static const char *const legend[] = {
		"Legend",
		"fits: the configuration's device memory per GPU leaves at least the tight headroom "
		"(GPUs sheet, B2) of the GPU's usable memory free.",
		"tight: it fits with less headroom than that.",
		"does not fit: device memory per GPU is more than the GPU's usable memory.",
		"not runnable: the configuration names bf16 (a bf16 recipe, --compute-dtype bf16, a stack that "
		"refuses fp16) or needs fp8 or a newer architecture (flash-attn 2: Ampere) that the GPU lacks; "
		"a configuration whose compute dtype is auto runs in fp16 on a GPU without bf16.",
		"no estimate: the configuration could not be sized (see its Error column).",
		"",
		"Units",
		"GiB = 2^30 bytes. Memory is per GPU: multi-GPU rows are already divided by the sharding; "
		"the GPUs column says how many.",
		"Device = what nvidia-smi shows for the process: reserved by the allocator plus the CUDA "
		"context. The verdicts compare device with usable.",
		"W weights, G gradients, O optimizer states, A activations, B other (temporaries, allocator cache, CUDA context), live "
		"at the peak.",
	};
	const char *text = st->m->assumptions;
	lxw_row_t r = 2;

	worksheet_set_column(ws, 0, 0, XL_PARA_CHARS, NULL);
	put_lit(st, ws, 0, 0, "Assumptions", st->f_title);
	while (text != NULL && *text != '\0') {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char *line = gs_xmalloc(len + 1);

		/* Markdown text: drop the emphasis and code marks a cell would show. */
		size_t k = 0;
		for (size_t i = 0; i < len; i++) {
			if (text[i] == '`' || (text[i] == '*' && i + 1 < len && text[i + 1] == '*')) {
				i += text[i] == '*';
				continue;
			}
			line[k++] = text[i];
		}
		line[k] = '\0';
		if (k > 0 && line[k - 1] == '\r')
			line[k - 1] = '\0';
		put_para(st, ws, r++, 0, XL_PARA_CHARS, line);
		free(line);
		text = nl ? nl + 1 : text + len;
	}
	r++;
	for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
		if (i == 0 || i == 7)
			put_lit(st, ws, r++, 0, legend[i], st->f_head);
		else
			put_para(st, ws, r++, 0, XL_PARA_CHARS, legend[i]);
	}
	print_setup(st, ws, 0, -1, col_pt(XL_PARA_CHARS));
}

/* ---- the Plan sheet ---------------------------------------------------- */

/* Plan sheet columns; the device figure is in C, as on the model sheets,
 * so the live verdict is verdict_formula's. */
enum { PC_MODEL, PC_METHOD, PC_DEVICE, PC_CTX, PC_CLASS, PC_GPU, PC_COUNT, PC_LAYOUT, PC_HEAD,
       PC_VERDICT, PC_BEST, PC_LONGEST, PC_START, PC_MAX };
#define PLAN_ROW_HEAD 5

static void plan_header(xl_state *st)
{
	static const struct {
		const char *head;
		double width;
	} cols[PC_MAX] = {
		[PC_MODEL] = {"Model", 30}, [PC_METHOD] = {"Method", 9},
		[PC_DEVICE] = {"Device GiB per GPU at the answer", 11},
		[PC_CTX] = {"Context (tokens)", 9}, [PC_CLASS] = {"GPU class", 9},
		[PC_GPU] = {"GPU", 30}, [PC_COUNT] = {"Fewest GPUs", 8},
		[PC_LAYOUT] = {"Layout", 10}, [PC_HEAD] = {"Headroom", 9},
		[PC_VERDICT] = {"Verdict now (live)", 12},
		[PC_BEST] = {"Best class at this context", 10},
		[PC_LONGEST] = {"Longest context on 1 GPU (at most the model's limit)", 12},
		[PC_START] = {"Starting point", 44},
	};
	lxw_worksheet *ws = st->plan;
	const gs_plan_opts *o = st->m->plan;
	gs_plan_rank rank = gs_plan_opts_rank(o);
	int64_t max = gs_plan_opts_max_gpus(o);
	char buf[640];
	double wchars = 0;

	for (int c = 0; c < PC_MAX; c++)
		worksheet_set_column(ws, (lxw_col_t)c, (lxw_col_t)c, cols[c].width, NULL);
	put_lit(st, ws, 0, 0, "Plan: the fewest GPUs of each class", st->f_title);
	for (int c = 0; c < PC_MAX; c++)
		wchars += cols[c].width;
	put_para(st, ws, 1, PC_MAX - 1, wchars, "For each model and method the starting point is the first configuration "
	        "the sweep has of that method; for each GPU class, the fewest GPUs that run it at each "
	        "context, with the layout that achieves it (ddp, ZeRO or FSDP sharding; for inference "
	        "tensor parallel or a layer split), and the longest context that runs on one GPU.");
	snprintf(buf, sizeof buf, "Searched up to %" PRId64 " GPUs. Best class at a context, by the rule "
	         "\"%s\": %s; a comfortable fit before a tight one.", max, gs_plan_rank_name(rank),
	         gs_plan_rank_text(rank));
	put_para(st, ws, 2, PC_MAX - 1, wchars, buf);
	put_para(st, ws, 3, PC_MAX - 1, wchars, "The counts are the search's answers when the workbook was written. The "
	        "verdict column is live (it follows the GPUs sheet): after an edit there, a row that "
	        "reads \"does not fit\" needs more GPUs; run gpusizer report (or gpusizer plan) again "
	        "for the new count.");
	worksheet_set_row(ws, PLAN_ROW_HEAD, 45, NULL);
	for (int c = 0; c < PC_MAX; c++)
		put_lit(st, ws, PLAN_ROW_HEAD, (lxw_col_t)c, cols[c].head, st->f_head);
	worksheet_freeze_panes(ws, PLAN_ROW_HEAD + 1, 2);
	{
		double w = 0;
		for (int c = 0; c < PC_MAX; c++)
			w += col_pt(cols[c].width);
		print_setup(st, ws, PLAN_ROW_HEAD, PLAN_ROW_HEAD, w);
	}
	st->plan_row = PLAN_ROW_HEAD + 1;
}

/* The Plan sheet's rows of one model: per method, class and context. */
static void plan_rows(xl_state *st, const xl_model *xm, const gs_plan_view *v)
{
	lxw_worksheet *ws = st->plan;
	char buf[160];
	char f[512];

	for (int m = 0; m < GS_METHOD_MAX; m++) {
		const gs_plan_method *pm = &v->m[m];
		gs_needs need;

		if (!pm->present)
			continue;
		need = gs_settings_needs(&pm->base);
		for (size_t c = 0; c < v->n_classes; c++) {
			size_t gi = v->classes[c];
			const gs_gpu *g = &st->m->gpus[gi];

			for (size_t k = 0; k < pm->nseq; k++) {
				const gs_plan_cell *x = &pm->cells[c * pm->nseq + k];
				lxw_row_t r = st->plan_row++;

				put_str(st, ws, r, PC_MODEL, xm->id, NULL);
				put_lit(st, ws, r, PC_METHOD, gs_method_name((gs_method)m), NULL);
				put_num(st, ws, r, PC_CTX, (double)pm->seqs[k], st->f_int);
				put_str(st, ws, r, PC_CLASS, g->klass, NULL);
				put_str(st, ws, r, PC_GPU, g->name, NULL);
				if (x->state == GS_PC_FOUND) {
					double dev = as_stored((double)x->device / GS_GIB);
					gs_verdict now = cached_verdict(dev, st->usable_gib[gi], st->tight, need.bf16,
					                                need.fp8, g);
					put_gib(st, ws, r, PC_DEVICE, x->device);
					put_num(st, ws, r, PC_COUNT, (double)x->count, NULL);
					gs_plan_cell_layout(x, buf, sizeof buf);
					put_lit(st, ws, r, PC_LAYOUT, buf, NULL);
					put_num(st, ws, r, PC_HEAD, x->headroom, st->f_pct);
					verdict_formula(st, f, sizeof f, r, gi, need.bf16, need.fp8);
					note_err(st, worksheet_write_formula_str(ws, r, PC_VERDICT, f, NULL,
					                                         gs_verdict_name(now)));
				} else {
					gs_plan_cell_text(v, x, buf, sizeof buf);
					put_lit(st, ws, r, PC_COUNT, buf,
					        st->f_verdict[x->state == GS_PC_NONE ? GS_NO_FIT : GS_NOT_RUNNABLE]);
				}
				if (pm->best[k] == c)
					put_lit(st, ws, r, PC_BEST, "best", st->f_verdict[GS_FITS]);
				if (pm->longest[c] > 0)
					put_num(st, ws, r, PC_LONGEST, (double)pm->longest[c], st->f_int);
				put_str(st, ws, r, PC_START, pm->label, NULL);
			}
		}
	}
}

static gs_err xl_begin(gs_writer *w, const gs_report_meta *m, gs_error *e)
{
	xl_state *st = w->state;
	lxw_workbook_options opt;
	lxw_doc_properties props;
	lxw_worksheet *gpus, *assum;
	char title[] = "gpusizer sizing workbook";
	char nul[] = "";
	char created_by[] = "gpusizer";
	char tmpdir[4096];
	gs_err rc;

	st->m = m;
	if ((size_t)MC_V0 + 2 * m->n_gpus + xl_detail_cols() + 2 > LXW_COL_MAX)
		return gs_fail(e, GS_EUSAGE, "xlsx: %zu GPU classes do not fit in one sheet's %d columns",
		               m->n_gpus, LXW_COL_MAX);
	if (snprintf(st->path, sizeof st->path, "%s/%s", m->out_dir, GS_XLSX_FILE) >=
	    (int)sizeof st->path)
		return gs_fail(e, GS_EIO, "%s: output directory path too long", m->out_dir);
	rc = gs_atomic_open(&st->out, st->path, e);
	if (rc != GS_OK)
		return rc;
	st->out_open = true;

	/* libxlsxwriter writes the file itself, at workbook_close, to the
	 * temporary name gs_atomic made; its own temporaries (unlinked at once)
	 * go to the output directory, not a possibly memory-backed /tmp. */
	snprintf(tmpdir, sizeof tmpdir, "%s", m->out_dir);
	memset(&opt, 0, sizeof opt);
	opt.constant_memory = LXW_TRUE;
	opt.tmpdir = tmpdir;
	opt.use_zip64 = LXW_FALSE;
	st->wb = workbook_new_opt(st->out.tmp, &opt);
	if (st->wb == NULL)
		return gs_fail(e, GS_ENOMEM, "%s: cannot create the workbook", st->path);

	/* A fixed creation date makes identical inputs give identical bytes;
	 * libxlsxwriter reads 0 as "now", so the epoch itself maps to 1 s. */
	memset(&props, 0, sizeof props);
	props.title = title;
	props.author = created_by;
	props.comments = nul;
	props.created = (time_t)(m->epoch > 0 ? m->epoch : 1);
	note_err(st, workbook_set_properties(st->wb, &props));

	make_formats(st);
	st->tight = as_stored(GS_TIGHT_HEADROOM);
	st->usable_gib = gs_xcalloc(m->n_gpus ? m->n_gpus : 1, sizeof *st->usable_gib);
	st->n_vf_text = 4 * (m->n_gpus ? m->n_gpus : 1);
	st->vf_text = gs_xcalloc(st->n_vf_text, sizeof *st->vf_text);
	st->gpu_head = gs_xcalloc(m->n_gpus ? m->n_gpus : 1, sizeof *st->gpu_head);
	st->n_gpu_head = m->n_gpus;
	for (size_t i = 0; i < m->n_gpus; i++) {
		char head[256];

		st->usable_gib[i] = as_stored((double)m->gpus[i].usable_bytes / GS_GIB);
		snprintf(head, sizeof head, "%s: %s", m->gpus[i].klass, m->gpus[i].name);
		st->gpu_head[i] = xl_clean_dup(head, XL_CELL_CHARS, false);
	}
	/* The Summary's key: its columns, each class's value (see key_formula). */
	st->live = m->n_gpus > 0 && m->n_gpus < KEY_GPUS_MAX;
	st->gpu_key = gs_xcalloc(m->n_gpus ? m->n_gpus : 1, sizeof *st->gpu_key);
	for (size_t i = 0; i < m->n_gpus; i++)
		st->gpu_key[i] = gpu_key_value(st, i);
	st->key_col = (lxw_col_t)(MC_V0 + m->n_gpus + xl_detail_cols());
	st->tf_step = gs_time_field_find("step_s", GS_TF_CLASS);
	st->tf_tokens = gs_time_field_find("tokens_per_step", GS_TF_ROW);
	if (st->tf_step == NULL || st->tf_tokens == NULL)
		return gs_fail(e, GS_EINTERNAL, "%s: the time fields step_s and tokens_per_step", st->path);
	st->method_col = st->seq_col = 0;
	{
		lxw_col_t c = (lxw_col_t)(MC_V0 + m->n_gpus + 1);
		for (size_t i = 0; i < gs_settings_count(); i++) {
			const gs_setting *sd = &gs_settings_table()[i];
			if (!xl_set_col(sd))
				continue;
			if (strcmp(sd->name, "method") == 0)
				st->method_col = c;
			else if (strcmp(sd->name, "seq") == 0)
				st->seq_col = c;
			c++;
		}
	}
	if (st->method_col == 0 || st->seq_col == 0)
		st->live = false;
	st->keyed = st->live;

	/* Sheet order: Summary and Answers (filled at the end), Plan, GPUs,
	 * Assumptions, Charts, then the models. */
	st->summary = workbook_add_worksheet(st->wb, "Summary");
	st->answers = workbook_add_worksheet(st->wb, "Answers");
	st->plan = workbook_add_worksheet(st->wb, "Plan");
	gpus = workbook_add_worksheet(st->wb, "GPUs");
	assum = workbook_add_worksheet(st->wb, "Assumptions");
	st->charts = workbook_add_worksheet(st->wb, "Charts");
	if (st->summary == NULL || st->answers == NULL || st->plan == NULL || gpus == NULL ||
	    assum == NULL || st->charts == NULL)
		return gs_fail(e, GS_EIO, "%s: cannot add the worksheets (temporary files in %s?)",
		               st->path, m->out_dir);
	write_gpus_sheet(st, gpus);
	write_assumptions_sheet(st, assum);
	plan_header(st);
	worksheet_set_column(st->charts, 0, 0, 12, NULL);
	/* the charts (columns up to CH_T0, 1.6 x 480 px), then their data */
	print_setup(st, st->charts, 0, -1, col_pt(12) + col_pt(8.43) * (CH_T0 - 1));
	worksheet_set_column(st->charts, CH_T0, CH_T0, 9, NULL);
	worksheet_set_column(st->charts, CH_T0 + 1, CH_T0 + 1, 44, NULL);
	worksheet_set_column(st->charts, CH_T0 + 2, CH_T0 + 1 + GS_PALETTE_PARTS, 10, NULL);
	if (m->n_models > XL_CHARTS_MAX) {
		char note[160];
		/* rows go in order (constant memory): said now, for what comes */
		snprintf(note, sizeof note, "Charts for the first %d models with configurations only; "
		         "the model sheets hold every model's data.", XL_CHARTS_MAX);
		put_lit(st, st->charts, 1, 0, note, NULL);
	}
	put_lit(st, st->charts, 0, 0, "Memory per GPU at the peak, GiB, stacked W/G/O/A/B, for the "
	        "first configuration of each method of each model (the table beside each chart names "
	        "it, its sheet and row).", NULL);
	return check(st, e);
}

/* The column of time field f (timefields.h) on a model sheet: the row's
 * figures after the Summary key, then the per-class ones, a class each
 * (class gi). */
static lxw_col_t time_col(const xl_state *st, const gs_time_field *f, size_t gi)
{
	size_t nf, c = 1;
	const gs_time_field *tf = gs_time_fields(&nf);

	for (size_t k = 0; k < nf && &tf[k] != f; k++)
		c += tf[k].out & GS_TF_ROW ? 1 : tf[k].out & GS_TF_CLASS ? st->m->n_gpus : 0;
	return (lxw_col_t)(st->key_col + c + (f->out & GS_TF_CLASS ? gi : 0));
}

/* A time field's value as the JSON and CSV write it (its format's digits),
 * a number. */
static void put_time_field(xl_state *st, lxw_worksheet *ws, lxw_row_t row, const gs_time_field *f,
                           const gs_cell *c, size_t gi)
{
	char b[64];

	put_num(st, ws, row, time_col(st, f, gi), strtod(gs_time_field_text(f, c, NULL, b, sizeof b), NULL),
	        f->count ? st->f_int : NULL);
}

/* Row r's time fields: the row's from the first class that can run it,
 * the per-class ones on each such class. */
static void put_time(xl_state *st, lxw_worksheet *ws, lxw_row_t row, const gs_row *r)
{
	size_t nf, n_gpus = st->m->n_gpus;
	const gs_time_field *tf = gs_time_fields(&nf);
	const gs_cell *c0 = NULL;

	for (size_t i = 0; i < n_gpus && c0 == NULL; i++)
		if (gs_cell_runs(&r->cell[i]))
			c0 = &r->cell[i];
	for (size_t k = 0; c0 != NULL && k < nf; k++) {
		if (gs_time_field_in(&tf[k], GS_TF_ROW, r->settings.method))
			put_time_field(st, ws, row, &tf[k], c0, 0);
		else if (gs_time_field_in(&tf[k], GS_TF_CLASS, r->settings.method))
			for (size_t i = 0; i < n_gpus; i++)
				if (gs_cell_runs(&r->cell[i]))
					put_time_field(st, ws, row, &tf[k], &r->cell[i], i);
	}
}

/* ---- models ----------------------------------------------------------- */

static void sheet_header(xl_state *st, lxw_worksheet *ws)
{
	const gs_report_meta *m = st->m;
	lxw_col_t d0 = (lxw_col_t)(MC_V0 + m->n_gpus);

	worksheet_set_row(ws, 0, 45, NULL);
	worksheet_set_column(ws, MC_ID, MC_ID, 22, NULL);
	worksheet_set_column(ws, MC_CONFIG, MC_CONFIG, 44, NULL);
	worksheet_set_column(ws, MC_DEVICE, MC_DEVICE, 10, NULL);
	worksheet_set_column(ws, MC_GPUS, MC_GPUS, 6, NULL);
	if (m->n_gpus > 0)
		worksheet_set_column(ws, MC_V0, (lxw_col_t)(MC_V0 + m->n_gpus - 1), XL_VERDICT_CHARS, NULL);
	lxw_col_t t0 = (lxw_col_t)(d0 + xl_set_cols()); /* the estimate's columns */
	lxw_col_t c = (lxw_col_t)(d0 + 1);

	worksheet_set_column(ws, d0, d0, detail_cols[D_MODEL].width, NULL);
	for (size_t i = 0; i < gs_settings_count(); i++) {
		const gs_setting *sd = &gs_settings_table()[i];
		if (xl_set_col(sd)) {
			worksheet_set_column(ws, c, c, sd->width, NULL);
			c++;
		}
	}
	for (int d = D_MODEL + 1; d < D_MAX; d++)
		worksheet_set_column(ws, (lxw_col_t)(t0 + d), (lxw_col_t)(t0 + d), detail_cols[d].width,
		                     NULL);
	put_lit(st, ws, 0, MC_ID, "Row id", st->f_head);
	put_lit(st, ws, 0, MC_CONFIG, "Configuration", st->f_head);
	put_lit(st, ws, 0, MC_DEVICE, "Device GiB per GPU", st->f_head);
	put_lit(st, ws, 0, MC_GPUS, "GPUs", st->f_head);
	for (size_t i = 0; i < m->n_gpus; i++)
		put_str(st, ws, 0, (lxw_col_t)(MC_V0 + i), st->gpu_head[i], st->f_head);
	put_lit(st, ws, 0, d0, detail_cols[D_MODEL].head, st->f_head);
	c = (lxw_col_t)(d0 + 1);
	for (size_t i = 0; i < gs_settings_count(); i++) {
		const gs_setting *sd = &gs_settings_table()[i];
		if (xl_set_col(sd))
			put_lit(st, ws, 0, c++, sd->title, st->f_head);
	}
	for (int d = D_MODEL + 1; d < D_MAX; d++)
		put_lit(st, ws, 0, (lxw_col_t)(t0 + d), detail_cols[d].head, st->f_head);
	if (st->keyed) {
		worksheet_set_column(ws, st->key_col, st->key_col, 18, NULL);
		put_lit(st, ws, 0, st->key_col, "Summary key (the row's best GPU, for the Summary)",
		        st->f_head);
	}
	/* The time model's columns, last (timefields.h): the row's figures
	 * (the tokens a step processes), then the per-class ones on each class
	 * that can run the row (whether it fits: the verdict columns), for the
	 * Summary's time and cost. */
	{
		size_t nf, cols = 0;
		const gs_time_field *tf = gs_time_fields(&nf);
		for (size_t k = 0; k < nf; k++) {
			if (tf[k].out & GS_TF_ROW) {
				put_lit(st, ws, 0, time_col(st, &tf[k], 0), tf[k].title, st->f_head);
				cols++;
			} else if (tf[k].out & GS_TF_CLASS) {
				for (size_t i = 0; i < m->n_gpus; i++) {
					char head[300];
					snprintf(head, sizeof head, "%s, %s", tf[k].title, st->gpu_head[i]);
					put_str(st, ws, 0, time_col(st, &tf[k], i), head, st->f_head);
				}
				cols += m->n_gpus;
			}
		}
		if (cols > 0)
			worksheet_set_column(ws, (lxw_col_t)(st->key_col + 1), (lxw_col_t)(st->key_col + cols), 14, NULL);
	}
	worksheet_freeze_panes(ws, 1, MC_DEVICE);
}

/* Filter and colours for the sheet now complete. */
static void sheet_finish(xl_state *st, lxw_worksheet *ws, uint32_t rows)
{
	lxw_col_t last = (lxw_col_t)(MC_V0 + st->m->n_gpus + xl_detail_cols() - 1);

	if (st->n_models > 0 && st->models[st->n_models - 1].n_parts > 0) {
		xl_model *xm = &st->models[st->n_models - 1];
		xm->part_rows[xm->n_parts - 1] = rows;
	}
	note_err(st, worksheet_autofilter(ws, 0, 0, rows, last));
	/* On paper: the configuration, its memory and the verdicts (the
	 * detail columns are for the screen: one page wide they would not
	 * be legible). */
	print_setup(st, ws, 0, 0, col_pt(22) + col_pt(44) + col_pt(10) + col_pt(6) +
	                              col_pt(XL_VERDICT_CHARS) * (double)st->m->n_gpus);
	note_err(st, worksheet_print_area(ws, 0, 0, rows, (lxw_col_t)(MC_V0 + st->m->n_gpus - 1 +
	                                                               (st->m->n_gpus == 0))));
	if (rows > 0 && st->m->n_gpus > 0)
		colour_verdicts(st, ws, 1, MC_V0, rows, (lxw_col_t)(MC_V0 + st->m->n_gpus - 1));
}

/* One more sheet of model xm (its rows counted at sheet_finish). */
static void model_part_add(xl_model *xm, const char *name)
{
	xm->part_name = gs_xrealloc(xm->part_name, ((size_t)xm->n_parts + 1) * sizeof *xm->part_name);
	xm->part_rows = gs_xrealloc(xm->part_rows, ((size_t)xm->n_parts + 1) * sizeof *xm->part_rows);
	xm->part_name[xm->n_parts] = gs_xstrdup(name);
	xm->part_rows[xm->n_parts] = 0;
	xm->n_parts++;
}

static gs_err xl_model_begin(gs_writer *w, const gs_model *model, gs_error *e)
{
	xl_state *st = w->state;
	char base[LXW_MAX_SHEETNAME_LENGTH], name[LXW_MAX_SHEETNAME_LENGTH + 16];
	const char *id = model->id ? model->id : "";
	const char *tail = strrchr(id, '/');
	xl_model *xm;

	/* The repository name ("Llama-3.1-8B") is what a reader looks for; the
	 * full id is in the Model column and on the Summary. */
	sheet_base(tail && tail[1] ? tail + 1 : id, base, sizeof base);
	st->ws = add_sheet(st, base, 1, name, sizeof name);
	if (st->ws == NULL)
		return gs_fail(e, GS_EIO, "%s: cannot add a worksheet for model %s", st->path, id);
	if (st->n_models == st->cap_models) {
		st->cap_models = st->cap_models ? st->cap_models * 2 : 16;
		st->models = gs_xrealloc(st->models, st->cap_models * sizeof *st->models);
	}
	xm = &st->models[st->n_models++];
	xm->id = xl_clean_dup(id, XL_CELL_CHARS, false);
	xm->source = model->param_source ? xl_clean_dup(model->param_source, XL_CELL_CHARS, false)
	                                 : NULL;
	xm->sheet = gs_xstrdup(name);
	xm->rows = 0;
	memset(xm->pick, 0, sizeof xm->pick);
	xm->part_name = NULL;
	xm->part_rows = NULL;
	xm->n_parts = 0;
	model_part_add(xm, name);
	snprintf(st->ws_name, sizeof st->ws_name, "%s", name);
	st->in_model = true;
	st->first_ws = st->ws;
	st->part = 1;
	st->part_rows = 0;
	st->best0 = st->n_best;
	sheet_header(st, st->ws);
	return check(st, e);
}

static xl_best *best_entry(xl_state *st, gs_method method, int64_t seq)
{
	xl_best *b;

	/* Rows come grouped by method and context: try the last hit first. */
	if (st->last_best >= st->best0 && st->last_best < st->n_best &&
	    st->best[st->last_best].method == method && st->best[st->last_best].seq == seq)
		return &st->best[st->last_best];
	for (size_t i = st->best0; i < st->n_best; i++)
		if (st->best[i].method == method && st->best[i].seq == seq) {
			st->last_best = i;
			return &st->best[i];
		}
	if (st->n_best == st->cap_best) {
		st->cap_best = st->cap_best ? st->cap_best * 2 : 64;
		st->best = gs_xrealloc(st->best, st->cap_best * sizeof *st->best);
	}
	st->last_best = st->n_best;
	b = &st->best[st->n_best++];
	memset(b, 0, sizeof *b);
	b->model_no = st->n_models - 1;
	b->method = method;
	b->seq = seq;
	b->min_device = UINT64_MAX;
	return b;
}

/* Our own verified run of row r, if any: the figure in GiB and the text
 * "measured 11.2 GiB on RTX 4090, predicted 11.5 GiB" (an out-of-memory
 * run has the text only). */
static void put_measured(xl_state *st, lxw_worksheet *ws, lxw_row_t row, lxw_col_t t0, const gs_row *r)
{
	const gs_measured *mr = r->measured;
	uint64_t bytes;
	gs_measured_kind k;
	char txt[256];

	if (mr == NULL)
		return;
	if (gs_measured_figure(mr, GS_MK_DEVICE, &k, &bytes))
		put_gib(st, ws, row, t0 + D_MEAS_GIB, bytes);
	gs_measured_row_text(mr, &r->est, txt, sizeof txt);
	put_str(st, ws, row, t0 + D_MEAS_TEXT, txt, NULL);
}

/* The row's settings from column c on, in table order (those that do not
 * apply to the row's method left blank; see xl_set_col). */
static void put_settings(xl_state *st, lxw_worksheet *ws, lxw_row_t row, lxw_col_t c,
                         const gs_settings *s)
{
	for (size_t i = 0; i < gs_settings_count(); i++) {
		const gs_setting *d = &gs_settings_table()[i];
		gs_setting_value v;

		if (!xl_set_col(d))
			continue;
		gs_setting_get(d, s, &v);
		if (gs_setting_applies(d, s) && (v.named || !v.unset)) {
			if (v.type == GS_ST_TEXT)
				put_str(st, ws, row, c, v.text, NULL);
			else if (v.type == GS_ST_BOOL && !v.named)
				put_bool(st, ws, row, c, v.b); /* TRUE or FALSE: a filter and a formula read it */
			else if (v.named)
				put_lit(st, ws, row, c, v.text, NULL);
			else
				put_num(st, ws, row, c, v.d, NULL);
		}
		c++;
	}
}

static void write_row(xl_state *st, lxw_worksheet *ws, lxw_row_t row, const gs_row *r)
{
	const gs_report_meta *m = st->m;
	const gs_settings *s = &r->settings;
	const gs_estimate *x = &r->est;
	lxw_col_t d0 = (lxw_col_t)(MC_V0 + m->n_gpus);
	lxw_col_t t0 = (lxw_col_t)(d0 + xl_set_cols());
	bool ok = r->err == GS_OK;
	char f[512];

	put_str(st, ws, row, MC_ID, r->id, NULL);
	put_str(st, ws, row, MC_CONFIG, r->label, NULL);
	put_num(st, ws, row, MC_GPUS, (double)s->gpus, NULL);
	put_str(st, ws, row, d0 + D_MODEL, st->models[st->n_models - 1].id, NULL);
	put_settings(st, ws, row, (lxw_col_t)(d0 + 1), s);
	if (!ok) {
		for (size_t i = 0; i < m->n_gpus; i++)
			put_lit(st, ws, row, (lxw_col_t)(MC_V0 + i), "no estimate", NULL);
		put_str(st, ws, row, t0 + D_ERROR, r->err_msg[0] ? r->err_msg : gs_strerror(r->err), NULL);
		return;
	}

	gs_needs need = gs_settings_needs(s);
	bool nb = need.bf16, nf = need.fp8;
	double dev = as_stored((double)x->device / GS_GIB);

	int64_t count = s->gpus > 0 ? s->gpus : 1;
	uint64_t key = KEY_NONE;

	put_gib(st, ws, row, MC_DEVICE, x->device);
	for (size_t i = 0; i < m->n_gpus; i++) {
		/* the formula's value as the workbook computes it from its cells */
		gs_verdict v = cached_verdict(dev, st->usable_gib[i], st->tight, nb, nf, &m->gpus[i]);
		/* a kernel's architecture (no GPUs sheet column): the evaluated
		 * cell says not runnable where the formula's flags would not */
		bool too_old = r->cell[i].v == GS_NOT_RUNNABLE && v != GS_NOT_RUNNABLE;

		if (too_old) {
			v = GS_NOT_RUNNABLE;
			put_lit(st, ws, row, (lxw_col_t)(MC_V0 + i), gs_verdict_name(v), NULL);
		} else {
			verdict_formula(st, f, sizeof f, row, i, nb, nf);
			note_err(st, worksheet_write_formula_str(ws, row, (lxw_col_t)(MC_V0 + i), f, NULL,
			                                         gs_verdict_name(v)));
		}
		if (st->gpu_key[i] < KEY_NONE) {
			uint64_t k;
			/* the key's ranges (see key_formula): past them, a static Summary */
			if (s->gpus < 1 || count >= KEY_COUNT_MAX ||
			    (uint64_t)count * usable_mib(st->usable_gib[i]) >= KEY_MIB_MAX)
				st->live = false;
			if (v == GS_FITS || v == GS_TIGHT) {
				k = key_of(st, i, count, v == GS_TIGHT);
				key = k < key ? k : key;
			}
		}
	}
	if (st->keyed) {
		char kf[1024];
		key_formula(st, kf, sizeof kf, row);
		note_err(st, worksheet_write_formula_num(ws, row, st->key_col, kf, st->f_key, (double)key));
	}
	put_time(st, ws, row, r);
	put_num(st, ws, row, t0 + D_PTOTAL, (double)x->params_total, st->f_int);
	put_num(st, ws, row, t0 + D_PTRAIN, (double)x->params_trainable, st->f_int);
	put_num(st, ws, row, t0 + D_PACTIVE, (double)x->params_active, st->f_int);
	put_gib(st, ws, row, t0 + D_W, x->W);
	put_gib(st, ws, row, t0 + D_G, x->G);
	put_gib(st, ws, row, t0 + D_O, x->O);
	put_gib(st, ws, row, t0 + D_A, x->A);
	put_gib(st, ws, row, t0 + D_B, x->B);
	put_num(st, ws, row, t0 + D_BPPW, x->bpp_W, st->f_gib);
	put_num(st, ws, row, t0 + D_BPPG, x->bpp_G, st->f_gib);
	put_num(st, ws, row, t0 + D_BPPO, x->bpp_O, st->f_gib);
	put_str(st, ws, row, t0 + D_RECIPE, x->recipe, NULL);
	put_lit(st, ws, row, t0 + D_PHASE, gs_phase_name(x->peak_phase), NULL);
	put_num(st, ws, row, t0 + D_STEP, (double)x->peak_step, NULL);
	put_gib(st, ws, row, t0 + D_ALLOC, x->allocated);
	put_gib(st, ws, row, t0 + D_RESERVED, x->reserved);
	put_gib(st, ws, row, t0 + D_HOST, x->host);
	put_measured(st, ws, row, t0, r);
	/* A seed's slot is filled when its formula field names it. */
	if (r->seeds[GS_F_COOKBOOK].formula == GS_F_COOKBOOK)
		put_gib(st, ws, row, t0 + D_COOKBOOK, r->seeds[GS_F_COOKBOOK].device);
	if (r->seeds[GS_F_RULE_OF_THUMB].formula == GS_F_RULE_OF_THUMB)
		put_gib(st, ws, row, t0 + D_THUMB, r->seeds[GS_F_RULE_OF_THUMB].device);
	if (r->seeds[GS_F_ZERO1_RULE].formula == GS_F_ZERO1_RULE)
		put_gib(st, ws, row, t0 + D_ZERO1, r->seeds[GS_F_ZERO1_RULE].device);
	put_bool(st, ws, row, t0 + D_NEED_BF16, nb);
	put_bool(st, ws, row, t0 + D_NEED_FP8, nf);
	put_str(st, ws, row, t0 + D_NOTE, x->note, NULL);
}

static gs_err xl_row(gs_writer *w, const gs_row *r, gs_error *e)
{
	xl_state *st = w->state;
	xl_model *xm;
	xl_best *b;

	if (!st->in_model)
		return gs_fail(e, GS_EINTERNAL, "%s: row outside a model", st->path);
	if (r->cell == NULL && st->m->n_gpus > 0)
		return gs_fail(e, GS_EINTERNAL, "%s: row %s not evaluated (gs_row_eval)", st->path, r->id);
	xm = &st->models[st->n_models - 1];
	if (st->part_rows >= data_rows_max) {
		char name[LXW_MAX_SHEETNAME_LENGTH + 16];
		lxw_worksheet *next;

		sheet_finish(st, st->ws, st->part_rows);
		next = add_sheet(st, xm->sheet, st->part + 1, name, sizeof name);
		if (next == NULL)
			return gs_fail(e, GS_EIO, "%s: cannot add a continuation sheet for %s", st->path,
			               xm->id);
		fprintf(stderr,
		        "gpusizer: xlsx: model %s has more than %" PRIu32 " configurations, more than "
		        "a sheet holds; continued on sheet \"%s\"\n",
		        xm->id, data_rows_max * (uint32_t)st->part, name);
		st->ws = next;
		model_part_add(xm, name);
		snprintf(st->ws_name, sizeof st->ws_name, "%s", name);
		st->part++;
		st->part_rows = 0;
		sheet_header(st, next);
	}
	b = r->err == GS_OK ? best_entry(st, r->settings.method, r->settings.seq) : NULL;
	if (b != NULL) {
		if (!b->seen) {
			b->seen = true;
			b->part_first = st->part;
			b->first_pos = st->part_rows + 1;
		}
		b->part_last = st->part;
		if (r->answer_taken) /* the answer's row, unless a later row takes it */
			b->best_pos = st->part_rows + 1;
	}
	write_row(st, st->ws, st->part_rows + 1, r);
	if (r->err == GS_OK && (unsigned)r->settings.method < GS_METHOD_MAX &&
	    !xm->pick[r->settings.method].set) {
		xl_pick *p = &xm->pick[r->settings.method];
		p->set = true;
		snprintf(p->sheet, sizeof p->sheet, "%s", st->ws_name);
		p->row = st->part_rows + 1;
		snprintf(p->label, sizeof p->label, "%s", r->label);
		p->part[0] = r->est.W;
		p->part[1] = r->est.G;
		p->part[2] = r->est.O;
		p->part[3] = r->est.A;
		p->part[4] = r->est.B;
	}
	st->part_rows++;
	xm->rows++;
	return check(st, e);
}

/* Charts sheet: per model, a small table (one row per method: the chosen
 * configuration, where it is, and its W/G/O/A/B in GiB, as on the model
 * sheet) beside a stacked column chart of it, so the labels stay short. */
static void add_chart(xl_state *st, const xl_model *xm)
{
	static const struct {
		const char *name;
		lxw_color_t colour;
	} parts[GS_PALETTE_PARTS] = {
		{"W weights", GS_PALETTE_W}, {"G gradients", GS_PALETTE_G},
		{"O optimizer states", GS_PALETTE_O}, {"A activations", GS_PALETTE_A},
		{"B other", GS_PALETTE_B},
	};
	lxw_row_t top = (lxw_row_t)(2 + st->n_charts * XL_CHART_ROWS_APART), r = top + 1;
	lxw_chart *chart;
	lxw_chart_options opt;
	char title[640], clean_title[1024];
	int n = 0;

	for (int m = 0; m < GS_METHOD_MAX; m++)
		n += xm->pick[m].set;
	if (n == 0 || st->n_charts >= XL_CHARTS_MAX)
		return;
	worksheet_set_row(st->charts, top, 45, NULL);
	put_lit(st, st->charts, top, CH_T0, "Method", st->f_head);
	put_lit(st, st->charts, top, CH_T0 + 1, "Configuration (row)", st->f_head);
	for (int i = 0; i < GS_PALETTE_PARTS; i++) {
		snprintf(title, sizeof title, "%s GiB", parts[i].name);
		put_lit(st, st->charts, top, (lxw_col_t)(CH_T0 + 2 + i), title, st->f_head);
	}
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		const xl_pick *p = &xm->pick[m];

		if (!p->set)
			continue;
		put_lit(st, st->charts, r, CH_T0, gs_method_name((gs_method)m), NULL);
		snprintf(title, sizeof title, "%s (sheet %s, row %u)", p->label, p->sheet,
		         (unsigned)p->row + 1);
		put_str(st, st->charts, r, CH_T0 + 1, title, NULL);
		for (int i = 0; i < GS_PALETTE_PARTS; i++)
			put_gib(st, st->charts, r, (lxw_col_t)(CH_T0 + 2 + i), p->part[i]);
		r++;
	}
	chart = workbook_add_chart(st->wb, LXW_CHART_COLUMN_STACKED);
	if (chart == NULL) {
		note_err(st, LXW_ERROR_MEMORY_MALLOC_FAILED);
		return;
	}
	for (int i = 0; i < GS_PALETTE_PARTS; i++) {
		lxw_chart_series *s = chart_add_series(chart, NULL, NULL);
		lxw_chart_fill fill;

		if (s == NULL) {
			note_err(st, LXW_ERROR_MEMORY_MALLOC_FAILED);
			return;
		}
		chart_series_set_categories(s, "Charts", top + 1, CH_T0, r - 1, CH_T0);
		chart_series_set_values(s, "Charts", top + 1, (lxw_col_t)(CH_T0 + 2 + i), r - 1,
		                        (lxw_col_t)(CH_T0 + 2 + i));
		chart_series_set_name(s, parts[i].name);
		memset(&fill, 0, sizeof fill);
		fill.color = parts[i].colour;
		chart_series_set_fill(s, &fill);
	}
	/* The title starts with text we chose, so an id beginning with "=" can
	 * never read as a formula reference. */
	snprintf(title, sizeof title, "GiB per GPU at the peak: %.200s, the first configuration of "
	         "each method (table at the right)", xm->id);
	xl_clean(title, clean_title, sizeof clean_title, 255, false);
	chart_title_set_name(chart, clean_title);
	chart_axis_set_name(chart->y_axis, "GiB per GPU");
	chart_axis_set_name(chart->x_axis, "method");
	chart_legend_set_position(chart, LXW_CHART_LEGEND_RIGHT);
	memset(&opt, 0, sizeof opt);
	opt.x_scale = 1.6;
	opt.y_scale = 1.5;
	note_err(st, worksheet_insert_chart_opt(st->charts, top, 0, chart, &opt));
	st->n_charts++;
}

/* Summary entry b takes its answer from the model's evaluation; the
 * headroom as the workbook computes it from the stored cells. */
static void best_take(xl_state *st, xl_best *b, const gs_model_eval *ev)
{
	const gs_answer *a = NULL;

	for (size_t i = 0; i < ev->n_answers && a == NULL; i++)
		if (ev->answers[i].method == b->method && ev->answers[i].seq == b->seq)
			a = &ev->answers[i];
	if (a == NULL)
		return;
	b->n_configs = a->n_configs;
	b->min_device = a->min_device;
	b->found = a->found;
	if (!a->found)
		return;
	b->tight = a->v == GS_TIGHT;
	b->gpu = a->gpu;
	b->count = a->count;
	b->device = a->device;
	b->headroom = st->usable_gib[a->gpu] > 0
	                      ? 1 - as_stored((double)a->device / GS_GIB) / st->usable_gib[a->gpu]
	                      : 0;
	if (gs_cell_fits(&a->cell)) { /* as its row's cells have them */
		char t[64];
		b->step_s = strtod(gs_time_field_text(st->tf_step, &a->cell, NULL, t, sizeof t), NULL);
		b->tokens = strtod(gs_time_field_text(st->tf_tokens, &a->cell, NULL, t, sizeof t), NULL);
	} else {
		b->step_s = b->tokens = 0;
	}
	snprintf(b->label, sizeof b->label, "%s", a->label);
	snprintf(b->row_id, sizeof b->row_id, "%s", a->row_id);
}

static gs_err xl_model_end(gs_writer *w, const gs_model *model, gs_error *e)
{
	xl_state *st = w->state;

	if (!st->in_model)
		return gs_fail(e, GS_EINTERNAL, "%s: model end outside a model", st->path);
	if (model->eval == NULL)
		return gs_fail(e, GS_EINTERNAL, "%s: model %s not evaluated (gs_eval_model_begin)", st->path,
		               model->id ? model->id : "");
	sheet_finish(st, st->ws, st->part_rows);
	add_chart(st, &st->models[st->n_models - 1]);
	for (size_t i = st->best0; i < st->n_best; i++)
		best_take(st, &st->best[i], model->eval);
	plan_rows(st, &st->models[st->n_models - 1], model->eval->plan);
	st->in_model = false;
	return check(st, e);
}

/* ---- end: Summary, close, rename --------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_best(const void *a, const void *b)
{
	const xl_best *x = a, *y = b;

	if (x->model_no != y->model_no)
		return x->model_no < y->model_no ? -1 : 1;
	if (x->method != y->method)
		return x->method < y->method ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void best_text(const xl_state *st, const xl_best *b, char *buf, size_t n)
{
	const gs_gpu *g;

	if (!b->found) {
		snprintf(buf, n, "none fits");
		return;
	}
	g = &st->m->gpus[b->gpu];
	snprintf(buf, n, "%" PRId64 " x %s (%s)%s", b->count, g->klass, g->name,
	         b->tight ? ", tight" : "");
}


/* The Answers sheet's columns (the Summary's answers as a table). */
enum { SD_MODEL, SD_METHOD, SD_CTX, SD_CLASS, SD_GPU, SD_COUNT, SD_DEVICE, SD_USABLE, SD_HEAD,
       SD_VERDICT, SD_CONFIG, SD_ROWID, SD_NCONF, SD_MINDEV, SD_KEY, SD_GPUNO, SD_ROW, SD_STEP,
       SD_HOURS, SD_COST, SD_MAX };

/* Summary entry b's cached key: its answer (best_take's), encoded (key_of). */
static uint64_t best_key(const xl_state *st, const xl_best *b)
{
	return b->found ? key_of(st, b->gpu, b->count, b->tight) : KEY_NONE;
}

/* Column c of part k (1-based) of model xm, its data rows: 'Sheet'!$C$2:$C$N. */
static void part_range(char *buf, size_t n, const xl_model *xm, int k, lxw_col_t c)
{
	char ref[2 * LXW_MAX_SHEETNAME_LENGTH + 4], col[16];

	lxw_col_to_name(col, c, 1);
	sheet_ref(ref, sizeof ref, xm->part_name[k - 1]);
	snprintf(buf, n, "%s!%s$2:%s$%u", ref, col, col, (unsigned)xm->part_rows[k - 1] + 1);
}

/* The cell of column c on the row at $Q{R} of a model's part k: INDEX over
 * the part's rows, or the one cell of a part with one row (Gnumeric reads
 * INDEX and MATCH over a single cell as errors). */
static void part_cell(char *buf, size_t n, const xl_model *xm, int k, lxw_col_t c, unsigned R)
{
	char range[400], ref[2 * LXW_MAX_SHEETNAME_LENGTH + 4], col[16];

	if (xm->part_rows[k - 1] == 1) {
		lxw_col_to_name(col, c, 1);
		sheet_ref(ref, sizeof ref, xm->part_name[k - 1]);
		snprintf(buf, n, "%s!%s$2", ref, col);
		return;
	}
	part_range(range, sizeof range, xm, k, c);
	snprintf(buf, n, "INDEX(%s,$Q%u)", range, R);
}

/*
 * Summary entry b's key formula: the least key of the model's rows of that
 * method and context, e.g.
 *   =_xlfn.MINIFS('Llama-3.1-8B'!$BA$2:$BA$900,'Llama-3.1-8B'!$AD$2:$AD$900,"lora",
 *                 'Llama-3.1-8B'!$AK$2:$AK$900,4096)
 * and for a model on several sheets the least over those holding such rows
 * (COUNTIFS: Gnumeric's MINIFS of no cell is #DIV/0!). False when it would
 * pass Excel's 8,192 characters.
 */
static bool summary_key_formula(const xl_state *st, const xl_best *b, char *buf, size_t n)
{
	const xl_model *xm = &st->models[b->model_no];
	const char *meth = gs_method_name(b->method);
	bool one = b->part_first == b->part_last;
	char kr[448], mr[448], sr[448];
	size_t k;
	int w;

	if (b->part_first < 1 || b->part_last > xm->n_parts || b->part_last - b->part_first >= KEY_PARTS_MAX)
		return false;
	w = snprintf(buf, n, one ? "=" : "=MIN(");
	k = (size_t)w;
	for (int p = b->part_first; p <= b->part_last; p++) {
		part_range(kr, sizeof kr, xm, p, st->key_col);
		part_range(mr, sizeof mr, xm, p, st->method_col);
		part_range(sr, sizeof sr, xm, p, st->seq_col);
		if (one)
			w = snprintf(buf + k, n - k, "_xlfn.MINIFS(%s,%s,\"%s\",%s,%" PRId64 ")", kr, mr, meth,
			             sr, b->seq);
		else
			w = snprintf(buf + k, n - k, "IF(COUNTIFS(%s,\"%s\",%s,%" PRId64 "),_xlfn.MINIFS(%s,%s,"
			             "\"%s\",%s,%" PRId64 ")," KEY_NONE_F "),", mr, meth, sr, b->seq, kr, mr, meth,
			             sr, b->seq);
		if (w < 0 || k + (size_t)w >= n)
			return false;
		k += (size_t)w;
	}
	if (!one) {
		w = snprintf(buf + k, n - k, KEY_NONE_F ")");
		if (w < 0 || k + (size_t)w >= n)
			return false;
		k += (size_t)w;
	}
	return k < 8000;
}

/* A formula with a cached string (cleaned, as put_str writes it). */
static void put_fstr(xl_state *st, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *f,
                     const char *value, lxw_format *fmt)
{
	char buf[2048];

	xl_clean(value, buf, sizeof buf, XL_CELL_CHARS, true);
	note_err(st, worksheet_write_formula_str(ws, r, c, f, fmt, buf));
}

/*
 * One row of the Answers sheet, live: the key (O), the GPU's row on the
 * GPUs sheet (P), the chosen row's position on the model sheet (Q, an
 * array formula: the first row of that method and context whose key is
 * the least), and from them the class, GPU, count, usable GiB, headroom,
 * verdict and (on a model on one sheet) the row's device GiB, label and
 * id. A model on several sheets: those three as written.
 */
static void summary_detail_live(xl_state *st, lxw_worksheet *ws, lxw_row_t r, const xl_best *b)
{
	const gs_report_meta *m = st->m;
	const xl_model *xm = &st->models[b->model_no];
	const gs_gpu *g = b->found ? &m->gpus[b->gpu] : NULL;
	bool one = b->part_first == b->part_last;
	uint64_t key = best_key(st, b);
	unsigned R = (unsigned)r + 1, gl = GPU_ROW0 + (unsigned)m->n_gpus;
	char f[9000], kr[448], mr[448], sr[448], none[32];

	snprintf(none, sizeof none, "$O%u>=" KEY_NONE_F, R);
	if (summary_key_formula(st, b, f, sizeof f))
		note_err(st, worksheet_write_formula_num(ws, r, SD_KEY, f, st->f_key, (double)key));
	snprintf(f, sizeof f, "=MOD($O%u,1000)+1", R);
	note_err(st, worksheet_write_formula_num(ws, r, SD_GPUNO, f, NULL, (double)(key % 1000 + 1)));
	if (one && xm->part_rows[b->part_first - 1] == 1) {
		/* one row: its position (MATCH over a single cell reads as #VALUE!
		 * in Gnumeric) */
		put_num(st, ws, r, SD_ROW, 1, NULL);
	} else if (one) {
		part_range(kr, sizeof kr, xm, b->part_first, st->key_col);
		part_range(mr, sizeof mr, xm, b->part_first, st->method_col);
		part_range(sr, sizeof sr, xm, b->part_first, st->seq_col);
		snprintf(f, sizeof f, "{=MATCH(1,(%s=\"%s\")*(%s=%" PRId64 ")*(%s=$O%u),0)}", mr,
		         gs_method_name(b->method), sr, b->seq, kr, R);
		note_err(st, worksheet_write_array_formula_num(ws, r, SD_ROW, r, SD_ROW, f, NULL,
		                                               (double)(b->found ? b->best_pos : b->first_pos)));
	}

	snprintf(f, sizeof f, "=IF(%s,\"none fits\",INDEX(GPUs!$C$%u:$C$%u,$P%u))", none, GPU_ROW0 + 1, gl, R);
	put_fstr(st, ws, r, SD_CLASS, f, g ? g->klass : "none fits", NULL);
	snprintf(f, sizeof f, "=IF(%s,\"\",INDEX(GPUs!$B$%u:$B$%u,$P%u))", none, GPU_ROW0 + 1, gl, R);
	put_fstr(st, ws, r, SD_GPU, f, g ? g->name : "", NULL);
	if (gs_plan_opts_rank(m->plan) == GS_RANK_LEAST_MEMORY)
		snprintf(f, sizeof f, "=IF(%s,\"\",MOD(INT(MOD($O%u," KEY_TIGHT_F ")/1000),%d))", none, R,
		         KEY_COUNT_MAX);
	else
		snprintf(f, sizeof f, "=IF(%s,\"\",INT(MOD($O%u," KEY_TIGHT_F ")/1E+11))", none, R);
	if (g)
		note_err(st, worksheet_write_formula_num(ws, r, SD_COUNT, f, NULL, (double)b->count));
	else
		put_fstr(st, ws, r, SD_COUNT, f, "", NULL);
	if (one) {
		part_cell(kr, sizeof kr, xm, b->part_first, MC_DEVICE, R);
		snprintf(f, sizeof f, "=IF(%s,\"\",%s)", none, kr);
		if (g)
			note_err(st, worksheet_write_formula_num(ws, r, SD_DEVICE, f, st->f_gib,
			                                         (double)b->device / GS_GIB));
		else
			put_fstr(st, ws, r, SD_DEVICE, f, "", st->f_gib);
	} else if (g) {
		put_gib(st, ws, r, SD_DEVICE, b->device); /* as written */
	}
	snprintf(f, sizeof f, "=IF(%s,\"\",INDEX(GPUs!$E$%u:$E$%u,$P%u))", none, GPU_ROW0 + 1, gl, R);
	if (g)
		note_err(st, worksheet_write_formula_num(ws, r, SD_USABLE, f, st->f_gib, st->usable_gib[b->gpu]));
	else
		put_fstr(st, ws, r, SD_USABLE, f, "", st->f_gib);
	snprintf(f, sizeof f, "=IF(%s,\"\",1-$G%u/$H%u)", none, R, R);
	if (g)
		note_err(st, worksheet_write_formula_num(ws, r, SD_HEAD, f, st->f_pct, b->headroom));
	else
		put_fstr(st, ws, r, SD_HEAD, f, "", st->f_pct);
	snprintf(f, sizeof f, "=IF(%s,\"\",IF($O%u>=" KEY_TIGHT_F ",\"%s\",\"%s\"))", none, R,
	         gs_verdict_name(GS_TIGHT), gs_verdict_name(GS_FITS));
	put_fstr(st, ws, r, SD_VERDICT, f, g ? gs_verdict_name(b->tight ? GS_TIGHT : GS_FITS) : "", NULL);
	if (one) {
		part_cell(kr, sizeof kr, xm, b->part_first, MC_CONFIG, R);
		snprintf(f, sizeof f, "=IF(%s,\"\",%s)", none, kr);
		put_fstr(st, ws, r, SD_CONFIG, f, g ? b->label : "", NULL);
		part_cell(kr, sizeof kr, xm, b->part_first, MC_ID, R);
		snprintf(f, sizeof f, "=IF(%s,\"\",%s)", none, kr);
		put_fstr(st, ws, r, SD_ROWID, f, g ? b->row_id : "", NULL);
	} else if (g) {
		put_str(st, ws, r, SD_CONFIG, b->label, NULL); /* as written */
		put_str(st, ws, r, SD_ROWID, b->row_id, NULL);
	}
}

/*
 * The time and cost of an Answers row: the chosen row's step on its
 * class (the model sheet's step column of the class at $P, on the row at
 * $Q), the hours of the spec's token budget (training), and their cost,
 * hours x GPUs x the class's price on the GPUs sheet; blank where there
 * is no answer, no budget or no price. Live where the row's other cells
 * are (one sheet for the model), else as written.
 */
static void summary_time(xl_state *st, lxw_worksheet *ws, lxw_row_t r, const xl_best *b)
{
	const gs_report_meta *m = st->m;
	const xl_model *xm = &st->models[b->model_no];
	double budget = m->time ? m->time->tokens_budget : 0;
	bool train = b->method != GS_INFER && budget > 0;
	bool live = st->live && b->part_first == b->part_last && m->n_gpus > 0;
	bool has = b->found && b->step_s > 0;
	double hours = has && train && b->tokens > 0 ? budget * b->step_s / b->tokens / 3600 : 0;
	double price = b->found ? m->gpus[b->gpu].price_usd_hour : 0;
	unsigned R = (unsigned)r + 1, gl = GPU_ROW0 + (unsigned)m->n_gpus;
	char f[1200], rng[400], tok[448], step[16], hrs[16], pr[64], c0[16], c1[16], ref[2 * LXW_MAX_SHEETNAME_LENGTH + 4];

	lxw_col_to_name(step, SD_STEP, 0);
	lxw_col_to_name(hrs, SD_HOURS, 0);
	snprintf(pr, sizeof pr, "INDEX(GPUs!$%c$%u:$%c$%u,$P%u)", 'A' + GC_PRICE, GPU_ROW0 + 1, 'A' + GC_PRICE, gl, R);
	if (!live) {
		if (has)
			put_num(st, ws, r, SD_STEP, b->step_s, NULL);
		if (hours > 0)
			put_num(st, ws, r, SD_HOURS, hours, st->f_dec);
		if (hours > 0 && price > 0)
			put_num(st, ws, r, SD_COST, hours * (double)b->count * price, st->f_usd);
		return;
	}
	/* the step: the class's column on the row's sheet */
	lxw_col_to_name(c0, time_col(st, st->tf_step, 0), 1);
	lxw_col_to_name(c1, time_col(st, st->tf_step, m->n_gpus - 1), 1);
	sheet_ref(ref, sizeof ref, xm->part_name[b->part_first - 1]);
	snprintf(rng, sizeof rng, "%s!%s$2:%s$%u", ref, c0, c1, (unsigned)xm->part_rows[b->part_first - 1] + 1);
	if (xm->part_rows[b->part_first - 1] == 1 && m->n_gpus == 1)
		snprintf(f, sizeof f, "=IF($O%u>=" KEY_NONE_F ",\"\",%s!%s$2)", R, ref, c0);
	else
		snprintf(f, sizeof f, "=IF($O%u>=" KEY_NONE_F ",\"\",INDEX(%s,$Q%u,$P%u))", R, rng, R, R);
	if (has)
		note_err(st, worksheet_write_formula_num(ws, r, SD_STEP, f, NULL, b->step_s));
	else
		put_fstr(st, ws, r, SD_STEP, f, "", NULL);
	if (!train)
		return;
	part_cell(tok, sizeof tok, xm, b->part_first, time_col(st, st->tf_tokens, 0), R);
	snprintf(f, sizeof f, "=IF($%s%u=\"\",\"\",%.17g*$%s%u/%s/3600)", step, R, budget, step, R, tok);
	if (hours > 0)
		note_err(st, worksheet_write_formula_num(ws, r, SD_HOURS, f, st->f_dec, hours));
	else
		put_fstr(st, ws, r, SD_HOURS, f, "", st->f_dec);
	snprintf(f, sizeof f, "=IF($%s%u=\"\",\"\",IF(%s=\"\",\"\",$%s%u*$F%u*%s))", hrs, R, pr, hrs, R, R, pr);
	if (hours > 0 && price > 0)
		note_err(st, worksheet_write_formula_num(ws, r, SD_COST, f, st->f_usd, hours * (double)b->count * price));
	else
		put_fstr(st, ws, r, SD_COST, f, "", st->f_usd);
}

/* What the Summary's stages share: the contexts (its pivot's columns), how
 * many model and method groups (its pivot's rows), whether a model is on
 * several sheets, and where the pivot (Summary) and the Answers rows start. */
typedef struct xl_summary {
	int64_t *ctx;
	size_t n_ctx, n_groups;
	bool split;
	lxw_row_t pivot_head, detail0;
} xl_summary;

/* The Summary's entries sorted (model, method, context), its contexts, and
 * whether it can be live: every entry's key formula within Excel's limits. */
static void summary_collect(xl_state *st, xl_summary *sm)
{
	char *scratch = gs_xmalloc(9000);

	sm->ctx = gs_xmalloc((st->n_best ? st->n_best : 1) * sizeof *sm->ctx);
	for (size_t i = 0; i < st->n_best; i++)
		sm->ctx[sm->n_ctx++] = st->best[i].seq;
	if (sm->n_ctx > 1)
		qsort(sm->ctx, sm->n_ctx, sizeof *sm->ctx, cmp_i64);
	if (sm->n_ctx > 0) {
		size_t u = 1;
		for (size_t i = 1; i < sm->n_ctx; i++)
			if (sm->ctx[i] != sm->ctx[u - 1])
				sm->ctx[u++] = sm->ctx[i];
		sm->n_ctx = u;
	}
	/* Excel's column limit: 16,384 (two leading columns). */
	if (sm->n_ctx > 16000)
		sm->n_ctx = 16000;
	/* Entries in (model, method, context) order: one pass each. */
	if (st->n_best > 1)
		qsort(st->best, st->n_best, sizeof *st->best, cmp_best);
	for (size_t i = 0; i < st->n_best; i++) {
		const xl_best *b = &st->best[i];
		if (i == 0 || b->model_no != b[-1].model_no || b->method != b[-1].method)
			sm->n_groups++;
		/* the live Summary: every entry's formula within Excel's limits */
		if (st->live && !summary_key_formula(st, b, scratch, 9000))
			st->live = false;
		sm->split |= b->part_first != b->part_last;
	}
	free(scratch);
}

/* How to read the workbook, on the Summary from row r (below the pivot:
 * the frozen pane holds the title and the pivot's header only); returns
 * the next row. */
static lxw_row_t summary_prose(xl_state *st, const xl_summary *sm, lxw_row_t r)
{
	static const char *const how[] = {
		"How to read this workbook",
		NULL, /* the Summary's line: the spec's rule, below */
		"Plan: for each model, method, GPU class of the spec's plan and context, the fewest GPUs "
		"that run the sweep's first configuration of the method (gpusizer plan's search), with a live "
		"verdict of that answer over the GPUs sheet.",
		"Model sheets: one row per configuration with every setting and the estimate. The verdict "
		"columns (one per GPU class) are live formulas over the GPUs sheet: edit a GPU's usable "
		"memory, bf16/fp8 support or the tight headroom there and every verdict updates.",
		"Answers: the Summary's answers as a table to filter and sort, one row per model, method and "
		"context: the GPU class, GPU and count, device and usable GiB per GPU, headroom, verdict, the "
		"configuration and its row id on the model sheet, how many configurations were sized, then "
		"time and cost. Its header row and the Model and Method columns stay in view.",
		"Time and cost (the Answers sheet's last columns): the time model's step on the answer's class "
		"(a training optimizer step, or a decode step), the hours of the spec's token budget, and "
		"their cost at the GPUs sheet's price (blank there: none; edit it and the cost follows). "
		"Model sheets: a step column per class after the Summary key.",
		"Colours: green fits, yellow tight, red does not fit, grey not runnable (needs bf16, fp8 or "
		"an architecture the GPU lacks). Charts sheet: W/G/O/A/B per configuration, stacked.",
		"Memory is per GPU in GiB (2^30 bytes); multi-GPU rows are already divided by their "
		"sharding. Assumptions sheet: what the estimates assume, the legend and units.",
	};
	const gs_report_meta *m = st->m;
	lxw_worksheet *ws = st->summary;
	lxw_col_t last = (lxw_col_t)(1 + sm->n_ctx);
	double width = XL_SUM_MODEL + 9 + XL_SUM_CTX * (double)sm->n_ctx;
	char buf[768];

	snprintf(buf, sizeof buf, "gpusizer %s, spec %s", m->tool_version ? m->tool_version : "",
	         m->spec_path ? m->spec_path : "(none)");
	put_str(st, ws, r++, 0, buf, NULL);
	for (size_t i = 0; i < sizeof how / sizeof how[0]; i++) {
		if (how[i] != NULL) {
			if (i == 0)
				put_lit(st, ws, r++, 0, how[i], st->f_head);
			else
				put_para(st, ws, r++, last, width, how[i]);
			continue;
		}
		snprintf(buf, sizeof buf, "Summary (this sheet, above): for each model and method, the smallest GPU "
		         "class and count on which some swept configuration of that method fits, at each "
		         "context length, and that configuration. Smallest, by the spec's rule \"%s\": %s; a class where it only "
		         "fits tight (under the tight headroom) is named, marked \"tight\", when nothing fits "
		         "comfortably. %s",
		         gs_plan_rank_name(gs_plan_opts_rank(st->m->plan)), gs_plan_rank_text(gs_plan_opts_rank(st->m->plan)),
		         !st->live ? "Computed from the GPUs sheet as written: it does not recalculate." :
		         sm->split ? "Live: formulas over the model sheets' Summary key column and the GPUs "
		         "sheet, so an edit there updates it and the Answers sheet (usable memory compared in "
		         "whole MiB). For a model on several sheets, the Answers rows' device GiB, "
		         "configuration and row id are as written." :
		         "Live: formulas over the model sheets' Summary key column and the GPUs sheet, so "
		         "an edit there updates it and the Answers sheet (usable memory compared in "
		         "whole MiB).");
		put_para(st, ws, r++, last, width, buf);
	}
	return r;
}

/* A conditional format of cells r0..r1 x c0..c1: the first rule of type
 * and criteria on text (a string value) that holds gives its format. */
static void cf_text(xl_state *st, lxw_worksheet *ws, lxw_row_t r0, lxw_col_t c0, lxw_row_t r1, lxw_col_t c1,
                    uint8_t type, uint8_t criteria, char *text, lxw_format *f, bool stop)
{
	lxw_conditional_format cf;

	memset(&cf, 0, sizeof cf);
	cf.type = type;
	cf.criteria = criteria;
	cf.value_string = text;
	cf.format = f;
	cf.stop_if_true = stop ? LXW_TRUE : LXW_FALSE;
	note_err(st, worksheet_conditional_format_range(ws, r0, c0, r1, c1, &cf));
}

/* The lines of text a pivot row (the entries from i of model mi and
 * method meth) needs: its tallest cell's, the answer and the configuration
 * each wrapped at XL_SUM_CTX characters (a word wraps whole: a tenth
 * more), and the model's id wrapped at XL_SUM_MODEL. */
static double pivot_lines(const xl_state *st, size_t i, size_t mi, gs_method meth)
{
	double most = 1 + (double)(int)((double)strlen(st->models[mi].id) * 1.1 / XL_SUM_MODEL);

	for (; i < st->n_best && st->best[i].model_no == mi && st->best[i].method == meth; i++) {
		const xl_best *b = &st->best[i];
		const char *gpu = b->found ? st->m->gpus[b->gpu].name : "none fits";
		double n = 2 + (double)(int)((double)(strlen(gpu) + (b->tight ? 11 : 4)) * 1.1 / XL_SUM_CTX) +
		           (double)(int)((double)strlen(b->found ? b->label : "") * 1.1 / XL_SUM_CTX);
		if (n > most)
			most = n;
	}
	return most;
}

/* The pivot at sm->pivot_head: model x method rows, one column per
 * context, each cell the answer (live: a formula over its row on the
 * Answers sheet); returns the row after it. */
static lxw_row_t summary_pivot(xl_state *st, const xl_summary *sm)
{
	lxw_worksheet *ws = st->summary;
	lxw_row_t r = sm->pivot_head;
	lxw_col_t last = (lxw_col_t)(1 + sm->n_ctx);
	char buf[768], ans[16];

	sheet_ref(ans, sizeof ans, "Answers");
	worksheet_set_column(ws, 0, 0, XL_SUM_MODEL, NULL);
	worksheet_set_column(ws, 1, 1, 9, NULL);
	if (sm->n_ctx > 0)
		worksheet_set_column(ws, 2, last, XL_SUM_CTX, NULL);
	worksheet_set_column(ws, (lxw_col_t)(2 + sm->n_ctx), (lxw_col_t)(2 + sm->n_ctx), 60, NULL);
	put_lit(st, ws, r, 0, "Model", st->f_head);
	put_lit(st, ws, r, 1, "Method", st->f_head);
	for (size_t c = 0; c < sm->n_ctx; c++) {
		snprintf(buf, sizeof buf, "%" PRId64 " tokens", sm->ctx[c]);
		put_lit(st, ws, r, (lxw_col_t)(2 + c), buf, st->f_head);
	}
	put_lit(st, ws, r, (lxw_col_t)(2 + sm->n_ctx), "Parameter count source", st->f_head);
	r++;
	for (size_t i = 0; i < st->n_best;) {
		size_t mi = st->best[i].model_no;
		gs_method meth = st->best[i].method;

		/* as tall as its longest answer and configuration, wrapped */
		worksheet_set_row(ws, r, 15 * pivot_lines(st, i, mi, meth), NULL);
		/* the labels at the top of the row, beside the first line of the
		 * answers (bottom-aligned they sat beside the next row's) */
		put_sheet_link(st, ws, r, 0, st->models[mi].id, st->models[mi].sheet, st->f_link_top);
		put_lit(st, ws, r, 1, gs_method_name(meth), st->f_top);
		for (; i < st->n_best && st->best[i].model_no == mi && st->best[i].method == meth; i++) {
			const xl_best *b = &st->best[i];
			const int64_t *at = bsearch(&b->seq, sm->ctx, sm->n_ctx, sizeof *sm->ctx, cmp_i64);
			lxw_col_t c;

			if (at == NULL)
				continue;
			c = (lxw_col_t)(2 + (at - sm->ctx));
			/* the answer (the count and the GPU), then (on paper too) the
			 * configuration that gives it */
			if (b->found)
				snprintf(buf, sizeof buf, "%" PRId64 " x %s%s\n%s", b->count, st->m->gpus[b->gpu].name,
				         b->tight ? ", tight" : "", b->label);
			else
				best_text(st, b, buf, sizeof buf);
			if (st->live) {
				char f[512];
				unsigned d = (unsigned)(sm->detail0 + i) + 1;
				snprintf(f, sizeof f, "=IF(%s!$O%u>=" KEY_NONE_F ",\"none fits\",%s!$F%u&\" x \"&"
				         "%s!$E%u&IF(%s!$O%u>=" KEY_TIGHT_F ",\", tight\",\"\")&CHAR(10)&%s!$K%u)",
				         ans, d, ans, d, ans, d, ans, d, ans, d);
				put_fstr(st, ws, r, c, f, buf, st->f_wrap);
			} else {
				put_str(st, ws, r, c, buf,
				        st->f_verdict[!b->found ? GS_NO_FIT : b->tight ? GS_TIGHT : GS_FITS]);
			}
		}
		put_str(st, ws, r, (lxw_col_t)(2 + sm->n_ctx), st->models[mi].source, st->f_top);
		r++;
	}
	/* Live answers are coloured by their text: "none fits" red, ", tight"
	 * yellow, any other answer green (in this order: the first that holds). */
	if (st->live && r > sm->pivot_head + 1 && sm->n_ctx > 0) {
		char none_text[] = "\"none fits\"", tight_text[] = ", tight", any_text[] = " x ";
		lxw_row_t r0 = sm->pivot_head + 1;

		cf_text(st, ws, r0, 2, r - 1, last, LXW_CONDITIONAL_TYPE_CELL, LXW_CONDITIONAL_CRITERIA_EQUAL_TO,
		        none_text, st->f_verdict[GS_NO_FIT], true);
		cf_text(st, ws, r0, 2, r - 1, last, LXW_CONDITIONAL_TYPE_TEXT, LXW_CONDITIONAL_CRITERIA_TEXT_ENDS_WITH,
		        tight_text, st->f_verdict[GS_TIGHT], true);
		cf_text(st, ws, r0, 2, r - 1, last, LXW_CONDITIONAL_TYPE_TEXT,
		        LXW_CONDITIONAL_CRITERIA_TEXT_CONTAINING, any_text, st->f_verdict[GS_FITS], false);
	}
	return r;
}

/* The Answers sheet's column widths, characters: the numbers' fixed; the
 * text columns' (below 0: from -min to max) as wide as their longest
 * value, capped. */
static const double answer_widths[SD_MAX][2] = {
	[SD_MODEL] = {12, 34}, [SD_METHOD] = {9, 0}, [SD_CTX] = {9, 0}, [SD_CLASS] = {12, 0},
	[SD_GPU] = {12, 30}, [SD_COUNT] = {6, 0}, [SD_DEVICE] = {9, 0}, [SD_USABLE] = {9, 0},
	[SD_HEAD] = {9, 0}, [SD_VERDICT] = {XL_VERDICT_CHARS, 0}, [SD_CONFIG] = {14, 48},
	[SD_ROWID] = {10, 34}, [SD_NCONF] = {12, 0}, [SD_MINDEV] = {10, 0}, [SD_KEY] = {18, 0},
	[SD_GPUNO] = {12, 0}, [SD_ROW] = {12, 0}, [SD_STEP] = {10, 0}, [SD_HOURS] = {11, 0},
	[SD_COST] = {11, 0},
};

/* Column c's width on the Answers sheet (answer_widths). */
static double answer_width(const xl_state *st, size_t c)
{
	double w = answer_widths[c][0];

	for (size_t i = 0; answer_widths[c][1] > 0 && i < st->n_best; i++) {
		const xl_best *b = &st->best[i];
		const char *t = c == SD_MODEL ? st->models[b->model_no].id :
		                c == SD_GPU ? (b->found ? st->m->gpus[b->gpu].name : "") :
		                c == SD_CONFIG ? (b->found ? b->label : "") : (b->found ? b->row_id : "");
		double n = (double)strlen(t) + 1;

		if (n > w)
			w = n;
	}
	return answer_widths[c][1] > 0 && w > answer_widths[c][1] ? answer_widths[c][1] : w;
}

/* The Answers sheet's header at row head, its column widths, frozen
 * header and first columns (Model, Method) and print set-up; the live
 * formulas' helper columns only when live. */
static void summary_detail_head(xl_state *st, lxw_row_t head)
{
	static const char *const detail_heads[SD_MAX] = {
		"Model", "Method", "Context (tokens)", "GPU class", "GPU", "GPUs", "Device GiB per GPU",
		"Usable GiB per GPU", "Headroom", "Verdict", "Configuration", "Row id",
		"Configurations sized", "Smallest device GiB per GPU", "Summary key (least of the rows')",
		"GPU (row on the GPUs sheet, from 1)", "Row (data row on the model sheet)",
		"Step s (time model)", NULL /* hours: the budget's, below */, "Cost USD (hours x GPUs x price)",
	};
	double budget = st->m->time ? st->m->time->tokens_budget : 0;
	char hours_head[96], cnt[32];

	double width_pt = 0, w[SD_MAX], lines = 1;

	snprintf(hours_head, sizeof hours_head, "Hours for %s tokens (training)",
	         budget > 0 ? gs_time_fmt_count(cnt, sizeof cnt, budget) : "a budget of");
	/* the header row as tall as its longest heading, wrapped (a word
	 * wraps whole: a tenth more) */
	for (size_t c = 0; c < SD_MAX; c++) {
		double n;

		w[c] = answer_width(st, c);
		width_pt += col_pt(w[c]);
		worksheet_set_column(st->answers, (lxw_col_t)c, (lxw_col_t)c, w[c], NULL);
		n = 1 + (double)(int)((double)strlen(c == SD_HOURS ? hours_head : detail_heads[c]) * 1.1 / w[c]);
		if (n > lines)
			lines = n;
	}
	worksheet_set_row(st->answers, head, 15 * lines, NULL);
	for (size_t c = 0; c < SD_MAX; c++) {
		if (!st->live && c >= SD_KEY && c <= SD_ROW)
			continue; /* the live formulas' helpers */
		put_lit(st, st->answers, head, (lxw_col_t)c, c == SD_HOURS ? hours_head : detail_heads[c], st->f_head);
	}
	/* its own table's header and the model and method stay in view; on
	 * paper, the header on every page */
	worksheet_freeze_panes(st->answers, head + 1, SD_CTX);
	print_setup(st, st->answers, (int)head, (int)head, width_pt);
}

/* The Answers sheet: one row per model, method and context, from
 * sm->detail0 (its header on the row above). */
static void summary_details(xl_state *st, const xl_summary *sm)
{
	const gs_report_meta *m = st->m;
	lxw_worksheet *ws = st->answers;
	lxw_row_t head = sm->detail0 - 1, r = sm->detail0;

	summary_detail_head(st, head);
	for (size_t i = 0; i < st->n_best; i++) {
		const xl_best *b = &st->best[i];

		put_str(st, ws, r, SD_MODEL, st->models[b->model_no].id, NULL);
		put_lit(st, ws, r, SD_METHOD, gs_method_name(b->method), NULL);
		put_num(st, ws, r, SD_CTX, (double)b->seq, NULL);
		if (st->live) {
			summary_detail_live(st, ws, r, b);
		} else if (b->found) {
			const gs_gpu *g = &m->gpus[b->gpu];
			put_str(st, ws, r, SD_CLASS, g->klass, NULL);
			put_str(st, ws, r, SD_GPU, g->name, NULL);
			put_num(st, ws, r, SD_COUNT, (double)b->count, NULL);
			put_gib(st, ws, r, SD_DEVICE, b->device);
			put_gib(st, ws, r, SD_USABLE, g->usable_bytes);
			put_num(st, ws, r, SD_HEAD, b->headroom, st->f_pct);
			put_lit(st, ws, r, SD_VERDICT, gs_verdict_name(b->tight ? GS_TIGHT : GS_FITS),
			        st->f_verdict[b->tight ? GS_TIGHT : GS_FITS]);
			put_str(st, ws, r, SD_CONFIG, b->label, NULL);
			put_str(st, ws, r, SD_ROWID, b->row_id, NULL);
		} else {
			put_lit(st, ws, r, SD_CLASS, "none fits", st->f_verdict[GS_NO_FIT]);
		}
		put_num(st, ws, r, SD_NCONF, (double)b->n_configs, NULL);
		if (b->min_device != UINT64_MAX)
			put_gib(st, ws, r, SD_MINDEV, b->min_device);
		summary_time(st, ws, r, b);
		r++;
	}
	if (st->live && r > head + 1) {
		char none_text[] = "\"none fits\"";

		colour_verdicts(st, ws, head + 1, SD_VERDICT, r - 1, SD_VERDICT);
		cf_text(st, ws, head + 1, SD_CLASS, r - 1, SD_CLASS, LXW_CONDITIONAL_TYPE_CELL,
		        LXW_CONDITIONAL_CRITERIA_EQUAL_TO, none_text, st->f_verdict[GS_NO_FIT], false);
	}
	note_err(st, worksheet_autofilter(ws, head, 0, r > head + 1 ? r - 1 : head, (lxw_col_t)(SD_MAX - 1)));
}

/* The Summary and the Answers sheets, in stages: what they show; the
 * Summary's title (row 0), the pivot of the answers (its header on row 1)
 * and below it how to read the workbook; the Answers rows (each entry's,
 * its header on row 0). Each sheet freezes its own table's header: the
 * Summary its title and the pivot's header and the model column (not the
 * prose), the Answers its header and the model and method columns. */
static void write_summary(xl_state *st)
{
	lxw_worksheet *ws = st->summary;
	xl_summary sm;
	lxw_row_t r;

	memset(&sm, 0, sizeof sm);
	summary_collect(st, &sm);
	/* short enough for the narrowest pivot's printed width (two contexts) */
	put_lit(st, ws, 0, 0, "Smallest GPU setup per model, method and context", st->f_title);
	sm.pivot_head = 1;
	sm.detail0 = 1;
	r = summary_pivot(st, &sm);
	r = summary_prose(st, &sm, r + 1);
	worksheet_freeze_panes(ws, sm.pivot_head + 1, 1);
	/* on paper the pivot (its header on every page), then the prose */
	print_setup(st, ws, (int)sm.pivot_head, (int)sm.pivot_head,
	            col_pt(XL_SUM_MODEL) + col_pt(9) + col_pt(XL_SUM_CTX) * (double)sm.n_ctx);
	note_err(st, worksheet_print_area(ws, 0, 0, r - 1, (lxw_col_t)(1 + sm.n_ctx)));
	summary_details(st, &sm);
	worksheet_activate(ws);
	free(sm.ctx);
}

/* ---- checking what libxlsxwriter wrote --------------------------------- */

/*
 * libxlsxwriter does not check its writes to its temporary files (the rows
 * of a constant-memory sheet, each part before it is zipped): on a full disk
 * or past a file size limit it closes a workbook whose parts are cut short,
 * and says all went well. So read the zip back: its end record, every
 * entry's size, and every XML part inflated to its end, which must close the
 * root element it opened. (About 0.1 s per 100 MB of sheet XML.)
 */
static uint32_t rd16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The root element's name at the start of an XML document. */
static bool xml_root(const unsigned char *s, size_t n, char *name, size_t cap)
{
	size_t i = 0, k = 0;

	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
			i++;
		if (i + 1 >= n || s[i] != '<')
			return false;
		if (s[i + 1] != '?' && s[i + 1] != '!')
			break;
		while (i < n && s[i] != '>')
			i++;
		i++;
	}
	for (i++; i < n && k + 1 < cap && s[i] != '\0' && strchr(" \t\r\n/>", s[i]) == NULL; i++)
		name[k++] = (char)s[i];
	name[k] = '\0';
	return k > 0 && i < n;
}

typedef struct zip_part {
	char name[128];
	uint32_t method, csize, usize, offset;
} zip_part;

/* Inflate one entry; check its size and that it ends closing its root. */
static const char *check_part(FILE *fp, const zip_part *zp, unsigned char *in, size_t in_n,
                              unsigned char *out, size_t out_n)
{
	unsigned char lh[30], head[256], tail[64];
	size_t n_head = 0, n_tail = 0, name_n = strlen(zp->name);
	uint64_t total = 0, left = zp->csize;
	const char *why = NULL;
	z_stream z;
	int zr = Z_OK;
	char root[64], want[80];

	if (fseeko(fp, (off_t)zp->offset, SEEK_SET) != 0 || fread(lh, 1, sizeof lh, fp) != sizeof lh ||
	    rd32(lh) != 0x04034b50 ||
	    fseeko(fp, (off_t)(rd16(lh + 26) + rd16(lh + 28)), SEEK_CUR) != 0)
		return "bad local header";
	if (zp->method != 8) /* libxlsxwriter deflates every part */
		return "not deflated";
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
		return "cannot inflate";
	while (zr != Z_STREAM_END) {
		size_t made;

		if (z.avail_in == 0) {
			size_t want_in = left < in_n ? (size_t)left : in_n;
			if (want_in == 0)
				break;
			if (fread(in, 1, want_in, fp) != want_in) {
				why = "cut short";
				break;
			}
			left -= want_in;
			z.next_in = in;
			z.avail_in = (uInt)want_in;
		}
		z.next_out = out;
		z.avail_out = (uInt)out_n;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			why = "corrupt data";
			break;
		}
		made = out_n - z.avail_out;
		for (size_t i = 0; i < made && n_head < sizeof head; i++)
			head[n_head++] = out[i];
		if (made >= sizeof tail) {
			memcpy(tail, out + made - sizeof tail, sizeof tail);
			n_tail = sizeof tail;
		} else if (made > 0) {
			size_t keep = n_tail + made > sizeof tail ? sizeof tail - made : n_tail;
			memmove(tail, tail + n_tail - keep, keep);
			memcpy(tail + keep, out, made);
			n_tail = keep + made;
		}
		total += made;
	}
	inflateEnd(&z);
	if (why != NULL)
		return why;
	if (zr != Z_STREAM_END)
		return "compressed data cut short";
	if (total != zp->usize)
		return "size differs from the directory";
	if (!((name_n > 4 && strcmp(zp->name + name_n - 4, ".xml") == 0) ||
	      (name_n > 5 && strcmp(zp->name + name_n - 5, ".rels") == 0)))
		return NULL;
	if (!xml_root(head, n_head, root, sizeof root))
		return "no XML root element";
	while (n_tail > 0 && (tail[n_tail - 1] == ' ' || tail[n_tail - 1] == '\n' ||
	                      tail[n_tail - 1] == '\r' || tail[n_tail - 1] == '\t'))
		n_tail--;
	snprintf(want, sizeof want, "</%s>", root);
	if (n_tail < strlen(want) || memcmp(tail + n_tail - strlen(want), want, strlen(want)) != 0)
		return "XML cut short";
	return NULL;
}

gs_err gs_xlsx_verify(const char *path, const char *shown, gs_error *e)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL, *in = NULL, *out = NULL;
	const char *why = NULL;
	char part[128] = "";
	off_t size, from;
	size_t n, n_entries, pos;
	uint32_t cd_size, cd_off;
	long eocd = -1;

	if (fp == NULL)
		return gs_fail(e, GS_EIO, "%s: cannot read back the workbook: %s (previous file kept)",
		               shown, strerror(errno));
	if (fseeko(fp, 0, SEEK_END) != 0 || (size = ftello(fp)) < 22) {
		why = "no zip end record";
		goto out;
	}
	from = size > 65557 ? size - 65557 : 0;
	n = (size_t)(size - from);
	buf = gs_xmalloc(n);
	if (fseeko(fp, from, SEEK_SET) != 0 || fread(buf, 1, n, fp) != n) {
		why = "read error";
		goto out;
	}
	for (size_t i = n - 22 + 1; i-- > 0;)
		if (rd32(buf + i) == 0x06054b50) {
			eocd = (long)i;
			break;
		}
	if (eocd < 0) {
		why = "no zip end record";
		goto out;
	}
	n_entries = rd16(buf + eocd + 10);
	cd_size = rd32(buf + eocd + 12);
	cd_off = rd32(buf + eocd + 16);
	if ((off_t)cd_off + cd_size != from + eocd) {
		why = "zip directory misplaced";
		goto out;
	}
	free(buf);
	buf = gs_xmalloc(cd_size ? cd_size : 1);
	if (fseeko(fp, (off_t)cd_off, SEEK_SET) != 0 || fread(buf, 1, cd_size, fp) != cd_size) {
		why = "read error in the zip directory";
		goto out;
	}
	in = gs_xmalloc(1 << 16);
	out = gs_xmalloc(1 << 18);
	pos = 0;
	for (size_t k = 0; k < n_entries && why == NULL; k++) {
		zip_part zp;
		size_t nl;

		if (pos + 46 > cd_size || rd32(buf + pos) != 0x02014b50) {
			why = "bad zip directory";
			break;
		}
		nl = rd16(buf + pos + 28);
		if (pos + 46 + nl > cd_size) {
			why = "bad zip directory";
			break;
		}
		memset(&zp, 0, sizeof zp);
		snprintf(zp.name, sizeof zp.name, "%.*s", (int)nl, (const char *)buf + pos + 46);
		snprintf(part, sizeof part, "%s", zp.name);
		zp.method = rd16(buf + pos + 10);
		zp.csize = rd32(buf + pos + 20);
		zp.usize = rd32(buf + pos + 24);
		zp.offset = rd32(buf + pos + 42);
		why = check_part(fp, &zp, in, 1 << 16, out, 1 << 18);
		pos += 46 + nl + rd16(buf + pos + 30) + rd16(buf + pos + 32);
	}
out:
	if (fp != NULL && ferror(fp) && why == NULL)
		why = "read error";
	if (fp != NULL)
		fclose(fp);
	free(buf);
	free(in);
	free(out);
	if (why != NULL)
		return gs_fail(e, GS_EIO,
		               "%s: the written workbook is incomplete (%s%s%s): disk full or a file size "
		               "limit? (previous file kept)",
		               shown, part, part[0] ? ": " : "", why);
	return GS_OK;
}

static gs_err xl_end(gs_writer *w, gs_error *e)
{
	xl_state *st = w->state;
	lxw_worksheet *ws;
	lxw_error rc;
	gs_err err;

	if (st->in_model)
		return gs_fail(e, GS_EINTERNAL, "%s: end inside a model", st->path);
	write_summary(st);
	if (st->plan_row > PLAN_ROW_HEAD + 1) {
		colour_verdicts(st, st->plan, PLAN_ROW_HEAD + 1, PC_VERDICT, st->plan_row - 1, PC_VERDICT);
		note_err(st, worksheet_autofilter(st->plan, PLAN_ROW_HEAD, 0, st->plan_row - 1, PC_MAX - 1));
	}
	/* on paper: the table's columns (not the prose's overflow) */
	note_err(st, worksheet_print_area(st->plan, 0, 0, st->plan_row > PLAN_ROW_HEAD + 1 ? st->plan_row - 1
	                                                                               : PLAN_ROW_HEAD, PC_MAX - 1));
	/* on paper: the charts (their data is on the model sheets too), a page
	 * each: a chart across a page break prints clipped over the margin */
	if (st->n_charts > 0) {
		lxw_row_t *breaks = gs_xcalloc(st->n_charts + 1, sizeof *breaks);
		for (size_t k = 1; k < st->n_charts; k++)
			breaks[k - 1] = (lxw_row_t)(2 + k * XL_CHART_ROWS_APART);
		if (st->n_charts > 1)
			note_err(st, worksheet_set_h_pagebreaks(st->charts, breaks));
		free(breaks);
		note_err(st, worksheet_print_area(st->charts, 0, 0, (lxw_row_t)(2 + st->n_charts * XL_CHART_ROWS_APART),
		                                  CH_T0 - 1));
	}
	/* The rows already streamed to libxlsxwriter's temporary files: it does
	 * not look at their write errors (a full disk), so look here. */
	LXW_FOREACH_WORKSHEET(ws, st->wb) {
		if (ws->optimize_tmpfile != NULL &&
		    (fflush(ws->optimize_tmpfile) != 0 || ferror(ws->optimize_tmpfile)))
			return gs_fail(e, GS_EIO, "%s: writing the rows of sheet \"%s\" failed: %s "
			               "(previous file kept)", st->path, ws->name,
			               errno ? strerror(errno) : "write error");
	}
	err = check(st, e);
	if (err != GS_OK)
		return err;
	rc = workbook_close(st->wb); /* writes the file and frees the workbook */
	st->wb = NULL;
	if (rc != LXW_NO_ERROR)
		return lxw_fail(st, rc, e);
	err = gs_xlsx_verify(st->out.tmp, st->path, e);
	if (err != GS_OK)
		return err; /* free() removes the temporary */
	st->out_open = false;
	err = gs_atomic_commit(&st->out, e);
	if (err == GS_OK)
		st->done = true;
	return err;
}

static void xl_free(gs_writer *w)
{
	xl_state *st;

	if (w == NULL)
		return;
	st = w->state;
	if (st != NULL) {
		if (st->wb != NULL)
			lxw_workbook_free(st->wb); /* never closed: nothing written */
		if (st->out_open)
			gs_atomic_abort(&st->out);
		for (size_t i = 0; i < st->n_names; i++)
			free(st->names[i]);
		free(st->names);
		for (size_t i = 0; st->gpu_head != NULL && i < st->n_gpu_head; i++)
			free(st->gpu_head[i]);
		free(st->gpu_head);
		free(st->usable_gib);
		for (size_t i = 0; i < st->n_vf_text; i++)
			free(st->vf_text[i]);
		free(st->vf_text);
		free(st->gpu_key);
		for (size_t i = 0; i < st->n_models; i++) {
			free(st->models[i].id);
			free(st->models[i].source);
			free(st->models[i].sheet);
			for (int k = 0; k < st->models[i].n_parts; k++)
				free(st->models[i].part_name[k]);
			free(st->models[i].part_name);
			free(st->models[i].part_rows);
		}
		free(st->models);
		free(st->best);
		free(st);
	}
	free(w);
}

gs_writer *gs_writer_xlsx(void)
{
	gs_writer *w = gs_xcalloc(1, sizeof *w);

	w->name = "xlsx";
	w->begin = xl_begin;
	w->model_begin = xl_model_begin;
	w->row = xl_row;
	w->model_end = xl_model_end;
	w->end = xl_end;
	w->free = xl_free;
	w->state = gs_xcalloc(1, sizeof(xl_state));
	return w;
}

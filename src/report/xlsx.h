/* gpusizer: XLSX writer internals that tests need (the writer itself is
 * gs_writer_xlsx in report.h). */
#ifndef GS_REPORT_XLSX_H
#define GS_REPORT_XLSX_H

#include <stdint.h>

#include "err.h"

/* The workbook's file name under meta->out_dir. */
#define GS_XLSX_FILE "gpusizer.xlsx"

/* Model rows per sheet before a sheet continues on "<name> (2)": Excel's
 * 1,048,576 rows less the header row. */
#define GS_XLSX_DATA_ROWS_MAX (1048576u - 1u)

/* Test hook: lower the per-sheet row limit (0 restores the default) so the
 * split can be tested without writing a million rows. Process-wide. */
void gs_xlsx_set_data_rows_max(uint32_t rows);

/* Read back a workbook libxlsxwriter wrote (path) and check that it is
 * whole: the zip's end record and directory, and every part inflated to its
 * end, each XML part closing its root element. GS_EIO naming `shown` and
 * the part otherwise. (libxlsxwriter ignores failed writes to its
 * temporary files; xlsx.c calls this before renaming.) */
gs_err gs_xlsx_verify(const char *path, const char *shown, gs_error *e);

#endif

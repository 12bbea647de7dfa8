/* gpusizer: XLSX writer internals that tests need (the writer itself is
 * gs_writer_xlsx in report.h). Owned by the xlsx area. */
#ifndef GS_REPORT_XLSX_H
#define GS_REPORT_XLSX_H

#include <stdint.h>

/* The workbook's file name under meta->out_dir. */
#define GS_XLSX_FILE "gpusizer.xlsx"

/* Model rows per sheet before a sheet continues on "<name> (2)": Excel's
 * 1,048,576 rows less the header row. */
#define GS_XLSX_DATA_ROWS_MAX (1048576u - 1u)

/* Configurations per model drawn in the stacked W/G/O/A/B chart (the first
 * ones of the model's sheet). */
#define GS_XLSX_CHART_ROWS 50

/* Test hook: lower the per-sheet row limit (0 restores the default) so the
 * split can be tested without writing a million rows. Process-wide. */
void gs_xlsx_set_data_rows_max(uint32_t rows);

#endif

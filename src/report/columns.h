/* report/columns.h — the columns of the summary, in order, with their units
 * and meanings: one table read by summary.csv, the workbook's Scenarios
 * sheet and its glossary.  Names are the output contract of DESIGN.md §5. */
#ifndef DF_COLUMNS_H
#define DF_COLUMNS_H

#include <stddef.h>

#include "batch/run.h"

typedef enum { RC_TEXT, RC_NUM, RC_INT } RcType;

/* How a number reads: the workbook picks its number format from this. */
typedef enum { RF_PLAIN, RF_SECONDS, RF_DAYS, RF_PERCENT, RF_WATTS, RF_KWH, RF_GIB, RF_RATE } RcFormat;

typedef struct {
    const char *name; /* summary.csv header */
    const char *unit; /* for headers in the workbook; "" if none */
    RcType type;
    RcFormat format;
    const char *help; /* glossary */
} ReportCol;

extern const ReportCol report_cols[];
extern const int report_ncols;

/* The strategy's axes are report_cols[REPORT_AXIS0 ...] and
 * runner_cols[RUNNER_AXIS0 ...], in core/strategy.h's order (a test checks
 * each name). */
#define REPORT_AXIS0 7
#define RUNNER_AXIS0 2

/* Value of column i for a row: for RC_TEXT writes text and returns 0; for
 * numbers sets *num (NaN when not computable) and returns 1; -1 for a
 * column it has no reader for (a bug: a test reads every column). */
int report_value(int i, const RunRow *rr, double *num, char *text, size_t n);

/* The workbook's header of a column ("Tensor parallel" for "tp"), NULL
 * for a name it has no label for (a test labels every column). */
const char *rpt_col_label(const char *name);

/* The runners-up (--top K): one row per kept strategy of a searched row,
 * read by runners_up.csv and the workbook's Runners-up sheet alike. */
extern const ReportCol runner_cols[];
extern const int runner_ncols;

/* Value of runner column i for the strategy of rank `rank` (0: the best)
 * of rr->top: as report_value. */
int runner_value(int i, const RunRow *rr, int rank, double *num, char *text, size_t n);

#endif
